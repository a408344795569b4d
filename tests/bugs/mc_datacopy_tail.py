# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck: DataCopy of 5 floats (20 bytes): the hardware moves whole 32-byte blocks only, so
nothing at all is copied (use DataCopyPad)."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("memcheck", "multiple of 32")]
STRICT = "ParameterError"


def kernel(x, y):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    xGm = gm(x, float)
    DataCopy(t, xGm, 5)  # BUG: 20 bytes, silently truncated to 0


def run(sanitize="check"):
    return launch(kernel, f32(5), f32(5), sanitize=sanitize)


def kernel_fixed(x, y):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    xGm = gm(x, float)
    DataCopy(t, xGm, 8)  # FIXED: 32 bytes, a whole block


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(8), f32(8), sanitize=sanitize)
