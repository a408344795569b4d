# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""racecheck: MTE3 stores a tile the vector pipe is still computing (no V_MTE3 sync)."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("racecheck", "RAW")]
STRICT = "RaceError"


def kernel(x, out):
    pipe, buf = calc_buffer(2048)
    t = buf.Get[float]()
    DataCopy(t, gm(x, float), 256)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, 256)
    DataCopy(gm(out, float), t, 256)  # BUG: V may not have finished


def run(sanitize="check"):
    return launch(kernel, f32(256), f32(256), outputs=(1,), sanitize=sanitize)


def kernel_fixed(x, out):
    pipe, buf = calc_buffer(2048)
    t = buf.Get[float]()
    DataCopy(t, gm(x, float), 256)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, 256)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)  # FIXED
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(gm(out, float), t, 256)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(256), f32(256), outputs=(1,), sanitize=sanitize)
