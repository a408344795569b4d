"""memcheck: a broadcast input read as a full-size tensor (cann_ops.md §7b.5.2): the kernel
reads dout as N elements, but a reduction-mean caller passes grad_output of shape [1]. The
shipped kernel relies on the aclnn layer to broadcast first; launched directly with the [1]
tensor, it reads past the end of dout."""

import numpy as np

import ascsim
from ascsim.host import kernel_entry
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import tiling_for

from ._corpus import Expect

KERNEL = ("kernels_py/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/"
          "sigmoid_cross_entropy_with_logits_grad_v2_kernel.py")
EXPECT = [Expect("memcheck", "out of range", path=KERNEL,
                 snippet="DataCopyPad(dst, src, copyParams, padParams)")]
STRICT = "OutOfRangeError"


def run(sanitize="check"):
    n = 4096
    rng = np.random.default_rng(4)
    x, y = (rng.uniform(-1, 1, n).astype(np.float32) for _ in range(2))
    dout = np.ones(1, np.float32)  # the [1] grad_output of reduction mean
    t = tiling_for((n,), np.float32, False, False, "mean")
    grad = np.empty_like(x)
    entry = kernel_entry("SigmoidCrossEntropyWithLogitsGradV2")
    return ascsim.launch(entry, t.block_dim, x, y, dout, None, None, grad,
                         np.zeros(max(t.workspace, 1), np.uint8), tiling=t.data,
                         tiling_key=t.tiling_key, sanitize=sanitize, outputs=(5,))


def run_fixed(sanitize="check"):
    n = 4096
    rng = np.random.default_rng(4)
    x, y = (rng.uniform(-1, 1, n).astype(np.float32) for _ in range(2))
    dout = np.ones(n, np.float32)  # FIXED: broadcast to N first, as the aclnn layer does
    t = tiling_for((n,), np.float32, False, False, "mean")
    grad = np.empty_like(x)
    entry = kernel_entry("SigmoidCrossEntropyWithLogitsGradV2")
    return ascsim.launch(entry, t.block_dim, x, y, dout, None, None, grad,
                         np.zeros(max(t.workspace, 1), np.uint8), tiling=t.data,
                         tiling_key=t.tiling_key, sanitize=sanitize, outputs=(5,))
