# ruff: noqa: F403, F405  (kernel code: the AscendC surface by star import)
"""Shared by the CrossEntropyLoss corpus modules: run a variant of the shipped kernel class
(a subclass with one method changed) on the op's own tiling, with a chosen core count."""

from __future__ import annotations

import numpy as np

import ascsim
from ascsim.ascendc import *
from ascsim.ascendc import kernel_sync
from ascsim.host import (
    GRAPH_SUCCESS,
    StorageShape,
    TensorDesc,
    TensorInfo,
    TilingContext,
    dtype_to_ge,
)
from ascsim.profile import load_profile
from kernels_py.cross_entropy_loss.knobs import _apply_cores
from kernels_py.cross_entropy_loss.op_host.cross_entropy_loss_tiling import (
    Tiling4CrossEntropyLoss,
)

KERNEL = "kernels_py/cross_entropy_loss/op_kernel/cross_entropy_loss_kernel.py"
DTYPES = {1: bfloat16_t, 2: half, 3: float}


def entry(cls):
    """A kernel entry like cross_entropy_loss's, instantiating `cls` for the key's dtype."""
    @kernel_sync("auto")
    def cross_entropy_loss_variant(input, target, weight, loss, logProb, zloss, lseForZloss,
                                   workspace, tiling):
        tilingData = GET_TILING_DATA(tiling)
        for key, dtype in DTYPES.items():
            if TILING_KEY_IS(key):
                op = cls[dtype]()
                op.Init(input, target, weight, loss, logProb, workspace, tilingData)
                op.Process()
    return cross_entropy_loss_variant


def _info(a: np.ndarray | None) -> TensorInfo | None:
    if a is None:
        return None
    return TensorInfo(StorageShape(a.shape), TensorDesc(dtype_to_ge(a.dtype)))


def tiling(x, target, weight, reduction, label_smoothing=0.0, ignore_index=-100, cores=None):
    """The op's TilingContext for these inputs (re-split over `cores` with the cores knob)."""
    n = x.shape[0]
    outs = [np.empty(n if reduction == "none" else 1, x.dtype), np.empty_like(x)]
    ctx = TilingContext("CrossEntropyLoss", [_info(x), _info(target), _info(weight)],
                        [_info(o) for o in outs], [reduction, ignore_index,
                                                   float(label_smoothing), 0.0, False],
                        load_profile(None))
    assert Tiling4CrossEntropyLoss(ctx) == GRAPH_SUCCESS
    if cores is not None:
        _apply_cores(ctx, cores)
    return ctx


def launch(cls, x, target, weight=None, reduction="mean", label_smoothing=0.0,
           ignore_index=-100, cores=None, sanitize="check") -> ascsim.Run:
    ctx = tiling(x, target, weight, reduction, label_smoothing, ignore_index, cores)
    n = x.shape[0]
    loss = np.empty(n if reduction == "none" else 1, x.dtype)
    log_prob = np.empty_like(x)
    empty = np.empty(0, x.dtype)
    ws = np.zeros(sum(ctx.workspaces), np.uint8)
    return ascsim.launch(entry(cls), ctx.block_dim, x, target, weight, loss, log_prob, empty,
                         empty, ws, tiling=ctx.tiling_data, tiling_key=ctx.tiling_key,
                         sanitize=sanitize, outputs=(3, 4), workspace=7)


def inputs(n: int, c: int, dtype=np.float32, seed: int = 0, weight: bool = False):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-5, 5, (n, c)).astype(np.float32).astype(dtype)
    t = rng.integers(0, c, n).astype(np.int64)
    w = rng.uniform(0, 1, c).astype(np.float32) if weight else None
    return x, t, w
