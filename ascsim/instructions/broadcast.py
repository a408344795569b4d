"""`Brcb(dst, src, repeatTime, BrcbRepeatParams(dstBlkStride, dstRepStride))`: each of 8
source elements fills one 32-byte DataBlock (ascendc_more.md §5, ASC `MV/数据填充/Brcb.md`).

Repeat r reads src[8r .. 8r+7] (contiguous) and fills the DataBlock at
`dst + (r * dstRepStride + j * dstBlkStride) * 32` with src[8r + j], bit for bit. Types: the
16- and 32-bit ones (half, bfloat16_t, (u)int16, (u)int32, float). dstBlkStride 0 is undefined
on hardware and refused; repeatTime is a uint8. dst and src must not overlap (the sanitizer
reports it). Brcb takes no mask and ends with `ResetMask()`: a full mask, the mode kept
(§2.2).

Sanitizer: dst is recorded as a strided element-wise operand with a full mask (the DataBlocks
above, exact), src as its exact contiguous bytes; initcheck uses the conservative GATHER rule
(an uninitialised source element marks every block the call writes).
"""

from __future__ import annotations

import sys

from numba import literally, njit

from .. import records as rec
from ..core import MEM_UB, PIPE_V
from ..dtypes import bfloat16_t, float, half, int16_t, int32_t, uint16_t, uint32_t
from ..errors import OutOfRangeError, ParameterError
from ..faults import fault, note
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
from .common import MAX_REPEAT_TIMES, RepeatParams, as_count, core_of, operand_error
from .elementwise import _run_row
from .vmask import FULL, mask_state, strided_extent, templated
from .worklib import shift, uview

__all__ = ["Brcb", "BrcbRepeatParams", "BRCB_DTYPES", "no_overlap"]
KERNEL_SURFACE = ("Brcb", "BrcbRepeatParams")

BRCB_DTYPES = (int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float)


class BrcbRepeatParams(RepeatParams):
    """`BrcbRepeatParams(dstBlkStride, dstRepStride)`, in 32-byte DataBlocks."""

    __slots__ = ("dstBlkStride", "dstRepStride")
    _defaults = (1, 8)


_LO, _HI, (_BD, _BS), (_RD, _RS), (_SD, _SS) = repeat_fields(2)


@njit(cache=True, nogil=True, error_model="numpy")
def brcb_repeat(code, _b, _c, ub, gm, row):
    literally(code)
    v = uview(code, ub)
    epb = 32 >> shift(code)
    blk, rep = row[_BD], row[_RD]
    d = row[_SD] >> shift(code)
    s = row[_SS] >> shift(code)
    for r in range(row[REPEATS]):
        for j in range(8):
            x = v[s + 8 * r + j]
            base = d + (r * rep + j * blk) * epb
            for k in range(epb):
                v[base + k] = x


_BRCB = register(
    "Brcb", family="vector", pipe=PIPE_V,
    operands=(Operand("dst", AccessPattern.ELEMENTWISE, True),
              Operand("src", AccessPattern.ELEMENTWISE)),
    dataflow=Dataflow.GATHER, cost=Cost(CostKind.VECTOR, "Brcb"),
    signatures=tuple(Signature((t, t)) for t in BRCB_DTYPES),
    work=Work({"repeat": brcb_repeat}, bind=lambda row, profile: ("repeat", (row[DTYPE], 0, 0))),
    cpp=(CppDecl("template <typename T>\n__aicore__ void Brcb(const LocalTensor<T> &dst, "
                 "const LocalTensor<T> &src, const uint8_t repeatTime, "
                 "const BrcbRepeatParams &repeatParams);"),),
    doc="8 source elements per repeat, each broadcast to one 32-byte DataBlock of dst")


def no_overlap(core, f, name: str, d0: int, d1: int, s0: int, s1: int,
               role: str = "src") -> None:
    """Report any overlap of dst [d0, d1) and a source [s0, s1): instructions that allow none
    (sanitizer only; the work still runs, reading each source before writing)."""
    if core is None or core.sanitizer is None or not (d0 < s1 and s0 < d1):
        return
    note(core, ParameterError(
        f"{name}: dst UB [{d0}, {d1}) and {role} UB [{s0}, {s1}) overlap; {name} allows no "
        "overlap of its operands"), f, instruction=name, memory="UB", start=max(d0, s0),
        end=min(d1, s1), write=True, check="address overlap")


def _brcb(dst: LocalTensor, src: LocalTensor, repeatTime: int, repeatParams: BrcbRepeatParams,
          _f=None) -> None:
    """`Brcb(dst, src, repeatTime, BrcbRepeatParams(dstBlkStride, dstRepStride))`."""
    f = _f or sys._getframe(1)
    core = core_of(dst, src)
    dt = getattr(dst, "dtype", None)
    if dt not in BRCB_DTYPES or getattr(src, "dtype", None) is not dt:
        return fault(core, ParameterError(
            "Brcb: dst and src must share one 16- or 32-bit dtype {"
            + ", ".join(map(str, BRCB_DTYPES)) + f"}}, got ({dt}, {getattr(src, 'dtype', src)})"),
            f, instruction="Brcb")
    if not isinstance(repeatParams, BrcbRepeatParams):
        return fault(core, ParameterError(f"Brcb: takes BrcbRepeatParams, got {repeatParams!r}"),
                     f, instruction="Brcb")
    repeat = as_count(repeatTime, "repeatTime")
    if not 0 <= repeat <= MAX_REPEAT_TIMES:
        return fault(core, ParameterError(f"Brcb: repeatTime {repeat} is out of range "
                                          f"[0, {MAX_REPEAT_TIMES}]"), f, instruction="Brcb")
    blk, rep = repeatParams.dstBlkStride, repeatParams.dstRepStride
    if blk == 0:
        return fault(core, ParameterError("Brcb: dstBlkStride 0 is undefined on hardware"), f,
                     instruction="Brcb")
    if not (0 < blk <= 65535 and 0 <= rep <= 255):
        return fault(core, ParameterError(f"Brcb: dstBlkStride {blk} / dstRepStride {rep} out "
                                          "of range (uint16 / uint8)"), f, instruction="Brcb")
    epb = 32 // dt.size
    d_extent = strided_extent(repeat, epb, blk, rep, dt.size)
    s_extent = 8 * repeat * dt.size
    for role, t, need in (("dst", dst, d_extent), ("src", src, s_extent)):
        if t.addr & 31 or need > t.size * dt.size:
            err = operand_error("Brcb", need // dt.size, ((role, t),))
            if isinstance(err, OutOfRangeError) and role == "dst":
                err = OutOfRangeError(
                    f"Brcb: {repeat} repeats at dstBlkStride {blk}, dstRepStride {rep} reach "
                    f"{d_extent} bytes of dst, but the tensor has {t.size * dt.size}",
                    buffer=t.origin, byte_range=f"UB [{t.addr}, {t.addr + d_extent})",
                    tensor_range=f"UB [{t.addr}, {t.addr + t.size * dt.size})")
            return fault(core, err, f, instruction="Brcb")
    core = dst.core
    counter, _, _ = mask_state(core)
    core.vmask = (True, FULL, FULL) if counter else None  # ResetMask(): full mask, mode kept
    row = rec.row(_BRCB.id, PIPE_V, f.f_code, f.f_lasti, dt.code, repeat * 8 * epb, repeat, 0,
                  0, (rec.signed64(FULL), rec.signed64(FULL), blk, 1, rep, 1),
                  (W | STRIDED, MEM_UB, dst.addr, dst.addr + d_extent,
                   0, MEM_UB, src.addr, src.addr + s_extent))
    core.records.append(row)
    if repeat == 0:
        return
    if core.sanitizer is not None:
        no_overlap(core, f, "Brcb", dst.addr, dst.addr + d_extent, src.addr,
                   src.addr + s_extent)
    form, lits = _BRCB.work.bind(row, core.profile)
    _run_row(core, _BRCB.work, form, lits, row)


_brcb.__name__ = _brcb.__qualname__ = "Brcb"
Brcb = templated(_brcb, lambda f, _is_set_mask, *args: _brcb(*args, _f=f), set_mask=False)
