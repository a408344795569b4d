"""LogitGrad (`aclnnLogitGrad`): dx = dy / (x (1 - x)) inside [eps, 1 - eps].

Importing the package registers the op's definition, tiling and shape inference, as loading
the op's libraries does in CANN.
"""

from __future__ import annotations

from typing import Any

from ascsim import aclnn as _aclnn
from ascsim.convenience import real_arg, tensor_arg

from . import knobs  # noqa: F401  (tiling knobs for profiling sweeps)
from .op_api.aclnn_logit_grad import aclnnLogitGrad, aclnnLogitGradGetWorkspaceSize
from .op_host import logit_grad_def, logit_grad_infershape, logit_grad_tiling  # noqa: F401

__all__ = ["aclnnLogitGradGetWorkspaceSize", "aclnnLogitGrad", "logit_grad"]


def logit_grad(x: Any, dy: Any, eps: float = -1.0, return_run: bool = False,
               profile: str | None = None, sanitize: str | None = None,
               threads: int | None = None) -> Any:
    """The gradient of logit: a new array like `x` (numpy in, numpy out; torch in, torch out).

    `return_run=True` returns `(out, run)` where `run` is the kernel's ascsim Run (None for
    empty inputs, which launch nothing). `profile`, `sanitize` and `threads` choose the
    simulated hardware, the sanitizer mode and the host threads for this call.

    Bad arguments raise AclnnError with aclnn's code: 161001 for a None tensor, 161002 for a
    tensor that is not a numpy array or torch CPU tensor (lists are refused) or an eps that is
    not a real number."""
    x, dy = tensor_arg(x, "x"), tensor_arg(dy, "dy")
    eps = real_arg(eps, "eps")
    with _aclnn.device(profile, sanitize, threads, keep_runs=return_run):
        out = _aclnn.empty_like(x)
        size, executor = aclnnLogitGradGetWorkspaceSize(x, dy, eps, out)
        aclnnLogitGrad(None, size, executor)
    if return_run:
        return out, (executor.runs[0] if executor.runs else None)
    return out
