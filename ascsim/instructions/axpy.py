"""`Axpy(dst, src, scalar, count)` and its level-0 form `Axpy(dst, src, scalar, mask, repeatTime,
UnaryRepeatParams)`: dst = scalar * src + dst (ascendc_more.md §5, ASC `Axpy.md`).

Pairs on A2 (`Axpy<T, U>`, dst T, src and scalar U): half/half, float/float and half -> float
(dst float, src and scalar half). The mixed pair runs 64 lanes per repeat and allows no overlap
of dst and src at all; the same-type pairs follow the usual rule (dst and src the same bytes or
disjoint). Axpy reads dst: its record carries dst twice, written and read, so initcheck sees the
read. The count form leaves Normal mode with a full mask; the level-0 form takes the usual mask,
Counter mode and isSetMask (`Axpy[T, U, isSetMask]`); ascsim models the level-0 form for the
same-type pairs only (the mixed pair's repeat layout is undocumented and refused).

Rounding: whether the hardware fuses the multiply and the add is UNKNOWN. Profile option
`axpy_fma` = false (default): the product is rounded to T, then the sum (two roundings; for
half each step is a correctly rounded fp16 operation, computed in fp32); true: scalar * src +
dst rounded once (computed exactly: the product in float64, the sum rounded to odd in float64,
then to T). For the mixed pair the product of two halves is exact in fp32, so both settings
give the same bits. NaN, Inf, -0.0 and subnormals follow IEEE.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import literally, njit, types
from numba.extending import overload

from .. import records as rec
from ..convert import f16_bits_to_f32, f32_to_f16_rne
from ..core import MEM_UB, PIPE_V
from ..dtypes import float, half
from ..errors import ParameterError
from ..faults import fault
from ..memory import LocalTensor
from ..records import COUNT, DTYPE, NPARAM, REPEATS, SCALAR, STRIDED, W, param_fields
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
from .broadcast import no_overlap
from .common import (
    MAX_REPEAT_TIMES,
    UnaryRepeatParams,
    as_count,
    check_overlap,
    core_of,
    operand_error,
)
from .elementwise import _check_strided_overlap, _fit_repeats, _run_row
from .vmask import counter_repeats, lane_count, level0_mask, strided_extent, templated
from .worklib import JIT, element_offset, enabled, lanes, load, scalar, shift, source, view

__all__ = ["Axpy", "AXPY_PAIRS"]
KERNEL_SURFACE = ("Axpy",)

AXPY_PAIRS = ((half, half), (float, float), (float, half))  # (dst T, src U)
_F16, _F32 = half.code, float.code


# ---- arithmetic ------------------------------------------------------------------------------

@njit(cache=True, nogil=True, error_model="numpy")
def _sum_odd64(p, d):
    """p + d rounded to odd in float64 (p, d float64): rounding that to a format at least two
    bits narrower gives the correctly rounded p + d."""
    s = p + d
    if not np.isfinite(s):
        return s
    bp = s - d
    e = (p - bp) + (d - (s - bp))  # TwoSum: s + e == p + d exactly
    if e == 0.0:
        return s
    bits = np.array([s]).view(np.int64)[0]
    if (bits & 1) == 0:
        bits += 1 if (e > 0) == (s > 0) else -1
    return np.array([bits]).view(np.float64)[0]


@njit(cache=True, nogil=True, error_model="numpy")
def _odd32(x):
    """A float64 rounded to odd in float32."""
    f = np.float32(x)
    if not np.isfinite(f) or np.float64(f) == x:
        return f
    bits = np.array([f]).view(np.int32)[0]
    if (bits & 1) == 0:
        toward = (np.float64(f) < x) == (f > 0)  # away from zero when x is beyond f
        if np.float64(f) == 0.0:
            toward = True
        bits += 1 if toward else -1
    return np.array([bits]).view(np.float32)[0]


def _axpy(dcode, scode, fma, s, x, d):  # a stub given meaning by the overload below
    pass


@overload(_axpy, jit_options=JIT)
def _ov_axpy(dcode, scode, fma, s, x, d):
    """The stored value (half: its bits; float: float32) of s * x + d, with s, x, d in fp32
    (halves widened exactly); the dtype codes and fma are literals."""
    if not all(isinstance(a, types.IntegerLiteral) for a in (dcode, scode, fma)):
        return None
    dc, sc, fused = dcode.literal_value, scode.literal_value, fma.literal_value
    if dc == _F16 and fused:
        return lambda dcode, scode, fma, s, x, d: f32_to_f16_rne(_odd32(_sum_odd64(
            np.float64(s) * np.float64(x), np.float64(d))))
    if dc == _F16:
        return lambda dcode, scode, fma, s, x, d: f32_to_f16_rne(
            f16_bits_to_f32(f32_to_f16_rne(s * x)) + d)
    if fused and sc == _F32:
        return lambda dcode, scode, fma, s, x, d: np.float32(_sum_odd64(
            np.float64(s) * np.float64(x), np.float64(d)))
    return lambda dcode, scode, fma, s, x, d: s * x + d  # the mixed pair's product is exact


# ---- work ------------------------------------------------------------------------------------
_C_DST, _C_SRC = (rec.access_fields(0, k)[2] for k in range(2))
_LO, _HI, _BD, _BS, _BDR, _RD, _RS, _RDR = param_fields(8)
_R_DST, _R_SRC = (rec.access_fields(8, k)[2] for k in range(2))


@njit(cache=True, nogil=True, error_model="numpy")
def axpy_count(dcode, scode, fma, ub, gm, row):
    literally(dcode)
    literally(scode)
    literally(fma)
    dv = view(dcode, ub)
    sv = view(scode, ub)
    d = row[_C_DST] >> shift(dcode)
    s = row[_C_SRC] >> shift(scode)
    n = row[COUNT]
    c = scalar(scode, row[SCALAR])
    x = source(sv, s, d, n)  # a snapshot when a same-type src partially overlaps dst
    for i in range(n):
        dv[d + i] = _axpy(dcode, scode, fma, c, load(scode, x[i]), load(dcode, dv[d + i]))


@njit(cache=True, nogil=True, error_model="numpy")
def axpy_repeat(dcode, scode, fma, ub, gm, row):
    """Same-type pairs: repeats of 8 DataBlocks at strides, the enabled lanes (each repeat read
    before it is written)."""
    literally(dcode)
    literally(scode)
    literally(fma)
    v = view(dcode, ub)
    sh = shift(dcode)
    epb = 32 >> sh
    per_repeat = 8 * epb
    lo, hi = row[_LO], row[_HI]
    dblk, sblk, drep, srep = row[_BD], row[_BS], row[_RD], row[_RS]
    doff = row[_R_DST] >> sh
    soff = row[_R_SRC] >> sh
    c = scalar(scode, row[SCALAR])
    out = np.empty(per_repeat, dtype=v.dtype)
    for r in range(row[REPEATS]):
        n = lanes(r, per_repeat, row[COUNT])
        for j in range(n):
            if enabled(j, lo, hi):
                x = load(scode, v[element_offset(j, epb, sblk, soff + r * srep * epb)])
                d = load(dcode, v[element_offset(j, epb, dblk, doff + r * drep * epb)])
                out[j] = _axpy(dcode, scode, fma, c, x, d)
        for j in range(n):
            if enabled(j, lo, hi):
                v[element_offset(j, epb, dblk, doff + r * drep * epb)] = out[j]


def _bind(row: tuple, profile: object) -> tuple[str, tuple[int, int, int]]:
    dcode = row[DTYPE]
    scode = dcode if row[NPARAM] else _src_code(row)
    return ("repeat" if row[NPARAM] else "count"), (dcode, scode, int(profile.axpy_fma))


def _src_code(row: tuple) -> int:
    """The count form's src dtype: its elements are (src bytes / count) wide."""
    acc = rec.accesses_of(row)
    n = row[COUNT]
    return _F16 if n and (acc[1][3] - acc[1][2]) // n == 2 else row[DTYPE]


_E = AccessPattern.ELEMENTWISE
_AXPY = register(
    "Axpy", family="vector", pipe=PIPE_V,
    operands=(Operand("dst", _E, True), Operand("src", _E), Operand("dst (read)", _E),
              Operand("scalarValue", AccessPattern.NONE)),
    dataflow=Dataflow.ELEMENTWISE, cost=Cost(CostKind.VECTOR, "Axpy"),
    signatures=tuple(Signature((t, u, t, u)) for t, u in AXPY_PAIRS),
    work=Work({"count": axpy_count, "repeat": axpy_repeat}, _bind),
    cpp=(CppDecl("template <typename T, typename U>\n__aicore__ void Axpy("
                 "const LocalTensor<T> &dst, const LocalTensor<U> &src, const U scalarValue, "
                 "const int32_t &count);"),
         CppDecl("template <typename T, typename U, bool isSetMask = true>\n__aicore__ void Axpy("
                 "const LocalTensor<T> &dst, const LocalTensor<U> &src, const U scalarValue, "
                 "uint64_t mask, const uint8_t repeatTime, "
                 "const UnaryRepeatParams &repeatParams);"),
         CppDecl("template <typename T, typename U, bool isSetMask = true>\n__aicore__ void Axpy("
                 "const LocalTensor<T> &dst, const LocalTensor<U> &src, const U scalarValue, "
                 "const uint64_t mask[], const uint8_t repeatTime, "
                 "const UnaryRepeatParams &repeatParams);")),
    doc="dst = scalar * src + dst (dst is read)")


def _axpy_call(dst: LocalTensor, src: LocalTensor, scalarValue: object, *rest, _f=None,
               is_set_mask: bool = True) -> None:
    f = _f or sys._getframe(1)
    name = "Axpy"
    core = core_of(dst, src)
    dt, st = getattr(dst, "dtype", None), getattr(src, "dtype", None)
    if (dt, st) not in AXPY_PAIRS:
        return fault(core, ParameterError(
            f"Axpy: (dst, src) dtypes must be one of (half, half), (float, float), "
            f"(float, half) on A2, got ({dt}, {st})"), f, instruction=name)
    bits = st.scalar_bits(scalarValue)
    if len(rest) == 1:
        if not is_set_mask:
            return fault(core, ParameterError(
                "Axpy<T, U, false>: the count form has no isSetMask template argument"), f,
                instruction=name)
        count = as_count(rest[0])
        for role, t in (("dst", dst), ("src", src)):
            if count < 0 or t.addr & 31 or count > t.size:
                return fault(core, operand_error(name, count, ((role, t),)), f,
                             instruction=name)
        d0, d1 = dst.addr, dst.addr + count * dt.size
        s0, s1 = src.addr, src.addr + count * st.size
        core = dst.core
        core.vmask = None  # the count form ends in Normal mode with a full mask
        per_repeat = 64 if dt is not st else 256 // dt.size
        row = rec.row(_AXPY.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                      -(-count // per_repeat), 0, bits, (),
                      (W, MEM_UB, d0, d1, 0, MEM_UB, s0, s1, 0, MEM_UB, d0, d1))
        core.records.append(row)
        if not count:
            return
        if core.sanitizer is not None:
            if dt is not st:
                no_overlap(core, f, name, d0, d1, s0, s1)
            elif s0 != d0 and s0 < d1 and d0 < s1:
                check_overlap(core, f, name, -(-count * dt.size // 256), d0, 256, 256, d1, s0,
                              256, 256, s1)
    elif len(rest) == 3:
        mask, repeat, params = rest
        if dt is not st:
            return fault(core, ParameterError(
                "Axpy: the level-0 form of the half -> float pair is not modelled by ascsim "
                "(its repeat layout is undocumented); use the count form"), f,
                instruction=name)
        if not isinstance(params, UnaryRepeatParams):
            return fault(core, ParameterError(f"Axpy: takes UnaryRepeatParams, got {params!r}"),
                         f, instruction=name)
        repeat = as_count(repeat, "repeatTime")
        if not 0 <= repeat <= MAX_REPEAT_TIMES:
            return fault(core, ParameterError(f"Axpy: repeatTime {repeat} is out of range "
                                              f"[0, {MAX_REPEAT_TIMES}]"), f, instruction=name)
        blk = (params.dstBlkStride, params.srcBlkStride)
        rep = (params.dstRepStride, params.srcRepStride)
        if blk[0] == 0:
            return fault(core, ParameterError("Axpy: dstBlkStride 0 is undefined on hardware"),
                         f, instruction=name)
        try:
            lo, hi, counted = level0_mask(core, name, dt, mask, is_set_mask)
        except ParameterError as e:
            return fault(core, e, f, instruction=name)
        epb = 32 // dt.size
        repeat = counter_repeats(core, f, name, dt, counted, repeat)
        repeat = _fit_repeats(core, f, name, dt, epb, (dst, src), blk, rep, repeat, counted)
        if repeat is None:
            return
        total = lane_count(counted, repeat, epb)
        de = strided_extent(repeat, epb, blk[0], rep[0], dt.size, total)
        se = strided_extent(repeat, epb, blk[1], rep[1], dt.size, total)
        core = dst.core
        row = rec.row(_AXPY.id, PIPE_V, f.f_code, f.f_lasti, dt.code, total, repeat, 0, bits,
                      (rec.signed64(lo), rec.signed64(hi), blk[0], blk[1], blk[0], rep[0],
                       rep[1], rep[0]),
                      (W | STRIDED, MEM_UB, dst.addr, dst.addr + de,
                       STRIDED, MEM_UB, src.addr, src.addr + se,
                       STRIDED, MEM_UB, dst.addr, dst.addr + de))
        core.records.append(row)
        if repeat == 0:
            return
        if core.sanitizer is not None:
            _check_strided_overlap(core, f, name, repeat, dt.size, (dst, src), blk, rep, lo, hi)
    else:
        return fault(core, ParameterError(
            "Axpy: expected (dst, src, scalar, count) or (dst, src, scalar, mask, repeatTime, "
            "UnaryRepeatParams)"), f, instruction=name)
    form, lits = _AXPY.work.bind(row, core.profile)
    _run_row(core, _AXPY.work, form, lits, row)


def _axpy_front(*args) -> None:
    """`Axpy(dst, src, scalar, count)` or the level-0 form; `Axpy[T, U]`, `Axpy[T, U,
    isSetMask]` check dst is T and src U."""
    return _axpy_call(*args, _f=sys._getframe(1))


_axpy_front.__name__ = _axpy_front.__qualname__ = "Axpy"
Axpy = templated(_axpy_front, lambda f, is_set_mask, *args: _axpy_call(*args, _f=f,
                                                                 is_set_mask=is_set_mask),
                 dtype_args=((0, "dst"), (1, "src")))
