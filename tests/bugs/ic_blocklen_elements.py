# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""initcheck: DataCopyExtParams.blockLen given as an element count (256) where it counts bytes
(256 floats are 1024 bytes): the copy fills a quarter of the tile, and the rest reaches GM
uninitialised. The finding is at the store where the bytes reach GM, and it names the copy as
the likely cause (the line to fix)."""

import numpy as np

from ascsim.ascendc import *

from ._corpus import Expect, gm, launch

EXPECT = [Expect("initcheck", "uninitialised value reaches GM", tag="store")]
STRICT = "UninitialisedError"
N = 256


def kernel(x, out, fixed=False):
    pipe = TPipe()
    inQue = TQue[QuePosition.VECIN, 1]()
    outQue = TQue[QuePosition.VECOUT, 1]()
    pipe.InitBuffer(inQue, 1, N * 4)
    pipe.InitBuffer(outQue, 1, N * 4)
    xGm, outGm = gm(x, float), gm(out, float)
    t = inQue.AllocTensor[float]()
    blockLen = N * sizeof(float) if fixed else N  # FIXED when fixed; the slip otherwise
    DataCopyPad(t, xGm, DataCopyExtParams(1, blockLen, 0, 0, 0),
                DataCopyPadExtParams[float](False, 0, 0, 0))
    inQue.EnQue(t)
    t = inQue.DeQue[float]()
    o = outQue.AllocTensor[float]()
    Muls(o, t, 2.0, N)
    outQue.EnQue(o)
    inQue.FreeTensor(t)
    o = outQue.DeQue[float]()
    DataCopyPad(outGm, o, DataCopyExtParams(1, N * sizeof(float), 0, 0, 0))  # BUG(store)
    outQue.FreeTensor(o)


def run(sanitize="check", fixed=False):
    x, out = np.ones(N, np.float32), np.zeros(N, np.float32)
    return launch(lambda x, out: kernel(x, out, fixed), x, out, sanitize=sanitize,
                  outputs=(1,))


def run_fixed(sanitize="check"):
    return run(sanitize, fixed=True)
