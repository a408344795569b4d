# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""assert: the kernel's own check fails (C++ `assert(cond, fmt, ...)`); the core stops and the
message is in the log and the finding."""

from ascsim.ascendc import *

from ._corpus import Expect, calc_buffer, launch

EXPECT = [Expect("assert", "kernel assert")]
STRICT = "KernelAssertError"


def kernel():
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    n = t.GetSize() - 300
    ascendc_assert(n > 0, "tile of %d elements", n)  # BUG
    Duplicate(t, 0.0, n)


def run(sanitize="check"):
    return launch(kernel, sanitize=sanitize)


def kernel_fixed():
    pipe, buf = calc_buffer(1024)
    t = buf.Get[float]()
    n = t.GetSize() - 192  # FIXED: a tile the buffer holds
    ascendc_assert(n > 0, "tile of %d elements", n)
    Duplicate(t, 0.0, n)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, sanitize=sanitize)
