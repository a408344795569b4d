# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""multicore: MSELossV2 sum whose per-core workspace slots are 16 bytes apart while each core
stores its 8-float (32-byte) accumulator: the slots of neighbouring cores overlap, so two
cores write the same workspace bytes and the total depends on which lands last. The finding
is at the partial's store."""

from ._corpus import Expect
from ._mse import SplitCombine, entry, launch

EXPECT = [Expect("multicore", "write overlap", path="tests/bugs/_mse.py",
                 snippet="# the partial's store")]
STRICT = "MultiCoreError"
N = 5 * 128 * 8 + 1  # 5 cores of fp32: the overlapping slots span 4 * 5 + 4 = 24 floats


class OverlappingSlots(SplitCombine):
    slotFloats = 4  # BUG: 16-byte slots for 32-byte partials


class SeparateSlots(SplitCombine):
    slotFloats = 8  # FIXED: the shipped 32-byte slots at 32 * (coreNum + blockIdx)


def run(sanitize="check"):
    return launch(entry(OverlappingSlots), N, "sum", sanitize)


def run_fixed(sanitize="check"):
    return launch(entry(SeparateSlots), N, "sum", sanitize)
