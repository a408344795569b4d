"""Benchmark: the cost of the sanitizer on each shipped op, sanitize="check" next to "off".

    python tools/bench_sanitizer.py [--repeat 5] [--log2n 22] [--ops logit_grad,sce,...]
                                    [--passes] [--median]

For each op (LogitGrad; SigmoidCrossEntropyWithLogitsGradV2 with both weights, reduction none;
MSELossV2 mean and none; CrossEntropyLoss mean over (N, 1024) logits) on fp32 inputs of about
2**log2n elements it prints the best wall time of each mode and check / off (with --median, the
median of the --repeat runs: the best hides a cost that only some runs pay, such as memory that
a previous run still holds). The two modes run interleaved so that both see the same machine;
the jit is warmed first. With --passes it also prints the time of the sanitizer's offline
stages (snapshot of the GM outputs, on the kernel's thread: where the first write is deferred
the copy itself runs on the batch worker and is not in this figure; the per-core passes, the
multi-core checks, the atomic re-run): each the best over --repeat more check runs (one run's
figures swing by 2x on a shared machine). Machines are shared: compare ratios from one run,
not absolute numbers across runs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from kernels_py.cross_entropy_loss import cross_entropy_loss
from kernels_py.logit_grad import logit_grad
from kernels_py.mse_loss_v2 import mse_loss
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    binary_cross_entropy_with_logits_backward,
)

Call = Callable[[str], object]


def _cases(n: int, rng: np.random.Generator) -> dict[str, Call]:
    """op name -> call(sanitize mode)."""
    def draw(lo: float, hi: float, size: int | tuple[int, ...] = n) -> np.ndarray:
        return rng.uniform(lo, hi, size).astype(np.float32)
    x01, dy = draw(0, 1), draw(-100, 100)
    sce = [draw(-1, 1) for _ in range(5)]
    a, b = draw(-1, 1), draw(-1, 1)
    classes = 1024
    logits = draw(-4, 4, (n // classes, classes))
    target = rng.integers(0, classes, n // classes).astype(np.int64)
    return {
        "logit_grad": lambda mode: logit_grad(x01, dy, -1.0, sanitize=mode),
        "sce_grad": lambda mode: binary_cross_entropy_with_logits_backward(
            *sce, reduction="none", sanitize=mode),
        "mse_mean": lambda mode: mse_loss(a, b, "mean", sanitize=mode),
        "mse_none": lambda mode: mse_loss(a, b, "none", sanitize=mode),
        "cross_entropy": lambda mode: cross_entropy_loss(logits, target, sanitize=mode),
    }


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _stage_times(call: Call) -> dict[str, float]:
    """Seconds spent in each offline stage of one check run."""
    import ascsim.runtime as rt
    import ascsim.sanitizer.offline as off
    import ascsim.sanitizer.snapshot as snap
    spent: dict[str, float] = {}
    patched = [(rt, "analyse_run"), (rt, "order_findings"), (off, "_multicore_findings"),
               (snap.LaunchSnapshot, "_copy")]
    saved = [getattr(owner, name) for owner, name in patched]

    def timing(name: str, fn: Callable) -> Callable:
        def timed(*args: object, **kw: object) -> object:
            start = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - start
        return timed

    for (owner, name), fn in zip(patched, saved, strict=True):
        setattr(owner, name, timing(name, fn))
    try:
        call("check")
    finally:
        for (owner, name), fn in zip(patched, saved, strict=True):
            setattr(owner, name, fn)
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--log2n", type=int, default=22, help="elements = 2**log2n")
    parser.add_argument("--ops", default="", help="comma-separated subset of the ops")
    parser.add_argument("--passes", action="store_true", help="time the offline stages")
    parser.add_argument("--median", action="store_true",
                        help="the median of the runs instead of the best")
    args = parser.parse_args()
    cases = _cases(1 << args.log2n, np.random.default_rng(0))
    chosen = [o for o in args.ops.split(",") if o] or list(cases)
    print(f"{'op, fp32 2^' + str(args.log2n):<24}{'off s':>9}{'check s':>9}{'check/off':>11}")
    with contextlib.redirect_stdout(io.StringIO()):  # the sanitizer reports, if printed
        for name in chosen:  # compile the offline analyses, the op's work and its batches
            cases[name]("check")
            cases[name]("off")
    for name in chosen:
        call = cases[name]
        offs, chks = [], []
        for _ in range(max(args.repeat, 1)):  # interleaved
            offs.append(_timed(partial(call, "off")))
            chks.append(_timed(partial(call, "check")))
        stat = statistics.median if args.median else min
        t_off, t_chk = stat(offs), stat(chks)
        print(f"{name:<24}{t_off:>9.3f}{t_chk:>9.3f}{t_chk / t_off:>11.2f}")
        if args.passes:
            stages: dict[str, float] = {}
            for _ in range(max(args.repeat, 1)):
                for stage, spent in _stage_times(call).items():
                    stages[stage] = min(stages.get(stage, spent), spent)
            print("    " + ", ".join(f"{k} {v:.3f} s" for k, v in stages.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
