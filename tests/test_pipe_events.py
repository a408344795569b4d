"""The TPipe's event ids, TQueBind, deeper and depth-0 queues, TBuf.GetWithOffset, TPipe.Reset and
TPipe.Destroy (ascendc_more.md §4).

- occupancy: one 8-bit mask per HardEvent. A queue of depth != 0 holds its enqueue id from EnQue
  to DeQue and its free id from FreeTensor to the next AllocTensor; a depth-0 queue holds both
  from InitBuffer on and sets its free flag there. FetchEventID returns the lowest id nobody
  holds without holding it; AllocEventID holds it (an error when all 8 are held);
  ReleaseEventID frees it (an error when not held);
- events come from the queue's physical ends: VECIN->VECOUT and VECCALC use MTE2_MTE3 (enqueue)
  and MTE3_MTE2 (free);
- a queue is a FIFO ring of `depth` entries over its buffers, which are handed out round-robin;
- Reset waits for the pending free events, puts the pool end at 0 and clears the occupancy;
  Destroy waits, then PipeBarrier<PIPE_ALL>, and the pipe is unusable afterwards.
Expected values are worked out by hand from those rules.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import gtensor

import ascsim
import ascsim.ascendc as A
from ascsim.ascendc import (
    GetTPipePtr,
    HardEvent,
    QuePosition,
    TBuf,
    TPipe,
    TQue,
    TQueBind,
)
from ascsim.dtypes import float as f32
from ascsim.dtypes import half
from ascsim.errors import (
    AlignmentError,
    OutOfRangeError,
    QueueStateError,
    SimulationError,
    SyncError,
)

VECIN, VECOUT, VECCALC = QuePosition.VECIN, QuePosition.VECOUT, QuePosition.VECCALC


def run(kernel, *gm, **kw) -> ascsim.Run:
    return ascsim.launch(kernel, 1, *gm, **kw)


def flags(r: ascsim.Run, names=("SetFlag", "WaitFlag")) -> list[tuple]:
    """(instruction, pipe, event, id, implicit) of the flag records; other records by name."""
    out = []
    for rec in r.decoded(0):
        if rec.name in ("SetFlag", "WaitFlag"):
            out.append((rec.name, rec.pipe_name, HardEvent(rec.mode >> 3).name, rec.mode & 7,
                        int(rec.implicit)))
        elif rec.name == "PipeBarrier":
            out.append((rec.name, rec.pipe_name))
        else:
            out.append((rec.name,))
    return out


# ---- FetchEventID / AllocEventID / ReleaseEventID ----------------------------------------------

@pytest.mark.instruction("FetchEventID")
def test_fetch_is_the_lowest_id_no_queue_holds_and_reserves_nothing() -> None:
    seen = {}

    def kernel():
        pipe = TPipe()
        seen["ptr"] = GetTPipePtr() is pipe
        q = TQue[VECIN, 2]()
        pipe.InitBuffer(q, 2, 256)
        # nothing held: 0, and asking again gives 0 again (nothing reserved)
        seen["empty"] = (pipe.FetchEventID(HardEvent.MTE2_V),
                         pipe.FetchEventID[HardEvent.MTE2_V]())
        a, b = q.AllocTensor[f32](), q.AllocTensor[f32]()
        q.EnQue(a)                                         # q holds MTE2_V 0
        seen["one"] = GetTPipePtr().FetchEventID(HardEvent.MTE2_V)
        q.EnQue(b)                                         # ... and 1
        seen["two"] = GetTPipePtr().FetchEventID[HardEvent.MTE2_V]()
        x = q.DeQue[f32]()                                 # gives 0 back
        seen["after_deque"] = pipe.FetchEventID(HardEvent.MTE2_V)
        q.FreeTensor(x)                                    # holds V_MTE2 0
        seen["free"] = (pipe.FetchEventID(HardEvent.V_MTE2), pipe.FetchEventID(HardEvent.V_S))
        q.AllocTensor[f32]()                               # waits V_MTE2 0 and gives it back
        seen["realloc"] = pipe.FetchEventID(HardEvent.V_MTE2)

    r = run(kernel)
    assert seen == {"ptr": True, "empty": (0, 0), "one": 1, "two": 2, "after_deque": 0,
                    "free": (1, 0), "realloc": 0}
    fetched = [(HardEvent(x.mode >> 3).name, x.mode & 7, x.pipe_name)
               for x in r.decoded(0) if x.name == "FetchEventID"]
    assert fetched == [("MTE2_V", 0, "S"), ("MTE2_V", 0, "S"), ("MTE2_V", 1, "S"),
                       ("MTE2_V", 2, "S"), ("MTE2_V", 0, "S"), ("V_MTE2", 1, "S"),
                       ("V_S", 0, "S"), ("V_MTE2", 0, "S")]


@pytest.mark.instruction("AllocEventID", "ReleaseEventID")
def test_alloc_reserves_release_frees_and_queues_see_it() -> None:
    seen = {}

    def kernel():
        pipe = TPipe()
        seen["ids"] = [pipe.AllocEventID[HardEvent.V_S]() for _ in range(8)]
        with pytest.raises(SyncError, match="AllocEventID<V_S>: all 8 event ids are held"):
            pipe.AllocEventID[HardEvent.V_S]()
        with pytest.raises(SyncError, match="FetchEventID<V_S>: all 8 event ids are held"):
            pipe.FetchEventID(HardEvent.V_S)
        pipe.ReleaseEventID[HardEvent.V_S](5)
        seen["fetch5"] = pipe.FetchEventID(HardEvent.V_S)
        with pytest.raises(SyncError, match=r"ReleaseEventID<V_S>\(5\): that id is not held"):
            pipe.ReleaseEventID[HardEvent.V_S](5)
        with pytest.raises(SyncError, match="not held"):
            pipe.ReleaseEventID[HardEvent.S_V](0)
        with pytest.raises(SyncError, match="not held"):
            pipe.ReleaseEventID[HardEvent.V_S](8)
        with pytest.raises(SyncError, match="AllocEventID takes the HardEvent as template"):
            pipe.AllocEventID(HardEvent.V_S)
        with pytest.raises(SyncError, match=r"ReleaseEventID\[...\] takes a HardEvent"):
            pipe.ReleaseEventID["V_S"]
        seen["again"] = pipe.AllocEventID[HardEvent.V_S]()
        # a reserved id is not the queue's: AllocEventID holds MTE2_V 0, EnQue takes 1
        seen["mte2_v"] = pipe.AllocEventID[HardEvent.MTE2_V]()
        q = TQue[VECIN, 1]()
        pipe.InitBuffer(q, 1, 256)
        q.EnQue(q.AllocTensor[f32]())
        seen["after_enque"] = pipe.FetchEventID(HardEvent.MTE2_V)
        q.FreeTensor(q.DeQue[f32]())
        pipe.ReleaseEventID[HardEvent.MTE2_V](seen["mte2_v"])
        seen["released"] = pipe.FetchEventID(HardEvent.MTE2_V)

    r = run(kernel)
    assert seen == {"ids": list(range(8)), "fetch5": 5, "again": 5, "mte2_v": 0,
                    "after_enque": 2, "released": 0}
    enq = [x for x in r.decoded(0) if x.name == "SetFlag"][0]
    assert (HardEvent(enq.mode >> 3), enq.mode & 7) == (HardEvent.MTE2_V, 1)
    kinds = [x.name for x in r.decoded(0) if x.instruction.family == "scalar"]
    assert kinds.count("AllocEventID") == 10 and kinds.count("ReleaseEventID") == 2


def test_queue_runs_out_of_ids_held_by_alloc_event_id() -> None:
    def kernel():
        pipe = TPipe()
        for _ in range(8):
            pipe.AllocEventID[HardEvent.MTE2_V]()
        q = TQue[VECIN, 1]()
        pipe.InitBuffer(q, 1, 256)
        q.EnQue(q.AllocTensor[f32]())

    with pytest.raises(QueueStateError, match="no free event id for MTE2_V: all 8 are held"):
        run(kernel)


def test_fetch_check_mode_reports_and_continues() -> None:
    def kernel():
        pipe = TPipe()
        for _ in range(8):
            pipe.AllocEventID[HardEvent.S_V]()
        A.SetFlag[HardEvent.S_V](pipe.FetchEventID(HardEvent.S_V))   # -1: reported too

    r = run(kernel, sanitize="check")
    checks = [f.check for f in r.findings]
    assert "no free event id" in checks and "event id out of range" in checks


def fetched_id_kernel(x, y, fetched: bool = True):
    """V_S and MTE2_V syncs written with fetched ids while the queues hold ids of their own
    (the VECIN queue's EnQue holds MTE2_V 0 when the kernel syncs MTE2 -> V by hand)."""
    pipe = TPipe()
    qin, qout = TQue[VECIN, 1](), TQue[VECOUT, 1]()
    pipe.InitBuffer(qin, 1, 1024)
    pipe.InitBuffer(qout, 1, 1024)
    xg, yg = gtensor(x, f32), gtensor(y, f32)
    for i in range(2):
        a = qin.AllocTensor[f32]()
        A.DataCopy(a, xg[256 * i], 256)
        qin.EnQue(a)
        eid = GetTPipePtr().FetchEventID(HardEvent.MTE2_V) if fetched else A.EVENT_ID0
        A.SetFlag[HardEvent.MTE2_V](eid)
        A.WaitFlag[HardEvent.MTE2_V](eid)
        vs = GetTPipePtr().FetchEventID(HardEvent.V_S)
        A.SetFlag[HardEvent.V_S](vs)
        A.WaitFlag[HardEvent.V_S](vs)
        a = qin.DeQue[f32]()
        b = qout.AllocTensor[f32]()
        A.Adds(b, a, 1.0, 256)
        qout.EnQue(b)
        qin.FreeTensor(a)
        b = qout.DeQue[f32]()
        A.DataCopy(yg[256 * i], b, 256)
        qout.FreeTensor(b)


@pytest.mark.instruction("FetchEventID")
def test_fetched_ids_do_not_collide_with_queue_ids_under_the_sanitizer() -> None:
    x = np.arange(512, dtype=np.float32)
    y = np.zeros(512, np.float32)
    r = run(fetched_id_kernel, x, y, sanitize="check", outputs=(1,))
    assert r.findings == [], [f.message for f in r.findings]
    assert (y == x + 1).all()
    ids = [x.mode & 7 for x in r.decoded(0) if x.name == "FetchEventID"]
    assert ids == [1, 0, 1, 0]          # MTE2_V 0 is the queue's; V_S is free
    # the twin with EVENT_ID0 written by hand sets the queue's flag a second time
    y[:] = 0
    r = run(lambda x, y: fetched_id_kernel(x, y, fetched=False), x, y, sanitize="check",
            outputs=(1,))
    assert "double SetFlag" in [f.check for f in r.findings]


def high_id_kernel(fetched: bool):
    """Two VECOUT queues hold V_MTE3 ids 0-5 when the kernel syncs V -> MTE3 itself: the id
    FetchEventID hands out is 6."""
    pipe = TPipe()
    qa, qb = TQue[VECOUT, 3](), TQue[VECOUT, 3]()
    pipe.InitBuffer(qa, 3, 256)
    pipe.InitBuffer(qb, 3, 256)
    held = []
    for q in (qa, qb):
        for _ in range(3):
            t = q.AllocTensor[f32]()
            A.Duplicate(t, 1.0, 64)
            q.EnQue(t)
            held.append(q)
    eid = pipe.FetchEventID(HardEvent.V_MTE3) if fetched else 6
    A.SetFlag[HardEvent.V_MTE3](eid)
    A.WaitFlag[HardEvent.V_MTE3](eid)
    for q in held:
        q.FreeTensor(q.DeQue[f32]())


def test_a_fetched_id_6_is_not_a_reserved_id_written_by_hand() -> None:
    r = run(lambda: high_id_kernel(True), sanitize="check")
    assert r.findings == [], [f.message for f in r.findings]
    assert [x.mode & 7 for x in r.decoded(0) if x.name == "FetchEventID"] == [6]
    r = run(lambda: high_id_kernel(False), sanitize="check")
    assert [f.check for f in r.findings] == ["reserved event id"] * 2


# ---- TQueBind and VECCALC queues ---------------------------------------------------------------

def copy_through(x, y, make):
    """GM -> UB -> GM through one queue: MTE2 fills it, MTE3 drains it."""
    pipe = TPipe()
    q = make()
    pipe.InitBuffer(q, 2, 512)
    xg, yg = gtensor(x, f32), gtensor(y, f32)
    for i in range(3):
        t = q.AllocTensor[f32]()
        A.DataCopy(t, xg[128 * i], 128)
        q.EnQue(t)
        t = q.DeQue[f32]()
        A.DataCopy(yg[128 * i], t, 128)
        q.FreeTensor(t)


@pytest.mark.parametrize("make", [lambda: TQueBind[VECIN, VECOUT, 1](),
                                  lambda: TQue[VECCALC, 1]()], ids=["bind", "veccalc"])
@pytest.mark.instruction("AllocTensor", "EnQue", "DeQue", "FreeTensor")
def test_copy_through_queue_uses_mte2_mte3(make) -> None:
    x = np.random.default_rng(0).standard_normal(384).astype(np.float32)
    y = np.zeros_like(x)
    r = run(lambda x, y: copy_through(x, y, make), x, y, sanitize="check", outputs=(1,))
    assert r.findings == []
    assert (y.view(np.uint32) == x.view(np.uint32)).all()
    assert [b.position for b in r.cores[0].buffers] in (["VECIN"] * 2, ["VECCALC"] * 2)
    got = [t for t in flags(r) if t[0] in ("SetFlag", "WaitFlag")]
    # buffer 0 then 1 then 0 again: only the third AllocTensor waits (for buffer 0's free)
    assert got == [
        ("SetFlag", "MTE2", "MTE2_MTE3", 0, 1), ("WaitFlag", "MTE3", "MTE2_MTE3", 0, 1),
        ("SetFlag", "MTE3", "MTE3_MTE2", 0, 1),
        ("SetFlag", "MTE2", "MTE2_MTE3", 0, 1), ("WaitFlag", "MTE3", "MTE2_MTE3", 0, 1),
        ("SetFlag", "MTE3", "MTE3_MTE2", 1, 1),
        ("WaitFlag", "MTE2", "MTE3_MTE2", 0, 1),
        ("SetFlag", "MTE2", "MTE2_MTE3", 0, 1), ("WaitFlag", "MTE3", "MTE2_MTE3", 0, 1),
        ("SetFlag", "MTE3", "MTE3_MTE2", 0, 1)]


def test_tquebind_events_from_the_ends() -> None:
    seen = {}

    def kernel():
        pipe = TPipe()
        qs = {"in_in": TQueBind[VECIN, VECIN, 1](), "out_out": TQueBind[VECOUT, VECOUT, 1](),
              "in_out": TQueBind[VECIN, VECOUT, 1](), "calc": TQue[VECCALC, 1](),
              "out_calc": TQueBind[VECOUT, VECCALC, 1]()}
        for q in qs.values():
            pipe.InitBuffer(q, 1, 32)
        seen.update({k: (HardEvent(q.handoff[0]).name, HardEvent(q.giveback[0]).name)
                     for k, q in qs.items()})
        with pytest.raises(QueueStateError, match="joins PIPE_V to itself"):
            pipe.InitBuffer(TQueBind[VECOUT, VECIN, 1](), 1, 32)
        with pytest.raises(QueueStateError, match="TQueBind.src, dst, depth. takes"):
            TQueBind[VECIN]

    run(kernel)
    assert seen == {"in_in": ("MTE2_V", "V_MTE2"), "out_out": ("V_MTE3", "MTE3_V"),
                    "in_out": ("MTE2_MTE3", "MTE3_MTE2"), "calc": ("MTE2_MTE3", "MTE3_MTE2"),
                    "out_calc": ("V_MTE3", "MTE3_V")}


# ---- queues deeper than 2 ----------------------------------------------------------------------

@pytest.mark.parametrize("depth", [3, 4])
def test_deep_queue_is_a_fifo_ring_over_round_robin_buffers(depth: int) -> None:
    seen = {}

    def kernel():
        pipe = TPipe()
        q = TQue[VECOUT, depth]()
        pipe.InitBuffer(q, 4, 64)
        for _ in range(2):                      # two laps of the ring
            ts = [q.AllocTensor[f32]() for _ in range(depth)]
            seen.setdefault("addr", []).append([t.GetPhyAddr() for t in ts])
            order = list(reversed(ts))
            for t in order:
                q.EnQue(t)
            seen.setdefault("vacant", []).append(q.VacantInQue())
            out = [q.DeQue[f32]() for _ in range(depth)]
            seen.setdefault("fifo", []).append([t.GetPhyAddr() for t in out]
                                               == [t.GetPhyAddr() for t in order])
            for t in out:
                q.FreeTensor(t)

    r = run(kernel)
    first = [64 * i for i in range(depth)]
    second = [64 * ((depth + i) % 4) for i in range(depth)]    # round-robin continues
    assert seen == {"addr": [first, second], "vacant": [False, False], "fifo": [True, True]}
    enq_ids = [x.mode & 7 for x in r.decoded(0) if x.name == "SetFlag" and
               HardEvent(x.mode >> 3) is HardEvent.V_MTE3]
    assert enq_ids == list(range(depth)) * 2    # depth ids in flight at once


def test_enque_on_full_and_deque_on_empty_name_the_queue_and_line() -> None:
    def full():
        pipe = TPipe()
        ring = TQue[VECIN, 3]()
        pipe.InitBuffer(ring, 4, 64)
        ts = [ring.AllocTensor[f32]() for _ in range(4)]
        for t in ts:
            ring.EnQue(t)  # the fourth: full

    with pytest.raises(QueueStateError) as info:
        run(full)
    assert "EnQue on ring: depth 3 already holds 3" in str(info.value)
    assert "test_pipe_events.py" in info.value.context["kernels_py"]
    line = full.__code__.co_firstlineno + 6
    assert info.value.context["kernels_py"].endswith(f":{line}")

    def empty():
        pipe = TPipe()
        ring = TQue[VECIN, 3]()
        pipe.InitBuffer(ring, 4, 64)
        ring.EnQue(ring.AllocTensor[f32]())
        ring.DeQue[f32]()
        ring.DeQue[f32]()  # empty

    with pytest.raises(QueueStateError) as info:
        run(empty)
    assert "DeQue on ring without a matching EnQue: the queue is empty" in str(info.value)
    assert info.value.context["kernels_py"].endswith(f":{empty.__code__.co_firstlineno + 6}")


# ---- depth 0 -----------------------------------------------------------------------------------

def test_depth_zero_queue_reserves_both_ids_at_init_buffer() -> None:
    seen = {}

    def kernel():
        pipe = TPipe()
        q = TQue[VECIN, 0]()
        pipe.InitBuffer(q, 1, 256)
        seen["held"] = (pipe.FetchEventID(HardEvent.MTE2_V), pipe.FetchEventID(HardEvent.V_MTE2))
        for _ in range(2):
            t = q.AllocTensor[f32]()
            q.EnQue(t)
            q.FreeTensor(q.DeQue[f32]())
        seen["after"] = (pipe.FetchEventID(HardEvent.MTE2_V), pipe.FetchEventID(HardEvent.V_MTE2))

    r = run(kernel)
    assert seen == {"held": (1, 1), "after": (1, 1)}
    body = [t for t in flags(r) if t[0] != "FetchEventID"]
    assert body == [("SetFlag", "V", "V_MTE2", 0, 1)] + [
        ("AllocTensor",), ("WaitFlag", "MTE2", "V_MTE2", 0, 1),
        ("EnQue",), ("SetFlag", "MTE2", "MTE2_V", 0, 1),
        ("DeQue",), ("WaitFlag", "V", "MTE2_V", 0, 1),
        ("FreeTensor",), ("SetFlag", "V", "V_MTE2", 0, 1)] * 2


# ---- TBuf.GetWithOffset ------------------------------------------------------------------------

def test_get_with_offset() -> None:
    seen = {}

    def kernel():
        pipe = TPipe()
        pipe.InitBuffer(TBuf[VECCALC](), 96)
        tb = TBuf[VECCALC]()
        pipe.InitBuffer(tb, 1000)                          # [96, 1120)
        a = tb.GetWithOffset[f32](16, 64)
        b = tb.GetWithOffset[half](32, 960)                # ends exactly at the buffer end
        seen["views"] = [(a.GetPhyAddr(), a.GetSize()), (b.GetPhyAddr(), b.GetSize())]
        seen["whole"] = tb.Get[f32]().GetSize()            # Get still gives the whole buffer
        with pytest.raises(OutOfRangeError, match=r"GetWithOffset<half>\(33, 960\): bytes "
                                                  r"\[960, 1026\) of a 1024-byte TBuf"):
            tb.GetWithOffset[half](33, 960)
        with pytest.raises(AlignmentError, match="bufOffset must be 32-byte aligned"):
            tb.GetWithOffset[f32](4, 48)
        with pytest.raises(OutOfRangeError):
            tb.GetWithOffset[f32](1, -32)

    run(kernel)
    assert seen == {"views": [(160, 16), (1056, 32)], "whole": 256}


def test_get_with_offset_check_mode_clips() -> None:
    seen = {}

    def kernel():
        pipe = TPipe()
        tb = TBuf[VECCALC]()
        pipe.InitBuffer(tb, 256)
        t = tb.GetWithOffset[f32](100, 128)
        seen["t"] = (t.GetPhyAddr(), t.GetSize())

    r = run(kernel, sanitize="check")
    assert seen["t"] == (128, 32)
    assert [f.kind for f in r.findings] == ["memcheck"]


# ---- Reset -------------------------------------------------------------------------------------

def two_layouts(x, y, z, stale: bool = False):
    """Phase 1: y = x + 1 with a VECIN and a VECOUT queue; Reset; phase 2: z = 2 x with the
    same queues re-initialised over phase 1's buffers and a TBuf over the rest. `stale`: phase 2
    also writes through a tensor taken in phase 1, which now aliases the new qin buffer before
    its AllocTensor."""
    pipe = TPipe()
    qin, qout = TQue[VECIN, 1](), TQue[VECOUT, 1]()
    pipe.InitBuffer(qin, 2, 1024)
    pipe.InitBuffer(qout, 2, 1024)
    xg, yg, zg = gtensor(x, f32), gtensor(y, f32), gtensor(z, f32)
    first_in = None
    for i in range(2):
        a = qin.AllocTensor[f32]()
        first_in = first_in or a
        A.DataCopy(a, xg[256 * i], 256)
        qin.EnQue(a)
        a = qin.DeQue[f32]()
        b = qout.AllocTensor[f32]()
        A.Adds(b, a, 1.0, 256)
        qout.EnQue(b)
        qin.FreeTensor(a)
        b = qout.DeQue[f32]()
        A.DataCopy(yg[256 * i], b, 256)
        qout.FreeTensor(b)
    pipe.Reset()
    tb = TBuf[VECCALC]()
    pipe.InitBuffer(qin, 1, 1024)              # [0, 1024): phase 1's qin[0]
    pipe.InitBuffer(qout, 1, 1024)             # [1024, 2048): phase 1's qin[1]
    pipe.InitBuffer(tb, 4096)                  # [2048, 6144): over phase 1's qout buffers
    tmp = tb.Get[f32]()
    A.Duplicate(tmp, 2.0, 256)
    if stale:
        A.Duplicate(first_in, 0.0, 64)         # phase 1's tensor at UB 0: the new qin
    for i in range(2):
        a = qin.AllocTensor[f32]()
        A.DataCopy(a, xg[256 * i], 256)
        qin.EnQue(a)
        a = qin.DeQue[f32]()
        b = qout.AllocTensor[f32]()
        A.Mul(b, a, tmp, 256)
        qout.EnQue(b)
        qin.FreeTensor(a)
        b = qout.DeQue[f32]()
        A.DataCopy(zg[256 * i], b, 256)
        qout.FreeTensor(b)


def test_reset_relays_out_ub_and_the_sanitizer_accepts_the_aliasing() -> None:
    x = np.random.default_rng(2).standard_normal(512).astype(np.float32)
    y, z = np.zeros_like(x), np.zeros_like(x)
    r = run(two_layouts, x, y, z, sanitize="check", outputs=(1, 2))
    assert r.findings == [], [f.message for f in r.findings]
    assert (y == x + np.float32(1)).all() and (z == x * np.float32(2)).all()
    core = r.cores[0]
    assert [(b.name, b.start, b.end, b.until >= 0) for b in core.buffers] == [
        ("qin[0]", 0, 1024, True), ("qin[1]", 1024, 2048, True),
        ("qout[0]", 2048, 3072, True), ("qout[1]", 3072, 4096, True),
        ("qin", 0, 1024, False), ("qout", 1024, 2048, False), ("tb", 2048, 6144, False)]
    # Reset waited for the four pending free events (the last FreeTensor of each buffer)
    recs = flags(r)
    at = [i for i, t in enumerate(recs) if t == ("AllocTensor",)][4]   # the first of phase 2
    waits = [t for t in recs[:at] if t[0] == "WaitFlag"]
    assert waits[-4:] == [("WaitFlag", "MTE2", "V_MTE2", 0, 1),
                          ("WaitFlag", "MTE2", "V_MTE2", 1, 1),
                          ("WaitFlag", "V", "MTE3_V", 0, 1),
                          ("WaitFlag", "V", "MTE3_V", 1, 1)]


def test_stale_tensor_after_reset_is_still_reported() -> None:
    """The twin: the retired buffers are not checked, the new ones are: a write through a
    phase-1 tensor into a new queue buffer before its AllocTensor is a finding."""
    x = np.zeros(512, np.float32)
    y, z = np.zeros_like(x), np.zeros_like(x)
    r = run(lambda x, y, z: two_layouts(x, y, z, stale=True), x, y, z, sanitize="check",
            outputs=(1, 2))
    use = [f for f in r.findings if f.check == "use before AllocTensor"]
    assert len(use) == 1 and "queue buffer qin [0, 1024)" in use[0].message


def test_reset_clears_occupancy_and_allows_init_buffer_again() -> None:
    seen = {}

    def kernel():
        pipe = TPipe()
        q = TQue[VECOUT, 1]()
        pipe.InitBuffer(q, 1, 512)
        seen["reserved"] = pipe.AllocEventID[HardEvent.V_S]()
        q.EnQue(q.AllocTensor[f32]())            # holds V_MTE3 0 (never dequeued)
        pipe.Reset()
        seen["ids"] = (pipe.FetchEventID(HardEvent.V_S), pipe.FetchEventID(HardEvent.V_MTE3))
        pipe.InitBuffer(q, 2, 64)
        seen["buffers"] = [(b.start, b.end) for b in pipe.buffers]
        t = q.AllocTensor[half]()
        seen["t"] = (t.GetPhyAddr(), t.GetSize())
        with pytest.raises(QueueStateError, match="already initialised"):
            pipe.InitBuffer(q, 1, 64)

    run(kernel)
    assert seen == {"reserved": 0, "ids": (0, 0), "buffers": [(0, 64), (64, 128)],
                    "t": (0, 32)}


# ---- Destroy -----------------------------------------------------------------------------------

def test_destroy_waits_barriers_and_retires_the_pipe() -> None:
    def kernel():
        pipe = TPipe()
        q = TQue[VECIN, 1]()
        tb = TBuf[VECCALC]()
        pipe.InitBuffer(q, 1, 256)
        pipe.InitBuffer(tb, 256)
        q.EnQue(q.AllocTensor[f32]())
        q.FreeTensor(q.DeQue[f32]())            # V_MTE2 0 pending
        pipe.Destroy()
        for call in (lambda: pipe.InitBuffer(TBuf[VECCALC](), 32),
                     lambda: GetTPipePtr().FetchEventID(HardEvent.V_S),
                     lambda: pipe.AllocEventID[HardEvent.V_S](),
                     lambda: pipe.Reset(), lambda: pipe.Destroy(),
                     lambda: q.AllocTensor[f32](), lambda: tb.Get[f32]()):
            with pytest.raises(QueueStateError, match=r"after TPipe.Destroy\(\)"):
                call()

    r = run(kernel)
    assert flags(r)[-2:] == [("WaitFlag", "MTE2", "V_MTE2", 0, 1), ("PipeBarrier", "ALL")]
    assert r.cores[0].event_pool == {}


def test_destroy_barrier_on_a_stalled_pipe_is_a_deadlock() -> None:
    def kernel():
        pipe = TPipe()
        A.WaitFlag[HardEvent.MTE2_V](0)         # V waits for a flag nobody sets
        pipe.Destroy()

    with pytest.raises(SimulationError, match="PipeBarrier<PIPE_ALL> waits for pipe"):
        run(kernel)


def test_get_tpipe_ptr_needs_a_tpipe() -> None:
    def kernel():
        GetTPipePtr()

    with pytest.raises(QueueStateError, match="the kernel has created no TPipe"):
        run(kernel)


def test_constructor_and_reset_run_the_soc_state_hooks() -> None:
    """InitSocState(): what other modules register in pipe.SOC_STATE_HOOKS runs at TPipe() and
    at every Reset(), not at Destroy()."""
    from ascsim import pipe as pipe_module
    calls = []

    def hook(core):
        calls.append(len(core.records))

    def kernel():
        pipe = TPipe()
        pipe.AllocEventID[HardEvent.V_S]()
        pipe.Reset()
        pipe.AllocEventID[HardEvent.V_S]()
        pipe.Reset()
        pipe.Destroy()

    pipe_module.SOC_STATE_HOOKS.append(hook)
    try:
        run(kernel)
    finally:
        pipe_module.SOC_STATE_HOOKS.remove(hook)
    assert calls == [0, 1, 2]
