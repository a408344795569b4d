# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""synccheck: event id 8 (ids are 0..7 on A2/A3) and a hand-written sync on id 6 (reserved;
7 belongs to the TPipe auto-sync)."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, launch

EXPECT = [Expect("synccheck", "event id out of range", tag="range"),
          Expect("synccheck", "reserved event id", tag="reserved")]
STRICT = "SyncError"


def kernel():
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    Duplicate(t, 1.0, 64)
    SetFlag[HardEvent.V_MTE3](8)  # BUG(range): no such id
    SetFlag[HardEvent.V_MTE3](EVENT_ID6)  # BUG(reserved)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID6)


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def kernel_fixed():
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    Duplicate(t, 1.0, 64)
    SetFlag[HardEvent.V_MTE3](EVENT_ID1)  # FIXED: an id in 0..5
    WaitFlag[HardEvent.V_MTE3](EVENT_ID1)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
