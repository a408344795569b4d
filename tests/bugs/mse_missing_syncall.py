# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""multicore: MSELossV2 sum with the hard SyncAll left out of the cross-core combine: core 0
reads the other cores' partials from the workspace with nothing ordering those reads after
the other cores' writes (a PipeBarrier<PIPE_ALL> orders one core's own pipes only). The
findings are at core 0's read of the slots."""

from ascsim.ascendc import *

from ._corpus import Expect
from ._mse import SplitCombine, entry, launch

READ = dict(path="tests/bugs/_mse.py", snippet="# the read")
EXPECT = [Expect("multicore", "read/write overlap", "WARNING", **READ),
          Expect("initcheck", "read of unwritten workspace", **READ)]
STRICT = "UninitialisedError"
N = 5 * 128 * 8 + 3  # 5 cores of fp32


class NoSyncAll(SplitCombine):
    def Barrier(self):
        PipeBarrier[PIPE_ALL]()  # BUG: no SyncAll, so core 0 may read before the others store


class WithSyncAll(SplitCombine):
    def Barrier(self):
        SyncAll()  # FIXED: every core's partial is in GM before core 0 reads them


def run(sanitize="check"):
    return launch(entry(NoSyncAll), N, "sum", sanitize)


def run_fixed(sanitize="check"):
    return launch(entry(WithSyncAll), N, "sum", sanitize)
