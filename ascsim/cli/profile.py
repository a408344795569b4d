"""`ascsim profile <op>`: run an operator, schedule its records on the timing model and write
the timeline (Gantt picture, Chrome trace, PipeUtilization.csv, occupancy picture)."""

from __future__ import annotations

import argparse
import math

from .. import prewarm
from ..errors import UsageError
from .run import add_common, add_workers, run_and_report


def _window(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("takes START,END in microseconds") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and 0 <= lo < hi):
        raise argparse.ArgumentTypeError(f"{text!r}: START,END must be finite with "
                                         "0 <= START < END (microseconds)")
    return lo, hi


def _cores(text: str) -> list[int]:
    cores: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        try:
            first, last = int(lo), int(hi or lo)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: use core numbers and ranges, "
                                             "e.g. 0-3,8") from None
        if first < 0 or last < first:
            raise argparse.ArgumentTypeError(f"{part!r} is not a range of core numbers")
        cores += list(range(first, last + 1))
    return cores


def _check_zoom(args: argparse.Namespace, block_dim: int, end_us: float) -> None:
    """The Gantt zoom must show something of this run."""
    if args.cores is not None:
        missing = sorted(c for c in set(args.cores) if c >= block_dim)
        if missing:
            raise UsageError(f"--cores {missing[0]}: this run used cores 0..{block_dim - 1}")
    if args.window is not None and args.window[0] >= end_us:
        raise UsageError(f"--window starts at {args.window[0]:g} us, after the run ended "
                         f"({end_us:.3f} us)")


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("profile", help="pipeline timeline of an operator run",
                       description="Run an operator on random inputs and schedule what every "
                                   "core did on the hardware profile's cost model "
                                   "(docs/timing.md). Prints a summary; writes the outputs "
                                   "asked for.")
    add_common(p)
    add_workers(p)
    p.add_argument("--timeline", metavar="PNG", help="Gantt chart: a lane per pipe per core")
    p.add_argument("--trace", metavar="JSON", help="Chrome trace (Perfetto, chrome://tracing, "
                                                   "MindStudio Insight)")
    p.add_argument("--csv", metavar="CSV", help="PipeUtilization.csv with msprof's columns")
    p.add_argument("--occupancy", metavar="PNG", help="per-pipe occupancy chart")
    p.add_argument("--window", type=_window, metavar="START,END",
                   help="zoom the Gantt chart to this time range (us from launch)")
    p.add_argument("--cores", type=_cores, metavar="LIST",
                   help="cores to draw in the Gantt chart, e.g. 0-3,8")
    return p


def main(args: argparse.Namespace) -> int:
    prewarm.start("timing")  # the scheduler compiles in a worker while the kernel runs
    run, mismatch = run_and_report(args, profile=args.profile, threads=args.threads)
    if run is None:
        return 0 if mismatch is None else 1
    timeline = run.timeline()
    if args.timeline:
        _check_zoom(args, run.block_dim, timeline.total_us)
    print()
    print(timeline.summary())
    if args.timeline:
        timeline.plot_gantt(args.timeline, window_us=args.window, cores=args.cores)
        print(f"timeline   {args.timeline}")
    if args.trace:
        timeline.write_trace(args.trace)
        print(f"trace      {args.trace}")
    if args.csv:
        timeline.write_pipe_utilization(args.csv)
        print(f"csv        {args.csv}")
    if args.occupancy:
        timeline.plot_occupancy(args.occupancy)
        print(f"occupancy  {args.occupancy}")
    return 0 if mismatch is None else 1
