"""Compare a kernel's output file with the golden: per-dtype tolerances, or bit for bit.

    python tools/compare_data.py case/                       # output/output.bin vs golden.bin
    python tools/compare_data.py case/ --bit-exact
    python tools/compare_data.py --output out.bin --golden golden.bin --dtype float16 \\
        [--shape 64,8193] [--rtol 1e-3 --atol 1e-3]

Tolerance mode: every element must satisfy |out - golden| <= atol + rtol * |golden| (defaults
per dtype: float32 1e-4/1e-4, float16 1e-3/1e-3, bfloat16 8e-3/8e-3); infinities must match
exactly and a NaN matches only a NaN. --bit-exact: every element's bits must be equal (any NaN
matches any NaN). Prints PASS or FAIL with the count of bad elements, the first one's index,
both values and their ULP distance. Exit status: 0 pass, 1 fail, 2 the files cannot be
compared (missing, wrong size).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from ascsim.compare import max_ulp
from ascsim.oprunner import DTYPES, parse_shape
from ascsim.testing.bitcompare import bit_mismatch, dtype_name, format_mismatch
from ascsim.testing.datafiles import load_meta, read_array, read_bin
from ascsim.testing.tolerance import Tolerance, default_tolerance, tolerance_mismatch

PASS, FAIL, ERROR = 0, 1, 2


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("case", nargs="?", type=Path, help="case directory written by gen_data.py")
    p.add_argument("--output", type=Path, help="output file (default: the case's output.bin)")
    p.add_argument("--golden", type=Path, help="golden file (without a case directory)")
    p.add_argument("--dtype", help=f"element type without a case directory ({', '.join(DTYPES)})")
    p.add_argument("--shape", help="shape without a case directory (default: flat)")
    p.add_argument("--bit-exact", action="store_true", help="require identical bits")
    p.add_argument("--rtol", type=float, help="relative tolerance (default: per dtype)")
    p.add_argument("--atol", type=float, help="absolute tolerance (default: per dtype)")
    args = p.parse_args(argv)
    if args.case is None and (args.output is None or args.golden is None or args.dtype is None):
        p.error("give a case directory, or --output, --golden and --dtype")
    return args


def load(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray, str, str]:
    """(output, golden, output path, golden path) as typed arrays of the golden's shape."""
    if args.case is not None:
        meta = load_meta(args.case)
        spec = meta["golden"]
        golden = read_array(args.case, spec)
        out_path = args.output or args.case / meta["output"]["file"]
        output = read_bin(out_path, spec["dtype"], tuple(spec["shape"]))
        return output, golden, str(out_path), str(args.case / spec["file"])
    dtype = DTYPES.get(args.dtype.lower())
    if dtype is None:
        raise ValueError(f"unknown --dtype {args.dtype!r}; use one of {', '.join(DTYPES)}")
    dtype = np.dtype(dtype)
    size = args.golden.stat().st_size // dtype.itemsize
    shape = parse_shape(args.shape) if args.shape else (size,)
    golden = read_bin(args.golden, dtype, shape)
    return read_bin(args.output, dtype, shape), golden, str(args.output), str(args.golden)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        output, golden, out_path, golden_path = load(args)
    except (OSError, ValueError) as e:
        print(f"compare_data: ERROR: {e}")
        print("compare_data: FAIL (nothing was compared)")
        return ERROR
    what = f"{dtype_name(golden.dtype)}{list(golden.shape)}"
    print(f"compare_data: {out_path} vs {golden_path} ({what}, {golden.size} elements)")
    if args.bit_exact:
        mode = "bit-exact"
        m = bit_mismatch(output, golden)
        detail = None if m is None else format_mismatch(m)
    else:
        base = default_tolerance(golden.dtype)
        tol = Tolerance(base.rtol if args.rtol is None else args.rtol,
                        base.atol if args.atol is None else args.atol)
        mode = f"tolerance {tol}"
        m = tolerance_mismatch(output, golden, tol)
        detail = None if m is None else format_mismatch(m, f"are outside {tol}")
    if detail is not None:
        print(f"  mode: {mode}")
        print(f"FAIL: {detail}")
        return FAIL
    finite = np.isfinite(golden.astype(np.float64)) if golden.dtype.kind != "i" else None
    worst = max_ulp(output[finite], golden[finite]) if finite is not None else 0
    print(f"  mode: {mode}")
    print(f"PASS: all {golden.size} elements match (largest distance {worst} ULP)")
    return PASS


if __name__ == "__main__":
    raise SystemExit(main())
