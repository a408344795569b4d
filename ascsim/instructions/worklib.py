"""What the numba work functions share (see registry.Work for their argument shape).

A work function specialises on a dtype *code* (a numba literal): `view(code, ub)` is the UB
seen as that dtype's storage type, `uview` as unsigned integers of its size (for work that only
moves bits), `load`/`store` convert an element to and from its compute type (fp32 for half and
bf16, widened and narrowed bit-exactly; integers as they are), `scalar(code, bits)` turns a
record's SCALAR field into the compute-type value, and `source` reads a source that partially
overlaps its destination as a snapshot, as the hardware reads a repeat before writing it.

Every offset in a row is a byte address; `shift(code)` turns it into an element index.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..convert import bf16_bits_to_f32, f16_bits_to_f32, f32_to_f16_rne
from ..dtypes import ALL_DTYPES, bfloat16_t, half

__all__ = ["JIT", "view", "uview", "load", "store", "scalar", "shift", "source", "enabled",
           "element_offset"]

JIT = dict(cache=True, nogil=True, error_model="numpy")

_STORAGE = {t.code: t.storage.type for t in ALL_DTYPES}
_UNSIGNED = {t.code: np.dtype(f"u{t.size}").type for t in ALL_DTYPES}
_SHIFT = {t.code: t.size.bit_length() - 1 for t in ALL_DTYPES}
_SIGNED_INT = {t.code: t.storage.type for t in ALL_DTYPES if t.kind == "i"}
_UNSIGNED_INT = {t.code: t.storage.type for t in ALL_DTYPES if t.kind == "u"}
_F16, _BF16 = half.code, bfloat16_t.code


def _code(code: object) -> int | None:
    return code.literal_value if isinstance(code, types.IntegerLiteral) else None


def view(code, ub):  # stubs given meaning by the overloads below
    pass


def uview(code, ub):
    pass


def load(code, x):
    pass


def store(code, v):
    pass


def scalar(code, bits):
    pass


def shift(code):
    pass


@overload(view, jit_options=JIT)
def _ov_view(code, ub):
    c = _code(code)
    if c is not None:
        st = _STORAGE[c]
        return lambda code, ub: ub.view(st)


@overload(uview, jit_options=JIT)
def _ov_uview(code, ub):
    c = _code(code)
    if c is not None:
        st = _UNSIGNED[c]
        return lambda code, ub: ub.view(st)


@overload(shift, jit_options=JIT)
def _ov_shift(code):
    c = _code(code)
    if c is not None:
        k = _SHIFT[c]
        return lambda code: k


@overload(load, jit_options=JIT)
def _ov_load(code, x):
    c = _code(code)
    if c == _F16:
        return lambda code, x: f16_bits_to_f32(x)
    if c == _BF16:
        return lambda code, x: bf16_bits_to_f32(x)
    if c is not None:
        return lambda code, x: x


@overload(store, jit_options=JIT)
def _ov_store(code, v):
    c = _code(code)
    if c == _F16:
        return lambda code, v: f32_to_f16_rne(v)
    if c is not None:
        return lambda code, v: v


@overload(scalar, jit_options=JIT)
def _ov_scalar(code, bits):
    c = _code(code)
    if c is None:
        return None
    if c == _F16:
        return lambda code, bits: f16_bits_to_f32(np.uint16(bits))
    if c == _BF16:
        return lambda code, bits: bf16_bits_to_f32(np.uint16(bits))
    if c in _SIGNED_INT:
        st = _SIGNED_INT[c]
        return lambda code, bits: np.int64(st(bits))
    if c in _UNSIGNED_INT:
        st = _UNSIGNED_INT[c]
        return lambda code, bits: np.int64(st(bits))
    return lambda code, bits: np.uint32(bits).view(np.float32)  # float


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def source(v, s, d, n):
    """Elements [s, s + n) of `v`, copied first when they partially overlap [d, d + n)."""
    if s != d and s < d + n and d < s + n:
        return v[s:s + n].copy()
    return v[s:s + n]


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def enabled(j, mask_lo, mask_hi):
    """Mask bit j (0..127) of a repeat; the mask halves are int64 (two's complement)."""
    return (mask_lo >> j) & 1 if j < 64 else (mask_hi >> (j - 64)) & 1


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def lanes(r, per_repeat, count):
    """The lanes repeat r runs: all of them in Normal mode (the row's count is repeats x
    per_repeat), the rest of the element count in Counter mode (the last repeat is partial)."""
    return min(per_repeat, count - r * per_repeat)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def element_offset(j, epb, blk, rep_base):
    """Element j of a repeat lives in DataBlock j // epb at position j % epb."""
    return rep_base + (j // epb) * blk * epb + j % epb
