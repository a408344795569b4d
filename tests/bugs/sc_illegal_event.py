# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""synccheck: SetFlag/WaitFlag<V_V>: an AI Vector core syncs between different pipes only
(same-pipe ordering is PipeBarrier's job)."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, launch

EXPECT = [Expect("synccheck", "illegal event")]
STRICT = "SyncError"


def kernel():
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    Duplicate(t, 1.0, 64)
    SetFlag[HardEvent.V_V](EVENT_ID0)  # BUG: V to V
    WaitFlag[HardEvent.V_V](EVENT_ID0)
    Adds(t, t, 1.0, 64)


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def kernel_fixed():
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    Duplicate(t, 1.0, 64)
    PipeBarrier[PIPE_V]()  # FIXED: same-pipe ordering is a barrier
    Adds(t, t, 1.0, 64)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
