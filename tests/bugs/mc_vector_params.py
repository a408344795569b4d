# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck: high-dimension vector parameters out of range: repeatTime 300 (> 255), a mask of
100 for float (> 64), dstBlkStride 0. Each instruction is skipped."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, launch

EXPECT = [Expect("memcheck", "invalid parameter", tag="repeat"),
          Expect("memcheck", "invalid parameter", tag="mask"),
          Expect("memcheck", "invalid parameter", tag="stride")]
STRICT = "ParameterError"


def kernel():
    pipe, buf = calc_buffer(65536)
    t = buf.Get[float]()
    Duplicate(t, 1.0, 16384)
    PipeBarrier[PIPE_V]()
    params = UnaryRepeatParams(1, 1, 8, 8)
    Adds(t, t, 1.0, 64, 300, params)  # BUG(repeat)
    Adds(t, t, 1.0, 100, 2, params)  # BUG(mask)
    Adds(t, t, 1.0, 64, 2, UnaryRepeatParams(0, 1, 8, 8))  # BUG(stride)


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def kernel_fixed():
    pipe, buf = calc_buffer(65536)
    t = buf.Get[float]()
    Duplicate(t, 1.0, 16384)
    PipeBarrier[PIPE_V]()
    params = UnaryRepeatParams(1, 1, 8, 8)
    Adds(t, t, 1.0, 64, 255, params)  # FIXED: at most 255 repeats
    Adds(t, t, 1.0, 64, 2, params)  # FIXED: at most 64 floats per repeat
    Adds(t, t, 1.0, 64, 2, UnaryRepeatParams(1, 1, 8, 8))  # FIXED: dstBlkStride 1


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
