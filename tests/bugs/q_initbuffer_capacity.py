# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck (queue state): InitBuffer asks for more UB than there is; the vector instruction
that then runs past the end of UB is reported too (and clipped)."""

from ascsim.ascendc import *

from ._corpus import Expect, launch

EXPECT = [Expect("memcheck", "UB capacity", tag="init"),
          Expect("memcheck", "out of range", tag="use")]
STRICT = "QueueStateError"


def kernel():
    pipe = TPipe()
    first = TBuf[TPosition.VECCALC]()
    second = TBuf[TPosition.VECCALC]()
    pipe.InitBuffer(first, 131072)
    pipe.InitBuffer(second, 131072)  # BUG(init): 256 KB in a 192 KB UB
    t = second.Get[float]()
    Duplicate(t, 1.0, 32768)  # BUG(use): past the end of UB


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def kernel_fixed():
    pipe = TPipe()
    first = TBuf[TPosition.VECCALC]()
    second = TBuf[TPosition.VECCALC]()
    pipe.InitBuffer(first, 131072)
    pipe.InitBuffer(second, 32768)  # FIXED: 160 KB, below the library's temp area
    t = second.Get[float]()
    Duplicate(t, 1.0, 8192)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
