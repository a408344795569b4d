"""Independent references for SigmoidCrossEntropyWithLogitsGradV2 /
aclnnBinaryCrossEntropyWithLogitsBackward.

- `kernel_model`: the kernel's float32 computation, op for op in its order (bit-exact target).
- `direct_model`: what `run_kernel` returns (one kernel variant, absent inputs absent).
- `numpy_model`: what the aclnn API writes into `out` (promotion, broadcasting, a missing weight
  or pos_weight replaced by ones, the result rounded to out's dtype).
- `torch_reference`: PyTorch's gradient (binary_cross_entropy_with_logits + autograd) in
  float64: the mathematical value to within ~1e-16 relative.
- `error_bound`: an a-priori bound on the forward error of the kernel's float32 chain, per
  element, to judge the distance between the kernel and the float64 gradient.

Conversions use numpy / ml_dtypes (not ascsim's): widening is exact, narrowing rounds to nearest
even (the kernel's CAST_NONE for half, CAST_RINT for bfloat16_t, and the L0 Cast).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["kernel_model", "direct_model", "numpy_model", "torch_reference", "error_bound",
           "promote", "reduction_code", "internal_reduction", "global_scale", "exp_f32"]

F32 = np.float32
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
# internal enum of the tiling: 0 none, 1 sum, 2 mean
KNONE, KSUM, KMEAN = 0, 1, 2


def reduction_code(reduction: str | int) -> int:
    """The aclnn int (0 none, 1 mean, 2 sum) of "none"/"mean"/"sum" or of an int (unchanged)."""
    if isinstance(reduction, str):
        return _REDUCTIONS[reduction.lower()]
    return int(reduction)


def internal_reduction(attr: str | int) -> int:
    """The tiling's enum for the op attribute: strings none/n, sum/s, mean/m in any case; ints in
    the aclnn numbering (0 none, 1 mean, 2 sum), other ints unchanged; anything else mean."""
    if isinstance(attr, str):
        s = attr.lower()
        for names, code in ((("none", "n"), KNONE), (("sum", "s"), KSUM), (("mean", "m"), KMEAN)):
            if s in names:
                return code
        return KMEAN
    return {0: KNONE, 1: KMEAN, 2: KSUM}.get(int(attr), int(attr))


def global_scale(internal: int, n: int) -> np.float32:
    """1.0f / float(N) for mean (float32 division of N rounded to float32), else 1."""
    if internal == KMEAN and n > 0:
        return F32(1.0) / F32(n)
    return F32(1.0)


def promote(*dtypes: Any) -> np.dtype:
    """PyTorch's promotion over fp16 / bf16 / fp32: equal types stay, anything else is fp32."""
    kinds = {np.dtype(d) for d in dtypes}
    return kinds.pop() if len(kinds) == 1 else np.dtype(F32)


def _f32(a: Any) -> np.ndarray:
    return np.asarray(a).astype(F32)


def exp_f32(x: np.ndarray) -> np.ndarray:
    """exp in float64 rounded once to float32 (ascsim's Exp). numpy's float64 exp may differ from
    libm's by an ulp, which matters only where the float64 value sits next to a float32 rounding
    boundary; those elements are recomputed with math.exp (libm, as the simulator uses)."""
    x64 = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore"):
        e = np.exp(x64)
        r = e.astype(F32)
        lo = np.nextafter(e, -np.inf).astype(F32)
        hi = np.nextafter(e, np.inf).astype(F32)
    for i in np.flatnonzero((lo != r) | (hi != r)):
        try:
            r.flat[i] = F32(math.exp(float(x64.flat[i])))
        except OverflowError:
            r.flat[i] = F32(np.inf)
    return r


def kernel_model(predict: Any, target: Any, dout: Any, weight: Any = None, pos_weight: Any = None,
                 scale: float = 1.0) -> np.ndarray:
    """The kernel's float32 result before narrowing, in its op order; None = the variant
    without that input. Inputs must share one shape."""
    x, y, d = _f32(predict), _f32(target), _f32(dout)
    one = F32(1.0)
    with np.errstate(all="ignore"):
        if pos_weight is not None:
            lw = _f32(pos_weight) * y
            a = lw + one
            a = a - y
            e = exp_f32(x * F32(-1.0))
            den = e + one
            p = one / den
            a = a * p
            g = a - lw
        else:
            e = exp_f32(x * F32(-1.0))
            den = e + one
            p = one / den
            g = p - y
        g = g * d
        if weight is not None:
            g = g * _f32(weight)
        if F32(scale) != one:
            g = g * F32(scale)
    return g.astype(F32)


def direct_model(predict: Any, target: Any, dout: Any, weight: Any = None, pos_weight: Any = None,
                 reduction: str | int = "mean") -> np.ndarray:
    """What `run_kernel` returns: the variant's float32 result narrowed to predict's dtype."""
    predict = np.asarray(predict)
    scale = global_scale(internal_reduction(reduction), predict.size)
    g = kernel_model(predict, target, dout, weight, pos_weight, scale)
    with np.errstate(over="ignore"):  # past the narrow type's range: +-Inf, as RNE says
        return g.astype(predict.dtype).reshape(predict.shape)


def numpy_model(grad_output: Any, self: Any, target: Any, weight: Any = None,
                pos_weight: Any = None, reduction: str | int = "mean") -> np.ndarray:
    """What aclnnBinaryCrossEntropyWithLogitsBackward writes into `out` (target's dtype)."""
    self, target, grad_output = np.asarray(self), np.asarray(target), np.asarray(grad_output)
    given = [t for t in (self, target, grad_output, weight, pos_weight) if t is not None]
    dtype = promote(*(np.asarray(t).dtype for t in given))
    shape = self.shape

    def full(t: Any) -> np.ndarray:
        if t is None:  # the API's OnesLike(self): the kernel always gets both weights
            return np.ones(shape, dtype=dtype)
        return np.broadcast_to(np.asarray(t).astype(dtype), shape)

    code = reduction_code(reduction)
    scale = global_scale(KMEAN if code == 1 else KNONE, self.size)
    g = kernel_model(self.astype(dtype), target.astype(dtype), full(grad_output), full(weight),
                     full(pos_weight), scale)
    with np.errstate(over="ignore"):  # past the narrow type's range: +-Inf, as RNE says
        return g.astype(dtype).astype(target.dtype).reshape(shape)


def _f64(a: Any) -> np.ndarray:
    return np.asarray(a).astype(np.float64)


def torch_reference(grad_output: Any, self: Any, target: Any, weight: Any = None,
                    pos_weight: Any = None, reduction: str | int = "mean") -> np.ndarray:
    """d(loss)/d(self) by torch autograd in float64.

    For "none" the upstream gradient is grad_output broadcast to self's shape. For "mean" and
    "sum" with a one-element grad_output (the public ST cases) it is the scalar loss's upstream
    gradient. For "mean"/"sum" with a larger grad_output the op's definition is element-wise
    (gradient * grad_output / N): that is the "none" gradient with upstream grad_output / N."""
    import torch
    import torch.nn.functional as F

    x = torch.tensor(_f64(self), requires_grad=True)
    y = torch.tensor(_f64(target))
    w = None if weight is None else torch.tensor(_f64(weight))
    pw = None if pos_weight is None else torch.tensor(_f64(pos_weight))
    g = torch.tensor(_f64(grad_output))
    code = reduction_code(reduction)
    if code != 0 and g.numel() == 1:
        name = "mean" if code == 1 else "sum"
        loss = F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw, reduction=name)
        loss.backward(g.reshape(()))
    else:
        loss = F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw,
                                                  reduction="none")
        upstream = torch.broadcast_to(g, x.shape)
        if code == 1:
            upstream = upstream / x.numel()
        loss.backward(upstream)
    return x.grad.numpy()


def error_bound(grad_output: Any, self: Any, target: Any, weight: Any = None,
                pos_weight: Any = None, reduction: str | int = "mean") -> np.ndarray:
    """Per element, a first-order bound (u = 2**-24) on |float32 chain - exact gradient| for
    the formula the kernel runs (pos_weight branch when pos_weight is given). With
    sigma = 1/(1+exp(-x)), D = |dout * w * scale|, P = pos_weight * y, A = P + 1 - y,
    G = A * sigma - P (or G = sigma - y without pos_weight):
      without pos_weight: u * D * (3 sigma + 6 |G|)
      with pos_weight:    u * D * (sigma (|P| + |P + 1| + 5 |A|) + |P| + 6 |G|)
    (exp, +1 and the division give sigma a relative error of at most 3u; the rest is one
    rounding per operation, plus the rounding of 1/N). Valid while exp(-x) does not overflow
    float32, i.e. x > -88.7; a few float32 subnormal quanta are added for underflow."""
    x = _f64(self)
    shape = x.shape
    y = np.broadcast_to(_f64(target), shape)
    u = 2.0 ** -24
    sigma = 1.0 / (1.0 + np.exp(-x))
    d = np.abs(np.broadcast_to(_f64(grad_output), shape))
    if weight is not None:
        d = d * np.abs(np.broadcast_to(_f64(weight), shape))
    if reduction_code(reduction) == 1:
        d = d / x.size
    if pos_weight is None:
        g = sigma - y
        terms = 3 * sigma + 6 * np.abs(g)
    else:
        p = np.broadcast_to(_f64(pos_weight), shape) * y
        a = p + 1 - y
        g = a * sigma - p
        terms = sigma * (np.abs(p) + np.abs(p + 1) + 5 * np.abs(a)) + np.abs(p) + 6 * np.abs(g)
    return u * d * terms * (1 + 1e-6) + 8 * 2.0 ** -149
