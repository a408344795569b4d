"""Shadow state of the offline checks, in numba: a segment map per memory for racecheck and a
two-level taint map of the UB for initcheck.

Segment map: a memory is cut into segments of uniform access history, kept as sorted start
offsets (`starts[0] == 0`) with one state row each; segment k covers [starts[k], starts[k+1]).
Kernels touch large contiguous ranges, so a memory holds tens of segments and an access costs a
binary search and a short loop, whatever its size (per instruction, not per byte). All maps of
a core live in one pair of arrays: map `m` owns rows [off[m], off[m] + cap[m]).

State row (racecheck, FastTrack style): the last writer (pipe, epoch, record) and, per pipe,
the last reader (epoch, record). A write resets the readers: any earlier reader was checked
against it, so later accesses need only compare with the new write.

Taint map: `tb[byte]` holds the uninitialised bits of each UB byte (0xFF for an element, single
bits for compare masks) and `torig[byte]` 1 + the record that first read it (0: not read yet);
`tsum[block]` summarises a 32-byte block as clean or wholly fresh (then `tb` may be stale) or
byte-exact. Clean writes and fresh allocations over whole blocks only touch `tsum`, and a count
of unclean blocks per super-block of 64 blocks lets range operations step over clean 2 KB at
once, so a clean kernel costs a pass over about 1/2048 of its bytes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# state columns
W_PIPE, W_EPOCH, W_REC = 0, 1, 2
R_EPOCH = 3   # + pipe
R_REC = 7     # + pipe
NST = 11
BLOCK = 32


def new_maps(sizes: np.ndarray, caps: np.ndarray) -> tuple[np.ndarray, ...]:
    """(starts, state, off, cap, nseg) for memories of `sizes` bytes with `caps` segments."""
    caps = np.maximum(caps.astype(np.int64), 2)
    off = np.zeros(len(caps), np.int64)
    if len(caps) > 1:
        off[1:] = np.cumsum(caps)[:-1]
    total = int(caps.sum())
    starts = np.zeros(total, np.int64)
    state = np.zeros((total, NST), np.int64)
    state[:, W_PIPE] = -1
    state[:, R_REC:R_REC + 4] = -1
    nseg = np.ones(len(caps), np.int64)
    return starts, state, off, caps, nseg


# The functions a record runs are compiled without numba's reference counting: a call of a
# function that takes arrays otherwise counts every array argument up and down, atomically, on
# entry and exit, which was about half of the pass's time (a record passes some thirty arrays
# down a few calls). They therefore allocate nothing (not even a copy for a slice assignment):
# passes.analyse_cores owns every array, scratch included.
record_fn = njit(cache=True, nogil=True, error_model="numpy", _nrt=False)


@record_fn
def _copy_row(state, dst, src):
    for c in range(NST):
        state[dst, c] = state[src, c]


@record_fn
def seg_find(starts, off, n, pos):
    """Index (relative to off) of the segment holding byte `pos`."""
    lo, hi = 0, n - 1
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if starts[off + mid] <= pos:
            lo = mid
        else:
            hi = mid - 1
    return lo


@record_fn
def seg_split(starts, state, off, cap, nseg, mem, pos):
    """Make `pos` a segment boundary; returns the index of the segment starting at pos (or -1
    when the map is full: the caller then works on the coarser segment)."""
    n = nseg[mem]
    k = seg_find(starts, off[mem], n, pos)
    if starts[off[mem] + k] == pos:
        return k
    if n >= cap[mem]:
        return -1
    base = off[mem]
    for j in range(n, k + 1, -1):
        starts[base + j] = starts[base + j - 1]
        _copy_row(state, base + j, base + j - 1)
    starts[base + k + 1] = pos
    _copy_row(state, base + k + 1, base + k)
    nseg[mem] = n + 1
    return k + 1


@record_fn
def seg_merge(starts, state, off, nseg, mem, k0, k1):
    """Merge equal neighbours among segments k0-1 .. k1 (after an update of k0..k1-1)."""
    base = off[mem]
    n = nseg[mem]
    lo = max(k0 - 1, 0)
    hi = min(k1, n - 1)
    w = lo
    for k in range(lo + 1, n):
        if k <= hi:
            same = True
            for c in range(NST):
                if state[base + k, c] != state[base + w, c]:
                    same = False
                    break
            if same:
                continue
        w += 1
        if w != k:
            starts[base + w] = starts[base + k]
            _copy_row(state, base + w, base + k)
    nseg[mem] = w + 1


# ---- taint -----------------------------------------------------------------------------------
# tsum[block]: CLEAN = no uninitialised bit (tb may be stale), BYTES = tb/torig hold the truth,
# FRESH = every byte uninitialised and not read yet (tb/torig may be stale): what UB at kernel
# start and a fresh AllocTensor buffer are, set without touching the bytes.
# tsum[NB + k] (NB: the UB's blocks) counts the blocks of super-block k (SUPER blocks) that are
# not CLEAN: range operations step over a clean super-block whole, so cleaning or testing a
# clean 32 KB tile takes 16 steps instead of 1024. Only _set_block and _fill_super write a
# block's summary (they keep the counts).
CLEAN, BYTES, FRESH = 0, 1, 2
SUPER = 64


@njit(cache=True, nogil=True, error_model="numpy")
def t_new(ub):
    """The summaries of a UB of `ub` bytes at kernel start: every block FRESH."""
    nb = (ub + BLOCK - 1) // BLOCK
    ns = (nb + SUPER - 1) // SUPER
    tsum = np.full(nb + ns, FRESH, np.uint8)
    for k in range(ns):
        tsum[nb + k] = min(SUPER, nb - k * SUPER)
    return tsum


@record_fn
def _super(tb, b):
    """tsum's index of block b's super-block count."""
    return (tb.shape[0] + BLOCK - 1) // BLOCK + b // SUPER


@record_fn
def _set_block(tsum, tb, b, v):
    old = tsum[b]
    if old != v:
        if old == CLEAN:
            tsum[_super(tb, b)] += 1
        elif v == CLEAN:
            tsum[_super(tb, b)] -= 1
        tsum[b] = v


@record_fn
def _whole_super(tb, b, lo, hi):
    """Whether block b starts a full super-block that lies inside [lo, hi) (the UB's last
    super-block may be short: never whole)."""
    nb = (tb.shape[0] + BLOCK - 1) // BLOCK
    return (b % SUPER == 0 and b * BLOCK >= lo and (b + SUPER) * BLOCK <= hi
            and b + SUPER <= nb)


@record_fn
def _fill_super(tsum, tb, b, v):
    """Every block of the super-block starting at block b becomes v (CLEAN or FRESH)."""
    tsum[b:b + SUPER] = v
    tsum[_super(tb, b)] = 0 if v == CLEAN else SUPER


@record_fn
def _dirty_from(tsum, tb, b, b1):
    """The first block from b on that is not in an all-CLEAN super-block (b1 + 1 or past it
    when there is none up to b1)."""
    while b <= b1 and tsum[_super(tb, b)] == 0:
        b = (b // SUPER + 1) * SUPER
    return b


@record_fn
def _materialise(tsum, tb, torig, b):
    s = b * BLOCK
    if tsum[b] == FRESH:
        for j in range(s, s + BLOCK):
            tb[j] = 0xFF
            torig[j] = 0
    else:
        for j in range(s, s + BLOCK):
            tb[j] = 0
    _set_block(tsum, tb, b, BYTES)


@record_fn
def t_any(tsum, tb, lo, hi):
    """Whether any byte of [lo, hi) carries an uninitialised bit."""
    if hi <= lo:
        return False
    b, b1 = lo // BLOCK, (hi - 1) // BLOCK
    while True:
        b = _dirty_from(tsum, tb, b, b1)
        if b > b1:
            return False
        if tsum[b] == FRESH:
            return True
        if tsum[b]:
            s = max(lo, b * BLOCK)
            e = min(hi, b * BLOCK + BLOCK)
            for i in range(s, e):
                if tb[i]:
                    return True
        b += 1


@record_fn
def t_clean(tsum, tb, torig, lo, hi):
    """Mark [lo, hi) written with defined data."""
    if hi <= lo:
        return
    b, b1 = lo // BLOCK, (hi - 1) // BLOCK
    while True:
        b = _dirty_from(tsum, tb, b, b1)
        if b > b1:
            return
        if _whole_super(tb, b, lo, hi):
            _fill_super(tsum, tb, b, CLEAN)
            b += SUPER
            continue
        if tsum[b]:
            s = b * BLOCK
            if lo <= s and s + BLOCK <= hi:
                _set_block(tsum, tb, b, CLEAN)
            else:
                if tsum[b] == FRESH:
                    _materialise(tsum, tb, torig, b)
                for i in range(max(lo, s), min(hi, s + BLOCK)):
                    tb[i] = 0
        b += 1


@record_fn
def t_set(tsum, tb, torig, i, val, origin):
    """Set byte i's taint bits to `val` (0 = clean) with `origin` (-1: not read yet)."""
    b = i // BLOCK
    if tsum[b] != BYTES:
        if val == 0 and tsum[b] == CLEAN:
            return
        _materialise(tsum, tb, torig, b)
    tb[i] = val
    if val:
        torig[i] = origin + 1


@record_fn
def t_get(tsum, tb, i):
    t = tsum[i // BLOCK]
    return tb[i] if t == BYTES else (np.uint8(0xFF) if t == FRESH else np.uint8(0))


@record_fn
def t_mark(tsum, tb, torig, lo, hi, origin):
    """Mark [lo, hi) wholly uninitialised (0xFF) with `origin`; not-yet-read whole blocks only
    change their summary."""
    if hi <= lo:
        return
    b, b1 = lo // BLOCK, (hi - 1) // BLOCK
    while b <= b1:
        if origin < 0 and _whole_super(tb, b, lo, hi):
            _fill_super(tsum, tb, b, FRESH)
            b += SUPER
            continue
        s = b * BLOCK
        if origin < 0 and lo <= s and s + BLOCK <= hi:
            _set_block(tsum, tb, b, FRESH)
        else:
            for i in range(max(lo, s), min(hi, s + BLOCK)):
                t_set(tsum, tb, torig, i, np.uint8(0xFF), origin)
        b += 1


@record_fn
def t_origin(tsum, tb, torig, i, rec):
    """The first reader of tainted byte i, making `rec` its first reader if it has none."""
    b = i // BLOCK
    if tsum[b] == FRESH:
        _materialise(tsum, tb, torig, b)
    if torig[i] == 0:
        torig[i] = rec + 1
    return torig[i] - 1


@record_fn
def t_read(tsum, tb, torig, lo, hi, rec):
    """(any tainted, origin) of [lo, hi): the origin is the record that first read the bytes;
    bytes nobody has read yet get `rec` as their first reader."""
    found = False
    origin = -1
    if hi <= lo:
        return found, origin
    b, b1 = lo // BLOCK, (hi - 1) // BLOCK
    while True:
        b = _dirty_from(tsum, tb, b, b1)
        if b > b1:
            return found, origin
        if tsum[b]:
            if tsum[b] == FRESH:
                _materialise(tsum, tb, torig, b)
            for i in range(max(lo, b * BLOCK), min(hi, b * BLOCK + BLOCK)):
                if tb[i]:
                    if torig[i] == 0:
                        torig[i] = rec + 1
                    if not found:
                        found = True
                        origin = torig[i] - 1
        b += 1
