# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""synccheck: a SetFlag on a flag that is already set and not yet waited for (undefined on
hardware: the second set is lost; a later PipeBarrier<PIPE_ALL> can hang)."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, launch

EXPECT = [Expect("synccheck", "double SetFlag")]
STRICT = "SyncError"


def kernel():
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    Duplicate(t, 1.0, 64)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    Adds(t, t, 1.0, 64)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)  # BUG: already set
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def kernel_fixed():
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    Duplicate(t, 1.0, 64)
    Adds(t, t, 1.0, 64)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)  # FIXED: set once, after the last vector write
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
