"""Compare and select: `Compare`, `CompareScalar` (alias `Compares`) and `Select`, in the count
form and the level-0 (mask / repeat) form.

Compare writes one bit per element, element i to byte i // 8, bit i % 8 (least significant bit
first). The count form needs count * sizeof(T) to be a multiple of 256 bytes: A2 runs
floor(count * sizeof(T) / 256) full repeats and silently skips the rest, and so does ascsim
(the sanitizer reports the skipped tail). NaN compares false except under NE (IEEE).

Level-0 Compare / CompareScalar (ascendc_more.md §2.3): on A2 the mask is ignored (the library
casts it to void; it neither writes the mask register nor is limited by it, Counter mode
included [assumed]) and all E = 256 / sizeof(T) lanes of each of repeatTime repeats are
compared; repeat r fills bytes [r*E/8, (r+1)*E/8) of dst, packed densely: the dst strides have
no visible effect (profile option `cmp_dst_stride = "ignored"`, the only value modelled). The
source strides place the lanes (a block stride of 0 broadcasts one block).

Select takes element i from src0 when its mask bit is 1, else from src1 (or the scalar).
VSEL_CMPMASK_SPR reuses the first 256 / sizeof(T) mask bits for every repeat;
VSEL_TENSOR_SCALAR_MODE and VSEL_TENSOR_TENSOR_MODE consume the bits continuously, E per repeat
in the level-0 form too (mode 1's src1 strides do not move the mask: profile option
`sel_mode1_mask_stride = "dense"`, the only value modelled). In the level-0 form the lanes the
mask disables keep dst's old value; the call leaves its mask in the register (the library sets
it whatever isSetMask says).

The library's writes into its temp area at TMP_UB_OFFSET (ascendc_more.md §6(a), both forms):
mode 0 writes nothing (CMPMASK is loaded straight from selMask); mode 1 duplicates the scalar
into 32 elements of T (64 B for half, 128 B for float); mode 2 duplicates selMask's UB byte
address as 32 uint32 (128 B) and points CMPMASK there. ascsim performs them and records them as
the `tmp` operand, whose access pattern (LIBRARY_TEMP) tells the analyses it is not the
kernel's; mode 0's `tmp` access is empty. The count form leaves Normal mode with a full mask.
"""

from __future__ import annotations

import sys
from enum import IntEnum

import numpy as np
from numba import literally, njit, types
from numba.extending import overload

from .. import records as rec
from ..core import MEM_UB, PIPE_V
from ..dtypes import DType, float, half, int32_t, uint8_t
from ..errors import ParameterError
from ..faults import fault, note
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
    repeat_fields,
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
from ..sync import defer_row, run_on_pipe
from ..workcall import NO_GM, compile_loop
from .common import (
    MAX_REPEAT_TIMES,
    REPEAT_BYTES,
    BinaryRepeatParams,
    UnaryRepeatParams,
    as_count,
    check_overlap,
    core_of,
    operand_error,
    recover_count,
)
from .elementwise import _check_strided_overlap
from .vmask import (
    count_form_done,
    count_form_refusal,
    counter_repeats,
    lane_count,
    level0_mask,
    strided_extent,
    templated,
)
from .worklib import (
    JIT,
    element_offset,
    enabled,
    lanes,
    load,
    scalar,
    shift,
    source,
    uview,
    view,
)

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


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
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


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
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


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _select_temp(mode, code, ub, v, tmp, m, bits):
    """The library's write to its temp area (ascendc_more.md §6(a)): mode 1 duplicates the
    scalar `bits` into 32 elements of T, mode 2 selMask's UB byte address m into 32 uint32,
    mode 0 writes nothing."""
    if mode == 1:
        t = tmp >> shift(code)
        v[t:t + 32] = bits
    elif mode == 2:
        w = ub.view(np.uint32)
        w[tmp >> 2:(tmp >> 2) + 32] = np.uint32(m)


def temp_bytes(mode: int, dtype: DType) -> int:
    """Bytes of the library temp area a Select of this mode writes (§6(a))."""
    return 32 * dtype.size if mode == 1 else 128 if mode == 2 else 0


@njit(cache=True, nogil=True, error_model="numpy")
def select_loop(mode, code, _c, ub, v, d, m, a, b, bits, n, tmp):
    """Select on storage bits (v: the UB as unsigned integers of T's size; d, a, b element
    indices, m and tmp byte addresses), after the library's write to its temp area
    (`_select_temp`). Mode 1 takes the scalar where the mask bit is 0, the others src1."""
    literally(mode)
    literally(code)
    _select_temp(mode, code, ub, v, tmp, m, bits)
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


# ---- level-0 work ------------------------------------------------------------------------------
# Row layouts (records.py's vector repeat form over the strided operands only: Compare's dst is
# dense and has no strides, Select's tmp and selMask neither):
#   Compare         (mask_lo, mask_hi, src0/src1 blk, src0/src1 rep); dst, src0, src1
#   CompareScalar   (mask_lo, mask_hi, src blk, src rep); dst, src0
#   Select          (mask_lo, mask_hi, dst/src0/src1 blk, dst/src0/src1 rep); dst, tmp, selMask,
#                   src0, src1
#   Select, mode 1  (mask_lo, mask_hi, dst/src0 blk, dst/src0 rep); dst, tmp, selMask, src0
_, _, (_C_B0, _C_B1), (_C_R0, _C_R1), _ = repeat_fields(2)
_C_D, _C_A, _C_B = start_fields(6, 3)
_, _, (_CS_B0,), (_CS_R0,), _ = repeat_fields(1)
_CS_D, _CS_A = start_fields(4, 2)
_S_LO, _S_HI, (_S_BD, _S_B0, _S_B1), (_S_RD, _S_R0, _S_R1), _ = repeat_fields(3)
_S_D, _S_T, _S_M, _S_A, _S_B = start_fields(8, 5)
_SS_LO, _SS_HI, (_SS_BD, _SS_B0), (_SS_RD, _SS_R0), _ = repeat_fields(2)
_SS_D, _SS_T, _SS_M, _SS_A = start_fields(6, 4)


@njit(cache=True, nogil=True, error_model="numpy")
def compare_repeat_loop(mode, code, use_scalar, ub, repeats, d, a, ablk, arep, b, bblk, brep,
                        bits):
    """Level-0 compare: all E lanes of each repeat (the mask is ignored on A2); repeat r's E
    bits go to bytes [d + r*E/8, d + (r+1)*E/8)."""
    literally(mode)
    literally(code)
    literally(use_scalar)
    v = view(code, ub)
    epb = 32 >> shift(code)
    per_repeat = 8 * epb
    nb = per_repeat >> 3
    aoff = a >> shift(code)
    boff = b >> shift(code)
    c = scalar(code, bits)
    out = np.zeros(nb, np.uint8)
    for r in range(repeats):
        out[:] = 0
        for j in range(per_repeat):
            x = load(code, v[element_offset(j, epb, ablk, aoff + r * arep * epb)])
            if use_scalar:
                flag = _cmp(mode, x, c)
            else:
                flag = _cmp(mode, x, load(code, v[element_offset(j, epb, bblk,
                                                                  boff + r * brep * epb)]))
            if flag:
                out[j >> 3] |= np.uint8(1 << (j & 7))
        ub[d + r * nb:d + (r + 1) * nb] = out


@njit(cache=True, nogil=True, error_model="numpy")
def compare_repeat(mode, code, _c, ub, gm, row):
    compare_repeat_loop(mode, code, 0, ub, row[REPEATS], row[_C_D], row[_C_A], row[_C_B0],
                        row[_C_R0], row[_C_B], row[_C_B1], row[_C_R1], 0)


@njit(cache=True, nogil=True, error_model="numpy")
def compare_scalar_repeat(mode, code, _c, ub, gm, row):
    compare_repeat_loop(mode, code, 1, ub, row[REPEATS], row[_CS_D], row[_CS_A], row[_CS_B0],
                        row[_CS_R0], row[_CS_A], row[_CS_B0], row[_CS_R0], row[SCALAR])


@njit(cache=True, nogil=True, error_model="numpy")
def select_repeat_loop(mode, code, use_scalar, ub, repeats, count, lo, hi, d, dblk, drep, tmp,
                       m, a, ablk, arep, b, bblk, brep, bits):
    """Level-0 select: the library's temp write, then per repeat the lanes the mask enables
    (mask bit j of selMask in mode 0, bit r*E + j in modes 1 and 2); every lane of a repeat
    is read before any is written."""
    literally(mode)
    literally(code)
    literally(use_scalar)
    v = uview(code, ub)
    _select_temp(mode, code, ub, v, tmp, m, bits)
    epb = 32 >> shift(code)
    per_repeat = 8 * epb
    doff = d >> shift(code)
    aoff = a >> shift(code)
    boff = b >> shift(code)
    out = np.empty(per_repeat, v.dtype)
    for r in range(repeats):
        n = lanes(r, per_repeat, count)
        for j in range(n):
            if enabled(j, lo, hi):
                bit = j if mode == 0 else r * per_repeat + j
                if (ub[m + (bit >> 3)] >> (bit & 7)) & 1:
                    out[j] = v[element_offset(j, epb, ablk, aoff + r * arep * epb)]
                elif use_scalar:
                    out[j] = bits
                else:
                    out[j] = v[element_offset(j, epb, bblk, boff + r * brep * epb)]
        for j in range(n):
            if enabled(j, lo, hi):
                v[element_offset(j, epb, dblk, doff + r * drep * epb)] = out[j]


@njit(cache=True, nogil=True, error_model="numpy")
def select_repeat(mode, code, _c, ub, gm, row):
    select_repeat_loop(mode, code, 0, ub, row[REPEATS], row[COUNT], row[_S_LO], row[_S_HI],
                       row[_S_D], row[_S_BD], row[_S_RD], row[_S_T], row[_S_M], row[_S_A],
                       row[_S_B0], row[_S_R0], row[_S_B], row[_S_B1], row[_S_R1], 0)


@njit(cache=True, nogil=True, error_model="numpy")
def select_scalar_repeat(mode, code, _c, ub, gm, row):
    select_repeat_loop(mode, code, 1, ub, row[REPEATS], row[COUNT], row[_SS_LO], row[_SS_HI],
                       row[_SS_D], row[_SS_BD], row[_SS_RD], row[_SS_T], row[_SS_M],
                       row[_SS_A], row[_SS_B0], row[_SS_R0], row[_SS_A], row[_SS_B0],
                       row[_SS_R0], row[SCALAR])


def _bind_compare(row: tuple, profile: object) -> tuple[str, tuple[int, int, int]]:
    return ("repeat" if row[NPARAM] else "count"), (row[MODE], row[DTYPE], 0)


def _bind_select(row: tuple, profile: object) -> tuple[str, tuple[int, int, int]]:
    """Mode 1 takes a scalar src1; level-0 rows have the repeat form's params."""
    form = "scalar" if row[MODE] == SELMODE.VSEL_TENSOR_SCALAR_MODE else "count"
    if row[NPARAM]:
        form = "scalar_repeat" if form == "scalar" else "repeat"
    return form, (row[MODE], row[DTYPE], 0)


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
    signatures=_cmp_signatures(True),
    work=Work({"count": compare_count, "repeat": compare_repeat}, bind=_bind_compare),
    cpp=(CppDecl("template <typename T, typename U>\n__aicore__ void Compare(const "
                 "LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, "
                 "CMPMODE cmpMode, uint32_t count);"),
         *(CppDecl("template <typename T, typename U, bool isSetMask = true>\n__aicore__ void "
                   "Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, "
                   f"const LocalTensor<T> &src1, CMPMODE cmpMode, {mask}, "
                   "uint8_t repeatTime, const BinaryRepeatParams &repeatParams);")
           for mask in ("const uint64_t mask", "const uint64_t mask[]"))),
    doc="element-wise comparison of two tensors into a bit mask")
_COMPARES = register(
    "CompareScalar", family="vector", pipe=PIPE_V,
    operands=(Operand("dst", _BIT, True), Operand("src0", _ELEMENT),
              Operand("src1Scalar", AccessPattern.NONE)),
    dataflow=Dataflow.COMPARE, cost=Cost(CostKind.VECTOR, "CompareScalar"),
    signatures=_cmp_signatures(False),
    work=Work({"count": compare_scalar_count, "repeat": compare_scalar_repeat},
              bind=_bind_compare),
    cpp=tuple(CppDecl(f"template <typename T, typename U>\n__aicore__ void {name}(const "
                      "LocalTensor<U> &dst, const LocalTensor<T> &src0, const ScalarT<T> "
                      "src1Scalar, CMPMODE cmpMode, uint32_t count);")
              for name in ("CompareScalar", "Compares")) + tuple(
        CppDecl(f"template <typename T, typename U, bool isSetMask = true>\n__aicore__ void "
                f"{name}(const LocalTensor<U> &dst, const LocalTensor<T> &src0, "
                f"const ScalarT<T> src1Scalar, CMPMODE cmpMode, {mask}, uint8_t repeatTime, "
                "const UnaryRepeatParams &repeatParams);")
        for name in ("CompareScalar", "Compares")
        for mask in ("const uint64_t mask", "const uint64_t mask[]")),
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
    work=Work({"count": select_count, "scalar": select_scalar_count,
               "repeat": select_repeat, "scalar_repeat": select_scalar_repeat},
              bind=_bind_select),
    cpp=(CppDecl("template <typename T, typename U>\n__aicore__ void Select(const LocalTensor<T> "
                 "&dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, const "
                 "LocalTensor<T> &src1, SELMODE selMode, uint32_t count);"),
         CppDecl("template <typename T, typename U>\n__aicore__ void Select(const LocalTensor<T> "
                 "&dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, "
                 "ScalarT<T> src1, SELMODE selMode, uint32_t count);"),
         *(CppDecl("template <typename T, typename U, bool isSetMask = true>\n__aicore__ void "
                   "Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, "
                   f"const LocalTensor<T> &src0, {src1}, SELMODE selMode, {mask}, "
                   "uint8_t repeatTime, const BinaryRepeatParams &repeatParams);")
           for src1 in ("const LocalTensor<T> &src1", "T src1")
           for mask in ("const uint64_t mask", "const uint64_t mask[]"))),
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
        row = rec.vector_row2(ins.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                              nb // REPEAT_BYTES, m, bits, d, d + mb, a, a + nb)
    else:
        b, bits = other.addr, 0
        row = rec.vector_row3(ins.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                              nb // REPEAT_BYTES, m, 0, d, d + mb, a, a + nb, b, b + nb)
    core.records.append(row)
    if not n:
        return
    if core.batch is not None and _defer_count(core, ins, row):
        return
    args = (m, dt.code, int(use_scalar), core.ub, core.views[dt.code], d, a >> dt.shift,
            b >> dt.shift, bits, count)
    run_on_pipe(core, PIPE_V, _entry(compare_loop, args), args)


def _compare_front(name: str, ins):
    def call(dst: LocalTensor, src0: LocalTensor, other: object, cmpMode: CMPMODE, *rest,
             _f=None) -> None:
        f = _f or sys._getframe(1)
        if len(rest) == 1:
            return _compare(name, ins, dst, src0, other, cmpMode, rest[0], f)
        return _compare_level0(name, ins, dst, src0, other, cmpMode, rest, f)
    return call


_compare_call = _compare_front("Compare", _COMPARE)
_compare_scalar_call = _compare_front("CompareScalar", _COMPARES)
_compare_call.__doc__ = ("`Compare(dstMask, src0, src1, cmpMode, count)` or the level-0 form "
                         "`Compare(dstMask, src0, src1, cmpMode, mask, repeatTime, "
                         "BinaryRepeatParams)`.")
_compare_scalar_call.__doc__ = ("`CompareScalar(dstMask, src0, scalar, cmpMode, count)` (also "
                                "spelled `Compares`) or the level-0 form with (mask, "
                                "repeatTime, UnaryRepeatParams).")


# the modes Select tests per call, as module constants: an enum member's class attribute costs
# a few hundred ns (EnumType defines __getattr__, which slows every attribute of the class)
_SCALAR_MODE, _CMPMASK_SPR = SELMODE.VSEL_TENSOR_SCALAR_MODE, SELMODE.VSEL_CMPMASK_SPR


def _select(dst: LocalTensor, selMask: LocalTensor, src0: LocalTensor, src1: object,
            selMode: SELMODE, *rest, _f=None) -> None:
    """`Select(dst, selMask, src0, src1 | scalar, selMode, count)` or the level-0 form
    `Select(dst, selMask, src0, src1 | scalar, selMode, mask, repeatTime, BinaryRepeatParams)`."""
    f = _f or sys._getframe(1)
    if len(rest) != 1:
        return _select_level0(dst, selMask, src0, src1, selMode, rest, f)
    count = rest[0]
    if type(count) is not int:
        count = as_count(count)
    dt = dst.dtype
    mode = selMode if type(selMode) is SELMODE else SELMODE(int(selMode))
    scalar_mode = mode == _SCALAR_MODE
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
    mask_bytes = per_repeat // 8 if mode == _CMPMASK_SPR else (count + 7) // 8
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
        mask_bytes = per_repeat // 8 if mode == _CMPMASK_SPR else (count + 7) // 8
    core = dst.core
    if core.vmask is not None:
        count_form_done(core)  # the count form ends in Normal mode with a full mask
    tmp = core.tmp_ub
    tmp_bytes = temp_bytes(mode, dt)
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
    if core.batch is not None and _defer_count(core, _SELECT, row):
        return
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
        args = (int(mode), dt.code, 0, core.ub, core.uviews[dt.code], d >> sh, m,
                a >> sh, 0, row[rec.SCALAR], count, tmp)
    else:
        args = (int(mode), dt.code, 0, core.ub, core.uviews[dt.code], d >> sh, m,
                a >> sh, b >> sh, 0, count, tmp)
    run_on_pipe(core, PIPE_V, _entry(select_loop, args), args)


# ---- the level-0 form -------------------------------------------------------------------------

def _defer_count(core, ins, row: tuple) -> bool:
    """The deferred count form of Compare/CompareScalar/Select (batch.py; `defer_row`). Their
    `Work.bind` reads only NPARAM (0 here), MODE and DTYPE."""
    return defer_row(core, PIPE_V, ins, row, key=(row[rec.MODE], row[rec.DTYPE], len(row)))


def _run_row(core, ins, row: tuple) -> None:
    if core.batch is not None and defer_row(core, PIPE_V, ins, row):
        return
    form, lits = ins.work.bind(row, core.profile)
    ep = ins.work.entry(form, lits, len(row))
    run_on_pipe(core, PIPE_V, ep, (*lits, core.ub, NO_GM, rec.program_row(row)))


def _params(name: str, params: object, binary: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(block strides, repeat strides) of dst and the sources, or ParameterError."""
    if binary:
        if not isinstance(params, BinaryRepeatParams):
            raise ParameterError(f"{name}: the level-0 form takes BinaryRepeatParams, got "
                                 f"{params!r}")
        return ((params.dstBlkStride, params.src0BlkStride, params.src1BlkStride),
                (params.dstRepStride, params.src0RepStride, params.src1RepStride))
    if not isinstance(params, UnaryRepeatParams):
        raise ParameterError(f"{name}: the level-0 form takes UnaryRepeatParams, got "
                             f"{params!r}")
    return ((params.dstBlkStride, params.srcBlkStride),
            (params.dstRepStride, params.srcRepStride))


def _fit(core, f, name: str, repeat: int, operands: list, extent) -> int | None:
    """The repeats to run: all, or (check mode; an operand misaligned or past its tensor,
    reported) as many as keep every operand inside the UB; None: skip the call.
    `operands` = (role, tensor), `extent(k, repeat)` = bytes operand k spans."""
    for k, (role, t) in enumerate(operands):
        need = extent(k, repeat)
        if t.addr & 31 or need > t.size * t.dtype.size:
            err = operand_error(name, -(-need // t.dtype.size), ((role, t),))
            if recover_count(core, err, f, 0, (), name) is None:
                return None
            while repeat and any(x.addr + extent(i, repeat) > core.ub.size
                                 for i, (_, x) in enumerate(operands)):
                repeat -= 1
            break
    return repeat


def _check_repeat(name: str, repeat: object) -> int:
    repeat = as_count(repeat, "repeatTime")
    if not 0 <= repeat <= MAX_REPEAT_TIMES:
        raise ParameterError(f"{name}: repeatTime {repeat} is out of range "
                             f"[0, {MAX_REPEAT_TIMES}]")
    return repeat


def _compare_level0(name: str, ins, dst: LocalTensor, src0: LocalTensor, other: object,
                    cmpMode: object, rest: tuple, f) -> None:
    core = core_of(dst, src0)
    use_scalar = not isinstance(other, LocalTensor)
    if len(rest) != 3:
        return fault(core, ParameterError(
            f"{name}: expected (..., cmpMode, count) or (..., cmpMode, mask, repeatTime, "
            f"repeatParams), got {len(rest)} trailing argument(s)"), f, instruction=name)
    _mask, repeat, params = rest   # the mask is reserved on A2: neither used nor written
    dt = getattr(src0, "dtype", None)
    try:
        mode = CMPMODE(int(cmpMode))
        if dt not in CMP_DTYPES or (not use_scalar and other.dtype is not dt):
            raise ParameterError(f"{name}: sources must be half, float or int32_t (one dtype), "
                                 f"got {dt}" + ("" if use_scalar else f" and {other.dtype}"))
        if dt is int32_t and mode != CMPMODE.EQ:
            raise ParameterError(f"{name}: int32_t supports only CMPMODE.EQ on A2/A3, got "
                                 f"{mode.name}")
        if use_scalar and dst.dtype is not uint8_t:
            raise ParameterError(f"{name}: the level-0 form's dst is uint8_t, got {dst.dtype}")
        repeat = _check_repeat(name, repeat)
        blk, rep = _params(name, params, not use_scalar)
    except (ParameterError, ValueError) as e:
        return fault(core, e if isinstance(e, ParameterError) else ParameterError(
            f"{name}: {e}"), f, instruction=name)
    epb = 32 // dt.size
    per_repeat = 8 * epb
    srcs = [("src0", src0)] if use_scalar else [("src0", src0), ("src1", other)]

    def extent(k: int, n: int) -> int:
        if k == 0:
            return n * per_repeat // 8    # dense: the dst strides have no effect
        return strided_extent(n, epb, blk[k], rep[k], dt.size)

    repeat = _fit(core, f, name, repeat, [("dst", dst), *srcs], extent)
    if repeat is None:
        return
    d, a = dst.addr, src0.addr
    core = dst.core
    accesses = [W, MEM_UB, d, d + extent(0, repeat), STRIDED, MEM_UB, a, a + extent(1, repeat)]
    if use_scalar:
        bits = dt.scalar_bits(other)
        params_ = (-1, -1, blk[1], rep[1])
    else:
        bits = 0
        accesses += [STRIDED, MEM_UB, other.addr, other.addr + extent(2, repeat)]
        params_ = (-1, -1, blk[1], blk[2], rep[1], rep[2])
    row = rec.row(ins.id, PIPE_V, f.f_code, f.f_lasti, dt.code, repeat * per_repeat, repeat,
                  int(mode), bits, params_, tuple(accesses))
    core.records.append(row)
    if repeat:
        _run_row(core, ins, row)


def _select_level0(dst: LocalTensor, selMask: LocalTensor, src0: LocalTensor, src1: object,
                   selMode: object, rest: tuple, f) -> None:
    core = core_of(dst, src0)
    if len(rest) != 3:
        return fault(core, ParameterError(
            "Select: expected (..., selMode, count) or (..., selMode, mask, repeatTime, "
            f"repeatParams), got {len(rest)} trailing argument(s)"), f, instruction="Select")
    mask, repeat, params = rest
    dt = getattr(dst, "dtype", None)
    try:
        mode = SELMODE(int(selMode))
        scalar_mode = mode == _SCALAR_MODE
        if scalar_mode == isinstance(src1, LocalTensor):
            raise ParameterError(f"Select: {mode.name} takes "
                                 + ("a scalar src1" if scalar_mode else "a tensor src1"))
        if dt not in SELECT_DTYPES or src0.dtype is not dt or (
                not scalar_mode and src1.dtype is not dt):
            raise ParameterError(f"Select: dst and sources must share half or float, got {dt}, "
                                 f"{src0.dtype}" + ("" if scalar_mode else f", {src1.dtype}"))
        repeat = _check_repeat("Select", repeat)
        blk, rep = _params("Select", params, True)
        if blk[0] == 0:
            raise ParameterError("Select: dstBlkStride 0 is undefined on hardware")
        # the library sets the mask whatever isSetMask says (it is reserved)
        lo, hi, counted = level0_mask(core, "Select", dt, mask, True)
    except (ParameterError, ValueError) as e:
        return fault(core, e if isinstance(e, ParameterError) else ParameterError(
            f"Select: {e}"), f, instruction="Select")
    n_strided = 2 if scalar_mode else 3
    blk, rep = blk[:n_strided], rep[:n_strided]
    epb = 32 // dt.size
    per_repeat = 8 * epb
    repeat = counter_repeats(core, f, "Select", dt, counted, repeat)
    strided = [("dst", dst), ("src0", src0)] + ([] if scalar_mode else [("src1", src1)])

    def extent(k: int, n: int) -> int:
        total = lane_count(counted, n, epb)
        if k == len(strided):   # selMask: E bits in mode 0, E per repeat in modes 1 and 2
            used = min(per_repeat, total) if mode == _CMPMASK_SPR else total
            return (used + 7) // 8
        return strided_extent(n, epb, blk[k], rep[k], dt.size, total)

    repeat = _fit(core, f, "Select", repeat, [*strided, ("selMask", selMask)], extent)
    if repeat is None:
        return
    core = dst.core
    total = lane_count(counted, repeat, epb)
    tmp = core.tmp_ub
    d, m, a = dst.addr, selMask.addr, src0.addr
    accesses = [W | STRIDED, MEM_UB, d, d + extent(0, repeat),
                W, MEM_UB, tmp, tmp + temp_bytes(mode, dt),
                0, MEM_UB, m, m + extent(len(strided), repeat),
                STRIDED, MEM_UB, a, a + extent(1, repeat)]
    if not scalar_mode:
        accesses += [STRIDED, MEM_UB, src1.addr, src1.addr + extent(2, repeat)]
    row = rec.row(_SELECT.id, PIPE_V, f.f_code, f.f_lasti, dt.code, total, repeat, int(mode),
                  dt.scalar_bits(src1) if scalar_mode else 0,
                  (rec.signed64(lo), rec.signed64(hi), *blk, *rep), tuple(accesses))
    core.records.append(row)
    if repeat and core.sanitizer is not None:
        _check_strided_overlap(core, f, "Select", repeat, dt.size,
                               tuple(t for _, t in strided), blk, rep, lo, hi)
    _run_row(core, _SELECT, row)   # the temp write happens even for no repeats


# ---- template arguments: Name[T, U] / Name[T, U, isSetMask] ------------------------------------

def _templated(name: str, call, dtype_args: tuple[tuple[int, str], ...]):
    """`call` as a kernel-facing function that also takes `[T, U]` / `[T, U, isSetMask]`
    (`dtype_args`: the operands T and U describe; Compare's T is the sources'
    dtype and U dst's, Select's T dst's and U selMask's). The count form takes no isSetMask; Compare
    ignores it and Select always sets its mask (both reserved on A2)."""
    def run(f, is_set_mask: bool, *args):
        if len(args) == 5 and not is_set_mask:
            return count_form_refusal(name, core_of(*args[:3]), f)
        return call(*args, _f=f)

    call.__name__ = call.__qualname__ = name
    return templated(call, run, dtype_args)


Compare = _templated("Compare", _compare_call, ((1, "src0"), (0, "dst")))
CompareScalar = _templated("CompareScalar", _compare_scalar_call, ((1, "src0"), (0, "dst")))
Compares = CompareScalar
Select = _templated("Select", _select, ((0, "dst"), (1, "selMask")))
