"""Independent references for LogitGrad: a float32 numpy model in the kernel's operation order
(bit-exact by construction) and PyTorch's logit_backward (the documented maths)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ascsim.aclnn import cast_array

__all__ = ["numpy_model", "torch_reference"]


def numpy_model(x: np.ndarray, dy: np.ndarray, eps: float = -1.0) -> np.ndarray:
    """What the kernel computes, in its order: widen, t = x * -1, t = t + 1, t = x * t,
    q = dy / t, valid = (x >= lo) & (x <= hi), select q or the fill, narrow (fp16 and bf16 round
    to nearest-even)."""
    dtype = np.asarray(x).dtype
    xf = cast_array(np.asarray(x), np.float32).reshape(np.shape(x))
    dyf = cast_array(np.asarray(dy), np.float32).reshape(np.shape(dy))
    eps32 = np.float32(eps)
    if eps32 >= np.float32(0):
        lo, fill = eps32, np.float32(0)
    else:
        lo, fill = np.float32(0), np.float32(np.nan)
    hi = np.float32(1) - lo
    with np.errstate(all="ignore"):
        t = xf * np.float32(-1)
        t = t + np.float32(1)
        t = xf * t
        q = dyf / t
    valid = (xf >= lo) & (xf <= hi)
    out = np.where(valid, q, fill).astype(np.float32)
    return cast_array(out, dtype).reshape(np.shape(x))


def torch_reference(x: np.ndarray, dy: np.ndarray, eps: float = -1.0) -> np.ndarray:
    """torch.ops.aten.logit_backward on CPU, computed in float32 and rounded to x's dtype."""
    import torch
    dtype = np.asarray(x).dtype
    xt = torch.from_numpy(cast_array(np.asarray(x), np.float32).reshape(np.shape(x)))
    dyt = torch.from_numpy(cast_array(np.asarray(dy), np.float32).reshape(np.shape(dy)))
    out = torch.ops.aten.logit_backward(dyt, xt, float(eps)).numpy()
    if dtype == np.dtype(ml_dtypes.bfloat16) or dtype == np.float16:
        return cast_array(out, dtype).reshape(np.shape(x))
    return out
