"""CrossEntropyLoss (`aclnnCrossEntropyLoss`): log_prob = log_softmax(input) per row and the
(weighted, label-smoothed) negative log-likelihood of the targets, reduced by none / mean /
sum, as torch.nn.functional.cross_entropy.

Two ways in:
- `cross_entropy_loss(...)`: the convenience call (numpy or torch in, the same out), through
  the aclnn API; returns the loss torch-shaped ((N) for none, 0-D for mean and sum);
- `aclnnCrossEntropyLossGetWorkspaceSize` / `aclnnCrossEntropyLoss`: the aclnn pair, which
  writes the operator's outputs: loss ((N) for none, (1) otherwise) and log_prob (N, C).

Importing the package registers the op's definition, tiling and shape inference, as loading
the op's libraries does in CANN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ascsim import aclnn as _aclnn
from ascsim.convenience import integer_arg, real_arg, reduction_name, tensor_arg

from . import knobs  # noqa: F401  (tiling knobs for profiling sweeps)
from .op_api.aclnn_cross_entropy_loss import (
    aclnnCrossEntropyLoss,
    aclnnCrossEntropyLossGetWorkspaceSize,
)
from .op_host import (  # noqa: F401
    cross_entropy_loss_def,
    cross_entropy_loss_infershape,
    cross_entropy_loss_tiling,
)

__all__ = ["aclnnCrossEntropyLossGetWorkspaceSize", "aclnnCrossEntropyLoss",
           "cross_entropy_loss"]

def _empty(template: Any, shape: tuple[int, ...]) -> Any:
    if type(template).__module__.startswith("torch"):
        import torch
        return torch.empty(shape, dtype=template.dtype)
    return np.empty(shape, dtype=np.asarray(template).dtype)


def cross_entropy_loss(input: Any, target: Any, weight: Any = None,
                       reduction: str | int = "mean", ignore_index: int = -100,
                       label_smoothing: float = 0.0, return_run: bool = False,
                       profile: str | None = None, sanitize: str | None = None,
                       threads: int | None = None) -> Any:
    """The cross-entropy loss of logits `input` (N, C) against int64 class indices `target`
    (N), like torch.nn.functional.cross_entropy: a new array in input's dtype (numpy in, numpy
    out; torch in, torch out; bf16 as ml_dtypes.bfloat16), shaped (N) for reduction "none"
    and 0-D for "mean" and "sum" (the operator's own loss is (1): use the aclnn pair for it
    and for log_prob). `reduction` is "none" / "mean" / "sum" or 0 / 1 / 2. A target that is
    neither ignore_index nor in [0, C) gives NaN (that row's loss, and the mean / sum).
    Bad arguments raise AclnnError as the other convenience functions do (ascsim.convenience:
    161001 for a None tensor, 161002 for a non-tensor or a mistyped attribute).
    `return_run=True` returns `(loss, run)` (run is None for N = 0, which launches nothing).
    `profile`, `sanitize` and `threads` choose the simulated hardware, the sanitizer mode and
    the host threads for this call."""
    input, target = tensor_arg(input, "input"), tensor_arg(target, "target")
    weight = tensor_arg(weight, "weight", optional=True)
    name = reduction_name(reduction)
    ignore_index = integer_arg(ignore_index, "ignore_index")
    label_smoothing = real_arg(label_smoothing, "label_smoothing")
    with _aclnn.device(profile, sanitize, threads, keep_runs=return_run):
        n = (tuple(input.shape) + (0,))[0]
        loss = _empty(input, (n,) if name == "none" else (1,))
        log_prob = _empty(input, tuple(input.shape))
        zloss = _empty(input, (1,))
        lse = _empty(input, (n,))
        size, executor = aclnnCrossEntropyLossGetWorkspaceSize(
            input, target, weight, name, ignore_index, label_smoothing, 0.0, False,
            loss, log_prob, zloss, lse)
        aclnnCrossEntropyLoss(None, size, executor)
    if name != "none":
        loss = loss.reshape(())
    if return_run:
        return loss, (executor.runs[0] if executor.runs else None)
    return loss
