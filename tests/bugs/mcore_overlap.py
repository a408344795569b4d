# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""multicore: every core writes the whole output (the block offset was forgotten in the store):
the cores write the same GM bytes."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("multicore", "write overlap")]
STRICT = "MultiCoreError"
N_PER_CORE = 256


def kernel(x, out):
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    offset = GetBlockIdx() * N_PER_CORE
    DataCopy(t, gm(x, float)[offset], N_PER_CORE)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, N_PER_CORE)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(gm(out, float), t, N_PER_CORE)  # BUG: no [offset]


def run(sanitize="check"):
    return launch(kernel, f32(4 * N_PER_CORE), f32(4 * N_PER_CORE), cores=4, outputs=(1,),
                  sanitize=sanitize)


def kernel_fixed(x, out):
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    offset = GetBlockIdx() * N_PER_CORE
    DataCopy(t, gm(x, float)[offset], N_PER_CORE)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, N_PER_CORE)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(gm(out, float)[offset], t, N_PER_CORE)  # FIXED: each core its own slice


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(4 * N_PER_CORE), f32(4 * N_PER_CORE), cores=4,
                  outputs=(1,), sanitize=sanitize)
