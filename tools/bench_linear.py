"""Benchmark: is ascsim's time linear in the input size? LogitGrad fp32 from 2**18 to 2**24
elements, next to whole-array numpy, in one run.

    python tools/bench_linear.py [--repeat 3] [--dtype float32|bfloat16]

For each size it prints the best of --repeat times, the nanoseconds per element, and that
figure relative to the largest size's (1.00 everywhere is perfectly linear; small sizes pay the
per-launch cost: 48 cores' setup, the worker thread, the last batches).
"""

from __future__ import annotations

import argparse

import ml_dtypes
import numpy as np
from bench_logit_grad import numpy_logit_grad
from benchutil import best_of

from kernels_py.logit_grad import logit_grad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dtype", default="float32", choices=("float32", "bfloat16"))
    args = parser.parse_args()
    dtype = np.float32 if args.dtype == "float32" else ml_dtypes.bfloat16
    rng = np.random.default_rng(0)
    sizes = [1 << k for k in range(18, 25, 2)]
    x = rng.uniform(0, 1, sizes[-1]).astype(np.float32).astype(dtype)
    dy = rng.uniform(-100, 100, sizes[-1]).astype(np.float32).astype(dtype)
    logit_grad(x[:sizes[0]], dy[:sizes[0]], -1.0)  # warm the jit
    rows = []
    for n in sizes:
        xs, dys = x[:n].copy(), dy[:n].copy()
        t = float("inf")
        t_np = float("inf")
        for _ in range(args.repeat):
            t = min(t, best_of(1, lambda xs=xs, dys=dys: logit_grad(xs, dys, -1.0))[0])
            t_np = min(t_np, best_of(1, lambda xs=xs, dys=dys: numpy_logit_grad(xs, dys,
                                                                                -1.0))[0])
        rows.append((n, t, t_np))
    per_last = rows[-1][1] / rows[-1][0]
    print(f"LogitGrad {args.dtype}, best of {args.repeat}")
    print(f"{'elements':>10}{'ascsim s':>10}{'ns/elem':>9}{'vs 2^24':>9}{'numpy s':>9}"
          f"{'ratio':>7}")
    for n, t, t_np in rows:
        print(f"{'2^' + str(n.bit_length() - 1):>10}{t:>10.4f}{1e9 * t / n:>9.2f}"
              f"{t / n / per_last:>9.2f}{t_np:>9.4f}{t_np / t:>7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
