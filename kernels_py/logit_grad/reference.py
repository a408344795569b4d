"""Independent references for LogitGrad: a float32 numpy model in the kernel's operation order
(bit-exact by construction) and PyTorch's logit_backward (the documented maths).

Conversions use numpy / ml_dtypes, never ascsim's own cast (a model that shared the simulator's
conversion code could not catch a bug in it): widening fp16 / bf16 to float32 is exact, and
`astype` narrows float32 to float16 (numpy) and to bfloat16 (ml_dtypes) with round-to-nearest-
even, which is the kernel's CAST_NONE for half and CAST_RINT for bfloat16_t.
"""

from __future__ import annotations

import numpy as np

__all__ = ["numpy_model", "torch_reference"]

def _widen(a: np.ndarray) -> np.ndarray:
    """float32 copy of `a` (exact for float16, bfloat16 and float32)."""
    return np.asarray(a).astype(np.float32)


def numpy_model(x: np.ndarray, dy: np.ndarray, eps: float = -1.0) -> np.ndarray:
    """What the kernel computes, in its order: widen, t = x * -1, t = t + 1, t = x * t,
    q = dy / t, valid = (x >= lo) & (x <= hi), select q or the fill, narrow (fp16 and bf16 round
    to nearest-even)."""
    dtype = np.asarray(x).dtype
    xf, dyf = _widen(x), _widen(dy)
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
    with np.errstate(over="ignore"):  # a quotient past the narrow type's range becomes +-Inf
        return out.astype(dtype)


def torch_reference(x: np.ndarray, dy: np.ndarray, eps: float = -1.0) -> np.ndarray:
    """torch.ops.aten.logit_backward on CPU, computed in float32 and rounded to x's dtype."""
    import torch
    dtype = np.asarray(x).dtype
    xt = torch.from_numpy(np.ascontiguousarray(_widen(x)))
    dyt = torch.from_numpy(np.ascontiguousarray(_widen(dy)))
    out = torch.ops.aten.logit_backward(dyt, xt, float(eps)).numpy()
    if dtype.itemsize == 2:  # float16 or bfloat16 (the op's dtypes besides float32)
        with np.errstate(over="ignore"):
            return out.astype(dtype)
    return out
