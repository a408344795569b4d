"""The shipped kernels report zero findings in check mode in every supported configuration:
every dtype, eps sign, weight combination, reduction, buffer count, tiling window, sizes with
tails, one core and many."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

from kernels_py.logit_grad import logit_grad
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    binary_cross_entropy_with_logits_backward,
    run_kernel,
)

DTYPES = (np.float32, np.float16, ml_dtypes.bfloat16)
DT_IDS = ("fp32", "fp16", "bf16")
TILE = 8192


def _clean(run) -> None:
    assert run is not None
    assert not run.findings, "\n".join(f.format() for f in run.findings[:5])


def _draw(rng, lo, hi, shape, dtype):
    return rng.uniform(lo, hi, shape).astype(np.float32).astype(dtype)


# sizes: one element, a partial first tile (the compares read stale elements past n), whole
# tiles, a tail, and 48 cores with the partial tile in the middle of GM
LOGIT_SIZES = (1, 65, TILE, 3 * TILE + 5, 3 * TILE * 48 + 5)


@pytest.mark.parametrize("eps", (-1.0, 0.1))
@pytest.mark.parametrize("n", LOGIT_SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
def test_logit_grad_is_clean(dtype, n, eps):
    rng = np.random.default_rng(n)
    x = _draw(rng, 0.0, 1.0, n, dtype)
    dy = _draw(rng, -100.0, 100.0, n, dtype)
    out, run = logit_grad(x, dy, eps, return_run=True, sanitize="check")
    _clean(run)
    assert "0 error(s), 0 warning(s)" in run.report()


SCE_SHAPES = ((7,), (32, 1000), (3, 70001))
WEIGHTS = list(itertools.product((False, True), repeat=2))


@pytest.mark.parametrize("reduction", ("none", "mean", "sum"))
@pytest.mark.parametrize("shape", SCE_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
def test_sce_aclnn_is_clean(dtype, shape, reduction, capsys):
    """The aclnn path (both weights always reach the kernel; grad_output broadcast)."""
    rng = np.random.default_rng(len(shape))
    for has_w, has_pw in WEIGHTS:
        g = _draw(rng, -1, 1, shape if reduction == "none" else (1,), dtype)
        w = _draw(rng, -1, 1, shape, dtype) if has_w else None
        pw = _draw(rng, -1, 1, shape, dtype) if has_pw else None
        _, run = binary_cross_entropy_with_logits_backward(
            g, _draw(rng, -1, 1, shape, dtype), _draw(rng, 0, 1, shape, dtype), w, pw,
            reduction, return_run=True, sanitize="check")
        _clean(run)


@pytest.mark.parametrize("buffer_num", (1, 2))
@pytest.mark.parametrize("weights", WEIGHTS, ids=lambda w: f"w{int(w[0])}pw{int(w[1])}")
@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
def test_sce_kernel_variants_are_clean(dtype, weights, buffer_num, capsys):
    """The four template variants, launched directly, single and double buffered."""
    rng = np.random.default_rng(7)
    shape = (9, 2049)
    x, y, d = (_draw(rng, -1, 1, shape, dtype) for _ in range(3))
    w = _draw(rng, -1, 1, shape, dtype) if weights[0] else None
    pw = _draw(rng, -1, 1, shape, dtype) if weights[1] else None
    if buffer_num == 2 and weights == (True, True):
        pytest.skip("double buffering needs at most 4 input queues (8 event ids per position)")
    _, run = run_kernel(x, y, d, w, pw, "sum", buffer_num=buffer_num, sanitize="check")
    _clean(run)


@pytest.mark.parametrize("shape, dtype, reduction", [
    ((100, 30, 100), np.float32, "sum"),        # heavy: buffers reach past TMP_UB_OFFSET
    ((10, 50, 50), ml_dtypes.bfloat16, "mean"),  # the bf16 3-D mean window
    ((160000,), ml_dtypes.bfloat16, "sum"),      # the bf16 sum tile-halving window
    ((1000, 120), np.float32, "none"),           # fp32, both weights: the core-count caps
], ids=("fp32-heavy", "bf16-3d-mean", "bf16-sum-window", "fp32-perf"))
def test_sce_tiling_windows_are_clean(shape, dtype, reduction, capsys):
    rng = np.random.default_rng(8)
    args = [_draw(rng, -1, 1, shape, dtype) for _ in range(5)]
    _, run = binary_cross_entropy_with_logits_backward(*args, reduction, return_run=True,
                                                       sanitize="check")
    _clean(run)
