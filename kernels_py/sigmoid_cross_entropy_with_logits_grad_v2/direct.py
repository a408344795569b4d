"""The kernel without the aclnn layer: run the op's own tiling for any input configuration and
launch any of the four template variants (<T, HAS_WEIGHT, HAS_POS_WEIGHT>).

The aclnn API always hands the kernel both weights (a missing one becomes ones), so this is the
way to reach the other three variants, as a graph-mode call does on hardware:

    from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import run_kernel, tiling_for
    grad, run = run_kernel(x, y, dout, weight=None, pos_weight=pw, reduction="sum")
    t = tiling_for((32, 1024), np.float16, has_weight=True, has_pos_weight=True)

Inputs must already be what the kernel reads: one dtype, predict's shape (no broadcasting, no
promotion; the aclnn layer does those).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ascsim.host import (
    GRAPH_SUCCESS,
    StorageShape,
    TensorDesc,
    TensorInfo,
    TilingContext,
    dtype_to_ge,
    kernel_entry,
    op_registration,
)
from ascsim.profile import load_profile
from ascsim.runtime import Run, launch
from ascsim.tuning import apply_overrides

from .op_kernel.sigmoid_cross_entropy_with_logits_grad_v2_tiling_data import (
    SigmoidCrossEntropyWithLogitsGradV2TilingData,
)

__all__ = ["OP_TYPE", "Tiling", "tiling_for", "run_kernel"]

OP_TYPE = "SigmoidCrossEntropyWithLogitsGradV2"


@dataclass(frozen=True)
class Tiling:
    """What the tiling function decided: the struct, the launch's block_dim, key and workspace."""

    data: SigmoidCrossEntropyWithLogitsGradV2TilingData
    block_dim: int
    tiling_key: int
    workspace: int


def tiling_for(shape: tuple[int, ...], dtype: Any, has_weight: bool, has_pos_weight: bool,
               reduction: str | int = "mean", buffer_num: int = 1,
               profile: str | None = None) -> Tiling:
    """Run the registered tiling function for predict of `shape` and `dtype` with the optional
    inputs present or absent; `reduction` is the op attribute as a graph passes it (a string,
    or an int in the aclnn numbering). Raises ValueError if the tiling function fails."""
    info = TensorInfo(StorageShape(shape), TensorDesc(dtype_to_ge(np.dtype(dtype))))
    inputs = [info, info, info, info if has_weight else None, info if has_pos_weight else None]
    reg = op_registration(OP_TYPE)
    context = TilingContext(OP_TYPE, inputs, [info], [reduction, buffer_num],
                            load_profile(profile), reg.tiling_struct)
    if reg.tiling(context) != GRAPH_SUCCESS or context.tiling_data is None:
        raise ValueError(f"{OP_TYPE} tiling failed for shape {list(shape)}, {np.dtype(dtype)}, "
                         f"has_weight={has_weight}, has_pos_weight={has_pos_weight}, "
                         f"reduction={reduction!r}, buffer_num={buffer_num} (buffer_num must be "
                         "1 or 2, and 2 needs at most 4 input queues: 8 event ids per position)")
    apply_overrides(OP_TYPE, context)  # a profiling sweep's forced tiling choices, if any
    return Tiling(context.tiling_data, context.block_dim, int(context.tiling_key),
                  sum(context.workspaces))


def run_kernel(predict: np.ndarray, target: np.ndarray, dout: np.ndarray,
               weight: np.ndarray | None = None, pos_weight: np.ndarray | None = None,
               reduction: str | int = "mean", buffer_num: int = 1, profile: str | None = None,
               sanitize: str = "off", threads: int = 1) -> tuple[np.ndarray, Run]:
    """Tile and launch the kernel variant that matches the inputs given; returns (gradient, run).
    Absent weights are passed to the kernel as null GM addresses."""
    predict = np.ascontiguousarray(predict)
    named = {"target": target, "dout": dout, "weight": weight, "pos_weight": pos_weight}
    arrays = {}
    for name, a in named.items():
        if a is None:
            arrays[name] = None
            continue
        a = np.ascontiguousarray(a)
        if a.shape != predict.shape or a.dtype != predict.dtype:
            raise ValueError(f"run_kernel: {name} is {a.dtype}{list(a.shape)} but the kernel "
                             f"reads {predict.dtype}{list(predict.shape)} like predict (broadcast "
                             "and promotion belong to the aclnn API)")
        arrays[name] = a
    t = tiling_for(predict.shape, predict.dtype, weight is not None, pos_weight is not None,
                   reduction, buffer_num, profile)
    gradient = np.empty_like(predict)
    workspace = np.zeros(t.workspace, dtype=np.uint8)
    run = launch(kernel_entry(OP_TYPE), t.block_dim, predict, arrays["target"], arrays["dout"],
                 arrays["weight"], arrays["pos_weight"], gradient, workspace, tiling=t.data,
                 tiling_key=t.tiling_key, profile=profile, sanitize=sanitize, threads=threads,
                 outputs=(5,))
    return gradient, run
