"""Independent references for MSELossV2 / aclnnMseLoss (numpy and ml_dtypes only; nothing from
ascsim).

- `split`: the A2 tiling's work split (CoreSplit / UBSplit / TileSplit of the fact sheet,
  cann_ops_more.md §1.4), re-derived here: cores, tile length, the tiles of every core.
- `kernel_model`: the kernel's float32 computation in its exact order (§1.7): per element
  d = x - y, q = d * d; for sum / mean, per core and per tile in order, the bisection fold of
  the tile's q values into <= 8 lanes, the partials scaled by s (1, or fl32(1/N) for mean)
  and added into the core's 8-lane accumulator; across cores the count-form vcadd (a pairwise
  tree inside each 64-float group of the 8 * C partials, masked lanes as +0, then the group
  sums added in order); the result rounded to the dtype with round-to-nearest-even.
- `numpy_model`: what aclnnMseLoss writes into `out` (promotion, broadcast, empty inputs).
- `torch_reference`: torch.nn.functional.mse_loss in float64 (the mathematical value of the
  promoted inputs to ~1e-16 relative).
- `error_bound`: an a-priori bound on |kernel - exact| per output element (see its doc).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Split", "split", "kernel_model", "numpy_model", "torch_reference", "error_bound",
           "promote", "reduction_name", "fold_points", "vcadd_sum", "UB_BYTES"]

F32 = np.float32
UB_BYTES = 196608
_NAMES = {0: "none", 1: "mean", 2: "sum"}


def reduction_name(reduction: str | int) -> str:
    return reduction.lower() if isinstance(reduction, str) else _NAMES[int(reduction)]


def promote(a: Any, b: Any) -> np.dtype:
    """PyTorch's promotion over fp16 / bf16 / fp32: equal types stay, fp16 with bf16 is fp32,
    otherwise the wider type."""
    a, b = np.dtype(a), np.dtype(b)
    if a == b:
        return a
    return np.dtype(F32)


@dataclass(frozen=True)
class Split:
    cores: int
    core_length: int            # elements per ordinary core (whole blocks)
    tile_length: int
    buffer_num: int
    tiles: tuple                # per core: ((offset, count), ...) in processing order


def split(n: int, itemsize: int, reduction: str | int, aiv_cores: int, ub: int = UB_BYTES,
          cores: int | None = None, tile_length: int | None = None) -> Split:
    """The tiling's split of n elements; `cores` / `tile_length` force the knobs' values."""
    red = reduction_name(reduction)
    epb = 32 // itemsize
    total_blocks = n // epb
    tail_elems = n % epb
    c = aiv_cores
    if total_blocks < c * 128:
        c = -(-total_blocks // 128)
    c = max(c, 1)
    if cores is not None:
        c = cores
    per_core, tail_blocks = divmod(total_blocks, c)
    cast = 0 if itemsize == 4 else 4

    def bpq(bn: int) -> int:
        if red == "none":
            return (ub // 32) // (3 * bn + cast)
        return ((ub - 32 * (c + 1)) // 32) // (2 * bn + cast)
    bn = 2 if per_core // bpq(1) > 1 else 1
    q = bpq(bn) if tile_length is None else tile_length // epb
    tiles = []
    for core in range(c):
        blocks = per_core + (tail_blocks if core == c - 1 else 0)
        extra = tail_elems if core == c - 1 else 0
        start = core * per_core * epb
        full, rest = divmod(blocks, q)
        mine = [(start + i * q * epb, q * epb) for i in range(full)]
        if rest * epb + extra > 0:
            mine.append((start + full * q * epb, rest * epb + extra))
        tiles.append(tuple(mine))
    return Split(c, per_core * epb, q * epb, bn, tuple(tiles))


def fold_points(n: int) -> list[int]:
    """The bisection's fold points for a tile of n elements: h = 8 * ceil(n / 16) while n > 8."""
    points = []
    while n > 8:
        n = 8 * (-(-n // 16))
        points.append(n)
    return points


def _tile_partials(q: np.ndarray, s: np.float32) -> np.ndarray:
    buf = q.astype(F32, copy=True)
    n = buf.size
    for h in fold_points(n):
        buf[:n - h] = buf[:n - h] + buf[h:n]
        n = h
    return buf[:n] * s


def _pairwise(v: np.ndarray) -> np.float32:
    while v.size > 1:
        v = v[0::2] + v[1::2]
    return v[0]


def vcadd_sum(v: np.ndarray) -> np.float32:
    """Count-form vcadd with accumulation: a pairwise tree in each 64-float repeat (masked lanes
    +0), then the repeat sums added in order."""
    v = np.asarray(v, dtype=F32)
    acc = None
    for g in range(0, v.size, 64):
        lanes = np.zeros(64, F32)
        part = v[g:g + 64]
        lanes[:part.size] = part
        t = _pairwise(lanes)
        acc = t if acc is None else F32(acc + t)
    return F32(acc)


def _narrow(v: np.ndarray | np.float32, dtype: np.dtype) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.asarray(v, dtype=F32).astype(dtype)


def kernel_model(x: Any, y: Any, reduction: str | int, aiv_cores: int, ub: int = UB_BYTES,
                 cores: int | None = None, tile_length: int | None = None) -> np.ndarray:
    """What the kernel writes for equal-shaped, equal-dtype x and y (fp32 / fp16 / bf16):
    x's shape for none, rank 0 otherwise, in x's dtype."""
    x, y = np.asarray(x), np.asarray(y)
    dtype = x.dtype
    with np.errstate(all="ignore"):
        d = x.reshape(-1).astype(F32) - y.reshape(-1).astype(F32)
        q = d * d
        red = reduction_name(reduction)
        if red == "none":
            return _narrow(q, dtype).reshape(x.shape)
        n = q.size
        s = F32(1.0 / n) if red == "mean" else F32(1.0)
        sp = split(n, dtype.itemsize, red, aiv_cores, ub, cores, tile_length)
        partials = np.zeros(8 * sp.cores, F32)
        for core, tiles in enumerate(sp.tiles):
            acc = np.zeros(8, F32)
            for off, cnt in tiles:
                p = _tile_partials(q[off:off + cnt], s)
                acc[:p.size] = p + acc[:p.size]
            partials[8 * core:8 * core + 8] = acc
        return _narrow(vcadd_sum(partials), dtype).reshape(())


def numpy_model(self: Any, target: Any, reduction: str | int = "mean", aiv_cores: int = 48,
                out_dtype: Any = None, ub: int = UB_BYTES, cores: int | None = None,
                tile_length: int | None = None) -> np.ndarray:
    """What aclnnMseLoss writes into `out` (dtype out_dtype, default the promoted one) on a
    device with `aiv_cores` AIV cores (48: ascsim's default profile); `cores` / `tile_length`
    force the split as the sweep knobs do."""
    self, target = np.asarray(self), np.asarray(target)
    dtype = promote(self.dtype, target.dtype)
    out_dtype = dtype if out_dtype is None else np.dtype(out_dtype)
    red = reduction_name(reduction)
    shape = np.broadcast_shapes(self.shape, target.shape)
    if self.size == 0 or target.size == 0:
        if red == "none":
            return np.empty(shape, out_dtype)
        return np.asarray(np.nan if red == "mean" else 0.0, dtype=F32).astype(out_dtype)
    # the API's Cast (exact widening, RNE narrowing) and BroadcastTo
    a = np.broadcast_to(self.astype(F32).astype(dtype), shape)
    b = np.broadcast_to(target.astype(F32).astype(dtype), shape)
    r = kernel_model(np.ascontiguousarray(a), np.ascontiguousarray(b), red, aiv_cores, ub,
                     cores, tile_length)
    return _narrow(r.astype(F32), out_dtype).reshape(r.shape)


def torch_reference(self: Any, target: Any, reduction: str | int = "mean") -> np.ndarray:
    """torch.nn.functional.mse_loss on the promoted inputs, computed in float64."""
    import torch
    import torch.nn.functional as F

    self, target = np.asarray(self), np.asarray(target)
    dtype = promote(self.dtype, target.dtype)
    a = torch.tensor(self.astype(dtype).astype(np.float64))
    b = torch.tensor(target.astype(dtype).astype(np.float64))
    a, b = torch.broadcast_tensors(a, b)
    return F.mse_loss(a, b, reduction=reduction_name(reduction)).numpy()


# by dtype name: "bfloat16" is ml_dtypes' (not imported unless the caller has bf16 arrays)
_UNIT = {"float32": 0.0, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}
_TINY = {"float32": 2.0 ** -150, "float16": 2.0 ** -25, "bfloat16": 2.0 ** -134}


def error_bound(self: Any, target: Any, reduction: str | int, aiv_cores: int = 48,
                ub: int = UB_BYTES) -> np.ndarray:
    """An a-priori bound on |kernel result - exact (float64) MSE of the promoted inputs|.

    u = 2**-24 (fp32), u_T the unit roundoff of the output type (0 fp32, 2**-11 fp16,
    2**-8 bf16), tiny_T half its smallest subnormal (2**-150, 2**-25, 2**-134).
    - none: q = fl(fl(x - y)^2) has relative error <= (1+u)^3 - 1 <= 3.01u; the RNE to T
      adds u_T relative or tiny_T absolute (underflow):
          |err| <= (3.01u + u_T(1 + 3.01u)) q + tiny_T.
    - sum: every term q_i >= 0 goes through at most D roundings of additions, D = the tile's
      fold count + the tiles of its core (accumulator adds) + 6 (the 64-lane tree) + the
      in-order group adds (ceil(8C / 64)); for non-negative terms the classic bound is
      gamma_D * sum, gamma_D = D u / (1 - D u). Relative: 3.01u + gamma_D(1 + 3.01u), then u_T.
    - mean: the same with each tile's partials multiplied by fl32(1/N): two more roundings
      (1/N to fp32 and the product), so D + 2; compared with the exact sum / N.
    A term of 8 * N * 2**-149 covers fp32 subnormal products.
    """
    self, target = np.asarray(self), np.asarray(target)
    dtype = promote(self.dtype, target.dtype)
    exact = np.abs(torch_reference(self, target, reduction))
    u = 2.0 ** -24
    ut, tiny = _UNIT[dtype.name], _TINY[dtype.name]
    red = reduction_name(reduction)
    n = int(np.prod(np.broadcast_shapes(self.shape, target.shape)))
    if red == "none":
        return (3.01 * u + ut * (1 + 3.01 * u)) * exact + tiny + 2.0 ** -149
    sp = split(n, dtype.itemsize, red, aiv_cores, ub)
    folds = len(fold_points(sp.tile_length)) + 1
    per_core = max(len(t) for t in sp.tiles)
    d = folds + per_core + 6 + -(-8 * sp.cores // 64) + (2 if red == "mean" else 0)
    gamma = d * u / (1 - d * u)
    rel = 3.01 * u + gamma * (1 + 3.01 * u)
    return (rel + ut * (1 + rel)) * exact + tiny + 8 * n * 2.0 ** -149
