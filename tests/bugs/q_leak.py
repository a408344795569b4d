# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck (leak): a tensor allocated from a TQue and never freed. With one tile per core the
queue never runs out of buffers, so only the end-of-kernel check can see it (npuchk's Leak);
it points at the AllocTensor."""

from ascsim.ascendc import *

from ._corpus import Expect, f32, gm, launch

EXPECT = [Expect("memcheck", "AllocTensor without FreeTensor", severity="WARNING")]


def kernel(x, out, fixed=False):
    pipe = TPipe()
    inQue = TQue[QuePosition.VECIN, 2]()
    pipe.InitBuffer(inQue, 2, 1024)
    xGm, outGm = gm(x, float), gm(out, float)
    t = inQue.AllocTensor[float]()  # BUG: never freed
    DataCopy(t, xGm, 256)
    inQue.EnQue(t)
    t = inQue.DeQue[float]()
    Muls(t, t, 2.0, 256)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(outGm, t, 256)
    if fixed:
        inQue.FreeTensor(t)  # FIXED


def run(sanitize="check", fixed=False):
    x = f32(256)
    out = f32(256) * 0
    return launch(lambda x, out: kernel(x, out, fixed), x, out, sanitize=sanitize,
                  outputs=(1,))


def run_fixed(sanitize="check"):
    return run(sanitize, fixed=True)
