"""`ascsim sweep <op> --set knob=v1,v2 ...`: a tiling sweep on the timing model, with a progress
bar on stderr when it is a terminal."""

from __future__ import annotations

import argparse
from typing import Any

from .. import distribute, progress
from ..errors import UsageError
from ..operator import Operator
from ..sweep import Progress, sweep
from ._options import add_operator_argument, option_values
from .run import positive_int


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("sweep", help="compare tiling choices on the timing model",
                       description="Run an operator for every combination of the --set values "
                                   "(tiling knobs of the op; 'profile' sweeps hardware "
                                   "profiles) in parallel worker processes, and tabulate the "
                                   "estimated time and pipe ratios per choice.")
    add_operator_argument(p)
    p.add_argument("--shape", default="64,8192")
    p.add_argument("--dtype", default=None, help="default: the op's first dtype")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", action="append", default=[], metavar="KNOB=V1,V2,...",
                   dest="settings", help="values of one knob (repeatable)")
    p.add_argument("--workers", type=positive_int, default=None,
                   help="local worker processes (default: CPUs)")
    # default None: sweep's main asks distribute.default_scheduler(), which imports Dask (about
    # 0.3 s), only when a sweep runs, not whenever the command line is built
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on Dask distributed: a scheduler's address (tcp://host:8786), "
                        "'local' for a LocalCluster of this machine's cores (the default when "
                        "Dask is installed), or 'none' for plain worker processes")
    p.add_argument("--csv", metavar="CSV", help="write the table")
    p.add_argument("--plot", metavar="PNG", help="write the chart")
    p.add_argument("--list", action="store_true", help="list the op's knobs and exit")
    return p


def _grid(op: Operator, settings: list[str]) -> dict[str, list[Any]]:
    knobs = op.tiling_knobs()
    grid: dict[str, list[Any]] = {}
    for text in settings:
        name, _, values = text.partition("=")
        if not values:
            raise UsageError(f"--set {text!r}: use NAME=V1,V2,...")
        parse = knobs[name].parse if name in knobs else str  # sweep() rejects unknown names
        try:
            grid[name] = [parse(v) for v in values.split(",")]
        except ValueError as e:
            raise UsageError(f"--set {text!r}: {e}") from None
    return grid


def _progress_bar() -> Progress | None:
    """A bar on stderr while a person is watching (progress.bar is quiet otherwise)."""
    if not progress.is_enabled():
        return None
    shown = progress.bar(None, "sweep", " combinations", delay=0.0)

    def draw(done: int, total: int, seconds: float) -> None:
        shown.total = total
        shown.update(done - shown.n)
        if done == total:
            shown.close()
    return draw


def main(args: argparse.Namespace) -> int:
    op: Operator = args.operator
    if args.list or not args.settings:
        print(f"{op.name} tiling knobs (use --set NAME=V1,V2,...; 'profile' sweeps profiles):")
        for name, knob in op.tiling_knobs().items():
            print(f"  {name:<12} {knob.doc}")
        return 0 if args.list else 2
    # the workers load the op again from the text given (an Operator from a file pickles
    # only by that route)
    table = sweep(args.op, args.shape, args.dtype, _grid(op, args.settings),
                  options=option_values(args, op), seed=args.seed, workers=args.workers,
                  progress=_progress_bar(),
                  scheduler=(distribute.default_scheduler() if args.scheduler is None
                             else args.scheduler))
    print(table)
    if table.defaults and not any(r.get("default") for r in table.rows):
        chosen = ", ".join(f"{k}={v}" for k, v in table.defaults.items())
        print(f"default: {chosen} (the op's own choice is not among the values swept; add it "
              "to compare)")
    best = table.best()
    if best is not None:
        print("fastest: " + ", ".join(f"{k}={best[k]}" for k in table.keys) +
              f" ({best['time_us']:.2f} us)")
    if args.csv:
        print(f"csv   {table.write_csv(args.csv)}")
    if args.plot:
        print(f"plot  {table.plot(args.plot)}")
    return 0 if all(r.get("error") is None and r.get("bit_exact") for r in table.rows) else 1
