"""The offline pass over one core's encoded records (numba): racecheck with vector clocks,
initcheck with taint propagation, and the queue-state check, emitting events that
offline.py turns into findings.

Clocks. Each pipe q keeps K[q][p]: the number of pipe-p instructions known to have finished
before q's next instruction starts. An instruction on p is stamped with its epoch (its rank on
p); an earlier access (p, c) happens before an access on q iff K[q][p] >= c. SetFlag on p
captures K[p] with K[p][p] = epoch (it fires when all earlier work on p is done), WaitFlag on q
joins that into K[q] (on the scalar pipe into every pipe: the scalar unit stops issuing),
PipeBarrier<P> sets K[P][P] to P's epoch, PIPE_ALL does that for every pipe. Scalar
instructions complete in order. Instructions after a WaitFlag whose SetFlag comes later in
program order wait in their pipe's backlog and run when it is set, as in the simulator, so the
shadow state sees accesses in execution order. In auto-sync mode the compiler's V->V barriers
and S<->pipe syncs are taken as present.

Taint: see shadow.py. Each record propagates it by its instruction's dataflow class
(registry.Dataflow): ELEMENTWISE from source element i to destination element i, BITWISE bit
by bit, COMPARE into bit i, SELECT from mask bit i and the sources, FILL defines its
destination, COPY byte by byte; the per-element work only runs when a source actually holds
uninitialised bytes. A written access of an ELEMENTWISE record after its dst (Power's tmp) is a
scratch: no source, its bytes become defined. Which access is which operand comes from the
access patterns (registry.AccessPattern), which also decide how a strided access is walked:
COPY_BLOCKS block by block, ELEMENTWISE in the repeat form DataBlock by DataBlock.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from ..core import N_FLAGS
from ..registry import AccessPattern, Dataflow
from .shadow import (
    NST,
    R_EPOCH,
    R_REC,
    W_EPOCH,
    W_PIPE,
    W_REC,
    record_fn,
    seg_find,
    seg_merge,
    seg_split,
    t_any,
    t_clean,
    t_get,
    t_mark,
    t_new,
    t_origin,
    t_read,
    t_set,
)

# analysis classes of records: the registry's dataflow classes (C_GET and above touch data)
C_SET, C_WAIT, C_BARRIER = int(Dataflow.SET_FLAG), int(Dataflow.WAIT_FLAG), int(Dataflow.BARRIER)
C_QALLOC, C_QENQUE = int(Dataflow.QUEUE_ALLOC), int(Dataflow.QUEUE_ENQUE)
C_QDEQUE, C_QFREE = int(Dataflow.QUEUE_DEQUE), int(Dataflow.QUEUE_FREE)
C_GET, C_PUT = int(Dataflow.SCALAR_READ), int(Dataflow.SCALAR_WRITE)
C_ELEM, C_BITWISE, C_FILL = int(Dataflow.ELEMENTWISE), int(Dataflow.BITWISE), int(Dataflow.FILL)
C_COMPARE, C_SELECT, C_COPY = int(Dataflow.COMPARE), int(Dataflow.SELECT), int(Dataflow.COPY)
C_GATHER = int(Dataflow.GATHER)
# the classes that have their rule below: a new Dataflow member is unhandled until it is listed
# here with its rule (tests/test_registry.py refuses an entry whose class is not listed)
HANDLED_DATAFLOW = frozenset({
    Dataflow.SET_FLAG, Dataflow.WAIT_FLAG, Dataflow.BARRIER, Dataflow.QUEUE_ALLOC,
    Dataflow.QUEUE_ENQUE, Dataflow.QUEUE_DEQUE, Dataflow.QUEUE_FREE, Dataflow.SCALAR_READ,
    Dataflow.SCALAR_WRITE, Dataflow.ELEMENTWISE, Dataflow.BITWISE, Dataflow.FILL,
    Dataflow.COMPARE, Dataflow.SELECT, Dataflow.COPY, Dataflow.STATE})
HANDLED_DATAFLOW |= {Dataflow.GATHER}

# access pattern codes (encode.py gives each access its operand's)
PATTERN_CODE = {p: i for i, p in enumerate(AccessPattern)}
PAT_ELEMENT = PATTERN_CODE[AccessPattern.ELEMENTWISE]
PAT_BIT = PATTERN_CODE[AccessPattern.BIT_PER_ELEMENT]
PAT_TEMP = PATTERN_CODE[AccessPattern.LIBRARY_TEMP]
PAT_COPY = PATTERN_CODE[AccessPattern.COPY_BLOCKS]
# the patterns walked below (as above: a new member is unhandled until listed with its walk)
HANDLED_PATTERNS = frozenset({
    AccessPattern.ELEMENTWISE, AccessPattern.BIT_PER_ELEMENT, AccessPattern.LIBRARY_TEMP,
    AccessPattern.COPY_BLOCKS, AccessPattern.ELEMENT, AccessPattern.BUFFER,
    AccessPattern.NONE})
HANDLED_PATTERNS |= {AccessPattern.DATA_DEPENDENT}  # one range: the whole tensor
# reductions (instructions/reduce.py): racecheck walks their accesses as whole ranges
HANDLED_PATTERNS |= {AccessPattern.REDUCE_SOURCE, AccessPattern.REDUCE_RESULT,
                     AccessPattern.REDUCE_SCRATCH}
C_REDUCE = int(Dataflow.REDUCE)
HANDLED_DATAFLOW |= {Dataflow.REDUCE}
# P columns: reductions (encode.py; the row params of instructions/reduce.py)
P_RMLO, P_RMHI, P_RGROUP, P_RSBLK, P_RSREP, P_RDREP, P_ROUT = 0, 1, 2, 3, 4, 5, 6

# event types
EV_RAW, EV_WAR, EV_WAW, EV_UNINIT_OUT, EV_UNINIT_SCALAR, EV_GM_UNWRITTEN, EV_USE_FREE = (
    1, 2, 3, 4, 5, 6, 7)
EV_COLS = 10
CLK_ROW = N_FLAGS  # flagclk's scratch row

S, V = 0, 1
PIPE_ALL = 4
W_FLAG, STRIDED_FLAG = 1, 2
# P columns: copies
P_BLOCKS, P_BLEN, P_SPITCH, P_DPITCH, P_LEFT, P_RIGHT, P_PADDED, P_ISPAD = 0, 1, 2, 3, 4, 5, 6, 7
# P columns: high-dimension vector forms
P_MLO, P_MHI, P_BLK, P_REP, P_REPEAT = 0, 1, 2, 5, 8
P_LANES = 9  # repeat form: the lanes it runs (fewer than repeats x E in Counter mode)
# repeat form: the element size of the strided sources when it is not the row dtype's (Cast's
# level-0 form; 0 otherwise). A repeat has 256 / max(sizes) lanes.
P_SSZ = 10
P_COLS = 11


@record_fn
def _emit(ev, evn, typ, rec, other, mem, lo, hi, p, op, x, y):
    """Append an event, merging it into an earlier one of the same record, type, other record
    and memory (one finding per pair of instructions, with the union of the byte ranges)."""
    n = evn[0]
    k = n - 1
    while k >= 0 and k >= n - 16 and ev[k, 1] == rec:
        if ev[k, 0] == typ and ev[k, 2] == other and ev[k, 3] == mem:
            ev[k, 4] = min(ev[k, 4], lo)
            ev[k, 5] = max(ev[k, 5], hi)
            return
        k -= 1
    if n >= ev.shape[0]:
        evn[1] += 1  # dropped
        return
    ev[n, 0] = typ
    ev[n, 1] = rec
    ev[n, 2] = other
    ev[n, 3] = mem
    ev[n, 4] = lo
    ev[n, 5] = hi
    ev[n, 6] = p
    ev[n, 7] = op
    ev[n, 8] = x
    ev[n, 9] = y
    evn[0] = n + 1


@record_fn
def _hb(p, c, q, K, auto):
    if K[q, p] >= c:
        return True
    if auto and ((p == V and q == V) or p == S or q == S):
        return True
    return False


@record_fn
def _block_mask(lo, hi, epb):
    """Bit b set when DataBlock b of a repeat has an enabled element (mask bits lo, hi)."""
    m = 0
    for b in range(8):
        for jj in range(b * epb, (b + 1) * epb):
            bit = ((lo >> jj) & 1) if jj < 64 else ((hi >> (jj - 64)) & 1) if jj < 128 else 0
            if bit:
                m |= 1 << b
                break
    return m


# ---- racecheck on one byte range -------------------------------------------------------------

@record_fn
def _race_check(starts, state, off, nseg, mem, lo, hi, write, q, K, auto, rec, ev, evn):
    base = off[mem]
    n = nseg[mem]
    k = seg_find(starts, base, n, lo)
    while k < n and starts[base + k] < hi:
        s = max(lo, starts[base + k])
        e = hi if k + 1 >= n else min(hi, starts[base + k + 1])
        row = base + k
        wp = state[row, W_PIPE]
        if wp >= 0 and state[row, W_REC] != rec and not _hb(wp, state[row, W_EPOCH], q, K, auto):
            _emit(ev, evn, EV_WAW if write else EV_RAW, rec, state[row, W_REC], mem, s, e, q, wp,
                  0, 0)
        if write:
            for p in range(4):
                ep = state[row, R_EPOCH + p]
                if ep > 0 and state[row, R_REC + p] != rec and not _hb(p, ep, q, K, auto):
                    _emit(ev, evn, EV_WAR, rec, state[row, R_REC + p], mem, s, e, q, p, 0, 0)
        k += 1


@record_fn
def _race_update(starts, state, off, cap, nseg, memsize, mem, lo, hi, write, q, epoch, rec):
    ka = seg_split(starts, state, off, cap, nseg, mem, lo)
    if hi < memsize[mem]:
        kb = seg_split(starts, state, off, cap, nseg, mem, hi)
    else:
        kb = nseg[mem]
    base = off[mem]
    if ka < 0 or kb < 0:  # map full: update the coarser segments that overlap
        ka = seg_find(starts, base, nseg[mem], lo)
        kb = seg_find(starts, base, nseg[mem], hi - 1) + 1
    for k in range(ka, kb):
        row = base + k
        if write:
            state[row, W_PIPE] = q
            state[row, W_EPOCH] = epoch
            state[row, W_REC] = rec
            for p in range(4):
                state[row, R_EPOCH + p] = 0
                state[row, R_REC + p] = -1
        else:
            state[row, R_EPOCH + q] = epoch
            state[row, R_REC + q] = rec
    seg_merge(starts, state, off, nseg, mem, ka, kb)


@record_fn
def _race_range(phase, starts, state, off, cap, nseg, memsize, mem, lo, hi, write, q, K, auto,
                epoch, rec, ev, evn):
    lo = max(lo, 0)
    hi = min(hi, memsize[mem])
    if hi <= lo:
        return
    if phase < 2:
        _race_check(starts, state, off, nseg, mem, lo, hi, write, q, K, auto, rec, ev, evn)
    else:
        _race_update(starts, state, off, cap, nseg, memsize, mem, lo, hi, write, q, epoch, rec)


@record_fn
def _strided_rank(j, a, aoff, af, apat):
    """Access a's position among record j's strided element-wise accesses (its stride slot in
    P: Compare's dense dst, Select's temp area and mask have none)."""
    k = 0
    for x in range(aoff[j], a):
        if (af[x] & STRIDED_FLAG) != 0 and apat[x] == PAT_ELEMENT:
            k += 1
    return k


@record_fn
def _operand_size(j, rank, dsz, P):
    """(element size, lanes per repeat) of the strided operand of this rank in a repeat-form
    record: the sources of Cast's level-0 form have their own size (P_SSZ)."""
    ssz = P[j, P_SSZ] if P[j, P_SSZ] > 0 else dsz[j]
    per = 256 // max(dsz[j], ssz)
    return (ssz if rank > 0 else dsz[j]), per


@record_fn
def _race_record(j, dsz, aoff, af, am, ast, aen, apat, P, q, K, auto, epoch, starts,
                 state, off, cap, nseg, memsize, ev, evn):
    """Check then update every access of record j: reads, writes, then the updates (so an
    in-place instruction does not race with itself)."""
    for phase in range(4):
        want_write = phase == 1 or phase == 3
        for a in range(aoff[j], aoff[j + 1]):
            write = (af[a] & W_FLAG) != 0
            if write != want_write:
                continue
            mem = am[a]
            lo, hi = ast[a], aen[a]
            strided = (af[a] & STRIDED_FLAG) != 0
            if strided and apat[a] == PAT_COPY and P[j, P_BLOCKS] > 1:
                blocks = P[j, P_BLOCKS]
                if write:
                    pitch, blen = P[j, P_DPITCH], P[j, P_PADDED]
                else:
                    pitch, blen = P[j, P_SPITCH], P[j, P_BLEN]
                for k in range(blocks):
                    _race_range(phase, starts, state, off, cap, nseg, memsize, mem,
                                lo + k * pitch, lo + k * pitch + blen, write, q, K, auto, epoch,
                                j, ev, evn)
            elif strided and apat[a] == PAT_ELEMENT:
                o = _strided_rank(j, a, aoff, af, apat)  # 0 = dst, 1.. sources
                blk = P[j, P_BLK + min(o, 2)]
                rep = P[j, P_REP + min(o, 2)]
                sz, per = _operand_size(j, o, dsz, P)
                epb = 32 // sz
                nblk = per // epb  # DataBlocks per repeat: 8, or fewer on Cast's narrow side
                on = _block_mask(P[j, P_MLO], P[j, P_MHI], epb) & ((1 << nblk) - 1)
                lanes = P[j, P_LANES]
                if blk == 1 and rep == nblk and on == (1 << nblk) - 1:  # one contiguous range
                    _race_range(phase, starts, state, off, cap, nseg, memsize, mem, lo,
                                lo + lanes * sz, write, q, K, auto, epoch, j, ev, evn)
                    continue
                for r in range(P[j, P_REPEAT]):
                    rb = lo + r * rep * 32
                    for b in range(nblk):  # the DataBlocks with enabled elements
                        first = r * per + b * epb  # Counter mode: lanes past the count idle
                        if (on >> b) & 1 and first < lanes:
                            s = rb + b * blk * 32
                            _race_range(phase, starts, state, off, cap, nseg, memsize, mem, s,
                                        s + min(32, (lanes - first) * sz), write, q, K,
                                        auto, epoch, j, ev, evn)
            else:
                _race_range(phase, starts, state, off, cap, nseg, memsize, mem, lo, hi, write,
                            q, K, auto, epoch, j, ev, evn)


# ---- initcheck -------------------------------------------------------------------------------

@record_fn
def _ub_clip(lo, hi, ub):
    return max(lo, 0), min(hi, ub)


@record_fn
def _elem_taint(tsum, tb, torig, lo, size, ub, rec):
    """(tainted, origin) of the element of `size` bytes at UB byte lo (outside UB: clean)."""
    s, e = _ub_clip(lo, lo + size, ub)
    if e <= s:
        return False, -1
    return t_read(tsum, tb, torig, s, e, rec)


@record_fn
def _write_elem(tsum, tb, torig, lo, size, ub, tainted, origin):
    s, e = _ub_clip(lo, lo + size, ub)
    if e <= s:
        return
    if tainted:
        t_mark(tsum, tb, torig, s, e, origin)
    else:
        t_clean(tsum, tb, torig, s, e)


@record_fn
def _sources_tainted(j, aoff, af, am, ast, aen, first, ub, tsum, tb):
    for a in range(aoff[j] + first, aoff[j + 1]):
        if am[a] == 0 and (af[a] & W_FLAG) == 0:
            s, e = _ub_clip(ast[a], aen[a], ub)
            if t_any(tsum, tb, s, e):
                return True
    return False


@record_fn
def _elem_offset(jj, epb, blk, rep_base):
    return rep_base + (jj // epb) * blk * epb + jj % epb


@record_fn
def _taint_elementwise(j, cls, count, dsz, aoff, af, am, ast, aen, P, ub, tsum, tb, torig,
                       scr8, scr64):
    a0 = aoff[j]
    nacc = aoff[j + 1] - a0
    size = dsz[j]
    if (af[a0] & STRIDED_FLAG) != 0:
        # high-dimension form: element jj of repeat r, enabled by the mask (the sources of
        # Cast's level-0 form have their own element size)
        epb = 32 // size
        ssz, per = _operand_size(j, 1, dsz, P)
        sepb = 32 // ssz
        lo_mask, hi_mask = P[j, P_MLO], P[j, P_MHI]
        for r in range(P[j, P_REPEAT]):
            for jj in range(min(per, P[j, P_LANES] - r * per)):
                on = ((lo_mask >> jj) & 1) if jj < 64 else ((hi_mask >> (jj - 64)) & 1)
                if not on:
                    continue
                tainted = False
                origin = -1
                for o in range(1, nacc):
                    oo = min(o, 2)
                    base = ast[a0 + o] // ssz + r * P[j, P_REP + oo] * sepb
                    e_ = _elem_offset(jj, sepb, P[j, P_BLK + oo], base)
                    t, org = _elem_taint(tsum, tb, torig, e_ * ssz, ssz, ub, j)
                    if t and not tainted:
                        tainted, origin = True, org
                base = ast[a0] // size + r * P[j, P_REP] * epb
                d = _elem_offset(jj, epb, P[j, P_BLK], base)
                _write_elem(tsum, tb, torig, d * size, size, ub, tainted, origin)
        return
    d0, d1 = _ub_clip(ast[a0], aen[a0], ub)
    if not _sources_tainted(j, aoff, af, am, ast, aen, 1, ub, tsum, tb):
        t_clean(tsum, tb, torig, d0, d1)
        return
    n = count[j]
    if cls[j] == C_BITWISE:
        # bit by bit: dst byte i carries the union of the sources' uninitialised bits
        nb = n * size
        bits, orig = scr8[0], scr64
        bits[:nb] = 0
        orig[:nb] = -1
        for o in range(1, nacc):
            if (af[a0 + o] & W_FLAG) != 0:
                continue
            s = ast[a0 + o]
            for i in range(nb):
                if 0 <= s + i < ub:
                    v = t_get(tsum, tb, s + i)
                    if v:
                        bits[i] |= v
                        if orig[i] < 0:
                            orig[i] = t_origin(tsum, tb, torig, s + i, j)
        for i in range(nb):
            if 0 <= ast[a0] + i < ub:
                t_set(tsum, tb, torig, ast[a0] + i, bits[i], orig[i])
        return
    tflag, orig = scr8[0], scr64
    tflag[:n] = 0
    orig[:n] = -1
    for o in range(1, nacc):
        if (af[a0 + o] & W_FLAG) != 0:  # a scratch the call writes (Power's tmp), no source
            continue
        s = ast[a0 + o]
        ssz = (aen[a0 + o] - s) // n if n else size
        for i in range(n):
            t, org = _elem_taint(tsum, tb, torig, s + i * ssz, ssz, ub, j)
            if t and not tflag[i]:
                tflag[i] = 1
                orig[i] = org
    d = ast[a0]
    dsize = (aen[a0] - d) // n if n else size
    for i in range(n):
        _write_elem(tsum, tb, torig, d + i * dsize, dsize, ub, tflag[i] != 0, orig[i])


@record_fn
def _taint_compare(j, dsz, aoff, af, am, ast, aen, apat, P, ub, tsum, tb, torig):
    a0 = aoff[j]
    d0, d1 = _ub_clip(ast[a0], aen[a0], ub)
    if not _sources_tainted(j, aoff, af, am, ast, aen, 1, ub, tsum, tb):
        t_clean(tsum, tb, torig, d0, d1)
        return
    size = dsz[j]
    nbytes = aen[a0] - ast[a0]
    strided = aoff[j + 1] > a0 + 1 and (af[a0 + 1] & STRIDED_FLAG) != 0
    epb = 32 // size
    per = 8 * epb   # level-0 form: repeat r fills dst bits [r*per, (r+1)*per), dense
    for k in range(nbytes):
        val = 0
        origin = -1
        for bit in range(8):
            i = 8 * k + bit
            for o in range(1, aoff[j + 1] - a0):
                e = ast[a0 + o] + i * size
                if strided:
                    r, jj = i // per, i % per
                    e = size * _elem_offset(jj, epb, P[j, P_BLK + o - 1],
                                            ast[a0 + o] // size + r * P[j, P_REP + o - 1] * epb)
                t, org = _elem_taint(tsum, tb, torig, e, size, ub, j)
                if t:
                    val |= 1 << bit
                    if origin < 0:
                        origin = org
        if 0 <= ast[a0] + k < ub:
            t_set(tsum, tb, torig, ast[a0] + k, np.uint8(val), origin)


@record_fn
def _taint_select(j, count, dsz, par, aoff, af, am, ast, aen, apat, P, ub, tsum, tb, torig):
    """dst element i <- mask bit i and the sources' element i; the library's temp write
    (defined bytes: the scalar in mode 1, selMask's address in mode 2, none in mode 0). The
    level-0 form (strided dst) writes only the lanes its mask enables."""
    a0 = aoff[j]
    mode = par[j]
    dst = mask = -1
    for a in range(a0, aoff[j + 1]):
        if apat[a] == PAT_TEMP:
            t0, t1 = _ub_clip(ast[a], aen[a], ub)
            t_clean(tsum, tb, torig, t0, t1)
        elif apat[a] == PAT_BIT:
            mask = a
        elif af[a] & W_FLAG:
            dst = a
    strided = (af[dst] & STRIDED_FLAG) != 0
    d0, d1 = _ub_clip(ast[dst], aen[dst], ub)
    if not strided and not _sources_tainted(j, aoff, af, am, ast, aen, 0, ub, tsum, tb):
        t_clean(tsum, tb, torig, d0, d1)
        return
    size = dsz[j]
    epb = 32 // size
    per_repeat = 256 // size
    m = ast[mask]
    lo_mask, hi_mask = P[j, P_MLO], P[j, P_MHI]
    for i in range(count[j]):
        r, jj = i // per_repeat, i % per_repeat
        if strided:
            on = ((lo_mask >> jj) & 1) if jj < 64 else ((hi_mask >> (jj - 64)) & 1)
            if not on:
                continue   # the lanes the mask disables keep dst
        bit = jj if mode == 0 else i
        tainted = False
        origin = -1
        mb = m + bit // 8
        if 0 <= mb < ub:
            v = t_get(tsum, tb, mb)
            if (v >> (bit % 8)) & 1:
                tainted, origin = True, t_origin(tsum, tb, torig, mb, j)
        rank = 1
        for a in range(a0, aoff[j + 1]):
            if apat[a] != PAT_ELEMENT or af[a] & W_FLAG:
                continue
            e = ast[a] + i * size
            if strided:
                e = size * _elem_offset(jj, epb, P[j, P_BLK + rank],
                                        ast[a] // size + r * P[j, P_REP + rank] * epb)
                rank += 1
            t, org = _elem_taint(tsum, tb, torig, e, size, ub, j)
            if t and not tainted:
                tainted, origin = True, org
        d = ast[dst] + i * size
        if strided:
            d = size * _elem_offset(jj, epb, P[j, P_BLK], ast[dst] // size + r * P[j, P_REP] * epb)
        _write_elem(tsum, tb, torig, d, size, ub, tainted, origin)


@record_fn
def _taint_gather(j, dsz, aoff, af, am, ast, aen, apat, P, ub, tsum, tb, torig):
    """GATHER: which source bytes reach which dst bytes depends on data (Gather's offsets,
    GatherMask's pattern) or is many-to-one (Brcb), so every written byte becomes uninitialised
    when any byte the call reads is (conservative), and defined otherwise. A strided
    element-wise dst (Brcb) is walked DataBlock by DataBlock; other dsts as their range."""
    tainted = False
    origin = -1
    for a in range(aoff[j], aoff[j + 1]):
        if am[a] == 0 and (af[a] & W_FLAG) == 0:
            s, e = _ub_clip(ast[a], aen[a], ub)
            if e > s:
                t, org = t_read(tsum, tb, torig, s, e, j)
                if t:
                    tainted, origin = True, org
                    break
    for a in range(aoff[j], aoff[j + 1]):
        if am[a] != 0 or (af[a] & W_FLAG) == 0:
            continue
        if (af[a] & STRIDED_FLAG) != 0 and apat[a] == PAT_ELEMENT:
            on = _block_mask(P[j, P_MLO], P[j, P_MHI], 32 // dsz[j])
            for r in range(P[j, P_REPEAT]):
                for b in range(8):
                    if (on >> b) & 1:
                        s = ast[a] + (r * P[j, P_REP] + b * P[j, P_BLK]) * 32
                        _write_elem(tsum, tb, torig, s, 32, ub, tainted, origin)
        else:
            s, e = _ub_clip(ast[a], aen[a], ub)
            if e > s:
                _write_elem(tsum, tb, torig, s, e - s, ub, tainted, origin)


@record_fn
def _taint_reduce(j, count, dsz, aoff, af, ast, aen, P, ub, tsum, tb, torig):
    """Reductions: each result <- every enabled source lane of its group (a repeat, a
    DataBlock, a pair; group 0: every repeat, the level-2 forms, whose sharedTmpBuffer
    carries the same taint). A group with no enabled lane writes nothing."""
    a0 = aoff[j]
    dst, src = a0, a0 + 1
    size = dsz[j]
    epb = 32 // size
    per = 8 * epb
    lo_mask, hi_mask = P[j, P_RMLO], P[j, P_RMHI]
    group = P[j, P_RGROUP]
    whole = group == 0
    if whole:
        group = per
    sblk, srep, drep, out = P[j, P_RSBLK], P[j, P_RSREP], P[j, P_RDREP], P[j, P_ROUT]
    n = count[j]
    s0, s1 = _ub_clip(ast[src], aen[src], ub)
    clean = not t_any(tsum, tb, s0, s1)
    all_t = False
    all_o = -1
    all_on = False
    for r in range(P[j, P_REPEAT]):
        lanes = min(per, n - r * per)
        base = ast[src] + r * srep * 32
        for g in range(per // group):
            on_any = False
            tainted = False
            origin = -1
            for k in range(group):
                jj = g * group + k
                if jj >= lanes:
                    break
                on = ((lo_mask >> jj) & 1) if jj < 64 else ((hi_mask >> (jj - 64)) & 1)
                if not on:
                    continue
                on_any = True
                if clean or tainted:
                    continue
                e = base + (jj // epb) * sblk * 32 + (jj % epb) * size
                t, org = _elem_taint(tsum, tb, torig, e, size, ub, j)
                if t:
                    tainted, origin = True, org
            if whole:
                all_on = all_on or on_any
                if tainted and not all_t:
                    all_t, all_o = True, origin
            elif on_any:
                d = ast[dst] + r * drep + g * out
                _write_elem(tsum, tb, torig, d, out, ub, tainted, origin)
    if whole and all_on:
        _write_elem(tsum, tb, torig, ast[dst], out, ub, all_t, all_o)
        for a in range(a0 + 2, aoff[j + 1]):
            if af[a] & W_FLAG and aen[a] > ast[a]:
                t0, t1 = _ub_clip(ast[a], aen[a], ub)
                if all_t:
                    t_mark(tsum, tb, torig, t0, t1, all_o)
                else:
                    t_clean(tsum, tb, torig, t0, t1)


@record_fn
def _gm_uncovered(gw, gwn, mem, lo, hi, todo):
    """Marks in todo[:hi - lo] the bytes of [lo, hi) this core has not written (1); returns
    whether there is any."""
    todo[:hi - lo] = 1
    for k in range(gwn[0]):
        if gw[k, 0] == mem:
            s = max(lo, gw[k, 1])
            e = min(hi, gw[k, 2])
            for i in range(s, e):
                todo[i - lo] = 0
    for i in range(hi - lo):
        if todo[i]:
            return True
    return False


@record_fn
def _taint_copy(j, pipe, par, aoff, af, am, ast, aen, P, memsize, is_output, ub, tsum, tb,
                torig, gw, gwn, reported, ev, evn, scr8, scr64):
    a0 = aoff[j]
    wa, ra = a0, a0 + 1
    if (af[a0] & W_FLAG) == 0:
        wa, ra = a0 + 1, a0
    dmem, smem = am[wa], am[ra]
    blocks = P[j, P_BLOCKS]
    blen = P[j, P_BLEN]
    left, right, padded = P[j, P_LEFT], P[j, P_RIGHT], P[j, P_PADDED]
    is_pad = P[j, P_ISPAD] != 0
    if dmem != 0 and is_output[dmem]:
        if gwn[0] < gw.shape[0]:
            k = gwn[0]
            gw[k, 0] = dmem
            gw[k, 1] = max(ast[wa], 0)
            gw[k, 2] = min(aen[wa], memsize[dmem])
            gwn[0] = k + 1
    for k in range(blocks):
        s = ast[ra] + k * P[j, P_SPITCH]
        d = ast[wa] + k * P[j, P_DPITCH]
        if dmem == 0:
            # pads and dummy bytes around the data: uninitialised unless padding was asked for
            if left:
                x0, x1 = _ub_clip(d, d + left, ub)
                if is_pad:
                    t_clean(tsum, tb, torig, x0, x1)
                else:
                    t_mark(tsum, tb, torig, x0, x1, -1)
            rp = d + left + blen
            if right and is_pad:
                x0, x1 = _ub_clip(rp, rp + right, ub)
                t_clean(tsum, tb, torig, x0, x1)
                rp += right
            if d + padded > rp:
                x0, x1 = _ub_clip(rp, d + padded, ub)
                if is_pad and (left or right):
                    t_clean(tsum, tb, torig, x0, x1)  # the pad value too [DOC]
                else:
                    t_mark(tsum, tb, torig, x0, x1, -1)
            dd = d + left
        else:
            dd = d
        if smem == 0:
            s0, s1 = _ub_clip(s, s + blen, ub)
            tainted = s1 > s0 and t_any(tsum, tb, s0, s1)
            if dmem == 0:
                if not tainted:
                    x0, x1 = _ub_clip(dd, dd + blen, ub)
                    t_clean(tsum, tb, torig, x0, x1)
                else:
                    # UB -> UB: byte by byte (a snapshot first: the ranges may overlap)
                    vals, orgs = scr8[0], scr64
                    vals[:blen] = 0
                    orgs[:blen] = -1
                    for i in range(blen):
                        if 0 <= s + i < ub:
                            v = t_get(tsum, tb, s + i)
                            if v:
                                vals[i] = v
                                orgs[i] = t_origin(tsum, tb, torig, s + i, j)
                    for i in range(blen):
                        if 0 <= dd + i < ub:
                            t_set(tsum, tb, torig, dd + i, vals[i], orgs[i])
            elif tainted:
                # uninitialised UB bytes reach GM: report once per first reader
                first, last, origin = -1, -1, -1
                for i in range(s0, s1):
                    if t_get(tsum, tb, i):
                        org = t_origin(tsum, tb, torig, i, j)
                        if first < 0:
                            first = i
                            origin = org
                        last = i
                if origin < 0 or not reported[origin]:
                    if origin >= 0:
                        reported[origin] = 1
                    g0 = dd + (first - s)
                    _emit(ev, evn, EV_UNINIT_OUT, j, origin, dmem, g0, g0 + last - first + 1,
                          pipe[j], 0, first, last + 1)
        else:
            # GM -> UB: bytes outside the buffer (already reported) or output bytes this core
            # has not written arrive uninitialised
            g0, g1 = max(s, 0), min(s + blen, memsize[smem])
            clean_all = g0 == s and g1 == s + blen and not is_output[smem]
            if clean_all:
                x0, x1 = _ub_clip(dd, dd + blen, ub)
                t_clean(tsum, tb, torig, x0, x1)
            else:
                todo, unw = scr8[0], scr8[1]
                for i in range(blen):
                    todo[i] = not (g0 <= s + i < g1)
                if is_output[smem] and g1 > g0:
                    _gm_uncovered(gw, gwn, smem, g0, g1, unw)
                    first, last = -1, -1
                    for i in range(g1 - g0):
                        if unw[i]:
                            todo[g0 - s + i] = 1
                            if first < 0:
                                first = i
                            last = i
                    if first >= 0:
                        reported[j] = 1
                        _emit(ev, evn, EV_GM_UNWRITTEN, j, -1, smem, g0 + first, g0 + last + 1,
                              pipe[j], 0, 0, 0)
                else:
                    reported[j] = 1  # out-of-range bytes: memcheck has reported them
                for i in range(blen):
                    if 0 <= dd + i < ub:
                        if todo[i]:
                            t_set(tsum, tb, torig, dd + i, np.uint8(0xFF), j)
                        else:
                            t_set(tsum, tb, torig, dd + i, np.uint8(0), -1)


@record_fn
def _taint_record(j, cls, pipe, count, dsz, par, aoff, af, am, ast, aen, apat, P, memsize,
                  is_output, ub, tsum, tb, torig, gw, gwn, reported, ev, evn, scr8, scr64):
    c = cls[j]
    a0 = aoff[j]
    if c == C_ELEM or c == C_BITWISE or c == C_FILL:
        _taint_elementwise(j, cls, count, dsz, aoff, af, am, ast, aen, P, ub, tsum, tb, torig,
                           scr8, scr64)
        for a in range(a0 + 1, aoff[j + 1]):  # a scratch written besides dst: defined bytes
            if (af[a] & W_FLAG) != 0 and am[a] == 0:
                s_, e_ = _ub_clip(ast[a], aen[a], ub)
                if s_ < e_:
                    t_clean(tsum, tb, torig, s_, e_)
    elif c == C_COMPARE:
        _taint_compare(j, dsz, aoff, af, am, ast, aen, apat, P, ub, tsum, tb, torig)
    elif c == C_SELECT:
        _taint_select(j, count, dsz, par, aoff, af, am, ast, aen, apat, P, ub, tsum, tb,
                      torig)
    elif c == C_GATHER:
        _taint_gather(j, dsz, aoff, af, am, ast, aen, apat, P, ub, tsum, tb, torig)
    elif c == C_REDUCE:
        _taint_reduce(j, count, dsz, aoff, af, ast, aen, P, ub, tsum, tb, torig)
    elif c == C_COPY:
        _taint_copy(j, pipe, par, aoff, af, am, ast, aen, P, memsize, is_output, ub, tsum, tb,
                    torig, gw, gwn, reported, ev, evn, scr8, scr64)
    elif c == C_QALLOC:
        s, e = _ub_clip(ast[a0], aen[a0], ub)
        t_mark(tsum, tb, torig, s, e, -1)
    elif c == C_GET:
        mem = am[a0]
        if mem == 0:
            s, e = _ub_clip(ast[a0], aen[a0], ub)
            t, origin = t_read(tsum, tb, torig, s, e, j)
            if t:
                _emit(ev, evn, EV_UNINIT_SCALAR, j, origin, 0, s, e, pipe[j], 0, 0, 0)
        elif is_output[mem]:
            g0, g1 = max(ast[a0], 0), min(aen[a0], memsize[mem])
            if g1 > g0:
                if _gm_uncovered(gw, gwn, mem, g0, g1, scr8[1]):
                    _emit(ev, evn, EV_GM_UNWRITTEN, j, -1, mem, g0, g1, pipe[j], 0, 0, 0)
    elif c == C_PUT:
        for a in range(a0, aoff[j + 1]):
            if af[a] & W_FLAG:
                mem = am[a]
                if mem == 0:
                    s, e = _ub_clip(ast[a], aen[a], ub)
                    t_clean(tsum, tb, torig, s, e)
                elif is_output[mem] and gwn[0] < gw.shape[0]:
                    k = gwn[0]
                    gw[k, 0] = mem
                    gw[k, 1] = max(ast[a], 0)
                    gw[k, 2] = min(aen[a], memsize[mem])
                    gwn[0] = k + 1


# ---- the pass --------------------------------------------------------------------------------

@record_fn
def _join(K, q, clk):
    for p in range(4):
        if clk[p] > K[q, p]:
            K[q, p] = clk[p]


@record_fn
def _execute(j, cls, pipe, count, dsz, par, aoff, af, am, ast, aen, apat, P, memsize, is_output,
             auto, ub, K, nep, flagset, flagclk, pend, starts, state, off, cap, nseg, tsum, tb,
             torig, gw, gwn, reported, ev, evn, executed, scr8, scr64):
    """Run record j on its pipe; returns the pipe a SetFlag released (or -1)."""
    executed[j] = 1
    c = cls[j]
    q = pipe[j]
    if q == PIPE_ALL:  # PipeBarrier<PIPE_ALL>: every pipe drains
        for r in range(4):
            for p in range(4):
                if nep[p] > K[r, p]:
                    K[r, p] = nep[p]
        return -1
    nep[q] += 1
    epoch = nep[q]
    released = -1
    if c == C_SET:
        f = par[j]
        clk = flagclk[CLK_ROW]  # a scratch row (nothing here allocates)
        for p in range(4):
            clk[p] = K[q, p]
        clk[q] = epoch
        if not flagset[f]:
            flagset[f] = 1
            for p in range(4):
                flagclk[f, p] = clk[p]
            for r in range(4):
                if pend[r] == f:
                    pend[r] = -1
                    flagset[f] = 0
                    _join(K, r, clk)
                    released = r
                    break
    elif c == C_WAIT:
        f = par[j]
        if flagset[f]:
            flagset[f] = 0
            if q == S:
                for r in range(4):
                    _join(K, r, flagclk[f])
            else:
                _join(K, q, flagclk[f])
        elif q != S:
            pend[q] = f  # the pipe stalls until the SetFlag (the scalar case is a deadlock)
    elif c == C_BARRIER:
        bp = par[j]
        if 0 <= bp < 4 and nep[bp] > K[bp, bp]:
            K[bp, bp] = nep[bp]
    elif c >= C_GET or c == C_QALLOC:
        if c != C_QALLOC:
            _race_record(j, dsz, aoff, af, am, ast, aen, apat, P, q, K, auto, epoch, starts,
                         state, off, cap, nseg, memsize, ev, evn)
        _taint_record(j, cls, pipe, count, dsz, par, aoff, af, am, ast, aen, apat, P, memsize,
                      is_output, ub, tsum, tb, torig, gw, gwn, reported, ev, evn, scr8, scr64)
    if q == S:
        K[S, S] = nep[S]  # the scalar unit completes in order
    return released


@njit(cache=True, nogil=True, error_model="numpy")
def _queue_pass(cls, par, aoff, af, am, ast, aen, apat, bstart, bend, bque, blive, ub, ev,
                evn):
    """Issue order: a UB access to a queue buffer that is free (never allocated, or freed);
    only while the buffer exists (records [blive[b, 0], blive[b, 1]): TPipe.Reset lays UB out
    afresh, and old and new buffers may overlap)."""
    m = cls.shape[0]
    nb = bstart.shape[0]
    state = np.zeros(nb, np.int64)
    freed = np.zeros(nb, np.int64)
    for b in range(nb):
        if not bque[b]:
            state[b] = 1
    for j in range(m):
        c = cls[j]
        if c == C_QALLOC:
            state[par[j]] = 1
        elif c == C_QENQUE:
            state[par[j]] = 2
        elif c == C_QDEQUE:
            state[par[j]] = 3
        elif c == C_QFREE:
            state[par[j]] = 0
            freed[par[j]] = 1
        elif c >= C_GET:
            for a in range(aoff[j], aoff[j + 1]):
                if am[a] != 0 or apat[a] == PAT_TEMP:  # the library's write is not the kernel's
                    continue
                lo, hi = max(ast[a], 0), min(aen[a], ub)
                for b in range(nb):
                    if bstart[b] < hi and lo < bend[b] and bque[b] and state[b] == 0 and \
                            blive[b, 0] <= j < blive[b, 1]:
                        _emit(ev, evn, EV_USE_FREE, j, -1, 0, max(lo, bstart[b]),
                              min(hi, bend[b]), 0, 0, b, freed[b])


@njit(cache=True, nogil=True, error_model="numpy")
def _scratch_size(cls, count, dsz, aoff, ast, aen, P):
    """Entries the taint rules' scratch needs: an element-wise record's element count times
    its element size (bit by bit), a copy's block length, a scalar read's bytes."""
    need = 1
    for j in range(cls.shape[0]):
        c = cls[j]
        if c == C_ELEM or c == C_BITWISE or c == C_FILL:
            need = max(need, count[j] * dsz[j])
        elif c == C_COPY:
            need = max(need, P[j, P_BLEN])
        elif c == C_GET and aoff[j + 1] > aoff[j]:
            need = max(need, aen[aoff[j]] - ast[aoff[j]])
    return need


@njit(cache=True, nogil=True, error_model="numpy")
def analyse_cores(which, rows_at, aoff, buf_at, order, cls, pipe, count, dsz, par, af, am, ast,
                  aen, apat, P, subranges, bstart, bend, bque, blive, memsize, is_output, auto,
                  ub, ev_at, ev, evn, executed):
    """The whole offline pass of each core c in `which`, on the joined columns of a launch's
    encoding (encode.EncodedRun: core c's records are rows_at[c]:rows_at[c + 1], their
    accesses aoff[rows_at[c]]:aoff[rows_at[c + 1]], its buffers buf_at[c]:buf_at[c + 1]).
    Its events go to ev[ev_at[c]:ev_at[c + 1]], evn[c] = (their count, the ones dropped);
    executed[j] = 1 for every record that ran (a deadlocked pipe's backlog never does). One
    call for many cores: a thread running it needs the GIL once, not once per core. (The
    per-core body is written out here, not called: a jitted callee this large would be
    compiled into the caller's code again, 3 s more of a first check-mode run.)"""
    nmem = memsize.shape[0]
    # the taint bytes, for every core: no need to clear them between cores (a FRESH block's
    # bytes are set when it is first materialised, and each core starts all FRESH)
    tb = np.empty(ub, np.uint8)
    torig = np.empty(ub, np.int64)
    for c in which:
        r0, r1 = rows_at[c], rows_at[c + 1]
        if r1 == r0:
            continue
        a0, a1 = aoff[r0], aoff[r1]
        b0, b1 = buf_at[c], buf_at[c + 1]
        # this core's slices (record indices are the core's own)
        c_order, c_cls, c_pipe = order[r0:r1], cls[r0:r1], pipe[r0:r1]
        c_count, c_dsz, c_par, c_P = count[r0:r1], dsz[r0:r1], par[r0:r1], P[r0:r1]
        c_aoff = aoff[r0:r1 + 1] - a0
        c_af, c_am, c_ast, c_aen, c_apat = af[a0:a1], am[a0:a1], ast[a0:a1], aen[a0:a1], \
            apat[a0:a1]
        c_ev, c_evn, c_executed = ev[ev_at[c]:ev_at[c + 1]], evn[c], executed[r0:r1]
        m = r1 - r0
        _queue_pass(c_cls, c_par, c_aoff, c_af, c_am, c_ast, c_aen, c_apat, bstart[b0:b1],
                    bend[b0:b1], bque[b0:b1], blive[b0:b1], ub, c_ev, c_evn)
        # segment maps: two rows per access boundary and memory, strided splits, spare
        counts = np.zeros(nmem, np.int64)
        gw_cap = 1  # the GM writes' table: a row per GM write, one spare
        for k in range(a0, a1):
            if am[k] < nmem:
                counts[am[k]] += 1
            if am[k] != 0 and af[k] & 1:
                gw_cap += 1
        caps = np.minimum(2 * (counts + subranges[c]) + 4, memsize + 2)
        off = np.zeros(nmem, np.int64)
        for k in range(1, nmem):
            off[k] = off[k - 1] + caps[k - 1]
        total = off[nmem - 1] + caps[nmem - 1]
        starts = np.zeros(total, np.int64)
        state = np.zeros((total, NST), np.int64)
        for r in range(total):
            state[r, W_PIPE] = -1
            for p in range(4):
                state[r, R_REC + p] = -1
        nseg = np.ones(nmem, np.int64)
        # clocks and flags
        K = np.zeros((4, 4), np.int64)
        nep = np.zeros(4, np.int64)
        flagset = np.zeros(N_FLAGS, np.int64)
        flagclk = np.zeros((N_FLAGS + 1, 4), np.int64)  # + the scratch row CLK_ROW
        pend = np.full(4, -1, np.int64)
        # taint
        tsum = t_new(ub)  # UB at kernel start: never written
        gw = np.zeros((gw_cap, 3), np.int64)
        gwn = np.zeros(1, np.int64)
        reported = np.zeros(m, np.uint8)
        need = _scratch_size(c_cls, c_count, c_dsz, c_aoff, c_ast, c_aen, c_P)
        scr8 = np.empty((2, need), np.uint8)
        scr64 = np.empty(need, np.int64)
        # per-pipe backlogs of records issued to a stalled pipe
        backlog = np.zeros((4, m), np.int64)
        head = np.zeros(4, np.int64)
        tail = np.zeros(4, np.int64)
        stack = np.zeros(64, np.int64)
        _run_records(c_order, c_cls, c_pipe, c_count, c_dsz, c_par, c_aoff, c_af, c_am, c_ast,
                     c_aen, c_apat, c_P, memsize, is_output, auto, ub, K, nep, flagset,
                     flagclk, pend, starts, state, off, caps, nseg, tsum, tb, torig, gw, gwn,
                     reported, c_ev, c_evn, c_executed, scr8, scr64, backlog, head, tail,
                     stack)


@record_fn
def _run_records(order, cls, pipe, count, dsz, par, aoff, af, am, ast, aen, apat, P, memsize,
                 is_output, auto, ub, K, nep, flagset, flagclk, pend, starts, state, off, caps,
                 nseg, tsum, tb, torig, gw, gwn, reported, ev, evn, executed, scr8, scr64,
                 backlog, head, tail, stack):
    """analyse_cores's loop over a core's records in issue order (apart from it, as a record_fn: a
    call from code with reference counting counts every array argument up and down)."""
    for idx in range(order.shape[0]):
        j = order[idx]
        q = pipe[j]
        if q < 4 and (pend[q] >= 0 or head[q] < tail[q]):
            backlog[q, tail[q]] = j
            tail[q] += 1
            continue
        r = _execute(j, cls, pipe, count, dsz, par, aoff, af, am, ast, aen, apat, P, memsize,
                     is_output, auto, ub, K, nep, flagset, flagclk, pend, starts, state, off,
                     caps, nseg, tsum, tb, torig, gw, gwn, reported, ev, evn, executed, scr8,
                     scr64)
        sp = 0
        if r >= 0:
            stack[0] = r
            sp = 1
        while sp > 0:
            p = stack[sp - 1]
            if head[p] < tail[p] and pend[p] < 0:
                jj = backlog[p, head[p]]
                head[p] += 1
                r2 = _execute(jj, cls, pipe, count, dsz, par, aoff, af, am, ast, aen, apat, P,
                              memsize, is_output, auto, ub, K, nep, flagset, flagclk, pend,
                              starts, state, off, caps, nseg, tsum, tb, torig, gw, gwn,
                              reported, ev, evn, executed, scr8, scr64)
                if r2 >= 0 and sp < stack.shape[0]:
                    stack[sp] = r2
                    sp += 1
            else:
                sp -= 1


_I64, _B = types.Array(types.int64, 1, "C"), types.Array(types.boolean, 1, "C")
_I64_2D = types.Array(types.int64, 2, "C")
_U8 = types.Array(types.uint8, 1, "C")
# The argument types offline._Passes gives analyse_cores (tests/test_prewarm.py holds them to
# it).
SIGNATURES = (
    (analyse_cores, ((_I64,) * 15 + (_I64_2D, _I64, _I64, _I64, _B, _I64_2D, _I64, _B,
                                      types.boolean, types.int64, _I64, _I64_2D, _I64_2D,
                                      _U8))),
)


def prewarm() -> None:
    """Compile the offline pass for the argument types offline gives it (ascsim.prewarm runs
    this in a worker process while a check-mode command runs its kernel: the pass takes about
    15 s to compile, the kernel's first run a few)."""
    for fn, sig in SIGNATURES:
        fn.compile(sig)
