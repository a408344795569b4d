# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck: a vector count larger than the TBuf tensor it runs on (it writes past the buffer
into whatever follows in UB)."""

from ascsim.ascendc import *

from ._corpus import Expect, launch

EXPECT = [Expect("memcheck", "out of range")]
STRICT = "OutOfRangeError"


def kernel():
    pipe = TPipe()
    small = TBuf[TPosition.VECCALC]()
    other = TBuf[TPosition.VECCALC]()
    pipe.InitBuffer(small, 256)
    pipe.InitBuffer(other, 256)
    t = small.Get[float]()
    Duplicate(t, 1.0, 64)
    Adds(t, t, 1.0, 128)  # BUG: 128 floats in a 64-float buffer


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def kernel_fixed():
    pipe = TPipe()
    small = TBuf[TPosition.VECCALC]()
    other = TBuf[TPosition.VECCALC]()
    pipe.InitBuffer(small, 256)
    pipe.InitBuffer(other, 256)
    t = small.Get[float]()
    Duplicate(t, 1.0, 64)
    Adds(t, t, 1.0, 64)  # FIXED: the 64 floats the buffer holds


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
