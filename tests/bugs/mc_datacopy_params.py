# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck: DataCopyParams out of range (blockCount > 4095); the copy is skipped."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("memcheck", "invalid parameter")]
STRICT = "ParameterError"


def kernel(x):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    xGm = gm(x, float)
    DataCopy(t, xGm, DataCopyParams(5000, 1, 0, 0))  # BUG: blockCount 5000 > 4095


def run(sanitize="check"):
    return launch(kernel, f32(64), sanitize=sanitize)


def kernel_fixed(x):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    xGm = gm(x, float)
    DataCopy(t, xGm, DataCopyParams(8, 1, 0, 0))  # FIXED: 8 blocks of 32 bytes = the 64 floats


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(64), sanitize=sanitize)
