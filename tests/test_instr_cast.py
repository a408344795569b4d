"""`Cast` at the instruction level: every legal (src, dst, RoundMode) of A2/A3 through the
instruction, the rule errors, views, counts and overlapping operands.

The conversions themselves are pinned in test_convert.py; here the reference is a small
independent "two neighbours" model: for each input, the representable values just below and
just above its magnitude (from a table of every finite half / bf16, from floor/ceil for
integral results, from numpy's nextafter for int32 -> float), and the mode picks one of the two
(toward zero, away from zero, nearest with ties to even or away, or the odd one). Overflow
follows IEEE (the value above the largest finite one is infinity) unless the profile saturates.
"""

from __future__ import annotations

import dis
import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from cast_a2_ref import float_to_int, int64_to_float, int_narrow, int_widen
from conftest import BF16, assert_same_bits, custom_profile, is_nan_bits, run_ub, tensor, ub_array

import ascsim.ascendc as A
from ascsim.ascendc import RoundMode as RM
from ascsim.dtypes import DType, bfloat16_t, half, int8_t, int16_t, int32_t, int64_t, uint8_t
from ascsim.dtypes import float as f32
from ascsim.errors import AlignmentError, CastRuleError, OutOfRangeError, ParameterError

DST, SRC = 0, 65536
SENTINEL = 0xA5
F32, F16, I32 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int32)
NP_OF = {f32: F32, half: F16, bfloat16_t: BF16, int32_t: I32, int8_t: np.dtype(np.int8),
         uint8_t: np.dtype(np.uint8), int16_t: np.dtype(np.int16), int64_t: np.dtype(np.int64)}

DIRECTED = (RM.CAST_RINT, RM.CAST_FLOOR, RM.CAST_CEIL, RM.CAST_ROUND, RM.CAST_TRUNC)
LEGAL = {
    (half, f32): (RM.CAST_NONE,),
    (bfloat16_t, f32): (RM.CAST_NONE,),
    (f32, half): (RM.CAST_NONE, *DIRECTED, RM.CAST_ODD),
    (f32, bfloat16_t): DIRECTED,
    (f32, f32): DIRECTED,
    (f32, int32_t): DIRECTED,
    (int32_t, f32): (RM.CAST_NONE, *DIRECTED),
    (int8_t, half): (RM.CAST_NONE,),
    (uint8_t, half): (RM.CAST_NONE,),
    (int16_t, f32): (RM.CAST_NONE,),
    (int16_t, half): (RM.CAST_NONE, *DIRECTED),
    (half, int32_t): DIRECTED,
    # the rest of ascendc_more.md §2.3 (int32_t -> half needs SetDeqScale: test_instr_cast_a2)
    (half, int8_t): DIRECTED,
    (half, uint8_t): DIRECTED,
    (half, int16_t): DIRECTED,
    (bfloat16_t, int32_t): DIRECTED,
    (f32, int16_t): DIRECTED,
    (f32, int64_t): DIRECTED,
    (int32_t, int16_t): (RM.CAST_NONE,),
    (int64_t, int32_t): (RM.CAST_NONE,),
    (int32_t, int64_t): (RM.CAST_NONE,),
    (int64_t, f32): (RM.CAST_NONE, *DIRECTED),
}


def test_round_mode_values() -> None:
    assert [int(m) for m in RM] == [0, 1, 2, 3, 4, 5, 6]
    assert [m.name for m in RM] == ["CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL",
                                    "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"]


# ---- the two-neighbours reference -------------------------------------------------------------

def pick(mag: float, down: float, up: float, down_odd: bool, mode: RM, neg: bool) -> bool:
    """True to take `up` (the neighbour away from zero), False for `down` (toward zero)."""
    if mode == RM.CAST_TRUNC:
        return False
    if mode == RM.CAST_FLOOR:
        return neg
    if mode == RM.CAST_CEIL:
        return not neg
    if mode == RM.CAST_ODD:
        return not down_odd
    below, above = mag - down, up - mag   # exact: all three are close float64 values
    if below != above:
        return above < below
    return True if mode == RM.CAST_ROUND else down_odd   # ties: away, or to the even one


@cache
def narrow_table(fmt: str) -> tuple[np.ndarray, float, int]:
    """Every finite non-negative value of half / bf16 (index = bit pattern), the value one step
    past the largest (what an unbounded exponent would give) and the bit pattern of infinity."""
    if fmt == "f16":
        return np.arange(0x7C00, dtype=np.uint16).view(F16).astype(np.float64), 65536.0, 0x7C00
    return np.arange(0x7F80, dtype=np.uint16).view(BF16).astype(np.float64), 2.0**128, 0x7F80


def ref_narrow(x: np.ndarray, fmt: str, mode: RM, saturate: bool = False) -> np.ndarray:
    vals, past_max, inf = narrow_table(fmt)
    out = np.empty(x.size, np.uint16)
    with np.errstate(invalid="ignore"):
        x64 = x.astype(np.float64)
    for k, (v, b) in enumerate(zip(x64, x.view(np.uint32), strict=True)):
        sign = int(b >> 31) << 15
        if math.isnan(v):
            mant = int(b) & 0x7FFFFF
            quiet = 0x7E00 | mant >> 13 if fmt == "f16" else 0x7FC0 | mant >> 16
            out[k] = 0 if saturate else sign | quiet
            continue
        mag = abs(v)
        if math.isinf(v):
            out[k] = sign | (inf - 1 if saturate else inf)
            continue
        i = int(np.searchsorted(vals, mag, side="right")) - 1
        if vals[i] != mag:
            up_v = vals[i + 1] if i + 1 < vals.size else past_max
            if pick(mag, vals[i], up_v, bool(i & 1), mode, sign != 0):
                i += 1
        if saturate and i == inf:
            i = inf - 1
        out[k] = sign | i
    return out


def ref_integral(x: np.ndarray, mode: RM, to_int: bool) -> np.ndarray:
    """float -> float rounded to an integral value, or float -> int32 (saturating, NaN -> 0)."""
    out = np.empty(x.size, np.uint32)
    with np.errstate(invalid="ignore"):
        x64 = x.astype(np.float64)
    for k, v in enumerate(x64):
        if math.isnan(v):
            out[k] = 0 if to_int else x[k:k + 1].view(np.uint32)[0] | 0x400000
            continue
        if math.isinf(v) or abs(v) >= 2**23:
            r = v
        else:
            mag = abs(v)
            down = math.floor(mag)
            if down != mag and pick(mag, down, down + 1, bool(down & 1), mode, v < 0):
                down += 1
            r = math.copysign(down, v)
        if to_int:
            out[k] = np.array(min(max(r, -2**31), 2**31 - 1), I32).view(np.uint32)
        else:
            out[k] = np.array(r, F32).view(np.uint32)
    return out


def ref_int_to_float(x: np.ndarray, mode: RM) -> np.ndarray:
    """int -> float32 from the two float32 neighbours of the exact Python int (cast_a2_ref's
    int64 reference serves int32 too)."""
    return int64_to_float(x, F32, mode)


A2_REFS = {(half, int8_t): float_to_int, (half, uint8_t): float_to_int,
           (half, int16_t): float_to_int, (bfloat16_t, int32_t): float_to_int,
           (f32, int16_t): float_to_int, (f32, int64_t): float_to_int,
           (int32_t, int16_t): int_narrow, (int64_t, int32_t): int_narrow,
           (int32_t, int64_t): int_widen, (int64_t, f32): int64_to_float}


def reference(src_t: DType, dst_t: DType, x: np.ndarray, mode: RM,
              saturate: bool = False) -> np.ndarray:
    """Expected dst bit patterns (unsigned view) of Cast(dst, src, mode)."""
    if (src_t, dst_t) in A2_REFS:
        return A2_REFS[src_t, dst_t](x, NP_OF[dst_t], mode)
    if (src_t, dst_t) == (int16_t, half):   # int16 -> float32 is exact: one rounding
        return ref_narrow(x.astype(F32), "f16", mode, saturate)
    if (src_t, dst_t) == (half, int32_t):   # half -> float32 is exact: one rounding
        return ref_integral(x.astype(F32), mode, to_int=True)
    if src_t in (int8_t, uint8_t, int16_t):
        # exact: every 8-bit integer is a half, every 16-bit one a float (numpy converts)
        return x.astype(NP_OF[dst_t]).view(f"u{NP_OF[dst_t].itemsize}")
    if src_t in (half, bfloat16_t):
        # exact widening (numpy / ml_dtypes); a NaN keeps sign and payload and becomes quiet
        out = x.astype(F32).view(np.uint32)
        h = x.view(np.uint16).astype(np.uint32)
        shift = 13 if src_t is half else 16
        nan = is_nan_bits(x)
        out[nan] = ((h & 0x8000) << 16 | 0x7FC00000 | (h << shift) & 0x7FFFFF)[nan]
        return out
    if dst_t is half:
        return ref_narrow(x, "f16", mode, saturate)
    if dst_t is bfloat16_t:
        return ref_narrow(x, "bf16", mode, saturate)
    if src_t is int32_t:
        return ref_int_to_float(x, mode)
    return ref_integral(x, mode, to_int=dst_t is int32_t)


def test_reference_self_check() -> None:
    """Hand-computed cases of the reference model (so that it is not only trusted)."""
    one_tie = np.array([1 + 2**-11, 1 + 3 * 2**-11, -(1 + 2**-11), 65520.0, 2**-25], F32)
    assert list(ref_narrow(one_tie, "f16", RM.CAST_RINT)) == [0x3C00, 0x3C02, 0xBC00, 0x7C00,
                                                              0x0000]
    assert list(ref_narrow(one_tie, "f16", RM.CAST_ROUND)) == [0x3C01, 0x3C02, 0xBC01, 0x7C00,
                                                               0x0001]
    assert list(ref_narrow(one_tie, "f16", RM.CAST_ODD)) == [0x3C01, 0x3C01, 0xBC01, 0x7BFF,
                                                             0x0001]
    assert list(ref_narrow(one_tie, "f16", RM.CAST_FLOOR)) == [0x3C00, 0x3C01, 0xBC01, 0x7BFF,
                                                               0x0000]
    assert list(ref_narrow(one_tie, "f16", RM.CAST_CEIL)) == [0x3C01, 0x3C02, 0xBC00, 0x7C00,
                                                              0x0001]
    assert list(ref_narrow(np.array([1 + 2**-8], F32), "bf16", RM.CAST_RINT)) == [0x3F80]
    vals = np.array([2.5, -2.5, 0.5, -0.3, 3e9, -3e9], F32)
    assert list(ref_integral(vals, RM.CAST_ROUND, True).view(I32)) == [3, -3, 1, 0, 2**31 - 1,
                                                                       -2**31]
    assert list(ref_integral(vals, RM.CAST_RINT, False).view(F32)) == [2, -2, 0, -0.0, 3e9, -3e9]
    assert ref_integral(vals, RM.CAST_RINT, False)[3] == 0x80000000     # -0.3 -> -0.0
    big = np.array([2**24 + 1, 2**24 + 3, -(2**24 + 1)], I32)
    assert list(ref_int_to_float(big, RM.CAST_RINT).view(F32)) == [2**24, 2**24 + 4, -2**24]
    assert list(ref_int_to_float(big, RM.CAST_CEIL).view(F32)) == [2**24 + 2, 2**24 + 4, -2**24]
    # int16 -> half rounds above 2048 (2049 lies between 2048 and 2050), half -> int32
    assert list(reference(int16_t, half, np.array([2049, -2049, 2051], np.int16),
                          RM.CAST_RINT)) == [0x6800, 0xE800, 0x6802]
    assert list(reference(int16_t, half, np.array([2049, -2049], np.int16),
                          RM.CAST_CEIL)) == [0x6801, 0xE800]
    assert list(reference(half, int32_t, np.array([2.5, -2.5, np.inf, np.nan], F16),
                          RM.CAST_ROUND).view(I32)) == [3, -3, 2**31 - 1, 0]
    # the exact widenings, as hand-computed bit patterns
    assert list(reference(int8_t, half, np.array([-128, 127, 0, -1], np.int8), RM.CAST_NONE)) \
        == [0xD800, 0x57F0, 0x0000, 0xBC00]
    assert list(reference(uint8_t, half, np.array([255, 1], np.uint8), RM.CAST_NONE)) == [
        0x5BF8, 0x3C00]
    assert list(reference(int16_t, f32, np.array([-32768, 32767], np.int16), RM.CAST_NONE)) \
        == [0xC7000000, 0x46FFFE00]


# ---- inputs -----------------------------------------------------------------------------------

@cache
def inputs(src_t: DType) -> np.ndarray:
    rng = np.random.default_rng(99)
    if src_t in (int8_t, uint8_t):
        return np.arange(256, dtype=np.uint8).view(NP_OF[src_t])
    if src_t is int16_t:
        return np.concatenate([np.arange(-32768, 32768, 7),
                               [32767, -1, 0, 1, 2049, -2049]]).astype(np.int16)
    if src_t is int64_t:
        special = [0, 1, -1, 2**63 - 1, -2**63, -2**63 + 1, 2**31, 2**31 - 1, -2**31,
                   -2**31 - 1, 2**24 + 1, 2**40 + 2**16, 2**40 + 2**16 + 1, 2**40 + 3 * 2**16,
                   -(2**40 + 2**16), 2**53 + 1, 2**62 + 2**38, 2**62 + 2**38 + 1,
                   (2**24 - 1) << 39, ((2**24 - 1) << 39) + (1 << 38), 2**64 // 3]
        return np.concatenate([np.array(special, np.int64),
                               rng.integers(-2**63, 2**63 - 1, 1000, dtype=np.int64),
                               rng.integers(-2**33, 2**33, 500, dtype=np.int64)])
    if src_t is int32_t:
        special = [0, 1, -1, 2**24, 2**24 + 1, 2**24 + 2, 2**24 + 3, -(2**24 + 1), 2**31 - 1,
                   -2**31, 2**31 - 65, 2**31 - 64, 2**25 + 2, 2**25 + 6, 123456789, 32767,
                   32768, -32768, -32769, 65535, 65536 + 5, -65536 - 5]
        return np.concatenate([np.array(special, np.int64), rng.integers(-2**31, 2**31, 2000)]
                              ).astype(I32)
    if src_t is not f32:
        raw = np.concatenate([np.arange(0, 65536, 31).astype(np.uint16),
                              np.array([0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFF80,
                                        0x7F80, 0x0001, 0x03FF], np.uint16)])
        return raw.view(F16 if src_t is half else BF16)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.3, -0.3, 4.2, -4.2,
               1 + 2**-11, 1 + 3 * 2**-11, -(1 + 2**-11), 1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-9,
               65504.0, 65519.0, 65520.0, 65536.0, 1e6, -1e6, 2**-24, 2**-25, 3 * 2**-26,
               2**-14, 2**-15 * 1.5, 1e-40, -1e-40, 2**-149, 3.4e38, -3.4e38, 2**23 - 0.5,
               2**23, 2**31, -2**31, 2**31 - 128, 3e9, -3e9, 2.0**127 * 1.9961, 1e-45]
    specials = np.array(special, np.float64).astype(F32)
    bits = np.array([0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345,
                     0x7F7FFFFF, 0xFF7FFFFF, 0x00800000, 0x007FFFFF], np.uint32).view(F32)
    random_bits = rng.integers(0, 2**32, 1500, dtype=np.uint64).astype(np.uint32).view(F32)
    moderate = (rng.standard_normal(1500) * 10.0 ** rng.uniform(-3, 6, 1500)).astype(F32)
    return np.concatenate([specials, bits, random_bits, moderate])


def run_cast(src_t: DType, dst_t: DType, mode: RM, x: np.ndarray, count: int,
             profile: object = None, dst_off: int = 0, src_off: int = 0):
    init = [(DST, np.full(65536, SENTINEL, np.uint8)), (SRC, x)]

    def body(ub):
        A.Cast(tensor(ub, DST, dst_t)[dst_off], tensor(ub, SRC, src_t)[src_off], mode, count)

    ub, run = run_ub(body, init, profile=profile)
    size = NP_OF[dst_t].itemsize
    start = DST + dst_off * size
    got = ub_array(ub, start, f"u{size}", count)
    outside = np.concatenate([ub[DST:start], ub[start + count * size:DST + 65536]])
    assert (outside == SENTINEL).all(), "Cast wrote outside its count"
    return got, run


LEGAL_CASES = [(s, d, m) for (s, d), modes in LEGAL.items() for m in modes]


@pytest.mark.parametrize("case", LEGAL_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2].name}")
@pytest.mark.instruction("Cast")
def test_every_legal_pair_and_mode(case: tuple[DType, DType, RM]) -> None:
    src_t, dst_t, mode = case
    x = inputs(src_t)
    got, run = run_cast(src_t, dst_t, mode, x, x.size)
    want = reference(src_t, dst_t, x, mode)
    dt = NP_OF[dst_t]
    assert_same_bits(got.view(dt), want.view(dt), f"Cast {src_t}->{dst_t} {mode.name}")
    if dt.kind == "f":   # the quiet-NaN rule of the conversions is pinned too
        assert (got == want).all()
    rec = run.decoded(0)[-1]
    wide = max(NP_OF[src_t].itemsize, dt.itemsize)
    assert (rec.name, rec.pipe_name, rec.dtype, rec.count, rec.mode) == (
        "Cast", "V", dst_t, x.size, int(mode))
    assert rec.repeats == (x.size * wide + 255) // 256
    assert [(a.write, a.start, a.end) for a in rec.accesses] == [
        (True, DST, DST + x.size * dt.itemsize), (False, SRC, SRC + x.nbytes)]


@pytest.mark.parametrize("count", [0, 1, 63, 64, 65, 8192])
@pytest.mark.parametrize(("src_t", "dst_t", "mode"), [
    (f32, half, RM.CAST_NONE), (half, f32, RM.CAST_NONE), (bfloat16_t, f32, RM.CAST_NONE),
    (f32, bfloat16_t, RM.CAST_RINT), (f32, int32_t, RM.CAST_FLOOR),
    (int32_t, f32, RM.CAST_NONE)], ids=lambda v: getattr(v, "name", str(v)))
@pytest.mark.instruction("Cast")
def test_counts(src_t: DType, dst_t: DType, mode: RM, count: int) -> None:
    x = np.resize(inputs(src_t), 8192)
    got, _ = run_cast(src_t, dst_t, mode, x, count)
    assert (got == reference(src_t, dst_t, x[:count], mode)).all()


def test_views_offset_both_operands() -> None:
    x = inputs(f32)[:500]
    got, run = run_cast(f32, half, RM.CAST_CEIL, np.concatenate([np.zeros(40, F32), x]), 500,
                        dst_off=48, src_off=40)
    assert (got == reference(f32, half, x, RM.CAST_CEIL)).all()
    assert run.decoded(0)[-1].accesses[0].start == DST + 96


@pytest.mark.parametrize(("dst_t", "fmt"), [(half, "f16"), (bfloat16_t, "bf16")], ids=str)
@pytest.mark.instruction("Cast")
def test_saturation_comes_from_the_profile(tmp_path: Path, dst_t: DType, fmt: str) -> None:
    x = np.array([1e6, -1e6, np.inf, -np.inf, np.nan, 3.4e38, 1.0], F32)
    saturating = custom_profile(tmp_path, "saturation", "true")
    got, _ = run_cast(f32, dst_t, RM.CAST_RINT, x, x.size, profile=saturating)
    assert (got == ref_narrow(x, fmt, RM.CAST_RINT, saturate=True)).all()
    if fmt == "f16":   # hand-computed: +-max, +-max, +-max, NaN -> +0, max, 1
        assert list(got) == [0x7BFF, 0xFBFF, 0x7BFF, 0xFBFF, 0, 0x7BFF, 0x3C00]
    default, _ = run_cast(f32, dst_t, RM.CAST_RINT, x, x.size)
    assert default[2] == (0x7C00 if fmt == "f16" else 0x7F80)


def test_a_cast_compiles_only_for_the_profile_flags_its_loop_reads(tmp_path: Path) -> None:
    """Cast compiles once per (source, destination, flags): `_PAIR_FLAGS` clears the profile
    flags a pair's loop does not read, and must keep every one it reads. Checked against the
    loops' bytecode: a loop that reads its `saturate` argument needs the saturation bit, one
    that reads `flags` needs a bit (int_narrow's wrap, or the saturation of the deq)."""
    from ascsim.instructions import cast as C
    for (src, dst), (_, loop, _) in C.CAST_RULES.items():
        loaded = {i.argval for i in dis.get_instructions(loop.py_func)
                  if i.opname == "LOAD_FAST"}
        bits = C._PAIR_FLAGS[src.code, dst.code]
        if "saturate" in loaded:
            assert bits == C._SATURATE, (src, dst)
        elif "flags" in loaded:
            assert bits in (C._SATURATE, C._WRAP), (src, dst)
        else:
            assert bits == 0, (src, dst)
    # a saturating profile reaches float -> half's literals, and not half -> float's
    saturating = custom_profile(tmp_path, "saturation", "true")
    x = np.ones(64, F32)
    for profile in (None, saturating):
        for src, dst, want in ((f32, half, 1), (half, f32, 0)):
            _, run = run_cast(src, dst, RM.CAST_NONE, x.astype(NP_OF[src]), 64,
                              profile=profile)
            row = next(r for r in run.records(0) if r[0] == C._CAST.id)
            literals = C._CAST.work.bind(row, run.profile)[1]
            assert literals == (src.code, dst.code, want if profile else 0)
    # ... and the deferred count form's kinds follow suit (no half -> float kind with flags)
    from ascsim.batch import _KINDS
    cast_kinds = {lits for kernel, lits, _ in _KINDS.ids if kernel is C.cast_count}
    assert (f32.code, half.code, 1) in cast_kinds
    assert not any(lits[:2] == (half.code, f32.code) and lits[2] for lits in cast_kinds)


# ---- overlapping operands ---------------------------------------------------------------------

OVERLAP = [
    # (src type, dst type, mode, dst byte offset relative to src, count)
    (half, f32, RM.CAST_NONE, 0, 512),        # widen in place: element 0 covers source 0 and 1
    (half, f32, RM.CAST_NONE, -1024, 512),    # source in the upper half of dst (LogitGrad)
    (half, f32, RM.CAST_NONE, -512, 512),     # dst begins half-way below the source
    (bfloat16_t, f32, RM.CAST_NONE, 0, 300),
    (f32, half, RM.CAST_RINT, 0, 512),        # narrow in place
    (f32, half, RM.CAST_RINT, 64, 512),       # dst starts two blocks into the source
    (f32, f32, RM.CAST_FLOOR, 32, 512),       # same width, shifted by one block
    (f32, int32_t, RM.CAST_TRUNC, 0, 512),    # same width, same address: full overlap
    (int32_t, f32, RM.CAST_NONE, -32, 512),
]


@pytest.mark.parametrize("case", OVERLAP, ids=lambda c: f"{c[0]}-{c[1]}-{c[3]}")
@pytest.mark.instruction("Cast")
def test_overlap_reads_the_source_before_writing(case: tuple) -> None:
    src_t, dst_t, mode, rel, count = case
    base = SRC + 4096
    x = np.resize(inputs(src_t), count)
    dsize = NP_OF[dst_t].itemsize

    def body(ub):
        A.Cast(tensor(ub, base + rel, dst_t), tensor(ub, base, src_t), mode, count)

    ub, _ = run_ub(body, [(base, x)])
    got = ub_array(ub, base + rel, f"u{dsize}", count)
    assert (got == reference(src_t, dst_t, x, mode)).all()


# ---- errors -----------------------------------------------------------------------------------

ILLEGAL = [
    (half, bfloat16_t, RM.CAST_NONE, "does not exist"),
    (bfloat16_t, half, RM.CAST_RINT, "does not exist"),
    (half, half, RM.CAST_NONE, "does not exist"),
    (half, f32, RM.CAST_RINT, "half -> float is exact and takes only CAST_NONE"),
    (bfloat16_t, f32, RM.CAST_FLOOR, "bfloat16_t -> float is exact and takes only CAST_NONE"),
    (f32, bfloat16_t, RM.CAST_NONE, "no CAST_NONE, no CAST_ODD"),
    (f32, bfloat16_t, RM.CAST_ODD, "no CAST_NONE, no CAST_ODD"),
    (f32, f32, RM.CAST_NONE, "rounds to an integral value"),
    (f32, f32, RM.CAST_ODD, "rounds to an integral value"),
    (f32, int32_t, RM.CAST_ODD, "float -> int32_t takes"),
    (int32_t, f32, RM.CAST_ODD, "int32_t -> float takes"),
    # the modes §2.3 does not list for its other A2 pairs, and pairs it does not list
    (half, int8_t, RM.CAST_NONE, "half -> int8_t takes CAST_RINT"),
    (half, uint8_t, RM.CAST_ODD, "half -> uint8_t takes CAST_RINT"),
    (half, int16_t, RM.CAST_NONE, "half -> int16_t takes CAST_RINT"),
    (bfloat16_t, int32_t, RM.CAST_NONE, "bfloat16_t -> int32_t takes CAST_RINT"),
    (f32, int16_t, RM.CAST_ODD, "float -> int16_t takes CAST_RINT"),
    (f32, int64_t, RM.CAST_NONE, "float -> int64_t takes CAST_RINT"),
    (int32_t, int16_t, RM.CAST_RINT, "takes only CAST_NONE"),
    (int64_t, int32_t, RM.CAST_TRUNC, "takes only CAST_NONE"),
    (int32_t, int64_t, RM.CAST_FLOOR, "int32_t -> int64_t is exact and takes only CAST_NONE"),
    (int64_t, f32, RM.CAST_ODD, "int64_t -> float takes"),
    (int64_t, half, RM.CAST_NONE, "does not exist"),
    (half, int64_t, RM.CAST_RINT, "does not exist"),
    (int16_t, int8_t, RM.CAST_NONE, "does not exist"),
]


@pytest.mark.parametrize("case", ILLEGAL, ids=lambda c: f"{c[0]}-{c[1]}-{c[2].name}")
def test_illegal_cast_quotes_the_rule(case: tuple) -> None:
    src_t, dst_t, mode, rule = case

    def body(ub):
        with pytest.raises(CastRuleError, match=rule) as info:
            A.Cast(tensor(ub, DST, dst_t), tensor(ub, SRC, src_t), mode, 64)
        assert f"{src_t} -> {dst_t}" in str(info.value)
        assert isinstance(info.value, ParameterError)

    _, run = run_ub(body)
    assert run.cores[0].records == []


def test_cast_operand_errors() -> None:
    def body(ub):
        src = tensor(ub, SRC, f32, 100)
        dst = tensor(ub, DST, half, 100)
        with pytest.raises(AlignmentError, match="dst starts at UB address 16"):
            A.Cast(tensor(ub, DST + 16, half), src, RM.CAST_RINT, 64)
        with pytest.raises(AlignmentError, match="src starts at UB address 65544"):
            A.Cast(dst, src[2], RM.CAST_RINT, 64)
        A.Cast(dst, src, RM.CAST_RINT, 100)
        with pytest.raises(OutOfRangeError, match="count 101"):
            A.Cast(dst, src, RM.CAST_RINT, 101)
        with pytest.raises(OutOfRangeError, match="src"):
            A.Cast(tensor(ub, DST, half), src, RM.CAST_RINT, 101)
        with pytest.raises(ParameterError, match="negative"):
            A.Cast(dst, src, RM.CAST_RINT, -1)

    _, run = run_ub(body)
    assert [r.name for r in run.decoded(0)] == ["Cast"]
