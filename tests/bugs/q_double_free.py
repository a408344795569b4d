# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck (queue state): FreeTensor of the same tensor twice."""

from ascsim.ascendc import *

from ._corpus import Expect, launch

EXPECT = [Expect("memcheck", "double FreeTensor")]
STRICT = "QueueStateError"


def kernel():
    pipe = TPipe()
    que = TQue[QuePosition.VECCALC, 1]()
    pipe.InitBuffer(que, 2, 1024)
    t = que.AllocTensor[float]()
    Duplicate(t, 0.0, 256)
    que.FreeTensor(t)
    que.FreeTensor(t)  # BUG: freed twice


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def kernel_fixed():
    pipe = TPipe()
    que = TQue[QuePosition.VECCALC, 1]()
    pipe.InitBuffer(que, 2, 1024)
    t = que.AllocTensor[float]()
    Duplicate(t, 0.0, 256)
    que.FreeTensor(t)  # FIXED: once


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
