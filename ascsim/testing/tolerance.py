"""Comparing an output with a golden within per-dtype tolerances (the CANN operator-test
style: |out - golden| <= atol + rtol * |golden| element by element).

Unlike `np.isclose`, infinities must match exactly (sign included), a NaN matches only a NaN,
and the report gives the count, the first failing index, both values and their ULP distance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..compare import Mismatch, ulp_distance
from .bitcompare import BF16, dtype_name

__all__ = ["Tolerance", "DEFAULT_TOLERANCES", "default_tolerance", "tolerance_mismatch"]


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float

    def __str__(self) -> str:
        return f"rtol={self.rtol:g}, atol={self.atol:g}"


# fp32 and fp16: the thresholds of the CANN op_api unit tests. Every one-ULP difference of a
# normal fp16 or bf16 value passes (an ULP is at most 2**-10 resp. 2**-7 of the value); fp32 is
# far looser than its ULP, since kernels legitimately reorder float32 operations.
DEFAULT_TOLERANCES = {np.dtype(np.float32): Tolerance(1e-4, 1e-4),
                      np.dtype(np.float16): Tolerance(1e-3, 1e-3),
                      BF16: Tolerance(8e-3, 8e-3)}


def default_tolerance(dtype: np.dtype) -> Tolerance:
    """The tolerance for `dtype`; integers must match exactly."""
    dtype = np.dtype(dtype)
    if dtype in DEFAULT_TOLERANCES:
        return DEFAULT_TOLERANCES[dtype]
    if dtype.kind in "iub":
        return Tolerance(0.0, 0.0)
    raise ValueError(f"no default tolerance for {dtype_name(dtype)}; give rtol and atol")


def tolerance_mismatch(actual: np.ndarray, expected: np.ndarray, tol: Tolerance
                       ) -> Mismatch | None:
    """None when every element is within tolerance, else the count of elements outside it,
    the first one (index, both values) and its ULP distance."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        raise ValueError(f"cannot compare {dtype_name(actual.dtype)}{list(actual.shape)} with "
                         f"{dtype_name(expected.dtype)}{list(expected.shape)}")
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(a - e) <= tol.atol + tol.rtol * np.abs(e)
    finite = np.isfinite(a) & np.isfinite(e)
    ok = (finite & close) | (np.isnan(a) & np.isnan(e)) | (np.isinf(e) & (a == e))
    bad = ~ok
    n = int(bad.sum())
    if not n:
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
    ulp = int(ulp_distance(np.asarray(actual[idx]).reshape(1),
                           np.asarray(expected[idx]).reshape(1))[0])
    return Mismatch(n, int(bad.size), idx, actual[idx], expected[idx], ulp)
