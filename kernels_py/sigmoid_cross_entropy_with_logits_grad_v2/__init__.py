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
from ascsim.errors import ACLNN_ERR_PARAM_INVALID, AclnnError

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

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_code(reduction: str | int) -> int:
    if isinstance(reduction, str):
        code = REDUCTIONS.get(reduction.lower())
        if code is None:
            raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"reduction {reduction!r} should be "
                             "'none', 'mean' or 'sum' (or 0, 1, 2)")
        return code
    return int(reduction)  # out-of-range ints are reported by the API's reduction check


def binary_cross_entropy_with_logits_backward(
        grad_output: Any, self: Any, target: Any, weight: Any = None, pos_weight: Any = None,
        reduction: str | int = "mean", return_run: bool = False, profile: str | None = None,
        sanitize: str | None = None, threads: int | None = None) -> Any:
    """d loss / d self for `loss = binary_cross_entropy_with_logits(self, target, weight,
    pos_weight, reduction)` with upstream gradient `grad_output`: a new array of self's shape
    and target's dtype (numpy in, numpy out; torch in, torch out; bf16 as ml_dtypes.bfloat16).

    `reduction` is "none" / "mean" / "sum" or the aclnn int 0 / 1 / 2. grad_output, weight and
    pos_weight may be any shape that broadcasts to self's (e.g. [1] for mean/sum). Mixed dtypes
    are promoted as PyTorch does. `return_run=True` returns `(out, run)` (run is None for an
    empty self, which launches nothing). `profile`, `sanitize` and `threads` choose the
    simulated hardware, the sanitizer mode and the host threads for this call."""
    code = _reduction_code(reduction)
    with _aclnn.device(profile, sanitize, threads):
        # out has self's shape and target's dtype; a missing input is reported by the API
        out = None if self is None or target is None else _aclnn.empty_like(self, target.dtype)
        size, executor = aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
            grad_output, self, target, weight, pos_weight, code, out)
        aclnnBinaryCrossEntropyWithLogitsBackward(None, size, executor)
    if return_run:
        return out, (executor.runs[0] if executor.runs else None)
    return out
