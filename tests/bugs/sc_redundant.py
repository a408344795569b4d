# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""synccheck: the SetFlag/WaitFlag pair written twice in a row (msSanitizer's "redundant"
example): on each pipe the second one adds nothing (a WARNING)."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("synccheck", "redundant", "WARNING", tag="set"),
          Expect("synccheck", "redundant", "WARNING", tag="wait")]


def kernel(x):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    DataCopy(t, gm(x, float), 64)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)  # BUG(set)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)  # BUG(wait)
    Muls(t, t, 2.0, 64)


def run(sanitize="check"):
    return launch(kernel, f32(64), sanitize=sanitize)


def kernel_fixed(x):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    DataCopy(t, gm(x, float), 64)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)  # FIXED: one pair
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 2.0, 64)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(64), sanitize=sanitize)
