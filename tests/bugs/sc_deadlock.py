# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""synccheck: the vector pipe waits for MTE2_V id 1, but the copy sets id 0: the WaitFlag is
never satisfied (on hardware: a hang) and the vector work behind it never runs."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("synccheck", "deadlock")]
STRICT = "DeadlockError"


def kernel(x):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    DataCopy(t, gm(x, float), 64)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID1)  # BUG: id 1 is never set
    Muls(t, t, 2.0, 64)


def run(sanitize="check"):
    return launch(kernel, f32(64), sanitize=sanitize)


def kernel_fixed(x):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    DataCopy(t, gm(x, float), 64)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)  # FIXED: the id that was set
    Muls(t, t, 2.0, 64)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(64), sanitize=sanitize)
