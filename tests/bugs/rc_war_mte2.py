# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""racecheck: MTE2 loads the next tile into a buffer the vector pipe is still reading (no
V_MTE2 sync before the second copy): WAR between pipes."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("racecheck", "WAR")]
STRICT = "RaceError"


def kernel(x, out):
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    y = t[256]
    xGm, outGm = gm(x, float), gm(out, float)
    for i in range(2):
        DataCopy(t, xGm[i * 256], 256)  # BUG: tile 1 overwrites what V still reads
        SetFlag[HardEvent.MTE2_V](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
        Muls(y, t, 2.0, 256)
        SetFlag[HardEvent.V_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
        DataCopy(outGm[i * 256], y, 256)
        SetFlag[HardEvent.MTE3_V](EVENT_ID0)
        WaitFlag[HardEvent.MTE3_V](EVENT_ID0)


def run(sanitize="check"):
    return launch(kernel, f32(512), f32(512), outputs=(1,), sanitize=sanitize)


def kernel_fixed(x, out):
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    y = t[256]
    xGm, outGm = gm(x, float), gm(out, float)
    for i in range(2):
        if i > 0:
            WaitFlag[HardEvent.V_MTE2](EVENT_ID0)  # FIXED: V has finished reading t
        DataCopy(t, xGm[i * 256], 256)
        SetFlag[HardEvent.MTE2_V](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
        Muls(y, t, 2.0, 256)
        if i < 1:
            SetFlag[HardEvent.V_MTE2](EVENT_ID0)
        SetFlag[HardEvent.V_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
        DataCopy(outGm[i * 256], y, 256)
        SetFlag[HardEvent.MTE3_V](EVENT_ID0)
        WaitFlag[HardEvent.MTE3_V](EVENT_ID0)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(512), f32(512), outputs=(1,), sanitize=sanitize)
