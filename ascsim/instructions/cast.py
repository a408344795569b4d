"""`Cast(dst, src, roundMode, count)` and its level-0 form `Cast(dst, src, roundMode, mask,
repeatTime, UnaryRepeatParams)` (`Cast[T, U]` / `Cast[T, U, isSetMask]`): type conversion with
an explicit RoundMode.

Which (source, destination, mode) triples A2/A3 accept is the table below (Cast.md and
ascendc_more.md §2.3); anything else raises `CastRuleError` quoting the rule. Every pair §2.3
lists for A2 is modelled:
- exact: half/bf16 -> float, int8/uint8 -> half, int16 -> float, int32 -> int64 (CAST_NONE);
- one rounding: float -> half/bf16/float, int16 -> half, int32/int64 -> float (int64 from the
  exact 64-bit value, no float64 step);
- float to integer: half -> int8/uint8/int16/int32, bf16 -> int32, float -> int16/int32/int64
  widen exactly, round with the mode, then saturate to the destination (NaN -> 0, +-Inf to the
  range ends [assumed], whatever the profile's float saturation); the modes of the pairs §2.3
  lists without any follow float -> int32 [assumed];
- narrowing integers: int32 -> int16 and int64 -> int32 (CAST_NONE) clamp or keep the low bits,
  profile option `int_narrow` (the behaviour is not public);
- int32 -> half is vconv_deq: any RoundMode, ignored; (float)x * DEQSCALE rounded to half, the
  scale written by `SetDeqScale(half)` (per core; a Cast before any is refused, the register's
  reset value not being public). Each Cast row's SCALAR holds the scale it ran with, so replay
  needs no register. Assumed steps: int32 -> float32 nearest even, the float32 product nearest
  even, float32 -> half nearest even with the profile's saturation.
The conversions are convert.py's bit-exact numba code and the per-pair loops here.

The level-0 form (ascendc_more.md §2.3): a repeat has E = 256 / max(sizeof(T), sizeof(U)) lanes;
lane j of an operand of element size s sits at base + (r*RepStride + (j // (32/s))*BlkStride)*32
+ (j % (32/s))*s, so the wider operand covers 8 DataBlocks per repeat and the narrower 4 (2 for
8 <-> 32 bit). That the narrower side's block stride counts 32-byte blocks like the wider
side's is not public: profile option `cast_narrow_blkstride = "per_32B_block"` (the only value
modelled). The mask is over the E lanes (the wider type's mask rules); Counter mode spreads its
count over repeats of E lanes. Every enabled lane of a repeat is read before any is written.
The count form, which the library runs in Counter mode, leaves Normal mode with a full mask
(§2.2); a level-0 call with isSetMask=true leaves its own mask in the register.
"""

from __future__ import annotations

import sys
from enum import IntEnum

import numpy as np
from numba import literally, njit, types
from numba.extending import overload

from .. import convert
from .. import records as rec
from ..batch import kind_of
from ..convert import f16_bits_to_f32, f32_to_f16_rne
from ..core import MEM_UB, PIPE_S, PIPE_V, current_core
from ..dtypes import (
    DType,
    bfloat16_t,
    float,
    half,
    int8_t,
    int16_t,
    int32_t,
    int64_t,
    uint8_t,
)
from ..errors import CastRuleError, ParameterError
from ..faults import fault
from ..memory import LocalTensor
from ..records import (
    COUNT,
    DTYPE,
    MODE,
    NPARAM,
    REPEATS,
    SCALAR,
    STRIDED,
    W,
    param_fields,
    params_of,
    start_fields,
)
from ..registry import (
    AccessPattern,
    Cost,
    CostKind,
    CppDecl,
    Dataflow,
    Operand,
    Signature,
    Work,
    register,
)
from ..sync import defer_on_pipe, defer_row, eager_instead, run_on_pipe
from ..workcall import NO_GM, compile_loop
from .common import (
    MAX_REPEAT_TIMES,
    UnaryRepeatParams,
    as_count,
    check_overlap,
    core_of,
    operand_error,
    recover_count,
)
from .vmask import (
    count_form_done,
    count_form_refusal,
    counter_repeats,
    lane_count,
    level0_mask,
    templated,
)
from .worklib import JIT, element_offset, enabled, lanes, shift, view

__all__ = ["Cast", "RoundMode", "SetDeqScale", "CAST_RULES", "A2_UNMODELLED"]
KERNEL_SURFACE = ("Cast", "RoundMode", "SetDeqScale")


class RoundMode(IntEnum):
    """AscendC `RoundMode`, in enum order."""

    CAST_NONE = convert.CAST_NONE
    CAST_RINT = convert.CAST_RINT
    CAST_FLOOR = convert.CAST_FLOOR
    CAST_CEIL = convert.CAST_CEIL
    CAST_ROUND = convert.CAST_ROUND
    CAST_TRUNC = convert.CAST_TRUNC
    CAST_ODD = convert.CAST_ODD


@njit(cache=True, nogil=True, error_model="numpy")
def _cast_int_to_f16(dst, doff, src, soff, n, mode, saturate):
    """dst[doff + i] = half bits of the 8-bit integer src[soff + i] (exact)."""
    for i in range(n):
        dst[doff + i] = f32_to_f16_rne(np.float32(src[soff + i]))


@njit(cache=True, nogil=True, error_model="numpy")
def _cast_int_to_f32(dst, doff, src, soff, n, mode, saturate):
    """dst[doff + i] = the 16-bit integer src[soff + i] as float32 (exact)."""
    for i in range(n):
        dst[doff + i] = np.float32(src[soff + i])


@njit(cache=True, nogil=True, error_model="numpy")
def _cast_i16_to_f16(dst, doff, src, soff, n, mode, saturate):
    """dst[doff + i] = half bits of the int16 src[soff + i] rounded with `mode` (int16 ->
    float32 is exact, so this is the one rounding; |int16| < 65504 never overflows)."""
    for i in range(n):
        dst[doff + i] = convert.f32_to_f16_bits(np.float32(src[soff + i]), mode, saturate)


@njit(cache=True, nogil=True, error_model="numpy")
def _cast_f16_to_i32(dst, doff, src, soff, n, mode, saturate):
    """dst[doff + i] = the half bits src[soff + i] rounded to int32 with `mode` (half ->
    float32 is exact; NaN -> 0 and +-Inf saturate, as float -> int32 does [assumed])."""
    for i in range(n):  # f32_to_i32 always saturates: the profile's flag is not read
        dst[doff + i] = convert.f32_to_i32(f16_bits_to_f32(src[soff + i]), mode, False)


# The loops below take (dst, doff, src, soff, n, mode, flags, lo, hi, aux): `flags` bit 0 is
# the profile's float saturation, bit 1 int_narrow = "wrap"; [lo, hi] the destination's integer
# range; `aux` the DEQSCALE register's half bits (int32 -> half only).


@njit(cache=True, nogil=True, error_model="numpy")
def _cast_f16_to_int(dst, doff, src, soff, n, mode, flags, lo, hi, aux):
    """half -> an integer type: widen exactly, round with `mode`, saturate to [lo, hi]."""
    for i in range(n):
        dst[doff + i] = convert.f32_to_int(f16_bits_to_f32(src[soff + i]), mode, lo, hi)


@njit(cache=True, nogil=True, error_model="numpy")
def _cast_bf16_to_int(dst, doff, src, soff, n, mode, flags, lo, hi, aux):
    """bfloat16_t -> int32: widen exactly, round with `mode`, saturate to [lo, hi]."""
    for i in range(n):
        dst[doff + i] = convert.f32_to_int(convert.bf16_bits_to_f32(src[soff + i]), mode, lo, hi)


@njit(cache=True, nogil=True, error_model="numpy")
def _cast_f32_to_int(dst, doff, src, soff, n, mode, flags, lo, hi, aux):
    """float -> int16 / int64: round with `mode`, saturate to [lo, hi]."""
    for i in range(n):
        dst[doff + i] = convert.f32_to_int(src[soff + i], mode, lo, hi)


@njit(cache=True, nogil=True, error_model="numpy")
def _cast_int_narrow(dst, doff, src, soff, n, mode, flags, lo, hi, aux):
    """int32 -> int16, int64 -> int32: out of range saturates, or wraps (profile int_narrow)."""
    for i in range(n):
        dst[doff + i] = convert.narrow_int(src[soff + i], lo, hi, (flags & 2) != 0)


@njit(cache=True, nogil=True, error_model="numpy")
def _cast_int_widen(dst, doff, src, soff, n, mode, flags, lo, hi, aux):
    """int32 -> int64 (exact)."""
    for i in range(n):
        dst[doff + i] = src[soff + i]


@njit(cache=True, nogil=True, error_model="numpy")
def _cast_i64_to_f32(dst, doff, src, soff, n, mode, flags, lo, hi, aux):
    """int64 -> float, rounded once with `mode` from the exact value."""
    for i in range(n):
        dst[doff + i] = convert.i64_to_f32(src[soff + i], mode)


@njit(cache=True, nogil=True, error_model="numpy")
def _cast_i32_to_f16_deq(dst, doff, src, soff, n, mode, flags, lo, hi, aux):
    """int32 -> half through DEQSCALE (vconv_deq; `mode` ignored): (float)x rounded to nearest
    even, times the scale widened exactly, product rounded to nearest even in float32, then to
    half with nearest even and the profile's saturation. Every rounding step is [assumed]: the
    docs only say (float)x * scale rounded to half."""
    scale = f16_bits_to_f32(aux)
    sat = (flags & 1) != 0
    for i in range(n):
        p = np.float32(np.float32(src[soff + i]) * scale)
        dst[doff + i] = convert.f32_to_f16_bits(p, convert.CAST_RINT, sat)


_R = RoundMode
_DIRECTED = frozenset({_R.CAST_RINT, _R.CAST_FLOOR, _R.CAST_CEIL, _R.CAST_ROUND, _R.CAST_TRUNC})
_NONE = frozenset({_R.CAST_NONE})
_ANY = frozenset(_R)


def _directed(src: str, dst: str, note: str = "") -> str:
    return (f"{src} -> {dst} takes CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND or CAST_TRUNC"
            + note)


# (src, dst) -> (allowed modes, numba loop, the rule as documented)
CAST_RULES: dict[tuple[DType, DType], tuple[frozenset[RoundMode], object, str]] = {
    (half, float): (frozenset({_R.CAST_NONE}), convert.cast_f16_to_f32,
                    "half -> float is exact and takes only CAST_NONE"),
    (bfloat16_t, float): (frozenset({_R.CAST_NONE}), convert.cast_bf16_to_f32,
                          "bfloat16_t -> float is exact and takes only CAST_NONE"),
    (float, half): (_DIRECTED | {_R.CAST_ODD, _R.CAST_NONE}, convert.cast_f32_to_f16,
                    "float -> half takes CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, "
                    "CAST_TRUNC, CAST_ODD or CAST_NONE (= CAST_RINT)"),
    (float, bfloat16_t): (_DIRECTED, convert.cast_f32_to_bf16,
                          "float -> bfloat16_t takes CAST_RINT, CAST_FLOOR, CAST_CEIL, "
                          "CAST_ROUND or CAST_TRUNC (no CAST_NONE, no CAST_ODD on A2/A3)"),
    (float, float): (_DIRECTED, convert.cast_f32_to_f32,
                     "float -> float rounds to an integral value and takes CAST_RINT, "
                     "CAST_FLOOR, CAST_CEIL, CAST_ROUND or CAST_TRUNC"),
    # The fact sheet has no int32 rows; these follow the float -> float pattern [assumed].
    (float, int32_t): (_DIRECTED, convert.cast_f32_to_i32,
                       "float -> int32_t takes CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND or "
                       "CAST_TRUNC [assumed]"),
    (int32_t, float): (_DIRECTED | {_R.CAST_NONE}, convert.cast_i32_to_f32,
                       "int32_t -> float takes CAST_NONE (= CAST_RINT), CAST_RINT, CAST_FLOOR, "
                       "CAST_CEIL, CAST_ROUND or CAST_TRUNC [assumed]"),
    # exact widenings of ascendc_more.md §2.3 (CAST_NONE only)
    (int8_t, half): (frozenset({_R.CAST_NONE}), _cast_int_to_f16,
                     "int8_t -> half is exact and takes only CAST_NONE"),
    (uint8_t, half): (frozenset({_R.CAST_NONE}), _cast_int_to_f16,
                      "uint8_t -> half is exact and takes only CAST_NONE"),
    (int16_t, float): (frozenset({_R.CAST_NONE}), _cast_int_to_f32,
                       "int16_t -> float is exact and takes only CAST_NONE"),
    # ascendc_more.md §2.3: "int16 -> half (any mode)", "half -> int32 (rounding modes)"
    (int16_t, half): (_DIRECTED | {_R.CAST_NONE}, _cast_i16_to_f16,
                      "int16_t -> half takes CAST_NONE (= CAST_RINT), CAST_RINT, CAST_FLOOR, "
                      "CAST_CEIL, CAST_ROUND or CAST_TRUNC (CAST_ODD not assumed)"),
    (half, int32_t): (_DIRECTED, _cast_f16_to_i32,
                      "half -> int32_t takes CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND or "
                      "CAST_TRUNC"),
    # the rest of ascendc_more.md §2.3's A2 list; float -> integer always saturates and NaN -> 0
    # [assumed], as float -> int32 (ascendc_semantics.md §4.4 describes float targets only)
    (half, int8_t): (_DIRECTED, _cast_f16_to_int, _directed("half", "int8_t")),
    (half, uint8_t): (_DIRECTED, _cast_f16_to_int, _directed("half", "uint8_t")),
    (half, int16_t): (_DIRECTED, _cast_f16_to_int, _directed("half", "int16_t")),
    (bfloat16_t, int32_t): (_DIRECTED, _cast_bf16_to_int,
                            _directed("bfloat16_t", "int32_t", " [assumed: §2.3 lists no modes]")),
    (float, int16_t): (_DIRECTED, _cast_f32_to_int,
                       _directed("float", "int16_t", " [assumed: §2.3 lists no modes]")),
    (float, int64_t): (_DIRECTED, _cast_f32_to_int,
                       _directed("float", "int64_t", " [assumed: §2.3 lists no modes]")),
    (int32_t, int16_t): (_NONE, _cast_int_narrow,
                         "int32_t -> int16_t takes only CAST_NONE (out of range: profile "
                         "int_narrow)"),
    (int64_t, int32_t): (_NONE, _cast_int_narrow,
                         "int64_t -> int32_t takes only CAST_NONE (out of range: profile "
                         "int_narrow)"),
    (int32_t, int64_t): (_NONE, _cast_int_widen, "int32_t -> int64_t is exact and takes only "
                                                 "CAST_NONE"),
    (int64_t, float): (_DIRECTED | _NONE, _cast_i64_to_f32,
                       "int64_t -> float takes CAST_NONE (= CAST_RINT), CAST_RINT, CAST_FLOOR, "
                       "CAST_CEIL, CAST_ROUND or CAST_TRUNC [assumed, as int32_t -> float]"),
    (int32_t, half): (_ANY, _cast_i32_to_f16_deq,
                      "int32_t -> half is vconv_deq: (float)x * the SetDeqScale scale rounded "
                      "to half, any RoundMode (ignored)"),
}

# Pairs ascendc_more.md §2.3 lists for A2 that ascsim does not convert: an error that says so,
# not "does not exist". Every pair is modelled now.
A2_UNMODELLED: dict[tuple[DType, DType], str] = {}
_LOOPS = {(s.code, d.code): loop for (s, d), (_, loop, _) in CAST_RULES.items()}
# convert.py's loops take (dst, doff, src, soff, n, mode, saturate); the rest the flags too
_PLAIN = frozenset({convert.cast_f16_to_f32, convert.cast_bf16_to_f32, convert.cast_f32_to_f16,
                    convert.cast_f32_to_bf16, convert.cast_f32_to_f32, convert.cast_f32_to_i32,
                    convert.cast_i32_to_f32, _cast_int_to_f16, _cast_int_to_f32,
                    _cast_i16_to_f16, _cast_f16_to_i32})
# The profile flags (`_flags`) each loop reads. A Cast compiles once per (source, destination,
# flags) triple, so flags a loop does not read are cleared (`_PAIR_FLAGS`): a profile that
# only changes the saturation does not recompile, say, half -> float.
_SATURATE, _WRAP = 1, 2
_FLAG_BITS = {convert.cast_f32_to_f16: _SATURATE, convert.cast_f32_to_bf16: _SATURATE,
              _cast_i16_to_f16: _SATURATE, _cast_i32_to_f16_deq: _SATURATE,
              _cast_int_narrow: _WRAP}
_PAIR_FLAGS = {(s.code, d.code): _FLAG_BITS.get(loop, 0) for (s, d), (_, loop, _) in
               CAST_RULES.items()}
_RANGE = {t.code: (int(np.iinfo(t.storage).min), int(np.iinfo(t.storage).max))
          for t in (int8_t, uint8_t, int16_t, int32_t, int64_t)}


def _cast_loop(scode, dcode, dst, doff, src, soff, n, mode, flags, aux):  # stub (see overload)
    pass


@overload(_cast_loop, jit_options=JIT)
def _ov_cast_loop(scode, dcode, dst, doff, src, soff, n, mode, flags, aux):
    if isinstance(scode, types.IntegerLiteral) and isinstance(dcode, types.IntegerLiteral):
        loop = _LOOPS[(scode.literal_value, dcode.literal_value)]
        if loop in _PLAIN:
            return lambda scode, dcode, dst, doff, src, soff, n, mode, flags, aux: loop(
                dst, doff, src, soff, n, mode, (flags & 1) == 1)
        lo, hi = _RANGE.get(dcode.literal_value, (0, 0))
        return lambda scode, dcode, dst, doff, src, soff, n, mode, flags, aux: loop(
            dst, doff, src, soff, n, mode, flags, lo, hi, aux)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_loop(scode, dcode, flags, dv, d, sv, s, n, mode, aux):
    """Convert elements [s, s + n) of sv into [d, d + n) of dv (views of one UB) with `mode`
    (`flags`, `aux`: see the loops above); a source that partially overlaps the destination is
    read as a snapshot."""
    literally(scode)
    literally(dcode)
    literally(flags)
    db, dn = d << shift(dcode), n << shift(dcode)
    sb, sn = s << shift(scode), n << shift(scode)
    src, so = sv, s
    if sb < db + dn and db < sb + sn and not (sb == db and sn == dn):
        src, so = sv[s:s + n].copy(), s - s  # `s - s`, not 0: a constant would be a literal
    # one call site: the converter (its loop inlined once per RoundMode) compiles once
    _cast_loop(scode, dcode, dv, d, src, so, n, mode, flags, aux)


# Row layout: params (source dtype code,), then the dst and src accesses.
_DST, _SRC = start_fields(1, 2)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_count(scode, dcode, flags, ub, gm, row):
    cast_loop(scode, dcode, flags, view(dcode, ub), row[_DST] >> shift(dcode),
              view(scode, ub), row[_SRC] >> shift(scode), row[COUNT], row[MODE], row[SCALAR])


# Level-0 row layout: params (source dtype code, mask_lo, mask_hi, dst blk, src blk, dst rep,
# src rep): the source dtype, then the vector repeat form's params; then the dst and src accesses.
_L_SRC_T, _L_LO, _L_HI, _L_DBLK, _L_SBLK, _L_DREP, _L_SREP = param_fields(7)
_L_DST, _L_SRC = start_fields(7, 2)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_repeat(scode, dcode, flags, ub, gm, row):
    """The level-0 form: per repeat, gather the enabled lanes of src, convert them, scatter
    them into dst (every lane is read before any is written)."""
    literally(scode)
    literally(dcode)
    literally(flags)
    dv = view(dcode, ub)
    sv = view(scode, ub)
    depb = 32 >> shift(dcode)
    sepb = 32 >> shift(scode)
    per_repeat = min(depb, sepb) * 8   # 256 bytes of the wider type
    lo, hi = row[_L_LO], row[_L_HI]
    dblk, sblk, drep, srep = row[_L_DBLK], row[_L_SBLK], row[_L_DREP], row[_L_SREP]
    doff = row[_L_DST] >> shift(dcode)
    soff = row[_L_SRC] >> shift(scode)
    xs = np.zeros(per_repeat, sv.dtype)
    ys = np.zeros(per_repeat, dv.dtype)
    for r in range(row[REPEATS]):
        n = lanes(r, per_repeat, row[COUNT])
        for j in range(n):
            if enabled(j, lo, hi):
                xs[j] = sv[element_offset(j, sepb, sblk, soff + r * srep * sepb)]
        _cast_loop(scode, dcode, ys, 0, xs, 0, n, row[MODE], flags, row[SCALAR])
        for j in range(n):
            if enabled(j, lo, hi):
                dv[element_offset(j, depb, dblk, doff + r * drep * depb)] = ys[j]


def _flags(profile: object) -> int:
    """The loops' `flags`: bit 0 the float saturation, bit 1 int_narrow = "wrap"."""
    return (_SATURATE if profile.saturation else 0) | (_WRAP if profile.int_narrow == "wrap"
                                                       else 0)


def _bind(row: tuple, profile: object) -> tuple[str, tuple[int, int, int]]:
    """Literals: the source dtype (the row's first param), the destination dtype and the
    profile's flags that the pair's loop reads (_flags, _PAIR_FLAGS); a level-0 row has the
    repeat form's params too. SCALAR holds the DEQSCALE bits an int32 -> half Cast ran with
    (0 otherwise)."""
    form = "repeat" if row[NPARAM] > 1 else "count"
    scode = params_of(row)[0]
    return form, (scode, row[DTYPE], _flags(profile) & _PAIR_FLAGS[scode, row[DTYPE]])


_CAST = register(
    "Cast", family="vector", pipe=PIPE_V,
    operands=(Operand("dst", AccessPattern.ELEMENTWISE, True),
              Operand("src", AccessPattern.ELEMENTWISE, dtype_param=0)),
    dataflow=Dataflow.ELEMENTWISE, cost=Cost(CostKind.VECTOR, "Cast"),
    signatures=tuple(Signature((d, s), frozenset(int(m) for m in modes), rule)
                     for (s, d), (modes, _, rule) in CAST_RULES.items()),
    work=Work({"count": cast_count, "repeat": cast_repeat}, bind=_bind),
    cpp=(CppDecl("template <typename T, typename U>\n__aicore__ void Cast(const LocalTensor<T> "
                 "&dst, const LocalTensor<U> &src, const RoundMode &roundMode, "
                 "const uint32_t count);"),
         CppDecl("template <typename T, typename U, bool isSetMask = true>\n__aicore__ void "
                 "Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, "
                 "const RoundMode &roundMode, const uint64_t mask, const uint8_t repeatTime, "
                 "const UnaryRepeatParams &repeatParams);"),
         CppDecl("template <typename T, typename U, bool isSetMask = true>\n__aicore__ void "
                 "Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, "
                 "const RoundMode &roundMode, const uint64_t mask[], const uint8_t repeatTime, "
                 "const UnaryRepeatParams &repeatParams);")),
    doc="type conversion with a RoundMode")
_entries: dict[tuple[int, int, int], object] = {}
# the deferred count form (batch.py): (source code << 8 | destination code) << 2 | the
# profile's flags -> the batch header of the count work with `_bind`'s literals (source code,
# destination code, the flags the pair's loop reads): the hot path looks up unmasked flags
_headers: dict[int, int] = {}


def _header(scode: int, dcode: int, flags: int, row_len: int) -> int:
    h = kind_of(cast_count, (scode, dcode, flags & _PAIR_FLAGS[scode, dcode]), row_len)
    if h >= 0:  # EAGER is asked again: compile_in_background may be switched off
        _headers[(scode << 8 | dcode) << 2 | flags] = h
    return h


_flags_memo: tuple = (None, 0)  # (profile, _flags(profile)) of the last Cast


def _remember_flags(profile: object) -> int:
    global _flags_memo
    _flags_memo = (profile, _flags(profile))
    return _flags_memo[1]


def _deq_bits(core: object, src: DType, dst: DType, f) -> int | None:
    """The SCALAR field of a Cast row: DEQSCALE's half bits for int32 -> half (None, after a
    fault, when no SetDeqScale ran: the register's reset value is not public), else 0."""
    if (src, dst) != (int32_t, half):
        return 0
    if core.deq_scale is None:
        fault(core, ParameterError(
            "Cast int32_t -> half (vconv_deq) before any SetDeqScale: it multiplies by the "
            "DEQSCALE register, whose value at kernel start is not public"), f,
            instruction="Cast")
        return None
    return core.deq_scale


def _rule_error(src: DType, dst: DType, mode: object) -> CastRuleError:
    rule = CAST_RULES.get((src, dst))
    if rule is None and (src, dst) in A2_UNMODELLED:
        return CastRuleError(f"Cast {src} -> {dst} is not modelled: "
                             f"{A2_UNMODELLED[src, dst]} (ascendc_more.md §2.3)")
    if rule is None:
        pairs = ", ".join(f"{s} -> {d}" for s, d in CAST_RULES)
        return CastRuleError(f"Cast {src} -> {dst} does not exist on A2/A3 (Cast.md); the "
                             f"conversions are: {pairs}")
    try:
        name = RoundMode(int(mode)).name
    except ValueError:
        name = repr(mode)
    return CastRuleError(f"Cast {src} -> {dst} with {name} is illegal on A2/A3: {rule[2]} "
                         "(Cast.md)")


def _cast(dst: LocalTensor, src: LocalTensor, roundMode: RoundMode, *rest, _f=None) -> None:
    """`Cast(dst, src, roundMode, count)`: convert `count` elements of src into dst; or the
    level-0 form `Cast(dst, src, roundMode, mask, repeatTime, UnaryRepeatParams)`."""
    f = _f or sys._getframe(1)
    if len(rest) != 1:
        return _cast_level0(dst, src, roundMode, rest, f, True)
    count = rest[0]
    if type(count) is not int:
        count = as_count(count)
    sdt, ddt = src.dtype, dst.dtype
    rule = CAST_RULES.get((sdt, ddt))
    if rule is None or roundMode not in rule[0]:
        return fault(core_of(dst, src), _rule_error(sdt, ddt, roundMode), f, instruction="Cast")
    dn, sn = count * ddt.size, count * sdt.size
    d, s = dst.addr, src.addr
    if (d | s) & 31 or count < 0 or dn > dst.size * ddt.size or sn > src.size * sdt.size:
        count = recover_count(core_of(dst, src),
                              operand_error("Cast", count, (("dst", dst), ("src", src))), f,
                              count, ((d, ddt.size, 1), (s, sdt.size, 1)), "Cast")
        if count is None:
            return
        dn, sn = count * ddt.size, count * sdt.size
    core = dst.core
    if core.vmask is not None:
        count_form_done(core)  # the count form ends in Normal mode with a full mask
    if sdt is int32_t and ddt is half:
        deq = _deq_bits(core, sdt, ddt, f)
        if deq is None:
            return
    else:
        deq = 0  # what _deq_bits gives for every other pair
    wide = ddt.size if ddt.size >= sdt.size else sdt.size
    row = rec.vector_row2p(_CAST.id, PIPE_V, f.f_code, f.f_lasti, ddt.code, count,
                           (count * wide + 255) >> 8, int(roundMode), deq, sdt.code, d, d + dn,
                           s, s + sn)
    core.records.append(row)
    if not count:
        return
    if core.sanitizer is not None and s < d + dn and d < s + sn and not (s == d and sn == dn):
        # a repeat covers 256 bytes of the wider type
        check_overlap(core, f, "Cast", -(-count * wide // 256), d, 256 * ddt.size // wide,
                      256 * ddt.size // wide, d + dn, s, 256 * sdt.size // wide,
                      256 * sdt.size // wide, s + sn)
    profile = core.profile
    memo = _flags_memo  # (profile, its _flags) of the last call: profiles are frozen
    flags = memo[1] if memo[0] is profile else _remember_flags(profile)
    if core.batch is not None:  # deferred (batch.py): the count work with `_bind`'s literals
        h = _headers.get((sdt.code << 8 | ddt.code) << 2 | flags)
        if h is None:  # (a header may be 0: the first kind)
            h = _header(sdt.code, ddt.code, flags, len(row))
        if h >= 0:
            if core.stalled:
                defer_on_pipe(core, PIPE_V, h, row)
            else:
                core.batch.add(h, row)
            return
        eager_instead(core, PIPE_V)
    flags &= _PAIR_FLAGS[sdt.code, ddt.code]  # the literal: the flags the pair's loop reads
    key = (sdt.code, ddt.code, flags)
    args = (sdt.code, ddt.code, flags, core.views[ddt.code], d >> ddt.shift,
            core.views[sdt.code], s >> sdt.shift, count, int(roundMode), deq)
    ep = _entries.get(key)
    if ep is None:
        ep = _entries[key] = compile_loop(cast_loop, args, 3)
    if core.stalled:
        run_on_pipe(core, PIPE_V, ep, args)
    else:
        ep(*args)


# ---- the level-0 form -------------------------------------------------------------------------

def lane_extent(repeat: int, per_repeat: int, size: int, blk: int, rep: int,
                total: int = -1) -> int:
    """Bytes from an operand's first byte to one past the last one a level-0 call touches:
    `repeat` repeats of `per_repeat` lanes (lane j in 32-byte block j // (32 / size)), block
    and repeat strides in blocks; with `total` lanes (Counter mode) the last repeat only has
    the rest."""
    if repeat <= 0:
        return 0
    epb = 32 // size
    tail = per_repeat if total < 0 else min(per_repeat, total - (repeat - 1) * per_repeat)
    last = 0
    for r, n in ((repeat - 2, per_repeat), (repeat - 1, tail)):
        if r < 0 or n <= 0:
            continue
        for b in range(-(-n // epb)):
            last = max(last, (r * rep + b * blk) * epb + min(epb, n - b * epb))
    return last * size


def _cast_level0(dst: LocalTensor, src: LocalTensor, roundMode: object, rest: tuple, f,
                 is_set_mask: bool) -> None:
    core = core_of(dst, src)
    if len(rest) != 3:
        return fault(core, ParameterError(
            "Cast: expected (dst, src, roundMode, count) or (dst, src, roundMode, mask, "
            f"repeatTime, repeatParams), got {len(rest)} trailing argument(s)"), f,
            instruction="Cast")
    mask, repeat, params = rest
    sdt, ddt = getattr(src, "dtype", None), getattr(dst, "dtype", None)
    rule = CAST_RULES.get((sdt, ddt))
    if rule is None or roundMode not in rule[0]:
        return fault(core, _rule_error(sdt, ddt, roundMode), f, instruction="Cast")
    repeat = as_count(repeat, "repeatTime")
    if not 0 <= repeat <= MAX_REPEAT_TIMES:
        return fault(core, ParameterError(f"Cast: repeatTime {repeat} is out of range "
                                          f"[0, {MAX_REPEAT_TIMES}]"), f, instruction="Cast")
    if not isinstance(params, UnaryRepeatParams):
        return fault(core, ParameterError("Cast: the level-0 form takes UnaryRepeatParams, got "
                                          f"{params!r}"), f, instruction="Cast")
    blk = (params.dstBlkStride, params.srcBlkStride)
    rep = (params.dstRepStride, params.srcRepStride)
    if blk[0] == 0:
        return fault(core, ParameterError("Cast: dstBlkStride 0 is undefined on hardware"), f,
                     instruction="Cast")
    wide = ddt if ddt.size >= sdt.size else sdt
    per_repeat = 256 // wide.size
    try:
        lo, hi, counted = level0_mask(core, "Cast", wide, mask, is_set_mask)
    except ParameterError as e:
        return fault(core, e, f, instruction="Cast")
    repeat = counter_repeats(core, f, "Cast", wide, counted, repeat)
    operands = ((dst, ddt, "dst"), (src, sdt, "src"))
    ext = [lane_extent(repeat, per_repeat, t.size, blk[i], rep[i],
                       lane_count(counted, repeat, 32 // wide.size))
           for i, (_, t, _) in enumerate(operands)]
    for i, (x, t, role) in enumerate(operands):
        if x.addr & 31 or ext[i] > x.size * t.size:
            err = operand_error("Cast", -(-ext[i] // t.size), ((role, x),))
            if recover_count(core, err, f, 0, (), "Cast") is None:
                return
            while repeat and any(
                    y.addr + lane_extent(repeat, per_repeat, u.size, blk[k], rep[k],
                                         lane_count(counted, repeat, 32 // wide.size))
                    > core.ub.size for k, (y, u, _) in enumerate(operands)):
                repeat -= 1
            ext = [lane_extent(repeat, per_repeat, u.size, blk[k], rep[k],
                               lane_count(counted, repeat, 32 // wide.size))
                   for k, (_, u, _) in enumerate(operands)]
            break
    total = lane_count(counted, repeat, 32 // wide.size)
    d, s = dst.addr, src.addr
    core = dst.core
    deq = _deq_bits(core, sdt, ddt, f)
    if deq is None:
        return
    row = rec.row(_CAST.id, PIPE_V, f.f_code, f.f_lasti, ddt.code, total, repeat,
                  int(roundMode), deq,
                  (sdt.code, rec.signed64(lo), rec.signed64(hi), *blk, *rep),
                  (W | STRIDED, MEM_UB, d, d + ext[0], STRIDED, MEM_UB, s, s + ext[1]))
    core.records.append(row)
    if not repeat:
        return
    if core.sanitizer is not None and s < d + ext[0] and d < s + ext[1]:
        width = [((per_repeat * t.size // 32 - 1) * blk[i] + 1) * 32
                 for i, (_, t, _) in enumerate(operands)]
        check_overlap(core, f, "Cast", repeat, d, rep[0] * 32, width[0], d + ext[0], s,
                      rep[1] * 32, width[1], s + ext[1])
    if core.batch is not None and defer_row(core, PIPE_V, _CAST, row):
        return
    form, lits = _CAST.work.bind(row, core.profile)
    ep = _CAST.work.entry(form, lits, len(row))
    run_on_pipe(core, PIPE_V, ep, (*lits, core.ub, NO_GM, rec.program_row(row)))


def _templated_cast(f, is_set_mask: bool, dst: LocalTensor, src: LocalTensor,
                    roundMode: RoundMode, *rest) -> None:
    """`Cast[T, U, isSetMask]` (T dst's dtype, U src's): the count form takes no
    isSetMask."""
    if len(rest) == 1:
        if not is_set_mask:
            return count_form_refusal("Cast", core_of(dst, src), f)
        return _cast(dst, src, roundMode, *rest, _f=f)
    return _cast_level0(dst, src, roundMode, rest, f, is_set_mask)


_cast.__name__ = _cast.__qualname__ = "Cast"
Cast = templated(_cast, _templated_cast, dtype_args=((0, "dst"), (1, "src")))


# ---- SetDeqScale --------------------------------------------------------------------------

DEQ_SCALE = register(
    "SetDeqScale", family="scalar", pipe=PIPE_S,
    operands=(Operand("scale", AccessPattern.NONE),),
    dataflow=Dataflow.STATE, cost=Cost(CostKind.SCALAR),
    signatures=(Signature((half,)),), work=None,
    cpp=(CppDecl("__aicore__ void SetDeqScale(half scale);"),),
    doc="write DEQSCALE, the scale Cast int32_t -> half (vconv_deq) multiplies by")


def SetDeqScale(scale: object) -> None:
    """`SetDeqScale(half scale)`: the per-core DEQSCALE register that Cast int32_t -> half
    multiplies by (ascendc_more.md §2.3); recorded with the half bits as SCALAR, and every such
    Cast row records the bits it ran with, so replay needs no register state."""
    f = sys._getframe(1)
    core = current_core()
    bits = half.scalar_bits(scale)
    core.records.append(rec.row(DEQ_SCALE.id, PIPE_S, f.f_code, f.f_lasti, half.code, 0, 0, 0,
                                bits, (), ()))
    core.deq_scale = bits & 0xFFFF
