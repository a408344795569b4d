# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""synccheck: a SetFlag nobody waits for; the flag is still set when the kernel ends and leaks
into the next kernel on the core (a WARNING, as in msSanitizer)."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("synccheck", "unpaired SetFlag", "WARNING")]


def kernel(x, out):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    DataCopy(t, gm(x, float), 64)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, 64)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(gm(out, float), t, 64)
    SetFlag[HardEvent.MTE3_MTE2](EVENT_ID0)  # BUG: never waited for


def run(sanitize="check"):
    return launch(kernel, f32(64), f32(64), outputs=(1,), sanitize=sanitize)


def kernel_fixed(x, out):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    DataCopy(t, gm(x, float), 64)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, 64)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(gm(out, float), t, 64)
    SetFlag[HardEvent.MTE3_MTE2](EVENT_ID0)
    WaitFlag[HardEvent.MTE3_MTE2](EVENT_ID0)  # FIXED: consumed before the kernel ends


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(64), f32(64), outputs=(1,), sanitize=sanitize)
