# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck (queue state): five tensors of one TQue allocated and none freed (AllocTensor.md:
at most 4; a hang on NPU)."""

from ascsim.ascendc import *

from ._corpus import Expect, launch

EXPECT = [Expect("memcheck", "queue state")]
STRICT = "QueueStateError"


def kernel():
    pipe = TPipe()
    que = TQue[QuePosition.VECCALC, 1]()
    pipe.InitBuffer(que, 6, 1024)
    held = []
    for _ in range(4):
        held.append(que.AllocTensor[float]())
    held.append(que.AllocTensor[float]())  # BUG: the fifth outstanding tensor
    for t in held:
        Duplicate(t, 0.0, 256)
        que.FreeTensor(t)


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def kernel_fixed():
    pipe = TPipe()
    que = TQue[QuePosition.VECCALC, 1]()
    pipe.InitBuffer(que, 6, 1024)
    held = [que.AllocTensor[float]() for _ in range(4)]  # FIXED: at most four at once
    for t in held:
        Duplicate(t, 0.0, 256)
        que.FreeTensor(t)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
