# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck (queue state): a tensor EnQue'd and never DeQue'd by the kernel's end."""

from ascsim.ascendc import *

from ._corpus import Expect, launch

EXPECT = [Expect("memcheck", "EnQue without DeQue", severity="WARNING")]


def kernel():
    pipe = TPipe()
    que = TQue[QuePosition.VECOUT, 1]()
    pipe.InitBuffer(que, 1, 1024)
    t = que.AllocTensor[float]()
    Duplicate(t, 0.0, 256)
    que.EnQue(t)  # BUG: nobody DeQues it


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def kernel_fixed():
    pipe = TPipe()
    que = TQue[QuePosition.VECOUT, 1]()
    pipe.InitBuffer(que, 1, 1024)
    t = que.AllocTensor[float]()
    Duplicate(t, 0.0, 256)
    que.EnQue(t)
    t = que.DeQue[float]()  # FIXED: the consumer side
    que.FreeTensor(t)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
