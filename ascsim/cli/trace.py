"""`ascsim trace <op> --core N [--values]`: one core's instruction log, with the operand
addresses of every instruction, its kernels_py line and mirrored kernels_cpp line, and with
--values the first elements of each operand (captured for that core only while it runs)."""

from __future__ import annotations

import argparse

from ..errors import UsageError
from ..sanitizer.trace import capture, format_trace
from .run import add_common, prepare


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("trace", help="a core's instruction log with operands",
                       description="Run an operator on random inputs and print the instruction "
                                   "log of one core: serialNo, pipe, instruction, operand "
                                   "ranges, source lines, and with --values the first "
                                   "elements of every operand.")
    add_common(p)
    p.add_argument("--core", type=int, default=0, help="the core to trace (default 0)")
    p.add_argument("--values", nargs="?", type=int, const=8, default=0, metavar="K",
                   help="show the first K elements of each operand (default K = 8)")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="print at most N instructions")
    return p


def main(args: argparse.Namespace) -> int:
    op, shape, dtype, inputs, options = prepare(args)
    with capture(args.core, args.values):
        _, run = op.run(inputs, options, profile=args.profile, threads=args.threads)
    if run is None:
        print(f"ascsim trace {op.name}: empty input, nothing launched")
        return 0
    if not 0 <= args.core < run.block_dim:
        raise UsageError(f"--core {args.core} is outside the launch's {run.block_dim} core(s)")
    print(format_trace(run.cores[args.core], args.limit))
    return 0
