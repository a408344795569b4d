"""Reductions (ascendc_more.md §1): the per-repeat forms `WholeReduceSum/Max/Min`,
`RepeatReduceSum`, `BlockReduceSum/Max/Min` and `PairReduceSum`; the level-2 `ReduceSum`,
`ReduceMax` and `ReduceMin` (count form and mask form); and the two register readers
`GetAccVal` (ACC_VAL) and `GetReduceMaxMinCount` (MAX_MIN_CNT). half and float only (A2).

Geometry. Repeat r of a per-repeat form reads the usual 8 DataBlocks of src (block b at
`src + (r*srcRepStride + b*srcBlkStride)*32`; its lanes are the ones the mask enables, or in
Counter mode lanes 0..n-1 spread over ceil(n/E) repeats, E = 256/sizeof(T)). Its lanes are cut
into groups (a whole repeat, one DataBlock, or a pair of adjacent lanes) and each group gives
one result: WholeReduce writes one per repeat at `dst + r*dstRepStride*unit` (the layouts and
units of the §1.2 table, `ReduceOrder`), BlockReduce 8 contiguous values per repeat (unit
16 B half / 32 B float), PairReduceSum E/2 values per repeat (unit 128 B). A group none of
whose lanes is enabled writes nothing (A2: a fully masked block keeps dst; a pair whose two
lanes are masked is skipped). The index of WholeReduceMax/Min is the lane in the repeat,
stored as raw bits in a T slot (uint16 for half, uint32 for float; ONLY_INDEX: uint32).

Numerics. A sum is a binary tree of adjacent pairs over the group's lanes, every node rounded
to T with round-to-nearest-even (half has no fp32 accumulator: a half tree overflows to inf;
each half node is computed in float32 and rounded once, which is exact: 24 >= 2*11+2). Max and
min compare as IEEE (so -0.0 and +0.0 tie); equal values: the lowest lane wins.

Assumed (not public; each a hardware-profile option, `[semantics]` of ascsim/profiles/*.toml,
with the default named by the fact sheet; only the default is implemented unless said):
- `reduce_masked_lane = "zero"`: a masked lane of a sum enters the tree as +0.0 (so a group
  whose enabled lanes are all -0.0 sums to +0.0); max/min ignore masked lanes.
- `reduce_nan = "propagate"`: a NaN lane makes the result NaN; max/min return the first NaN
  (lowest lane, its payload) and its index.
- `pair_one_lane = "copy_active"`: a pair with one enabled lane copies that lane's bits.
- `acc_reduce_writes_partials = false`: the count-form ReduceSum writes dst[0] only.
- `reduce_tree = "pairwise"` (or `"sequential"`): a sum's lanes (of a repeat, a block, the
  level-2 passes) go through the binary tree above, or are added in lane order, every
  addition rounded to T (the hardware's adder tree is not public).
- `acc_dtype = "T"` (or `"float"`): the count-form ReduceSum adds the repeat sums in order
  in T (each addition rounded to T) or, for half, in float32 rounded to half at the end.
- `reduce_tmp_clobber = true` (or false): ReduceMax/Min write their real intermediates into
  sharedTmpBuffer (per-repeat [value, lane] pairs, then the passes over their value lanes,
  then [body value, tail value]); false leaves tmp untouched.
- `maxmin_spr_index = "global"` (or `"per_repeat"`): the MAX_MIN_CNT index after
  WholeReduceMax/Min is r*E + lane of the winner (or the lane alone).

Level 2 (§1.5, §1.6). They need a TPipe (their internal syncs take FetchEventID ids) and model
the library's V->S / S->V / S->MTE3 syncs as implicit SetFlag/WaitFlag pairs after the vector
work, so that the timeline shows the scalar unit waiting for the vector pipe; the scalar
read and write of dst[0] are folded into the vector record (dst is written on PIPE_V). Count
form of ReduceSum: one Counter-mode vcadd, repeat sums added in order into ACC_VAL, which
goes to dst[0]; sharedTmpBuffer is untouched. Mask form: per-repeat sums into tmp[r], then
Counter-mode vcadds over them (partials back into tmp[0..]) until one remains in dst[0]; tmp
must hold ceil(R/B)*B elements, B = 32/sizeof(T). ReduceMax/Min: dst[0] = the extreme, dst[1]
= its index bits when calIndex (the lowest flat index holding it; mask form
r*srcRepStride*B + lane; half keeps the low 16 bits, reported above 65535); tmp sizes from the
[DOC] table. Every level-2 call, like any count form, ends in Normal mode with a full mask.
MAX_MIN_CNT after ReduceMax/Min holds the extreme and the flat index written to dst[1] (the
sheet: the hardware's index there is not exact); GetReduceMaxMinCount reports it undefined
after Counter-mode or non-contiguous WholeReduceMax/Min. GetAccVal needs a count-form
ReduceSum after the last vcadd that does not accumulate (WholeReduceSum, RepeatReduceSum, the
mask form): those leave ACC_VAL undefined here (UNKNOWN whether they clobber it).

Not modelled: the overlap rules of the sanitizer (dst/src partial overlap within a repeat) for
reductions; racecheck walks a reduction's strided operands as their whole byte range. The
level-2 forms are costed as one vector instruction of R repeats (their internal passes and
the scalar copy are not timed separately).
"""

from __future__ import annotations

import sys
from enum import IntEnum

import numpy as np
from numba import literally, njit

from .. import records as rec
from ..core import MEM_UB, PIPE_MTE3, PIPE_S, PIPE_V, CoreState, _tls, current_core, settle_memory
from ..dtypes import DType, half
from ..dtypes import float as f32
from ..errors import AlignmentError, OutOfRangeError, ParameterError, SyncError
from ..faults import fault, note
from ..findings import WARNING
from ..memory import LocalTensor
from ..records import COUNT, MODE, REPEATS, STRIDED, W, param_fields, start_fields
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
from ..sync import HardEvent, record_set, record_wait, run_on_pipe
from ..workcall import NO_GM, compile_loop
from .common import MAX_REPEAT_TIMES, as_count, core_of, expand_mask
from .vmask import (
    count_form_done,
    counter_repeats,
    lane_count,
    level0_mask,
    strided_extent,
    template_dtype,
    templated,
)
from .worklib import load, shift, store, uview, view

__all__ = ["ReduceOrder", "WholeReduceSum", "WholeReduceMax", "WholeReduceMin",
           "RepeatReduceSum", "BlockReduceSum", "BlockReduceMax", "BlockReduceMin",
           "PairReduceSum", "ReduceSum", "ReduceMax", "ReduceMin", "GetAccVal",
           "GetReduceMaxMinCount", "reduce_tmp_elements", "maxmin_tmp_elements"]

KERNEL_SURFACE = ("ReduceOrder", "WholeReduceSum", "WholeReduceMax", "WholeReduceMin",
                  "RepeatReduceSum", "BlockReduceSum", "BlockReduceMax", "BlockReduceMin",
                  "PairReduceSum", "ReduceSum", "ReduceMax", "ReduceMin", "GetAccVal",
                  "GetReduceMaxMinCount")

DTYPES = (half, f32)
SUM, MAX, MIN = 0, 1, 2
WHOLE, BLOCK, PAIR = 0, 1, 2


class ReduceOrder(IntEnum):
    """`enum ReduceOrder` (declaration order): what WholeReduceMax/Min write per repeat."""

    ORDER_VALUE_INDEX = 0
    ORDER_INDEX_VALUE = 1
    ORDER_ONLY_VALUE = 2
    ORDER_ONLY_INDEX = 3


# ---- row layout ----------------------------------------------------------------------------
# Every reduction row has the same nine params: (mask_lo, mask_hi, group lanes (0: one group
# over every repeat, the level-2 forms), src block stride, src repeat stride (32 B blocks), dst
# bytes between repeats, result bytes per group, ReduceOrder (level 2: the UB byte address of
# sharedTmpBuffer), calIndex); then the accesses dst, src and, when the call writes it,
# sharedTmpBuffer. COUNT is the lanes (Counter mode: the count), REPEATS the repeats, MODE the
# level-2 form (0 count, 1 mask).
NPARAM = 9
(_MLO, _MHI, _GROUP, _SBLK, _SREP, _DREP, _OUT, _ORDER, _CALIDX) = param_fields(NPARAM)
_D, _S = start_fields(NPARAM, 2)


# ---- numba helpers -------------------------------------------------------------------------

@njit(cache=True, nogil=True, error_model="numpy")
def _on(j, lo, hi):
    return ((lo >> j) & 1) != 0 if j < 64 else ((hi >> (j - 64)) & 1) != 0


@njit(cache=True, nogil=True, error_model="numpy")
def _lane_elem(j, epb, sblk, base):
    """Element index of lane j of a repeat whose first block starts at element `base`."""
    return base + (j // epb) * sblk * epb + j % epb


@njit(cache=True, nogil=True, error_model="numpy")
def _tree(code, buf, n, seq):
    """Binary tree of adjacent pairs over buf[0..n) (n a power of two), every node rounded to
    T (float32 compute values; half is rounded through its bits); `seq` (reduce_tree =
    sequential): buf[0] + buf[1] + ... in lane order instead, every addition rounded to T."""
    if seq:
        acc = buf[0]
        for i in range(1, n):
            acc = load(code, store(code, acc + buf[i]))
        return acc
    m = n
    while m > 1:
        h = m >> 1
        for i in range(h):
            buf[i] = load(code, store(code, buf[2 * i] + buf[2 * i + 1]))
        m = h
    return buf[0]


@njit(cache=True, nogil=True, error_model="numpy")
def _better(op, x, best):
    """x replaces the current winner `best`: strictly greater (max) or smaller (min); the first
    NaN wins and stays."""
    if best != best:
        return False
    if x != x:
        return True
    return x > best if op == 1 else x < best


@njit(cache=True, nogil=True, error_model="numpy")
def group_repeat(code, op, kind, ub, gm, row):
    """WholeReduce*/RepeatReduceSum (kind 0), BlockReduce* (1), PairReduceSum (2); kind + 4:
    the sums in lane order (reduce_tree = sequential)."""
    literally(code)
    literally(op)
    literally(kind)
    seq = kind >= 4
    kind = kind & 3
    v = view(code, ub)
    u = uview(code, ub)
    u32 = ub.view(np.uint32)
    sh = shift(code)
    epb = 32 >> sh
    per = 8 * epb
    lo, hi = row[_MLO], row[_MHI]
    group = row[_GROUP]
    sblk, srep, drep, out = row[_SBLK], row[_SREP], row[_DREP], row[_OUT]
    order = row[_ORDER]
    d, s = row[_D], row[_S]
    ngroups = per // group
    buf = np.zeros(group, np.float32)
    vals = np.empty(ngroups, dtype=v.dtype)    # computed results (sums)
    raw = np.empty(ngroups, dtype=u.dtype)     # copied bits (max/min, one-lane pairs)
    use_raw = np.zeros(ngroups, np.bool_)
    lane = np.zeros(ngroups, np.int64)
    nact = np.zeros(ngroups, np.int64)
    for r in range(row[REPEATS]):
        lanes = min(per, row[COUNT] - r * per)
        base = (s >> sh) + r * srep * epb
        # every group of the repeat is computed before any result is written
        for g in range(ngroups):
            nact[g] = 0
            best = np.float32(0)
            for k in range(group):
                j = g * group + k
                on = j < lanes and _on(j, lo, hi)
                x = load(code, v[_lane_elem(j, epb, sblk, base)]) if on else np.float32(0)
                buf[k] = x
                if on:
                    if nact[g] == 0 or (op != 0 and _better(op, x, best)):
                        best = x
                        lane[g] = j
                    nact[g] += 1
            if op != 0 or (kind == 2 and nact[g] == 1):  # pair_one_lane = copy_active
                use_raw[g] = True
                if nact[g]:
                    raw[g] = u[_lane_elem(lane[g], epb, sblk, base)]
            else:
                use_raw[g] = False
                vals[g] = store(code, _tree(code, buf, group, seq))
        for g in range(ngroups):
            if nact[g] == 0:
                continue
            a = (d + r * drep + g * out) >> sh   # the group's result, in elements
            if not use_raw[g]:
                v[a] = vals[g]
            elif kind != 0 or order == 2:
                u[a] = raw[g]
            elif order == 3:
                u32[(d + r * drep + g * out) >> 2] = lane[g]
            elif order == 0:
                u[a] = raw[g]
                u[a + 1] = lane[g]
            else:
                u[a] = lane[g]
                u[a + 1] = raw[g]


@njit(cache=True, nogil=True, error_model="numpy")
def _repeat_sum(code, v, buf, base, epb, sblk, lanes, lo, hi, seq):
    per = 8 * epb
    for j in range(per):
        on = j < lanes and _on(j, lo, hi)
        buf[j] = load(code, v[_lane_elem(j, epb, sblk, base)]) if on else np.float32(0)
    return _tree(code, buf, per, seq)


@njit(cache=True, nogil=True, error_model="numpy")
def sum_count(code, acc_float, seq, ub, gm, row):
    """Count-form ReduceSum: repeat trees added in order (ACC_VAL) into dst[0]."""
    literally(code)
    literally(acc_float)
    literally(seq)
    v = view(code, ub)
    sh = shift(code)
    epb = 32 >> sh
    per = 8 * epb
    n = row[COUNT]
    buf = np.zeros(per, np.float32)
    acc = np.float32(0)
    full = np.int64(-1)
    for r in range(row[REPEATS]):
        t = _repeat_sum(code, v, buf, (row[_S] >> sh) + r * per, epb, 1, min(per, n - r * per),
                        full, full, seq)
        if r == 0:
            acc = t
        elif acc_float:
            acc = acc + t
        else:
            acc = load(code, store(code, acc + t))
    v[row[_D] >> sh] = store(code, acc)


@njit(cache=True, nogil=True, error_model="numpy")
def sum_mask(code, seq, _c, ub, gm, row):
    """Mask-form ReduceSum: per-repeat sums into tmp[r], Counter-mode vcadds over them (partials
    back into tmp[0..]) until dst[0]."""
    literally(code)
    literally(seq)
    v = view(code, ub)
    sh = shift(code)
    epb = 32 >> sh
    per = 8 * epb
    buf = np.zeros(per, np.float32)
    t0 = row[_ORDER] >> sh   # level 2: the sharedTmpBuffer address
    full = np.int64(-1)
    for r in range(row[REPEATS]):
        x = _repeat_sum(code, v, buf, (row[_S] >> sh) + r * row[_SREP] * epb, epb,
                        row[_SBLK], per, row[_MLO], row[_MHI], seq)
        v[t0 + r] = store(code, x)
    n = row[REPEATS]
    while True:
        parts = (n + per - 1) // per
        for k in range(parts):
            v[t0 + k] = store(code, _repeat_sum(code, v, buf, t0 + k * per, epb, 1,
                                                min(per, n - k * per), full, full, seq))
        if parts == 1:
            v[row[_D] >> sh] = v[t0]
            return
        if parts <= per:
            v[row[_D] >> sh] = store(code, _repeat_sum(code, v, buf, t0, epb, 1, parts, full,
                                                       full, seq))
            return
        n = parts


@njit(cache=True, nogil=True, error_model="numpy")
def _extreme(code, op, v, base, epb, sblk, lanes, lo, hi):
    """(winning lane, value) of one repeat's enabled lanes; lane -1 when none is enabled."""
    best = np.float32(0)
    at = -1
    for j in range(lanes):
        if _on(j, lo, hi):
            x = load(code, v[_lane_elem(j, epb, sblk, base)])
            if at < 0 or _better(op, x, best):
                best = x
                at = j
    return at, best


@njit(cache=True, nogil=True, error_model="numpy")
def _pair_passes(code, op, v, u, t0, npairs, per, region, cal_index, epb):
    """The passes over [value, lane] pairs at tmp element t0 (value lanes only, mask 0x5555):
    each group of per/2 pairs becomes one pair, written after the previous region (with
    calIndex) or in place."""
    src = t0
    size_in = npairs
    while size_in > 1:
        parts = (size_in + per // 2 - 1) // (per // 2)
        dst = src + region if cal_index else t0
        for k in range(parts):
            best = np.float32(0)
            at = -1
            for p in range(k * (per // 2), min(size_in, (k + 1) * (per // 2))):
                x = load(code, v[src + 2 * p])
                if at < 0 or _better(op, x, best):
                    best = x
                    at = p
            wbits = u[src + 2 * at]
            u[dst + 2 * k] = wbits
            u[dst + 2 * k + 1] = 2 * (at - k * (per // 2))
        region = ((2 * parts + epb - 1) // epb) * epb
        src = dst
        size_in = parts


@njit(cache=True, nogil=True, error_model="numpy")
def _maxmin(code, op, clobber, ub, row, counted):
    v = view(code, ub)
    u = uview(code, ub)
    sh = shift(code)
    epb = 32 >> sh
    per = 8 * epb
    sblk, srep = row[_SBLK], row[_SREP]
    lo, hi = row[_MLO], row[_MHI]
    t0 = row[_ORDER] >> sh   # level 2: the sharedTmpBuffer address
    s0 = row[_S] >> sh
    n = row[COUNT]
    repeats = row[REPEATS]
    body = n // per if counted else repeats
    best = np.float32(0)
    at = -1          # winning flat index
    src_at = -1      # its element index in the UB
    for r in range(repeats):
        base = s0 + r * srep * epb
        lanes = min(per, n - r * per) if counted else per
        j, x = _extreme(code, op, v, base, epb, sblk, lanes, lo, hi)
        if j < 0:
            continue
        if at < 0 or _better(op, x, best):
            best = x
            at = (r * per + j) if counted else (r * srep * epb + j)
            src_at = _lane_elem(j, epb, sblk, base)
    if at < 0:
        return
    wbits = u[src_at]
    if clobber:
        # real intermediates: the body's per-repeat pairs, the passes over them, then
        # [body value, tail value] in the count form
        tail_bits = u[src_at]
        tail_lane = 0
        has_tail = counted and n % per != 0
        if has_tail:
            base = s0 + body * per
            j, x = _extreme(code, op, v, base, epb, 1, n % per, lo, hi)
            tail_bits = u[base + j]
            tail_lane = j
        body_bits = u[src_at]
        if body > 0:
            for r in range(body):
                base = s0 + r * srep * epb
                j, x = _extreme(code, op, v, base, epb, sblk, per, lo, hi)
                if j < 0:
                    j = 0
                    u[t0 + 2 * r] = u[base]
                else:
                    u[t0 + 2 * r] = u[_lane_elem(j, epb, sblk, base)]
                u[t0 + 2 * r + 1] = j
            _pair_passes(code, op, v, u, t0, body, per,
                         ((2 * body + epb - 1) // epb) * epb, row[_CALIDX] != 0, epb)
            region = ((2 * body + epb - 1) // epb) * epb
            # the single pair the passes end with
            k = t0
            left = body
            while left > 1 and row[_CALIDX] != 0:
                k += region
                left = (left + per // 2 - 1) // (per // 2)
                region = ((2 * left + epb - 1) // epb) * epb
            body_bits = u[k]
        if has_tail and body > 0:
            u[t0] = body_bits
            u[t0 + 1] = tail_bits
        elif has_tail:
            u[t0] = tail_bits
            u[t0 + 1] = tail_lane
    d = row[_D] >> sh
    u[d] = wbits
    if row[_CALIDX]:
        u[d + 1] = at


@njit(cache=True, nogil=True, error_model="numpy")
def maxmin_count(code, op, clobber, ub, gm, row):
    """Count-form ReduceMax/Min: dst[0] the extreme, dst[1] its flat index (calIndex)."""
    literally(code)
    literally(op)
    literally(clobber)
    _maxmin(code, op, clobber, ub, row, True)


@njit(cache=True, nogil=True, error_model="numpy")
def maxmin_mask(code, op, clobber, ub, gm, row):
    """Mask-form ReduceMax/Min: the extreme over the enabled lanes of every repeat."""
    literally(code)
    literally(op)
    literally(clobber)
    _maxmin(code, op, clobber, ub, row, False)


@njit(cache=True, nogil=True, error_model="numpy")
def whole_extreme(code, op, ub, row):
    """(value bits, repeat, lane) of the extreme over every repeat of a WholeReduceMax/Min row
    (MAX_MIN_CNT), the lowest (repeat, lane) on ties; repeat -1 when no lane ran."""
    literally(code)
    literally(op)
    v = view(code, ub)
    u = uview(code, ub)
    sh = shift(code)
    epb = 32 >> sh
    per = 8 * epb
    best = np.float32(0)
    rr = -1
    jj = -1
    wbits = np.int64(0)
    for r in range(row[REPEATS]):
        base = (row[_S] >> sh) + r * row[_SREP] * epb
        j, x = _extreme(code, op, v, base, epb, row[_SBLK], min(per, row[COUNT] - r * per),
                        row[_MLO], row[_MHI])
        if j >= 0 and (rr < 0 or _better(op, x, best)):
            best = x
            rr = r
            jj = j
            wbits = np.int64(u[_lane_elem(j, epb, row[_SBLK], base)])
    return wbits, rr, jj


# ---- registry entries ----------------------------------------------------------------------

_SRC = Operand("src", AccessPattern.REDUCE_SOURCE)
_DST = Operand("dst", AccessPattern.REDUCE_RESULT, True)
_TMP = Operand("sharedTmpBuffer", AccessPattern.REDUCE_SCRATCH, True)
_NONE = lambda role: Operand(role, AccessPattern.NONE)  # noqa: E731
_OP_NAMES = {SUM: "Sum", MAX: "Max", MIN: "Min"}


def _bind_group(op: int, kind: int):
    # a sum's kind + 4: the profile's reduce_tree is sequential
    return lambda row, profile: ("repeat", (row[rec.DTYPE], op, kind + 4 * (
        op == SUM and profile.reduce_tree == "sequential")))


def _group_entry(name: str, op: int, kind: int, scalars: tuple[str, ...], cpp: tuple[str, ...],
                 doc: str):
    return register(
        name, family="vector", pipe=PIPE_V,
        operands=(_DST, _SRC, *(_NONE(s) for s in scalars)),
        dataflow=Dataflow.REDUCE,
        cost=Cost(CostKind.VECTOR, "ReduceSum" if op == SUM else "ReduceMax"),
        signatures=tuple(Signature((t, t) + (None,) * len(scalars)) for t in DTYPES),
        work=Work({"repeat": group_repeat}, bind=_bind_group(op, kind)),
        cpp=tuple(CppDecl(c) for c in cpp), doc=doc)


_WHOLE_SCALARS = ("mask", "repeatTime", "dstRepStride", "srcBlkStride", "srcRepStride")
_TAIL = ("const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride, "
         "const int32_t srcRepStride")


def _whole_cpp(name: str, order: bool) -> tuple[str, ...]:
    extra = ", ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX" if order else ""
    return tuple(
        f"template <typename T, bool isSetMask = true>\n__aicore__ void {name}("
        f"const LocalTensor<T> &dst, const LocalTensor<T> &src, {m}, {_TAIL}{extra});"
        for m in ("const uint64_t mask[]", "const int32_t mask"))


def _block_cpp(name: str) -> tuple[str, ...]:
    return tuple(
        f"template <typename T, bool isSetMask = true>\n__aicore__ void {name}("
        f"const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime, "
        f"{m}, const int32_t dstRepStride, const int32_t srcBlkStride, "
        f"const int32_t srcRepStride);"
        for m in ("const uint64_t mask[]", "const int32_t mask"))


_WHOLE = {op: _group_entry(f"WholeReduce{_OP_NAMES[op]}", op, WHOLE,
                           _WHOLE_SCALARS + (("order",) if op else ()),
                           _whole_cpp(f"WholeReduce{_OP_NAMES[op]}", bool(op)),
                           doc)
          for op, doc in ((SUM, "one tree sum per repeat (vcadd)"),
                          (MAX, "the maximum of each repeat and its lane (vcmax)"),
                          (MIN, "the minimum of each repeat and its lane (vcmin)"))}
_REPEAT_SUM = _group_entry(
    "RepeatReduceSum", SUM, WHOLE,
    ("repeatTime", "mask", "dstBlkStride", "srcBlkStride", "dstRepStride", "srcRepStride"),
    ("template <typename T, bool isSetMask = true>\n__aicore__ void RepeatReduceSum("
     "const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime, "
     "const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride, "
     "const int32_t dstRepStride, const int32_t srcRepStride);",),
    "WholeReduceSum with a continuous mask (dstBlkStride ignored)")
_BLOCK = {op: _group_entry(f"BlockReduce{_OP_NAMES[op]}", op, BLOCK,
                           ("repeatTime", "mask", "dstRepStride", "srcBlkStride",
                            "srcRepStride"),
                           _block_cpp(f"BlockReduce{_OP_NAMES[op]}"),
                           f"one {_OP_NAMES[op].lower()} per 32-byte block, 8 per repeat")
          for op in (SUM, MAX, MIN)}
_PAIR = _group_entry("PairReduceSum", SUM, PAIR,
                     ("repeatTime", "mask", "dstRepStride", "srcBlkStride", "srcRepStride"),
                     _block_cpp("PairReduceSum"), "sums of adjacent lane pairs (vcpadd)")


def _bind_level2(kind: str):
    def bind(row, profile):
        form = "mask" if row[MODE] else "count"
        seq = int(profile.reduce_tree == "sequential")
        if kind == "sum" and form == "mask":
            return form, (row[rec.DTYPE], seq, 0)
        if kind == "sum":
            return form, (row[rec.DTYPE], int(profile.acc_dtype == "float"), seq)
        return form, (row[rec.DTYPE], MAX if kind == "max" else MIN,
                      int(profile.reduce_tmp_clobber))
    return bind


def _level2_entry(name: str, kind: str, work: dict, doc: str):
    scalars = ("count", "mask", "repeatTime", "srcRepStride") + (
        ("calIndex",) if kind != "sum" else ())
    head = ("template <typename T>\n__aicore__ void {n}(const LocalTensor<T> &dst, "
            "const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, ")
    idx = ", bool calIndex = false" if kind != "sum" else ""
    count_head = head.replace("template <typename T>", "template <typename T, bool isSetMask "
                              "= true>") if kind == "sum" else head
    cpp = (count_head.format(n=name) + f"const int32_t count{idx});",
           head.format(n=name) + f"const uint64_t mask[], const int32_t repeatTime, "
           f"const int32_t srcRepStride{idx});",
           head.format(n=name) + f"const int32_t mask, const int32_t repeatTime, "
           f"const int32_t srcRepStride{idx});")
    return register(
        name, family="vector", pipe=PIPE_V,
        operands=(_DST, _SRC, _TMP, *(_NONE(s) for s in scalars)),
        dataflow=Dataflow.REDUCE,
        cost=Cost(CostKind.VECTOR, "ReduceSum" if kind == "sum" else "ReduceMax"),
        signatures=tuple(Signature((t, t, t) + (None,) * len(scalars)) for t in DTYPES),
        work=Work(work, bind=_bind_level2(kind)), cpp=tuple(CppDecl(c) for c in cpp), doc=doc)


_RSUM = _level2_entry("ReduceSum", "sum", {"count": sum_count, "mask": sum_mask},
                      "sum of all elements into dst[0] (count form: ACC_VAL)")
_RMAX = _level2_entry("ReduceMax", "max", {"count": maxmin_count, "mask": maxmin_mask},
                      "maximum into dst[0], its index into dst[1] (calIndex)")
_RMIN = _level2_entry("ReduceMin", "min", {"count": maxmin_count, "mask": maxmin_mask},
                      "minimum into dst[0], its index into dst[1] (calIndex)")
_GET_ACC = register(
    "GetAccVal", family="scalar", pipe=PIPE_S, operands=(_NONE("T"),),
    dataflow=Dataflow.STATE, cost=Cost(CostKind.SCALAR),
    signatures=tuple(Signature((t,)) for t in DTYPES) + (Signature((None,)),), work=None,
    cpp=(CppDecl("template <typename T>\n__aicore__ inline T GetAccVal();"),
         CppDecl("__aicore__ inline int64_t GetAccVal();")),
    doc="read ACC_VAL (the count-form ReduceSum's result) on the scalar pipe")
_GET_MAXMIN = register(
    "GetReduceMaxMinCount", family="scalar", pipe=PIPE_S,
    operands=(_NONE("maxMinValue"), _NONE("maxMinIndex")),
    dataflow=Dataflow.STATE, cost=Cost(CostKind.SCALAR),
    signatures=tuple(Signature((t, t)) for t in DTYPES), work=None,
    cpp=(CppDecl("template <typename T>\n__aicore__ inline void GetReduceMaxMinCount("
                 "T &maxMinValue, T &maxMinIndex);"),),
    doc="read MAX_MIN_CNT (the last WholeReduceMax/Min's extreme and index)")


# ---- front ends ------------------------------------------------------------------------------

def _core() -> CoreState:
    return getattr(_tls, "core", None) or current_core()


def _check_dtypes(name: str, core, f, *tensors) -> DType | None:
    dts = [getattr(t, "dtype", None) for t in tensors]
    if dts[0] in DTYPES and all(d is dts[0] for d in dts) and all(
            isinstance(t, LocalTensor) and t.core is not None for t in tensors):
        return dts[0]
    fault(core, ParameterError(
        f"{name}: dst, src{' and sharedTmpBuffer' if len(tensors) > 2 else ''} must be "
        f"LocalTensors of one type, half or float on A2, got "
        f"{', '.join(str(d) for d in dts)}"), f, instruction=name)
    return None


def _bounds_error(name: str, role: str, t: LocalTensor, need: int) -> Exception:
    have = t.size * t.dtype.size
    return OutOfRangeError(
        f"{name}: {role} needs {need} bytes but the tensor has {t.size} elements ({have} "
        "bytes)", buffer=t.origin, byte_range=f"UB [{t.addr}, {t.addr + need})",
        tensor_range=f"UB [{t.addr}, {t.addr + have})")


def _check_operand(core, f, name: str, role: str, t: LocalTensor, need: int,
                   align: int = 32) -> bool:
    if t.addr % align:
        fault(core, AlignmentError(
            f"{name}: {role} starts at UB address {t.addr}, which is not {align}-byte aligned",
            buffer=t.origin, address=t.addr), f, instruction=name)
        return False
    if need > t.size * t.dtype.size:
        fault(core, _bounds_error(name, role, t, need), f, instruction=name)
        return False
    return True


def _params(lo: int, hi: int, group: int, sblk: int, srep: int, drep: int, out: int,
            order: int, cal: int) -> tuple[int, ...]:
    return (rec.signed64(lo), rec.signed64(hi), group, sblk, srep, drep, out, order, cal)


def _run(core, ins, row: tuple) -> None:
    form, lits = ins.work.bind(row, core.profile)
    run_on_pipe(core, PIPE_V, ins.work.entry(form, lits, len(row)),
                (*lits, core.ub, NO_GM, rec.program_row(row)))


def _group_call(ins, op: int, kind: int, dst, src, mask, repeat, drep: int, sblk: int,
                srep: int, order: int, f, is_set_mask: bool) -> None:
    name = ins.name
    core = core_of(dst, src)
    dt = _check_dtypes(name, core, f, dst, src)
    if dt is None:
        return
    try:
        repeat = as_count(repeat, "repeatTime")
        drep, sblk, srep, order = int(drep), int(sblk), int(srep), int(order)
    except (ParameterError, TypeError, ValueError) as e:
        return fault(core, ParameterError(f"{name}: {e}"), f, instruction=name)
    if not 0 <= repeat <= MAX_REPEAT_TIMES:
        return fault(core, ParameterError(f"{name}: repeatTime {repeat} is out of range "
                                          f"[0, {MAX_REPEAT_TIMES}]"), f, instruction=name)
    if min(drep, sblk, srep) < 0:
        return fault(core, ParameterError(f"{name}: strides must not be negative"), f,
                     instruction=name)
    if op != SUM and kind == WHOLE and order not in tuple(ReduceOrder):
        return fault(core, ParameterError(f"{name}: order {order} is not a ReduceOrder"), f,
                     instruction=name)
    try:
        lo, hi, counted = level0_mask(core, name, dt, mask, is_set_mask)
    except ParameterError as e:
        return fault(core, e, f, instruction=name)
    size = dt.size
    epb = 32 // size
    per = 8 * epb
    if kind == WHOLE:
        group = per
        if op == SUM:
            out = size
        else:
            out = (2 * size, 2 * size, size, 4)[order]
        unit, out_rep = out, out
    elif kind == BLOCK:
        group, out, unit = epb, size, 8 * size
        out_rep = unit
    else:
        group, out, unit = 2, size, 128
        out_rep = unit
    repeat = counter_repeats(core, f, name, dt, counted, repeat)
    if counted < 0 and lo == 0 and hi == 0:
        repeat = 0  # mask 0: a NOP on A2
    total = lane_count(counted, repeat, epb)
    s_ext = strided_extent(repeat, epb, sblk, srep, size, total)
    d_ext = (repeat - 1) * drep * unit + out_rep if repeat else 0
    if not (_check_operand(core, f, name, "dst", dst, d_ext, unit if kind != PAIR else 32)
            and _check_operand(core, f, name, "src", src, s_ext)):
        return
    row = rec.row(ins.id, PIPE_V, f.f_code, f.f_lasti, dt.code, total, repeat, 0, 0,
                  _params(lo, hi, group, sblk, srep, drep * unit, out, order, 0),
                  (W | STRIDED, MEM_UB, dst.addr, dst.addr + d_ext,
                   STRIDED, MEM_UB, src.addr, src.addr + s_ext))
    core.records.append(row)
    if kind == WHOLE:
        if op == SUM:
            core.acc_val = None  # vcadd without accumulation: ACC_VAL is not defined after it
        elif repeat:
            _set_maxmin(core, dt, op, row, counted, sblk, srep)
    if repeat:
        _run(core, ins, row)


_EXTREME: dict = {}  # (dtype code, op, row length) -> compiled whole_extreme


def _set_maxmin(core, dt: DType, op: int, row: tuple, counted: int, sblk: int,
                srep: int) -> None:
    """MAX_MIN_CNT after a WholeReduceMax/Min: (value bits, index, why it is undefined or
    "")."""
    if core.stalled & (1 << PIPE_V):
        core.maxmin_cnt = (0, 0, "the vector pipe was stalled when it ran")
        return
    prow = rec.program_row(row)
    key = (dt.code, op, len(prow))
    ep = _EXTREME.get(key)
    if ep is None:  # one compiled specialisation per (dtype, op, row length)
        ep = _EXTREME[key] = compile_loop(whole_extreme, (dt.code, op, core.ub, prow), 2)
    settle_memory(core)
    bits, r, lane = ep(dt.code, op, core.ub, prow)
    why = ""
    if counted >= 0:
        why = "the last WholeReduceMax/Min ran in Counter mode"
    elif sblk != 1 or srep != 8:
        why = (f"the last WholeReduceMax/Min used srcBlkStride {sblk} and srcRepStride {srep} "
               "(MAX_MIN_CNT is defined for contiguous use only: 1 and 8)")
    per = 256 // dt.size
    index = lane if core.profile.maxmin_spr_index == "per_repeat" else r * per + lane
    core.maxmin_cnt = (int(bits), int(index), why)


def _group_front(ins, op: int, kind: int):
    name = ins.name
    getframe = sys._getframe

    def call_impl(dst, src, args, f, is_set_mask):
        core = core_of(dst, src)
        if kind == WHOLE and ins is _REPEAT_SUM:
            if len(args) != 6:
                return fault(core, ParameterError(
                    f"{name}: expected (dst, src, repeatTime, mask, dstBlkStride, "
                    "srcBlkStride, dstRepStride, srcRepStride)"), f, instruction=name)
            repeat, mask, _dblk, sblk, drep, srep = args
            if isinstance(mask, (list, tuple)):
                return fault(core, ParameterError(f"{name}: the mask is a continuous int32 "
                                                  "length"), f, instruction=name)
            return _group_call(ins, op, kind, dst, src, mask, repeat, drep, sblk, srep, 0, f,
                               is_set_mask)
        if kind == WHOLE:
            n = 6 if op != SUM else 5
            if not 5 <= len(args) <= n:
                return fault(core, ParameterError(
                    f"{name}: expected (dst, src, mask, repeatTime, dstRepStride, "
                    f"srcBlkStride, srcRepStride{', order' if op else ''})"), f,
                    instruction=name)
            mask, repeat, drep, sblk, srep = args[:5]
            order = args[5] if len(args) == 6 else ReduceOrder.ORDER_VALUE_INDEX
            return _group_call(ins, op, kind, dst, src, mask, repeat, drep, sblk, srep, order,
                               f, is_set_mask)
        if len(args) != 5:
            return fault(core, ParameterError(
                f"{name}: expected (dst, src, repeatTime, mask, dstRepStride, srcBlkStride, "
                "srcRepStride): repeatTime comes before mask"), f, instruction=name)
        repeat, mask, drep, sblk, srep = args
        return _group_call(ins, op, kind, dst, src, mask, repeat, drep, sblk, srep, 0, f,
                           is_set_mask)

    def call(dst: LocalTensor, src: LocalTensor, *args) -> None:
        return call_impl(dst, src, args, getframe(1), True)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"AscendC `{name}`: {ins.doc}; half or float."
    return templated(call, lambda f, is_set_mask, dst, src, *args: call_impl(
        dst, src, args, f, is_set_mask))


WholeReduceSum = _group_front(_WHOLE[SUM], SUM, WHOLE)
WholeReduceMax = _group_front(_WHOLE[MAX], MAX, WHOLE)
WholeReduceMin = _group_front(_WHOLE[MIN], MIN, WHOLE)
RepeatReduceSum = _group_front(_REPEAT_SUM, SUM, WHOLE)
BlockReduceSum = _group_front(_BLOCK[SUM], SUM, BLOCK)
BlockReduceMax = _group_front(_BLOCK[MAX], MAX, BLOCK)
BlockReduceMin = _group_front(_BLOCK[MIN], MIN, BLOCK)
PairReduceSum = _group_front(_PAIR, SUM, PAIR)


# ---- level 2 ---------------------------------------------------------------------------------

def reduce_tmp_elements(dtype: DType, repeat: int) -> int:
    """sharedTmpBuffer elements of the mask-form ReduceSum [DOC]: ceil(R/B)*B."""
    b = 32 // dtype.size
    return -(-repeat // b) * b


def maxmin_tmp_elements(dtype: DType, repeat: int, cal_index: bool) -> int:
    """sharedTmpBuffer elements of ReduceMax/Min [DOC]; R = repeatTime (mask form) or
    max(1, count/E) (count form)."""
    b = 32 // dtype.size
    e = 256 // dtype.size
    first = -(-2 * repeat // b) * b
    if not cal_index:
        return first
    second_out = -(-2 * repeat // e)            # pairs the second pass yields
    second = -(-2 * second_out // b) * b
    total = first + second
    if 2 * second_out > 2:
        third_out = -(-2 * second_out // e)
        total += -(-2 * third_out // b) * b
    return total


def _fetch_id(core, event: HardEvent, f, name: str) -> int | None:
    """FetchEventID: the lowest id the TPipe's queues do not hold."""
    held = core.event_pool.get(int(event), 0)
    for i in range(8):
        if not (held >> i) & 1:
            return i
    fault(core, SyncError(f"{name}: FetchEventID<{event.name}> finds all 8 event ids held"), f,
          instruction=name)
    return None


def _library_syncs(core, f, name: str) -> None:
    """The library's own syncs after the vector work: V->S (the scalar unit reads the result),
    S->V and S->MTE3 (after its scalar write of dst[0]), each a Set/Wait pair on a fetched id."""
    code = f.f_code
    for event, src, dst in ((HardEvent.V_S, PIPE_V, PIPE_S), (HardEvent.S_V, PIPE_S, PIPE_V),
                            (HardEvent.S_MTE3, PIPE_S, PIPE_MTE3)):
        event_id = _fetch_id(core, event, f, name)
        if event_id is None:
            return
        flag = int(event) * 8 + event_id
        record_set(core, src, dst, flag, code, f.f_lasti, 1)
        record_wait(core, dst, flag, code, f.f_lasti, 1)


def _level2(ins, kind: str, dst, src, tmp, args, f, is_set_mask: bool) -> None:
    name = ins.name
    core = core_of(dst, src, tmp)
    dt = _check_dtypes(name, core, f, dst, src, tmp)
    if dt is None:
        return
    if core.pipe is None:
        return fault(core, ParameterError(
            f"{name}: the level-2 reduction syncs its scalar reads with event ids from "
            "GetTPipePtr()->FetchEventID: create a TPipe first"), f, instruction=name)
    size = dt.size
    epb = 32 // size
    per = 8 * epb
    cal = 0
    if kind != "sum" and len(args) in (2, 4):
        cal = int(bool(args[-1]))
        args = args[:-1]
    try:
        if len(args) == 1:
            form = 0
            if not is_set_mask:
                from .vmask import mask_state
                counter, lo_reg, _ = mask_state(core)
                if not counter:
                    return fault(core, ParameterError(
                        f"{name}<T, false>: the count form with isSetMask=false needs Counter "
                        "mode with the count set (SetMaskCount; SetVectorMask)"), f,
                        instruction=name)
                count = lo_reg
            else:
                count = as_count(args[0])
            limit = core.profile.ub_bytes // size
            if not 1 <= count <= limit:
                return fault(core, ParameterError(
                    f"{name}: count {count} is out of range [1, {limit}]"), f,
                    instruction=name)
            repeat = -(-count // per)
            lo = hi = 2**64 - 1
            srep, lanes = 8, count
        elif len(args) == 3:
            form = 1
            mask, repeat, srep = args
            lo, hi = expand_mask(name, mask, dt)
            repeat, srep = as_count(repeat, "repeatTime"), as_count(srep, "srcRepStride")
            if repeat < 0 or srep < 0 or repeat > 2**31 - 1:
                return fault(core, ParameterError(
                    f"{name}: repeatTime {repeat} / srcRepStride {srep} out of range"), f,
                    instruction=name)
            lanes = repeat * per
            count = 0
        else:
            return fault(core, ParameterError(
                f"{name}: expected (dst, src, sharedTmpBuffer, count"
                f"{'' if kind == 'sum' else '[, calIndex]'}) or (dst, src, sharedTmpBuffer, "
                f"mask, repeatTime, srcRepStride{'' if kind == 'sum' else '[, calIndex]'})"),
                f, instruction=name)
    except ParameterError as e:
        return fault(core, ParameterError(f"{name}: {e}") if name not in str(e) else e, f,
                     instruction=name)
    if form == 1 and not is_set_mask:
        return fault(core, ParameterError(f"{name}<T, false>: the mask form has no isSetMask "
                                          "template argument"), f, instruction=name)
    out = size * (2 if cal else 1)
    s_ext = (strided_extent(repeat, epb, 1, srep, size, lanes if form == 0 else -1)
             if repeat else 0)
    if kind == "sum":
        tmp_need = 0 if form == 0 else reduce_tmp_elements(dt, repeat) * size
    else:
        r = max(1, count // per) if form == 0 else repeat
        tmp_need = maxmin_tmp_elements(dt, r, bool(cal)) * size
    ok = (_check_operand(core, f, name, "dst", dst, out)
          and _check_operand(core, f, name, "src", src, s_ext))
    if ok and tmp_need and tmp_need > tmp.size * size:
        fault(core, OutOfRangeError(
            f"{name}: sharedTmpBuffer has {tmp.size} elements; this call needs "
            f"{tmp_need // size} ([DOC] ReduceSum.md/ReduceMax.md tmp size rule"
            f"{'' if kind == 'sum' else ', calIndex=' + str(bool(cal)).lower()})",
            buffer=tmp.origin, byte_range=f"UB [{tmp.addr}, {tmp.addr + tmp_need})",
            tensor_range=f"UB [{tmp.addr}, {tmp.addr + tmp.size * size})"), f,
            instruction=name)
        ok = False
    if ok and tmp.addr & 31:
        ok = _check_operand(core, f, name, "sharedTmpBuffer", tmp, tmp_need)
    if not ok:
        return
    if cal and dt is half and form == 0 and count > 65536:
        note(core, ParameterError(
            f"{name}: count {count} with calIndex on half: an index above 65535 does not fit "
            "the uint16 bits of dst[1] (only its low 16 bits are kept)"), f, instruction=name,
            severity=WARNING)
    clobber = kind == "sum" or core.profile.reduce_tmp_clobber
    # no sharedTmpBuffer access when the call leaves it untouched
    accesses = (W, MEM_UB, dst.addr, dst.addr + out, STRIDED if form else 0, MEM_UB, src.addr,
                src.addr + s_ext)
    if clobber and tmp_need:
        accesses += (W, MEM_UB, tmp.addr, tmp.addr + tmp_need)
    row = rec.row(ins.id, PIPE_V, f.f_code, f.f_lasti, dt.code, lanes, repeat, form, 0,
                  _params(lo, hi, 0, 1, srep, 0, out, tmp.addr, cal), accesses)
    core.records.append(row)
    count_form_done(core)
    if kind == "sum":
        core.acc_val = None
    if not repeat:
        return
    _run(core, ins, row)
    _library_syncs(core, f, name)
    if core.stalled & (1 << PIPE_V):
        return
    d = dst.addr >> dt.shift
    settle_memory(core)
    bits = int(core.uviews[dt.code][d])
    if kind == "sum":
        if form == 0:
            core.acc_val = bits
    else:
        index = int(core.uviews[dt.code][d + 1]) if cal else 0
        core.maxmin_cnt = (bits, index, "")


def _level2_front(ins, kind: str):
    name = ins.name
    getframe = sys._getframe

    def call(dst: LocalTensor, src: LocalTensor, sharedTmpBuffer: LocalTensor, *args) -> None:
        return _level2(ins, kind, dst, src, sharedTmpBuffer, args, getframe(1), True)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"AscendC `{name}` (level 2): {ins.doc}; half or float."
    # ReduceMax/Min<T> take no isSetMask
    return templated(call, lambda f, is_set_mask, dst, src, tmp, *args: _level2(
        ins, kind, dst, src, tmp, args, f, is_set_mask), set_mask=kind == "sum")


ReduceSum = _level2_front(_RSUM, "sum")
ReduceMax = _level2_front(_RMAX, "max")
ReduceMin = _level2_front(_RMIN, "min")


# ---- the register readers --------------------------------------------------------------------

def _reader_record(core, ins, f, dtype: DType | None) -> None:
    core.records.append(rec.row(ins.id, PIPE_S, f.f_code, f.f_lasti,
                                dtype.code if dtype else 0, 0, 0, 0, 0, (), ()))


def _decode(dtype: DType, bits: int):
    return np.array([bits], dtype=f"u{dtype.size}").view(dtype.numpy)[0]


class _GetAccVal:
    """`GetAccVal[T]()`: ACC_VAL's low bytes as T; `GetAccVal()`: the register as int64."""

    def _read(self, dtype: DType | None, f):
        core = _core()
        _reader_record(core, _GET_ACC, f, dtype)
        if core.acc_val is None:
            fault(core, ParameterError(
                "GetAccVal: ACC_VAL holds no result: only a count-form ReduceSum sets it "
                "(WholeReduceSum and the mask form do not accumulate)"), f,
                instruction="GetAccVal")
            return _decode(dtype, 0) if dtype else np.int64(0)
        if dtype is None:
            return np.int64(core.acc_val)
        return _decode(dtype, core.acc_val & ((1 << (8 * dtype.size)) - 1))

    def __getitem__(self, arg: object):
        dtype = template_dtype("GetAccVal", arg)
        if dtype not in DTYPES:
            raise ParameterError(f"GetAccVal<{dtype}>: T is half or float on A2")

        def call():
            return self._read(dtype, sys._getframe(1))
        call.__name__ = f"GetAccVal<{dtype}>"
        return call

    def __call__(self):
        return self._read(None, sys._getframe(1))

    def __repr__(self) -> str:
        return "<AscendC GetAccVal>"


class _GetReduceMaxMinCount:
    """`value, index = GetReduceMaxMinCount[T]()`: MAX_MIN_CNT (the C++ call's two reference
    arguments are its return values): the extreme as T and its index as an int (the raw bits
    of the T slot the C++ call fills)."""

    def __getitem__(self, arg: object):
        dtype = template_dtype("GetReduceMaxMinCount", arg)
        if dtype not in DTYPES:
            raise ParameterError(f"GetReduceMaxMinCount<{dtype}>: T is half or float on A2")

        def call(*unused):
            f = sys._getframe(1)
            core = _core()
            _reader_record(core, _GET_MAXMIN, f, dtype)
            state = core.maxmin_cnt
            why = ("nothing set it: only WholeReduceMax/Min (and ReduceMax/Min) do"
                   if state is None else state[2])
            if why:
                fault(core, ParameterError(f"GetReduceMaxMinCount: MAX_MIN_CNT is undefined: "
                                           f"{why}"), f, instruction="GetReduceMaxMinCount")
                return _decode(dtype, 0), 0
            return _decode(dtype, state[0]), int(state[1])
        call.__name__ = f"GetReduceMaxMinCount<{dtype}>"
        return call

    def __call__(self, *args):
        raise ParameterError("GetReduceMaxMinCount needs its dtype: "
                             "value, index = GetReduceMaxMinCount[T]()")

    def __repr__(self) -> str:
        return "<AscendC GetReduceMaxMinCount>"


GetAccVal = _GetAccVal()
GetReduceMaxMinCount = _GetReduceMaxMinCount()
