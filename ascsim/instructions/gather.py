"""`Gather` (byte-offset gather) and `GatherMask` (compacting select), ascendc_more.md §5 and §2.2.

**Gather** `Gather(dst, src, srcOffset, srcBaseAddr, count)` and the level-0 form
`Gather(dst, src, srcOffset, srcBaseAddr, mask, repeatTime, dstRepStride)`: dst[i] = the
element at byte `src + srcBaseAddr + srcOffset[i]` (srcOffset a uint32 LocalTensor of byte
offsets, each a multiple of sizeof(T)). Types: the 16- and 32-bit ones. A repeat covers
E = 256 / sizeof(T) lanes and consumes E offsets; in the level-0 form dst lane j of repeat r is
dst + r * dstRepStride * 32 + j * sizeof(T), under the mask (Normal mode) or spread over
repeats (Counter mode, repeatTime ignored). The count form runs count / E full repeats and a
masked tail; its repeat count is a uint8 in the library [CODE
kernel_operator_vec_gather_intf_impl.h], so from count >= 256 * E on it wraps: profile option
`gather_repeat_wrap` = "emulate" (default: only (count / E) mod 256 full repeats run, then the
tail; the elements in between are not written, and the sanitizer warns) or "none" (every
element). Offsets are checked against
the src tensor when the call is issued (sanitizer check mode: reported, out-of-UB elements
skipped); while the vector pipe is stalled by a WaitFlag the offsets are not yet final and are
checked only against the UB in the work. No operand may overlap dst.

**GatherMask** `GatherMask(dst, src0, src1Pattern, reduceMode, mask, GatherMaskParams(
src0BlockStride, repeatTimes, src0RepeatStride, src1RepeatStride), rsvdCnt)`: the lanes a pattern
selects, compacted LSB first, back to back into dst. src1Pattern is a built-in pattern
(uint8 1..7: even lanes, odd lanes, lane 0/1/2/3 of every 4, all) or a LocalTensor of uint16
(16-bit T) / uint32 (32-bit T) whose bit j selects lane j, advancing src1RepeatStride DataBlocks
per repeat. reduceMode false: full repeats of E lanes (mask ignored); true: `mask` lanes per
repeat (repeatTimes * mask in total; a mask above E is not documented and is refused).
`rsvdCnt` (C++ `uint64_t&`): the call returns the count written, and when given a one-element
list also stores it in rsvdCnt[0]. Afterwards the mask register is (0, mask) in Normal mode.
The count is computed from the UB when the call is issued; the record's dst access is the
upper bound (every lane selected), since the bytes written depend on the pattern's data.

Sanitizer: both use the GATHER dataflow (dst uninitialised wherever any source byte read is);
Gather's src is a DATA_DEPENDENT access covering the whole src tensor (which bytes are read
depends on the offsets).
"""

from __future__ import annotations

import sys

import numpy as np
from numba import literally, njit

from .. import records as rec
from ..core import MEM_UB, PIPE_V, settle_memory
from ..dtypes import (
    DType,
    bfloat16_t,
    float,
    half,
    int16_t,
    int32_t,
    uint8_t,
    uint16_t,
    uint32_t,
)
from ..errors import OutOfRangeError, ParameterError
from ..faults import fault, note
from ..findings import WARNING
from ..memory import LocalTensor
from ..records import COUNT, DTYPE, MODE, NPARAM, REPEATS, SCALAR, W, param_fields
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
from .common import MAX_REPEAT_TIMES, RepeatParams, as_count, core_of, operand_error
from .elementwise import _run_row
from .vmask import counter_repeats, lane_count, level0_mask, templated
from .worklib import enabled, lanes, shift, uview

__all__ = ["Gather", "GatherMask", "GatherMaskParams", "GATHER_DTYPES", "BUILTIN_PATTERNS"]
KERNEL_SURFACE = ("Gather", "GatherMask", "GatherMaskParams")

GATHER_DTYPES = (int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float)


# ---- Gather ----------------------------------------------------------------------------------
# count form params: (elements written before the wrap gap, first element after it)
_C_HEAD, _C_TAIL = param_fields(2)
_C_DST, _C_SRC, _C_OFF = (rec.access_fields(2, k)[2] for k in range(3))
_C_SRC_END = rec.access_fields(2, 1)[3]
# level-0 params: (mask_lo, mask_hi, dstRepStride)
_R_LO, _R_HI, _R_DREP = param_fields(3)
_R_DST, _R_SRC, _R_OFF = (rec.access_fields(3, k)[2] for k in range(3))


@njit(cache=True, nogil=True, error_model="numpy")
def _fetch(v, ub, code_shift, size, d, b):
    """dst element d <- the element at UB byte b (skipped outside the UB: reported already)."""
    if 0 <= b and b + size <= ub.size:
        v[d] = v[b >> code_shift]


@njit(cache=True, nogil=True, error_model="numpy")
def gather_count(code, _b, _c, ub, gm, row):
    literally(code)
    v = uview(code, ub)
    sh = shift(code)
    size = 1 << sh
    offs = ub.view(np.uint32)
    d = row[_C_DST] >> sh
    o = row[_C_OFF] >> 2
    base = row[_C_SRC] + row[SCALAR]
    head, tail = row[_C_HEAD], row[_C_TAIL]
    for i in range(row[COUNT]):
        if i < head or i >= tail:
            _fetch(v, ub, sh, size, d + i, base + np.int64(offs[o + i]))


@njit(cache=True, nogil=True, error_model="numpy")
def gather_repeat(code, _b, _c, ub, gm, row):
    literally(code)
    v = uview(code, ub)
    sh = shift(code)
    size = 1 << sh
    per_repeat = 256 >> sh
    offs = ub.view(np.uint32)
    d = row[_R_DST] >> sh
    o = row[_R_OFF] >> 2
    base = row[_R_SRC] + row[SCALAR]
    lo, hi, drep = row[_R_LO], row[_R_HI], row[_R_DREP]
    for r in range(row[REPEATS]):
        for j in range(lanes(r, per_repeat, row[COUNT])):
            if enabled(j, lo, hi):
                _fetch(v, ub, sh, size, d + r * drep * (32 >> sh) + j,
                       base + np.int64(offs[o + r * per_repeat + j]))


_GATHER = register(
    "Gather", family="vector", pipe=PIPE_V,
    operands=(Operand("dst", AccessPattern.ELEMENTWISE, True),
              Operand("src", AccessPattern.DATA_DEPENDENT),
              Operand("srcOffset", AccessPattern.ELEMENTWISE),
              Operand("srcBaseAddr", AccessPattern.NONE)),
    dataflow=Dataflow.GATHER, cost=Cost(CostKind.VECTOR, "Gather"),
    signatures=tuple(Signature((t, t, uint32_t, uint32_t)) for t in GATHER_DTYPES),
    work=Work({"count": gather_count, "repeat": gather_repeat},
              bind=lambda row, profile: ("repeat" if row[NPARAM] == 3 else "count",
                                         (row[DTYPE], 0, 0))),
    cpp=(CppDecl("template <typename T>\n__aicore__ void Gather(const LocalTensor<T> &dst, "
                 "const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset, "
                 "const uint32_t srcBaseAddr, const uint32_t count);"),
         CppDecl("template <typename T>\n__aicore__ void Gather(const LocalTensor<T> &dst, "
                 "const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset, "
                 "const uint32_t srcBaseAddr, const uint64_t mask, const uint8_t repeatTime, "
                 "const uint16_t dstRepStride);"),
         CppDecl("template <typename T>\n__aicore__ void Gather(const LocalTensor<T> &dst, "
                 "const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset, "
                 "const uint32_t srcBaseAddr, const uint64_t mask[], const uint8_t repeatTime, "
                 "const uint16_t dstRepStride);")),
    doc="dst[i] = the element at byte src + srcBaseAddr + srcOffset[i]")


def _check_offsets(core, f, src: LocalTensor, off: LocalTensor, base: int, idx: np.ndarray,
                   size: int) -> bool:
    """The offsets the call uses (element indices `idx` of srcOffset) against the src tensor;
    False when the call must not run (raised or reported)."""
    if core.stalled & (1 << PIPE_V) or idx.size == 0:
        return True  # not final yet: the work skips anything outside the UB
    settle_memory(core)
    o = core.ub[off.addr:off.addr + 4 * (int(idx.max()) + 1)].view(np.uint32)[idx]
    byte = o.astype(np.int64) + base
    bad_align = byte % size != 0
    bad_range = (byte < 0) | (byte + size > src.size * size)
    if not (bad_align.any() or bad_range.any()):
        return True
    k = int(np.flatnonzero(bad_align | bad_range)[0])
    i, b = int(idx[k]), int(byte[k])
    if bad_align[k]:
        err: Exception = ParameterError(
            f"Gather: srcOffset[{i}] + srcBaseAddr = {b} bytes is not a multiple of "
            f"sizeof(T) = {size}")
    else:
        err = OutOfRangeError(
            f"Gather: srcOffset[{i}] + srcBaseAddr = {b} bytes reads outside src "
            f"({src.size * size} bytes)", buffer=src.origin,
            byte_range=f"UB [{src.addr + b}, {src.addr + b + size})",
            tensor_range=f"UB [{src.addr}, {src.addr + src.size * size})")
    fault(core, err, f, instruction="Gather")
    return True  # check mode: reported; elements outside the UB are skipped by the work


def _gather(dst: LocalTensor, src: LocalTensor, srcOffset: LocalTensor, srcBaseAddr: int,
            *rest, _f=None) -> None:
    """`Gather(dst, src, srcOffset, srcBaseAddr, count)` or
    `Gather(dst, src, srcOffset, srcBaseAddr, mask, repeatTime, dstRepStride)`."""
    f = _f or sys._getframe(1)
    name = "Gather"
    core = core_of(dst, src, srcOffset)
    dt = getattr(dst, "dtype", None)
    if dt not in GATHER_DTYPES or getattr(src, "dtype", None) is not dt:
        return fault(core, ParameterError(
            "Gather: dst and src must share one 16- or 32-bit dtype {"
            + ", ".join(map(str, GATHER_DTYPES)) + f"}}, got ({dt}, {getattr(src, 'dtype', src)})"),
            f, instruction=name)
    if getattr(srcOffset, "dtype", None) is not uint32_t:
        return fault(core, ParameterError(
            f"Gather: srcOffset must be a LocalTensor<uint32_t>, got "
            f"{getattr(srcOffset, 'dtype', srcOffset)}"), f, instruction=name)
    base = as_count(srcBaseAddr, "srcBaseAddr")
    if not 0 <= base < 2**32:
        return fault(core, ParameterError(f"Gather: srcBaseAddr {base} is not a uint32"), f,
                     instruction=name)
    size = dt.size
    per_repeat = 256 // size
    if len(rest) == 1:
        count = as_count(rest[0])
        for role, t, need in (("dst", dst, count * size), ("srcOffset", srcOffset, count * 4),
                              ("src", src, 0)):
            if count < 0 or t.addr & 31 or need > t.size * t.dtype.size:
                return fault(core, operand_error(name, count, ((role, t),),
                                                 elem_size=need // max(count, 1) or None),
                             f, instruction=name)
        full, tail = divmod(count, per_repeat)
        head_end, tail_start = count, count
        if core.profile.gather_repeat_wrap == "emulate" and full > MAX_REPEAT_TIMES:
            head_end, tail_start = (full & 255) * per_repeat, full * per_repeat
            note(core, ParameterError(
                f"Gather: count {count} needs {full} full repeats, but the count form's repeat "
                f"count is a uint8: only {full & 255} run, elements [{head_end}, {tail_start}) "
                "of dst are not written (profile option gather_repeat_wrap = emulate)"), f,
                severity=WARNING, instruction=name)
        used = np.concatenate([np.arange(head_end), np.arange(tail_start, count)]).astype(
            np.int64)
        if not _check_offsets(core, f, src, srcOffset, base, used, size):
            return
        repeats = (head_end + per_repeat - 1) // per_repeat + (1 if tail_start < count else 0)
        row = rec.row(_GATHER.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count, repeats, 0,
                      base, (head_end, tail_start),
                      (W, MEM_UB, dst.addr, dst.addr + count * size,
                       0, MEM_UB, src.addr, src.addr + src.size * size,
                       0, MEM_UB, srcOffset.addr, srcOffset.addr + 4 * count))
        core = dst.core
        if core.vmask is not None:
            core.vmask = None  # a count form ends in Normal mode with a full mask
    elif len(rest) == 3:
        mask, repeat, drep = rest
        repeat = as_count(repeat, "repeatTime")
        drep = as_count(drep, "dstRepStride")
        if not 0 <= repeat <= MAX_REPEAT_TIMES or not 0 <= drep <= 65535:
            return fault(core, ParameterError(
                f"Gather: repeatTime {repeat} / dstRepStride {drep} out of range [0, 255] / "
                "[0, 65535]"), f, instruction=name)
        try:
            lo, hi, counted = level0_mask(core, name, dt, mask, True)
        except ParameterError as e:
            return fault(core, e, f, instruction=name)
        repeat = counter_repeats(core, f, name, dt, counted, repeat)
        total = lane_count(counted, repeat, per_repeat // 8)
        bits = lo | hi << 64
        on = [j for j in range(per_repeat) if (bits >> j) & 1]
        last_lane = max(on) + 1 if on else 0
        if repeat and counted >= 0:
            d_extent = ((repeat - 1) * drep * 32 // size + min(per_repeat, total - (repeat - 1)
                                                               * per_repeat)) * size
            used = np.arange(total, dtype=np.int64)
        elif repeat and on:
            d_extent = ((repeat - 1) * drep * 32 // size + last_lane) * size
            used = (np.arange(repeat)[:, None] * per_repeat + np.array(on)[None, :]).reshape(-1)
        else:
            d_extent, used = 0, np.zeros(0, np.int64)
        off_extent = 4 * (int(used.max()) + 1) if used.size else 0
        for role, t, need in (("dst", dst, d_extent), ("srcOffset", srcOffset, off_extent),
                              ("src", src, 0)):
            if t.addr & 31 or need > t.size * t.dtype.size:
                return fault(core, operand_error(name, need // t.dtype.size, ((role, t),)), f,
                             instruction=name)
        if not _check_offsets(core, f, src, srcOffset, base, used, size):
            return
        row = rec.row(_GATHER.id, PIPE_V, f.f_code, f.f_lasti, dt.code, total, repeat, 0,
                      base, (rec.signed64(lo), rec.signed64(hi), drep),
                      (W, MEM_UB, dst.addr, dst.addr + d_extent,
                       0, MEM_UB, src.addr, src.addr + src.size * size,
                       0, MEM_UB, srcOffset.addr, srcOffset.addr + off_extent))
        core = dst.core
    else:
        return fault(core, ParameterError(
            "Gather: expected (dst, src, srcOffset, srcBaseAddr, count) or (..., mask, "
            "repeatTime, dstRepStride)"), f, instruction=name)
    core.records.append(row)
    acc = rec.accesses_of(row)
    if acc[0][3] == acc[0][2]:
        return
    if core.sanitizer is not None:
        for role, k in (("src", 1), ("srcOffset", 2)):
            no_overlap(core, f, name, acc[0][2], acc[0][3], acc[k][2], acc[k][3], role)
    form, lits = _GATHER.work.bind(row, core.profile)
    _run_row(core, _GATHER.work, form, lits, row)


# ---- GatherMask ------------------------------------------------------------------------------

class GatherMaskParams(RepeatParams):
    """`GatherMaskParams(src0BlockStride, repeatTimes, src0RepeatStride, src1RepeatStride)`:
    src0's block stride (uint8) and repeat stride (uint16) in 32-byte DataBlocks, the repeats
    (uint16; the hardware takes at most 255), and the pattern's repeat stride (uint8 blocks)."""

    __slots__ = ("src0BlockStride", "repeatTimes", "src0RepeatStride", "src1RepeatStride")
    _defaults = (1, 1, 8, 1)


# built-in pattern value -> (lane period, selected lane): 7 selects every lane
BUILTIN_PATTERNS = {1: (2, 0), 2: (2, 1), 3: (4, 0), 4: (4, 1), 5: (4, 2), 6: (4, 3), 7: (1, 0)}

# params: (reduceMode, lanes per repeat, src0 block stride, src0 repeat stride,
#          src1 repeat stride); MODE = the built-in pattern (0: a user pattern)
_M_REDUCE, _M_LANES, _M_BLK, _M_REP, _M_PREP = param_fields(5)
_M_DST, _M_SRC, _M_PAT = (rec.access_fields(5, k)[2] for k in range(3))


@njit(cache=True, nogil=True, error_model="numpy")
def _selected(builtin, ub, pat, j):
    if builtin == 0:
        return (ub[pat + (j >> 3)] >> (j & 7)) & 1
    if builtin == 7:
        return 1
    if builtin <= 2:
        return 1 if (j & 1) == builtin - 1 else 0
    return 1 if (j & 3) == builtin - 3 else 0


@njit(cache=True, nogil=True, error_model="numpy")
def gather_mask_work(code, _b, _c, ub, gm, row):
    literally(code)
    v = uview(code, ub)
    sh = shift(code)
    epb = 32 >> sh
    nl = row[_M_LANES]
    blk, rep, prep = row[_M_BLK], row[_M_REP], row[_M_PREP]
    s = row[_M_SRC] >> sh
    builtin = row[MODE]
    out = np.empty(row[REPEATS] * nl, dtype=v.dtype)
    k = 0
    for r in range(row[REPEATS]):
        pat = row[_M_PAT] + r * prep * 32
        for j in range(nl):
            if _selected(builtin, ub, pat, j):
                out[k] = v[s + (r * rep + (j // epb) * blk) * epb + j % epb]
                k += 1
    d = row[_M_DST] >> sh
    for i in range(k):
        v[d + i] = out[i]


_GMASK = register(
    "GatherMask", family="vector", pipe=PIPE_V,
    operands=(Operand("dst", AccessPattern.ELEMENTWISE, True),
              Operand("src0", AccessPattern.ELEMENTWISE),
              Operand("src1Pattern", AccessPattern.BIT_PER_ELEMENT)),
    dataflow=Dataflow.GATHER, cost=Cost(CostKind.VECTOR, "GatherMask"),
    signatures=(*(Signature((t, t, uint16_t)) for t in (int16_t, uint16_t, half, bfloat16_t)),
                *(Signature((t, t, uint32_t)) for t in (int32_t, uint32_t, float)),
                *(Signature((t, t, uint8_t)) for t in GATHER_DTYPES)),
    work=Work({"compact": gather_mask_work},
              bind=lambda row, profile: ("compact", (row[DTYPE], 0, 0))),
    cpp=(CppDecl("template <typename T, typename U>\n__aicore__ void GatherMask("
                 "const LocalTensor<T> &dst, const LocalTensor<T> &src0, "
                 "const LocalTensor<U> &src1Pattern, const bool reduceMode, const uint32_t mask, "
                 "const GatherMaskParams &gatherMaskParams, uint64_t &rsvdCnt);"),
         CppDecl("template <typename T>\n__aicore__ void GatherMask(const LocalTensor<T> &dst, "
                 "const LocalTensor<T> &src0, const uint8_t src1Pattern, const bool reduceMode, "
                 "const uint32_t mask, const GatherMaskParams &gatherMaskParams, "
                 "uint64_t &rsvdCnt);")),
    doc="the lanes a pattern selects, compacted into dst; rsvdCnt = how many")


def _gather_mask(dst: LocalTensor, src0: LocalTensor, src1Pattern: object, reduceMode: bool,
                 mask: int, gatherMaskParams: GatherMaskParams, rsvdCnt: object = None,
                 _f=None, _u: DType | None = None) -> int | None:
    """`GatherMask(dst, src0, src1Pattern, reduceMode, mask, GatherMaskParams(...), rsvdCnt)`;
    returns the count written (and stores it in rsvdCnt[0] when rsvdCnt is a list)."""
    f = _f or sys._getframe(1)
    name = "GatherMask"
    core = core_of(dst, src0, src1Pattern)
    dt = getattr(dst, "dtype", None)
    if dt not in GATHER_DTYPES or getattr(src0, "dtype", None) is not dt:
        return fault(core, ParameterError(
            "GatherMask: dst and src0 must share one 16- or 32-bit dtype {"
            + ", ".join(map(str, GATHER_DTYPES))
            + f"}}, got ({dt}, {getattr(src0, 'dtype', src0)})"), f, instruction=name)
    p = gatherMaskParams
    if not isinstance(p, GatherMaskParams):
        return fault(core, ParameterError(f"GatherMask: takes GatherMaskParams, got {p!r}"), f,
                     instruction=name)
    size = dt.size
    epb = 32 // size
    per_repeat = 8 * epb
    repeat, blk, rep, prep = p.repeatTimes, p.src0BlockStride, p.src0RepeatStride, \
        p.src1RepeatStride
    if not (0 <= repeat <= MAX_REPEAT_TIMES and 0 <= blk <= 255 and 0 <= rep <= 65535
            and 0 <= prep <= 255):
        return fault(core, ParameterError(
            f"GatherMask: {p!r} out of range (repeatTimes [0, 255], src0BlockStride uint8, "
            "src0RepeatStride uint16, src1RepeatStride uint8)"), f, instruction=name)
    mask = as_count(mask, "mask")
    if not 0 <= mask < 2**32:
        return fault(core, ParameterError(f"GatherMask: mask {mask} is not a uint32"), f,
                     instruction=name)
    if reduceMode:
        if not 1 <= mask <= per_repeat:
            return fault(core, ParameterError(
                f"GatherMask: reduceMode=true takes mask = lanes per repeat in [1, "
                f"{per_repeat}] for {dt}, got {mask} (more than a repeat is undocumented)"), f,
                instruction=name)
        nl = mask
    else:
        nl = per_repeat
    if isinstance(src1Pattern, LocalTensor):
        want = uint16_t if size == 2 else uint32_t
        if src1Pattern.dtype is not want or (_u is not None and _u is not want):
            return fault(core, ParameterError(
                f"GatherMask: a pattern tensor for {dt} is LocalTensor<{want}>, got "
                f"{src1Pattern.dtype}"), f, instruction=name)
        builtin = 0
        pat_addr = src1Pattern.addr
        pat_extent = ((repeat - 1) * prep * 32 + (nl + 7) // 8) if repeat else 0
        if pat_addr & 31 or pat_extent > src1Pattern.size * src1Pattern.dtype.size:
            return fault(core, operand_error(name, -(-pat_extent // src1Pattern.dtype.size),
                                             (("src1Pattern", src1Pattern),)), f,
                         instruction=name)
    else:
        builtin = as_count(src1Pattern, "src1Pattern")
        if builtin not in BUILTIN_PATTERNS:
            return fault(core, ParameterError(
                f"GatherMask: a built-in src1Pattern is 1..7, got {builtin}"), f,
                instruction=name)
        pat_addr = pat_extent = 0
    s_extent = ((repeat - 1) * rep * epb + ((nl - 1) // epb) * blk * epb + (nl - 1) % epb + 1) \
        * size if repeat else 0
    if src0.addr & 31 or s_extent > src0.size * size:
        return fault(core, operand_error(name, s_extent // size, (("src0", src0),)), f,
                     instruction=name)
    # the count, from the pattern as the UB holds it now
    lanes = np.arange(nl)
    if builtin:
        period, lane = BUILTIN_PATTERNS[builtin]
        count = repeat * int(np.count_nonzero(lanes % period == lane))
    else:
        count = 0
        settle_memory(core)
        for r in range(repeat):
            a = pat_addr + r * prep * 32
            raw = np.unpackbits(core.ub[a:a + (nl + 7) // 8], bitorder="little")[:nl]
            count += int(raw.sum())
    bound = repeat * nl  # every lane selected
    if dst.addr & 31 or count * size > dst.size * size:
        return fault(core, operand_error(name, count, (("dst", dst),)), f, instruction=name)
    d_extent = min(bound, dst.size) * size
    core = dst.core
    core.vmask = (False, mask, 0)  # Normal mode, MASK = (0, mask): not reset
    row = rec.row(_GMASK.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count, repeat, builtin, 0,
                  (int(bool(reduceMode)), nl, blk, rep, prep),
                  (W, MEM_UB, dst.addr, dst.addr + d_extent,
                   0, MEM_UB, src0.addr, src0.addr + s_extent,
                   0, MEM_UB, pat_addr, pat_addr + pat_extent))
    core.records.append(row)
    if isinstance(rsvdCnt, list):
        if len(rsvdCnt) != 1:
            return fault(core, ParameterError(
                "GatherMask: rsvdCnt is a one-element list (C++ uint64_t&)"), f,
                instruction=name)
        rsvdCnt[0] = count
    if repeat == 0:
        return count
    if core.sanitizer is not None:
        no_overlap(core, f, name, dst.addr, dst.addr + count * size, src0.addr,
                   src0.addr + s_extent, "src0")
        if pat_extent:
            no_overlap(core, f, name, dst.addr, dst.addr + count * size, pat_addr,
                       pat_addr + pat_extent, "src1Pattern")
    form, lits = _GMASK.work.bind(row, core.profile)
    _run_row(core, _GMASK.work, form, lits, row)
    return count


class _GatherMaskCall:
    """`GatherMask(...)`, `GatherMask[T](...)` or `GatherMask[T, U](...)`."""

    __name__ = "GatherMask"

    def __call__(self, *args, **kwargs) -> int | None:
        return _gather_mask(*args, _f=sys._getframe(1), **kwargs)

    def __getitem__(self, targs: object):
        key = targs if isinstance(targs, tuple) else (targs,)
        if not 1 <= len(key) <= 2 or not all(isinstance(t, DType) for t in key):
            raise ParameterError(f"GatherMask[T] or GatherMask[T, U]: got {targs!r}")

        def variant(dst: LocalTensor, *args, **kwargs) -> int | None:
            f = sys._getframe(1)
            if getattr(dst, "dtype", None) is not key[0]:
                return fault(core_of(dst), ParameterError(
                    f"GatherMask<{key[0]}>: dst is {getattr(dst, 'dtype', dst)}"), f,
                    instruction="GatherMask")
            return _gather_mask(dst, *args, _f=f, _u=key[1] if len(key) == 2 else None,
                                **kwargs)
        return variant

    def __repr__(self) -> str:
        return "<AscendC GatherMask>"


def _gather_front(*args) -> None:
    """`Gather(dst, src, srcOffset, srcBaseAddr, count)` or the repeat form; `Gather[T]`
    checks dst is T."""
    return _gather(*args, _f=sys._getframe(1))


_gather_front.__name__ = _gather_front.__qualname__ = "Gather"
Gather = templated(_gather_front, lambda f, _is_set_mask, *args: _gather(*args, _f=f),
                   set_mask=False)
GatherMask = _GatherMaskCall()
