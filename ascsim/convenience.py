"""Argument checks for the operators' convenience functions (`logit_grad(x, dy, eps)` and the
like), so that a bad Python argument gets the aclnn code its aclnn API would give, naming the
parameter, instead of an AttributeError from deep inside:

- a required tensor that is None: 161001 (ACLNN_ERR_PARAM_NULLPTR);
- a tensor that is not a numpy array, numpy scalar or torch CPU tensor: 161002. Lists are
  refused, not converted: the aclnn API takes tensors, and a silent conversion would pick a
  dtype (float64, int64) that the op then refuses with a less helpful message;
- an attribute of the wrong type (eps="0.1", eps=None, reduction=None): 161002.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .errors import ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, AclnnError

__all__ = ["REDUCTIONS", "tensor_arg", "real_arg", "integer_arg", "reduction_arg",
           "reduction_name"]

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}  # aclnn's integers


def tensor_arg(obj: Any, name: str, optional: bool = False) -> Any:
    """`obj` unchanged if it is a tensor the aclnn layer takes (or None when optional)."""
    if obj is None:
        if optional:
            return None
        raise AclnnError(ACLNN_ERR_PARAM_NULLPTR, f"{name} must not be None")
    if isinstance(obj, (np.ndarray, np.generic)) or type(obj).__module__.startswith("torch"):
        return obj
    raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"{name} must be a numpy array or a torch CPU "
                     f"tensor, got {type(obj).__name__} (wrap it: np.asarray({name}, dtype))")


def real_arg(value: Any, name: str) -> float:
    """A float attribute: any real number (not bool, str or None)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"{name} must be a real number, got {type(value).__name__} {value!r}")
    return float(value)


def integer_arg(value: Any, name: str) -> int:
    """An integer attribute (a Python or numpy integer; not bool, float or str)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"{name} must be an integer, got {type(value).__name__} {value!r}")
    return int(value)


def reduction_arg(reduction: Any, name: str = "reduction") -> int:
    """"none" / "mean" / "sum" (any case) or aclnn's 0 / 1 / 2 as aclnn's integer. Other
    integers pass through: the API's own range check reports them, as it would in CANN."""
    if isinstance(reduction, str):
        code = REDUCTIONS.get(reduction.lower())
        if code is None:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"{name} {reduction!r} should be "
                             "'none', 'mean' or 'sum' (or 0, 1, 2)")
        return code
    if isinstance(reduction, bool) or not isinstance(reduction, numbers.Integral):
        raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"{name} must be 'none', 'mean', 'sum' or "
                         f"0, 1, 2, got {type(reduction).__name__} {reduction!r}")
    return int(reduction)


def reduction_name(reduction: Any, name: str = "reduction") -> str:
    """"none" / "mean" / "sum" for an op whose API takes the reduction as a string: any case,
    or aclnn's 0 / 1 / 2 (other integers are refused here, as no API check would see them)."""
    code = reduction_arg(reduction, name)
    names = {v: k for k, v in REDUCTIONS.items()}
    if code not in names:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"{name} {reduction!r} should be 'none', "
                         "'mean' or 'sum' (or 0, 1, 2)")
    return names[code]
