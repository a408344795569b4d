# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck (queue state): CopyOut DeQues the output queue after a Compute that returned early
without EnQue-ing anything (the SCE public kernel's unreachable quirk 4, made reachable): on
hardware the DeQue hangs. The core stops; the report names the DeQue."""

from ascsim.ascendc import *

from ._corpus import Expect, f32, gm, launch

EXPECT = [Expect("memcheck", "DeQue on an empty queue")]
STRICT = "QueueStateError"


class Kernel:
    def __init__(self):
        self.pipe = TPipe()
        self.inQue = TQue[QuePosition.VECIN, 1]()
        self.outQue = TQue[QuePosition.VECOUT, 1]()
        self.pipe.InitBuffer(self.inQue, 1, 1024)
        self.pipe.InitBuffer(self.outQue, 1, 1024)

    def Compute(self, n):
        x = self.inQue.DeQue[float]()
        if n == 0:
            return
        y = self.outQue.AllocTensor[float]()
        Muls(y, x, 2.0, n)
        self.outQue.EnQue(y)
        self.inQue.FreeTensor(x)

    def Process(self, x, out, n):
        xGm, outGm = gm(x, float), gm(out, float)
        t = self.inQue.AllocTensor[float]()
        DataCopy(t, xGm, 256)
        self.inQue.EnQue(t)
        self.Compute(n)
        y = self.outQue.DeQue[float]()  # BUG: nothing was enqueued
        DataCopy(outGm, y, 256)
        self.outQue.FreeTensor(y)


def kernel(x, out):
    Kernel().Process(x, out, 0)


def run(sanitize="check"):
    return launch(kernel, f32(256), f32(256), sanitize=sanitize)


def kernel_fixed(x, out):
    Kernel().Process(x, out, 256)  # FIXED: Compute enqueues the result before it is dequeued


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(256), f32(256), sanitize=sanitize)
