# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""multicore: the work split drops the remainder (n // cores per core, n not a multiple): the
last elements of the output are written by no core."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("multicore", "output not covered")]
STRICT = "MultiCoreError"
N = 4 * 256 + 8


def kernel(x, out):
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    per_core = N // GetBlockNum() // 8 * 8  # the remainder is nobody's
    offset = GetBlockIdx() * per_core
    DataCopy(t, gm(x, float)[offset], per_core)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, per_core)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(gm(out, float)[offset], t, per_core)  # BUG: the last core stops short of N


def run(sanitize="check"):
    return launch(kernel, f32(N), f32(N), cores=4, outputs=(1,), sanitize=sanitize)


def kernel_fixed(x, out):
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    per_core = N // GetBlockNum() // 8 * 8
    offset = GetBlockIdx() * per_core
    mine = per_core
    if GetBlockIdx() == GetBlockNum() - 1:
        mine = N - offset  # FIXED: the last core takes the remainder
    DataCopy(t, gm(x, float)[offset], mine)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, mine)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(gm(out, float)[offset], t, mine)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(N), f32(N), cores=4, outputs=(1,), sanitize=sanitize)
