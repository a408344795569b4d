"""aclnnBinaryCrossEntropyWithLogitsBackward numerics over the issue's matrix: reductions none /
mean / sum x with and without weight x with and without pos_weight x fp32 / fp16 / bf16 and
mixed dtypes x ranks 1-8 x sizes 1, 7, 15, 16, 1023, 1024, 1025, 4673, 10^5 and 1000003.

Sizes up to 16 run the full cross product; the larger sizes run a rotation of the other axes
that meets every value of every axis. Every case is
- bit-exact against the float32 numpy model in the kernel's op order (reference.numpy_model);
- compared with PyTorch (binary_cross_entropy_with_logits + autograd, in float64):
  * where the kernel's float32 chain is accurate to half an ULP of the output dtype (its
    a-priori error bound, reference.error_bound, is at most half an output ULP), the result is
    within 1 ULP of the output dtype of PyTorch's value. That holds for nearly every element of
    an fp16 or bf16 output;
  * everywhere, the result is within that error bound plus half an output ULP. This is the
    check for float32 outputs and for cancelling elements: the kernel's fixed op order (the
    reference's: exp, +1, a real division, a subtraction, up to three products, each rounded
    to float32) leaves a few float32 ULPs of error, and more where p - y (or lw*p - pw*y)
    cancels, so a float32 result is in general not within 1 ULP of the exact gradient. The
    bound is derived (see error_bound), not fitted.
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

from ascsim.compare import first_mismatch
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    binary_cross_entropy_with_logits_backward,
    run_kernel,
)
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2.reference import (
    direct_model,
    error_bound,
    numpy_model,
    torch_reference,
)

pytest.importorskip("torch")

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
# (self, target, grad_output, weight, pos_weight) dtypes; out follows target
DTYPES = {
    "fp32": (F32, F32, F32, F32, F32),
    "fp16": (F16, F16, F16, F16, F16),
    "bf16": (BF16, BF16, BF16, BF16, BF16),
    "fp16+fp32target": (F16, F32, F16, F16, F16),
    "bf16+fp16target": (BF16, F16, BF16, BF16, BF16),
    "fp32+bf16target": (F32, BF16, F32, F32, F32),
    "mixed": (F16, F16, BF16, F32, BF16),
}
REDUCTIONS = ("none", "mean", "sum")
WEIGHTS = ((False, False), (True, False), (False, True), (True, True))
SMALL = (1, 7, 15, 16)
LARGE = (1023, 1024, 1025, 4673, 100_000)
HUGE = 1_000_003
# (mantissa bits, smallest normal exponent) of each output dtype
FORMATS = {F32: (23, -126), F16: (10, -14), BF16: (7, -126)}


def shape_of(n: int, rank: int, turn: int) -> tuple[int, ...]:
    """A rank-`rank` shape of n elements: n's prime factors spread over the dims, rotated."""
    factors, p, m = [], 2, n
    while p * p <= m:
        while m % p == 0:
            factors.append(p)
            m //= p
        p += 1
    if m > 1:
        factors.append(m)
    dims = [1] * rank
    for f in sorted(factors, reverse=True):
        dims[dims.index(min(dims))] *= f
    turn %= rank
    return tuple(dims[turn:] + dims[:turn])


def ulp(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The spacing of `dtype` at |values| (float64), subnormal range included."""
    mant, emin = FORMATS[dtype]
    _, e = np.frexp(np.abs(values))
    return np.ldexp(1.0, np.maximum(e - 1, emin) - mant)


def make_case(n, rank, reduction, w, pw, dtypes, grad_full, seed, x_range=4.0):
    shape = shape_of(n, rank, seed)
    rng = np.random.default_rng(seed)

    def draw(lo, hi, dtype, s=shape):
        return rng.uniform(lo, hi, s).astype(np.float32).astype(dtype)
    gshape = shape if (reduction == "none" or grad_full) else (1,)
    return (draw(-1, 1, dtypes[2], gshape), draw(-x_range, x_range, dtypes[0]),
            draw(0, 1, dtypes[1]), draw(-1, 1, dtypes[3]) if w else None,
            draw(-1, 2, dtypes[4]) if pw else None)


def check_against_torch(out: np.ndarray, args: tuple, reduction, kernel_pos_weight) -> None:
    """`kernel_pos_weight`: the pos_weight the kernel's formula ran with (ones on the aclnn
    path, where a missing one is replaced), or None for the variant without it."""
    grad, x, y, w, pw = args
    exact = torch_reference(grad, x, y, w, pw, reduction)
    bound = error_bound(grad, x, y, w, kernel_pos_weight, reduction)
    r = out.astype(np.float64)
    err = np.abs(r - exact)
    half = 0.5 * np.maximum(ulp(r, out.dtype), ulp(exact, out.dtype))
    worst = np.argmax(err - (bound + half))
    assert (err <= bound + half).all(), (
        f"beyond the float32 chain's error bound: element {worst}: got {r.flat[worst]!r}, "
        f"PyTorch {exact.flat[worst]!r}, bound {bound.flat[worst]:.3g} + half ulp "
        f"{half.flat[worst]:.3g}")
    accurate = bound <= 0.5 * ulp(exact, out.dtype)
    one_ulp = ulp(exact, out.dtype)
    bad = accurate & (err > one_ulp)
    assert not bad.any(), (
        f"{int(bad.sum())} element(s) more than 1 ULP ({out.dtype}) from PyTorch where the "
        f"float32 chain is accurate; first {np.flatnonzero(bad)[:3]}")
    if out.dtype != F32 and out.size >= 64:
        # the 1-ULP statement covers nearly every element of a narrow output
        assert accurate.mean() > 0.9, accurate.mean()


def run_case(n, rank, reduction, w, pw, dtype_name, grad_full, seed) -> None:
    dtypes = DTYPES[dtype_name]
    args = make_case(n, rank, reduction, w, pw, dtypes, grad_full, seed)
    grad, x, y, wt, pwt = args
    out = binary_cross_entropy_with_logits_backward(grad, x, y, wt, pwt, reduction)
    assert out.shape == x.shape and out.dtype == y.dtype
    mismatch = first_mismatch(out, numpy_model(*args, reduction))
    assert mismatch is None, f"vs numpy model: {mismatch}"
    ones = np.ones(x.shape, np.float32)
    check_against_torch(out, args, reduction, pwt if pwt is not None else ones)


SMALL_CASES = [(n, r, w, pw, d) for n in SMALL for r in REDUCTIONS for w, pw in WEIGHTS
               for d in DTYPES]


@pytest.mark.parametrize("n, reduction, w, pw, dtype_name", SMALL_CASES,
                         ids=[f"{n}-{r}-w{int(w)}-pw{int(pw)}-{d}"
                              for n, r, w, pw, d in SMALL_CASES])
def test_small_sizes_full_cross_product(n, reduction, w, pw, dtype_name):
    k = SMALL_CASES.index((n, reduction, w, pw, dtype_name))
    run_case(n, 1 + k % 8, reduction, w, pw, dtype_name, grad_full=k % 2 == 1, seed=k)


def _rotation() -> list[tuple]:
    cases, names = [], list(DTYPES)
    for c, (n, _) in enumerate(itertools.product(LARGE, range(4))):
        w, pw = WEIGHTS[c % 4]
        cases.append((n, 1 + c % 8, REDUCTIONS[c % 3], w, pw, names[c % 7], c % 5 == 4, c))
    cases.append((HUGE, 3, "mean", True, True, "bf16+fp16target", False, 101))
    cases.append((HUGE, 6, "none", False, True, "fp32", False, 102))
    return cases


LARGE_CASES = _rotation()


def test_rotation_meets_every_value_of_every_axis():
    axes = list(zip(*LARGE_CASES, strict=True))
    assert set(axes[0]) == set(LARGE) | {HUGE}
    assert set(axes[1]) == set(range(1, 9))
    assert set(axes[2]) == set(REDUCTIONS)
    assert set(zip(axes[3], axes[4], strict=True)) == set(WEIGHTS)
    assert set(axes[5]) == set(DTYPES)
    assert set(axes[6]) == {True, False}


@pytest.mark.parametrize("case", LARGE_CASES, ids=lambda c: f"{c[0]}-r{c[1]}-{c[2]}-{c[5]}")
def test_large_sizes_rotation(case):
    run_case(*case)


@pytest.mark.parametrize("dtype_name", ["fp32", "fp16", "bf16"])
def test_saturating_logits(dtype_name):
    # |x| up to 20: sigmoid saturates (exp(-x) stays finite in float32 for x > -88.7)
    dtypes = DTYPES[dtype_name]
    for reduction, (w, pw) in zip(REDUCTIONS, WEIGHTS[1:], strict=True):
        args = make_case(5000, 2, reduction, w, pw, dtypes, False, 7, x_range=20.0)
        out = binary_cross_entropy_with_logits_backward(*args, reduction)
        assert first_mismatch(out, numpy_model(*args, reduction)) is None
        check_against_torch(out, args, reduction,
                            args[4] if args[4] is not None else np.ones(args[1].shape))


@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=str)
@pytest.mark.parametrize("w, pw", WEIGHTS, ids=["plain", "weight", "pos_weight", "both"])
def test_direct_variants_against_torch(dtype, w, pw):
    # the kernel variants without pos_weight run p - y, not the pos_weight formula with ones
    args = make_case(3001, 1, "sum", w, pw, (dtype,) * 5, True, 11)
    grad, x, y, wt, pwt = args
    out, _ = run_kernel(x, y, grad, wt, pwt, reduction="sum")
    assert first_mismatch(out, direct_model(x, y, grad, wt, pwt, "sum")) is None
    check_against_torch(out, args, "sum", pwt)


def test_public_example():
    # 32x32 fp32, predict 1, target 0.5, dout 1, weight 1, posWeight 2, mean:
    # every element is (1.5 sigma(1) - 1) / 1024 ~ 9.432e-5
    one = np.ones((32, 32), np.float32)
    out = binary_cross_entropy_with_logits_backward(one, one, one / 2, one, 2 * one, "mean")
    assert np.unique(out).size == 1
    expected = (1.5 / (1.0 + np.exp(-1.0)) - 1.0) / 1024.0
    assert abs(float(out[0, 0]) - expected) <= 4 * np.spacing(np.float32(expected))
    assert abs(float(out[0, 0]) - 9.432e-5) < 1e-8
