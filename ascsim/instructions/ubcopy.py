"""`Copy(dst, src, mask, repeatTime, CopyRepeatParams(dstStride, srcStride, dstRepeatSize,
srcRepeatSize))`: the masked UB->UB vector copy (ascendc_more.md §5, ASC
`MV/数据搬运/Copy（UBToUB连续数据搬运）.md`).

A2 has only this level-0 form: the count form `Copy(dst, src, count)` is "not supported" there
and is refused with an error that names DataCopy, the call for plain UB->UB moves.

Layout: the repeat form of every vector instruction (element j of DataBlock b of repeat r at
`base + (r * RepeatSize + b * Stride) * 32 + j * sizeof(T)`, strides in 32-byte DataBlocks, the
repeat sizes at most 4095); lanes whose mask bit is 0 keep dst's bytes. Elements are moved as
bits (NaN payloads, -0.0 and subnormals unchanged); a repeat is read before it is written.

Counter mode: unlike the arithmetic instructions, Copy keeps repeatTime in Counter mode and
takes the count in the mask register *per repeat* (§5: "the mask is per repeat and repeatTime
still applies"); ascsim runs lanes [0, n) of each of the repeatTime repeats. A count larger
than one repeat's E = 256 / sizeof(T) lanes is not documented and is refused.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import literally, njit

from .. import records as rec
from ..core import MEM_UB, PIPE_V
from ..dtypes import bfloat16_t, float, half, int16_t, int32_t, uint16_t, uint32_t
from ..errors import ParameterError
from ..faults import fault
from ..memory import LocalTensor
from ..records import DTYPE, REPEATS, STRIDED, W, repeat_fields
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
from .common import MAX_REPEAT_TIMES, RepeatParams, as_count, core_of
from .elementwise import _check_strided_overlap, _fit_repeats, _run_row
from .vmask import FULL, level0_mask, set_mask_bits, strided_extent, templated
from .worklib import element_offset, enabled, shift, uview

__all__ = ["Copy", "CopyRepeatParams", "COPY_DTYPES"]
KERNEL_SURFACE = ("Copy", "CopyRepeatParams")

COPY_DTYPES = (int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float)
MAX_REPEAT_SIZE = 4095


class CopyRepeatParams(RepeatParams):
    """`CopyRepeatParams(dstStride, srcStride, dstRepeatSize, srcRepeatSize)`: uint16 each, in
    32-byte DataBlocks (block strides within a repeat; distances between repeat starts)."""

    __slots__ = ("dstStride", "srcStride", "dstRepeatSize", "srcRepeatSize")
    _defaults = (1, 1, 8, 8)


# ---- work ------------------------------------------------------------------------------------
_LO, _HI, (_BD, _BS), (_RD, _RS), (_SD, _SS) = repeat_fields(2)


@njit(cache=True, nogil=True, error_model="numpy")
def copy_repeat(code, _b, _c, ub, gm, row):
    """Repeats of 8 DataBlocks, the enabled lanes moved as bits (each repeat read, then
    written)."""
    literally(code)
    v = uview(code, ub)
    epb = 32 >> shift(code)
    per_repeat = 8 * epb
    lo, hi = row[_LO], row[_HI]
    dblk, sblk, drep, srep = row[_BD], row[_BS], row[_RD], row[_RS]
    doff = row[_SD] >> shift(code)
    soff = row[_SS] >> shift(code)
    out = np.empty(per_repeat, dtype=v.dtype)
    for r in range(row[REPEATS]):
        for j in range(per_repeat):
            if enabled(j, lo, hi):
                out[j] = v[element_offset(j, epb, sblk, soff + r * srep * epb)]
        for j in range(per_repeat):
            if enabled(j, lo, hi):
                v[element_offset(j, epb, dblk, doff + r * drep * epb)] = out[j]


_ELEMENT = AccessPattern.ELEMENTWISE
_COPY = register(
    "Copy", family="vector", pipe=PIPE_V,
    operands=(Operand("dst", _ELEMENT, True), Operand("src", _ELEMENT)),
    dataflow=Dataflow.ELEMENTWISE, cost=Cost(CostKind.VECTOR, "Copy"),
    signatures=tuple(Signature((t, t)) for t in COPY_DTYPES),
    work=Work({"repeat": copy_repeat}, bind=lambda row, profile: ("repeat", (row[DTYPE], 0, 0))),
    cpp=(CppDecl("template <typename T, bool isSetMask = true>\n__aicore__ void Copy("
                 "const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask, "
                 "const uint8_t repeatTime, const CopyRepeatParams &repeatParams);"),
         CppDecl("template <typename T, bool isSetMask = true>\n__aicore__ void Copy("
                 "const LocalTensor<T> &dst, const LocalTensor<T> &src, "
                 "const uint64_t mask[], const uint8_t repeatTime, "
                 "const CopyRepeatParams &repeatParams);")),
    doc="masked UB->UB copy in repeats of 8 DataBlocks (A2: level-0 form only)")


def _copy(dst: LocalTensor, src: LocalTensor, *rest, _f=None, is_set_mask: bool = True
          ) -> None:
    """`Copy(dst, src, mask, repeatTime, CopyRepeatParams(...))`."""
    f = _f or sys._getframe(1)
    core = core_of(dst, src)
    if len(rest) == 1:
        return fault(core, ParameterError(
            "Copy: the count form Copy(dst, src, count) is not supported on Atlas A2 (only the "
            "masked repeat form is); use DataCopy(dst, src, count) for a UB->UB move"), f,
            instruction="Copy")
    if len(rest) != 3:
        return fault(core, ParameterError(
            "Copy: expected (dst, src, mask, repeatTime, CopyRepeatParams), got "
            f"{len(rest)} trailing argument(s)"), f, instruction="Copy")
    mask, repeat, params = rest
    dt = getattr(dst, "dtype", None)
    if dt not in COPY_DTYPES or getattr(src, "dtype", None) is not dt:
        return fault(core, ParameterError(
            "Copy: dst and src must share one dtype from {"
            + ", ".join(map(str, COPY_DTYPES)) + f"}}, got ({dt}, {getattr(src, 'dtype', src)})"),
            f, instruction="Copy")
    if not isinstance(params, CopyRepeatParams):
        return fault(core, ParameterError(f"Copy: takes CopyRepeatParams, got {params!r}"), f,
                     instruction="Copy")
    repeat = as_count(repeat, "repeatTime")
    if not 0 <= repeat <= MAX_REPEAT_TIMES:
        return fault(core, ParameterError(f"Copy: repeatTime {repeat} is out of range "
                                          f"[0, {MAX_REPEAT_TIMES}]"), f, instruction="Copy")
    blk = (params.dstStride, params.srcStride)
    rep = (params.dstRepeatSize, params.srcRepeatSize)
    for what, v, top in (("dstStride", blk[0], 65535), ("srcStride", blk[1], 65535),
                         ("dstRepeatSize", rep[0], MAX_REPEAT_SIZE),
                         ("srcRepeatSize", rep[1], MAX_REPEAT_SIZE)):
        if not 0 <= v <= top:
            return fault(core, ParameterError(f"Copy: {what} {v} is out of range [0, {top}]"),
                         f, instruction="Copy")
    try:
        lo, hi, counted = level0_mask(core, "Copy", dt, mask, is_set_mask)
    except ParameterError as e:
        return fault(core, e, f, instruction="Copy")
    epb = 32 // dt.size
    if counted >= 0:  # Counter mode: the count applies to each repeat
        if counted > 8 * epb:
            return fault(core, ParameterError(
                f"Copy: Counter mode with {counted} elements per repeat, more than a repeat's "
                f"{8 * epb} lanes of {dt} (the per-repeat count of Copy's Counter mode is "
                "undocumented beyond one repeat)"), f, instruction="Copy")
        lo, hi = set_mask_bits(counted, dt) if counted else (0, 0)
        if counted == 8 * epb:
            lo, hi = FULL, FULL
    operands = (dst, src)
    repeat = _fit_repeats(core, f, "Copy", dt, epb, operands, blk, rep, repeat)
    if repeat is None:
        return
    if not (lo or hi):
        repeat = 0  # a mask of 0 is a NOP on A2
    total = repeat * 8 * epb
    accesses: list[int] = []
    for i, t in enumerate(operands):
        extent = strided_extent(repeat, epb, blk[i], rep[i], dt.size)
        accesses += [(W if i == 0 else 0) | STRIDED, MEM_UB, t.addr, t.addr + extent]
    core = dst.core
    row = rec.row(_COPY.id, PIPE_V, f.f_code, f.f_lasti, dt.code, total, repeat, 0, 0,
                  (rec.signed64(lo), rec.signed64(hi), *blk, *rep), tuple(accesses))
    core.records.append(row)
    if repeat == 0:
        return
    if core.sanitizer is not None:
        _check_strided_overlap(core, f, "Copy", repeat, dt.size, operands, blk, rep, lo, hi)
    form, lits = _COPY.work.bind(row, core.profile)
    _run_row(core, _COPY.work, form, lits, row)




_copy.__name__ = _copy.__qualname__ = "Copy"
Copy = templated(_copy, lambda f, is_set_mask, *args: _copy(*args, _f=f,
                                                              is_set_mask=is_set_mask))
