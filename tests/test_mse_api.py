"""aclnnMseLoss / mse_loss: the public example, the op_api UT cases (success paths, every
error code in the documented check order), empty inputs, broadcasting, promotion, torch and
bf16 in and out, non-contiguous inputs and outputs, and that inputs are never modified."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ascsim.errors import AclnnError
from kernels_py.mse_loss_v2 import aclnnMseLoss, aclnnMseLossGetWorkspaceSize, mse_loss
from kernels_py.mse_loss_v2.reference import numpy_model

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)


def bits(a) -> np.ndarray:
    a = np.ascontiguousarray(np.asarray(a)).reshape(-1)
    return a.view(np.uint8)


def call(self, target, reduction, out):
    size, executor = aclnnMseLossGetWorkspaceSize(self, target, reduction, out)
    aclnnMseLoss(None, size, executor)
    return executor


def test_public_example():
    """examples/test_aclnn_mse_loss_v2.cpp: fp32 (2, 2) self {0, 1, 2, 3}, target ones, mean,
    out []. The fact sheet records the expected value as 0.5; the MSE of these inputs is
    ((-1)^2 + 0 + 1 + 2^2) / 4 = 1.5 (torch agrees); 0.5 is mean(self - target). The kernel
    gives 1.5 (README, MSELossV2 disagreement table)."""
    x = np.array([[0, 1], [2, 3]], F32)
    y = np.ones((2, 2), F32)
    out = np.empty((), F32)
    call(x, y, 1, out)
    assert out == np.float32(1.5)
    import torch
    assert torch.nn.functional.mse_loss(torch.tensor(x), torch.tensor(y)).item() == 1.5


@pytest.mark.parametrize("reduction", ["none", "mean", "sum", 0, 1, 2, "MEAN"])
def test_reduction_as_string_or_int(reduction):
    rng = np.random.default_rng(1)
    x, y = (rng.uniform(-1, 1, (3, 50)).astype(F32) for _ in range(2))
    out = mse_loss(x, y, reduction)
    name = {0: "none", 1: "mean", 2: "sum"}.get(reduction, str(reduction).lower())
    assert out.shape == ((3, 50) if name == "none" else ())
    assert np.array_equal(bits(out), bits(numpy_model(x, y, name)))


def test_torch_and_bf16_in_and_out():
    import torch
    rng = np.random.default_rng(2)
    x = torch.tensor(rng.uniform(-1, 1, 300), dtype=torch.bfloat16)
    y = torch.tensor(rng.uniform(-1, 1, 300), dtype=torch.bfloat16)
    for red in ("none", "mean", "sum"):
        out = mse_loss(x, y, red)
        assert isinstance(out, torch.Tensor) and out.dtype == torch.bfloat16
        want = numpy_model(x.view(torch.int16).numpy().view(BF16),
                           y.view(torch.int16).numpy().view(BF16), red)
        assert np.array_equal(out.view(torch.int16).numpy().reshape(-1).view(np.uint8),
                              bits(want))
    out = mse_loss(torch.ones(4, dtype=torch.float16), torch.zeros(4), "sum")
    assert out.dtype == torch.float32 and out.shape == () and out.item() == 4.0


@pytest.mark.parametrize("a, b, want", [(F32, F16, F32), (F16, F32, F32), (F16, BF16, F32),
                                        (BF16, F32, F32), (F16, F16, F16)])
def test_promotion(a, b, want):
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, 77).astype(a)
    y = rng.uniform(-1, 1, 77).astype(b)
    out = mse_loss(x, y, "sum")
    assert out.dtype == want
    assert np.array_equal(bits(out), bits(numpy_model(x, y, "sum")))


def test_out_dtype_differs_from_the_promoted_one():
    x = np.linspace(-1, 1, 100).astype(F32)
    y = np.zeros(100, F32)
    out = np.empty((), F16)
    call(x, y, 2, out)
    assert out.dtype == F16
    assert bits(out).tobytes() == bits(numpy_model(x, y, "sum", out_dtype=F16)).tobytes()


def test_broadcast_op_api_ut_shapes():
    # fp32 (1, 2, 3, 2) against (2, 2, 1, 2), none -> (2, 2, 3, 2)
    rng = np.random.default_rng(4)
    x = rng.uniform(-1, 1, (1, 2, 3, 2)).astype(F32)
    y = rng.uniform(-1, 1, (2, 2, 1, 2)).astype(F32)
    out = mse_loss(x, y, "none")
    assert out.shape == (2, 2, 3, 2)
    assert np.array_equal(out, (x - y) ** 2)
    assert np.array_equal(bits(mse_loss(x, y, "mean")), bits(numpy_model(x, y, "mean")))


def test_empty_inputs_fill_or_leave_out():
    x = np.zeros((1, 0, 1, 2), F32)
    out, run = mse_loss(x, x, "none", return_run=True)
    assert out.shape == (1, 0, 1, 2) and run is None
    for red, dtype, check in (("mean", F32, np.isnan), ("sum", F32, lambda v: v == 0),
                              ("mean", F16, np.isnan), ("sum", BF16, lambda v: v == 0)):
        o = np.full((), 7, dtype)
        ex = call(x.astype(dtype), x.astype(dtype), {"mean": 1, "sum": 2}[red], o)
        assert not ex.runs and check(o.astype(F32))
    # an empty target against a broadcastable self: the broadcast shape is empty too
    o = np.full((), 7, F32)
    call(np.ones((3, 1), F32), np.ones((0,), F32), 2, o)
    assert o == 0


def test_non_contiguous_input_and_output_view():
    # the op_api UT's (5, 4) with strides {1, 5}: a transposed view
    rng = np.random.default_rng(5)
    base = rng.uniform(-1, 1, (4, 5)).astype(F32)
    x = base.T
    y = rng.uniform(-1, 1, (5, 4)).astype(F32)
    holder = np.zeros((5, 8), F32)
    out = holder[:, ::2]
    call(x, y, 0, out)
    assert np.array_equal(out, (np.ascontiguousarray(x) - y) ** 2)
    assert not holder[:, 1::2].any()


def test_inputs_are_not_modified():
    rng = np.random.default_rng(6)
    x = rng.uniform(-1, 1, 1000).astype(F16)
    y = rng.uniform(-1, 1, (1,)).astype(F32)
    xs, ys = x.copy(), y.copy()
    for red in ("none", "mean", "sum"):
        mse_loss(x, y, red)
    assert np.array_equal(bits(x), bits(xs)) and np.array_equal(bits(y), bits(ys))


def _code(fn) -> int:
    with pytest.raises(AclnnError) as info:
        fn()
    return info.value.code


def test_error_codes_in_check_order():
    x = np.ones((11, 2), F32)
    o0 = np.empty((), F32)
    assert _code(lambda: aclnnMseLossGetWorkspaceSize(None, x, 1, o0)) == 161001
    assert _code(lambda: aclnnMseLossGetWorkspaceSize(x, None, 1, o0)) == 161001
    assert _code(lambda: aclnnMseLossGetWorkspaceSize(x, x, 1, None)) == 161001
    # dtypes: inputs, out, and a promoted type outside the list
    assert _code(lambda: aclnnMseLossGetWorkspaceSize(x.astype(np.int32), x, 1, o0)) == 161002
    assert _code(lambda: aclnnMseLossGetWorkspaceSize(x.astype(np.int16), x.astype(np.int16),
                                                      1, o0)) == 161002
    assert _code(lambda: aclnnMseLossGetWorkspaceSize(x, x, 1, o0.astype(np.int32))) == 161002
    assert _code(lambda: aclnnMseLossGetWorkspaceSize(x, x, 1, o0.astype(np.float64))) == 161002
    # reduction
    for r in (3, -1):
        assert _code(lambda r=r: aclnnMseLossGetWorkspaceSize(x, x, r, o0)) == 161002
    # shapes: 9-D, no broadcast, none with a wrong out, mean/sum with rank >= 1 out
    nine = np.ones((1,) * 9, F32)
    assert _code(lambda: aclnnMseLossGetWorkspaceSize(nine, nine, 1, o0)) == 161002
    assert _code(lambda: aclnnMseLossGetWorkspaceSize(x, np.ones((3,), F32), 1, o0)) == 161002
    assert _code(lambda: aclnnMseLossGetWorkspaceSize(x, x, 0, np.empty((8, 2), F32))) == 161002
    assert _code(lambda: aclnnMseLossGetWorkspaceSize(x, x, 1, np.empty((2,), F32))) == 161002
    assert _code(lambda: aclnnMseLossGetWorkspaceSize(x, x, 2, np.empty((1,), F32))) == 161002
    # order: a bad dtype is reported before a bad reduction, a bad reduction before a shape
    assert _code(lambda: aclnnMseLossGetWorkspaceSize(x.astype(np.int32), x, 9, o0)) == 161002
    with pytest.raises(AclnnError, match="reduction"):
        aclnnMseLossGetWorkspaceSize(x, x, 9, np.empty((2,), F32))
    with pytest.raises(AclnnError, match="dtype"):
        aclnnMseLossGetWorkspaceSize(x.astype(np.int32), x, 9, o0)
    with pytest.raises(AclnnError) as info:
        mse_loss(x, x, "avg")
    assert info.value.code == 161002


def test_bf16_needs_a_profile_with_bf16(no_bf16_profile):
    x = np.ones(8, BF16)
    assert mse_loss(x, x, "sum") == 0  # the default profile (Ascend910B2) has bf16
    with pytest.raises(AclnnError, match="dtype support list") as info:
        mse_loss(x, x, "sum", profile=no_bf16_profile)
    assert info.value.code == 161002
    assert mse_loss(np.ones(8, F16), np.zeros(8, F16), "sum", profile=no_bf16_profile) == 8


@pytest.mark.parametrize("args, kwargs, code, name", [
    ((None, np.ones(4, F32)), {}, 161001, "self"),
    ((np.ones(4, F32), None), {}, 161001, "target"),
    (([0.1, 0.5], np.ones(2, F32)), {}, 161002, "self"),
    ((np.ones(2, F32), (1.0, 1.0)), {}, 161002, "target"),
    ((np.ones(2, F32), np.ones(2, F32)), {"reduction": None}, 161002, "reduction"),
    ((np.ones(2, F32), np.ones(2, F32)), {"reduction": 1.0}, 161002, "reduction"),
    ((np.ones(2, F32), np.ones(2, F32)), {"reduction": True}, 161002, "reduction"),
])
def test_convenience_arguments(args, kwargs, code, name):
    """Python arguments get the aclnn code the API would give, naming the parameter."""
    with pytest.raises(AclnnError) as info:
        mse_loss(*args, **kwargs)
    assert info.value.code == code and name in str(info.value)
