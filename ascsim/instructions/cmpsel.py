"""Compare and select: `Compare`, `CompareScalar` (alias `Compares`) and `Select`.

Compare writes one bit per element, element i to byte i // 8, bit i % 8 (least significant bit
first). The count form needs count * sizeof(T) to be a multiple of 256 bytes: A2 runs
floor(count * sizeof(T) / 256) full repeats and silently skips the rest, and so does ascsim
(the sanitizer reports the skipped tail). NaN compares false except under NE (IEEE).

Select takes element i from src0 when its mask bit is 1, else from src1 (or the scalar).
VSEL_CMPMASK_SPR reuses the first 256 / sizeof(T) mask bits for every repeat;
VSEL_TENSOR_SCALAR_MODE and VSEL_TENSOR_TENSOR_MODE consume the bits continuously. On A2 the
library first writes into its temp area at TMP_UB_OFFSET (mode 1: the scalar splatted over 32
elements; modes 0 and 2: 32 bytes), which ascsim models and records as a write: the `tmp`
operand, whose access pattern (LIBRARY_TEMP) tells the analyses it is not the kernel's.
"""

from __future__ import annotations

import sys
from enum import IntEnum

import numpy as np
from numba import literally, njit, types
from numba.extending import overload

from .. import records as rec
from ..core import PIPE_V, dummy_byte
from ..dtypes import float, half, int32_t
from ..errors import ParameterError
from ..faults import fault, note
from ..memory import LocalTensor
from ..records import COUNT, DTYPE, MODE, SCALAR, start_fields
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
from ..sync import run_on_pipe
from ..workcall import compile_loop
from .common import (
    REPEAT_BYTES,
    as_count,
    check_overlap,
    core_of,
    operand_error,
    recover_count,
)
from .worklib import JIT, load, scalar, shift, source, uview, view

__all__ = ["Compare", "CompareScalar", "Compares", "Select", "CMPMODE", "SELMODE"]
KERNEL_SURFACE = tuple(__all__)


class CMPMODE(IntEnum):
    """AscendC `CMPMODE`: src0 OP src1 (or the scalar)."""

    LT = 0
    GT = 1
    EQ = 2
    LE = 3
    GE = 4
    NE = 5


class SELMODE(IntEnum):
    VSEL_CMPMASK_SPR = 0
    VSEL_TENSOR_SCALAR_MODE = 1
    VSEL_TENSOR_TENSOR_MODE = 2


def _cmp(mode, x, y):  # stub given meaning by the overload below
    pass


@overload(_cmp, jit_options=JIT)
def _ov_cmp(mode, x, y):
    if isinstance(mode, types.IntegerLiteral):
        m = mode.literal_value
        if m == CMPMODE.LT:
            return lambda mode, x, y: x < y
        if m == CMPMODE.GT:
            return lambda mode, x, y: x > y
        if m == CMPMODE.EQ:
            return lambda mode, x, y: x == y
        if m == CMPMODE.LE:
            return lambda mode, x, y: x <= y
        if m == CMPMODE.GE:
            return lambda mode, x, y: x >= y
        return lambda mode, x, y: x != y


# Row layout of both: no params, then the accesses; the starts of up to five of them.
_A0, _A1, _A2, _A3, _A4 = start_fields(0, 5)


@njit(cache=True, nogil=True, error_model="numpy")
def _pack_bits(bits, ub, d, n):
    # element i -> byte i // 8, bit i % 8 (least significant bit first)
    out = ub[d:d + n // 8]
    for k in range(n // 8):
        v = np.uint8(0)
        for j in range(8):
            v |= bits[8 * k + j] << j
        out[k] = v


@njit(cache=True, nogil=True, error_model="numpy")
def compare_loop(mode, code, use_scalar, ub, v, d, a, b, bits, count):
    """Pack src0 OP src1 (OP the scalar `bits` when use_scalar) of the whole 256-byte repeats
    of `count` elements into the bit mask at UB byte d; src0 and src1 are element indices of
    the UB view v."""
    literally(mode)
    literally(code)
    literally(use_scalar)
    size = 1 << shift(code)
    n = count * size // REPEAT_BYTES * (REPEAT_BYTES // size)
    x = v[a:a + n]
    flags = np.empty(n, np.uint8)
    if use_scalar:
        c = scalar(code, bits)
        for i in range(n):
            flags[i] = _cmp(mode, load(code, x[i]), c)
    else:
        y = v[b:b + n]
        for i in range(n):
            flags[i] = _cmp(mode, load(code, x[i]), load(code, y[i]))
    _pack_bits(flags, ub, d, n)


@njit(cache=True, nogil=True, error_model="numpy")
def _unpack_bits(ub, m, n, per_repeat, reuse_first):
    """One byte per element: its mask bit (the first per_repeat bits again and again when
    reuse_first, as VSEL_CMPMASK_SPR does)."""
    bits = np.empty(n, np.bool_)
    width = per_repeat if reuse_first else n
    mb = ub[m:m + (width + 7) // 8]
    for k in range(width >> 3):
        mk = mb[k]
        for j in range(8):
            bits[8 * k + j] = (mk >> j) & 1
    for i in range((width >> 3) << 3, width):
        bits[i] = (mb[i >> 3] >> (i & 7)) & 1
    if reuse_first:
        for i in range(width, n):
            bits[i] = bits[i % width]
    return bits


@njit(cache=True, nogil=True, error_model="numpy")
def select_loop(mode, code, dummy, ub, v, d, m, a, b, bits, n, tmp):
    """Select on storage bits (v: the UB as unsigned integers of T's size; d, a, b element
    indices, m and tmp byte addresses), after the library's hidden write to its temp area:
    mode 1 splats the scalar `bits` over 32 elements, modes 0 and 2 write 32 unknown bytes
    (the dummy fill). Mode 1 takes the scalar where the mask bit is 0, the others src1."""
    literally(mode)
    literally(code)
    literally(dummy)
    if mode == 1:
        t = tmp >> shift(code)
        v[t:t + 32] = bits
    else:
        ub[tmp:tmp + 32] = dummy
    if n == 0:
        return
    per_repeat = REPEAT_BYTES >> shift(code)
    flags = _unpack_bits(ub, m, n, min(per_repeat, n), mode == 0)
    x = source(v, a, d, n)
    out = v[d:d + n]
    if mode == 1:
        for i in range(n):
            out[i] = x[i] if flags[i] else bits
    else:
        y = source(v, b, d, n)
        for i in range(n):
            out[i] = x[i] if flags[i] else y[i]


# Work on rows (the access starts _A0.._A4 above).

@njit(cache=True, nogil=True, error_model="numpy")
def compare_count(mode, code, _c, ub, gm, row):
    compare_loop(mode, code, 0, ub, view(code, ub), row[_A0], row[_A1] >> shift(code),
                 row[_A2] >> shift(code), 0, row[COUNT])


@njit(cache=True, nogil=True, error_model="numpy")
def compare_scalar_count(mode, code, _c, ub, gm, row):
    compare_loop(mode, code, 1, ub, view(code, ub), row[_A0], row[_A1] >> shift(code), 0,
                 row[SCALAR], row[COUNT])


@njit(cache=True, nogil=True, error_model="numpy")
def select_count(mode, code, dummy, ub, gm, row):
    select_loop(mode, code, dummy, ub, uview(code, ub), row[_A0] >> shift(code), row[_A2],
                row[_A3] >> shift(code), row[_A4] >> shift(code), 0, row[COUNT], row[_A1])


@njit(cache=True, nogil=True, error_model="numpy")
def select_scalar_count(mode, code, dummy, ub, gm, row):
    select_loop(mode, code, dummy, ub, uview(code, ub), row[_A0] >> shift(code), row[_A2],
                row[_A3] >> shift(code), 0, row[SCALAR], row[COUNT], row[_A1])


def _bind_compare(row: tuple, profile: object) -> tuple[str, tuple[int, int, int]]:
    return "count", (row[MODE], row[DTYPE], 0)


def _bind_select(row: tuple, profile: object) -> tuple[str, tuple[int, int, int]]:
    """Mode 1 takes a scalar src1; the library's temp write in the other modes is the dummy."""
    form = "scalar" if row[MODE] == SELMODE.VSEL_TENSOR_SCALAR_MODE else "count"
    return form, (row[MODE], row[DTYPE], dummy_byte(profile))


CMP_DTYPES = (half, float, int32_t)
_EQ_ONLY = frozenset({int(CMPMODE.EQ)})
_ALL_CMP = frozenset(int(m) for m in CMPMODE)


def _cmp_signatures(tensor: bool) -> tuple[Signature, ...]:
    rule = "int32_t supports only CMPMODE.EQ on A2/A3"
    return tuple(Signature((None, t, t), _EQ_ONLY if t is int32_t else _ALL_CMP,
                           rule if t is int32_t else "")
                 for t in CMP_DTYPES)


_ELEMENT, _BIT = AccessPattern.ELEMENTWISE, AccessPattern.BIT_PER_ELEMENT
_COMPARE = register(
    "Compare", family="vector", pipe=PIPE_V,
    operands=(Operand("dst", _BIT, True), Operand("src0", _ELEMENT), Operand("src1", _ELEMENT)),
    dataflow=Dataflow.COMPARE, cost=Cost(CostKind.VECTOR, "Compare"),
    signatures=_cmp_signatures(True), work=Work({"count": compare_count}, bind=_bind_compare),
    cpp=(CppDecl("template <typename T, typename U>\n__aicore__ void Compare(const "
                 "LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, "
                 "CMPMODE cmpMode, uint32_t count);"),),
    doc="element-wise comparison of two tensors into a bit mask")
_COMPARES = register(
    "CompareScalar", family="vector", pipe=PIPE_V,
    operands=(Operand("dst", _BIT, True), Operand("src0", _ELEMENT),
              Operand("src1Scalar", AccessPattern.NONE)),
    dataflow=Dataflow.COMPARE, cost=Cost(CostKind.VECTOR, "CompareScalar"),
    signatures=_cmp_signatures(False),
    work=Work({"count": compare_scalar_count}, bind=_bind_compare),
    cpp=tuple(CppDecl(f"template <typename T, typename U>\n__aicore__ void {name}(const "
                      "LocalTensor<U> &dst, const LocalTensor<T> &src0, const ScalarT<T> "
                      "src1Scalar, CMPMODE cmpMode, uint32_t count);")
              for name in ("CompareScalar", "Compares")),
    doc="element-wise comparison with a scalar into a bit mask (also spelled Compares)")
SELECT_DTYPES = (half, float)
_SELECT = register(
    "Select", family="vector", pipe=PIPE_V,
    operands=(Operand("dst", _ELEMENT, True),
              Operand("tmp", AccessPattern.LIBRARY_TEMP, True),
              Operand("selMask", _BIT), Operand("src0", _ELEMENT), Operand("src1", _ELEMENT)),
    dataflow=Dataflow.SELECT, cost=Cost(CostKind.VECTOR, "Select"),
    signatures=tuple(Signature((t, None, None, t, t), frozenset(int(m) for m in SELMODE))
                     for t in SELECT_DTYPES),
    work=Work({"count": select_count, "scalar": select_scalar_count},
              bind=_bind_select),
    cpp=(CppDecl("template <typename T, typename U>\n__aicore__ void Select(const LocalTensor<T> "
                 "&dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, const "
                 "LocalTensor<T> &src1, SELMODE selMode, uint32_t count);"),
         CppDecl("template <typename T, typename U>\n__aicore__ void Select(const LocalTensor<T> "
                 "&dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, "
                 "ScalarT<T> src1, SELMODE selMode, uint32_t count);")),
    doc="per-element choice between two sources (or a source and a scalar) by a bit mask")
_entries: dict[tuple, object] = {}


def _entry(loop, args: tuple):
    """The compiled `loop` for these arguments (its first three are compile-time constants)."""
    key = (loop, args[0], args[1], args[2])
    ep = _entries.get(key)
    if ep is None:
        ep = _entries[key] = compile_loop(loop, args, 3)
    return ep


def _compare(name: str, ins, dst: LocalTensor, src0: LocalTensor, other, cmpMode, count,
             f) -> None:
    if type(count) is not int:
        count = as_count(count)
    dt = src0.dtype
    use_scalar = not isinstance(other, LocalTensor)
    mode = cmpMode if type(cmpMode) is CMPMODE else CMPMODE(int(cmpMode))
    if dt not in CMP_DTYPES or (not use_scalar and other.dtype is not dt):
        return fault(core_of(dst, src0), ParameterError(
            f"{name}: sources must be half, float or int32_t (one dtype), got {dt}"
            + ("" if use_scalar else f" and {other.dtype}")), f, instruction=name)
    if dt is int32_t and mode != CMPMODE.EQ:
        return fault(core_of(dst, src0), ParameterError(
            f"{name}: int32_t supports only CMPMODE.EQ on A2/A3, got {mode.name}"), f,
            instruction=name)
    # Only whole 256-byte repeats are computed; the rest of count is silently skipped.
    n = count * dt.size // REPEAT_BYTES * (REPEAT_BYTES // dt.size)
    sn, mb = count * dt.size, n // 8
    d, a = dst.addr, src0.addr
    if ((d | a) & 31 or count < 0 or mb > dst.size * dst.dtype.size or sn > src0.size * dt.size
            or not use_scalar and (other.addr & 31 or sn > other.size * dt.size)):
        operands = [("dst", dst, mb), ("src0", src0, sn)] + (
            [] if use_scalar else [("src1", other, sn)])
        for role, t, need in operands:
            if t.addr & 31 or count < 0 or need > t.size * t.dtype.size:
                err = operand_error(name, count, ((role, t),), need // count if count else None)
                count = recover_count(core_of(dst, src0), err, f, count,
                                      ((d, dt.size, 8), (a, dt.size, 1)) + (
                                          () if use_scalar else ((other.addr, dt.size, 1),)),
                                      name)
                if count is None:
                    return
                break
        n = count * dt.size // REPEAT_BYTES * (REPEAT_BYTES // dt.size)
        sn, mb = count * dt.size, n // 8
    core = dst.core
    if n != count and core.sanitizer is not None:
        note(core, ParameterError(
            f"{name}: count {count} x sizeof({dt}) = {sn} bytes is not a multiple of 256: only "
            f"{n} element(s) (whole repeats) are compared, the last {count - n} are silently "
            "skipped and their mask bits not written"), f, instruction=name, memory="UB",
            start=d + mb, end=d + (count + 7) // 8, write=True,
            check="Compare count not whole repeats")
    nb, m = n * dt.size, int(mode)
    if use_scalar:
        b, bits = a, dt.scalar_bits(other)
        core.records.append(rec.vector_row2(ins.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                                            nb // REPEAT_BYTES, m, bits, d, d + mb, a, a + nb))
    else:
        b, bits = other.addr, 0
        core.records.append(rec.vector_row3(ins.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                                            nb // REPEAT_BYTES, m, 0, d, d + mb, a, a + nb, b,
                                            b + nb))
    if not n:
        return
    args = (m, dt.code, int(use_scalar), core.ub, core.views[dt.code], d, a >> dt.shift,
            b >> dt.shift, bits, count)
    run_on_pipe(core, PIPE_V, _entry(compare_loop, args), args)


def Compare(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, cmpMode: CMPMODE,
            count: int) -> None:
    """`Compare(dstMask, src0, src1, cmpMode, count)`."""
    _compare("Compare", _COMPARE, dst, src0, src1, cmpMode, count, sys._getframe(1))


def CompareScalar(dst: LocalTensor, src0: LocalTensor, scalar: object, cmpMode: CMPMODE,
                  count: int) -> None:
    """`CompareScalar(dstMask, src0, scalar, cmpMode, count)` (also spelled `Compares`)."""
    _compare("CompareScalar", _COMPARES, dst, src0, scalar, cmpMode, count, sys._getframe(1))


Compares = CompareScalar


def Select(dst: LocalTensor, selMask: LocalTensor, src0: LocalTensor, src1: object,
           selMode: SELMODE, count: int) -> None:
    """`Select(dst, selMask, src0, src1 | scalar, selMode, count)`."""
    f = sys._getframe(1)
    if type(count) is not int:
        count = as_count(count)
    dt = dst.dtype
    mode = selMode if type(selMode) is SELMODE else SELMODE(int(selMode))
    scalar_mode = mode == SELMODE.VSEL_TENSOR_SCALAR_MODE
    if scalar_mode == isinstance(src1, LocalTensor):
        return fault(core_of(dst, src0), ParameterError(
            f"Select: {mode.name} takes " + ("a scalar src1" if scalar_mode
                                             else "a tensor src1")), f, instruction="Select")
    if dt not in SELECT_DTYPES or src0.dtype is not dt or (
            not scalar_mode and src1.dtype is not dt):
        return fault(core_of(dst, src0), ParameterError(
            f"Select: dst and sources must share half or float, got {dt}, {src0.dtype}"
            + ("" if scalar_mode else f", {src1.dtype}")), f, instruction="Select")
    per_repeat = REPEAT_BYTES // dt.size
    nb = count * dt.size
    mask_bytes = per_repeat // 8 if mode == SELMODE.VSEL_CMPMASK_SPR else (count + 7) // 8
    d, m, a = dst.addr, selMask.addr, src0.addr
    if ((d | m | a) & 31 or count < 0 or nb > dst.size * dt.size or nb > src0.size * dt.size
            or mask_bytes > selMask.size * selMask.dtype.size
            or not scalar_mode and (src1.addr & 31 or nb > src1.size * dt.size)):
        operands = [("dst", dst, nb), ("selMask", selMask, mask_bytes), ("src0", src0, nb)]
        if not scalar_mode:
            operands.append(("src1", src1, nb))
        for role, t, need in operands:
            if t.addr & 31 or count < 0 or need > t.size * t.dtype.size:
                err = operand_error("Select", count, ((role, t),),
                                    need // count if count else None)
                count = recover_count(core_of(dst, src0), err, f, count,
                                      ((d, dt.size, 1), (m, 1, 8), (a, dt.size, 1)) + (
                                          () if scalar_mode else ((src1.addr, dt.size, 1),)),
                                      "Select")
                if count is None:
                    return
                break
        nb = count * dt.size
        mask_bytes = per_repeat // 8 if mode == SELMODE.VSEL_CMPMASK_SPR else (count + 7) // 8
    core = dst.core
    tmp = core.tmp_ub
    tmp_bytes = 32 * dt.size if scalar_mode else 32
    if scalar_mode:
        row = rec.select_row(_SELECT.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                             (nb + 255) >> 8, int(mode), dt.scalar_bits(src1), d, d + nb, tmp,
                             tmp + tmp_bytes, m, m + mask_bytes, a, a + nb)
    else:
        b = src1.addr
        row = rec.select_row(_SELECT.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                             (nb + 255) >> 8, int(mode), 0, d, d + nb, tmp, tmp + tmp_bytes, m,
                             m + mask_bytes, a, a + nb, b, b + nb)
    core.records.append(row)
    if core.sanitizer is not None:
        # sources partially overlapping dst are read as snapshots, as by the other vector
        # instructions; the sanitizer reports them
        if a != d and a < d + nb and d < a + nb:
            check_overlap(core, f, "Select", (nb + 255) >> 8, d, 256, 256, d + nb, a, 256, 256,
                          a + nb, "src0")
        if not scalar_mode and b != d and b < d + nb and d < b + nb:
            check_overlap(core, f, "Select", (nb + 255) >> 8, d, 256, 256, d + nb, b, 256, 256,
                          b + nb, "src1")
    sh = dt.shift
    if scalar_mode:
        args = (int(mode), dt.code, core.dummy, core.ub, core.uviews[dt.code], d >> sh, m,
                a >> sh, 0, row[rec.SCALAR], count, tmp)
    else:
        args = (int(mode), dt.code, core.dummy, core.ub, core.uviews[dt.code], d >> sh, m,
                a >> sh, b >> sh, 0, count, tmp)
    run_on_pipe(core, PIPE_V, _entry(select_loop, args), args)
