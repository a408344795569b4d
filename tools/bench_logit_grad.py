"""Benchmark: LogitGrad simulated on ascsim next to a whole-array numpy computation of the same
formula, measured side by side in one run.

    python tools/bench_logit_grad.py [--repeat 3] [--threads 1]

For fp32 on 2**24 elements and bf16 on 2**22 it prints elements/s for both and the ratio
ascsim / numpy (> 1 means ascsim is faster), and the ratio the eager executor reaches
(`execution="eager"`: every call runs its numba work before returning; the default defers it to
a worker thread, ascsim/batch.py). ascsim runs the real kernel on 48 simulated cores
with instruction records on; the jit is warmed before timing; each figure is the best of
--repeat runs. Then, for fp32 2**24, the cost of the timing model: scheduling the run's
records (`run.timeline()`) next to the functional run (records are always on;
tools/bench_timing.py estimates the recording share too) and to the same call returning its
Run, whose records are then packed. Last, for fp32 2**22, the cost of
the sanitizer: the same call with sanitize="check" (every online check, then racecheck,
initcheck, synccheck and the multi-core checks over the records) next to sanitize="off".
Machines are shared: compare ratios from one run, not absolute numbers across runs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from functools import partial

import ml_dtypes
import numpy as np
from benchutil import best_of

from ascsim.aclnn import cast_array
from ascsim.runtime import execution_mode
from kernels_py.logit_grad import logit_grad

CASES = (("float32", np.float32, 1 << 24), ("bfloat16", ml_dtypes.bfloat16, 1 << 22))


def numpy_logit_grad(x: np.ndarray, dy: np.ndarray, eps: float) -> np.ndarray:
    """The documented formula on whole arrays: dy / (x (1 - x)) inside [lo, hi], else the fill,
    computed in float32 and rounded back to x's dtype."""
    xf = cast_array(x, np.float32)
    dyf = cast_array(dy, np.float32)
    lo = np.float32(eps) if eps >= 0 else np.float32(0)
    fill = np.float32(0) if eps >= 0 else np.float32(np.nan)
    with np.errstate(all="ignore"):
        q = dyf / (xf * (np.float32(1) - xf))
    out = np.where((xf >= lo) & (xf <= np.float32(1) - lo), q, fill)
    return cast_array(out, x.dtype)




def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="host threads for the cores")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'case':<22}{'ascsim Melem/s':>15}{'numpy Melem/s':>15}{'ratio':>8}"
          f"{'eager':>8}")
    for name, dtype, n in CASES:
        x = rng.uniform(0, 1, n).astype(np.float32).astype(dtype)
        dy = rng.uniform(-100, 100, n).astype(np.float32).astype(dtype)
        logit_grad(x[:100_000], dy[:100_000], -1.0)  # warm the jit
        numpy_logit_grad(x, dy, -1.0)
        run = partial(logit_grad, x, dy, -1.0, threads=args.threads)
        with execution_mode("eager"):
            run(), run()  # warm the eager loops too
        t_sim = t_eager = t_np = float("inf")
        for _ in range(args.repeat):  # interleaved, so that all three see the same machine
            t_sim = min(t_sim, best_of(1, run)[0])
            with execution_mode("eager"):
                t_eager = min(t_eager, best_of(1, run)[0])
            t_np = min(t_np, best_of(1, partial(numpy_logit_grad, x, dy, -1.0))[0])
        print(f"{name + ' 2^' + str(n.bit_length() - 1):<22}{n / t_sim / 1e6:>15.1f}"
              f"{n / t_np / 1e6:>15.1f}{t_np / t_sim:>8.2f}{t_np / t_eager:>8.2f}")
        if name == "float32":
            t_kept, (_, run) = best_of(args.repeat, partial(logit_grad, x, dy, -1.0,
                                                            return_run=True))
            run.timeline()  # compile the scheduler
            t_tl, _ = best_of(args.repeat, run.timeline)
            timing_row = (n, t_sim, t_kept, t_tl)
    n, t_sim, t_kept, t_tl = timing_row
    print(f"\ncost of timing, fp32 2^{n.bit_length() - 1}: functional run {t_sim:.3f} s, "
          f"returning the Run (its records packed) {t_kept:.3f} s, timeline {t_tl:.3f} s, "
          f"timeline / functional = {t_tl / t_sim:.2f}")
    n = 1 << 22
    x = rng.uniform(0, 1, n).astype(np.float32)
    dy = rng.uniform(-100, 100, n).astype(np.float32)
    t_off = t_chk = float("inf")
    with contextlib.redirect_stdout(io.StringIO()):  # the (empty) sanitizer reports
        logit_grad(x, dy, -1.0, sanitize="check")  # compile the offline analyses
        for _ in range(max(args.repeat, 3)):  # interleaved, so that both see the same machine
            t_off = min(t_off, best_of(1, partial(logit_grad, x, dy, -1.0, sanitize="off",
                                                  threads=args.threads))[0])
            t_chk = min(t_chk, best_of(1, partial(logit_grad, x, dy, -1.0, sanitize="check",
                                                  threads=args.threads))[0])
    print(f"cost of the sanitizer, fp32 2^{n.bit_length() - 1}: off {t_off:.3f} s, "
          f"check {t_chk:.3f} s, check / off = {t_chk / t_off:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
