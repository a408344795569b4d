"""Launching MSELossV2 kernel variants for the corpus: the op's own tiling, the kernel entry's
shape (input, target, output, workspace, tiling), a zeroed workspace, an output that starts
as poison (0xA5 bytes)."""

from __future__ import annotations

import numpy as np

import ascsim
from ascsim.ascendc import (
    GET_TILING_DATA,
    KERNEL_TASK_TYPE_DEFAULT,
    KERNEL_TYPE_MIX_AIV_1_0,
    GetUserWorkspace,
    float,
)
from ascsim.tuning import tiling_overrides
from kernels_py.mse_loss_v2 import tiling_for


def entry(cls, T=float):
    """A kernel entry that runs cls[T] (a MSELossV2None / Sum / Mean variant)."""
    def kernel(input, target, output, workspace, tiling):
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0)
        tilingData = GET_TILING_DATA(tiling)
        op = cls[T]()
        if workspace is None:
            op.Init(input, target, output, tilingData)
        else:
            op.Init(input, target, output, GetUserWorkspace(workspace), tilingData)
        op.Process()
    kernel.__name__ = f"mse_{cls.__name__.lower()}"
    return kernel


def launch(kernel, n: int, reduction: str, sanitize: str = "check", seed: int = 0,
           dtype=np.float32, profile: str | None = None, **knobs) -> ascsim.Run:
    """`knobs`: forced tiling choices (the sweep knobs, e.g. tile=2048)."""
    rng = np.random.default_rng(seed)
    x, y = (rng.uniform(-1, 1, n).astype(np.float32).astype(dtype) for _ in range(2))
    with tiling_overrides(**knobs):
        t = tiling_for((n,), x.dtype, reduction, profile)
    out = np.empty((n,) if reduction == "none" else (), x.dtype)
    out.reshape(-1).view(np.uint8).fill(0xA5)
    ws = np.zeros(t.workspace, np.uint8) if t.workspace else None
    return ascsim.launch(kernel, t.block_dim, x, y, out, ws, tiling=t.data,
                         tiling_key=t.tiling_key, sanitize=sanitize, outputs=(2,),
                         workspace=3 if ws is not None else None, profile=profile)
