"""`ascsim profile <op>`: run an operator, schedule its records on the timing model and write
the timeline (Gantt picture, Chrome trace, PipeUtilization.csv, occupancy picture)."""

from __future__ import annotations

import argparse

from .run import add_common, run_and_report


def _window(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("--window takes START,END in microseconds") from None
    return lo, hi


def _cores(text: str) -> list[int]:
    cores: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cores += list(range(int(lo), int(hi or lo) + 1))
    return cores


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("profile", help="pipeline timeline of an operator run",
                       description="Run an operator on random inputs and schedule what every "
                                   "core did on the hardware profile's cost model "
                                   "(docs/timing.md). Prints a summary; writes the outputs "
                                   "asked for.")
    add_common(p)
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
    run, mismatch = run_and_report(args, profile=args.profile, threads=args.threads)
    if run is None:
        return 0 if mismatch is None else 1
    timeline = run.timeline()
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
