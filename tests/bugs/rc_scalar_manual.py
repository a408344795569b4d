# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""racecheck and the sync mode: a scalar SetValue into UB read by the vector pipe with no S_V
sync. Declared manual-sync, that is a RAW hazard; the same kernel in auto-sync mode relies on
the compiler's inserted S->V sync and is clean."""

from ascsim.ascendc import *
from ascsim.ascendc import kernel_sync

from ._corpus import Expect, calc_buffer, launch

EXPECT = [Expect("racecheck", "RAW")]
STRICT = "RaceError"


def body():
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    Duplicate(t, 0.0, 64)
    PipeBarrier[PIPE_V]()
    SetFlag[HardEvent.V_S](EVENT_ID0)
    WaitFlag[HardEvent.V_S](EVENT_ID0)
    t.SetValue(3, 7.0)
    Adds(t, t, 1.0, 64)  # BUG: V may read before the scalar write lands


@kernel_sync("manual")
def kernel():
    body()


@kernel_sync("auto")
def kernel_auto():
    body()


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def run_auto(sanitize="check"):
    return launch(kernel_auto, sanitize=sanitize)


QUIET = [(run_auto, ("racecheck",))]


@kernel_sync("manual")
def kernel_fixed():
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    Duplicate(t, 0.0, 64)
    PipeBarrier[PIPE_V]()
    SetFlag[HardEvent.V_S](EVENT_ID0)
    WaitFlag[HardEvent.V_S](EVENT_ID0)
    t.SetValue(3, 7.0)
    SetFlag[HardEvent.S_V](EVENT_ID0)  # FIXED: V reads after the scalar write
    WaitFlag[HardEvent.S_V](EVENT_ID0)
    Adds(t, t, 1.0, 64)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
