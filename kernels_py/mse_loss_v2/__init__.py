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

import numbers
from typing import Any

import ml_dtypes
import numpy as np

from ascsim import aclnn as _aclnn
from ascsim.errors import ACLNN_ERR_PARAM_INVALID, AclnnError

from . import knobs  # noqa: F401  (tiling knobs for profiling sweeps)
from .direct import run_kernel, tiling_for
from .op_api.aclnn_mse_loss import aclnnMseLoss, aclnnMseLossGetWorkspaceSize
from .op_host import mse_loss_v2_def, mse_loss_v2_infershape, mse_loss_v2_tiling  # noqa: F401

__all__ = ["aclnnMseLossGetWorkspaceSize", "aclnnMseLoss", "mse_loss", "run_kernel",
           "tiling_for", "REDUCTIONS", "result_dtype"]

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
_BF16 = np.dtype(ml_dtypes.bfloat16)


def _reduction_code(reduction: str | int) -> int:
    if isinstance(reduction, str):
        code = REDUCTIONS.get(reduction.lower())
        if code is None:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"reduction {reduction!r} should be "
                             "'none', 'mean' or 'sum' (or 0, 1, 2)")
        return code
    if isinstance(reduction, bool) or not isinstance(reduction, numbers.Integral):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID, "reduction must be 'none', 'mean', 'sum' or "
                         f"0, 1, 2, got {type(reduction).__name__} {reduction!r}")
    return int(reduction)  # out-of-range ints are reported by the API's reduction check


def _tensor(obj: Any, name: str) -> Any:
    """obj if the aclnn layer takes it (None is left to the API's null check, 161001); a list
    or another non-tensor is 161002, naming the parameter."""
    if obj is None or isinstance(obj, (np.ndarray, np.generic)) or \
            type(obj).__module__.startswith("torch"):
        return obj
    raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"{name} must be a numpy array or a torch CPU "
                     f"tensor, got {type(obj).__name__} (wrap it: np.asarray({name}, dtype))")


def _numpy_dtype(a: Any) -> np.dtype:
    if type(a).__module__.startswith("torch"):
        import torch
        return _BF16 if a.dtype == torch.bfloat16 else np.dtype(torch.empty(0, dtype=a.dtype)
                                                                .numpy().dtype)
    return np.asarray(a).dtype


def result_dtype(a: np.dtype, b: np.dtype) -> np.dtype:
    """PyTorch's promotion of two dtypes (fp16 with bf16 gives fp32; the wider float wins)."""
    a, b = np.dtype(a), np.dtype(b)
    if a == b:
        return a
    if {a, b} == {np.dtype(np.float16), _BF16}:
        return np.dtype(np.float32)
    if _BF16 in (a, b):
        other = b if a == _BF16 else a
        return other if other.kind == "f" and other.itemsize >= 4 else _BF16
    return np.promote_types(a, b)


def _new_out(template: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    if type(template).__module__.startswith("torch"):
        import torch
        tdt = torch.bfloat16 if dtype == _BF16 else torch.from_numpy(np.empty(0, dtype)).dtype
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
    hardware, the sanitizer mode and the host threads for this call."""
    self, target = _tensor(self, "self"), _tensor(target, "target")
    code = _reduction_code(reduction)
    out = None
    if self is not None and target is not None:
        dtype = result_dtype(_numpy_dtype(self), _numpy_dtype(target))
        try:
            shape = np.broadcast_shapes(tuple(np.shape(self)), tuple(np.shape(target)))
        except ValueError:
            shape = tuple(np.shape(self))  # the API reports the shapes that do not broadcast
        out = _new_out(self, shape if code == 0 else (), dtype)
    with _aclnn.device(profile, sanitize, threads):
        size, executor = aclnnMseLossGetWorkspaceSize(self, target, code, out)
        aclnnMseLoss(None, size, executor)
    if return_run:
        return out, (executor.runs[0] if executor.runs else None)
    return out
