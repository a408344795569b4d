# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""Cross-core execution (instructions/crosscore.py): the cooperative core scheduler, SyncAll
(hard and soft), CrossCoreSetFlag/WaitFlag, GetSubBlockIdx/GetTaskRation, deadlocks, and the
sanitizer's happens-before across SyncAll phases. Kernels are small Python transcriptions in
the style of kernels_py/."""

from __future__ import annotations

import numpy as np
import pytest

import ascsim
from ascsim.ascendc import *
from ascsim.ascendc import kernel_sync
from ascsim.errors import DeadlockError, SyncError

N = 64  # floats per core slice (256 bytes)


def _gm(addr, dtype=float):
    g = GlobalTensor[dtype]()
    g.SetGlobalBuffer(addr)
    return g


def _buf(pipe, nbytes=4096):
    b = TBuf[TPosition.VECCALC]()
    pipe.InitBuffer(b, nbytes)
    return b


def _copy_in(t, g, n):
    DataCopy(t, g, n)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)


def _copy_out(g, t, n):
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(g, t, n)


def rotate_kernel(sync=True):
    """Phase 0: core b writes (x[b] + b) to ws[b]. SyncAll. Phase 1: core b reads ws[b+1 mod n]
    (another core's slice) and writes it doubled to out[b]. Without the SyncAll the phase-1 read
    races with another core's phase-0 write."""
    @kernel_sync("manual")
    def kernel(x, ws, out):
        b, n = GetBlockIdx(), GetBlockNum()
        pipe = TPipe()
        t = _buf(pipe).Get[float]()
        _copy_in(t, _gm(x)[b * N], N)
        Adds(t, t, float(b), N)
        _copy_out(_gm(ws)[b * N], t, N)
        if sync:
            SyncAll()
        else:
            PipeBarrier[PIPE_ALL]()
        _copy_in(t, _gm(ws)[(b + 1) % n * N], N)
        Muls(t, t, 2.0, N)
        _copy_out(_gm(out)[b * N], t, N)
    return kernel


def _rotate_want(x, n):
    ws = (x.reshape(n, N) + np.arange(n, dtype=np.float32)[:, None]).astype(np.float32)
    return (np.roll(ws, -1, axis=0) * np.float32(2)).reshape(-1), ws.reshape(-1)


@pytest.mark.instruction("SyncAll")
@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_syncall_orders_phases_across_cores(threads, order):
    n = 6
    x = np.random.default_rng(1).standard_normal(n * N).astype(np.float32)
    ws, out = np.zeros_like(x), np.zeros_like(x)
    ascsim.launch(rotate_kernel(), n, x, ws, out, threads=threads, core_order=order)
    want, want_ws = _rotate_want(x, n)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
    assert np.array_equal(ws.view(np.uint32), want_ws.view(np.uint32))


def test_without_syncall_reverse_order_reads_stale_data():
    """The planted bug shows in the bits too: run last core first, and core b reads ws[b+1]
    before core b+1 wrote it."""
    n = 4
    x = np.ones(n * N, np.float32)
    ws, out = np.zeros_like(x), np.zeros_like(x)
    ascsim.launch(rotate_kernel(sync=False), n, x, ws, out, core_order="reverse")
    want, _ = _rotate_want(x, n)
    assert not np.array_equal(out, want)


def test_syncall_is_recorded_after_a_pipe_barrier_all():
    n = 2
    x = np.zeros(n * N, np.float32)
    run = ascsim.launch(rotate_kernel(), n, x, np.zeros_like(x), np.zeros_like(x))
    names = [r.instruction.name for r in run.decoded(0)]
    i = names.index("SyncAll")
    assert names[i - 1] == "PipeBarrier"
    assert run.decoded(0)[i - 1].mode == PIPE_ALL


def test_kernels_without_cross_core_points_run_on_the_launching_thread():
    import threading
    seen = []

    def kernel(x):
        seen.append(threading.get_ident())
    ascsim.launch(kernel, 8, np.zeros(8, np.float32))
    assert set(seen) == {threading.get_ident()}


def test_cores_run_in_order_between_points():
    """threads=1: phase by phase, each phase in core order (reversed with core_order)."""
    log = []

    def kernel(x):
        b = GetBlockIdx()
        log.append((0, b))
        SyncAll()
        log.append((1, b))
        SyncAll()
        log.append((2, b))
    ascsim.launch(kernel, 4, np.zeros(8, np.float32))
    assert log == [(p, b) for p in range(3) for b in range(4)]
    log.clear()
    ascsim.launch(kernel, 4, np.zeros(8, np.float32), core_order="reverse")
    assert log == [(p, b) for p in range(3) for b in (3, 2, 1, 0)]


# ---- deadlocks -------------------------------------------------------------------------------

def partial_sync_kernel():
    def kernel(x):
        if GetBlockIdx() != 1:
            SyncAll()  # core 1 never gets here
    return kernel


@pytest.mark.parametrize("threads", [1, 3])
def test_syncall_not_reached_by_every_core_is_a_deadlock(threads):
    with pytest.raises(DeadlockError) as e:
        ascsim.launch(partial_sync_kernel(), 3, np.zeros(8, np.float32), threads=threads)
    err = e.value
    assert err.context["core"] == 0
    assert "test_crosscore.py" in str(err.context["kernels_py"])
    line = partial_sync_kernel.__code__.co_firstlineno + 3
    assert str(err.context["kernels_py"]).endswith(f":{line}")
    assert "core 1 has ended" in err.message


def test_deadlock_is_a_finding_per_waiting_core_in_check_mode():
    run = ascsim.launch(partial_sync_kernel(), 3, np.zeros(8, np.float32), sanitize="check")
    dead = [f for f in run.findings if f.error is DeadlockError]
    assert sorted(f.core for f in dead) == [0, 2]
    line = partial_sync_kernel.__code__.co_firstlineno + 3
    assert all(f.py.endswith(f":{line}") for f in dead)


def test_a_faulting_core_stops_the_launch_and_its_error_is_raised():
    def kernel(x):
        if GetBlockIdx() == 2:
            raise_fault = GlobalTensor[float]()
            DataCopy(raise_fault, raise_fault, 8)  # GlobalTensor -> GlobalTensor: no such copy
        SyncAll()
    with pytest.raises(ascsim.errors.ParameterError):
        ascsim.launch(kernel, 4, np.zeros(8, np.float32))


# ---- soft SyncAll ------------------------------------------------------------------------------

def soft_kernel(rounds=2, zero=True):
    @kernel_sync("manual")
    def kernel(x, sync_ws, out):
        b, n = GetBlockIdx(), GetBlockNum()
        pipe = TPipe()
        bufs = _buf(pipe, 8192)
        t = bufs.Get[float]()
        ub_ws = bufs.GetWithOffset[int32_t](n * 8, 4096) if hasattr(bufs, "GetWithOffset") \
            else bufs.Get[int32_t]()[1024]
        gws = _gm(sync_ws, int32_t)
        acc = _gm(out)
        _copy_in(t, _gm(x)[b * N], N)
        for _r in range(rounds):
            _copy_out(acc[b * N], t, N)
            SyncAll(gws, ub_ws)
            _copy_in(t, acc[(b + 1) % n * N], N)
            SyncAll(gws, ub_ws)
    return kernel


@pytest.mark.instruction("SyncAll")
@pytest.mark.parametrize("threads", [1, 2])
def test_soft_syncall_counts_epochs_in_gm(threads):
    n = 4
    x = np.random.default_rng(2).standard_normal(n * N).astype(np.float32)
    ws = np.zeros(n * 8, np.int32)
    out = np.zeros_like(x)
    run = ascsim.launch(soft_kernel(rounds=2), n, x, ws, out, threads=threads)
    # each core incremented its slot once per call: 4 calls
    assert list(ws[::8]) == [4] * n and not ws.reshape(n, 8)[:, 1:].any()
    # two rotations: out holds x rotated by 1 (written in round 2 before the second read)
    assert np.array_equal(out, np.roll(x.reshape(n, N), -1, axis=0).reshape(-1))
    assert run.counts_by_instruction()["SyncAll"] == 4 * n


def test_soft_syncall_needs_a_zeroed_workspace():
    n = 2
    ws = np.zeros(n * 8, np.int32)
    ws[0] = 7
    with pytest.raises(ascsim.errors.ParameterError, match="zeroed"):
        ascsim.launch(soft_kernel(rounds=1), n, np.zeros(n * N, np.float32), ws,
                      np.zeros(n * N, np.float32))


def test_soft_syncall_workspace_too_small():
    n = 4
    with pytest.raises(ascsim.errors.OutOfRangeError, match="counter slots"):
        ascsim.launch(soft_kernel(rounds=1), n, np.zeros(n * N, np.float32),
                      np.zeros(8, np.int32), np.zeros(n * N, np.float32))


# ---- CrossCoreSetFlag / CrossCoreWaitFlag --------------------------------------------------------

def flag_barrier_kernel():
    """A hand-made global barrier: every core sets flag 3 in mode 0 (all AIVs +1), then waits
    for it once per core."""
    @kernel_sync("manual")
    def kernel(x, ws, out):
        b, n = GetBlockIdx(), GetBlockNum()
        pipe = TPipe()
        t = _buf(pipe).Get[float]()
        _copy_in(t, _gm(x)[b * N], N)
        _copy_out(_gm(ws)[b * N], t, N)
        CrossCoreSetFlag[0, PIPE_MTE3](3)
        for _ in range(n):
            CrossCoreWaitFlag(3)
        _copy_in(t, _gm(ws)[(b + 1) % n * N], N)
        _copy_out(_gm(out)[b * N], t, N)
    return kernel


@pytest.mark.instruction("CrossCoreSetFlag")
@pytest.mark.instruction("CrossCoreWaitFlag")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_mode0_flags_make_a_barrier(threads, order):
    n = 4
    x = np.arange(n * N, dtype=np.float32)
    ws, out = np.zeros_like(x), np.zeros_like(x)
    ascsim.launch(flag_barrier_kernel(), n, x, ws, out, threads=threads, core_order=order)
    assert np.array_equal(out, np.roll(x.reshape(n, N), -1, axis=0).reshape(-1))


def test_wait_for_a_flag_never_set_is_a_deadlock():
    def kernel(x):
        if GetBlockIdx() == 0:
            CrossCoreWaitFlag(5)
    with pytest.raises(DeadlockError, match=r"CrossCoreWaitFlag\(5\)"):
        ascsim.launch(kernel, 2, np.zeros(8, np.float32))


def test_flag_counter_overflow_is_an_error():
    def kernel(x):
        for _ in range(16):
            CrossCoreSetFlag[0, PIPE_V](2)
    with pytest.raises(SyncError, match="15"):
        ascsim.launch(kernel, 1, np.zeros(8, np.float32))


@pytest.mark.parametrize("mode", [1, 2])
def test_modes_1_and_2_need_a_mix_kernel(mode):
    def kernel(x):
        CrossCoreSetFlag[mode, PIPE_MTE3](0)
    with pytest.raises(SyncError, match="AIV-only"):
        ascsim.launch(kernel, 2, np.zeros(8, np.float32))


def test_set_from_a_pipe_an_aiv_lacks_is_an_error():
    def kernel(x):
        CrossCoreSetFlag[0, 7](0)
    with pytest.raises(SyncError, match="PIPE_V, PIPE_MTE2 or PIPE_MTE3"):
        ascsim.launch(kernel, 1, np.zeros(8, np.float32))


def test_reserved_flags_are_reported():
    def kernel(x):
        CrossCoreSetFlag[0, PIPE_V](14)
        CrossCoreWaitFlag(14)
    run = ascsim.launch(kernel, 2, np.zeros(8, np.float32), sanitize="check")
    assert any(f.check == "reserved cross-core flag" for f in run.findings)


def test_syncall_false_needs_cube_cores():
    def kernel(x):
        SyncAll[False]()
    with pytest.raises(ascsim.errors.ParameterError, match="AI Cube"):
        ascsim.launch(kernel, 2, np.zeros(8, np.float32))


def test_indices():
    got = []

    def kernel(x):
        got.append((GetBlockIdx(), GetBlockNum(), GetSubBlockIdx(), GetTaskRation(),
                    GetTaskRatio()))
    ascsim.launch(kernel, 3, np.zeros(8, np.float32))
    assert got == [(b, 3, 0, 1, 1) for b in range(3)]


# ---- the sanitizer across cores ----------------------------------------------------------------

def _rotate_run(sync, n=4):
    x = np.ones(n * N, np.float32)
    ws, out = np.zeros_like(x), np.zeros_like(x)
    return ascsim.launch(rotate_kernel(sync=sync), n, x, ws, out, sanitize="check",
                         outputs=(2,))


def test_missing_syncall_is_a_cross_core_race():
    run = _rotate_run(sync=False)
    races = [f for f in run.findings if f.check == "multi-core read/write overlap"]
    assert races and all(f.memory == "GM ws" for f in races)
    line = rotate_kernel.__code__.co_firstlineno  # the phase-1 read is in _copy_in
    assert any("test_crosscore.py" in f.py for f in races), line


def test_syncall_orders_the_phases_clean():
    run = _rotate_run(sync=True)
    assert run.findings == [], run.report()


def test_flags_order_the_phases_clean():
    n = 4
    x = np.arange(n * N, dtype=np.float32)
    run = ascsim.launch(flag_barrier_kernel(), n, x, np.zeros_like(x), np.zeros_like(x),
                        sanitize="check", outputs=(2,))
    assert run.findings == [], run.report()


def atomic_left_on_kernel(reset):
    """Every core accumulates its row into acc (zeroed by core 0, SyncAll between) and then
    stores its own slice of out; with the atomic mode left on that store adds onto out."""
    @kernel_sync("manual")
    def kernel(x, acc, out):
        b = GetBlockIdx()
        pipe = TPipe()
        t = _buf(pipe).Get[float]()
        if b == 0:
            Duplicate(t, 0.0, N)
            _copy_out(_gm(acc), t, N)
        SyncAll()
        _copy_in(t, _gm(x)[b * N], N)
        SetFlag[HardEvent.V_MTE3](EVENT_ID1)
        WaitFlag[HardEvent.V_MTE3](EVENT_ID1)
        SetAtomicAdd[float]()
        DataCopy(_gm(acc), t, N)
        if reset:
            SetAtomicNone()
        DataCopy(_gm(out)[b * N], t, N)
    return kernel


@pytest.mark.parametrize("reset", [True, False])
def test_atomic_mode_left_on_is_reported(reset):
    n = 4
    x = np.random.default_rng(9).standard_normal(n * N).astype(np.float32)
    acc, out = np.full(N, 7, np.float32), np.full(n * N, 3, np.float32)
    run = ascsim.launch(atomic_left_on_kernel(reset), n, x, acc, out, sanitize="check",
                        outputs=(1, 2))
    left_on = [f for f in run.findings if f.check == "atomic onto unwritten GM"]
    order = [f for f in run.findings if f.check == "atomic order sensitivity"]
    assert bool(left_on) == (not reset), run.report()
    if not reset:
        assert {f.memory for f in left_on} == {"GM out"}
        assert left_on[0].instruction == "DataCopy"
    assert order and order[0].memory == "GM acc"  # the float sum over 4 cores
    assert not [f for f in run.findings if f.kind == "multicore"], run.report()


def test_atomic_writes_do_not_race_but_atomic_and_plain_do():
    n = 2

    @kernel_sync("manual")
    def kernel(x, acc):
        b = GetBlockIdx()
        pipe = TPipe()
        t = _buf(pipe).Get[float]()
        _copy_in(t, _gm(x)[b * N], N)
        SetFlag[HardEvent.V_MTE3](EVENT_ID1)
        WaitFlag[HardEvent.V_MTE3](EVENT_ID1)
        if b == 0:
            DataCopy(_gm(acc), t, N)  # plain, unordered against core 1's atomic
        else:
            SetAtomicAdd[float]()
            DataCopy(_gm(acc), t, N)
    x = np.ones(n * N, np.float32)
    run = ascsim.launch(kernel, n, x, np.zeros(N, np.float32), sanitize="check")
    assert any(f.check == "multi-core write overlap" for f in run.findings)


def test_workspace_read_before_any_write_is_reported():
    n = 2

    @kernel_sync("manual")
    def kernel(x, ws):
        b = GetBlockIdx()
        pipe = TPipe()
        t = _buf(pipe).Get[float]()
        if b == 0:
            _copy_out(_gm(ws), t, N)  # bytes [0, 256) written by core 0
        SyncAll()
        _copy_in(t, _gm(ws)[(b % 2) * N], N)  # core 1 reads [256, 512): never written
    run = ascsim.launch(kernel, n, np.zeros(N, np.float32), np.zeros(2 * N, np.float32),
                        sanitize="check", workspace=1)
    hits = [f for f in run.findings if f.check == "read of unwritten workspace"]
    assert [(f.core, f.start, f.end) for f in hits] == [(1, 256, 512)], run.report()


# ---- the timeline --------------------------------------------------------------------------------

def skewed_kernel():
    """Core b does b + 1 rounds of vector work before a SyncAll: the early cores wait."""
    @kernel_sync("manual")
    def kernel(x, out):
        b = GetBlockIdx()
        pipe = TPipe()
        t = _buf(pipe).Get[float]()
        _copy_in(t, _gm(x)[b * N], N)
        for _ in range(20 * (b + 1)):
            Muls(t, t, 1.0, N)
            PipeBarrier[PIPE_V]()
        SyncAll()
        _copy_out(_gm(out)[b * N], t, N)
    return kernel


def test_timeline_shows_the_syncall_stall_per_core():
    from ascsim.timing.cost import K_XSYNC
    n = 4
    x = np.ones(n * N, np.float32)
    run = ascsim.launch(skewed_kernel(), n, x, np.zeros_like(x))
    tl = run.timeline()
    spans = []
    for c in range(n):
        sl = tl.core_slice(c)
        (i,) = np.flatnonzero(tl.kind[sl] == K_XSYNC)
        spans.append((tl.start[sl][i], tl.end[sl][i]))
    ends = {e for _, e in spans}
    assert len(ends) == 1  # every core leaves the SyncAll together
    last_arrival = max(s for s, _ in spans)
    assert ends.pop() == last_arrival + run.profile.cost.syncall_cycles
    waits = [e - s for s, e in spans]
    assert waits == sorted(waits, reverse=True)  # core 0 arrives first and waits longest
    assert waits[0] > waits[-1] + 1000
    # everything after the SyncAll starts after it
    for c in range(n):
        sl = tl.core_slice(c)
        (i,) = np.flatnonzero(tl.kind[sl] == K_XSYNC)
        assert (tl.start[sl][i + 1:] >= spans[c][1]).all()


def test_trace_and_picture_show_syncall_and_cross_core_flags(tmp_path):
    from ascsim.export.chrome_trace import trace_dict, validate_trace
    n = 3
    x = np.ones(n * N, np.float32)
    run = ascsim.launch(skewed_kernel(), n, x, np.zeros_like(x))
    tl = run.timeline()
    d = trace_dict(tl)
    assert validate_trace(d) == []
    sync = [e for e in d["traceEvents"] if e.get("name") == "SyncAll" and e["ph"] == "X"]
    assert len(sync) == n and {e["tid"] for e in sync} == {"FLOWCTRL"}
    assert sync[0]["dur"] > sync[-1]["dur"]
    assert tl.plot_gantt(tmp_path / "g.png").stat().st_size > 0
    run = ascsim.launch(flag_barrier_kernel(), n, x, np.zeros_like(x), np.zeros_like(x))
    d = trace_dict(run.timeline())
    assert validate_trace(d) == []
    flows = [e for e in d["traceEvents"] if e.get("cat") == "cross-core"]
    starts = {e["pid"] for e in flows if e["ph"] == "s"}
    ends = {e["pid"] for e in flows if e["ph"] == "f"}
    assert len(flows) == 2 * n * n and len(starts) == n and len(ends) == n


def test_kernel_task_type_default_keeps_the_vector_types_and_refuses_cube_ones():
    """KERNEL_TASK_TYPE_DEFAULT: a vector kernel calling the hard SyncAll declares
    KERNEL_TYPE_MIX_AIV_1_0 (the docs' mix(0,1)); ascsim keeps it on the core; a type with
    AI Cube work cannot run on AIV-only launches."""
    from ascsim.errors import ParameterError
    seen = []

    def kernel(x):
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0)
        from ascsim.core import current_core
        seen.append(current_core().kernel_type)
        SyncAll()
    ascsim.launch(kernel, 2, np.zeros(8, np.float32))
    assert seen == [KERNEL_TYPE_MIX_AIV_1_0] * 2

    def cube(x):
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2)
    with pytest.raises(ParameterError, match="AIV cores only"):
        ascsim.launch(cube, 1, np.zeros(8, np.float32))


# ---- the multi-core race sweep ------------------------------------------------------------------

class _OneSyncAll:
    """Cross-core order as one SyncAll at record `cut[c]` of each core: an access before it on
    one core and one after it on another are ordered."""

    def __init__(self, cut: list[int]) -> None:
        self.cut = cut

    def ordered(self, core_a: int, rec_a: int, core_b: int, rec_b: int) -> bool:
        return (rec_a < self.cut[core_a]) != (rec_b < self.cut[core_b])


def _pairs_by_brute_force(sub: np.ndarray, clocks: _OneSyncAll) -> dict:
    """offline.race_pairs' contract, pair by pair: every earlier access that is still open."""
    rows = sub.tolist()
    pairs: dict = {}
    for j, r in enumerate(rows):
        _, lo, hi, c, rec, w, atom, _ = r
        for a in rows[:j]:
            if a[2] <= lo or a[3] == c or not (w or a[5]) or (atom and a[6]):
                continue
            if clocks.ordered(a[3], a[4], c, rec):
                continue
            first, second = (a, r) if a[3] < c else (r, a)
            key = (first[3], second[3], bool(first[5] and second[5]))
            s, e = max(lo, a[1]), min(hi, a[2])
            if key not in pairs:
                pairs[key] = [s, e, first[4], second[4], first[5], second[5]]
            else:
                pairs[key][0], pairs[key][1] = min(pairs[key][0], s), max(pairs[key][1], e)
    return pairs


@pytest.mark.parametrize("seed", range(40))
def test_race_sweep_matches_every_pair(seed: int) -> None:
    """The sweep groups open accesses by (core, write, atomic) so that a core repeating an
    access does not rescan its own (a report of 32k such stores took 16 s before); it must
    still find the pairs, hulls and first records that comparing every pair finds."""
    from ascsim.sanitizer.offline import race_pairs
    rng = np.random.default_rng(seed)
    ncores, n = int(rng.integers(2, 5)), int(rng.integers(1, 120))
    core = rng.integers(0, ncores, n)
    rec = np.zeros(n, np.int64)
    for c in range(ncores):  # each core's records in order
        rec[core == c] = np.arange(int((core == c).sum()))
    lo = rng.integers(0, 64 if seed % 2 else 512, n)  # crowded or sparse
    hi = lo + rng.integers(1, 96, n)
    write = rng.integers(0, 2, n)
    atomic = write & rng.integers(0, 2, n)
    sub = np.stack([np.ones(n, np.int64), lo, hi, core, rec, write, atomic,
                    np.zeros(n, np.int64)], axis=1)
    sub = sub[np.lexsort((sub[:, 2], sub[:, 1]))]
    clocks = _OneSyncAll([int(rng.integers(0, n + 1)) for _ in range(ncores)])
    assert race_pairs(sub, clocks) == _pairs_by_brute_force(sub, clocks)
