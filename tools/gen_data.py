"""Generate a CANN-style test case: inputs and the golden output of an operator for one shape.

    python tools/gen_data.py logit_grad --shape 64,8193 --dtype float16 --eps 0.25 --out case/
    python tools/gen_data.py sigmoid_cross_entropy_with_logits_grad_v2 --shape 32,1024 \\
        --reduction sum --weight --out case/
    python tools/gen_data.py my_package.my_runner --shape 1000 --out case/

writes case/input/<name>.bin, case/output/golden.bin (the operator's float32 numpy model, bit-exact
to the kernel) and case/meta.json (op, attributes, seed, dtype and shape of every file); see
ascsim/testing/datafiles.py for the format. Run the kernel under test on the inputs, write its
result to case/output/output.bin, then `python tools/compare_data.py case/`. `--run` does that
step on ascsim (the simulator standing in for the board).

The op is one of ascsim's (`kernels_py/<op>/runner.py`) or any importable module with the same
functions: make_inputs(shape, dtype, rng, args) -> {name: array or None},
model(inputs, args) -> array, and optionally add_arguments(parser) and
run(inputs, args) -> (output, run).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

from ascsim.oprunner import get_runner, parse_dtype, parse_shape, runner_names
from ascsim.testing.datafiles import write_case, write_output


def load_runner(op: str) -> ModuleType:
    """ascsim's operator `op`, or the runner module of that name."""
    if op in runner_names():
        return get_runner(op)
    try:
        module = importlib.import_module(op)
    except ImportError as e:
        raise SystemExit(f"gen_data: {op!r} is neither an operator ({', '.join(runner_names())})"
                         f" nor an importable runner module ({e})") from None
    missing = [f for f in ("make_inputs", "model") if not hasattr(module, f)]
    if missing:
        raise SystemExit(f"gen_data: {op} has no {' or '.join(missing)}() (see --help)")
    return module


def op_parser(runner: ModuleType) -> tuple[argparse.ArgumentParser, list[str]]:
    """The full command line: common options plus the op's own; returns it and the op's
    option names (recorded as the case's params)."""
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("op", help=f"operator ({', '.join(runner_names())}) or a runner module")
    p.add_argument("--shape", required=True, help="comma-separated shape, e.g. 64,8193")
    p.add_argument("--dtype", default="float32", help="float32 | float16 | bfloat16")
    p.add_argument("--seed", type=int, default=0, help="random seed of the inputs (default 0)")
    p.add_argument("--out", required=True, type=Path, help="case directory to write")
    p.add_argument("--run", action="store_true",
                   help="also run the op on ascsim and write output/output.bin")
    group = p.add_argument_group("operator options")
    before = {a.dest for a in p._actions}
    if hasattr(runner, "add_arguments"):
        runner.add_arguments(group)
    return p, [a.dest for a in p._actions if a.dest not in before]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("op", nargs="?")
    known, _ = first.parse_known_args(argv)
    if known.op is None or known.op.startswith("-"):
        op_parser(ModuleType("none"))[0].parse_args(argv)  # prints usage / help and exits
    runner = load_runner(known.op)
    parser, op_options = op_parser(runner)
    args = parser.parse_args(argv)
    shape, dtype = parse_shape(args.shape), parse_dtype(args.dtype)
    inputs = runner.make_inputs(shape, dtype, np.random.default_rng(args.seed), args)
    golden = np.asarray(runner.model(inputs, args))
    params = {k: getattr(args, k) for k in op_options}
    write_case(args.out, args.op, params, inputs, golden, seed=args.seed,
               generator="tools/gen_data.py (the operator's numpy model)")
    files = [f"input/{k}.bin ({v.dtype.name}{list(v.shape)})"
             for k, v in inputs.items() if v is not None]
    print(f"gen_data: {args.op} {dict(params)} seed {args.seed} -> {args.out}")
    print(f"  inputs: {', '.join(files)}")
    print(f"  golden: output/golden.bin ({golden.dtype.name}{list(golden.shape)})")
    if args.run:
        if not hasattr(runner, "run"):
            raise SystemExit(f"gen_data: {args.op} has no run(); cannot --run it")
        out, _ = runner.run(inputs, args)
        path = write_output(args.out, np.asarray(out))
        print(f"  output: {path.relative_to(args.out)} (ascsim)")
    else:
        print("  next: write the kernel's result to output/output.bin, then "
              f"python tools/compare_data.py {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
