"""The scheduler against hand-computed schedules of small synthetic kernels.

Each test builds a profile whose costs are round numbers (most of them zero), so that every
expected start and end cycle below can be worked out by hand from docs/timing.md:
MTE2 copies cost 40 + bytes / 64, MTE3 copies 20 + bytes / 64, vector ops 10 + 6 per repeat;
with T = 640 floats (2560 bytes, 10 repeats) a copy-in is 80 cycles, an Adds 70, a copy-out 60.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import ascsim
from ascsim.ascendc import (
    PIPE_ALL,
    PIPE_V,
    Adds,
    DataCopy,
    Exp,
    GlobalTensor,
    HardEvent,
    PipeBarrier,
    QuePosition,
    SetFlag,
    TBuf,
    TPipe,
    TQue,
    WaitFlag,
    half,
)
from ascsim.ascendc import float as f32
from ascsim.profile import CostParams, HardwareProfile, MteCost, VectorCost, load_profile
from ascsim.timing import LANE_NAMES, Timeline, profile_run

T = 640          # floats per tile
TB = T * 4       # bytes per tile


def make_cost(**over: object) -> CostParams:
    base = dict(
        launch_us=0.0, header_cycles=0.0, hbm_gb_per_s=1e9, scalar_issue_cycles=0.0,
        scalar_op_cycles=0.0, scalar_gm_access_cycles=0.0, set_flag_cycles=0.0,
        wait_flag_cycles=0.0, barrier_cycles=0.0, syncall_cycles=0.0, small_transfer_bytes=1.0,
        small_transfer_penalty=1.0, gm_align_bytes=32, unaligned_bandwidth_factor=1.0,
        mte2=MteCost(40.0, 64.0, 0.0), mte3=MteCost(20.0, 64.0, 0.0),
        vector_overlap_cycles=0.0,
        vector={"default": VectorCost({"default": 10.0}, {"default": 6.0})})
    base.update(over)
    return CostParams(**base)


def make_profile(**over: object) -> HardwareProfile:
    """Ascend910B2's functional settings, a 1000 MHz clock and the costs above."""
    return dataclasses.replace(load_profile("Ascend910B2"), clock_mhz=1000, name="test",
                               cost=make_cost(**over))


def schedule(kernel, *arrays: np.ndarray, cores: int = 1, threads: int = 1,
             **over: object) -> Timeline:
    run = ascsim.launch(kernel, cores, *arrays, profile=make_profile(**over), threads=threads)
    return profile_run(run)


def spans(tl: Timeline, name: str, core: int = 0) -> list[tuple[float, float]]:
    names = tl.instruction_names()
    sl = tl.core_slice(core)
    return [(float(tl.start[i]), float(tl.end[i])) for i in range(sl.start, sl.stop)
            if names[i] == name]


def lane_spans(tl: Timeline, name: str, lane: str) -> list[tuple[float, float]]:
    names = tl.instruction_names()
    return [(float(tl.start[i]), float(tl.end[i])) for i in range(len(names))
            if names[i] == name and LANE_NAMES[tl.lane[i]] == lane]


def overlap(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> float:
    return sum(max(0.0, min(e0, e1) - max(s0, s1)) for s0, e0 in a for s1, e1 in b)


def gm(arr) -> GlobalTensor:
    g = GlobalTensor[f32]()
    g.SetGlobalBuffer(arr)
    return g


def ub(nbytes: int = 4 * TB):
    pipe = TPipe()
    buf = TBuf[QuePosition.VECCALC]()
    pipe.InitBuffer(buf, nbytes)
    t = buf.Get[f32]()
    return pipe, [t[i * T] for i in range(nbytes // TB)]


# ---- copy-in / compute / copy-out with one and with two buffers --------------------------------

def pipeline_kernel(buffers: int, tiles: int):
    def kernel(x, y):
        pipe = TPipe()
        in_q = TQue[QuePosition.VECIN, buffers]()
        out_q = TQue[QuePosition.VECOUT, buffers]()
        pipe.InitBuffer(in_q, buffers, TB)
        pipe.InitBuffer(out_q, buffers, TB)
        xg, yg = gm(x), gm(y)
        for i in range(tiles):
            a = in_q.AllocTensor[f32]()
            DataCopy(a, xg[i * T], T)
            in_q.EnQue(a)
            a = in_q.DeQue[f32]()
            b = out_q.AllocTensor[f32]()
            Adds(b, a, 1.0, T)
            out_q.EnQue(b)
            in_q.FreeTensor(a)
            b = out_q.DeQue[f32]()
            DataCopy(yg[i * T], b, T)
            out_q.FreeTensor(b)
    return kernel


def test_single_buffer_serialises_copy_in_and_compute():
    x = np.arange(3 * T, dtype=np.float32)
    y = np.zeros_like(x)
    tl = schedule(pipeline_kernel(1, 3), x, y)
    np.testing.assert_array_equal(y, x + 1)
    # tile i+1's copy-in waits for tile i's FreeTensor (V_MTE2) after its Adds
    assert lane_spans(tl, "DataCopy", "MTE2") == [(0, 80), (150, 230), (300, 380)]
    assert lane_spans(tl, "Adds", "VECTOR") == [(80, 150), (230, 300), (380, 450)]
    assert lane_spans(tl, "DataCopy", "MTE3") == [(150, 210), (300, 360), (450, 510)]
    assert tl.total_cycles == 510 == 3 * (80 + 70) + 60
    assert overlap(lane_spans(tl, "DataCopy", "MTE2"), lane_spans(tl, "Adds", "VECTOR")) == 0
    assert list(tl.busy[0, :4]) == [0, 210, 240, 180]
    assert tl.ratios()[0, 1] == pytest.approx(210 / 510)


def test_double_buffer_overlaps_copy_in_with_compute():
    x = np.arange(3 * T, dtype=np.float32)
    y = np.zeros_like(x)
    tl = schedule(pipeline_kernel(2, 3), x, y)
    np.testing.assert_array_equal(y, x + 1)
    # copy-ins run back to back until tile 2 needs buffer 0 back (freed at 150)
    assert lane_spans(tl, "DataCopy", "MTE2") == [(0, 80), (80, 160), (160, 240)]
    assert lane_spans(tl, "Adds", "VECTOR") == [(80, 150), (160, 230), (240, 310)]
    assert lane_spans(tl, "DataCopy", "MTE3") == [(150, 210), (230, 290), (310, 370)]
    assert tl.total_cycles == 370 == 3 * 80 + 70 + 60
    assert overlap(lane_spans(tl, "DataCopy", "MTE2"), lane_spans(tl, "Adds", "VECTOR")) == 140


# ---- flags, barriers and the scalar unit ---------------------------------------------------------

def test_setflag_waits_for_its_pipe_and_waitflag_holds_the_destination():
    def kernel(y):
        _pipe, (a, b, _c, _d) = ub()
        yg = gm(y)
        DataCopy(yg[T], a, T)                  # MTE3, independent: [0, 60]
        Adds(b, a, 1.0, T)                     # V [0, 70]
        SetFlag[HardEvent.V_MTE3](0)           # V: after the Adds, [70, 73]
        WaitFlag[HardEvent.V_MTE3](0)          # MTE3: after the set, [73, 75]
        DataCopy(yg, b, T)                     # MTE3 [75, 135]
    tl = schedule(kernel, np.zeros(2 * T, np.float32), set_flag_cycles=3.0,
                  wait_flag_cycles=2.0)
    assert spans(tl, "DataCopy") == [(0, 60), (75, 135)]
    assert spans(tl, "SetFlag") == [(70, 73)]
    assert spans(tl, "WaitFlag") == [(73, 75)]
    assert [LANE_NAMES[x] for x in tl.lane[:5]] == ["MTE3", "VECTOR", "VECTOR", "MTE3", "MTE3"]
    assert tl.pair[3] == 2


def test_waitflag_issued_before_its_setflag_holds_the_pipe():
    def kernel(x):
        _pipe, (a, b, c, _d) = ub()
        WaitFlag[HardEvent.V_MTE2](1)          # MTE2 stalls here...
        DataCopy(a, gm(x), T)                  # ...so this copy waits for the V side
        Adds(b, c, 1.0, T)                     # V [0, 70]
        SetFlag[HardEvent.V_MTE2](1)           # V [70, 73]
    tl = schedule(kernel, np.zeros(T, np.float32), set_flag_cycles=3.0, wait_flag_cycles=2.0)
    assert spans(tl, "WaitFlag") == [(73, 75)]
    assert spans(tl, "DataCopy") == [(75, 155)]


def test_overlap_allowance_and_pipe_barrier():
    def kernel():
        _pipe, (a, b, c, d) = ub()
        Adds(b, a, 1.0, T)                     # [0, 70]
        Adds(d, c, 1.0, T)                     # may start 10 cycles early: [60, 130]
        Adds(a, c, 1.0, T)                     # [120, 190]
        PipeBarrier[PIPE_V]()                  # drains: [190, 195]
        Adds(c, b, 1.0, T)                     # [195, 265]; the pipe accepts more at 255
        SetFlag[HardEvent.V_MTE3](0)           # but a SetFlag waits for the end: [265, 266]
        WaitFlag[HardEvent.V_MTE3](0)
    tl = schedule(kernel, vector_overlap_cycles=10.0, barrier_cycles=5.0, set_flag_cycles=1.0)
    assert spans(tl, "Adds") == [(0, 70), (60, 130), (120, 190), (195, 265)]
    assert spans(tl, "PipeBarrier") == [(190, 195)]
    assert spans(tl, "SetFlag") == [(265, 266)]
    assert tl.busy[0, 1] == 266  # the union of the overlapping intervals
    # the overlap is capped by the startup (10 cycles) even when the profile allows more
    tl = schedule(kernel, vector_overlap_cycles=1000.0, barrier_cycles=5.0)
    assert spans(tl, "Adds")[:2] == [(0, 70), (60, 130)]


def test_pipe_all_barrier_drains_every_pipe_and_holds_the_scalar_unit():
    def kernel(x):
        _pipe, (a, b, c, _d) = ub()
        DataCopy(a, gm(x), T)                  # MTE2 [1, 81]
        Adds(c, b, 1.0, T)                     # V [2, 72]
        PipeBarrier[PIPE_ALL]()                # after both: [81, 86] on FLOWCTRL
        Adds(b, c, 1.0, T)                     # issued at 87
    tl = schedule(kernel, np.zeros(T, np.float32), scalar_issue_cycles=1.0,
                  barrier_cycles=5.0)
    assert spans(tl, "DataCopy") == [(1, 81)]
    assert spans(tl, "Adds") == [(2, 72), (87, 157)]
    assert spans(tl, "PipeBarrier") == [(81, 86)]
    assert LANE_NAMES[tl.lane[2]] == "FLOWCTRL"


def test_scalar_issue_cost_and_scalar_work():
    def kernel():
        _pipe, (a, b, c, d) = ub()
        Adds(b, a, 1.0, T)                     # issue slot [0, 4]: V [4, 74]
        a.GetValue(0)                          # the scalar unit itself: [4, 7]
        Adds(d, c, 1.0, T)                     # issue slot [7, 11]: V waits until 74
    tl = schedule(kernel, scalar_issue_cycles=4.0, scalar_op_cycles=3.0)
    assert spans(tl, "Adds") == [(4, 74), (74, 144)]
    assert list(tl.issue[[0, 2]]) == [4, 11]
    assert spans(tl, "GetValue") == [(4, 7)]
    assert tl.busy[0, 0] == 4 + 3 + 4  # two issue slots and the GetValue


def test_waitflag_to_the_scalar_unit_stalls_issue():
    def kernel(x):
        _pipe, (a, b, c, _d) = ub()
        Adds(b, c, 1.0, T)                     # V [0, 70]
        SetFlag[HardEvent.V_S](0)              # V [70, 73]
        WaitFlag[HardEvent.V_S](0)             # scalar [73, 75]: nothing issues meanwhile
        DataCopy(a, gm(x), T)                  # MTE2 [75, 155]
    tl = schedule(kernel, np.zeros(T, np.float32), set_flag_cycles=3.0, wait_flag_cycles=2.0)
    assert spans(tl, "WaitFlag") == [(73, 75)]
    assert LANE_NAMES[tl.lane[2]] == "SCALAR"
    assert spans(tl, "DataCopy") == [(75, 155)]


def test_kernel_start_costs():
    def kernel():
        _pipe, (a, b, _c, _d) = ub()
        Adds(b, a, 1.0, T)
    tl = schedule(kernel, launch_us=2.0, header_cycles=500.0, scalar_issue_cycles=1.0)
    assert tl.launch_cycles == 2000
    assert spans(tl, "Adds") == [(2501, 2571)]
    assert tl.total_cycles == 2571 and tl.total_us == pytest.approx(2.571)
    assert tl.aiv_cycles[0] == 571
    assert tl.busy[0, 0] == 501  # header + one issue slot


# ---- costs from the registry and the profile -----------------------------------------------------

def test_vector_cost_by_cost_class_and_dtype():
    vector = {"default": VectorCost({"default": 10.0}, {"default": 6.0}),
              "Exp": VectorCost({"default": 7.0}, {"default": 4.0, "float": 2.0})}

    def kernel():
        pipe = TPipe()
        buf = TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(buf, 4 * TB)
        f = buf.Get[f32]()
        h = buf.Get[half]()
        Exp(f[T], f, T)               # 10 float repeats: 7 + 10 * 2
        Exp(h[2 * T], h, T)           # 5 half repeats: 7 + 5 * 4
        Adds(f[T], f, 1.0, T - 1)     # default: 10 + 10 * 6 (2556 bytes round up to 10 repeats)
        DataCopy(f[2 * T], f, T)      # UB->UB on V: a vector op over 10 repeats, default cost
    tl = schedule(kernel, vector=vector)
    dur = list(tl.end - tl.start)
    assert dur == [27, 27, 70, 70]
    assert list(tl.lane) == [1, 1, 1, 1]
    assert any("Adds" in n and "DataCopy" in n and "default" in n for n in tl.notes)


def test_gm_penalties_small_and_unaligned():
    def kernel(x):
        _pipe, (a, b, _c, _d) = ub()
        xg = gm(x)
        DataCopy(a, xg, 256)          # 1024 B aligned: x (1 + (1 - 1024/4096)) = 1.75 -> 28
        DataCopy(b, xg[8], 1024)      # 4096 B at byte 32: not 512-aligned, bandwidth x 0.5
    tl = schedule(kernel, np.zeros(2048, np.float32), small_transfer_bytes=4096.0,
                  small_transfer_penalty=2.0, gm_align_bytes=512,
                  unaligned_bandwidth_factor=0.5)
    assert spans(tl, "DataCopy") == [(0, 68), (68, 236)]
    assert list(tl.work[:2]) == [1792, 8192]
    assert list(tl.penalty[:2]) == [1, 2]
    assert sum("small-transfer" in n or "not 512-byte aligned" in n for n in tl.notes) == 2


def test_scalar_gm_access_cost():
    def kernel(x):
        g = gm(x)
        g.GetValue(3)
        g.SetValue(4, 1.0)
    tl = schedule(kernel, np.zeros(8, np.float32), scalar_op_cycles=2.0,
                  scalar_gm_access_cycles=50.0)
    assert spans(tl, "GetValue") == [(0, 50)]
    assert spans(tl, "SetValue") == [(50, 100)]


# ---- HBM shared between cores --------------------------------------------------------------------

def test_hbm_bandwidth_is_shared_between_cores_copying_at_once():
    # core 0 copies 2560 B, core 1 5120 B; HBM 96 B/cycle < 2 x 64: 48 B/cycle each until
    # core 0 is done at 2560 / 48, then core 1 alone at 64 B/cycle for its last 2560 B.
    def kernel(x):
        from ascsim.ascendc import GetBlockIdx
        _pipe, (a, _b, _c, _d) = ub()
        n = T * (1 + GetBlockIdx())
        DataCopy(a, gm(x), n)
    x = np.zeros(2 * T, np.float32)
    tl = schedule(kernel, x, cores=2, hbm_gb_per_s=96.0)
    first = 2560 / 48
    assert tl.data_end[0] == pytest.approx(first)
    assert tl.end[0] == pytest.approx(first + 40)
    assert tl.data_end[1] == pytest.approx(first + 2560 / 64)
    assert tl.end[1] == pytest.approx(first + 40 + 40)
    # without the cap each core copies at its own 64 B/cycle
    alone = schedule(kernel, x, cores=2)
    assert list(alone.end) == [80, 120]
    # deterministic and independent of the order the cores ran in
    again = schedule(kernel, x, cores=2, threads=2, hbm_gb_per_s=96.0)
    np.testing.assert_array_equal(again.end, tl.end)


def test_hbm_share_is_max_min_fair_between_copy_engines():
    # one MTE2 copy (cap 64) and one MTE3 copy (cap 32) under an 80 B/cycle HBM: MTE3 keeps
    # its 32, MTE2 gets the remaining 48; MTE2's 4800 B end at 100, by when MTE3 has moved
    # 3200 of its 4000 B; the last 800 B go at 32 B/cycle.
    def kernel(x, y):
        _pipe, (a, _b, c, _d) = ub()
        DataCopy(a, gm(x), 1200)               # 4800 B into UB [0, 4800)
        DataCopy(gm(y), c, 1000)               # 4000 B from UB [5120, 9120)
    tl = schedule(kernel, np.zeros(1200, np.float32), np.zeros(1000, np.float32),
                  hbm_gb_per_s=80.0, mte3=MteCost(20.0, 32.0, 0.0))
    assert list(tl.data_end) == pytest.approx([100.0, 125.0])


def test_copy_overlap_allowance_on_mte_pipes():
    def kernel(x):
        _pipe, (a, b, _c, _d) = ub()
        DataCopy(a, gm(x), T)         # [0, 80]: data moves [0, 40], latency 40 after it
        DataCopy(b, gm(x), T)         # may start 30 cycles before the first ends: [50, 130]
    tl = schedule(kernel, np.zeros(T, np.float32), mte2=MteCost(40.0, 64.0, 30.0))
    assert spans(tl, "DataCopy") == [(0, 80), (50, 130)]


def test_profile_argument_retimes_the_same_records():
    x = np.arange(3 * T, dtype=np.float32)
    run = ascsim.launch(pipeline_kernel(2, 3), 1, x, np.zeros_like(x), profile=make_profile())
    fast = profile_run(run)
    slow = run.timeline(dataclasses.replace(make_profile(), clock_mhz=500))
    assert slow.total_cycles == fast.total_cycles == 370
    assert slow.total_us == pytest.approx(2 * fast.total_us)
    b4 = run.timeline("Ascend910B4")
    assert b4.profile.name == "Ascend910B4" and b4.total_cycles > fast.total_cycles
