# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""initcheck: DataCopyPad brings in 5 floats (their 32-byte block is padded with 3 dummy
floats), the kernel computes on 8 and stores 8 with DataCopy: the dummy values reach GM. The
finding names the store and the instruction that first read the dummy bytes."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("initcheck", "uninitialised value reaches GM")]
STRICT = "UninitialisedError"
FIRST_READ = "first"  # the `# BUG(first)` line: the instruction that first read the dummies


def kernel(x, out):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    params = DataCopyExtParams(1, 5 * sizeof(float), 0, 0, 0)
    DataCopyPad(t, gm(x, float), params, DataCopyPadExtParams[float](False, 0, 0, 0.0))
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, 8)  # BUG(first): 3 of the 8 floats are DataCopyPad's dummy bytes
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(gm(out, float), t, 8)  # BUG


def run(sanitize="check"):
    return launch(kernel, f32(8), f32(8), outputs=(1,), sanitize=sanitize)


def kernel_fixed(x, out):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    params = DataCopyExtParams(1, 5 * sizeof(float), 0, 0, 0)
    # FIXED: the 3 floats after the copied 5 are padding with a value, not dummy bytes
    DataCopyPad(t, gm(x, float), params, DataCopyPadExtParams[float](True, 0, 3, 0.0))
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, 8)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(gm(out, float), t, 8)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(8), f32(8), outputs=(1,), sanitize=sanitize)
