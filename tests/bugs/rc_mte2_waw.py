# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""racecheck: two GM->UB copies on MTE2 whose destinations overlap, with no
PipeBarrier<PIPE_MTE2> between them (needed in auto-sync mode too): WAW on one pipe."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("racecheck", "WAW")]
STRICT = "RaceError"


def kernel(x):
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    xGm = gm(x, float)
    DataCopy(t, xGm, 256)
    DataCopy(t[128], xGm[256], 256)  # BUG: overlaps the first copy's destination
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, 384)


def run(sanitize="check"):
    return launch(kernel, f32(512), sanitize=sanitize)


def kernel_fixed(x):
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    xGm = gm(x, float)
    DataCopy(t, xGm, 256)
    PipeBarrier[PIPE_MTE2]()  # FIXED: the second copy lands after the first
    DataCopy(t[128], xGm[256], 256)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, 384)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(512), sanitize=sanitize)
