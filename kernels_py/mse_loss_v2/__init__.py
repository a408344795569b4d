"""MSELossV2 (`aclnnMseLoss`): the mean squared error l = (self - target)^2, reduced by none,
mean (sum / N) or sum over the N elements of the broadcast shape.

Three ways in:
- `mse_loss(self, target, reduction)`: the convenience call (numpy or torch in, the same
  out), through the aclnn API;
- `aclnnMseLossGetWorkspaceSize` / `aclnnMseLoss`: the aclnn pair;
- `run_kernel(...)` / `tiling_for(...)`: the kernel and its tiling without the aclnn layer.

Importing the package registers the op's definition, tiling and shape inference, as loading
the op's libraries does in CANN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ascsim import aclnn as _aclnn
from ascsim.convenience import REDUCTIONS, reduction_arg, tensor_arg
from ascsim.dtypes import bfloat16_t, is_bfloat16

from . import knobs  # noqa: F401  (tiling knobs for profiling sweeps)
from .direct import run_kernel, tiling_for
from .op_api.aclnn_mse_loss import aclnnMseLoss, aclnnMseLossGetWorkspaceSize
from .op_host import mse_loss_v2_def, mse_loss_v2_infershape, mse_loss_v2_tiling  # noqa: F401

__all__ = ["aclnnMseLossGetWorkspaceSize", "aclnnMseLoss", "mse_loss", "run_kernel",
           "tiling_for", "REDUCTIONS", "result_dtype"]


def _numpy_dtype(a: Any) -> np.dtype:
    if type(a).__module__.startswith("torch"):
        import torch
        if a.dtype == torch.bfloat16:
            return bfloat16_t.numpy
        return np.dtype(torch.empty(0, dtype=a.dtype).numpy().dtype)
    return np.asarray(a).dtype


def result_dtype(a: np.dtype, b: np.dtype) -> np.dtype:
    """PyTorch's promotion of two dtypes (fp16 with bf16 gives fp32; the wider float wins)."""
    a, b = np.dtype(a), np.dtype(b)
    if a == b:
        return a
    if is_bfloat16(a) or is_bfloat16(b):  # numpy cannot promote ml_dtypes' bfloat16
        other = b if is_bfloat16(a) else a
        if other == np.float16:
            return np.dtype(np.float32)
        return other if other.kind == "f" and other.itemsize >= 4 else bfloat16_t.numpy
    return np.promote_types(a, b)


def _new_out(template: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    if type(template).__module__.startswith("torch"):
        import torch
        tdt = (torch.bfloat16 if is_bfloat16(dtype)
               else torch.from_numpy(np.empty(0, dtype)).dtype)
        return torch.empty(shape, dtype=tdt)
    return np.empty(shape, dtype=dtype)


def mse_loss(self: Any, target: Any, reduction: str | int = "mean", return_run: bool = False,
             profile: str | None = None, sanitize: str | None = None,
             threads: int | None = None) -> Any:
    """The MSE loss of self against target, as `torch.nn.functional.mse_loss`: a new array
    of the broadcast shape for "none" (0), a 0-D array for "mean" (1) and "sum" (2), in the
    promoted dtype (PyTorch's rule); numpy in, numpy out; torch in, torch out; bf16 as
    ml_dtypes.bfloat16. `return_run=True` returns `(out, run)` (run is None when nothing was
    launched: an empty input). `profile`, `sanitize` and `threads` choose the simulated
    hardware, the sanitizer mode and the host threads for this call. Bad arguments raise
    AclnnError as the other convenience functions do (ascsim.convenience)."""
    self, target = tensor_arg(self, "self"), tensor_arg(target, "target")
    code = reduction_arg(reduction)
    dtype = result_dtype(_numpy_dtype(self), _numpy_dtype(target))
    try:
        shape = np.broadcast_shapes(tuple(np.shape(self)), tuple(np.shape(target)))
    except ValueError:
        shape = tuple(np.shape(self))  # the API reports the shapes that do not broadcast
    out = _new_out(self, shape if code == 0 else (), dtype)
    with _aclnn.device(profile, sanitize, threads, keep_runs=return_run):
        size, executor = aclnnMseLossGetWorkspaceSize(self, target, code, out)
        aclnnMseLoss(None, size, executor)
    if return_run:
        return out, (executor.runs[0] if executor.runs else None)
    return out
