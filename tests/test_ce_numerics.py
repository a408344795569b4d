"""CrossEntropyLoss numerics: bit-exact against the float32 numpy model in the kernel's order
(reference.numpy_model: the same trees, chunks, sub-blocks, per-core and cross-core sums),
for loss and log_prob, and close to PyTorch (cross_entropy / log_softmax in float32) within a
tolerance derived per element below; the shipped example's values.

Tolerance against PyTorch (u = 2^-24, the float32 unit roundoff). Both compute
log_prob_i = x_i - m - ln S with S = sum_j exp(x_j - m), in float32, in different orders:
the kernel rounds x - m, exp, the sum (trees of 64 / 8192 and an ordered scalar sum), ln S,
lse = ln S + m and x - lse; PyTorch rounds x - m, exp, its own sum order, ln S and
(x - m) - ln S. A sum of C positive terms in any order has a relative error of at most
(C - 1) u, exp adds u per term, so ln S is within C u + u |ln S| of the exact value (the
rounded logarithm) on each side; the remaining roundings add u |x - m|, u |lse| and u |lp|.
So per side |lp - exact| <= u (C + |x - m| + |ln S| + |lse| + |lp|) to first order, and the
two sides differ by at most twice that; (C + 2) leaves room for the second-order terms.
The loss of a row is (ls - 1) w lp_t - (ls / C) sum_c w_c lp_c: the log-prob bounds weighted
by |w| and the products' and sum's own roundings (C + 3) u |terms|; a sum over rows adds
(N + 2) u sum |loss_r|, a mean also the weight sum's (N + 2) u relative error. fp16 / bf16
outputs: both sides round a float32 value to nearest-even (PyTorch's value rounded here the
same way), so they differ by at most the float32 tolerance plus one ULP of the output dtype.
(reference.torch_tolerance computes these bounds.)
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ascsim import aclnn
from ascsim.compare import first_mismatch
from kernels_py.cross_entropy_loss import (
    aclnnCrossEntropyLoss,
    aclnnCrossEntropyLossGetWorkspaceSize,
    cross_entropy_loss,
)
from kernels_py.cross_entropy_loss.reference import (
    numpy_model,
    torch_reference,
    torch_tolerance,
)

torch = pytest.importorskip("torch")

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)


def aclnn_pair(x, t, w=None, reduction="mean", ignore=-100, ls=0.0, **device):
    """(loss, log_prob, run) from the aclnn pair: the operator's own (1)-shaped loss."""
    n = x.shape[0]
    loss = np.empty((n,) if reduction == "none" else (1,), x.dtype)
    log_prob = np.empty_like(x)
    with aclnn.device(None, device.get("sanitize"), device.get("threads")):
        size, ex = aclnnCrossEntropyLossGetWorkspaceSize(
            x, t, w, reduction, ignore, ls, 0.0, False, loss, log_prob,
            np.empty(1, x.dtype), np.empty(n, x.dtype))
        aclnnCrossEntropyLoss(None, size, ex)
    return loss, log_prob, (ex.runs[0] if ex.runs else None)


def draw(n, c, dtype, seed, weight=False, ignore=-100, lo=-5.0, hi=5.0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(lo, hi, (n, c)).astype(np.float32).astype(dtype)
    t = rng.integers(0, c, n).astype(np.int64)
    if ignore >= 0:
        t[rng.random(n) < 0.2] = ignore
    w = rng.uniform(0.0, 1.0, c).astype(np.float32) if weight else None
    return x, t, w


# (N, C): one row and tiny; N > 48 (front and tail cores); several chunks per row; a row of
# 4096 < C < 8192 (the split recipe); C > 8192 (sub-blocks within a chunk); a row longer
# than one fp32 chunk (48000) with sub-blocks and a tail
SHAPES = [(1, 1), (2, 5), (61, 33), (3, 5000), (2, 20000), (2, 50001)]
CASES = [(shape, dtype, red, ls, weight)
         for i, shape in enumerate(SHAPES)
         for j, dtype in enumerate((F32, F16, BF16))
         for red, ls, weight in [(("none", "mean", "sum")[(i + j) % 3], 0.0, (i + j) % 2 == 0),
                                 (("none", "mean", "sum")[(i + j + 1) % 3], 0.3,
                                  (i + j) % 2 == 1)]]


def _case_id(c):
    (n, cc), dtype, red, ls, w = c
    return f"{n}x{cc}-{dtype.name}-{red}-ls{ls}-{'w' if w else 'nw'}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_bit_exact_against_the_numpy_model(case):
    (n, c), dtype, red, ls, weight = case
    ignore = 1 if c > 2 else -100  # an ignore_index inside [0, C) where there is room
    x, t, w = draw(n, c, dtype, seed=n * 7 + c, weight=weight, ignore=ignore)
    loss, lp, run = aclnn_pair(x, t, w, red, ignore, ls)
    want_loss, want_lp = numpy_model(x, t, w, red, ignore, ls)
    assert loss.dtype == lp.dtype == dtype
    assert first_mismatch(lp, want_lp) is None, first_mismatch(lp, want_lp)
    assert first_mismatch(loss, want_loss) is None, first_mismatch(loss, want_loss)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_close_to_pytorch_within_the_derived_tolerance(case):
    (n, c), dtype, red, ls, weight = case
    ignore = 1 if c > 2 else -100
    x, t, w = draw(n, c, dtype, seed=n * 7 + c, weight=weight, ignore=ignore)
    loss, lp = numpy_model(x, t, w, red, ignore, ls)  # == the kernel (previous test)
    want_loss, want_lp = torch_reference(x, t, w, red, ignore, ls)
    if dtype != F32:
        want_loss, want_lp = want_loss.astype(dtype), want_lp.astype(dtype)
    tol_loss, tol_lp = torch_tolerance(x, t, w, red, ignore, ls)
    d_lp = np.abs(lp.astype(np.float64) - want_lp.astype(np.float64))
    assert (d_lp <= tol_lp).all(), f"log_prob off by {(d_lp - tol_lp).max()} over the bound"
    d = np.abs(loss.astype(np.float64).reshape(-1) - np.asarray(want_loss, np.float64).reshape(-1))
    assert (d <= np.asarray(tol_loss).reshape(-1)).all(), (d, tol_loss)


def test_the_shipped_example():
    """examples/test_aclnn_cross_entropy_loss.cpp: fp32 (2, 5), target {0, 0}, mean: loss
    1.0937543 and the log-probs printed to 7 digits."""
    x = np.array([[5, 0, 3, 3, 7], [9, 3, 5, 2, 4]], np.float32)
    t = np.array([0, 0], np.int64)
    loss, lp, run = aclnn_pair(x, t, None, "mean", -100, 0.0, sanitize="check")
    assert loss.shape == (1,) and loss[0] == np.float32(1.0937543)
    want = np.array([[-2.159461, -7.159461, -4.159461, -4.159461, -0.159461],
                     [-0.0280476, -6.0280476, -4.0280476, -7.0280476, -5.0280476]])
    assert np.abs(lp - want).max() <= 5e-7  # 7 printed decimals
    assert run.findings == []


def test_convenience_call_is_torch_shaped_and_matches_the_pair():
    x, t, w = draw(5, 12, F32, seed=3, weight=True)
    loss, lp, _ = aclnn_pair(x, t, w, "sum", -100, 0.2)
    got = cross_entropy_loss(x, t, w, reduction=2, label_smoothing=0.2)
    assert got.shape == () and got.dtype == F32 and got.tobytes() == loss.tobytes()
    none = cross_entropy_loss(x, t, w, reduction="none")
    assert none.shape == (5,)
    mean = cross_entropy_loss(x, t, w, reduction=1)
    assert mean.shape == () and mean == numpy_model(x, t, w, "mean")[0][0]
