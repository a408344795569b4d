"""SetFlag / WaitFlag / PipeBarrier (ascendc_semantics.md §2): HardEvent values, binary flags,
the pipes each side runs on, waits issued before their set (the data dependency is honoured),
deadlocks, and the events an AI Vector core cannot use.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import gtensor, run_ub, tensor

import ascsim
import ascsim.ascendc as A
from ascsim.ascendc import PIPE_ALL, PIPE_MTE2, PIPE_MTE3, PIPE_S, PIPE_V, HardEvent
from ascsim.dtypes import float as f32
from ascsim.dtypes import half
from ascsim.errors import DeadlockError, SyncError

# §2.2, typed from the table: value -> name
HARD_EVENT_TABLE = {
    0: "MTE2_MTE1", 1: "MTE1_MTE2", 2: "MTE1_M", 3: "M_MTE1", 4: "MTE2_V", 5: "V_MTE2",
    6: "MTE3_V", 7: "V_MTE3", 8: "M_V", 9: "V_M", 10: "V_V", 11: "MTE3_MTE1", 12: "MTE1_MTE3",
    13: "MTE1_V", 14: "MTE2_M", 15: "M_MTE2", 16: "V_MTE1", 17: "M_FIX", 18: "FIX_M",
    19: "MTE3_MTE2", 20: "MTE2_MTE3", 21: "S_V", 22: "V_S", 23: "S_MTE2", 24: "MTE2_S",
    25: "S_MTE3", 26: "MTE3_S", 27: "MTE2_FIX", 28: "FIX_MTE2", 29: "FIX_S", 30: "M_S",
    31: "FIX_MTE3", 32: "MTE1_FIX", 33: "FIX_MTE1", 34: "FIX_FIX", 35: "MAX",
}
# HardEventAiv: the events whose both pipes an AI Vector core has
AIV_EVENTS = {"MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3", "V_V", "MTE3_MTE2", "MTE2_MTE3", "S_V",
              "V_S", "S_MTE2", "MTE2_S", "S_MTE3", "MTE3_S"}
PIPE_OF = {"S": "S", "V": "V", "MTE2": "MTE2", "MTE3": "MTE3"}


def test_hard_event_values() -> None:
    assert {int(e): e.name for e in HardEvent} == HARD_EVENT_TABLE


def test_event_ids_and_pipes() -> None:
    assert [A.EVENT_ID0, A.EVENT_ID1, A.EVENT_ID7] == [0, 1, 7]
    assert len({PIPE_S, PIPE_V, PIPE_MTE2, PIPE_MTE3, PIPE_ALL}) == 5


def kernel_run(kernel, *gm):
    return ascsim.launch(kernel, 1, *gm)


@pytest.mark.parametrize("name", sorted(AIV_EVENTS))
@pytest.mark.instruction("SetFlag", "WaitFlag")
def test_set_and_wait_run_on_source_and_destination_pipes(name: str) -> None:
    event = HardEvent[name]
    src, _, dst = name.partition("_")

    def kernel():
        for event_id in (0, 5, 7):
            A.SetFlag[event](event_id)
            A.WaitFlag[event](event_id)
        A.SetFlag[event](3)        # a flag may be set again once it was waited for
        A.WaitFlag[event](3)
        A.SetFlag[event](3)
        A.WaitFlag[event](3)

    recs = kernel_run(kernel).decoded(0)
    assert [(r.name, r.pipe_name, r.mode, r.implicit) for r in recs[:2]] == [
        ("SetFlag", src, int(event) * 8, False), ("WaitFlag", dst, int(event) * 8, False)]
    assert [r.mode & 7 for r in recs] == [0, 0, 5, 5, 7, 7, 3, 3, 3, 3]
    assert [r.accesses for r in recs] == [()] * 10


@pytest.mark.parametrize("name", sorted(set(HARD_EVENT_TABLE.values()) - AIV_EVENTS - {"MAX"}))
def test_cube_events_raise(name: str) -> None:
    def kernel():
        with pytest.raises(SyncError, match=f"HardEvent {name} names a pipe"):
            A.SetFlag[HardEvent[name]](0)
        with pytest.raises(SyncError, match=f"HardEvent {name} names a pipe"):
            A.WaitFlag[HardEvent[name]](0)

    assert kernel_run(kernel).cores[0].records == []


@pytest.mark.parametrize("event_id", [8, 9, -1, 100])
def test_event_id_out_of_range(event_id: int) -> None:
    def kernel():
        with pytest.raises(SyncError, match=rf"eventID {event_id} should be in range \[0, 8\)"):
            A.SetFlag[HardEvent.MTE2_V](event_id)
        with pytest.raises(SyncError, match=f"eventID {event_id}"):
            A.WaitFlag[HardEvent.V_MTE3](event_id)

    kernel_run(kernel)


def test_double_set_raises() -> None:
    def kernel():
        A.SetFlag[HardEvent.MTE2_V](2)
        A.SetFlag[HardEvent.MTE2_V](3)     # another id: a different flag
        A.SetFlag[HardEvent.V_MTE2](2)     # another event: a different flag
        A.SetFlag[HardEvent.MTE2_V](2)

    with pytest.raises(SyncError, match="MTE2_V id 2, which is already set") as info:
        kernel_run(kernel)
    assert info.value.context["core"] == 0
    assert "test_sync.py" in info.value.context["kernels_py"]


@pytest.mark.instruction("SetFlag", "WaitFlag")
def test_wait_before_set_honours_the_data_dependency() -> None:
    """V waits for MTE2_V before the DataCopy that fills its input is even issued: the vector
    work (and the V_MTE3 set behind it, and the copy-out behind that) must run after the copy
    and see its data."""
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(64, np.float32)

    def body(ub, xb, yb):
        inp, out = tensor(ub, 0, f32), tensor(ub, 1024, f32)
        A.WaitFlag[HardEvent.MTE2_V](0)         # V stalls here ...
        A.Adds(out, inp, 1.0, 64)               # ... so this waits in V's backlog
        A.SetFlag[HardEvent.V_MTE3](1)
        A.WaitFlag[HardEvent.V_MTE3](1)         # MTE3 stalls: the set is still queued on V
        A.DataCopy(gtensor(yb, f32), out, 64)
        A.DataCopy(inp, gtensor(xb, f32), 64)   # MTE2 is free to run
        A.SetFlag[HardEvent.MTE2_V](0)          # releases V, which releases MTE3

    ub, run = run_ub(body, gm=(x, y))
    assert (y == x + 1).all()
    core = run.cores[0]
    assert core.stalled == 0 and not any(core.backlog) and not any(core.flags)
    # the records keep program (issue) order
    assert [r.name for r in run.decoded(0)] == ["WaitFlag", "Adds", "SetFlag", "WaitFlag",
                                                 "DataCopy", "DataCopy", "SetFlag"]


def test_stalled_pipe_does_not_hold_other_pipes() -> None:
    """While V waits, MTE2 copies and the scalar unit keeps issuing; V's work then runs in its
    own program order."""
    x = np.full(64, 3.0, np.float32)

    def body(ub, xb):
        a, b = tensor(ub, 0, f32), tensor(ub, 1024, f32)
        A.WaitFlag[HardEvent.S_V](4)
        A.Muls(b, a, 2.0, 64)                   # runs after the copy: 6
        A.Adds(b, b, 1.0, 64)                   # then this: 7
        A.DataCopy(a, gtensor(xb, f32), 64)
        A.SetFlag[HardEvent.MTE2_V](0)
        A.SetFlag[HardEvent.S_V](4)             # V resumes: Muls, Adds, then this wait
        A.WaitFlag[HardEvent.MTE2_V](0)

    ub, _ = run_ub(body, gm=(x,))
    assert (ub[1024:1280].view(np.float32) == 7.0).all()


def test_wait_never_set_is_a_deadlock() -> None:
    def kernel():
        A.SetFlag[HardEvent.MTE2_V](1)
        A.WaitFlag[HardEvent.MTE2_V](3)

    with pytest.raises(DeadlockError) as info:
        kernel_run(kernel)
    assert "PIPE_V waits for MTE2_V id 3" in str(info.value)
    assert info.value.context["core"] == 0


def test_deadlock_reports_every_stalled_pipe() -> None:
    def kernel():
        A.WaitFlag[HardEvent.V_MTE3](0)
        A.WaitFlag[HardEvent.S_MTE2](6)

    with pytest.raises(DeadlockError) as info:
        kernel_run(kernel)
    msg = str(info.value)
    assert "PIPE_MTE2 waits for S_MTE2 id 6" in msg and "PIPE_MTE3 waits for V_MTE3 id 0" in msg


@pytest.mark.parametrize("event", [HardEvent.V_S, HardEvent.MTE2_S, HardEvent.MTE3_S])
def test_scalar_wait_without_a_set_is_a_deadlock_at_once(event: HardEvent) -> None:
    """The scalar unit stops issuing at the wait, so nothing later can set the flag."""
    def kernel():
        A.WaitFlag[event](2)
        raise AssertionError("the kernel must not get past the wait")

    with pytest.raises(DeadlockError, match=f"scalar pipe waits for {event.name} id 2"):
        kernel_run(kernel)


def test_scalar_wait_after_set_is_fine() -> None:
    def kernel():
        A.SetFlag[HardEvent.V_S](0)
        A.WaitFlag[HardEvent.V_S](0)
        A.SetFlag[HardEvent.MTE3_S](7)
        A.WaitFlag[HardEvent.MTE3_S](7)

    recs = kernel_run(kernel).decoded(0)
    assert [r.pipe_name for r in recs] == ["V", "S", "MTE3", "S"]


def test_scalar_wait_on_a_set_held_by_a_stalled_pipe_is_a_deadlock() -> None:
    def kernel():
        A.WaitFlag[HardEvent.MTE2_V](0)   # V stalls
        A.SetFlag[HardEvent.V_S](0)       # queued behind it on V
        A.WaitFlag[HardEvent.V_S](0)      # S would wait forever: MTE2_V is never set

    with pytest.raises(DeadlockError, match="scalar pipe waits for V_S id 0"):
        kernel_run(kernel)


@pytest.mark.instruction("PipeBarrier")
def test_pipe_barrier() -> None:
    def kernel():
        A.PipeBarrier[PIPE_V]()
        A.PipeBarrier[PIPE_MTE2]()
        A.PipeBarrier[PIPE_MTE3]()
        A.PipeBarrier[PIPE_ALL]()
        with pytest.raises(SyncError, match="PipeBarrier<PIPE_S> is not supported"):
            A.PipeBarrier[PIPE_S]()

    recs = kernel_run(kernel).decoded(0)
    assert [(r.name, r.pipe_name, r.mode) for r in recs] == [
        ("PipeBarrier", "V", PIPE_V), ("PipeBarrier", "MTE2", PIPE_MTE2),
        ("PipeBarrier", "MTE3", PIPE_MTE3), ("PipeBarrier", "ALL", PIPE_ALL)]


def test_pipe_barrier_all_while_a_pipe_waits_is_a_deadlock() -> None:
    def kernel():
        A.WaitFlag[HardEvent.MTE3_V](1)
        A.PipeBarrier[PIPE_ALL]()

    with pytest.raises(DeadlockError, match="PipeBarrier<PIPE_ALL> while pipe.s. V wait"):
        kernel_run(kernel)


def test_flags_are_per_core() -> None:
    """Each core has its own flags: the same set / wait pair runs on every core."""
    def kernel():
        A.SetFlag[HardEvent.MTE2_V](0)
        A.WaitFlag[HardEvent.MTE2_V](0)

    run = ascsim.launch(kernel, 3, threads=2)
    assert all(len(c.records) == 2 and not any(c.flags) for c in run.cores)


def test_overlapping_sources_are_read_when_the_stalled_work_runs() -> None:
    """A source that partially overlaps its destination is read when the instruction executes:
    queued behind a stalled V pipe, that is after the copy that fills it (not at issue)."""
    x = np.arange(1, 129, dtype=np.float32)

    def body(ub, xb):
        t, w, c = tensor(ub, 0, f32), tensor(ub, 1024, f32), tensor(ub, 4096, f32)
        A.WaitFlag[HardEvent.MTE2_V](0)
        A.Adds(t[8], t, 1.0, 64)                       # tensor-scalar, dst one block later
        A.Add(w[8], w, t, 64)                          # binary, src0 overlaps dst
        A.Sqrt(w[64], w[72], 56)                       # unary, src after dst
        A.Cast(c[8].ReinterpretCast[half](), c, A.RoundMode.CAST_RINT, 64)
        for dst in (t, w, c):
            A.DataCopy(dst, gtensor(xb, f32), 128)
        A.SetFlag[HardEvent.MTE2_V](0)

    ub, _ = run_ub(body, gm=(x,))
    t, w = x.copy(), x.copy()
    t[8:72] = x[:64] + np.float32(1)
    w[8:72] = x[:64] + t[:64]
    w[64:120] = np.sqrt(w[72:128].copy())
    assert (ub[0:512].view(np.float32) == t).all()
    assert (ub[1024:1536].view(np.float32) == w).all()
    assert (ub[4128:4256].view(np.float16) == x[:64].astype(np.float16)).all()
