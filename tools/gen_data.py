"""Generate a CANN-style test case: inputs and the golden output of an operator for one shape.

    python tools/gen_data.py logit_grad --shape 64,8193 --dtype float16 --eps 0.25 --out case/
    python tools/gen_data.py sigmoid_cross_entropy_with_logits_grad_v2 --shape 32,1024 \\
        --reduction sum --weight --out case/
    python tools/gen_data.py tools/examples/silu_grad.py --shape 1000 --dtype bf16 --out case/

writes case/input/<name>.bin, case/output/golden.bin (the operator's float32 numpy model, bit-exact
to the kernel) and case/meta.json (op, attributes, seed, dtype and shape of every file); see
ascsim/testing/datafiles.py for the format. Run the kernel under test on the inputs, write its
result to case/output/output.bin, then `python tools/compare_data.py case/`. `--run` does that
step on ascsim (the simulator standing in for the board).

The op is anything `ascsim run` takes: a shipped name, an `ascsim.ops` entry point,
path/to/my_op.py or pkg.module holding an `ascsim.Operator` (see README, "Write your own
operator"); its options (`--eps`, `--reduction`, ...) follow it. A bad command line is one line
on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from ascsim.cli._options import add_operator_argument, attach_operator, option_values
from ascsim.errors import UsageError
from ascsim.testing.datafiles import write_case, write_output


def parser() -> argparse.ArgumentParser:
    """The common options; the operator's own are added once it is known."""
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_operator_argument(p)
    p.add_argument("--shape", required=True, help="comma-separated shape, e.g. 64,8193")
    p.add_argument("--dtype", default=None, help="float32 | float16 | bfloat16 (default: the "
                   "operator's first dtype)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the inputs (default 0)")
    p.add_argument("--out", required=True, type=Path, help="case directory to write")
    p.add_argument("--run", action="store_true",
                   help="also run the op on ascsim and write output/output.bin")
    return p


def generate(argv: list[str]) -> int:
    p = parser()
    attach_operator(p, argv)
    args = p.parse_args(argv)
    op = args.operator
    options = option_values(args, op)
    inputs, options = op.prepare(args.shape, args.dtype, args.seed, options)
    golden = np.asarray(op.model(inputs, options))
    write_case(args.out, args.op, options, inputs, golden, seed=args.seed,
               generator="tools/gen_data.py (the operator's numpy model)")
    files = [f"input/{k}.bin ({v.dtype.name}{list(v.shape)})"
             for k, v in inputs.items() if v is not None]
    print(f"gen_data: {op.name} {options} seed {args.seed} -> {args.out}")
    print(f"  inputs: {', '.join(files)}")
    print(f"  golden: output/golden.bin ({golden.dtype.name}{list(golden.shape)})")
    if args.run:
        out, _ = op.run(inputs, options)
        path = write_output(args.out, np.asarray(out))
        print(f"  output: {path.relative_to(args.out)} (ascsim)")
    else:
        print("  next: write the kernel's result to output/output.bin, then "
              f"python tools/compare_data.py {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        return generate(sys.argv[1:] if argv is None else argv)
    except UsageError as e:
        print(f"gen_data: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
