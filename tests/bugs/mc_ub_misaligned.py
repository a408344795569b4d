# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck: a vector operand at a UB address that is not 32-byte aligned."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, launch

EXPECT = [Expect("memcheck", "misaligned")]
STRICT = "AlignmentError"


def kernel():
    pipe, buf = calc_buffer(4096)
    ub = buf.Get[uint8_t]()
    t = ub[16].ReinterpretCast[float]()
    Duplicate(ub.ReinterpretCast[float](), 0.0, 512)
    PipeBarrier[PIPE_V]()
    Muls(t, t, 2.0, 64)  # BUG: starts 16 bytes into a block


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def kernel_fixed():
    pipe, buf = calc_buffer(4096)
    ub = buf.Get[uint8_t]()
    t = ub[32].ReinterpretCast[float]()  # FIXED: on a 32-byte block boundary
    Duplicate(ub.ReinterpretCast[float](), 0.0, 512)
    PipeBarrier[PIPE_V]()
    Muls(t, t, 2.0, 64)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
