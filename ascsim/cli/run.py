"""`ascsim run <op>`: run an operator on random inputs, check it against its numpy model and
summarise what the simulated cores did."""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import os
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import prewarm
from ..compare import INF_DISTANCE, first_mismatch, ulp_distance
from ..errors import UsageError
from ..operator import Operator, parse_shape
from ..runtime import worker_processes
from ._options import add_operator_argument, option_values


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive count")
    return value


def _check_fits_in_memory(shape: tuple[int, ...]) -> None:
    """Refuse a shape whose random draws alone (float64) outgrow the host's memory, before
    numpy tries: an over-committing kernel would let the allocation pass and kill us later."""
    need = math.prod(shape) * 8
    try:
        have = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not a POSIX host: let numpy decide
        return
    if need > have:
        raise UsageError(f"--shape {','.join(map(str, shape))}: its random inputs need "
                         f"{need / 2**30:.0f} GiB, more than this host's "
                         f"{have / 2**30:.0f} GiB of memory")


def add_common(p: argparse.ArgumentParser) -> None:
    """Options every op-level command takes."""
    add_operator_argument(p)
    p.add_argument("--shape", default="64,8192", help="comma-separated shape (default 64,8192)")
    p.add_argument("--dtype", default=None,
                   help="float32 | float16 | bfloat16 (default: the op's first dtype)")
    p.add_argument("--seed", type=int, default=0, help="random seed for the inputs")
    p.add_argument("--profile", default=None, help="hardware profile name or TOML file")
    p.add_argument("--threads", type=positive_int, default=1,
                   help="host threads for the cores (>= 1)")


def add_workers(p: argparse.ArgumentParser) -> None:
    """The option of the commands that run the op in the fast mode (run, profile)."""
    p.add_argument("--workers", type=positive_int, default=1,
                   help="host processes tracing the cores (>= 1; the fast mode, on POSIX; a "
                        "launch whose cores interact runs in one)")


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("run", help="run an operator and check it against its numpy model",
                       description="Run an operator on random inputs, compare the result bit "
                                   "for bit with the op's float32 numpy model, and print a "
                                   "summary. Op-specific options follow the op name.")
    add_common(p)
    add_workers(p)
    p.add_argument("--sanitize", default="off", choices=("off", "check", "strict"))
    p.add_argument("--timeline", default=None, metavar="PNG",
                   help="also write a pipeline timeline picture")
    return p


def prepare(args: argparse.Namespace) -> tuple[Operator, tuple[int, ...], np.dtype,
                                               dict[str, Any], dict[str, Any]]:
    """(operator, shape, dtype, inputs, options) for the command's arguments."""
    op: Operator = args.operator
    shape = parse_shape(args.shape)
    _check_fits_in_memory(shape)
    dtype = op.dtype(args.dtype)
    inputs, options = op.prepare(shape, dtype, args.seed, option_values(args, op))
    return op, shape, dtype, inputs, options


@contextlib.contextmanager
def _silent_logs() -> Iterator[None]:
    """ascsim's log (kernel printf lines, sanitizer reports) says nothing inside the block."""
    logger = logging.getLogger("ascsim")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


def run_and_report(args: argparse.Namespace, **device: Any) -> tuple:
    """Run the op (once to warm the jit, once timed), print what the cores did and how the
    result compares with the op's numpy model. Returns (run, mismatch)."""
    op, shape, dtype, inputs, options = prepare(args)
    with worker_processes(args.workers):
        with _silent_logs():  # its printf lines and sanitizer report come again below
            op.run(inputs, options, **device)  # compile and warm the numba kernels
        start = time.perf_counter()
        out, run = op.run(inputs, options, **device)
        seconds = time.perf_counter() - start
    expected = op.model(inputs, options)
    d = ulp_distance(np.asarray(out), expected)
    worst = int(d.max()) if d.size else 0
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    print(f"{op.name}: shape {list(shape)} {np.dtype(dtype).name}, {n} elements")
    if run is None:
        print("  empty input: nothing launched")
    else:
        print(f"  profile      {run.profile.name}")
        traced = f", traced in {run.processes} processes" if run.processes > 1 else ""
        print(f"  cores        {run.block_dim} (block_dim){traced}")
        if op.tiles is not None:
            print(f"  tiles        {op.tiles(inputs, options)}")
        print(f"  instructions {run.instruction_count} in total, per pipe: " + ", ".join(
            f"{k} {v}" for k, v in sorted(run.counts_by_pipe().items())))
        print(f"  simulated in {seconds:.3f} s ({n / max(seconds, 1e-9) / 1e6:.1f} M elements/s)")
    worst_text = "inf (NaN against a number)" if worst == INF_DISTANCE else str(worst)
    mismatch = first_mismatch(np.asarray(out), expected)
    print(f"  vs numpy model: max ULP difference {worst_text}" +
          (" (bit-exact)" if mismatch is None else f"; {mismatch}"))
    flat = np.asarray(out).reshape(-1)
    print(f"  output[:6]   {flat[:6].astype(np.float32).tolist()}")
    return run, mismatch


def main(args: argparse.Namespace) -> int:
    if args.timeline:
        prewarm.start("timing")  # the scheduler compiles in a worker while the kernel runs
    if args.sanitize != "off":
        prewarm.start("sanitizer")  # and the sanitizer's offline pass
    run, mismatch = run_and_report(args, profile=args.profile, sanitize=args.sanitize,
                                   threads=args.threads)
    if run is not None and args.timeline:
        timeline = run.timeline()
        timeline.plot_gantt(args.timeline)
        print(f"  model time   {timeline.total_us:.2f} us on {run.profile.name} "
              "(docs/timing.md)")
        print(f"  timeline     {args.timeline}")
    return 0 if mismatch is None else 1
