"""SigmoidCrossEntropyWithLogitsGradV2 (`aclnnBinaryCrossEntropyWithLogitsBackward`): the
gradient of binary cross-entropy with logits w.r.t. the logits,
  p = sigmoid(x); g = p - y, or (pw*y + 1 - y) * p - pw*y with pos_weight;
  grad = g * grad_output [* weight] [/ N for reduction mean].

Three ways in:
- `binary_cross_entropy_with_logits_backward(...)`: the convenience call (numpy or torch in,
  the same out), through the aclnn API;
- `aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize` / `...Backward`: the aclnn pair;
- `run_kernel(...)` / `tiling_for(...)`: the kernel and its tiling without the aclnn layer, to
  reach each of the four template variants (see `direct`).

Importing the package registers the op's definition, tiling and shape inference, as loading
the op's libraries does in CANN.
"""

from __future__ import annotations

from typing import Any

from ascsim import aclnn as _aclnn
from ascsim.convenience import REDUCTIONS, reduction_arg, tensor_arg

from . import knobs  # noqa: F401  (tiling knobs for profiling sweeps)
from .direct import run_kernel, tiling_for
from .op_api.aclnn_binary_cross_entropy_with_logits_backward import (
    aclnnBinaryCrossEntropyWithLogitsBackward,
    aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize,
)
from .op_host import (  # noqa: F401
    sigmoid_cross_entropy_with_logits_grad_v2_def,
    sigmoid_cross_entropy_with_logits_grad_v2_infershape,
    sigmoid_cross_entropy_with_logits_grad_v2_tiling,
)

__all__ = ["aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize",
           "aclnnBinaryCrossEntropyWithLogitsBackward",
           "binary_cross_entropy_with_logits_backward", "run_kernel", "tiling_for",
           "REDUCTIONS"]


def binary_cross_entropy_with_logits_backward(
        grad_output: Any, self: Any, target: Any, weight: Any = None, pos_weight: Any = None,
        reduction: str | int = "mean", return_run: bool = False, profile: str | None = None,
        sanitize: str | None = None, threads: int | None = None) -> Any:
    """d loss / d self for `loss = binary_cross_entropy_with_logits(self, target, weight,
    pos_weight, reduction)` with upstream gradient `grad_output`: a new array of self's shape
    (numpy in, numpy out; torch in, torch out; bf16 as ml_dtypes.bfloat16).

    Its dtype is target's, because the aclnn API requires out's dtype to equal target's; the
    kernel computes in the type PyTorch's promotion of all the inputs gives, and the result is
    then cast to target's dtype. (PyTorch's autograd gives self's dtype: with self float32 and
    target float16, PyTorch returns float32 and ascsim float16; see the README.)

    `reduction` is "none" / "mean" / "sum" or the aclnn int 0 / 1 / 2. grad_output, weight and
    pos_weight may be any shape that broadcasts to self's (e.g. [1] for mean/sum). Mixed dtypes
    are promoted as described above. `return_run=True` returns `(out, run)` (run is None for an
    empty self, which launches nothing). `profile`, `sanitize` and `threads` choose the
    simulated hardware, the sanitizer mode and the host threads for this call."""
    grad_output, self = tensor_arg(grad_output, "grad_output"), tensor_arg(self, "self")
    target = tensor_arg(target, "target")
    weight = tensor_arg(weight, "weight", optional=True)
    pos_weight = tensor_arg(pos_weight, "pos_weight", optional=True)
    code = reduction_arg(reduction)
    with _aclnn.device(profile, sanitize, threads, keep_runs=return_run):
        out = _aclnn.empty_like(self, target.dtype)  # self's shape, target's dtype
        size, executor = aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
            grad_output, self, target, weight, pos_weight, code, out)
        aclnnBinaryCrossEntropyWithLogitsBackward(None, size, executor)
    if return_run:
        return out, (executor.runs[0] if executor.runs else None)
    return out
