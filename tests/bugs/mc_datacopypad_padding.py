# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck: DataCopyPad with a left padding of 16 floats (64 bytes > 32)."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, f32, gm, launch

EXPECT = [Expect("memcheck", "invalid parameter")]
STRICT = "ParameterError"


def kernel(x):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    xGm = gm(x, float)
    params = DataCopyExtParams(1, 10 * sizeof(float), 0, 0, 0)
    pad = DataCopyPadExtParams[float](True, 16, 0, 0.0)
    DataCopyPad(t, xGm, params, pad)  # BUG: padding > 32 bytes


def run(sanitize="check"):
    return launch(kernel, f32(10), sanitize=sanitize)


def kernel_fixed(x):
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    xGm = gm(x, float)
    params = DataCopyExtParams(1, 10 * sizeof(float), 0, 0, 0)
    pad = DataCopyPadExtParams[float](True, 0, 6, 0.0)  # FIXED: 24 bytes to the 64-byte end
    DataCopyPad(t, xGm, params, pad)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(10), sanitize=sanitize)
