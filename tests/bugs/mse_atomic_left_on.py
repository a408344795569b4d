# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""initcheck: MSELossV2 sum whose cores zero their workspace slot (InitGlobalMemory) and add
their partials into it with the DMA atomic add, and never switch the atomic mode off: core
0's final store of the total to `output` is then an atomic add too, out = out + total, onto
whatever out held (here poison bytes). The sanitizer sees an atomic accumulate into output
bytes nothing wrote before, at that store."""

from ascsim.ascendc import *
from kernels_py.mse_loss_v2.op_kernel.mse_loss_v2_base import BLOCK_FLOATS

from ._corpus import Expect
from ._mse import SplitCombine, entry, launch

EXPECT = [Expect("initcheck", "atomic onto unwritten GM", "WARNING", path="tests/bugs/_mse.py",
                 snippet="# the total's store")]
N = 3 * 128 * 8 + 5  # 3 cores of fp32
TILE = 2048  # small tiles leave free UB for InitGlobalMemory's fill


class AtomicLeftOn(SplitCombine):
    def StorePartial(self, partial, slot):
        InitGlobalMemory[float](self.workspaceGm_[slot], BLOCK_FLOATS, float(0.0))
        SetAtomicAdd[float]()
        DataCopy(self.workspaceGm_[slot], partial, BLOCK_FLOATS)  # BUG: atomic mode stays on


class AtomicSwitchedOff(AtomicLeftOn):
    def StorePartial(self, partial, slot):
        super().StorePartial(partial, slot)
        SetAtomicNone()  # FIXED: plain stores from here on


def run(sanitize="check"):
    return launch(entry(AtomicLeftOn), N, "sum", sanitize, tile=TILE)


def run_fixed(sanitize="check"):
    return launch(entry(AtomicSwitchedOff), N, "sum", sanitize, tile=TILE)
