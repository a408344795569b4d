"""The convenience functions check their Python arguments as their aclnn API checks tensors:
161001 for a None tensor, 161002 for a non-tensor or an attribute of the wrong type, naming the
parameter (never an AttributeError or TypeError from inside)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ascsim.errors import AclnnError
from kernels_py.logit_grad import logit_grad
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    binary_cross_entropy_with_logits_backward as bce_backward,
)

X = np.full(4, 0.5, np.float32)


def _code(call, *args, **kwargs) -> tuple[int, str]:
    with pytest.raises(AclnnError) as e:
        call(*args, **kwargs)
    return e.value.code, str(e.value)


@pytest.mark.parametrize("args, kwargs, code, name", [
    ((None, X), {}, 161001, "x"),
    ((X, None), {}, 161001, "dy"),
    (([0.1, 0.5], [1, 1]), {}, 161002, "x"),
    ((X, (1.0,) * 4), {}, 161002, "dy"),
    ((X, X), {"eps": "0.1"}, 161002, "eps"),
    ((X, X), {"eps": None}, 161002, "eps"),
    ((X, X), {"eps": True}, 161002, "eps"),
])
def test_logit_grad_arguments(args, kwargs, code: int, name: str) -> None:
    got, message = _code(logit_grad, *args, **kwargs)
    assert got == code and message.split(": ", 1)[1].startswith(name)


def test_logit_grad_takes_any_real_eps() -> None:
    assert logit_grad(X, X, np.float32(0.25)).tolist() == logit_grad(X, X, 0.25).tolist()
    assert logit_grad(X, X, 0).dtype == np.float32


@pytest.mark.parametrize("kwargs, code, name", [
    ({"reduction": None}, 161002, "reduction"),
    ({"reduction": 1.0}, 161002, "reduction"),
    ({"reduction": "bogus"}, 161002, "reduction"),
    ({"reduction": 5}, 161002, "reduction"),          # the API's own range check
    ({"weight": [1.0] * 4}, 161002, "weight"),
    ({"target": None}, 161001, "target"),
    ({"grad_output": None}, 161001, "grad_output"),
])
def test_bce_backward_arguments(kwargs, code: int, name: str) -> None:
    args = {"grad_output": X, "self": X, "target": X, **kwargs}
    got, message = _code(bce_backward, **args)
    assert got == code and name in message


# (self, target) dtypes -> (ascsim's result dtype, PyTorch's): the aclnn API requires out's dtype
# to equal target's; PyTorch's gradient has self's dtype.
DTYPE_RULE = [
    (np.float32, np.float16, np.float16, torch.float32),
    (np.float16, np.float32, np.float32, torch.float16),
    (np.float32, np.float32, np.float32, torch.float32),
]


@pytest.mark.parametrize("self_dtype, target_dtype, ours, theirs", DTYPE_RULE)
def test_bce_backward_result_dtype_is_targets(self_dtype, target_dtype, ours, theirs) -> None:
    x = np.linspace(-2, 2, 8, dtype=np.float32)
    y = np.linspace(0, 1, 8, dtype=np.float32)
    out = bce_backward(np.ones(1, np.float32), x.astype(self_dtype), y.astype(target_dtype),
                       reduction="mean")
    assert out.dtype == np.dtype(ours)
    xt = torch.from_numpy(x.astype(self_dtype)).requires_grad_()
    loss = torch.nn.functional.binary_cross_entropy_with_logits(
        xt, torch.from_numpy(y.astype(target_dtype)).to(xt.dtype))
    loss.backward()
    assert xt.grad.dtype == theirs


@pytest.mark.parametrize("kwargs, code, name", [
    ({"input": None}, 161001, "input"),
    ({"target": None}, 161001, "target"),
    ({"input": [[1.0, 2.0]]}, 161002, "input"),
    ({"weight": [1.0, 1.0]}, 161002, "weight"),
    ({"ignore_index": 1.5}, 161002, "ignore_index"),
    ({"label_smoothing": "0.1"}, 161002, "label_smoothing"),
    ({"reduction": None}, 161002, "reduction"),
    ({"reduction": 3}, 161002, "reduction"),
])
def test_cross_entropy_loss_arguments(kwargs, code: int, name: str) -> None:
    from kernels_py.cross_entropy_loss import cross_entropy_loss
    args = {"input": np.zeros((2, 2), np.float32), "target": np.zeros(2, np.int64), **kwargs}
    got, message = _code(cross_entropy_loss, **args)
    assert got == code and name in message
