"""The shipped operators under each non-default numerics option (a profile built from the
default with that one option changed): where the option does not touch the op's instructions
the output is its numpy model's bit for bit; where it does (SCE: Exp; LogitGrad: Div;
MSELoss: ReduceSum; CrossEntropyLoss: Exp, Ln (Log), WholeReduceSum and BlockReduceSum), the
output stays within the CANN op-test tolerance of the torch reference
(ascsim.testing.tolerance.default_tolerance), and on these inputs it changes (CHANGES).

SCE divides 1 by 1 + e**-x: under div_impl = reciprocal_mul that is 1 * fl(1/y), the IEEE
quotient again, so div_impl does not change SCE. CrossEntropyLoss with three classes sums
(a + b) + (c + 0) pairwise and ((a + b) + c) + 0 in order, the same bits: its 64-class case
shows reduce_tree, its 3-class case the exp and ln of each class. No shipped op calls Sigmoid
or Tanh, so advmath_impl leaves all four bit for bit as their models."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ascsim.profile import load_profile
from ascsim.testing.tolerance import default_tolerance, tolerance_mismatch
from kernels_py.cross_entropy_loss import cross_entropy_loss
from kernels_py.cross_entropy_loss import reference as ce_ref
from kernels_py.logit_grad import logit_grad
from kernels_py.logit_grad import reference as lg_ref
from kernels_py.mse_loss_v2 import mse_loss
from kernels_py.mse_loss_v2 import reference as mse_ref
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    binary_cross_entropy_with_logits_backward as sce,
)
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import reference as sce_ref

pytest.importorskip("torch")

F32 = np.float32
ALTERNATIVES = {"exp_impl": "fp32_poly", "ln_impl": "fp32_poly", "sqrt_impl": "rsqrt_mul",
                "reciprocal_impl": "estimate_newton", "div_impl": "reciprocal_mul",
                "reduce_tree": "sequential", "advmath_impl": "reciprocal"}
_CE_OPTS = {"exp_impl", "ln_impl", "reduce_tree"}
TOUCHES = {"LogitGrad": {"div_impl"}, "SCE": {"exp_impl", "div_impl"},
           "MSELoss": {"reduce_tree"}, "CrossEntropyLoss": _CE_OPTS, "CrossEntropyLoss64": _CE_OPTS}
CHANGES = {"LogitGrad": {"div_impl"}, "SCE": {"exp_impl"}, "MSELoss": {"reduce_tree"},
           "CrossEntropyLoss": {"exp_impl", "ln_impl"}, "CrossEntropyLoss64": {"reduce_tree"}}

_rng = np.random.default_rng(2026)
_LG = (_rng.uniform(0.01, 0.99, 3000).astype(F32), _rng.standard_normal(3000).astype(F32))
_SCE = (_rng.standard_normal(3000).astype(F32), _rng.uniform(-6, 6, 3000).astype(F32),
        _rng.uniform(0, 1, 3000).astype(F32))
_mse_rng = np.random.default_rng(3)
_MSE = ((_mse_rng.standard_normal(20000) * 8).astype(F32),
        _mse_rng.standard_normal(20000).astype(F32))
# three classes: each exp and the log of their sum reach the loss (a long sum hides an ULP)
_ce_rng = np.random.default_rng(1)
_CE = ((_ce_rng.standard_normal((256, 3)) * 4).astype(F32), _ce_rng.integers(0, 3, 256))
_CE64 = ((_ce_rng.standard_normal((64, 64)) * 4).astype(F32), _ce_rng.integers(0, 64, 64))


def _run(op: str, profile) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(output, numpy model, torch reference) of `op` on fixed float32 inputs."""
    if op == "LogitGrad":
        x, dy = _LG
        return (logit_grad(x, dy, profile=profile), lg_ref.numpy_model(x, dy),
                lg_ref.torch_reference(x, dy))
    if op == "SCE":
        g, x, y = _SCE
        return (sce(g, x, y, reduction="none", profile=profile),
                sce_ref.numpy_model(g, x, y, reduction="none"),
                sce_ref.torch_reference(g, x, y, reduction="none").astype(F32))
    if op == "MSELoss":
        x, y = _MSE
        return (np.asarray(mse_loss(x, y, "sum", profile=profile)).reshape(-1),
                np.asarray(mse_ref.numpy_model(x, y, "sum")).reshape(-1),
                np.asarray(mse_ref.torch_reference(x, y, "sum")).astype(F32).reshape(-1))
    x, t = _CE64 if op == "CrossEntropyLoss64" else _CE
    return (cross_entropy_loss(x, t, reduction="none", profile=profile),
            ce_ref.numpy_model(x, t, reduction="none")[0],
            ce_ref.torch_reference(x, t, reduction="none")[0])


@pytest.mark.parametrize("op", sorted(TOUCHES))
def test_ops_under_each_alternative(op: str) -> None:
    default = load_profile()
    out, model, torch_ref = _run(op, default)
    assert np.array_equal(out.view(np.uint32), model.view(np.uint32)), op
    tol = default_tolerance(np.dtype(F32))
    for option, value in ALTERNATIVES.items():
        got, _, _ = _run(op, dataclasses.replace(default, **{option: value}))
        same = np.array_equal(got.view(np.uint32), model.view(np.uint32))
        if option not in TOUCHES[op]:
            assert same, (op, option)
            continue
        assert not (same and option in CHANGES[op]), (op, option, "the output should change")
        assert tolerance_mismatch(got, torch_ref, tol) is None, (op, option)
