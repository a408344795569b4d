"""Bit-exact numeric conversions of the AscendC `Cast` instruction (Atlas A2/A3), as numba code.

Storage
    fp16 ("half") and bf16 values are uint16 BIT PATTERNS everywhere in this module, fp32 values
    are float32 (or their uint32 bits) and int32 values are int32. Scalar entry points accept any
    integer for a bit pattern and any float for an fp32 value; a float64 argument is first
    rounded to float32 (nearest-even), as a C++ `float` parameter would be.

Rounding modes (`CAST_*`, the integer values of the AscendC `RoundMode` enum)
    CAST_NONE  = 0  nearest, ties to even, where the conversion loses precision (exact otherwise)
    CAST_RINT  = 1  nearest, ties to even
    CAST_FLOOR = 2  toward -inf
    CAST_CEIL  = 3  toward +inf
    CAST_ROUND = 4  nearest, ties away from zero
    CAST_TRUNC = 5  toward zero
    CAST_ODD   = 6  round to odd: truncate toward zero, then if any discarded bit was 1 force the
                    kept least significant bit to 1 ("von Neumann" rounding)
    Any other mode value behaves like CAST_RINT (assumption: the hardware never receives one).

Widening (exact)
    fp16 -> fp32 and bf16 -> fp32 are exact for every finite value, subnormals, +-0 and +-Inf.
    A NaN stays a NaN of the same sign with its payload kept (fp16: mantissa << 13, bf16:
    mantissa << 16) and the quiet bit 0x00400000 set.

Narrowing fp32 -> fp16 / bf16
    Correct rounding in every mode, with gradual underflow: results round into, inside and out
    of the subnormal range, tiny values go to +-0 or to the smallest subnormal as the mode
    dictates, and the sign of a zero result is the sign of the input.
    Overflow (the result rounded with an unbounded exponent exceeds the max finite value) follows
    IEEE 754 for the rounding direction: RINT/NONE/ROUND -> +-Inf; TRUNC and ODD -> +-max finite
    (round-to-odd never makes an infinity out of a finite value); FLOOR -> +max / -Inf;
    CEIL -> +Inf / -max. +-Inf input -> +-Inf in every mode.
    NaN -> quiet NaN: sign | 0x7C00 | 0x0200 | (mant >> 13) for fp16,
    sign | 0x7F80 | 0x0040 | (mant >> 16) for bf16 (mant = the 23 fp32 mantissa bits).
    saturate=True (the hardware profile's "saturating mode"): +-Inf and overflow -> +-max finite
    (fp16 0x7BFF, bf16 0x7F7F) in every mode, and NaN -> +0 (0x0000).

fp32 -> fp32 (`f32_round_integral`)
    Rounds to an integral float32 with the mode. NaN -> quiet NaN with sign and payload kept,
    +-Inf kept, |x| >= 2**23 is already integral and returned unchanged, the sign of a zero
    result is the sign of the input (-0.3 RINT -> -0.0). NONE means RINT here too.
    Decision: CAST_ODD truncates to the integral part and, if that was inexact, forces the
    result odd (0.3 -> 1.0, 2.5 -> 3.0, -4.2 -> -5.0, 4.0 -> 4.0).

fp32 -> int32 (`f32_to_i32`)
    Rounds with the mode (NONE means RINT), then saturates like the hardware: values outside
    int32 (and +-Inf) -> INT32_MAX / INT32_MIN, NaN -> 0. Assumption: this conversion always
    saturates, so the `saturate` argument is accepted for a uniform signature and ignored.

int32 -> fp32 (`i32_to_f32`)
    Exact when |x| <= 2**24, otherwise rounded with the mode (NONE means RINT). No overflow is
    possible.

fp32 -> any integer range (`f32_to_int`), int64 -> fp32 (`i64_to_f32`), narrowing integers
(`narrow_int`)
    As f32_to_i32 with the destination's [lo, hi] (int8 .. int64); int64 -> fp32 rounds once
    from the exact value; `narrow_int` clamps or, with `wrap`, keeps the low bits.

Array loops
    `cast_<src>_to_<dst>(dst, doff, src, soff, n, mode, saturate)` take 1-D contiguous arrays of
    the storage types, element offsets, and convert src[soff + i] into dst[doff + i] for i in
    [0, n) in ascending order (the caller guarantees no partial overlap). Casts without a mode
    or saturation choice accept and ignore those arguments. A range that does not fit inside
    either array raises IndexError before anything is written.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "CAST_NONE",
    "CAST_RINT",
    "CAST_FLOOR",
    "CAST_CEIL",
    "CAST_ROUND",
    "CAST_TRUNC",
    "CAST_ODD",
    "f16_bits_to_f32",
    "bf16_bits_to_f32",
    "f32_to_f16_bits",
    "f32_to_f16_rne",
    "f32_to_bf16_bits",
    "f32_round_integral",
    "f32_to_i32",
    "i32_to_f32",
    "f32_to_int",
    "i64_to_f32",
    "narrow_int",
    "cast_f16_to_f32",
    "cast_bf16_to_f32",
    "cast_f32_to_f16",
    "cast_f32_to_bf16",
    "cast_f32_to_f32",
    "cast_f32_to_i32",
    "cast_i32_to_f32",
]

CAST_NONE = 0
CAST_RINT = 1
CAST_FLOOR = 2
CAST_CEIL = 3
CAST_ROUND = 4
CAST_TRUNC = 5
CAST_ODD = 6

_INT32_MAX = 2147483647
_INT32_MIN = -2147483648

# All bit arithmetic below is done in int64: numba widens uint32 operands, and mixing unsigned
# with signed literals would silently promote to float64.


@njit(cache=True, nogil=True, error_model="numpy")
def _round_shift(sig, s, neg, mode):
    """Drop the low `s` bits (1 <= s <= 62) of the magnitude `sig` >= 0, rounding by `mode`.

    `neg` is the sign of the value whose magnitude is `sig`; directed modes need it. Written
    with non-short-circuit `&`/`|` so that LLVM can turn everything into selects.
    """
    q = sig >> s
    rem = sig & ((np.int64(1) << s) - 1)
    half = np.int64(1) << (s - 1)
    inexact = rem != 0
    if mode == CAST_TRUNC:
        return q
    if mode == CAST_ODD:
        return q | np.int64(inexact)
    if mode == CAST_FLOOR:
        inc = neg & inexact
    elif mode == CAST_CEIL:
        inc = (not neg) & inexact
    elif mode == CAST_ROUND:
        inc = rem >= half
    else:
        inc = (rem > half) | ((rem == half) & ((q & 1) == 1))
    return q + np.int64(inc)


@njit(cache=True, nogil=True, error_model="numpy")
def _overflow_to_inf(neg, mode):
    """True when an overflowing result rounds to infinity rather than to the max finite value."""
    to_max = (mode == CAST_TRUNC) | (mode == CAST_ODD)
    to_max |= ((mode == CAST_FLOOR) & (not neg)) | ((mode == CAST_CEIL) & neg)
    return not to_max


@njit(cache=True, nogil=True, error_model="numpy")
def _narrow_bits(u, mode, saturate, mbits, emin_biased, max_bits):
    """fp32 bits -> bits of a narrower binary format with the fp32 exponent range or less.

    `mbits` is the target's mantissa width, `emin_biased` the fp32 biased exponent of the
    target's smallest normal binade and `max_bits` the target's max finite magnitude bits.
    """
    a = u & 0x7FFFFFFF
    neg = (u >> 31) != 0
    sign = (u >> 16) & 0x8000
    e = a >> 23
    eff = max(e, np.int64(1))  # fp32 subnormals share the exponent of the smallest normal
    sig = (a & 0x7FFFFF) | (min(e, np.int64(1)) << 23)
    # Bits of `sig` to drop: 23 - mbits in the normal range, more below it; past 25 every bit of
    # the 24-bit significand is below half an ulp already, so clamping changes nothing.
    s = min(max(emin_biased + 23 - mbits - eff, 23 - mbits), np.int64(25))
    # A rounding carry out of the significand propagates into the exponent field naturally.
    r = (max(eff - emin_biased, np.int64(0)) << mbits) + _round_shift(sig, s, neg, mode)
    # Special cases as selects rather than branches keep the loop bodies vectorisable.
    inf_bits = max_bits + 1
    to_inf = ((a == 0x7F800000) | _overflow_to_inf(neg, mode)) & (not saturate)
    big = inf_bits if to_inf else max_bits
    nan = inf_bits | (np.int64(1) << (mbits - 1)) | ((a & 0x7FFFFF) >> (23 - mbits))
    r = big if r >= inf_bits else r
    r = sign | r
    if a > 0x7F800000:
        r = np.int64(0) if saturate else sign | nan
    return r


@njit(cache=True, nogil=True, error_model="numpy")
def _f32_bits_to_f16_bits(u, mode, saturate):
    return _narrow_bits(np.int64(u), mode, saturate, np.int64(10), np.int64(113), np.int64(0x7BFF))


@njit(cache=True, nogil=True, error_model="numpy")
def _f32_bits_to_bf16_bits(u, mode, saturate):
    return _narrow_bits(np.int64(u), mode, saturate, np.int64(7), np.int64(1), np.int64(0x7F7F))


@njit(cache=True, nogil=True, error_model="numpy")
def _f16_bits_to_f32_bits(h):
    h = np.int64(h)
    e = (h >> 10) & 0x1F
    m = h & 0x3FF
    normal = ((e + 112) << 23) | (m << 13)
    special = 0x7F800000 | (m << 13) | (np.int64(m != 0) << 22)  # Inf, or NaN made quiet
    # A subnormal m * 2**-24: float32(m) is exact, and its exponent minus 24 stays normal.
    sub = np.int64(np.float32(m).view(np.uint32)) - (np.int64(24) << 23)
    if m == 0:
        sub = np.int64(0)
    r = special if e == 0x1F else normal
    if e == 0:
        r = sub
    return ((h & 0x8000) << 16) | r


@njit(cache=True, nogil=True, error_model="numpy")
def _bf16_bits_to_f32_bits(b):
    b = np.int64(b)
    r = b << 16
    if (b & 0x7FFF) > 0x7F80:
        r |= 0x400000
    return r


@njit(cache=True, nogil=True, error_model="numpy")
def _f32_bits_round_integral(u, mode):
    """Round fp32 bits to an integral float32; returns the result's bits."""
    a = u & 0x7FFFFFFF
    neg = (u >> 31) != 0
    e = a >> 23
    if a > 0x7F800000:
        return u | 0x400000
    if e >= 150:  # |x| >= 2**23 (and Inf): nothing below the units place
        return u
    eff = max(e, np.int64(1))
    sig = (a & 0x7FFFFF) | (min(e, np.int64(1)) << 23)
    q = _round_shift(sig, min(150 - eff, np.int64(25)), neg, mode)
    # q <= 2**23 is exact in float32; going through the float avoids a normalisation loop.
    return (u & 0x80000000) | np.int64(np.float32(q).view(np.uint32))


@njit(cache=True, nogil=True, error_model="numpy")
def _f32_bits_to_i32(u, mode):
    a = u & 0x7FFFFFFF
    neg = (u >> 31) != 0
    e = a >> 23
    eff = max(e, np.int64(1))
    sig = (a & 0x7FFFFF) | (min(e, np.int64(1)) << 23)
    # e >= 150 shifts left (exact); below that the fraction is rounded away.
    left = sig << min(max(e - 150, np.int64(0)), np.int64(8))
    right = _round_shift(sig, min(max(150 - eff, np.int64(1)), np.int64(25)), neg, mode)
    mag = left if e >= 150 else right
    v = -mag if neg else mag
    if e >= 158:  # |x| >= 2**31 or Inf; -2**31 itself lands on INT32_MIN too
        v = np.int64(_INT32_MIN) if neg else np.int64(_INT32_MAX)
    if a > 0x7F800000:
        v = np.int64(0)
    return v


@njit(cache=True, nogil=True, error_model="numpy")
def _i32_to_f32(x, mode):
    x = np.int64(x)
    if mode == CAST_RINT or mode == CAST_NONE or (x <= 16777216 and x >= -16777216):
        return np.float32(x)  # sitofp rounds to nearest-even and is exact up to 2**24
    neg = x < 0
    mag = -x if neg else x
    # 2**24 < mag <= 2**31 is exact in float64; its exponent gives the bit length.
    nbits = ((np.int64(np.float64(mag).view(np.uint64)) >> 52) & 0x7FF) - 1022
    s = nbits - 24
    q = _round_shift(mag, s, neg, mode)
    r = np.float32(q) * np.float32(np.int64(1) << s)  # q <= 2**24 and a power of two: exact
    return -r if neg else r


# ---- public scalar functions ---------------------------------------------------------------


@njit(cache=True, nogil=True, error_model="numpy")
def f16_bits_to_f32(h: np.uint16) -> np.float32:
    """Widen fp16 bits to float32 exactly (NaN quieted, sign and payload kept)."""
    return np.uint32(_f16_bits_to_f32_bits(h)).view(np.float32)


@njit(cache=True, nogil=True, error_model="numpy")
def bf16_bits_to_f32(b: np.uint16) -> np.float32:
    """Widen bf16 bits to float32 exactly (NaN quieted, sign and payload kept)."""
    return np.uint32(_bf16_bits_to_f32_bits(b)).view(np.float32)


@njit(cache=True, nogil=True, error_model="numpy")
def f32_to_f16_bits(x: np.float32, mode: int, saturate: bool) -> np.uint16:
    """Round float32 to fp16 bits with `mode`; see the module docstring for the edge cases."""
    u = np.int64(np.float32(x).view(np.uint32))
    return np.uint16(_f32_bits_to_f16_bits(u, mode, saturate))


@njit(cache=True, nogil=True, error_model="numpy")
def f32_to_f16_rne(x: np.float32) -> np.uint16:
    """float32 -> fp16 bits, round to nearest-even, IEEE overflow to Inf (the half hot path)."""
    return f32_to_f16_bits(x, CAST_RINT, False)


@njit(cache=True, nogil=True, error_model="numpy")
def f32_to_bf16_bits(x: np.float32, mode: int, saturate: bool) -> np.uint16:
    """Round float32 to bf16 bits with `mode`; see the module docstring for the edge cases."""
    u = np.int64(np.float32(x).view(np.uint32))
    return np.uint16(_f32_bits_to_bf16_bits(u, mode, saturate))


@njit(cache=True, nogil=True, error_model="numpy")
def f32_round_integral(x: np.float32, mode: int) -> np.float32:
    """Round float32 to an integral float32 with `mode` (the fp32 -> fp32 Cast)."""
    u = np.int64(np.float32(x).view(np.uint32))
    return np.uint32(_f32_bits_round_integral(u, mode)).view(np.float32)


@njit(cache=True, nogil=True, error_model="numpy")
def f32_to_i32(x: np.float32, mode: int, saturate: bool) -> np.int32:
    """Round float32 to int32 with `mode`, saturating; NaN -> 0. `saturate` is ignored.

    CAST_ODD truncates and makes an inexact result odd, as `f32_round_integral` does.
    """
    u = np.int64(np.float32(x).view(np.uint32))
    return np.int32(_f32_bits_to_i32(u, mode))


@njit(cache=True, nogil=True, error_model="numpy")
def i32_to_f32(x: np.int32, mode: int) -> np.float32:
    """Convert int32 to float32, exact up to 2**24 in magnitude, else rounded with `mode`."""
    return _i32_to_f32(x, mode)


# ---- array loops ---------------------------------------------------------------------------
# The cast_* entry points call their element loop once per constant mode: after LLVM inlines the
# loop, the mode tests fold away and the loop body vectorises (a run-time mode does not). The
# mode is passed as np.int64(...), not as the bare constant: numba would type a bare constant as
# a literal and compile the loop and every function under it once per mode (6x the compile time
# of a cast, for the same machine code).


@njit(cache=True, nogil=True, error_model="numpy")
def _check_range(dst, doff, src, soff, n):
    # The loops run without bounds checks, so a bad range must not reach them.
    if n < 0 or doff < 0 or soff < 0 or doff + n > dst.shape[0] or soff + n > src.shape[0]:
        raise IndexError("cast: element range outside the source or destination array")


@njit(cache=True, nogil=True, error_model="numpy")
def cast_f16_to_f32(
    dst: np.ndarray, doff: int, src: np.ndarray, soff: int, n: int, mode: int, saturate: bool
) -> None:
    """dst[doff + i] = fp16 src[soff + i] widened to float32 (mode and saturate unused)."""
    _check_range(dst, doff, src, soff, n)
    d = dst[doff:doff + n].view(np.uint32)
    s = src[soff:soff + n]
    for i in range(n):
        d[i] = _f16_bits_to_f32_bits(s[i])


@njit(cache=True, nogil=True, error_model="numpy")
def cast_bf16_to_f32(
    dst: np.ndarray, doff: int, src: np.ndarray, soff: int, n: int, mode: int, saturate: bool
) -> None:
    """dst[doff + i] = bf16 src[soff + i] widened to float32 (mode and saturate unused)."""
    _check_range(dst, doff, src, soff, n)
    d = dst[doff:doff + n].view(np.uint32)
    s = src[soff:soff + n]
    for i in range(n):
        d[i] = _bf16_bits_to_f32_bits(s[i])


@njit(cache=True, nogil=True, error_model="numpy")
def _loop_f32_to_f16(d, s, mode, saturate):
    for i in range(d.shape[0]):
        d[i] = _f32_bits_to_f16_bits(s[i], mode, saturate)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_f32_to_f16(
    dst: np.ndarray, doff: int, src: np.ndarray, soff: int, n: int, mode: int, saturate: bool
) -> None:
    """dst[doff + i] = fp16 bits of float32 src[soff + i] rounded with `mode`."""
    _check_range(dst, doff, src, soff, n)
    d = dst[doff:doff + n]
    s = src[soff:soff + n].view(np.uint32)
    if mode == CAST_FLOOR:
        _loop_f32_to_f16(d, s, np.int64(CAST_FLOOR), saturate)
    elif mode == CAST_CEIL:
        _loop_f32_to_f16(d, s, np.int64(CAST_CEIL), saturate)
    elif mode == CAST_ROUND:
        _loop_f32_to_f16(d, s, np.int64(CAST_ROUND), saturate)
    elif mode == CAST_TRUNC:
        _loop_f32_to_f16(d, s, np.int64(CAST_TRUNC), saturate)
    elif mode == CAST_ODD:
        _loop_f32_to_f16(d, s, np.int64(CAST_ODD), saturate)
    else:
        _loop_f32_to_f16(d, s, np.int64(CAST_RINT), saturate)


@njit(cache=True, nogil=True, error_model="numpy")
def _loop_f32_to_bf16(d, s, mode, saturate):
    for i in range(d.shape[0]):
        d[i] = _f32_bits_to_bf16_bits(s[i], mode, saturate)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_f32_to_bf16(
    dst: np.ndarray, doff: int, src: np.ndarray, soff: int, n: int, mode: int, saturate: bool
) -> None:
    """dst[doff + i] = bf16 bits of float32 src[soff + i] rounded with `mode`."""
    _check_range(dst, doff, src, soff, n)
    d = dst[doff:doff + n]
    s = src[soff:soff + n].view(np.uint32)
    if mode == CAST_FLOOR:
        _loop_f32_to_bf16(d, s, np.int64(CAST_FLOOR), saturate)
    elif mode == CAST_CEIL:
        _loop_f32_to_bf16(d, s, np.int64(CAST_CEIL), saturate)
    elif mode == CAST_ROUND:
        _loop_f32_to_bf16(d, s, np.int64(CAST_ROUND), saturate)
    elif mode == CAST_TRUNC:
        _loop_f32_to_bf16(d, s, np.int64(CAST_TRUNC), saturate)
    elif mode == CAST_ODD:
        _loop_f32_to_bf16(d, s, np.int64(CAST_ODD), saturate)
    else:
        _loop_f32_to_bf16(d, s, np.int64(CAST_RINT), saturate)


@njit(cache=True, nogil=True, error_model="numpy")
def _loop_f32_to_f32(d, s, mode):
    for i in range(d.shape[0]):
        d[i] = _f32_bits_round_integral(np.int64(s[i]), mode)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_f32_to_f32(
    dst: np.ndarray, doff: int, src: np.ndarray, soff: int, n: int, mode: int, saturate: bool
) -> None:
    """dst[doff + i] = float32 src[soff + i] rounded to an integral value (saturate unused)."""
    _check_range(dst, doff, src, soff, n)
    d = dst[doff:doff + n].view(np.uint32)
    s = src[soff:soff + n].view(np.uint32)
    if mode == CAST_FLOOR:
        _loop_f32_to_f32(d, s, np.int64(CAST_FLOOR))
    elif mode == CAST_CEIL:
        _loop_f32_to_f32(d, s, np.int64(CAST_CEIL))
    elif mode == CAST_ROUND:
        _loop_f32_to_f32(d, s, np.int64(CAST_ROUND))
    elif mode == CAST_TRUNC:
        _loop_f32_to_f32(d, s, np.int64(CAST_TRUNC))
    elif mode == CAST_ODD:
        _loop_f32_to_f32(d, s, np.int64(CAST_ODD))
    else:
        _loop_f32_to_f32(d, s, np.int64(CAST_RINT))


@njit(cache=True, nogil=True, error_model="numpy")
def _loop_f32_to_i32(d, s, mode):
    for i in range(d.shape[0]):
        d[i] = _f32_bits_to_i32(np.int64(s[i]), mode)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_f32_to_i32(
    dst: np.ndarray, doff: int, src: np.ndarray, soff: int, n: int, mode: int, saturate: bool
) -> None:
    """dst[doff + i] = float32 src[soff + i] rounded to int32, saturating (saturate unused)."""
    _check_range(dst, doff, src, soff, n)
    d = dst[doff:doff + n]
    s = src[soff:soff + n].view(np.uint32)
    if mode == CAST_FLOOR:
        _loop_f32_to_i32(d, s, np.int64(CAST_FLOOR))
    elif mode == CAST_CEIL:
        _loop_f32_to_i32(d, s, np.int64(CAST_CEIL))
    elif mode == CAST_ROUND:
        _loop_f32_to_i32(d, s, np.int64(CAST_ROUND))
    elif mode == CAST_TRUNC:
        _loop_f32_to_i32(d, s, np.int64(CAST_TRUNC))
    elif mode == CAST_ODD:
        _loop_f32_to_i32(d, s, np.int64(CAST_ODD))
    else:
        _loop_f32_to_i32(d, s, np.int64(CAST_RINT))


@njit(cache=True, nogil=True, error_model="numpy")
def _loop_i32_to_f32(d, s, mode):
    for i in range(d.shape[0]):
        d[i] = _i32_to_f32(s[i], mode)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_i32_to_f32(
    dst: np.ndarray, doff: int, src: np.ndarray, soff: int, n: int, mode: int, saturate: bool
) -> None:
    """dst[doff + i] = int32 src[soff + i] as float32 rounded with `mode` (saturate unused)."""
    _check_range(dst, doff, src, soff, n)
    d = dst[doff:doff + n]
    s = src[soff:soff + n]
    if mode == CAST_FLOOR:
        _loop_i32_to_f32(d, s, np.int64(CAST_FLOOR))
    elif mode == CAST_CEIL:
        _loop_i32_to_f32(d, s, np.int64(CAST_CEIL))
    elif mode == CAST_ROUND:
        _loop_i32_to_f32(d, s, np.int64(CAST_ROUND))
    elif mode == CAST_TRUNC:
        _loop_i32_to_f32(d, s, np.int64(CAST_TRUNC))
    elif mode == CAST_ODD:
        _loop_i32_to_f32(d, s, np.int64(CAST_ODD))
    else:
        _loop_i32_to_f32(d, s, np.int64(CAST_RINT))


# ---- the other A2 pairs (ascendc_more.md §2.3) -----------------------------------------------

_INT64_MIN = -9223372036854775808


@njit(cache=True, nogil=True, error_model="numpy")
def _f32_bits_to_int(u, mode, lo, hi):
    """fp32 bits rounded to an integer with `mode` (NONE means RINT), saturated to [lo, hi];
    NaN -> 0 and +-Inf -> hi / lo, as f32_to_i32 [assumed]. Works for any range inside int64."""
    a = u & 0x7FFFFFFF
    neg = (u >> 31) != 0
    e = a >> 23
    eff = max(e, np.int64(1))
    sig = (a & 0x7FFFFF) | (min(e, np.int64(1)) << 23)
    if a > 0x7F800000:
        return np.int64(0)
    if e >= 190:  # |x| >= 2**63 or Inf: past every destination range
        return lo if neg else hi
    if e >= 150:  # integral already: shift left (at most 39 bits, below 2**63)
        mag = sig << (e - 150)
    else:
        mag = _round_shift(sig, min(150 - eff, np.int64(25)), neg, mode)
    v = -mag if neg else mag
    return min(max(v, lo), hi)


@njit(cache=True, nogil=True, error_model="numpy")
def _i64_to_f32(x, mode):
    """int64 -> float32 rounded once with `mode` (NONE means RINT), from the exact value: no
    float64 step, which would round twice above 2**53."""
    x = np.int64(x)
    if x == _INT64_MIN:
        return np.float32(-9223372036854775808.0)  # -2**63 is exact in float32
    neg = x < 0
    mag = -x if neg else x
    if mag <= 16777216:
        r = np.float32(mag)
    else:
        # float64(mag) can round up to the next power of two only: fix its bit length after
        nbits = ((np.int64(np.float64(mag).view(np.uint64)) >> 52) & 0x7FF) - 1022
        if (mag >> (nbits - 1)) == 0:
            nbits -= 1
        s = nbits - 24
        q = _round_shift(mag, s, neg, mode)
        r = np.float32(q) * np.float32(np.int64(1) << s)  # q <= 2**24, a power of two: exact
    return -r if neg else r


@njit(cache=True, nogil=True, error_model="numpy")
def f32_to_int(x: np.float32, mode: int, lo: int, hi: int) -> np.int64:
    """Round float32 to an integer with `mode`, saturated to [lo, hi]; NaN -> 0."""
    return _f32_bits_to_int(np.int64(np.float32(x).view(np.uint32)), mode, np.int64(lo),
                            np.int64(hi))


@njit(cache=True, nogil=True, error_model="numpy")
def i64_to_f32(x: np.int64, mode: int) -> np.float32:
    """Convert int64 to float32, exact up to 2**24 in magnitude, else rounded once with `mode`."""
    return _i64_to_f32(x, mode)


@njit(cache=True, nogil=True, error_model="numpy")
def narrow_int(x: np.int64, lo: int, hi: int, wrap: bool) -> np.int64:
    """An integer narrowed to [lo, hi] (a two's complement range): clamped, or with `wrap` its
    low bits kept (hi - lo + 1 is a power of two)."""
    x = np.int64(x)
    if not wrap:
        return min(max(x, np.int64(lo)), np.int64(hi))
    span = np.int64(hi) - np.int64(lo) + 1
    return ((x - np.int64(lo)) & (span - 1)) + np.int64(lo)
