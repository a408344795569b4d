"""The kernel without the aclnn layer: run the op's own tiling for an input configuration and
launch the kernel, as a graph-mode call does on hardware:

    from kernels_py.mse_loss_v2 import run_kernel, tiling_for
    loss, run = run_kernel(x, y, reduction="sum")
    t = tiling_for((30, 1024), np.float16, "mean", profile="Ascend910B3")

Inputs must already be what the kernel reads: one dtype, one shape (no broadcasting, no
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

from .op_kernel.mse_loss_v2_tiling_data import MSELossV2TilingData

__all__ = ["OP_TYPE", "Tiling", "tiling_for", "run_kernel", "REDUCTION_NAMES"]

OP_TYPE = "MSELossV2"
REDUCTION_NAMES = ("none", "mean", "sum")  # by aclnn int


@dataclass(frozen=True)
class Tiling:
    """What the tiling function decided: the struct, the launch's block_dim, key, workspace
    (bytes, system part included) and schedule mode (1 = batch, for SyncAll)."""

    data: MSELossV2TilingData
    block_dim: int
    tiling_key: int
    workspace: int
    schedule_mode: int


def _attr(reduction: str | int) -> str:
    return REDUCTION_NAMES[reduction] if isinstance(reduction, int) else reduction


def tiling_for(shape: tuple[int, ...], dtype: Any, reduction: str | int = "mean",
               profile: str | None = None) -> Tiling:
    """Run the registered tiling function for input and target of `shape` and `dtype` and the
    reduction attribute ("none"/"mean"/"sum" or the aclnn int). Raises ValueError if it fails."""
    info = TensorInfo(StorageShape(shape), TensorDesc(dtype_to_ge(np.dtype(dtype))))
    attr = _attr(reduction)
    out = TensorInfo(StorageShape(shape if attr == "none" else ()), info.desc)
    reg = op_registration(OP_TYPE)
    context = TilingContext(OP_TYPE, [info, info], [out], [attr], load_profile(profile),
                            reg.tiling_struct)
    if reg.tiling(context) != GRAPH_SUCCESS or context.tiling_data is None:
        raise ValueError(f"{OP_TYPE} tiling failed for shape {list(shape)}, {np.dtype(dtype)}, "
                         f"reduction={reduction!r} (fp32/fp16/bf16, none/mean/sum, N > 0)")
    apply_overrides(OP_TYPE, context)  # a profiling sweep's forced tiling choices, if any
    return Tiling(context.tiling_data, context.block_dim, int(context.tiling_key),
                  sum(context.workspaces), int(getattr(context, "schedule_mode", 0)))


def run_kernel(input: np.ndarray, target: np.ndarray, reduction: str | int = "mean",
               profile: str | None = None, sanitize: str = "off",
               threads: int = 1) -> tuple[np.ndarray, Run]:
    """Tile and launch the kernel; returns (loss, run): input's shape for none, rank 0 else."""
    input = np.ascontiguousarray(input)
    target = np.ascontiguousarray(target)
    if target.shape != input.shape or target.dtype != input.dtype:
        raise ValueError(f"run_kernel: target is {target.dtype}{list(target.shape)} but the "
                         f"kernel reads {input.dtype}{list(input.shape)} like input (broadcast "
                         "and promotion belong to the aclnn API)")
    t = tiling_for(input.shape, input.dtype, reduction, profile)
    out = np.empty(input.shape if _attr(reduction) == "none" else (), dtype=input.dtype)
    workspace = np.zeros(t.workspace, dtype=np.uint8) if t.workspace else None
    run = launch(kernel_entry(OP_TYPE), t.block_dim, input, target, out, workspace,
                 tiling=t.data, tiling_key=t.tiling_key, profile=profile, sanitize=sanitize,
                 threads=threads, outputs=(2,), workspace=3 if t.workspace else None)
    return out, run
