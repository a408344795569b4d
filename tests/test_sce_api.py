"""aclnnBinaryCrossEntropyWithLogitsBackward: the six checks in their order with their codes,
empty inputs, broadcasting (gradOutput [1] with mean and sum, weight / pos_weight per class),
promotion and the cast to out's dtype, missing weights as ones, storage formats,
non-contiguous inputs and outputs, the bf16 gate of the hardware profile, and the convenience
call's numpy / torch round trip."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ascsim import AclnnError
from ascsim.aclnn import aclTensor
from ascsim.compare import first_mismatch
from ascsim.host import DataType, Format
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    aclnnBinaryCrossEntropyWithLogitsBackward,
    aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize,
    binary_cross_entropy_with_logits_backward,
)
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2.reference import numpy_model

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
GE = {F32: DataType.DT_FLOAT, F16: DataType.DT_FLOAT16, BF16: DataType.DT_BF16,
      np.dtype(np.int64): DataType.DT_INT64, np.dtype(np.float64): DataType.DT_DOUBLE}
get_workspace = aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize
bce_backward = binary_cross_entropy_with_logits_backward


def rand(shape, dtype=F32, lo=-1.0, hi=1.0, seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform(lo, hi, shape).astype(np.float32).astype(dtype)


def tensors(shape=(4, 6), dtype=F32):
    return (rand((1,), dtype, seed=1), rand(shape, dtype, seed=2), rand(shape, dtype, 0, 1, 3),
            rand(shape, dtype, seed=4), rand(shape, dtype, seed=5), np.empty(shape, dtype))


def call(grad, x, y, w, pw, reduction, out):
    """The two phases; returns the executor."""
    size, executor = get_workspace(grad, x, y, w, pw, reduction, out)
    aclnnBinaryCrossEntropyWithLogitsBackward(None, size, executor)
    return executor


def check(grad, x, y, w=None, pw=None, reduction=1, out=None):
    out = np.empty(np.shape(x), np.asarray(y).dtype) if out is None else out
    call(grad, x, y, w, pw, reduction, out)
    expected = numpy_model(grad, x, y, w, pw, reduction)
    mismatch = first_mismatch(np.asarray(out), expected)
    assert mismatch is None, f"vs numpy model: {mismatch}"
    return out


def raises(code: int, match: str, *args) -> None:
    with pytest.raises(AclnnError, match=match) as info:
        get_workspace(*args)
    assert info.value.code == code


# ---- check 1: null pointers -> 161001 ---------------------------------------------------------

@pytest.mark.parametrize("missing", [0, 1, 2, 6], ids=["gradOutput", "self", "target", "out"])
def test_null_is_161001(missing):
    args = list(tensors()[:5]) + [1, tensors()[5]]
    args[missing] = None
    name = ("gradOutput", "self", "target", None, None, None, "out")[missing]
    raises(161001, f"{name} must not be nullptr", *args)


def test_null_is_checked_before_anything_else():
    g, x, y, w, pw, out = tensors()
    raises(161001, "target", g, x, None, w, rand((1,) * 9), 7, out.astype(np.int64))


def test_optional_weights_may_be_null():
    g, x, y, _, _, _ = tensors()
    check(g, x, y, None, None)


# ---- checks 2..6: 161002, in order -------------------------------------------------------------

@pytest.mark.parametrize("which", [0, 1, 2, 3, 4, 6],
                         ids=["gradOutput", "self", "target", "weight", "posWeight", "out"])
def test_rank_above_8_is_161002(which):
    shape8 = (1, 1, 1, 2, 1, 1, 1, 3)
    args = [rand((1,)), rand(shape8), rand(shape8, lo=0), rand(shape8), rand(shape8), 1,
            np.empty(shape8, F32)]
    args[which] = rand((1,) * 9 if which in (0, 3, 4) else shape8 + (1,))  # rank 9
    name = ("gradOutput", "self", "target", "weight", "posWeight", None, "out")[which]
    raises(161002, f"{name} rank", *args)


def test_rank_8_is_accepted():
    shape8 = (2, 1, 3, 1, 2, 1, 1, 2)
    check(rand((1,)), rand(shape8), rand(shape8, lo=0), rand(shape8), rand(shape8), 2)


@pytest.mark.parametrize("which", [0, 1, 2, 3, 4, 6],
                         ids=["gradOutput", "self", "target", "weight", "posWeight", "out"])
@pytest.mark.parametrize("bad", [np.int64, np.float64], ids=["int64", "float64"])
def test_dtype_outside_the_list_is_161002(which, bad):
    args = list(tensors()[:5]) + [1, tensors()[5]]
    args[which] = args[which].astype(bad)
    if which == 2:  # out must follow target: change both, so that the dtype check is the reason
        args[6] = args[6].astype(bad)
    name = ("gradOutput", "self", "target", "weight", "posWeight", None, "out")[which]
    raises(161002, f"{name} dtype", *args)


def test_out_dtype_must_equal_target_dtype_not_self_dtype():
    g, x, y, w, pw, _ = tensors()
    # out like self but not like target: refused (the docs say self; the code checks target)
    raises(161002, "out dtype DT_FLOAT should be the same as target dtype DT_FLOAT16",
           g, x, y.astype(F16), w, pw, 1, np.empty(x.shape, F32))
    out = check(g, x, y.astype(F16), w, pw, 1, np.empty(x.shape, F16))
    assert out.dtype == F16


def test_dtype_is_checked_before_format_shape_and_reduction():
    g, x, y, w, pw, out = tensors()
    t = aclTensor(y.astype(np.int64), DataType.DT_INT64, Format.FORMAT_NCHW)
    raises(161002, "target dtype", g, x, t, w[:2], pw, 9, out.astype(np.int64))


def test_rank_is_checked_before_dtype():
    g, x, y, w, pw, out = tensors()
    raises(161002, "weight rank", g, x, y.astype(np.int64), rand((1,) * 9), pw, 1, out)


def fmt(a: np.ndarray, f: Format) -> aclTensor:
    return aclTensor(a, GE[a.dtype], f)


@pytest.mark.parametrize("f", [Format.FORMAT_NC1HWC0, Format.FORMAT_FRACTAL_Z, Format.FORMAT_NCHW,
                               Format.FORMAT_ND])
def test_one_storage_format_of_any_kind_is_accepted(f):
    g, x, y, w, pw, out = tensors((2, 3, 4, 5))
    size, executor = get_workspace(g, fmt(x, f), fmt(y, f), w, pw, 0, fmt(out, f))
    aclnnBinaryCrossEntropyWithLogitsBackward(None, size, executor)
    assert first_mismatch(out, numpy_model(g, x, y, w, pw, 0)) is None


def test_format_mismatch_is_161002():
    g, x, y, w, pw, out = tensors((2, 3, 4, 5))
    # out NCHW while the inputs are ND (the public op_api UT)
    raises(161002, "one format", g, x, y, w, pw, 1, fmt(out, Format.FORMAT_NCHW))
    raises(161002, "one format", g, x, fmt(y, Format.FORMAT_NC1HWC0), w, pw, 1, out)
    # gradOutput and the weights are not part of the format check
    call(fmt(g, Format.FORMAT_NCHW), x, y, fmt(w, Format.FORMAT_NC1HWC0), pw, 1, out)
    assert first_mismatch(out, numpy_model(g, x, y, w, pw, 1)) is None


def test_format_is_checked_before_shape():
    g, x, y, w, pw, out = tensors()
    raises(161002, "one format", g, x, y[:2], w, pw, 1, fmt(out, Format.FORMAT_NCHW))


@pytest.mark.parametrize("case, match", [
    ("target", "target shape"), ("out", "out shape"), ("grad", "gradOutput shape"),
    ("weight", "weight shape"), ("pos_weight", "posWeight shape"),
    ("grow", "weight shape")])
def test_shape_rules_are_161002(case, match):
    g, x, y, w, pw, out = tensors((4, 6))
    if case == "target":
        y = y.reshape(6, 4)
    elif case == "out":
        out = np.empty((24,), F32)
    elif case == "grad":
        g = rand((5,))
    elif case == "weight":
        w = rand((4, 1, 6))  # broadcasts with self, but to a larger shape
        match = "weight shape"
    elif case == "pos_weight":
        pw = rand((3, 6))
    elif case == "grow":
        w = rand((2, 4, 6))
    raises(161002, match, g, x, y, w, pw, 1, out)


def test_shape_is_checked_before_reduction():
    g, x, y, w, pw, out = tensors()
    raises(161002, "target shape", g, x, y.T, w, pw, 7, out)


@pytest.mark.parametrize("reduction", [-1, 3, 100])
def test_reduction_outside_0_to_2_is_161002(reduction):
    raises(161002, "reduction", *tensors()[:5], reduction, tensors()[5])


# ---- empty self -------------------------------------------------------------------------------

def test_empty_self_needs_no_launch():
    x = np.empty((2, 0), F32)
    out = np.empty((2, 0), F32)
    size, executor = get_workspace(rand((1,)), x, np.empty((2, 0), F32), None, None, 1, out)
    assert size == 0
    aclnnBinaryCrossEntropyWithLogitsBackward(None, size, executor)
    assert executor.runs == []
    result, run = bce_backward(rand((1,)), x, x, reduction="sum", return_run=True)
    assert result.shape == (2, 0) and run is None


def test_empty_self_skips_the_shape_check_only():
    x = np.empty((0, 3), F32)
    # an empty self passes the shape rules at once, but null/rank/dtype/format still apply
    get_workspace(rand((7,)), x, np.empty((5,), F32), None, None, 1, np.empty((1,), F32))
    raises(161002, "reduction", rand((7,)), x, np.empty((5,), F32), None, None, 3,
           np.empty((1,), F32))
    raises(161002, "self dtype", rand((1,)), x.astype(np.int64), x, None, None, 1, x)


# ---- broadcasting, promotion, missing weights -------------------------------------------------

@pytest.mark.parametrize("reduction", [1, 2], ids=["mean", "sum"])
@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=str)
def test_scalar_grad_output_with_mean_and_sum(reduction, dtype):
    g, x, y, w, pw, out = tensors((33, 65), dtype)
    assert g.shape == (1,)
    _, run = bce_backward(g, x, y, w, pw, reduction, return_run=True)
    check(g, x, y, w, pw, reduction)
    # the kernel read a materialised gradOutput: N elements, not 1
    assert run.gm[2].nbytes == x.nbytes


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_per_class_weights_and_rank0_grad(reduction):
    x = rand((8, 5, 3), F16, -3, 3)
    y = rand((8, 5, 3), F16, 0, 1, seed=7)
    w = rand((3,), F16, seed=8)          # per class, the last dim
    pw = rand((5, 1), F16, 0, 2, seed=9)
    g = rand((8, 1, 1), F16, seed=10) if reduction == 0 else np.array(0.75, F16)
    check(g, x, y, w, pw, reduction)


def test_missing_weights_become_ones_so_the_kernel_gets_both():
    g, x, y, _, _, _ = tensors((16, 16), F16)
    out, run = bce_backward(g, x, y, reduction="sum", return_run=True)
    assert (run.tiling.has_weight, run.tiling.has_pos_weight) == (1, 1)
    check(g, x, y, None, None, 2)


@pytest.mark.parametrize("dts, promoted, out_dtype", [
    ((F16, F32, F16, None, None), F32, F32),   # fp16 inputs, fp32 target and out (public UT)
    ((F16, BF16, F16, None, None), F32, BF16),  # fp16 + bf16 -> fp32, out like target
    ((BF16, BF16, F32, None, None), F32, BF16),
    ((F16, F16, F16, BF16, None), F32, F16),    # a weight promotes too
    ((BF16, BF16, BF16, None, F16), F32, BF16),  # and a pos_weight
    ((F32, F16, F16, F16, F16), F32, F16),
    ((BF16, BF16, BF16, BF16, BF16), BF16, BF16),
])
def test_promotion_and_cast_to_out(dts, promoted, out_dtype):
    shape = (3, 700)
    x = rand(shape, dts[0], -2, 2)
    y = rand(shape, dts[1], 0, 1, seed=1)
    g = rand(shape, dts[2], seed=2)
    w = None if dts[3] is None else rand((700,), dts[3], seed=3)
    pw = None if dts[4] is None else rand(shape, dts[4], seed=4)
    out, run = bce_backward(g, x, y, w, pw, "mean", return_run=True)
    assert out.dtype == out_dtype
    assert run.tiling_key == {F16: 0, F32: 1, BF16: 2}[promoted]  # the kernel's dtype
    check(g, x, y, w, pw, 1)


def test_inputs_are_not_modified_and_output_views_are_written_in_place():
    g, x, y, w, pw, _ = tensors((5, 4))
    xt, yt, wt = x.T, y.T, w.T  # non-contiguous {4, 5} views with strides {1, 4}
    before = [a.copy() for a in (g, xt, yt, wt, pw)]
    base = np.full((4, 10), 7.0, F32)
    out = base[:, ::2]  # a strided output view
    check(g, xt, yt, wt, pw.T.copy(), 1, out)
    assert (base[:, 1::2] == 7.0).all()  # untouched between the view's elements
    for a, b in zip((g, xt, yt, wt, pw), before, strict=True):
        assert (a == b).all()


def test_non_contiguous_like_the_public_ut():
    # {5, 4} with strides {1, 5} for every tensor
    base = [rand((4, 5), F16, seed=s) for s in range(4)]
    x, y, w, pw = (b.T for b in base)
    y = np.abs(y)
    out = np.empty((4, 5), F16).T
    check(rand((4, 5), F16, seed=9).T, x, y, w, pw, 0, out)


# ---- platforms: bf16 only where the profile says so -------------------------------------------

def test_bf16_needs_a_profile_with_bf16(no_bf16_profile):
    g, x, y, w, pw, out = tensors((8,), BF16)
    bce_backward(g, x, y, w, pw)  # the default profile (Ascend910B2) has bf16
    with pytest.raises(AclnnError, match="dtype support list") as info:
        bce_backward(g, x, y, w, pw, profile=no_bf16_profile)
    assert info.value.code == 161002
    g32, x32, y32, *_ = tensors((8,), F32)
    bce_backward(g32, x32, y32, profile=no_bf16_profile)  # fp32 still fine there


# ---- the convenience call ----------------------------------------------------------------------

@pytest.mark.parametrize("name, code", [("none", 0), ("mean", 1), ("sum", 2), ("SUM", 2)])
def test_reduction_names_and_ints_agree(name, code):
    g, x, y, w, pw, _ = tensors((6, 7))
    a = bce_backward(g, x, y, w, pw, name)
    b = bce_backward(g, x, y, w, pw, code)
    assert first_mismatch(a, b) is None
    assert first_mismatch(a, numpy_model(g, x, y, w, pw, code)) is None


def test_unknown_reduction_name_is_161002():
    with pytest.raises(AclnnError) as info:
        bce_backward(*tensors()[:5], reduction="avg")
    assert info.value.code == 161002


def test_torch_in_torch_out():
    torch = pytest.importorskip("torch")
    g, x, y, w, pw, _ = tensors((3, 9), F32)
    tx = torch.from_numpy(x)
    ty = torch.from_numpy(y).to(torch.bfloat16)
    out = bce_backward(torch.from_numpy(g), tx, ty, torch.from_numpy(w), None, "sum")
    assert isinstance(out, torch.Tensor) and out.dtype == torch.bfloat16
    expected = numpy_model(g, x, ty.view(torch.int16).numpy().view(BF16), w, None, 2)
    assert first_mismatch(out.view(torch.int16).numpy().view(BF16), expected) is None


def test_an_executor_runs_once():
    g, x, y, w, pw, out = tensors()
    size, executor = get_workspace(g, x, y, w, pw, 1, out)
    aclnnBinaryCrossEntropyWithLogitsBackward(None, size, executor)
    with pytest.raises(AclnnError):
        aclnnBinaryCrossEntropyWithLogitsBackward(None, size, executor)


def test_out_may_alias_an_input():
    g, x, y, w, pw, _ = tensors((6, 5))
    expected = numpy_model(g, x, y, w, pw, 2)
    call(g, x, y, w, pw, 2, y)  # write the gradient over target itself
    assert first_mismatch(y, expected) is None
