"""Special input values for kernel tests: per float format, the values where kernels go wrong
(NaN, ±Inf, ±0, subnormals, the normal/subnormal boundary, the largest finite value, 1 and its
neighbours), the cross product of several such columns, and rounding ties of a narrowing cast.
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np

__all__ = ["special_values", "cross", "narrowing_ties"]

BF16 = np.dtype(ml_dtypes.bfloat16)
# (storage uint, exponent bits, mantissa bits) of each float format
_FORMATS = {np.dtype(np.float16): (np.uint16, 5, 10), BF16: (np.uint16, 8, 7),
            np.dtype(np.float32): (np.uint32, 8, 23)}


def _format(dtype: np.dtype) -> tuple[type, int, int]:
    try:
        return _FORMATS[np.dtype(dtype)]
    except KeyError:
        raise ValueError(f"no special values for {np.dtype(dtype)}; float16, bfloat16 and "
                         "float32 are supported") from None


def special_values(dtype: np.dtype) -> np.ndarray:
    """NaN, +Inf, -Inf, +0, -0, and with both signs: the smallest and the largest subnormal,
    the smallest normal, the largest finite value, 1, and 1's two neighbours, in `dtype`."""
    utype, e, m = _format(dtype)
    sign = 1 << (e + m)
    bias = (1 << (e - 1)) - 1
    inf = ((1 << e) - 1) << m
    one = bias << m
    positive = [1, (1 << m) - 1, 1 << m, inf - 1, one, one - 1, one + 1]
    bits = [inf | (1 << (m - 1)), inf, sign | inf, 0, sign]
    bits += [b for p in positive for b in (p, sign | p)]
    return np.array(bits, dtype=utype).view(np.dtype(dtype))


def cross(*columns: np.ndarray) -> tuple[np.ndarray, ...]:
    """Every combination of one value from each column, as equally long flat arrays (the
    first column varies slowest)."""
    combos = list(itertools.product(*(range(len(c)) for c in columns)))
    idx = np.array(combos, dtype=np.int64).reshape(len(combos), len(columns))
    return tuple(np.asarray(c)[idx[:, k]] for k, c in enumerate(columns))


def narrowing_ties(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Mask of the float32 `values` that lie exactly halfway between two neighbouring finite
    values of `dtype` (float16 or bfloat16): where round-to-nearest-even decides the result."""
    utype, e, m = _format(dtype)
    v = np.asarray(values, dtype=np.float32)
    with np.errstate(over="ignore"):
        r = v.astype(dtype)  # numpy / ml_dtypes narrow with round-to-nearest-even
    rw = r.astype(np.float64)
    vw = v.astype(np.float64)
    candidate = np.isfinite(rw) & np.isfinite(vw) & (rw != vw)
    # the neighbour of r on v's side: one step in the sign-magnitude order of the bits
    bits = r.view(utype).astype(np.int64)
    sign = 1 << (e + m)
    ordered = np.where(bits & sign, -(bits & (sign - 1)) - 1, bits)
    step = np.where(vw > rw, 1, -1)
    nb = ordered + step
    nbits = np.where(nb < 0, (-(nb + 1)) | sign, nb).astype(utype)
    nw = nbits.view(dtype).astype(np.float64)
    with np.errstate(invalid="ignore"):
        return candidate & np.isfinite(nw) & (np.abs(vw - rw) == np.abs(vw - nw))
