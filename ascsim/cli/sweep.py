"""`ascsim sweep <op> --set knob=v1,v2 ...`: a tiling sweep on the timing model."""

from __future__ import annotations

import argparse

from ..oprunner import get_runner, parse_dtype, parse_shape
from ..sweep import sweep
from ..tuning import knobs_of
from .run import _add_op_options


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("sweep", help="compare tiling choices on the timing model",
                       description="Run an operator for every combination of the --set values "
                                   "(tiling knobs of the op; 'profile' sweeps hardware "
                                   "profiles) in parallel worker processes, and tabulate the "
                                   "estimated time and pipe ratios per choice.")
    p.add_argument("op")
    p.add_argument("--shape", default="64,8192")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", action="append", default=[], metavar="KNOB=V1,V2,...",
                   dest="settings", help="values of one knob (repeatable)")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: CPUs)")
    p.add_argument("--csv", metavar="CSV", help="write the table")
    p.add_argument("--plot", metavar="PNG", help="write the chart")
    p.add_argument("--list", action="store_true", help="list the op's knobs and exit")
    _add_op_options(p)
    return p


def main(args: argparse.Namespace) -> int:
    runner = get_runner(args.op)
    knobs = knobs_of(runner.OP_TYPE)
    if args.list or not args.settings:
        print(f"{args.op} tiling knobs (use --set NAME=V1,V2,...; 'profile' sweeps profiles):")
        for name, knob in knobs.items():
            print(f"  {name:<12} {knob.doc}")
        return 0 if args.list else 2
    grid = {}
    for text in args.settings:
        name, _, values = text.partition("=")
        if not values:
            raise SystemExit(f"ascsim: --set {text!r}: use NAME=V1,V2,...")
        parse = str if name == "profile" else knobs[name].parse if name in knobs else str
        grid[name] = [parse(v) for v in values.split(",")]
    parser = argparse.ArgumentParser(add_help=False)
    runner.add_arguments(parser)
    op_args = {k: getattr(args, k) for k in vars(parser.parse_args([]))}
    table = sweep(args.op, parse_shape(args.shape), parse_dtype(args.dtype).name, grid,
                  op_args=op_args, seed=args.seed, workers=args.workers)
    print(table)
    best = table.best()
    if best is not None:
        print("fastest: " + ", ".join(f"{k}={best[k]}" for k in table.keys) +
              f" ({best['time_us']:.2f} us)")
    if args.csv:
        print(f"csv   {table.write_csv(args.csv)}")
    if args.plot:
        print(f"plot  {table.plot(args.plot)}")
    return 0 if all(r.get("error") is None and r.get("bit_exact") for r in table.rows) else 1
