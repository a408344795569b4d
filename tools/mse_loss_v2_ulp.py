"""MSELossV2 against PyTorch: per dtype and reduction, the largest ULP distance of ascsim's
result from torch.nn.functional.mse_loss computed in float64 and rounded once to the output
dtype, on N = 1_000_003 inputs uniform in [-1, 1] (fp16 sum on 50_000: the full sum is past
fp16's range), with the wall time of each call.

    python tools/mse_loss_v2_ulp.py [--n N] [--seed S] [--profile NAME]
"""

from __future__ import annotations

import argparse
import time

import ml_dtypes
import numpy as np

from ascsim.compare import ulp_distance
from kernels_py.mse_loss_v2 import mse_loss
from kernels_py.mse_loss_v2.reference import torch_reference


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1_000_003)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--profile", default=None)
    args = p.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    for dt in (np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)):
        x, y = (rng.uniform(-1, 1, args.n).astype(np.float32).astype(dt) for _ in range(2))
        for red in ("none", "mean", "sum"):
            n = min(args.n, 50_000) if dt == np.float16 and red == "sum" else args.n
            start = time.perf_counter()
            out = mse_loss(x[:n], y[:n], red, profile=args.profile)
            seconds = time.perf_counter() - start
            ref = np.asarray(torch_reference(x[:n], y[:n], red)).astype(np.float32).astype(dt)
            worst = int(ulp_distance(np.asarray(out).reshape(-1), ref.reshape(-1)).max())
            print(f"{dt.name:9s} {red:5s} N={n:8d}  max ULP vs torch (float64, rounded): "
                  f"{worst}  ({seconds:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
