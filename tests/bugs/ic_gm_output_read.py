# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""initcheck on GM: the kernel accumulates into its output (out += x) but the output buffer is
only written by the kernel, so it reads undefined bytes."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("initcheck", "read of unwritten output")]
STRICT = "UninitialisedError"


def kernel(x, out):
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    acc = t[256]
    outGm = gm(out, float)
    DataCopy(t, gm(x, float), 256)
    DataCopy(acc, outGm, 256)  # BUG: the output holds nothing yet
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Add(acc, acc, t, 256)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(outGm, acc, 256)


def run(sanitize="check"):
    return launch(kernel, f32(256), f32(256), outputs=(1,), sanitize=sanitize)


def kernel_fixed(x, out):
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    acc = t[256]
    outGm = gm(out, float)
    DataCopy(t, gm(x, float), 256)
    Duplicate(acc, 0.0, 256)  # FIXED: the accumulator starts at zero, not from the output
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Add(acc, acc, t, 256)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(outGm, acc, 256)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(256), f32(256), outputs=(1,), sanitize=sanitize)
