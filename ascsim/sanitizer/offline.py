"""The analyses that run after the cores: racecheck, initcheck and the queue-state check (the
numba pass of passes.py), synccheck's end-of-kernel and redundancy checks, the reserved-UB check
and the multi-core checks. Each turns what it found into `Finding`s with both source
positions."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import prewarm, records
from ..core import PIPE_NAMES, CoreState
from ..dtypes import BY_CODE
from ..errors import (
    MultiCoreError,
    OutOfRangeError,
    QueueStateError,
    RaceError,
    SyncError,
    UninitialisedError,
)
from ..faults import Session
from ..findings import ERROR, WARNING, Finding, FindingAccess
from ..pipe import ALLOCATED, DEQUEUED
from ..registry import REGISTRY
from ..sync import EVENT_PIPES, flag_name
from . import passes as ps
from .crosscore import CoreClocks, internal_records
from .encode import Encoded, EncodedRun, encode_cores

if TYPE_CHECKING:
    from ..runtime import Run

__all__ = ["analyse_run"]

_HAZARD = {ps.EV_RAW: "RAW", ps.EV_WAR: "WAR", ps.EV_WAW: "WAW"}


class _Positions:
    """Record -> (instruction, pipe, kernels_py, kernels_cpp), decoded once per record."""

    def __init__(self, core: CoreState) -> None:
        self.core = core
        self.cache: dict[int, tuple[str, str, str | None, str | None]] = {}

    def __call__(self, index: int) -> tuple[str, str, str | None, str | None]:
        hit = self.cache.get(index)
        if hit is None:
            r = self.core.records[index]
            py, cpp = records.position_of(r)
            hit = self.cache[index] = (REGISTRY[r[records.OP]].name,
                                       PIPE_NAMES[r[records.PIPE]], py, cpp)
        return hit

    def access(self, index: int, write: bool, start: int | None = None,
               end: int | None = None) -> FindingAccess:
        name, pipe, py, cpp = self(index)
        return FindingAccess(self.core.block_idx, index, name, pipe, write, py, cpp, start,
                             end)


def _memory_name(core: CoreState, mem: int) -> str:
    if mem == 0:
        return "UB"
    buf = core.gm[mem] if mem < len(core.gm) else None
    return f"GM {buf.name}" if buf is not None else f"GM #{mem}"


def _finding(pos: _Positions, rec: int, **kw: Any) -> Finding:
    name, pipe, py, cpp = pos(rec)
    return Finding(core=pos.core.block_idx, serial=rec, instruction=name, pipe=pipe, py=py,
                   cpp=cpp, **kw)


class _Passes:
    """The offline pass's outputs for an encoding's cores (passes.analyse_cores), and the
    calls that fill them: `run(which)` analyses the cores `which` (several threads may run
    disjoint sets), `events(c)` gives core c's events and how many were dropped, `executed`
    which records ran (every core's, joined; 0 for a core not run)."""

    def __init__(self, encoded: EncodedRun, core: CoreState, session: Session) -> None:
        self.encoded = encoded
        ub = core.profile.ub_bytes
        self.memsize = np.array([ub] + [0 if b is None else b.nbytes for b in core.gm[1:]],
                                np.int64)
        nmem = len(self.memsize)
        self.is_output = np.zeros(nmem, np.bool_)
        for mem in session.outputs:
            if 0 < mem < nmem:
                self.is_output[mem] = True
        self.auto = session.sync_mode == "auto"
        self.ub = ub
        # each core's event rows (rows past its count are never read: _emit writes every
        # column of a row it adds, so no clearing; untouched pages cost nothing)
        m = np.diff(encoded.rows_at)
        self.ev_at = np.zeros(m.size + 1, np.int64)
        np.cumsum(np.minimum(np.maximum(4096, 2 * m), 200_000), out=self.ev_at[1:])
        self.ev = np.empty((int(self.ev_at[-1]), ps.EV_COLS), np.int64)
        self.evn = np.zeros((m.size, 2), np.int64)
        self.executed = np.zeros(encoded.size, np.uint8)

    def run(self, which: np.ndarray) -> None:
        e = self.encoded
        ps.analyse_cores(which, e.rows_at, e.aoff, e.buf_at, e.order, e.cls, e.pipe, e.count,
                         e.dsz, e.par, e.af, e.am, e.ast, e.aen, e.apat, e.P, e.subranges,
                         e.bstart, e.bend, e.bque, e.blive, self.memsize, self.is_output,
                         self.auto, self.ub, self.ev_at, self.ev, self.evn, self.executed)

    def events(self, c: int) -> tuple[np.ndarray, int]:
        at, (n, dropped) = int(self.ev_at[c]), self.evn[c].tolist()
        return self.ev[at:at + n], dropped


def _short_copy_hint(core: CoreState, pos: _Positions, reader: int) -> str:
    """The copy that most likely left the uninitialised bytes: the last copy before the first
    reader that wrote the start of a UB range the reader reads, but stopped short of its end
    (typically DataCopyExtParams.blockLen given in elements where it counts bytes)."""
    row = core.records[reader]
    reads = [(a[2], a[3]) for a in records.accesses_of(row) if a[1] == 0 and not a[0] & 1]
    for i in range(reader - 1, -1, -1):
        r = core.records[i]
        if REGISTRY[r[records.OP]].family != "copy":
            continue
        for flags, mem, a, b in records.accesses_of(r):
            hit = next(((r0, r1) for r0, r1 in reads if mem == 0 and flags & 1
                        and a <= r0 < b < r1), None)
            if hit is None:
                continue
            name, _, py, _ = pos(i)
            reader_name = pos(reader)[0]
            hint = (f"; likely cause: {name} at {py} wrote only UB [{a}, {b}) ({b - a} bytes) "
                    f"of the [{hit[0]}, {hit[1]}) that {reader_name} reads")
            size = BY_CODE[row[records.DTYPE]].size if row[records.DTYPE] in BY_CODE else 1
            if size > 1 and (b - a) * size == hit[1] - hit[0]:
                hint += (f": copy lengths count bytes (DataCopyExtParams.blockLen) or 32-byte "
                         f"blocks, not elements - {b - a} elements are {(b - a) * size} bytes")
            return hint
    return ""


def _event_findings(core: CoreState, enc: Encoded, ev: np.ndarray, dropped: int,
                    session: Session, pos: _Positions) -> list[Finding]:
    out: list[Finding] = []
    manual = session.sync_mode == "manual"
    for row in ev.tolist():
        typ, rec, other, mem, lo, hi, p, op, x, y = row
        memory = _memory_name(core, mem)
        if typ in _HAZARD:
            hz = _HAZARD[typ]
            cur_write = typ != ps.EV_RAW
            other_write = typ != ps.EV_WAR
            cur, prev = PIPE_NAMES[p], PIPE_NAMES[op]
            if p == op:
                fix = (f"needs PipeBarrier<PIPE_{cur}> between them" + (
                    " (the kernel is declared manual-sync: no compiler-inserted barriers)"
                    if manual and cur == "V" else ""))
            else:
                fix = f"needs SetFlag/WaitFlag from PIPE_{prev} to PIPE_{cur} between them"
            verb = "writes" if cur_write else "reads"
            pverb = "writes" if other_write else "reads"
            msg = (f"Potential {hz} hazard: PIPE_{cur} {verb} {memory} bytes [{lo}, {hi}) that "
                   f"PIPE_{prev} {pverb} earlier with no happens-before order; {fix}")
            out.append(_finding(pos, rec, kind="racecheck", severity=ERROR,
                                check=f"{hz} hazard", message=msg, memory=memory, start=lo,
                                end=hi, write=cur_write,
                                other=pos.access(other, other_write, lo, hi), error=RaceError))
        elif typ == ps.EV_UNINIT_OUT:
            first = ""
            other_acc = None
            if other >= 0:
                name, _, py, _ = pos(other)
                first = f"; they were first read by {name} (serialNo:{other}) at {py}"
                other_acc = pos.access(other, False)
            msg = (f"uninitialised data reaches {memory} bytes [{lo}, {hi}): UB bytes [{x}, {y}) "
                   "hold bytes never written since their buffer was allocated (or the dummy "
                   f"bytes of a DataCopyPad){first}"
                   + (_short_copy_hint(core, pos, other) if other >= 0 else ""))
            out.append(_finding(pos, rec, kind="initcheck", severity=ERROR,
                                check="uninitialised value reaches GM", message=msg,
                                memory=memory, start=lo, end=hi, write=True, other=other_acc,
                                error=UninitialisedError))
        elif typ == ps.EV_UNINIT_SCALAR:
            msg = (f"GetValue reads UB bytes [{lo}, {hi}) never written since their buffer was "
                   "allocated")
            out.append(_finding(pos, rec, kind="initcheck", severity=WARNING,
                                check="uninitialised scalar read", message=msg, memory=memory,
                                start=lo, end=hi, write=False, error=UninitialisedError))
        elif typ == ps.EV_GM_UNWRITTEN:
            msg = (f"reads output bytes [{lo}, {hi}) of {memory} that this core has not written "
                   "(no write is ordered before this read: their contents are undefined)")
            out.append(_finding(pos, rec, kind="initcheck", severity=ERROR,
                                check="read of unwritten output", message=msg, memory=memory,
                                start=lo, end=hi, write=False, error=UninitialisedError))
        elif typ == ps.EV_USE_FREE:
            info = enc.buffers[x]
            if y:
                check, when = "use after FreeTensor", "after FreeTensor gave it back"
            else:
                check, when = "use before AllocTensor", "before any AllocTensor took it"
            msg = (f"accesses UB bytes [{lo}, {hi}) of queue buffer {info.name} "
                   f"[{info.start}, {info.end}) {when}")
            out.append(_finding(pos, rec, kind="memcheck", severity=ERROR, check=check,
                                message=msg, memory=f"UB ({info.name})", start=lo, end=hi,
                                error=QueueStateError))
    if dropped:
        out.append(Finding(kind="racecheck", severity=WARNING, check="records undetected",
                           message=f"{dropped} more event(s) were not recorded (limit reached)",
                           core=core.block_idx))
    return out


def _core_and_index(run_enc: EncodedRun, i: int) -> tuple[int, int]:
    """Joined record i -> (its core's index, its index in that core)."""
    c = int(run_enc.core_of[i])
    return c, i - int(run_enc.rows_at[c])


def _sync_findings(cores: list[CoreState], run_enc: EncodedRun,
                   positions: list[_Positions]) -> list[Finding]:
    out: list[Finding] = []
    cls, pipe, par, implicit = run_enc.cls, run_enc.pipe, run_enc.par, run_enc.implicit
    # SetFlags nobody waited for: they leak into the next kernel on this core. The last
    # SetFlag of each (core, flag) says who set it: a queue call's is the TQue's own (the
    # giveback of a FreeTensor), so only the flags whose last set is explicit are looked at.
    sets = np.flatnonzero(cls == ps.C_SET)
    stride = max([len(core.flags) for core in cores] + [int(par[sets].max(initial=-1)) + 1])
    keys, last = np.unique((run_enc.core_of[sets] * stride + par[sets])[::-1],
                           return_index=True)  # the last occurrence of each key
    last = sets[::-1][last]
    explicit = ~implicit[last]
    for key, i in zip(keys[explicit].tolist(), last[explicit].tolist(), strict=True):
        c, flag = divmod(key, stride)
        core = cores[c]
        if not core.flags[flag] or (core.sanitizer is not None and core.sanitizer.aborted):
            continue
        src, dst = EVENT_PIPES.get(flag >> 3, (0, 0))
        msg = (f"Unpaired SetFlag<{flag_name(flag)}> from PIPE_{PIPE_NAMES[src]} to "
               f"PIPE_{PIPE_NAMES[dst]}: still set when the kernel ended (it leaks into "
               "the next kernel on this core)")
        out.append(_finding(positions[c], _core_and_index(run_enc, i)[1], kind="synccheck",
                            severity=WARNING, check="unpaired SetFlag", message=msg,
                            error=SyncError))
    # the same SetFlag (WaitFlag) twice in a row on its pipe: the second adds nothing (a pass
    # per pipe over every core's records, in order)
    is_set = (cls == ps.C_SET) & ~implicit
    is_wait = (cls == ps.C_WAIT) & ~implicit
    repeats = []
    for p in range(4):
        on = np.flatnonzero(pipe == p)
        a, b = on[:-1], on[1:]
        same = (run_enc.core_of[a] == run_enc.core_of[b]) & (par[a] == par[b]) & (
            (is_set[a] & is_set[b]) | (is_wait[a] & is_wait[b]))
        repeats.append(b[same])
    for i in np.sort(np.concatenate(repeats)).tolist():
        c, j = _core_and_index(run_enc, i)
        what = "SetFlag" if is_set[i] else "WaitFlag"
        msg = (f"Redundant {what}<{flag_name(int(par[i]))}>: the same {what} came "
               f"just before it on PIPE_{PIPE_NAMES[int(pipe[i])]} with nothing in "
               "between")
        out.append(_finding(positions[c], j, kind="synccheck", severity=WARNING,
                            check="redundant sync", message=msg, error=SyncError))
    return out


def _queue_warning(pos: _Positions, rec: int, b: Any, check: str, message: str) -> Finding:
    """A memcheck WARNING about queue buffer `b` at record `rec`."""
    return _finding(pos, rec, kind="memcheck", severity=WARNING, check=check, message=message,
                    memory=f"UB ({b.name})", start=b.start, end=b.end, error=QueueStateError)


def _queue_end_findings(cores: list[CoreState], run_enc: EncodedRun,
                        positions: list[_Positions]) -> list[Finding]:
    """Tensors a queue still holds when the kernel ends: EnQue'd and never DeQue'd, so the
    consumer never saw them (and their flag is left set); allocated (or DeQue'd) and never
    freed, reported at their AllocTensor (npuchk's leak check)."""
    out: list[Finding] = []
    for core, enc, pos in zip(cores, run_enc.cores, positions, strict=True):
        if core.sanitizer is not None and core.sanitizer.aborted:
            continue
        # what the queues still hold: (buffer, its state, or None for an EnQue never
        # DeQue'd). Most cores hold nothing, and make no numpy call.
        held = [(que.buffers[index], state) for que in core.queues
                for index, state in enumerate(que.state) if state in (ALLOCATED, DEQUEUED)]
        held += [(que.buffers[index], None) for que in core.queues
                 for index, _event_id in que.fifo]
        if not enc.size or not held:
            continue
        # buffer id -> its last EnQue record, its last AllocTensor record (a later pair wins)
        enque = np.flatnonzero(enc.cls == ps.C_QENQUE)
        last_enque = dict(zip(enc.par[enque].tolist(), enque.tolist(), strict=True))
        alloc = np.flatnonzero(enc.cls == ps.C_QALLOC)
        last_alloc = dict(zip(enc.par[alloc].tolist(), alloc.tolist(), strict=True))
        for b, state in held:
            if state is None:
                i = last_enque.get(b.id)
                msg = (f"EnQue of {b.name} was never DeQue'd: the kernel ended with the "
                       "tensor still in the queue (its consumer never ran; the enqueue flag "
                       "stays set)")
                check = "EnQue without DeQue"
            else:
                i = last_alloc.get(b.id)
                then = ", EnQue'd and DeQue'd" if state == DEQUEUED else ""
                msg = (f"{b.name} was allocated{then} and never freed: the kernel ended with "
                       "the tensor still allocated (FreeTensor it when its last reader is "
                       "done)")
                check = "AllocTensor without FreeTensor"
            if i is not None:
                out.append(_queue_warning(pos, i, b, check, msg))
    return out


def _reserved_findings(cores: list[CoreState], run_enc: EncodedRun,
                       positions: list[_Positions]) -> list[Finding]:
    """A library temp write (Select's on A2) landing in a user buffer."""
    out: list[Finding] = []
    temp = np.flatnonzero(run_enc.apat == ps.PAT_TEMP)  # every core's temp accesses
    if not temp.size:
        return out
    rows = run_enc.arow[temp]
    owner = run_enc.core_of[rows]
    for c in np.unique(owner).tolist():
        core, pos = cores[c], positions[c]
        tmp = core.profile.tmp_ub_offset
        users = [b for b in run_enc.cores[c].buffers if b.end > tmp]
        mine = owner == c
        lo_all, hi_all = run_enc.ast[temp[mine]], run_enc.aen[temp[mine]]
        rec_all = rows[mine] - int(run_enc.rows_at[c])
        # (access, buffer) pairs that overlap, in access order then buffer order
        hits = [(k, u) for u, b in enumerate(users)
                for k in np.flatnonzero((b.start < hi_all) & (lo_all < b.end)).tolist()]
        for k, u in sorted(hits):
            b, lo, hi, i = users[u], int(lo_all[k]), int(hi_all[k]), int(rec_all[k])
            msg = (f"the library's temp write of {pos(i)[0]} at UB [{lo}, {hi}) lands in "
                   f"user buffer {b.name} [{b.start}, {b.end}), which is placed over the "
                   f"region [{tmp}, {core.profile.ub_bytes}) reserved for library temp "
                   "data: whatever the kernel keeps there is overwritten")
            out.append(_finding(pos, i, kind="memcheck", severity=ERROR,
                                check="buffer over reserved UB", message=msg,
                                memory=f"UB ({b.name})", start=max(lo, b.start),
                                end=min(hi, b.end), write=True, error=OutOfRangeError))
    return out


def _gm_accesses(cores: list[CoreState], run_enc: EncodedRun, executed: np.ndarray
                 ) -> np.ndarray:
    """(mem, lo, hi, core, record, write, atomic, internal) rows of every core's executed GM
    accesses, clipped (atomic: a UB->GM copy under the DMA atomic mode; internal: a library
    call's own synchronisation traffic, see sanitizer/crosscore.py). `executed`: which of the
    joined records ran. One pass over the joined columns: per core, the numpy calls on a few
    dozen accesses cost more than their work."""
    if not cores:
        return np.zeros((0, 8), np.int64)
    first = run_enc.rows_at  # core c's records: first[c]:first[c + 1]
    rec = run_enc.arow  # each access's record
    am = run_enc.am
    sel = (am != 0) & executed[rec]
    if not sel.any():
        return np.zeros((0, 8), np.int64)
    rec, mem = rec[sel], am[sel]
    owner = run_enc.core_of[rec]
    size = np.array([0] + [0 if b is None else b.nbytes for b in cores[0].gm[1:]], np.int64)
    lo = np.maximum(run_enc.ast[sel], 0)
    hi = np.minimum(run_enc.aen[sel], size[mem])
    keep = (hi > lo) & (run_enc.cls[rec] >= ps.C_GET)
    atomic = run_enc.atomic[rec]
    internal = np.zeros(run_enc.size, np.bool_)
    for c, core in enumerate(cores):
        own = internal_records(core)
        if own:
            internal[int(first[c]) + np.fromiter(own, np.int64, len(own))] = True
    block = np.array([core.block_idx for core in cores], np.int64)
    write = run_enc.af[sel] & 1
    rows = np.stack([mem, lo, hi, block[owner], rec - first[owner], write, atomic,
                     internal[rec]], axis=1)
    return rows[keep]


def race_pairs(sub: np.ndarray, clocks: CoreClocks) -> dict[tuple[int, int, bool], list[int]]:
    """The unordered cross-core pairs among one GM buffer's accesses `sub` (the rows of
    `_gm_accesses`, sorted by start then end): (first core, second core, both write) -> [hull
    start, hull end, first core's record, second core's record, their write flags] of the
    pair that the sweep meets first (accesses in start order; for each, the open ones in the
    order they opened), the hull spanning every such pair's overlap."""
    pairs: dict[tuple[int, int, bool], list[int]] = {}
    # the accesses still open, by (core, write, atomic): an access only meets the groups of
    # other cores that can race with it, so a core that touches the same bytes thousands of
    # times (a per-tile output, atomic adds) costs no scan of its own accesses
    groups: dict[tuple[int, int, int], list[list[int]]] = {}
    for seq, r in enumerate(sub.tolist()):
        _, lo, hi, c, rec, w, atom, _ = r
        found = []
        for (gc, gw, gatom), group in groups.items():
            if gc == c or not (w or gw):
                continue
            if atom and gatom:
                continue  # two atomic writes: the hardware serialises them
            group[:] = [a for a in group if a[2] > lo]  # starts only grow: closed for good
            # unless a SyncAll or a cross-core flag orders them
            found += [a for a in group if not clocks.ordered(a[3], a[4], c, rec)]
        found.sort(key=lambda a: a[8])  # in the order the accesses opened
        for a in found:
            first, second = (a, r) if a[3] < c else (r, a)
            both = bool(first[5] and second[5])
            key = (first[3], second[3], both)
            s, e = max(lo, a[1]), min(hi, a[2])
            hit = pairs.get(key)
            if hit is None:
                pairs[key] = [s, e, first[4], second[4], first[5], second[5]]
            else:
                hit[0], hit[1] = min(hit[0], s), max(hit[1], e)
        groups.setdefault((c, w, atom), []).append(r + [seq])
    return pairs


def _multicore_findings(run: Run, session: Session, rows: np.ndarray,
                        positions: list[_Positions], cross: list[np.ndarray]
                        ) -> list[Finding]:
    out: list[Finding] = []
    cores = run.cores
    clocks = CoreClocks(cores, [np.flatnonzero(x) for x in cross])
    out += _workspace_findings(run, session, rows, clocks, positions)
    race_rows = rows[rows[:, 7] == 0] if rows.size else rows
    for mem in np.unique(race_rows[:, 0]).tolist() if race_rows.size else []:
        sub = race_rows[race_rows[:, 0] == mem]
        sub = sub[np.lexsort((sub[:, 2], sub[:, 1]))]
        # a pair needs a write, and two accesses that overlap (one starts before the accesses
        # before it end): most buffers have neither, and the loop below is not needed
        reach = np.maximum.accumulate(sub[:, 2])
        if not sub[:, 5].any() or not (sub[1:, 1] < reach[:-1]).any():
            continue
        name = _memory_name(cores[0], mem)
        pairs = race_pairs(sub, clocks)
        for (ca, cb, both), (s, e, ra, rb, wa, _wb) in sorted(pairs.items()):
            pa, pb = positions[ca], positions[cb]
            if both:
                msg = (f"cores {ca} and {cb} both write {name} bytes [{s}, {e}) (not both "
                       "atomic, no SyncAll or cross-core flag between them): the result "
                       "depends on which core finishes last")
                out.append(_finding(pb, rb, kind="multicore", severity=ERROR,
                                    check="multi-core write overlap", message=msg, memory=name,
                                    start=s, end=e, write=True,
                                    other=pa.access(ra, True, s, e), error=MultiCoreError))
            else:
                wcore, rcore = (ca, cb) if wa else (cb, ca)
                wrec, rrec = (ra, rb) if wa else (rb, ra)
                msg = (f"core {rcore} reads {name} bytes [{s}, {e}) that core {wcore} writes; "
                       "no SyncAll or cross-core flag orders them, so it may read either "
                       "value")
                out.append(_finding(positions[rcore], rrec, kind="multicore", severity=WARNING,
                                    check="multi-core read/write overlap", message=msg,
                                    memory=name, start=s, end=e, write=False,
                                    other=positions[wcore].access(wrec, True, s, e),
                                    error=MultiCoreError))
    # coverage of the outputs
    for mem in sorted(session.outputs):
        buf = cores[0].gm[mem] if mem < len(cores[0].gm) else None
        if buf is None or buf.nbytes == 0:
            continue
        w = rows[(rows[:, 0] == mem) & (rows[:, 5] != 0)] if rows.size else rows
        gaps = _gaps(w[:, 1], w[:, 2], buf.nbytes)
        if not gaps:
            continue
        total = sum(e - s for s, e in gaps)
        shown = ", ".join(f"[{s}, {e})" for s, e in gaps[:8]) + (
            f" and {len(gaps) - 8} more" if len(gaps) > 8 else "")
        msg = (f"{total} byte(s) of output {buf.name} ({buf.nbytes} bytes) are written by no "
               f"core: {shown}")
        # point at the store that ends where the first gap starts (or starts where it ends)
        g0, g1 = gaps[0]
        near = w[w[:, 2] == g0] if w.size else w
        if not near.size and w.size:
            near = w[w[:, 1] == g1]
        if near.size:
            c, rec = int(near[-1, 3]), int(near[-1, 4])
            msg += (f"; the first gap starts next to the store of core {c} shown here")
            out.append(_finding(positions[c], rec, kind="multicore", severity=ERROR,
                                check="output not covered", message=msg,
                                memory=f"GM {buf.name}", start=g0, end=g1, write=True,
                                error=MultiCoreError))
        else:
            out.append(Finding(kind="multicore", severity=ERROR, check="output not covered",
                               message=msg, memory=f"GM {buf.name}", start=g0, end=g1,
                               write=True, error=MultiCoreError))
    return out


def _workspace_findings(run: Run, session: Session, rows: np.ndarray, clocks: CoreClocks,
                        positions: list[_Positions]) -> list[Finding]:
    """initcheck of workspaces (launch(workspace=...)): a read of bytes that no write happening
    before it (on this core earlier, or on another core before a SyncAll or cross-core flag
    that orders them) has written."""
    out: list[Finding] = []
    spaces = getattr(session, "workspaces", frozenset())
    for mem in sorted(spaces | session.outputs):
        sub = rows[rows[:, 0] == mem] if rows.size else rows
        if not sub.size:
            continue
        writes = sub[sub[:, 5] != 0]
        # an atomic write reads GM too (read-modify-write); plain reads of outputs are checked
        # per core already (passes.py)
        reads = sub[(sub[:, 6] != 0) | ((sub[:, 5] == 0) & (mem in spaces))]
        reported: set[int] = set()
        for r in reads.tolist():
            _, lo, hi, c, rec, _w, atom, _i = r
            if c in reported:
                continue
            cover = [(w[1], w[2]) for w in writes.tolist()
                     if w[1] < hi and lo < w[2] and (
                         (w[3] == c and w[4] < rec) or
                         (w[3] != c and clocks.before(w[3], w[4], c, rec)))]
            gaps = _gaps(np.array([max(a, lo) - lo for a, _ in cover], np.int64),
                         np.array([min(b, hi) - lo for _, b in cover], np.int64), hi - lo)
            if not gaps:
                continue
            g0, g1 = gaps[0][0] + lo, gaps[0][1] + lo
            reported.add(c)
            name = _memory_name(run.cores[0], mem)
            what = "workspace" if mem in spaces else "output"
            if atom:
                msg = (f"an atomic write accumulates into {what} {name} bytes [{g0}, {g1}) that "
                       "no write ordered before it has initialised (zero them first, e.g. "
                       "InitGlobalMemory and SyncAll; or an atomic mode left on: "
                       "SetAtomicNone after the accumulation)")
                check = "atomic onto unwritten GM"
            else:
                msg = (f"reads workspace {name} bytes [{g0}, {g1}) that no write ordered "
                       "before this read has written (a workspace is not initialised: write "
                       "it first, e.g. InitGlobalMemory, and SyncAll before other cores read "
                       "it)")
                check = "read of unwritten workspace"
            out.append(_finding(positions[c], rec, kind="initcheck",
                                severity=WARNING if atom and mem not in spaces else ERROR,
                                check=check, message=msg, memory=name, start=g0, end=g1,
                                write=bool(atom), error=UninitialisedError))
    return out


def _gaps(lo: np.ndarray, hi: np.ndarray, size: int) -> list[tuple[int, int]]:
    """The byte ranges of [0, size) that no [lo, hi) covers, in order."""
    order = np.argsort(lo, kind="stable")
    lo, hi = lo[order], hi[order]
    # how far the ranges before each one reach
    reach = np.maximum.accumulate(np.concatenate([[0], hi]))
    at = np.flatnonzero(lo > reach[:-1])
    gaps = list(zip(reach[at].tolist(), lo[at].tolist(), strict=True))
    if reach[-1] < size:
        gaps.append((int(reach[-1]), size))
    return gaps


_PASS_THREADS = max(1, min(8, os.cpu_count() or 1))


def _all_passes(cores: list[CoreState], encoded: EncodedRun, session: Session) -> _Passes:
    """The pass of every core with records: on threads, a share of the cores each (the pass
    is nogil numba; which thread ran a core does not change its results)."""
    passes = _Passes(encoded, cores[0], session)
    busy = [c for c, enc in enumerate(encoded.cores) if enc.size]
    if not busy:
        return passes
    prewarm.ready("sanitizer")  # compiled once, by whichever process gets there first
    threads = max(1, min(_PASS_THREADS, len(busy)))
    shares = [np.array(busy[t::threads], np.int64) for t in range(threads)]
    if threads == 1:
        passes.run(shares[0])
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            list(pool.map(passes.run, shares))
    return passes


def analyse_run(run: Run, session: Session) -> list[Finding]:
    """Every offline finding of a finished launch: each core's pass (racecheck, initcheck,
    queue state), then the checks that read every core's records joined."""
    findings: list[Finding] = []
    positions: list[_Positions] = []
    cross: list[np.ndarray] = []  # per core: which records are cross-core points
    encoded = encode_cores(run.cores)
    passes = _all_passes(run.cores, encoded, session)
    for c, (core, enc) in enumerate(zip(run.cores, encoded.cores, strict=True)):
        cross.append(enc.cross)
        pos = _Positions(core)
        positions.append(pos)
        if enc.size:
            findings += _event_findings(core, enc, *passes.events(c), session, pos)
    executed = passes.executed.view(np.bool_)  # which records ran (the pass writes 0 or 1)
    findings += _sync_findings(run.cores, encoded, positions)
    findings += _queue_end_findings(run.cores, encoded, positions)
    findings += _reserved_findings(run.cores, encoded, positions)
    gm_rows = _gm_accesses(run.cores, encoded, executed)
    findings += _multicore_findings(run, session, gm_rows, positions, cross)
    for f in findings:
        f.kernel = session.kernel_name
    return findings
