"""Bit-for-bit comparison of outputs.

Outputs are compared on their *canonical bits*: the raw bit pattern of every element, except
that every NaN is replaced by the dtype's canonical quiet NaN. NaN sign and payload are not
portable (the hardware's are undocumented, the host's depend on the CPU and on operand order);
everything else, including the sign of zero, subnormals and infinities, is pinned.
"""

from __future__ import annotations

import hashlib

import ml_dtypes
import numpy as np

from ..compare import INF_DISTANCE, Mismatch, ulp_distance

__all__ = ["canonical_bits", "output_sha256", "bit_mismatch", "describe", "format_mismatch",
           "ulp_text", "dtype_name", "dtype_from_name"]

BF16 = np.dtype(ml_dtypes.bfloat16)
_FLOATS = {np.dtype(np.float16): (np.uint16, 0x7C00, 0x03FF, 0x7E00),
           BF16: (np.uint16, 0x7F80, 0x007F, 0x7FC0),
           np.dtype(np.float32): (np.uint32, 0x7F800000, 0x007FFFFF, 0x7FC00000),
           np.dtype(np.float64): (np.uint64, 0x7FF0000000000000, 0x000FFFFFFFFFFFFF,
                                  0x7FF8000000000000)}


def dtype_name(dtype: np.dtype) -> str:
    """'float32', 'float16', 'bfloat16', 'int32', ...: the name the stores and meta files use."""
    return np.dtype(dtype).name


def dtype_from_name(name: str) -> np.dtype:
    if name in ("bfloat16", "bf16"):
        return BF16
    return np.dtype(name)


def canonical_bits(a: np.ndarray) -> np.ndarray:
    """The elements' bit patterns as unsigned integers of the same width (C order, same shape),
    every NaN replaced by the canonical quiet NaN of the dtype. Non-float dtypes: raw bits."""
    a = np.ascontiguousarray(a).reshape(np.shape(a))  # ascontiguousarray makes a 0-D array 1-D
    spec = _FLOATS.get(a.dtype)
    if spec is None:
        return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind != "b" else a.view(
            np.uint8)
    utype, exp_mask, man_mask, qnan = spec
    bits = a.view(utype)
    nan = ((bits & exp_mask) == exp_mask) & ((bits & man_mask) != 0)
    return np.where(nan, utype(qnan), bits).astype(utype)


def output_sha256(a: np.ndarray) -> str:
    """SHA-256 of the canonical bits as little-endian bytes, in C order."""
    bits = canonical_bits(a)
    return hashlib.sha256(bits.astype(bits.dtype.newbyteorder("<")).tobytes()).hexdigest()


def describe(value: object) -> str:
    """A value with its bit pattern: '1.5 (0x3e00)', 'nan (0x7fc00000)', '-0.0 (0x8000)'."""
    v = np.asarray(value)
    if v.dtype.kind in "fV" or v.dtype == BF16:
        width = v.dtype.itemsize
        raw = int(v.reshape(1).view(np.dtype(f"u{width}"))[0])
        text = str(v.reshape(1)[0])  # the shortest text that reads back as this value
        return f"{text} (0x{raw:0{2 * width}x})"
    return repr(v.item())


def bit_mismatch(actual: np.ndarray, expected: np.ndarray) -> Mismatch | None:
    """None when the canonical bits are equal everywhere; else the count of differing
    elements, the first (multi-dimensional) index, both values and their ULP distance."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        raise ValueError(f"cannot compare {dtype_name(actual.dtype)}{list(actual.shape)} with "
                         f"{dtype_name(expected.dtype)}{list(expected.shape)}")
    bad = canonical_bits(actual) != canonical_bits(expected)
    n = int(bad.sum())
    if not n:
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
    a, e = actual[idx], expected[idx]
    ulp = int(ulp_distance(np.asarray(a).reshape(1), np.asarray(e).reshape(1))[0])
    return Mismatch(n, int(bad.size), idx, a, e, ulp)


def format_mismatch(m: Mismatch, how: str = "differ bit for bit") -> str:
    """'3 of 8193 elements differ bit for bit; first at index (17,): got 1.5 (0x3e00), expected
    1.25 (0x3d00), 256 ULP apart'."""
    return (f"{m.count} of {m.total} elements {how}; first at index {m.index}: "
            f"got {describe(m.actual)}, expected {describe(m.expected)}, {ulp_text(m.ulp)}")


def ulp_text(ulp: int) -> str:
    """'3 ULP apart', or the NaN-against-a-number case."""
    if ulp == INF_DISTANCE:
        return "NaN against a number (infinitely many ULP apart)"
    return f"{ulp} ULP apart"
