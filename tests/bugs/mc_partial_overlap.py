# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck: dst starts 8 floats (32 bytes) after src: within each 256-byte repeat the two
overlap partially, so the result depends on the hardware reading a repeat before writing it."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, launch

EXPECT = [Expect("memcheck", "overlap")]
STRICT = "ParameterError"


def kernel():
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    Duplicate(t, 1.0, 512)
    PipeBarrier[PIPE_V]()
    Adds(t[8], t, 1.0, 256)  # BUG: shifted in place


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def kernel_fixed():
    pipe, buf = calc_buffer(4096)
    t = buf.Get[float]()
    Duplicate(t, 1.0, 512)
    PipeBarrier[PIPE_V]()
    Adds(t[256], t, 1.0, 256)  # FIXED: dst and src do not overlap


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
