# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""racecheck on GM: MTE3 stores a partial result to the workspace and MTE2 loads it back with no
MTE3_MTE2 sync between them."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("racecheck", "RAW")]
STRICT = "RaceError"


def kernel(x, ws):
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    u = t[256]
    wsGm = gm(ws, float)
    DataCopy(t, gm(x, float), 256)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, 256)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(wsGm, t, 256)
    DataCopy(u, wsGm, 256)  # BUG: the store may not have landed


def run(sanitize="check"):
    return launch(kernel, f32(256), f32(256), sanitize=sanitize)


def kernel_fixed(x, ws):
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    u = t[256]
    wsGm = gm(ws, float)
    DataCopy(t, gm(x, float), 256)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, 256)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(wsGm, t, 256)
    SetFlag[HardEvent.MTE3_MTE2](EVENT_ID0)  # FIXED: the load waits for the store
    WaitFlag[HardEvent.MTE3_MTE2](EVENT_ID0)
    DataCopy(u, wsGm, 256)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(256), f32(256), sanitize=sanitize)
