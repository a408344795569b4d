"""aclnnCrossEntropyLoss and cross_entropy_loss: the checks and their codes (in ascsim's
documented order), numpy / bf16 / torch in and out, the edge cases of the README table
(ours vs the documentation vs PyTorch), the sanitizer on every dtype and reduction,
determinism, untouched inputs and zloss outputs."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from test_ce_numerics import aclnn_pair, draw

from ascsim.errors import AclnnError
from kernels_py.cross_entropy_loss import cross_entropy_loss
from kernels_py.cross_entropy_loss.reference import numpy_model, torch_reference

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)


def _call(x, t, w=None, reduction="mean", ls=0.0, loss=None, lp=None, z="same", lse="same"):
    from kernels_py.cross_entropy_loss import aclnnCrossEntropyLossGetWorkspaceSize
    n = x.shape[0] if x is not None and x.ndim else 1
    dt = x.dtype if x is not None else F32
    loss = np.empty((n,) if reduction == "none" else (1,), dt) if loss is None else loss
    lp = np.empty(x.shape, dt) if lp is None and x is not None else lp
    z = np.empty(1, dt) if isinstance(z, str) else z
    lse = np.empty(n, dt) if isinstance(lse, str) else lse
    return aclnnCrossEntropyLossGetWorkspaceSize(x, t, w, reduction, -100, ls, 0.0, False, loss,
                                                 lp, z, lse)


X = np.zeros((3, 4), np.float32)
T = np.zeros(3, np.int64)


@pytest.mark.parametrize("kwargs,code,text", [
    ({"x": None}, 161001, "input must not be nullptr"),
    ({"t": None}, 161001, "target must not be nullptr"),
    ({"lp": "none"}, 161001, "logProbOut must not be nullptr"),
    ({"z": None}, 161001, "zlossOut must not be nullptr"),
    ({"lse": None}, 161001, "lseForZlossOut must not be nullptr"),
    ({"x": X.astype(np.float64)}, 161002, "input dtype DT_DOUBLE"),
    ({"t": T.astype(np.int32)}, 161002, "target dtype DT_INT32 should be DT_INT64"),
    ({"w": np.ones(4, np.float16)}, 161002, "weight dtype DT_FLOAT16 should be DT_FLOAT"),
    ({"loss": np.empty(1, np.float16)}, 161002, "lossOut dtype DT_FLOAT16"),
    ({"z": np.empty(1, np.float16)}, 161002, "zlossOut dtype"),
    ({"reduction": "avg"}, 561002, "reduction avg should be mean, sum or none"),
    ({"ls": 1.5}, 561002, "labelSmoothing"),
    ({"ls": float("nan")}, 561002, "labelSmoothing"),
    ({"x": np.zeros(4, np.float32)}, 561002, "should be (N, C)"),
    ({"t": np.zeros(4, np.int64)}, 561002, "target shape [4] should be (N) with N = 3"),
    ({"w": np.ones(5, np.float32)}, 561002, "weight shape [5] should be (C) with C = 4"),
    ({"loss": np.empty(3, np.float32)}, 161002, "lossOut shape [3] should be [1]"),
    ({"lp": np.empty((4, 3), np.float32)}, 161002, "logProbOut shape"),
    ({"x": np.zeros((3, 0), np.float32)}, 561002, "no classes"),
])
def test_checks_give_the_documented_codes(kwargs, code, text):
    args = {"x": X, "t": T}
    args.update(kwargs)
    if isinstance(args.get("lp"), str):
        args["lp"] = None
        x = args.pop("x")
        with pytest.raises(AclnnError) as e:
            from kernels_py.cross_entropy_loss import aclnnCrossEntropyLossGetWorkspaceSize
            aclnnCrossEntropyLossGetWorkspaceSize(x, args["t"], None, "mean", -100, 0.0, 0.0,
                                                  False, np.empty(1, np.float32), None,
                                                  np.empty(1, np.float32),
                                                  np.empty(3, np.float32))
    else:
        with pytest.raises(AclnnError) as e:
            _call(args.pop("x"), args.pop("t"), **args)
    assert e.value.code == code
    assert text in str(e.value)


def test_null_reduction_means_mean():
    x, t, _ = draw(3, 6, F32, 1)
    from kernels_py.cross_entropy_loss import (
        aclnnCrossEntropyLoss,
        aclnnCrossEntropyLossGetWorkspaceSize,
    )
    loss = np.empty(1, np.float32)
    size, ex = aclnnCrossEntropyLossGetWorkspaceSize(x, t, None, None, -100, 0.0, 0.0, False,
                                                     loss, np.empty_like(x),
                                                     np.empty(1, F32), np.empty(3, F32))
    aclnnCrossEntropyLoss(None, size, ex)
    assert loss[0] == numpy_model(x, t)[0][0]


@pytest.mark.parametrize("reduction,want", [("none", None), ("mean", "nan"), ("sum", 0.0)])
def test_empty_batch_launches_nothing_and_gives_pytorchs_values(reduction, want):
    x = np.zeros((0, 5), np.float32)
    t = np.zeros(0, np.int64)
    loss, lp, run = aclnn_pair(x, t, None, reduction)
    assert run is None and lp.shape == (0, 5)
    ref, _ = torch_reference(x, t, None, reduction)
    if want is None:
        assert loss.shape == (0,) and ref.shape == (0,)
    elif want == "nan":
        assert np.isnan(loss[0]) and np.isnan(ref)
    else:
        assert loss[0] == 0.0 == ref
    assert cross_entropy_loss(x, t, reduction=reduction, return_run=True)[1] is None


def test_one_element():
    x = np.array([[3.5]], np.float32)
    t = np.zeros(1, np.int64)
    loss, lp, _ = aclnn_pair(x, t, None, "mean")
    assert lp[0, 0] == 0.0 and loss[0] == 0.0
    assert float(torch_reference(x, t)[0]) == 0.0


def test_nan_and_inf_logits_match_pytorch():
    x = np.array([[1.0, np.nan, 2.0], [np.inf, 1.0, 0.0], [-np.inf, 1.0, 0.0],
                  [0.5, 1.0, -np.inf]], np.float32)
    t = np.array([0, 1, 1, 2], np.int64)
    loss, lp, _ = aclnn_pair(x, t, None, "none")
    ref_loss, ref_lp = torch_reference(x, t, None, "none")
    assert np.array_equal(np.isnan(lp), np.isnan(ref_lp))
    assert np.array_equal(np.isnan(loss), np.isnan(ref_loss))
    fin = ~np.isnan(ref_lp)
    assert np.allclose(lp[fin], ref_lp[fin], rtol=1e-6, atol=1e-6)  # -inf where torch has it
    assert np.isnan(loss[:2]).all() and loss[3] == np.inf == ref_loss[3]


def test_all_targets_ignored():
    x, t, _ = draw(5, 7, F32, 2)
    t[:] = 3
    mean, _, _ = aclnn_pair(x, t, None, "mean", ignore=3)
    total, _, _ = aclnn_pair(x, t, None, "sum", ignore=3)
    assert np.isnan(mean[0]) and np.isnan(float(torch_reference(x, t, None, "mean", 3)[0]))
    assert total[0] == 0.0 == float(torch_reference(x, t, None, "sum", 3)[0])


@pytest.mark.parametrize("ls", [0.0, 1.0])
def test_label_smoothing_bounds(ls):
    x, t, w = draw(6, 9, F32, 4, weight=True)
    loss, _, _ = aclnn_pair(x, t, w, "mean", ls=ls)
    assert loss.tobytes() == numpy_model(x, t, w, "mean", -100, ls)[0].tobytes()
    assert abs(loss[0] - torch_reference(x, t, w, "mean", -100, ls)[0]) < 1e-5


def test_class_weights_with_zeros():
    x, t, w = draw(8, 5, F32, 5, weight=True)
    w[[0, 2]] = 0.0
    t[:4] = 0
    loss, _, _ = aclnn_pair(x, t, w, "none")
    assert (loss[:4] == 0.0).all()
    mean, _, _ = aclnn_pair(x, t, w, "mean")
    assert abs(mean[0] - torch_reference(x, t, w, "mean")[0]) < 1e-5


def test_invalid_targets_give_nan_rows_where_pytorch_raises():
    """A target neither ignore_index nor in [0, C): that row's loss is NaN (and the mean /
    sum); the other rows are exact; nothing is read out of bounds (sanitizer clean). PyTorch
    refuses the input; the public kernel reads weight[t] and UB out of bounds and may keep
    the previous row's log-prob."""
    x, t, w = draw(4, 6, F32, 6, weight=True)
    t[1], t[2] = 6, -1
    loss, lp, run = aclnn_pair(x, t, w, "none", sanitize="check")
    assert run.findings == []
    assert np.isnan(loss[1:3]).all() and not np.isnan(loss[[0, 3]]).any()
    want_loss, want_lp = numpy_model(x, t, w, "none")
    assert loss.tobytes() == want_loss.tobytes() and lp.tobytes() == want_lp.tobytes()
    assert np.isnan(aclnn_pair(x, t, w, "mean")[0][0])
    with pytest.raises((IndexError, RuntimeError)):
        torch_reference(x, t, w, "none")


def test_ignore_index_inside_the_classes():
    x, t, _ = draw(6, 5, F32, 7)
    t[::2] = 2
    loss, _, _ = aclnn_pair(x, t, None, "none", ignore=2)
    assert (loss[::2] == 0.0).all()
    ref = torch_reference(x, t, None, "none", 2)[0]
    assert np.allclose(loss, ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [F32, F16, BF16])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_sanitizer_is_clean(dtype, reduction):
    """Check mode on every dtype and reduction, several cores, chunks and smoothing."""
    x, t, w = draw(9, 40, dtype, 8, weight=True, ignore=3)
    t[4] = 40  # an invalid target too
    for ls in (0.0, 0.3):
        _, _, run = aclnn_pair(x, t, w, reduction, 3, ls, sanitize="check")
        assert run.findings == [], run.report()
    _, _, run = aclnn_pair(x, t, None, reduction, 3, 0.3, sanitize="check")
    assert run.findings == [], run.report()


def test_long_rows_are_sanitizer_clean():
    x, t, _ = draw(2, 9000, F16, 9)
    _, _, run = aclnn_pair(x, t, None, "mean", ls=0.1, sanitize="check")
    assert run.findings == [] and run.tiling.ubLoopNum == 0


def test_torch_and_bf16_in_and_out():
    import torch
    x, t, w = draw(4, 10, BF16, 10, weight=True)
    got = cross_entropy_loss(x, t, w, reduction="none")
    assert got.dtype == BF16 and got.shape == (4,)
    xt = torch.from_numpy(x.astype(np.float32)).to(torch.bfloat16)
    out = cross_entropy_loss(xt, torch.from_numpy(t), torch.from_numpy(w), reduction="none")
    assert isinstance(out, torch.Tensor) and out.dtype == torch.bfloat16
    assert out.view(torch.int16).numpy().tobytes() == got.tobytes()
    mean = cross_entropy_loss(xt, torch.from_numpy(t))
    assert isinstance(mean, torch.Tensor) and mean.shape == ()


def test_inputs_and_zloss_outputs_untouched_and_deterministic():
    x, t, w = draw(50, 30, F16, 11, weight=True)
    copies = [a.copy() for a in (x, t, w)]
    z = np.full(1, 7.0, F16)
    lse = np.full(50, 5.0, F16)
    loss1 = np.empty(1, F16)
    from kernels_py.cross_entropy_loss import (
        aclnnCrossEntropyLoss,
        aclnnCrossEntropyLossGetWorkspaceSize,
    )
    size, ex = aclnnCrossEntropyLossGetWorkspaceSize(x, t, w, "mean", -100, 0.1, 0.5, True,
                                                     loss1, np.empty_like(x), z, lse)
    aclnnCrossEntropyLoss(None, size, ex)
    assert (z == 7.0).all() and (lse == 5.0).all()  # zloss is not implemented on A2
    for a, b in zip((x, t, w), copies, strict=True):
        assert a.tobytes() == b.tobytes()
    loss2 = cross_entropy_loss(x, t, w, label_smoothing=0.1, threads=2)
    assert loss1[0].tobytes() == loss2.tobytes()


def test_bad_reduction_names_in_the_convenience_call():
    for bad in ("avg", 3, -1, True):
        with pytest.raises(AclnnError) as e:
            cross_entropy_loss(X, T, reduction=bad)
        assert e.value.code == 161002
