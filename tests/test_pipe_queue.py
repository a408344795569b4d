"""TPipe / TQue / TBuf (ascendc_semantics.md §1.3): InitBuffer layout and rounding, the TQue
state machine and its implicit flags (VECIN: EnQue sets MTE2_V, DeQue waits for it, FreeTensor
sets V_MTE2, the next AllocTensor of that buffer waits for it; VECOUT likewise with V_MTE3 and
MTE3_V), TBuf.Get, and the unspecified contents of a fresh AllocTensor.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import gtensor

import ascsim
import ascsim.ascendc as A
from ascsim.ascendc import HardEvent, QuePosition, TBuf, TPipe, TQue
from ascsim.dtypes import float as f32
from ascsim.dtypes import half, uint8_t
from ascsim.errors import QueueStateError


def run(kernel, *gm, **kw) -> ascsim.Run:
    return ascsim.launch(kernel, 1, *gm, **kw)


# ---- InitBuffer -------------------------------------------------------------------------------

def test_init_buffer_layout_and_rounding() -> None:
    """Lengths round up to 32 bytes; buffers are carved from address 0 in call order."""
    seen = {}

    def kernel():
        pipe = TPipe()
        qin = TQue[QuePosition.VECIN, 1]()
        tb = TBuf[QuePosition.VECCALC]()
        qout = TQue[QuePosition.VECOUT, 2]()
        empty = TBuf[QuePosition.VECCALC]()
        last = TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(qin, 2, 100)      # 2 x 128
        pipe.InitBuffer(tb, 33)           # 64
        pipe.InitBuffer(qout, 3, 32)      # 3 x 32
        pipe.InitBuffer(empty, 0)         # 0
        pipe.InitBuffer(last, 1)          # 32
        seen["layout"] = [(b.name, b.start, b.end, b.position) for b in pipe.buffers]
        a0 = qin.AllocTensor[f32]()
        a1 = qin.AllocTensor[half]()
        seen["alloc"] = [(a0.GetPhyAddr(), a0.GetSize()), (a1.GetPhyAddr(), a1.GetSize())]
        seen["tbuf"] = (tb.Get[f32]().GetPhyAddr(), tb.Get[f32]().GetSize(),
                        last.Get[uint8_t]().GetPhyAddr(), empty.Get[f32]().GetSize())

    run(kernel)
    assert seen["layout"] == [
        ("qin[0]", 0, 128, "VECIN"), ("qin[1]", 128, 256, "VECIN"), ("tb", 256, 320, "VECCALC"),
        ("qout[0]", 320, 352, "VECOUT"), ("qout[1]", 352, 384, "VECOUT"),
        ("qout[2]", 384, 416, "VECOUT"), ("empty", 416, 416, "VECCALC"),
        ("last", 416, 448, "VECCALC")]
    assert seen["alloc"] == [(0, 32), (128, 64)]
    assert seen["tbuf"] == (256, 16, 416, 0)


def test_whole_ub_fits_exactly() -> None:
    seen = {}

    def kernel():
        pipe = TPipe()
        q = TQue[QuePosition.VECIN, 1]()
        pipe.InitBuffer(q, 2, 98304)
        seen["end"] = pipe.buffers[-1].end

    run(kernel)
    assert seen["end"] == 196608


def test_capacity_error_names_buffer_and_sizes() -> None:
    def kernel():
        pipe = TPipe()
        first = TBuf[QuePosition.VECCALC]()
        big = TQue[QuePosition.VECIN, 1]()
        pipe.InitBuffer(first, 100000)
        pipe.InitBuffer(big, 2, 49000)

    with pytest.raises(QueueStateError) as info:
        run(kernel)
    msg = str(info.value)
    for part in ("InitBuffer(big, 2, 49024)", "[100000, 198048)", "196608",
                 "buffer size is 98048", "exceeds the limit 96608", "1 earlier buffer"):
        assert part in msg, part


def test_init_buffer_errors() -> None:
    def kernel():
        pipe = TPipe()
        q = TQue[QuePosition.VECIN, 1]()
        tb = TBuf[QuePosition.VECCALC]()
        with pytest.raises(QueueStateError, match="AllocTensor before InitBuffer"):
            q.AllocTensor[f32]()
        with pytest.raises(QueueStateError, match="the queue is empty"):
            q.DeQue[f32]()
        with pytest.raises(QueueStateError, match="TBuf.Get before InitBuffer"):
            tb.Get[f32]()
        pipe.InitBuffer(q, 1, 64)
        with pytest.raises(QueueStateError, match="already initialised"):
            pipe.InitBuffer(q, 1, 64)
        with pytest.raises(QueueStateError, match="takes one length"):
            pipe.InitBuffer(tb, 1, 64)
        with pytest.raises(QueueStateError, match="takes a count and a length"):
            pipe.InitBuffer(TQue[QuePosition.VECOUT, 1](), 64)
        with pytest.raises(QueueStateError, match="count must be >= 1"):
            pipe.InitBuffer(TQue[QuePosition.VECOUT, 1](), 0, 64)
        many = TQue[QuePosition.VECIN, 1]()
        with pytest.raises(QueueStateError, match="more than 8 TQue buffers at VECIN"):
            pipe.InitBuffer(many, 8, 32)      # 1 + 8 VECIN buffers: one event id each
        calc = TQue[QuePosition.VECCALC, 1]()
        pipe.InitBuffer(calc, 8, 32)          # VECCALC: eight ids of its own events
        with pytest.raises(QueueStateError, match="a TQue at GM has no place"):
            pipe.InitBuffer(TQue[QuePosition.GM, 1](), 1, 32)

    run(kernel)


# ---- TQue state machine -----------------------------------------------------------------------

def test_que_state_errors() -> None:
    def kernel():
        pipe = TPipe()
        q = TQue[QuePosition.VECIN, 1]()
        other = TQue[QuePosition.VECIN, 1]()
        pipe.InitBuffer(q, 1, 256)
        pipe.InitBuffer(other, 1, 256)
        with pytest.raises(QueueStateError, match="DeQue on q without a matching EnQue"):
            q.DeQue[f32]()
        t = q.AllocTensor[f32]()
        with pytest.raises(QueueStateError, match="all 1 buffer"):
            q.AllocTensor[f32]()
        with pytest.raises(QueueStateError, match="does not come from queue other"):
            other.EnQue(t)
        q.EnQue(t)
        with pytest.raises(QueueStateError, match="which is enqueued"):
            q.EnQue(t)
        with pytest.raises(QueueStateError, match="while it is enqueued"):
            q.FreeTensor(t)
        t = q.DeQue[f32]()
        with pytest.raises(QueueStateError, match="which is dequeued"):
            q.EnQue(t)
        q.FreeTensor(t)
        with pytest.raises(QueueStateError, match="freed twice"):
            q.FreeTensor(t)

    run(kernel)


def test_que_depth_limits_enqueues() -> None:
    seen = {}

    def kernel():
        pipe = TPipe()
        q1 = TQue[QuePosition.VECOUT, 1]()
        q2 = TQue[QuePosition.VECOUT, 2]()
        pipe.InitBuffer(q1, 2, 64)
        pipe.InitBuffer(q2, 2, 64)
        a, b = q1.AllocTensor[f32](), q1.AllocTensor[f32]()
        q1.EnQue(a)
        seen["vacant"] = (q1.VacantInQue(), q1.HasTensorInQue())
        with pytest.raises(QueueStateError, match="depth 1 already holds 1"):
            q1.EnQue(b)
        c, d = q2.AllocTensor[f32](), q2.AllocTensor[f32]()
        q2.EnQue(c)
        q2.EnQue(d)                       # depth 2: two in flight, two event ids
        x, y = q2.DeQue[f32](), q2.DeQue[f32]()
        seen["fifo"] = (x.GetPhyAddr(), y.GetPhyAddr())

    r = run(kernel)
    assert seen == {"vacant": (False, True), "fifo": (128, 192)}
    sets = [x for x in r.decoded(0) if x.name == "SetFlag"]
    # event ids come from one per-core pool per HardEvent: q1 holds id 0, so q2 gets 1 and 2
    assert [(x.mode & 7) for x in sets] == [0, 1, 2]


@pytest.mark.instruction("AllocTensor")
def test_alloc_is_round_robin_and_reads_as_dummy() -> None:
    """AllocTensor contents are unspecified: ascsim refills a buffer with the dummy pattern at
    every allocation, even over data written during its previous use."""
    seen = []

    def kernel():
        pipe = TPipe()
        q = TQue[QuePosition.VECCALC, 1]()
        pipe.InitBuffer(q, 2, 256)
        for i in range(4):
            t = q.AllocTensor[f32]() if i < 2 else via(q.AllocTensor[f32])
            seen.append((t.GetPhyAddr(), np.isnan(t.numpy()).all(), (t.ReinterpretCast[uint8_t]()
                         .numpy() == 0xFF).all()))
            A.Duplicate(t, 1.0, 64)
            if i < 2:
                q.EnQue(t)
                q.FreeTensor(q.DeQue[f32]())
            else:  # every queue call from one call site
                via(q.EnQue, t)
                via(q.FreeTensor, via(q.DeQue[f32]))

    def via(call, *args):
        return call(*args)

    r = run(kernel)
    assert seen == [(0, True, True), (256, True, True), (0, True, True), (256, True, True)]
    # the queue calls' rows name the buffer each call used and their own instruction, also
    # when every call comes from one call site
    queue_rows = [(x.name, x.accesses[0].start, x.accesses[0].end, x.lasti)
                  for x in r.decoded(0) if x.instruction.family == "queue"]
    names = ["AllocTensor", "EnQue", "DeQue", "FreeTensor"]
    assert [(n, s, e) for n, s, e, _ in queue_rows] == [
        (n, b, b + 256) for b in (0, 256, 0, 256) for n in names]
    assert len({lasti for _, _, _, lasti in queue_rows[8:]}) == 1


# ---- implicit flags ---------------------------------------------------------------------------

def queue_trace(position: QuePosition) -> list[tuple]:
    """(instruction, pipe, event, id, implicit) of two alloc/enque/deque/free rounds on one
    single-buffered queue of `position`."""
    def kernel():
        pipe = TPipe()
        q = TQue[position, 1]()
        pipe.InitBuffer(q, 1, 256)
        for _ in range(2):
            t = q.AllocTensor[f32]()
            q.EnQue(t)
            q.FreeTensor(q.DeQue[f32]())

    out = []
    for rec in run(kernel).decoded(0):
        if rec.name in ("SetFlag", "WaitFlag"):
            out.append((rec.name, rec.pipe_name, HardEvent(rec.mode >> 3).name, rec.mode & 7,
                        int(rec.implicit)))
        else:
            assert rec.pipe_name == "S" and rec.instruction.family == "queue"
            assert rec.count == 0 and rec.accesses[0].start == 0 and rec.accesses[0].end == 256
            out.append((rec.name,))
    return out


@pytest.mark.instruction("AllocTensor", "EnQue", "DeQue", "FreeTensor")
def test_vecin_implicit_flags() -> None:
    assert queue_trace(QuePosition.VECIN) == [
        ("AllocTensor",),                                  # the first alloc does not wait
        ("EnQue",), ("SetFlag", "MTE2", "MTE2_V", 0, 1),
        ("DeQue",), ("WaitFlag", "V", "MTE2_V", 0, 1),
        ("FreeTensor",), ("SetFlag", "V", "V_MTE2", 0, 1),
        ("AllocTensor",), ("WaitFlag", "MTE2", "V_MTE2", 0, 1),
        ("EnQue",), ("SetFlag", "MTE2", "MTE2_V", 0, 1),
        ("DeQue",), ("WaitFlag", "V", "MTE2_V", 0, 1),
        ("FreeTensor",), ("SetFlag", "V", "V_MTE2", 0, 1),
    ]


def test_vecout_implicit_flags() -> None:
    assert queue_trace(QuePosition.VECOUT) == [
        ("AllocTensor",),
        ("EnQue",), ("SetFlag", "V", "V_MTE3", 0, 1),
        ("DeQue",), ("WaitFlag", "MTE3", "V_MTE3", 0, 1),
        ("FreeTensor",), ("SetFlag", "MTE3", "MTE3_V", 0, 1),
        ("AllocTensor",), ("WaitFlag", "V", "MTE3_V", 0, 1),
        ("EnQue",), ("SetFlag", "V", "V_MTE3", 0, 1),
        ("DeQue",), ("WaitFlag", "MTE3", "V_MTE3", 0, 1),
        ("FreeTensor",), ("SetFlag", "MTE3", "MTE3_V", 0, 1),
    ]


def test_veccalc_queue_uses_mte2_mte3_flags() -> None:
    """TQue<VECCALC> is not a documented position: its ends map to MAX, physically UB, so its
    events are MTE2_MTE3 / MTE3_MTE2 (ascendc_more.md §4 [INFERRED]; ascsim had no flags here
    before that sheet)."""
    assert queue_trace(QuePosition.VECCALC) == [
        ("AllocTensor",),
        ("EnQue",), ("SetFlag", "MTE2", "MTE2_MTE3", 0, 1),
        ("DeQue",), ("WaitFlag", "MTE3", "MTE2_MTE3", 0, 1),
        ("FreeTensor",), ("SetFlag", "MTE3", "MTE3_MTE2", 0, 1),
        ("AllocTensor",), ("WaitFlag", "MTE2", "MTE3_MTE2", 0, 1),
        ("EnQue",), ("SetFlag", "MTE2", "MTE2_MTE3", 0, 1),
        ("DeQue",), ("WaitFlag", "MTE3", "MTE2_MTE3", 0, 1),
        ("FreeTensor",), ("SetFlag", "MTE3", "MTE3_MTE2", 0, 1),
    ]


def _cycle_a(q: TQue) -> None:
    t = q.AllocTensor[f32]()
    q.EnQue(t)
    q.FreeTensor(q.DeQue[f32]())


def _cycle_b(q: TQue) -> None:  # the same bytecode as _cycle_a: its calls sit at equal offsets
    t = q.AllocTensor[f32]()
    q.EnQue(t)
    q.FreeTensor(q.DeQue[f32]())


def test_queue_rows_name_their_own_call_site() -> None:
    """A queue keeps its rows per call site (TQueBind._site): calls from two functions at the
    same bytecode offsets still name their own function, each buffer its own range, and a
    queue initialised again after TPipe.Reset its new buffers."""
    def kernel():
        pipe = TPipe()
        q = TQue[QuePosition.VECIN, 1]()
        pipe.InitBuffer(q, 1, 256)
        _cycle_a(q)
        _cycle_b(q)
        _cycle_a(q)
        pipe.Reset()
        pipe.InitBuffer(q, 2, 512)
        _cycle_a(q)   # buffer 0
        _cycle_a(q)   # buffer 1

    rows = [(r.name, r.code.co_name, r.lasti, r.accesses[0].start if r.accesses else None,
             r.accesses[0].end if r.accesses else None, r.mode)
            for r in run(kernel).decoded(0) if r.code.co_name.startswith("_cycle")]
    assert [(name, fn, start, end) for name, fn, _, start, end, _ in rows
            if start is not None] == [
        (name, fn, start, end)
        for fn, start, end in (("_cycle_a", 0, 256), ("_cycle_b", 0, 256), ("_cycle_a", 0, 256),
                               ("_cycle_a", 0, 512), ("_cycle_a", 512, 1024))
        for name in ("AllocTensor", "EnQue", "DeQue", "FreeTensor")]
    offsets = {(name, lasti) for name, _, lasti, *_ in rows}
    assert len(offsets) == 8  # 4 calls, 4 flags: the two functions' calls share their offsets
    # the implicit flags keep their own event ids: the second buffer's free flag is id 1
    assert [mode & 7 for name, _, _, start, _, mode in rows
            if name == "SetFlag" and start is None] == [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    assert [fn for name, fn, *_ in rows if name == "WaitFlag"] == [
        "_cycle_a", "_cycle_b", "_cycle_b", "_cycle_a", "_cycle_a", "_cycle_a", "_cycle_a"]


def test_explicit_and_implicit_flags_share_the_semaphores() -> None:
    """A queue's pending free event is a real flag: a kernel that also sets V_MTE2 id 0 by hand
    before it is waited for sets it twice."""
    def kernel():
        pipe = TPipe()
        q = TQue[QuePosition.VECIN, 1]()
        pipe.InitBuffer(q, 1, 256)
        t = q.AllocTensor[f32]()
        q.EnQue(t)
        q.FreeTensor(q.DeQue[f32]())
        A.SetFlag[HardEvent.V_MTE2](0)

    with pytest.raises(ascsim.SimulationError, match="V_MTE2 id 0, which is already set"):
        run(kernel)


# ---- TBuf -------------------------------------------------------------------------------------

def test_tbuf_get_with_and_without_length() -> None:
    seen = {}

    def kernel():
        pipe = TPipe()
        pipe.InitBuffer(TBuf[QuePosition.VECCALC](), 64)
        tb = TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(tb, 1000)                       # rounds to 1024
        seen["sizes"] = (tb.Get[f32]().GetSize(), tb.Get[half]().GetSize(),
                         tb.Get[half](10).GetSize(), tb.Get[f32](256).GetSize(),
                         tb.Get[uint8_t](0).GetSize(), tb.Get[f32](7).GetPhyAddr())
        with pytest.raises(QueueStateError, match=r"Get<float>\(257\).*256 elements"):
            tb.Get[f32](257)
        with pytest.raises(QueueStateError):
            tb.Get[f32](-1)

    r = run(kernel)
    assert seen["sizes"] == (256, 512, 10, 256, 0, 64)
    assert r.cores[0].records == []     # TBuf has no queue calls and no flags


# ---- a whole pipeline -------------------------------------------------------------------------

def pipeline_kernel(x, y):
    """y = 2 * x + 1, 256 floats per tile, double-buffered VECIN and VECOUT queues."""
    tile, tiles = 256, 6
    pipe = TPipe()
    qin = TQue[QuePosition.VECIN, 1]()
    qout = TQue[QuePosition.VECOUT, 1]()
    pipe.InitBuffer(qin, 2, tile * 4)
    pipe.InitBuffer(qout, 2, tile * 4)
    xg, yg = gtensor(x, f32), gtensor(y, f32)
    for i in range(tiles):
        a = qin.AllocTensor[f32]()
        A.DataCopy(a, xg[i * tile], tile)
        qin.EnQue(a)
        a = qin.DeQue[f32]()
        b = qout.AllocTensor[f32]()
        A.Muls(b, a, 2.0, tile)
        A.Adds(b, b, 1.0, tile)
        qout.EnQue(b)
        qin.FreeTensor(a)
        b = qout.DeQue[f32]()
        A.DataCopy(yg[i * tile], b, tile)
        qout.FreeTensor(b)


@pytest.mark.instruction("AllocTensor", "EnQue", "DeQue", "FreeTensor")
def test_pipeline_through_queues() -> None:
    x = np.random.default_rng(1).standard_normal(1536).astype(np.float32)
    y = np.zeros_like(x)
    r = run(pipeline_kernel, x, y)
    assert (y.view(np.uint32) == (x * np.float32(2) + np.float32(1)).view(np.uint32)).all()
    core = r.cores[0]
    assert core.stalled == 0 and not any(core.backlog)
    counts = r.counts_by_instruction()
    assert counts["AllocTensor"] == counts["FreeTensor"] == 12
    # every implicit wait was satisfied by an earlier implicit set of the same flag
    sets = sum(1 for rec in r.decoded(0) if rec.name == "SetFlag")
    waits = sum(1 for rec in r.decoded(0) if rec.name == "WaitFlag")
    assert (sets, waits) == (24, 20)     # the last free of each of the 4 buffers is not waited
