# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""initcheck: half of a VECOUT tensor is computed, all of it is stored: the other half holds
whatever AllocTensor left there."""

from ascsim.ascendc import *

from ._corpus import Expect, f32, gm, launch

EXPECT = [Expect("initcheck", "uninitialised value reaches GM")]
STRICT = "UninitialisedError"


def kernel(x, out):
    pipe = TPipe()
    inQue = TQue[QuePosition.VECIN, 1]()
    outQue = TQue[QuePosition.VECOUT, 1]()
    pipe.InitBuffer(inQue, 1, 1024)
    pipe.InitBuffer(outQue, 1, 1024)
    a = inQue.AllocTensor[float]()
    DataCopy(a, gm(x, float), 256)
    inQue.EnQue(a)
    a = inQue.DeQue[float]()
    y = outQue.AllocTensor[float]()
    Muls(y, a, 2.0, 128)
    outQue.EnQue(y)
    inQue.FreeTensor(a)
    y = outQue.DeQue[float]()
    DataCopy(gm(out, float), y, 256)  # BUG: elements 128..255 were never written
    outQue.FreeTensor(y)


def run(sanitize="check"):
    return launch(kernel, f32(256), f32(256), outputs=(1,), sanitize=sanitize)


def kernel_fixed(x, out):
    pipe = TPipe()
    inQue = TQue[QuePosition.VECIN, 1]()
    outQue = TQue[QuePosition.VECOUT, 1]()
    pipe.InitBuffer(inQue, 1, 1024)
    pipe.InitBuffer(outQue, 1, 1024)
    a = inQue.AllocTensor[float]()
    DataCopy(a, gm(x, float), 256)
    inQue.EnQue(a)
    a = inQue.DeQue[float]()
    y = outQue.AllocTensor[float]()
    Muls(y, a, 2.0, 256)  # FIXED: every element the store reads
    outQue.EnQue(y)
    inQue.FreeTensor(a)
    y = outQue.DeQue[float]()
    DataCopy(gm(out, float), y, 256)
    outQue.FreeTensor(y)


def run_fixed(sanitize="check"):
    return launch(kernel_fixed, f32(256), f32(256), outputs=(1,), sanitize=sanitize)
