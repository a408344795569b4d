# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck (queue state): a vector instruction on a tensor after FreeTensor gave its buffer
back (the next AllocTensor may hand it to someone else)."""

from ascsim.ascendc import *

from ._corpus import Expect, launch

EXPECT = [Expect("memcheck", "use after FreeTensor")]
STRICT = "QueueStateError"


def kernel():
    pipe = TPipe()
    que = TQue[QuePosition.VECCALC, 1]()
    pipe.InitBuffer(que, 1, 1024)
    t = que.AllocTensor[float]()
    Duplicate(t, 0.0, 256)
    que.FreeTensor(t)
    Adds(t, t, 1.0, 256)  # BUG: t was freed


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def kernel_fixed():
    pipe = TPipe()
    que = TQue[QuePosition.VECCALC, 1]()
    pipe.InitBuffer(que, 1, 1024)
    t = que.AllocTensor[float]()
    Duplicate(t, 0.0, 256)
    Adds(t, t, 1.0, 256)  # FIXED: before the FreeTensor
    que.FreeTensor(t)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
