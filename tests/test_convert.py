"""Bit-exact tests of ascsim.convert against independent references.

References: numpy float16 and ml_dtypes.bfloat16 for round-to-nearest-even, an exact rational
model built on `fractions.Fraction` for every mode, and a table model that picks the answer among
the two neighbouring representable values for a dense sweep of rounding boundaries.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import ml_dtypes
import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascsim.convert import (
    CAST_CEIL,
    CAST_FLOOR,
    CAST_NONE,
    CAST_ODD,
    CAST_RINT,
    CAST_ROUND,
    CAST_TRUNC,
    bf16_bits_to_f32,
    cast_bf16_to_f32,
    cast_f16_to_f32,
    cast_f32_to_bf16,
    cast_f32_to_f16,
    cast_f32_to_f32,
    cast_f32_to_i32,
    cast_i32_to_f32,
    f16_bits_to_f32,
    f32_round_integral,
    f32_to_bf16_bits,
    f32_to_f16_bits,
    f32_to_f16_rne,
    f32_to_i32,
    i32_to_f32,
)

MODES = (CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD)
NEAREST_EVEN = (CAST_NONE, CAST_RINT)
INT32_MAX = 2**31 - 1
INT32_MIN = -(2**31)
PROPERTY = settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_mode_values() -> None:
    assert MODES == (0, 1, 2, 3, 4, 5, 6)


# ---- bit helpers -----------------------------------------------------------------------------


def f32_of(bits: int) -> np.float32:
    return np.array([bits], np.uint32).view(np.float32)[0]


def bits_of(x: float) -> int:
    """Bits of a float32 result. Results come back from numba as Python floats; converting a
    quiet NaN double back to float32 keeps its payload."""
    return int(np.array([x], np.float32).view(np.uint32)[0])


def is_nan32(bits: int) -> bool:
    return (bits & 0x7FFFFFFF) > 0x7F800000


def numpy_f16(bits: int) -> int:
    with np.errstate(over="ignore"):
        return int(f32_of(bits).astype(np.float16).view(np.uint16))


def numpy_bf16(bits: int) -> int:
    return int(f32_of(bits).astype(ml_dtypes.bfloat16).view(np.uint16))


def nan_f16(bits: int) -> int:
    """The fp16 NaN the spec asks for: sign | 0x7C00 | quiet 0x0200 | top 10 payload bits."""
    return ((bits >> 16) & 0x8000) | 0x7E00 | ((bits & 0x7FFFFF) >> 13)


def nan_bf16(bits: int) -> int:
    return ((bits >> 16) & 0x8000) | 0x7FC0 | ((bits & 0x7FFFFF) >> 16)


# ---- exact rational reference ----------------------------------------------------------------


class Fmt(NamedTuple):
    mbits: int  # stored mantissa bits
    ebits: int  # exponent field width
    bias: int

    @property
    def inf(self) -> int:
        return ((1 << self.ebits) - 1) << self.mbits

    @property
    def max_finite(self) -> int:
        return self.inf - 1

    @property
    def sign(self) -> int:
        return 1 << (self.mbits + self.ebits)


F16 = Fmt(10, 5, 15)
BF16 = Fmt(7, 8, 127)
F32 = Fmt(23, 8, 127)


def decode_f32(bits: int) -> tuple[str, bool, Fraction]:
    """('nan' | 'inf' | 'fin', negative, exact magnitude)."""
    neg = bool(bits >> 31)
    e = (bits >> 23) & 0xFF
    m = bits & 0x7FFFFF
    if e == 0xFF:
        return ("inf" if m == 0 else "nan"), neg, Fraction(0)
    sig = m if e == 0 else m | (1 << 23)
    return "fin", neg, sig * Fraction(2) ** (max(e, 1) - 150)


def round_magnitude(mag: Fraction, neg: bool, mode: int) -> int:
    """Round the value (-1)**neg * mag to an integer by the mode; return its magnitude."""
    fl = mag.numerator // mag.denominator
    frac = mag - fl
    if frac == 0:
        return fl
    if mode == CAST_TRUNC:
        return fl
    if mode == CAST_FLOOR:
        return fl + 1 if neg else fl
    if mode == CAST_CEIL:
        return fl if neg else fl + 1
    if mode == CAST_ODD:
        return fl | 1
    if mode == CAST_ROUND:
        return fl + 1 if frac >= Fraction(1, 2) else fl
    # RINT and NONE
    if frac != Fraction(1, 2):
        return fl + 1 if frac > Fraction(1, 2) else fl
    return fl + (fl & 1)


def floor_log2(v: Fraction) -> int:
    e = v.numerator.bit_length() - v.denominator.bit_length()
    while Fraction(2) ** e > v:
        e -= 1
    while Fraction(2) ** (e + 1) <= v:
        e += 1
    return e


def ref_round_to(neg: bool, mag: Fraction, fmt: Fmt, mode: int, saturate: bool) -> int:
    """Bits of the finite value (-1)**neg * mag rounded into `fmt` with IEEE overflow rules."""
    sign = fmt.sign if neg else 0
    if mag == 0:
        return sign
    emin = 1 - fmt.bias
    quantum = Fraction(2) ** (max(floor_log2(mag), emin) - fmt.mbits)
    val = round_magnitude(mag / quantum, neg, mode) * quantum
    if val >= Fraction(2) ** (fmt.bias + 1):  # beyond the largest binade: overflow
        toward_zero = (
            mode in (CAST_TRUNC, CAST_ODD)
            or (mode == CAST_FLOOR and not neg)
            or (mode == CAST_CEIL and neg)
        )
        return sign | (fmt.max_finite if saturate or toward_zero else fmt.inf)
    if val == 0:
        return sign
    e = floor_log2(val)
    if e < emin:
        return sign | int(val / Fraction(2) ** (emin - fmt.mbits))
    frac_bits = int(val / Fraction(2) ** (e - fmt.mbits)) - (1 << fmt.mbits)
    return sign | ((e + fmt.bias) << fmt.mbits) | frac_bits


def ref_narrow(bits: int, fmt: Fmt, mode: int, saturate: bool) -> int:
    kind, neg, mag = decode_f32(bits)
    sign = fmt.sign if neg else 0
    if kind == "nan":
        if saturate:
            return 0
        payload = (bits & 0x7FFFFF) >> (23 - fmt.mbits)
        return sign | fmt.inf | (1 << (fmt.mbits - 1)) | payload
    if kind == "inf":
        return sign | (fmt.max_finite if saturate else fmt.inf)
    return ref_round_to(neg, mag, fmt, mode, saturate)


def ref_round_integral(bits: int, mode: int) -> int:
    kind, neg, mag = decode_f32(bits)
    if kind == "nan":
        return bits | 0x400000
    if kind == "inf":
        return bits
    k = round_magnitude(mag, neg, mode)
    return ref_round_to(neg, Fraction(k), F32, CAST_RINT, False)


def ref_f32_to_i32(bits: int, mode: int) -> int:
    kind, neg, mag = decode_f32(bits)
    if kind == "nan":
        return 0
    if kind == "inf":
        return INT32_MIN if neg else INT32_MAX
    k = round_magnitude(mag, neg, mode)
    return min(max(-k if neg else k, INT32_MIN), INT32_MAX)


def ref_i32_to_f32(x: int, mode: int) -> int:
    return ref_round_to(x < 0, Fraction(abs(x)), F32, mode, False)


def test_reference_self_check() -> None:
    """The rational model agrees with hardware float32 rounding (round-to-nearest-even)."""
    for x in (1, 3, 16777217, 16777219, 2**31 - 1, -(2**31), 123456789, -987654321):
        assert ref_i32_to_f32(x, CAST_RINT) == bits_of(np.float32(x))
    for v in (1.0, -2.5, 65504.0, 2.0**-24, 3.0 * 2.0**-26):
        assert ref_narrow(bits_of(v), F16, CAST_RINT, False) == numpy_f16(bits_of(v))


# ---- special values --------------------------------------------------------------------------


def _f16_ties() -> list[int]:
    """float32 bits of values halfway between neighbouring halves, at both parities."""
    out = []
    for h in (0x0000, 0x0001, 0x0002, 0x03FE, 0x03FF, 0x0400, 0x0401, 0x3BFF, 0x3C00, 0x3C01,
              0x67FF, 0x6800, 0x6801, 0x7BFE):
        lo = np.uint16(h).view(np.float16).astype(np.float64)
        hi = np.uint16(h + 1).view(np.float16).astype(np.float64)
        out.append(bits_of(np.float32((lo + hi) / 2)))
    out.append(bits_of(np.float32(65520.0)))  # halfway between max finite and 2**16
    return out


def _bf16_ties() -> list[int]:
    out = []
    for b in (0x0000, 0x0001, 0x007E, 0x007F, 0x0080, 0x3F80, 0x3F81, 0x7F7E, 0x7F7F):
        out.append((b << 16) | 0x8000)
    return out


def special_bits() -> list[int]:
    vals: set[int] = set()
    for e in range(256):  # every exponent boundary and both neighbours of each power of two
        p = e << 23
        vals.update({p, p + 1, (p - 1) & 0x7FFFFFFF, p | 0x7FFFFF, p | 0x400000, p | 0x1000})
    for v in (65504.0, 65519.99, 65520.0, 65536.0, 65519.0, 65521.0, 2.0**-24, 2.0**-25,
              3 * 2.0**-26, 2.0**-14, 2.0**-14 - 2.0**-24, 1.0009765625, 0.3, 0.5, 1.5, 2.5,
              2.0**23, 2.0**23 + 1, 2.0**24, 2.0**31, 2.0**31 - 128, 2.0**31 + 256, 1e-30, 1e-40,
              3.4028235e38):
        vals.add(bits_of(np.float32(v)))
    vals.update(_f16_ties())
    vals.update(_bf16_ties())
    vals.update({0x33000001, 0x32FFFFFF, 0x3F802001, 0x3F801000, 0x3F803000, 0x477FEFFF})
    nans = {0x7F800001, 0x7FC00000, 0x7FBFFFFF, 0x7F812345, 0x7F802000, 0x7F801FFF,
            0x7FFFFFFF, 0x7F80FFFF, 0x7F810000}
    vals.update(nans)
    vals.add(0x7F800000)
    vals |= {v | 0x80000000 for v in vals}
    return sorted(vals)


SPECIALS = special_bits()


@st.composite
def f32_bits(draw: st.DrawFn) -> int:
    """Any uint32, or a sign/exponent/mantissa built to land on rounding boundaries often."""
    if draw(st.booleans()):
        return draw(st.integers(0, 2**32 - 1))
    sign = draw(st.integers(0, 1))
    exp = draw(st.one_of(st.integers(0, 255), st.integers(95, 160)))
    k = draw(st.integers(1, 23))  # where the rounding boundary sits in the mantissa
    half = 1 << (k - 1)
    low = draw(st.sampled_from([0, 1, half - 1, half, half + 1, (1 << k) - 1]))
    high = draw(st.integers(0, (1 << (23 - k)) - 1))
    return (sign << 31) | (exp << 23) | (((high << k) | low) & 0x7FFFFF)


# ---- widening --------------------------------------------------------------------------------


def _expect_widened(h: np.ndarray, ref: np.ndarray, mbits: int) -> np.ndarray:
    """Reference f32 bits: the library's for non-NaN inputs, the hand rule for NaNs."""
    h = h.astype(np.uint32)
    inf = ((1 << (15 - mbits)) - 1) << mbits
    nan = (h & 0x7FFF) > inf
    hand = ((h & 0x8000) << 16) | 0x7FC00000 | ((h & ((1 << mbits) - 1)) << (23 - mbits))
    # The library agrees that these are NaNs of the same sign; only the payload rule is ours.
    assert np.all(np.isnan(ref[nan]))
    assert np.array_equal(np.signbit(ref[nan]), (h[nan] & 0x8000) != 0)
    return np.where(nan, hand, ref.view(np.uint32)).astype(np.uint32)


def test_f16_to_f32_all_patterns() -> None:
    h = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    want = _expect_widened(h, h.view(np.float16).astype(np.float32), 10)
    out = np.full(65536, 7.0, np.float32)
    cast_f16_to_f32(out, 0, h, 0, 65536, CAST_NONE, False)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.view(np.uint32), want)
    scalar = [bits_of(f16_bits_to_f32(np.uint16(i))) for i in range(65536)]
    np.testing.assert_array_equal(np.array(scalar, np.uint32), want)


def test_bf16_to_f32_all_patterns() -> None:
    b = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    want = _expect_widened(b, b.view(ml_dtypes.bfloat16).astype(np.float32), 7)
    out = np.full(65536, 7.0, np.float32)
    cast_bf16_to_f32(out, 0, b, 0, 65536, CAST_NONE, False)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.view(np.uint32), want)
    scalar = [bits_of(bf16_bits_to_f32(np.uint16(i))) for i in range(65536)]
    np.testing.assert_array_equal(np.array(scalar, np.uint32), want)


@pytest.mark.parametrize("mode", MODES)
def test_f16_round_trip_all_patterns(mode: int) -> None:
    """Every half widened and narrowed back is unchanged (NaNs come back quiet)."""
    h = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    f = np.empty(65536, np.float32)
    back = np.empty(65536, np.uint16)
    cast_f16_to_f32(f, 0, h, 0, 65536, mode, False)
    cast_f32_to_f16(back, 0, f, 0, 65536, mode, False)
    nan = (h & 0x7FFF) > 0x7C00
    np.testing.assert_array_equal(back, np.where(nan, h | 0x0200, h))
    cast_bf16_to_f32(f, 0, h, 0, 65536, mode, False)
    cast_f32_to_bf16(back, 0, f, 0, 65536, mode, False)
    nan = (h & 0x7FFF) > 0x7F80
    np.testing.assert_array_equal(back, np.where(nan, h | 0x0040, h))


# ---- narrowing, nearest-even against numpy / ml_dtypes ---------------------------------------


def check_f16_rne(bits: int) -> None:
    want = nan_f16(bits) if is_nan32(bits) else numpy_f16(bits)
    x = f32_of(bits)
    for mode in NEAREST_EVEN:
        assert f32_to_f16_bits(x, mode, False) == want, (hex(bits), mode)
    assert f32_to_f16_rne(x) == want


def check_bf16_rne(bits: int) -> None:
    want = nan_bf16(bits) if is_nan32(bits) else numpy_bf16(bits)
    for mode in NEAREST_EVEN:
        assert f32_to_bf16_bits(f32_of(bits), mode, False) == want, (hex(bits), mode)


def test_f32_to_f16_rne_specials() -> None:
    for bits in SPECIALS:
        check_f16_rne(bits)


def test_f32_to_bf16_rne_specials() -> None:
    for bits in SPECIALS:
        check_bf16_rne(bits)


@PROPERTY
@given(f32_bits())
def test_f32_to_f16_rne_property(bits: int) -> None:
    check_f16_rne(bits)


@PROPERTY
@given(f32_bits())
def test_f32_to_bf16_rne_property(bits: int) -> None:
    check_bf16_rne(bits)


# ---- narrowing, every mode against the rational model ----------------------------------------


def check_narrow_all_modes(bits: int) -> None:
    x = f32_of(bits)
    for mode in MODES:
        for sat in (False, True):
            assert f32_to_f16_bits(x, mode, sat) == ref_narrow(bits, F16, mode, sat), (
                hex(bits), mode, sat)
            assert f32_to_bf16_bits(x, mode, sat) == ref_narrow(bits, BF16, mode, sat), (
                hex(bits), mode, sat)


def test_narrow_all_modes_specials() -> None:
    for bits in SPECIALS:
        check_narrow_all_modes(bits)


@PROPERTY
@given(f32_bits())
def test_narrow_all_modes_property(bits: int) -> None:
    check_narrow_all_modes(bits)


# ---- narrowing, dense sweep of every rounding boundary ---------------------------------------


def neighbour_table(fmt: Fmt) -> tuple[np.ndarray, np.ndarray]:
    """All finite values of `fmt` plus +-2**(emax+1) (standing for overflow), ascending, as
    float64 with their bit patterns; the overflow points carry the Inf pattern."""
    mags = np.arange(fmt.inf, dtype=np.uint32).astype(np.uint16)
    if fmt is F16:
        vals = mags.view(np.float16).astype(np.float64)
    else:
        vals = mags.view(ml_dtypes.bfloat16).astype(np.float64)
    vals = np.append(vals, 2.0 ** (fmt.bias + 1))
    bits = np.append(mags.astype(np.int64), fmt.inf)
    all_vals = np.concatenate([-vals[:0:-1], vals])
    all_bits = np.concatenate([bits[:0:-1] | fmt.sign, bits])
    return all_vals, all_bits


def sweep_inputs(vals: np.ndarray) -> np.ndarray:
    """float32 bits of every representable value, every midpoint, and one f32 ulp either side."""
    mids = (vals[:-1] + vals[1:]) / 2
    with np.errstate(over="ignore"):  # bf16's overflow point 2**128 becomes Inf, then dropped
        base = np.concatenate([vals, mids]).astype(np.float32).view(np.uint32).astype(np.int64)
    mag = base & 0x7FFFFFFF
    sign = base & 0x80000000
    cand = [base]
    cand.append(sign | (mag + 1))
    cand.append(sign | np.maximum(mag - 1, 0))
    out = np.unique(np.concatenate(cand)).astype(np.uint32)
    with np.errstate(invalid="ignore"):  # signalling NaNs from the +-1 ulp steps
        mags = np.abs(out.view(np.float32).astype(np.float64))
    return out[~np.isnan(mags) & (mags < vals[-1])]


def table_reference(x_bits: np.ndarray, fmt: Fmt, mode: int, saturate: bool) -> np.ndarray:
    """Pick among the two neighbouring representable values by the mode's definition."""
    vals, bits = neighbour_table(fmt)
    x = x_bits.view(np.float32).astype(np.float64)
    hi = np.searchsorted(vals, x, side="left")
    exact = vals[hi] == x
    lo = np.where(exact, hi, hi - 1)
    neg = np.signbit(x)
    twice, span = 2 * x, vals[lo] + vals[hi]  # exact in float64: compare without rounding
    lo_bits = bits[lo]
    lo_mag, hi_mag = np.abs(vals[lo]), np.abs(vals[hi])
    away = np.where(neg, lo, hi)  # index of the larger-magnitude neighbour
    even = np.where((lo_bits & 1) == 0, lo, hi)
    odd = np.where((lo_bits & 1) == 1, lo, hi)
    nearest = np.where(twice < span, lo, hi)
    if mode == CAST_FLOOR:
        pick = lo
    elif mode == CAST_CEIL:
        pick = hi
    elif mode == CAST_TRUNC:
        pick = np.where(lo_mag <= hi_mag, lo, hi)
    elif mode == CAST_ODD:
        pick = odd
    elif mode == CAST_ROUND:
        pick = np.where(twice == span, away, nearest)
    else:
        pick = np.where(twice == span, even, nearest)
    pick = np.where(exact, hi, pick)
    out = bits[pick]
    out = np.where(vals[pick] == 0, np.where(neg, fmt.sign, 0), out)  # zero keeps x's sign
    if saturate:
        out = np.where((out & ~fmt.sign) == fmt.inf, out - 1, out)
    return out.astype(np.uint16)


@pytest.mark.parametrize("saturate", [False, True])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fmt_name", ["f16", "bf16"])
def test_narrow_boundary_sweep(fmt_name: str, mode: int, saturate: bool) -> None:
    fmt = F16 if fmt_name == "f16" else BF16
    cast = cast_f32_to_f16 if fmt is F16 else cast_f32_to_bf16
    vals, _ = neighbour_table(fmt)
    x_bits = sweep_inputs(vals)
    x = x_bits.view(np.float32)
    out = np.empty(x.size, np.uint16)
    cast(out, 0, x, 0, x.size, mode, saturate)
    want = table_reference(x_bits, fmt, mode, saturate)
    bad = np.flatnonzero(out != want)
    assert bad.size == 0, [(hex(x_bits[i]), hex(out[i]), hex(want[i])) for i in bad[:5]]
    if mode in NEAREST_EVEN and not saturate:
        with np.errstate(over="ignore"):
            lib = x.astype(np.float16 if fmt is F16 else ml_dtypes.bfloat16).view(np.uint16)
        np.testing.assert_array_equal(out, lib)


# ---- narrowing, hand-computed cases ----------------------------------------------------------

HAND_F16 = [
    # (f32 bits, mode, saturate, f16 bits)
    (0x3F802001, CAST_CEIL, False, 0x3C02),  # 1.0009765625 + tiny
    (0x3F802001, CAST_FLOOR, False, 0x3C01),
    (0x3F802001, CAST_RINT, False, 0x3C01),
    (0x3F802001, CAST_ODD, False, 0x3C01),
    (0x3F801000, CAST_RINT, False, 0x3C00),  # 1 + 2**-11: tie, even neighbour below
    (0x3F801000, CAST_ROUND, False, 0x3C01),
    (0x3F801000, CAST_ODD, False, 0x3C01),
    (0x3F801000, CAST_TRUNC, False, 0x3C00),
    (0xBF801000, CAST_FLOOR, False, 0xBC01),
    (0xBF801000, CAST_CEIL, False, 0xBC00),
    (0xBF801000, CAST_ROUND, False, 0xBC01),
    (0x3F803000, CAST_RINT, False, 0x3C02),  # 1 + 3 * 2**-11: tie, even neighbour above
    (0x3F803000, CAST_TRUNC, False, 0x3C01),
    (0x3F803000, CAST_ODD, False, 0x3C01),
    (0x477FF000, CAST_RINT, False, 0x7C00),  # 65520
    (0x477FF000, CAST_NONE, False, 0x7C00),
    (0x477FF000, CAST_ROUND, False, 0x7C00),
    (0x477FF000, CAST_TRUNC, False, 0x7BFF),
    (0x477FF000, CAST_ODD, False, 0x7BFF),
    (0x477FF000, CAST_FLOOR, False, 0x7BFF),
    (0x477FF000, CAST_CEIL, False, 0x7C00),
    (0xC77FF000, CAST_FLOOR, False, 0xFC00),
    (0xC77FF000, CAST_CEIL, False, 0xFBFF),
    (0x477FEFFF, CAST_RINT, False, 0x7BFF),  # just below 65520
    (0x477FEFFF, CAST_CEIL, False, 0x7C00),
    (0x477FF000, CAST_RINT, True, 0x7BFF),
    (0x7F800000, CAST_RINT, True, 0x7BFF),
    (0xFF800000, CAST_TRUNC, True, 0xFBFF),
    (0x7F800000, CAST_TRUNC, False, 0x7C00),
    (0xFF800000, CAST_ODD, False, 0xFC00),
    (0x7FC00000, CAST_RINT, True, 0x0000),
    (0xFFC00000, CAST_RINT, True, 0x0000),
    (0x33000000, CAST_RINT, False, 0x0000),  # 2**-25: halfway to the smallest subnormal
    (0x33000000, CAST_ROUND, False, 0x0001),
    (0x33000000, CAST_CEIL, False, 0x0001),
    (0x33000000, CAST_ODD, False, 0x0001),
    (0x33000000, CAST_TRUNC, False, 0x0000),
    (0xB3000000, CAST_RINT, False, 0x8000),
    (0xB3000000, CAST_FLOOR, False, 0x8001),
    (0x33000001, CAST_RINT, False, 0x0001),
    (0x33C00000, CAST_RINT, False, 0x0002),  # 3 * 2**-25: tie, even neighbour above
    (0x387FE000, CAST_RINT, False, 0x0400),  # 1023.5 * 2**-24 rounds out of the subnormals
    (0x387FE000, CAST_TRUNC, False, 0x03FF),
    (0x0DA24260, CAST_FLOOR, False, 0x0000),  # 1e-30
    (0x0DA24260, CAST_CEIL, False, 0x0001),
    (0x0DA24260, CAST_ODD, False, 0x0001),
    (0x8DA24260, CAST_CEIL, False, 0x8000),
    (0x8DA24260, CAST_ODD, False, 0x8001),
    (0x80000000, CAST_CEIL, False, 0x8000),
    (0x7F812345, CAST_RINT, False, 0x7E09),  # NaN payload 0x012345 >> 13 = 9
    (0xFF812345, CAST_TRUNC, False, 0xFE09),
    (0x7F800001, CAST_RINT, False, 0x7E00),  # payload below the kept bits: still a NaN
]

HAND_BF16 = [
    (0x3F808000, CAST_RINT, False, 0x3F80),  # 1 + 2**-8: tie, even below
    (0x3F808000, CAST_ROUND, False, 0x3F81),
    (0x3F818000, CAST_RINT, False, 0x3F82),  # tie, even above
    (0x3F818000, CAST_ODD, False, 0x3F81),
    (0x3F800001, CAST_CEIL, False, 0x3F81),
    (0xBF800001, CAST_FLOOR, False, 0xBF81),
    (0x7F7F8000, CAST_RINT, False, 0x7F80),  # halfway between max finite and 2**128
    (0x7F7F8000, CAST_TRUNC, False, 0x7F7F),
    (0x7F7FFFFF, CAST_RINT, False, 0x7F80),
    (0x7F7FFFFF, CAST_ODD, False, 0x7F7F),
    (0xFF7FFFFF, CAST_CEIL, False, 0xFF7F),
    (0x7F7FFFFF, CAST_RINT, True, 0x7F7F),
    (0x7F800000, CAST_RINT, True, 0x7F7F),
    (0x7FC00000, CAST_RINT, True, 0x0000),
    (0x00000001, CAST_RINT, False, 0x0000),  # fp32 subnormals land on bf16 subnormals
    (0x00000001, CAST_CEIL, False, 0x0001),
    (0x00000001, CAST_ODD, False, 0x0001),
    (0x00008000, CAST_RINT, False, 0x0000),
    (0x00008000, CAST_ROUND, False, 0x0001),
    (0x00018000, CAST_RINT, False, 0x0002),
    (0x007FFFFF, CAST_RINT, False, 0x0080),
    (0x7F812345, CAST_RINT, False, 0x7FC1),
    (0xFF812345, CAST_RINT, False, 0xFFC1),
]


@pytest.mark.parametrize(("bits", "mode", "sat", "want"), HAND_F16)
def test_f32_to_f16_hand(bits: int, mode: int, sat: bool, want: int) -> None:
    assert f32_to_f16_bits(f32_of(bits), mode, sat) == want


@pytest.mark.parametrize(("bits", "mode", "sat", "want"), HAND_BF16)
def test_f32_to_bf16_hand(bits: int, mode: int, sat: bool, want: int) -> None:
    assert f32_to_bf16_bits(f32_of(bits), mode, sat) == want


def test_saturating_mode() -> None:
    for mode in MODES:
        for sign in (0, 0x80000000):
            s16 = 0x8000 if sign else 0
            for big in (0x7F800000, 0x7F7FFFFF, 0x47800000):  # Inf, fp32 max, 65536
                assert f32_to_f16_bits(f32_of(sign | big), mode, True) == s16 | 0x7BFF
            for big in (0x7F800000, 0x7F7FFFFF):
                assert f32_to_bf16_bits(f32_of(sign | big), mode, True) == s16 | 0x7F7F
            for nan in (0x7F800001, 0x7FC00000, 0x7FFFFFFF):
                assert f32_to_f16_bits(f32_of(sign | nan), mode, True) == 0
                assert f32_to_bf16_bits(f32_of(sign | nan), mode, True) == 0
            # Finite values in range are unaffected by saturation.
            assert f32_to_f16_bits(f32_of(sign | 0x3F800000), mode, True) == s16 | 0x3C00


# ---- fp32 -> fp32, fp32 -> int32, int32 -> fp32 ----------------------------------------------


def check_f32_family(bits: int) -> None:
    x = f32_of(bits)
    for mode in MODES:
        assert bits_of(f32_round_integral(x, mode)) == ref_round_integral(bits, mode), (
            hex(bits), mode)
        want = ref_f32_to_i32(bits, mode)
        for sat in (False, True):
            assert f32_to_i32(x, mode, sat) == want, (hex(bits), mode)


def test_f32_family_specials() -> None:
    for bits in SPECIALS:
        check_f32_family(bits)


@PROPERTY
@given(f32_bits())
def test_f32_family_property(bits: int) -> None:
    check_f32_family(bits)


@st.composite
def i32_values(draw: st.DrawFn) -> int:
    if draw(st.booleans()):
        return draw(st.integers(INT32_MIN, INT32_MAX))
    k = draw(st.integers(1, 8))  # bits dropped when the magnitude has 24 + k bits
    mag = (1 << (23 + k)) | draw(st.integers(0, (1 << (23 + k)) - 1))
    half = 1 << (k - 1)
    mag = (mag & ~((1 << k) - 1)) | draw(st.sampled_from([0, 1, half - 1, half, half + 1]))
    v = -mag if draw(st.booleans()) else mag
    return min(max(v, INT32_MIN), INT32_MAX)


I32_SPECIALS = sorted({0, 1, -1, 2**24, 2**24 + 1, 2**24 + 2, 2**24 + 3, 2**25 + 2, 2**25 + 6,
                       2**31 - 1, 2**31 - 64, 2**31 - 65, 2**31 - 128, 2**31 - 192, INT32_MIN,
                       INT32_MIN + 1, -(2**24) - 1, -(2**24) - 3, 123456789, -987654321})


def check_i32_to_f32(x: int) -> None:
    for mode in MODES:
        assert bits_of(i32_to_f32(np.int32(x), mode)) == ref_i32_to_f32(x, mode), (x, mode)


def test_i32_to_f32_specials() -> None:
    for x in I32_SPECIALS:
        check_i32_to_f32(x)


@PROPERTY
@given(i32_values())
def test_i32_to_f32_property(x: int) -> None:
    check_i32_to_f32(x)


HAND_INTEGRAL = [
    # (value, mode, expected float)
    (-0.3, CAST_RINT, -0.0),
    (0.5, CAST_RINT, 0.0),
    (1.5, CAST_RINT, 2.0),
    (2.5, CAST_RINT, 2.0),
    (2.5, CAST_NONE, 2.0),
    (0.5, CAST_ROUND, 1.0),
    (-2.5, CAST_ROUND, -3.0),
    (-0.5, CAST_CEIL, -0.0),
    (-0.5, CAST_FLOOR, -1.0),
    (-0.5, CAST_TRUNC, -0.0),
    (0.3, CAST_ODD, 1.0),
    (2.5, CAST_ODD, 3.0),
    (-4.2, CAST_ODD, -5.0),
    (4.0, CAST_ODD, 4.0),
    (8388609.0, CAST_FLOOR, 8388609.0),
    (8388607.5, CAST_RINT, 8388608.0),
    (1e-40, CAST_CEIL, 1.0),
    (-1e-40, CAST_CEIL, -0.0),
]


@pytest.mark.parametrize(("x", "mode", "want"), HAND_INTEGRAL)
def test_round_integral_hand(x: float, mode: int, want: float) -> None:
    assert bits_of(f32_round_integral(np.float32(x), mode)) == bits_of(np.float32(want))


def test_round_integral_nan_inf() -> None:
    assert bits_of(f32_round_integral(f32_of(0x7F800001), CAST_RINT)) == 0x7FC00001
    assert bits_of(f32_round_integral(f32_of(0xFFA00000), CAST_FLOOR)) == 0xFFE00000
    assert bits_of(f32_round_integral(f32_of(0xFF800000), CAST_CEIL)) == 0xFF800000


HAND_I32 = [
    (2.5, CAST_RINT, 2),
    (3.5, CAST_NONE, 4),
    (-2.5, CAST_ROUND, -3),
    (-0.5, CAST_FLOOR, -1),
    (1e-40, CAST_CEIL, 1),
    (2.5, CAST_ODD, 3),
    (4.0, CAST_ODD, 4),
    (-2.9, CAST_TRUNC, -2),
    (3e9, CAST_RINT, INT32_MAX),
    (-3e9, CAST_RINT, INT32_MIN),
    (-2147483648.0, CAST_TRUNC, INT32_MIN),
    (2147483520.0, CAST_RINT, 2147483520),
    (2147483648.0, CAST_FLOOR, INT32_MAX),
    (math.inf, CAST_RINT, INT32_MAX),
    (-math.inf, CAST_RINT, INT32_MIN),
    (math.nan, CAST_RINT, 0),
]


@pytest.mark.parametrize(("x", "mode", "want"), HAND_I32)
def test_f32_to_i32_hand(x: float, mode: int, want: int) -> None:
    assert f32_to_i32(np.float32(x), mode, False) == want
    assert f32_to_i32(np.float32(x), mode, True) == want


HAND_I2F = [
    (16777217, CAST_RINT, 16777216.0),
    (16777217, CAST_CEIL, 16777218.0),
    (16777217, CAST_ROUND, 16777218.0),
    (16777217, CAST_TRUNC, 16777216.0),
    (16777217, CAST_ODD, 16777218.0),
    (16777219, CAST_RINT, 16777220.0),
    (-16777217, CAST_FLOOR, -16777218.0),
    (-16777217, CAST_CEIL, -16777216.0),
    (2147483647, CAST_RINT, 2147483648.0),
    (2147483647, CAST_TRUNC, 2147483520.0),
    (INT32_MIN, CAST_ODD, -2147483648.0),
    (16777216, CAST_ODD, 16777216.0),
]


@pytest.mark.parametrize(("x", "mode", "want"), HAND_I2F)
def test_i32_to_f32_hand(x: int, mode: int, want: float) -> None:
    assert bits_of(i32_to_f32(np.int32(x), mode)) == bits_of(np.float32(want))


# ---- array loops -----------------------------------------------------------------------------


def test_scalar_return_types() -> None:
    """Inside compiled code the scalar functions produce the storage types."""
    f32_to_f16_bits(np.float32(1.0), CAST_RINT, False)
    i32_to_f32(np.int32(1), CAST_RINT)
    assert f32_to_f16_bits.nopython_signatures[0].return_type == numba.uint16
    assert f16_bits_to_f32.nopython_signatures[0].return_type == numba.float32
    assert bf16_bits_to_f32.nopython_signatures[0].return_type == numba.float32
    assert f32_to_bf16_bits.nopython_signatures[0].return_type == numba.uint16
    assert f32_round_integral.nopython_signatures[0].return_type == numba.float32
    assert f32_to_i32.nopython_signatures[0].return_type == numba.int32
    assert i32_to_f32.nopython_signatures[0].return_type == numba.float32


def _loop_inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1234)
    f32 = np.concatenate([np.array(SPECIALS, np.uint32),
                          rng.integers(0, 2**32, 1500, dtype=np.uint32)]).view(np.float32)
    i32 = np.concatenate([np.array(I32_SPECIALS, np.int64),
                          rng.integers(INT32_MIN, INT32_MAX, 1000, endpoint=True)]).astype(np.int32)
    u16 = rng.integers(0, 2**16, 1000, dtype=np.uint32).astype(np.uint16)
    return {"f32": f32, "i32": i32, "u16": u16}


LOOPS = [
    # (loop, source kind, destination dtype, scalar reference on one element -> storage value)
    (cast_f16_to_f32, "u16", np.float32, lambda v, m, s: f16_bits_to_f32(v)),
    (cast_bf16_to_f32, "u16", np.float32, lambda v, m, s: bf16_bits_to_f32(v)),
    (cast_f32_to_f16, "f32", np.uint16, f32_to_f16_bits),
    (cast_f32_to_bf16, "f32", np.uint16, f32_to_bf16_bits),
    (cast_f32_to_f32, "f32", np.float32, lambda v, m, s: f32_round_integral(v, m)),
    (cast_f32_to_i32, "f32", np.int32, f32_to_i32),
    (cast_i32_to_f32, "i32", np.float32, lambda v, m, s: i32_to_f32(v, m)),
]


def _storage_bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32) if a.dtype == np.float32 else a


@pytest.mark.parametrize("loop", LOOPS, ids=lambda c: c[0].__name__)
def test_array_loops_match_scalar(loop: tuple) -> None:
    fn, kind, dtype, scalar = loop
    src_all = _loop_inputs()[kind]
    n = src_all.size
    soff, doff = 3, 5
    src = np.concatenate([src_all[:soff], src_all])
    for mode in MODES:
        for sat in (False, True):
            dst = np.zeros(n + doff + 4, dtype)
            sentinel = dst.copy()
            fn(dst, doff, src, soff, n, mode, sat)
            assert dst.dtype == dtype
            want = np.array([scalar(v, mode, sat) for v in src_all], dtype=dtype)
            np.testing.assert_array_equal(_storage_bits(dst[doff:doff + n]), _storage_bits(want))
            np.testing.assert_array_equal(dst[:doff], sentinel[:doff])
            np.testing.assert_array_equal(dst[doff + n:], sentinel[doff + n:])


def test_array_loops_empty_and_in_place() -> None:
    x = np.array([0.5, 1.5, -2.5, 7.25], np.float32)
    out = np.full(4, 9, np.uint16)
    cast_f32_to_f16(out, 0, x, 0, 0, CAST_RINT, False)
    assert np.all(out == 9)
    cast_f32_to_f32(x, 0, x, 0, 4, CAST_RINT, False)  # full overlap is allowed
    assert x.dtype == np.float32
    np.testing.assert_array_equal(x, np.array([0.0, 2.0, -2.0, 7.0], np.float32))


@pytest.mark.parametrize(("doff", "soff", "n"), [(0, 0, 5), (2, 0, 3), (0, 2, 3), (-1, 0, 1),
                                                 (0, 0, -1)])
def test_array_loops_reject_bad_ranges(doff: int, soff: int, n: int) -> None:
    src = np.ones(4, np.float32)
    dst = np.zeros(4, np.uint16)
    with pytest.raises(IndexError):
        cast_f32_to_f16(dst, doff, src, soff, n, CAST_RINT, False)
    assert np.all(dst == 0)
