# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck: the public SigmoidCrossEntropyWithLogitsGradV2 work split (cann_ops.md §7b.5.1)
counts whole 32-byte blocks of the padded length, so the last core reads every input and
writes the gradient past the end of the tensors (N = 100 floats: 104 are moved). ascsim's
kernel cuts the last core back to N; this variant leaves that cut out."""

import numpy as np
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2.op_kernel.\
    sigmoid_cross_entropy_with_logits_grad_v2_kernel import (
    KernelSigmoidCrossEntropyWithLogitsGradV2 as Shipped,
)

import ascsim
from ascsim.ascendc import *
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import tiling_for

from ._corpus import Expect

KERNEL = ("kernels_py/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/"
          "sigmoid_cross_entropy_with_logits_grad_v2_kernel.py")
EXPECT = [Expect("memcheck", "out of range", path=KERNEL,
                 snippet="DataCopyPad(dst, src, copyParams, padParams)"),
          Expect("memcheck", "out of range", path=KERNEL,
                 snippet="DataCopyPad(self.gradientGm_[offset], gradientLocal, copyParams)")]
STRICT = "OutOfRangeError"


class PublicSplit(Shipped):
    def Init(self, predict, target, dout, weight, posWeight, gradient, tiling):
        super().Init(predict, target, dout, weight, posWeight, gradient, tiling)
        blockIdx = GetBlockIdx()
        # the public split: no cut back to totalDataNum on the last core
        if blockIdx < tiling.tailBlockNum:
            self.coreDataNum_ = tiling.bigCoreDataNum
            self.tailDataNum_ = tiling.bigTailDataNum
        else:
            self.coreDataNum_ = tiling.smallCoreDataNum
            self.tailDataNum_ = tiling.smallTailDataNum


def public_split(predict, target, dout, weight, posWeight, gradient, workspace, tiling):
    tilingData = GET_TILING_DATA(tiling)
    op = PublicSplit[float, False, False]()
    op.Init(predict, target, dout, weight, posWeight, gradient, tilingData)
    op.Process()


def run(sanitize="check"):
    n = 100
    rng = np.random.default_rng(3)
    x, y, d = (rng.uniform(-1, 1, n).astype(np.float32) for _ in range(3))
    t = tiling_for((n,), np.float32, False, False, "none")
    grad = np.empty_like(x)
    return ascsim.launch(public_split, t.block_dim, x, y, d, None, None, grad,
                         np.zeros(max(t.workspace, 1), np.uint8), tiling=t.data,
                         tiling_key=t.tiling_key, sanitize=sanitize, outputs=(5,))


def shipped_split(predict, target, dout, weight, posWeight, gradient, workspace, tiling):
    tilingData = GET_TILING_DATA(tiling)
    op = Shipped[float, False, False]()  # FIXED: the last core cut back to N
    op.Init(predict, target, dout, weight, posWeight, gradient, tilingData)
    op.Process()


def run_fixed(sanitize="check"):
    n = 100
    rng = np.random.default_rng(3)
    x, y, d = (rng.uniform(-1, 1, n).astype(np.float32) for _ in range(3))
    t = tiling_for((n,), np.float32, False, False, "none")
    grad = np.empty_like(x)
    return ascsim.launch(shipped_split, t.block_dim, x, y, d, None, None, grad,
                         np.zeros(max(t.workspace, 1), np.uint8), tiling=t.data,
                         tiling_key=t.tiling_key, sanitize=sanitize, outputs=(5,))
