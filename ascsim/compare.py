"""Comparing outputs bit for bit: ULP distances and a mismatch report.

Two floats are 0 ULP apart when their bits are equal, or when both are NaN (any payload, any
sign: NaN bits are not portable); otherwise the distance counts the representable values
between them, with -0.0 and +0.0 one apart. NaN against a number is an infinite distance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dtypes import is_bfloat16

__all__ = ["ulp_distance", "Mismatch", "first_mismatch", "max_ulp", "special_text"]

_BITS = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32,
         np.dtype(np.float64): np.uint64}


def _bits_type(dt: np.dtype) -> type | None:
    """The unsigned type of a float dtype's bit patterns (None: not a float)."""
    return np.uint16 if is_bfloat16(dt) else _BITS.get(dt)
INF_DISTANCE = np.iinfo(np.int64).max


def _ordered(bits: np.ndarray, width: int) -> np.ndarray:
    """Map sign-magnitude bit patterns to integers that order like the floats."""
    v = bits.astype(np.int64) if width < 64 else bits.view(np.int64)
    sign = np.int64(1) << (width - 1)
    neg = (v & sign) != 0
    mag = v & (sign - 1)
    return np.where(neg, -mag - 1, mag)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise ULP distance between two float arrays of the same dtype and shape."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        raise ValueError(f"cannot compare {a.dtype}{a.shape} with {b.dtype}{b.shape}")
    bits = _bits_type(a.dtype)
    if bits is None:  # integers: plain difference
        return np.abs(a.astype(np.int64) - b.astype(np.int64))
    width = a.dtype.itemsize * 8
    ia = _ordered(a.view(bits), width)
    ib = _ordered(b.view(bits), width)
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    na, nb = np.isnan(fa), np.isnan(fb)
    with np.errstate(over="ignore"):
        d = np.abs(ia - ib)
    d = np.where(na & nb, 0, d)
    return np.where(na ^ nb, INF_DISTANCE, d)


def special_text(v: float) -> str | None:
    """How tables print the values whose sign or class matters: NaN, +Inf, -Inf, 0, -0
    (None for any other number)."""
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "+Inf" if v > 0 else "-Inf"
    if v == 0:
        return "-0" if np.signbit(v) else "0"
    return None


def max_ulp(a: np.ndarray, b: np.ndarray) -> int:
    d = ulp_distance(a, b)
    return int(d.max()) if d.size else 0


@dataclass(frozen=True)
class Mismatch:
    """Where two outputs differ: count, the first index, both values, their ULP distance."""

    count: int
    total: int
    index: tuple[int, ...]
    actual: object
    expected: object
    ulp: int

    def __str__(self) -> str:
        ulp = "inf (NaN vs number)" if self.ulp == INF_DISTANCE else str(self.ulp)
        return (f"{self.count} of {self.total} elements differ; first at index {self.index}: "
                f"got {self.actual!r}, expected {self.expected!r} ({ulp} ULP)")


def first_mismatch(actual: np.ndarray, expected: np.ndarray, tolerance_ulp: int = 0
                   ) -> Mismatch | None:
    """None when every element is within `tolerance_ulp`, else a description of the damage."""
    d = ulp_distance(actual, expected)
    bad = d > tolerance_ulp
    n = int(bad.sum())
    if not n:
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    return Mismatch(n, int(d.size), idx, actual[idx], expected[idx], int(d[idx]))
