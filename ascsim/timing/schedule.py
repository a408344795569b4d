"""The scheduler: turn costed records into start/end cycles on every pipe of every core.

Per core (docs/timing.md has the full statement):
- the scalar unit issues records in program order, `issue_cycles` each (a record reaches its
  pipe's queue when its issue slot ends); what it runs itself
  (queue bookkeeping, GetValue/SetValue, SetFlag from S, WaitFlag to S, PipeBarrier<PIPE_ALL>)
  occupies it; a WaitFlag to S stalls issue until the flag is set; PIPE_ALL waits for every
  pipe to drain. Instruction queues are unbounded (their depth is not published);
- each pipe (V, MTE2, MTE3) runs its records in order: start = max(issue, the pipe accepts);
  an instruction ends `fixed + work` cycles later and the pipe accepts the next one at
  `end - min(overlap, fixed)` (`overlap` from the profile: 0 = strictly one after another);
- SetFlag starts when all earlier work on its pipe has ended, and the flag is set when it ends;
  WaitFlag starts no earlier than the end of its SetFlag (the k-th WaitFlag of a flag pairs
  with the k-th SetFlag of that flag), holding the pipe behind it; PipeBarrier starts when its
  pipe has drained. Queue (TQue) events are ordinary SetFlag/WaitFlag records.

Cores are independent except for HBM: a copy moves its effective bytes at the rate it gets,
`min(per-core bandwidth of its engine, fair share of HBM)`, shared max-min fairly between all
copies of all cores that are moving data at that moment. That coupling is simulated exactly
as a discrete-event simulation over copy start/finish events in global time order (ties:
finishes first, then lower core, MTE2 before MTE3), so the result is deterministic and does not
depend on the order cores ran in. Everything between copies is computed eagerly per core.

The loops are numba-compiled; cost per record is a few dozen operations, and every HBM event
scans the 2 x cores copy slots.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from ..core import PIPE_MTE2, PIPE_MTE3, PIPE_S
from .cost import K_BAR, K_BAR_ALL, K_COPY, K_SCALAR, K_SET, K_WAIT, K_XSYNC, K_XWAIT

__all__ = ["simulate", "pair_flags", "lane_busy", "prewarm", "LANE_FLOWCTRL", "N_LANES",
           "LANE_NAMES"]


LANE_FLOWCTRL = 4  # lanes 0..3 are the pipes S, V, MTE2, MTE3
N_LANES = 5
# Lane names as msprof's simulator trace calls them.
LANE_NAMES = ("SCALAR", "VECTOR", "MTE2", "MTE3", "FLOWCTRL")
_INF = np.inf


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _on_pipe(kind, pipe):
    """Does the record go to a pipe queue (True) or run on the scalar unit (False)?"""
    return pipe != PIPE_S and kind != K_SCALAR and kind != K_BAR_ALL


@njit(cache=True, nogil=True, error_model="numpy")
def pair_flags(kind, flag, off, n_flags):
    """pair[w] = the SetFlag record that WaitFlag record w consumes (-1: none; -1 elsewhere)."""
    n = kind.size
    pair = np.full(n, -1, np.int64)
    nxt = np.full(n, -1, np.int64)
    head = np.empty(n_flags, np.int64)
    tail = np.empty(n_flags, np.int64)
    for c in range(off.size - 1):
        head[:] = -1
        tail[:] = -1
        for r in range(off[c], off[c + 1]):  # per flag, a list of its SetFlags in order
            if kind[r] == K_SET:
                f = flag[r]
                if tail[f] < 0:
                    head[f] = r
                else:
                    nxt[tail[f]] = r
                tail[f] = r
        for r in range(off[c], off[c + 1]):
            if kind[r] == K_WAIT:
                f = flag[r]
                if head[f] >= 0:
                    pair[r] = head[f]
                    head[f] = nxt[head[f]]
    return pair


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _xsync_arrive(r, t, pair, xoff, xmem, arr, start, end, fixed):
    """Core arrives at SyncAll record r at time t; when every member of its group has
    arrived, all of them end at the last arrival + fixed (each starts at its own arrival, so
    the span shows the wait)."""
    arr[r] = t
    g = pair[r]
    last = t
    for i in range(xoff[g], xoff[g + 1]):
        m = xmem[i]
        if arr[m] < 0:
            return
        last = max(last, arr[m])
    for i in range(xoff[g], xoff[g + 1]):
        m = xmem[i]
        start[m] = arr[m]
        end[m] = last + fixed[m]


@njit(cache=True, nogil=True, error_model="numpy")
def _advance(c, kind, pipe, fixed, work, pair, off, plist, poff, issue, start, end, ts, nxt,
             issued, head, accept, drain, slot_state, slot_rec, slot_time, issue_cycles,
             overlap, xoff, xmem, arr):
    """Schedule everything of core c that does not wait for a copy still moving data (or for
    another core); returns whether it placed anything."""
    placed = False
    progress = True
    while progress:
        progress = False
        # the scalar unit, in program order
        while nxt[c] < off[c + 1]:
            r = nxt[c]
            k = kind[r]
            p = pipe[r]
            if _on_pipe(k, p):  # queued when its issue slot ends
                ts[c] += issue_cycles
                issue[r] = ts[c]
                issued[c * 4 + p] += 1
            elif k == K_WAIT or k == K_XWAIT:
                s = pair[r]
                if k == K_WAIT and (s < 0 or end[s] < 0):
                    break
                if k == K_XWAIT and s >= 0 and end[s] < 0:
                    break  # the CrossCoreSetFlag on the other core has not fired yet
                issue[r] = ts[c]
                start[r] = max(ts[c], end[s]) if s >= 0 else ts[c]
                end[r] = start[r] + fixed[r]
                ts[c] = end[r]
            elif k == K_XSYNC:
                if end[r] < 0:
                    if arr[r] < 0:
                        t = ts[c]
                        for q in range(1, 4):
                            t = max(t, drain[c * 4 + q])
                        issue[r] = ts[c]
                        _xsync_arrive(r, t, pair, xoff, xmem, arr, start, end, fixed)
                    if end[r] < 0:
                        break
                ts[c] = end[r]
            elif k == K_BAR_ALL:
                t = ts[c]
                ready = True
                for q in range(1, 4):
                    if head[c * 4 + q] < issued[c * 4 + q]:
                        ready = False
                    t = max(t, drain[c * 4 + q])
                if not ready:
                    break
                issue[r] = ts[c]
                start[r] = t
                end[r] = t + fixed[r]
                ts[c] = end[r]
                for q in range(1, 4):
                    accept[c * 4 + q] = max(accept[c * 4 + q], end[r])
                    drain[c * 4 + q] = max(drain[c * 4 + q], end[r])
            else:  # scalar work, and SetFlag from S (all earlier S work is done by now)
                issue[r] = ts[c]
                start[r] = ts[c]
                end[r] = ts[c] + fixed[r] + (work[r] if k == K_SCALAR else 0.0)
                ts[c] = end[r]
            nxt[c] += 1
            progress = True
            placed = True
        # each pipe, in order
        for p in range(1, 4):
            i = c * 4 + p
            while head[i] < issued[i] and slot_state[i] == 0:
                r = plist[poff[i] + head[i]]
                k = kind[r]
                if k == K_WAIT:
                    s = pair[r]
                    if s < 0 or end[s] < 0:
                        break
                    st = max(issue[r], accept[i], end[s])
                    en = st + fixed[r]
                    acc = en
                elif k == K_SET or k == K_BAR:
                    st = max(issue[r], accept[i], drain[i])
                    en = st + fixed[r]
                    acc = en
                elif k == K_COPY:
                    # the HBM simulation moves its bytes; the pipe waits until it is done
                    start[r] = max(issue[r], accept[i])
                    slot_state[i] = 1
                    slot_rec[i] = r
                    slot_time[i] = start[r]
                    progress = True
                    placed = True
                    break
                else:
                    st = max(issue[r], accept[i])
                    en = st + fixed[r] + work[r]
                    acc = en - min(overlap[p], fixed[r])
                start[r] = st
                end[r] = en
                accept[i] = acc
                drain[i] = max(drain[i], en)
                head[i] += 1
                progress = True
                placed = True
    return placed


@njit(cache=True, nogil=True, error_model="numpy")
def _advance_all(kind, pipe, fixed, work, pair, off, plist, poff, issue, start, end, ts, nxt,
                 issued, head, accept, drain, slot_state, slot_rec, slot_time, issue_cycles,
                 overlap, xoff, xmem, arr):
    """Advance every core until none can place anything more: what one core did may release
    another waiting at a SyncAll or a CrossCoreWaitFlag (all at the same simulated instant)."""
    again = True
    while again:
        again = False
        for c in range(off.size - 1):
            if _advance(c, kind, pipe, fixed, work, pair, off, plist, poff, issue, start, end,
                        ts, nxt, issued, head, accept, drain, slot_state, slot_rec, slot_time,
                        issue_cycles, overlap, xoff, xmem, arr):
                again = True


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _rates(n2, n3, c2, c3, hbm):
    """Max-min fair per-copy rates of the MTE2 and MTE3 classes under the HBM cap."""
    if hbm <= 0 or n2 * c2 + n3 * c3 <= hbm:
        return c2, c3
    if c2 <= c3:
        lo_n, lo_c, hi_n = n2, c2, n3
    else:
        lo_n, lo_c, hi_n = n3, c3, n2
    if (lo_n + hi_n) * lo_c >= hbm:
        level = hbm / (lo_n + hi_n)
        return level, level
    hi_rate = (hbm - lo_n * lo_c) / hi_n
    return (c2, hi_rate) if c2 <= c3 else (hi_rate, c3)


@njit(cache=True, nogil=True, error_model="numpy")
def simulate(kind, pipe, fixed, work, pair, off, t0, issue_cycles, overlap, cap2, cap3, hbm,
             xoff, xmem):
    """Start/end cycles of every record (global arrays, core c = records off[c]:off[c+1]).

    Returns (issue, start, end, data_end, stuck): data_end is when a copy finished moving
    data (-1 for other records); stuck is the first record that could not be scheduled, or -1.
    """
    n = kind.size
    ncores = off.size - 1
    nslots = ncores * 4
    issue = np.full(n, -1.0)
    start = np.full(n, -1.0)
    end = np.full(n, -1.0)
    data_end = np.full(n, -1.0)
    # the records of each (core, pipe), in program order
    poff = np.zeros(nslots + 1, np.int64)
    for c in range(ncores):
        for r in range(off[c], off[c + 1]):
            if _on_pipe(kind[r], pipe[r]):
                poff[c * 4 + pipe[r] + 1] += 1
    for i in range(nslots):
        poff[i + 1] += poff[i]
    plist = np.empty(poff[nslots], np.int64)
    fill = poff[:nslots].copy()
    for c in range(ncores):
        for r in range(off[c], off[c + 1]):
            if _on_pipe(kind[r], pipe[r]):
                i = c * 4 + pipe[r]
                plist[fill[i]] = r
                fill[i] += 1
    ts = t0.copy()
    nxt = off[:ncores].copy()
    issued = np.zeros(nslots, np.int64)
    head = np.zeros(nslots, np.int64)
    accept = np.empty(nslots)
    drain = np.empty(nslots)
    for c in range(ncores):
        for p in range(4):
            accept[c * 4 + p] = t0[c]
            drain[c * 4 + p] = t0[c]
    slot_state = np.zeros(nslots, np.int8)  # 0 idle, 1 copy waiting to start, 2 moving data
    slot_rec = np.full(nslots, -1, np.int64)
    slot_time = np.zeros(nslots)            # start time of a waiting copy
    slot_target = np.zeros(nslots)          # service level at which a moving copy is done
    arr = np.full(n, -1.0)  # SyncAll arrival times
    cross = xoff.size > 1
    for c in range(ncores):
        if not cross:
            _advance(c, kind, pipe, fixed, work, pair, off, plist, poff, issue, start, end, ts,
                     nxt, issued, head, accept, drain, slot_state, slot_rec, slot_time,
                     issue_cycles, overlap, xoff, xmem, arr)
    if cross:
        _advance_all(kind, pipe, fixed, work, pair, off, plist, poff, issue, start, end, ts,
                     nxt, issued, head, accept, drain, slot_state, slot_rec, slot_time,
                     issue_cycles, overlap, xoff, xmem, arr)
    # Processor sharing with two classes (MTE2, MTE3): every moving copy of a class gets the
    # same rate, so one "service" counter per class tells how far each copy has got.
    service = np.zeros(2)
    active = np.zeros(2, np.int64)
    rate = np.array([cap2, cap3])
    now = 0.0
    while True:
        best = -1
        best_t = _INF
        best_done = False
        for c in range(ncores):
            for p in (PIPE_MTE2, PIPE_MTE3):
                i = c * 4 + p
                st = slot_state[i]
                if st == 0:
                    continue
                if st == 2:
                    cls = p - PIPE_MTE2
                    t = now + max(0.0, slot_target[i] - service[cls]) / rate[cls]
                    if t < best_t or (t == best_t and not best_done):
                        best, best_t, best_done = i, t, True
                elif slot_time[i] < best_t:
                    best, best_t, best_done = i, slot_time[i], False
        if best < 0:
            break
        dt = best_t - now
        service[0] += rate[0] * dt
        service[1] += rate[1] * dt
        now = best_t
        c = best // 4
        p = best - c * 4
        cls = p - PIPE_MTE2
        r = slot_rec[best]
        if best_done:
            slot_state[best] = 0
            active[cls] -= 1
            data_end[r] = now
            end[r] = now + fixed[r]
            accept[best] = end[r] - min(overlap[p], fixed[r])
            drain[best] = max(drain[best], end[r])
            head[best] += 1
        else:
            slot_state[best] = 2
            slot_target[best] = service[cls] + work[r]
            active[cls] += 1
        rate[0], rate[1] = _rates(active[0], active[1], cap2, cap3, hbm)
        if best_done and cross:
            _advance_all(kind, pipe, fixed, work, pair, off, plist, poff, issue, start, end,
                         ts, nxt, issued, head, accept, drain, slot_state, slot_rec, slot_time,
                         issue_cycles, overlap, xoff, xmem, arr)
        elif best_done:
            _advance(c, kind, pipe, fixed, work, pair, off, plist, poff, issue, start, end, ts,
                     nxt, issued, head, accept, drain, slot_state, slot_rec, slot_time,
                     issue_cycles, overlap, xoff, xmem, arr)
    stuck = -1
    for r in range(n):
        if end[r] < 0:
            stuck = r
            break
    return issue, start, end, data_end, stuck


@njit(cache=True, nogil=True, error_model="numpy")
def lane_busy(kind, pipe, start, end, off, header, issue_cycles, n_lanes):
    """busy[c, lane]: cycles during which a lane runs something (union of its intervals);
    the scalar lane also counts the header and one issue slot per queued record."""
    ncores = off.size - 1
    busy = np.zeros((ncores, n_lanes))
    reach = np.empty(n_lanes)
    for c in range(ncores):
        reach[:] = -_INF
        busy[c, 0] = header
        for r in range(off[c], off[c + 1]):
            k = kind[r]
            if _on_pipe(k, pipe[r]):
                lane = pipe[r]
                busy[c, 0] += issue_cycles
            elif k == K_BAR_ALL or k == K_XSYNC:
                lane = LANE_FLOWCTRL
            else:
                lane = 0
            # lanes run in order, so starts never decrease: count what sticks out
            s = max(start[r], reach[lane])
            if end[r] > s:
                busy[c, lane] += end[r] - s
            reach[lane] = max(reach[lane], end[r])
    return busy


def _arrays(*dtypes: types.Type) -> tuple[types.Array, ...]:
    return tuple(types.Array(t, 1, "C") for t in dtypes)


_I8, _I32, _I64, _F64 = types.int8, types.int32, types.int64, types.float64
# The argument types timeline.profile_run passes (tests/test_prewarm.py holds them to it).
SIGNATURES = (
    (pair_flags, (*_arrays(_I8, _I32, _I64), _I64)),
    (simulate, (*_arrays(_I8, _I8, _F64, _F64, _I64, _I64, _F64), _F64, *_arrays(_F64), _F64,
                _F64, _F64, *_arrays(_I64, _I64))),
    (lane_busy, (*_arrays(_I8, _I8, _F64, _F64, _I64), _F64, _F64, _I64)),
)


def prewarm() -> None:
    """Compile the scheduler for profile_run's argument types (ascsim.prewarm runs this in a
    worker process, to fill numba's disk cache while a command runs its kernel)."""
    for fn, sig in SIGNATURES:
        fn.compile(sig)
