# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""synccheck: a chain of stalled waits. PIPE_V waits for MTE2_V id 1, which nobody sets; the
SetFlag<V_MTE3> after it is issued but held in PIPE_V's backlog, so PIPE_MTE3's WaitFlag
<V_MTE3> never ends either. The first finding is the first stalled wait (the one to fix); the
MTE3 wait's finding names the chain instead of claiming no SetFlag was issued."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("synccheck", "deadlock", tag="root"),
          Expect("synccheck", "deadlock", tag="held")]
STRICT = "DeadlockError"


def kernel(x, out, fixed=False):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    DataCopy(t, gm(x, float), 64)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    if fixed:
        WaitFlag[HardEvent.MTE2_V](EVENT_ID0)  # FIXED: the id that was set
    else:
        WaitFlag[HardEvent.MTE2_V](EVENT_ID1)  # BUG(root): id 1 is never set
    Muls(t, t, 2.0, 64)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)  # BUG(held): its SetFlag is held behind PIPE_V
    DataCopy(gm(out, float), t, 64)


def run(sanitize="check"):
    return launch(kernel, f32(64), f32(64), sanitize=sanitize)


def run_fixed(sanitize="check"):
    return launch(lambda x, out: kernel(x, out, fixed=True), f32(64), f32(64),
                  sanitize=sanitize)
