"""Benchmark: SigmoidCrossEntropyWithLogitsGradV2 (aclnnBinaryCrossEntropyWithLogitsBackward)
simulated on ascsim next to a whole-array numpy computation of the same formula, measured side
by side in one run.

    python tools/bench_sce_grad.py [--repeat 3] [--threads 1] [--log2n 22]

For fp32 and fp16 with both weights (reduction none, full-shape grad_output) on 2**22 elements
it prints elements/s for both and the ratio ascsim / numpy (> 1 means ascsim is faster), for
the aclnn call (`binary_cross_entropy_with_logits_backward`, what a user calls) and for the
kernel launch alone (`run_kernel`: tiling + the simulated cores, no API casts or copies).
ascsim runs the real kernel on 48 simulated cores with instruction records on; the jit is
warmed before timing; each figure is the best of --repeat runs. The last column is the ratio of
the eager executor (`execution="eager"`; the default defers the numba work to a worker thread,
ascsim/batch.py). Last, for fp32, the cost of the sanitizer: the aclnn call with
sanitize="check" next to sanitize="off" (tools/bench_sanitizer.py does this for every op).
Machines are shared: compare ratios from one run, not absolute numbers across runs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from functools import partial

import numpy as np
from benchutil import best_of

from ascsim.aclnn import cast_array
from ascsim.runtime import execution_mode
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    binary_cross_entropy_with_logits_backward,
    run_kernel,
)

CASES = (("float32", np.float32), ("float16", np.float16))


def numpy_sce_grad(grad: np.ndarray, x: np.ndarray, y: np.ndarray, w: np.ndarray,
                   pw: np.ndarray) -> np.ndarray:
    """The formula on whole arrays in float32: p = 1 / (1 + exp(-x)), g = (pw y + 1 - y) p -
    pw y, times grad and w, rounded back to x's dtype."""
    xf, yf = cast_array(x, np.float32), cast_array(y, np.float32)
    lw = cast_array(pw, np.float32) * yf
    p = np.float32(1) / (np.float32(1) + np.exp(-xf))
    g = (lw + np.float32(1) - yf) * p - lw
    g = g * cast_array(grad, np.float32) * cast_array(w, np.float32)
    return cast_array(g, x.dtype)




def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="host threads for the cores")
    parser.add_argument("--log2n", type=int, default=22, help="elements = 2**log2n")
    args = parser.parse_args()
    n = 1 << args.log2n
    rng = np.random.default_rng(0)
    print(f"{'case':<30}{'ascsim Melem/s':>15}{'numpy Melem/s':>15}{'ratio':>8}{'eager':>8}")
    for name, dtype in CASES:
        def draw(lo: float, hi: float, dtype: type = dtype) -> np.ndarray:
            return rng.uniform(lo, hi, n).astype(np.float32).astype(dtype)
        grad, x, y, w, pw = draw(-1, 1), draw(-1, 1), draw(0, 1), draw(-1, 1), draw(-1, 1)
        inputs = (grad, x, y, w, pw)
        small = tuple(a[:100_000] for a in inputs)
        # warm the jit (and numpy) outside the timed region
        binary_cross_entropy_with_logits_backward(*small, reduction="none")
        run_kernel(small[1], small[2], small[0], small[3], small[4], reduction="none")
        numpy_sce_grad(*small)
        calls = {"aclnn": partial(binary_cross_entropy_with_logits_backward, *inputs,
                                  reduction="none", threads=args.threads),
                 "kernel": partial(run_kernel, x, y, grad, w, pw, reduction="none",
                                   threads=args.threads)}
        with execution_mode("eager"):
            calls["kernel"]()  # warm the eager loops too
        t_np = float("inf")
        best = {(label, mode): float("inf") for label in calls for mode in ("deferred", "eager")}
        for _ in range(args.repeat):  # interleaved, so that all see the same machine
            t_np = min(t_np, best_of(1, partial(numpy_sce_grad, *inputs))[0])
            for (label, mode) in best:
                with execution_mode(mode):
                    best[label, mode] = min(best[label, mode], best_of(1, calls[label])[0])
        for label in calls:
            t_sim, t_eager = best[label, "deferred"], best[label, "eager"]
            case = f"{name} {label} 2^{args.log2n}"
            print(f"{case:<30}{n / t_sim / 1e6:>15.1f}{n / t_np / 1e6:>15.1f}"
                  f"{t_np / t_sim:>8.2f}{t_np / t_eager:>8.2f}")
        if name == "float32":
            sanitizer_row = (inputs, _check_cost(inputs, args))
    inputs, (t_off, t_chk) = sanitizer_row
    print(f"\ncost of the sanitizer, fp32 aclnn 2^{args.log2n}: off {t_off:.3f} s, check "
          f"{t_chk:.3f} s, check / off = {t_chk / t_off:.2f}")
    return 0


def _check_cost(inputs: tuple[np.ndarray, ...], args: argparse.Namespace
                ) -> tuple[float, float]:
    """Best wall times of the aclnn call with sanitize="off" and "check", interleaved so that
    both see the same machine."""
    def call(mode: str) -> object:
        return binary_cross_entropy_with_logits_backward(*inputs, reduction="none",
                                                         sanitize=mode, threads=args.threads)
    with contextlib.redirect_stdout(io.StringIO()):  # the (empty) sanitizer reports
        call("check")  # compile the offline analyses
        t_off = t_chk = float("inf")
        for _ in range(max(args.repeat, 3)):
            t_off = min(t_off, best_of(1, partial(call, "off"))[0])
            t_chk = min(t_chk, best_of(1, partial(call, "check"))[0])
    return t_off, t_chk


if __name__ == "__main__":
    raise SystemExit(main())
