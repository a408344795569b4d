"""Independent references for CrossEntropyLoss: a float32 numpy model in the kernel's order of
operations and accumulation (bit-exact by construction), and PyTorch's cross_entropy /
log_softmax (the documented maths).

The model uses numpy / ml_dtypes only, never ascsim: widening fp16 / bf16 is exact; narrowing
(CAST_RINT) is `astype` with round-to-nearest-even; Exp and Ln are float64 `exp` / `log`
rounded once to float32 (ascsim's documented Exp / Ln semantics); every sum is the kernel's
tree of adjacent pairs in float32 (64-lane repeats, masked lanes +0.0, 8-element blocks), and
the scalar accumulations happen in the kernel's order:
- per row: the max; S = sum over chunks (inputUbSize elements), then over 8192-element
  sub-blocks, of the sub-block's tree sum (a 4096 < len < 8192 piece: S + (d0 + d1));
  lse = ln(S) + max; log_prob = x + (-lse); g = log_prob[t]; the smoothing sum sigma likewise
  over log_prob (* weight); ln_r = g * w;
- per core (its rows): the same tree sums (GetReduceSum) of ln, w and -sigma;
- across cores: one 64-lane tree over the core partials (+0.0 beyond the used cores);
- the final scalar arithmetic: -Sum ln, or (ls - 1) Sum ln + Sum smooth * (ls / C); / Sum w.
The work split (cores, chunk length) follows the tiling's formulas, which the model restates.
"""

from __future__ import annotations

import numpy as np

__all__ = ["numpy_model", "torch_reference", "torch_tolerance", "split", "default_tile"]

F32 = np.float32
VEC = 8192
HALF_VEC = 4096
UB_BYTES = 196608
DEFAULT_CORES = 48


def _narrow(dtype: np.dtype) -> bool:
    """float16 or bfloat16 (the op's dtypes besides float32), without importing ml_dtypes."""
    return np.dtype(dtype).itemsize == 2


_U = 2.0 ** -24  # the float32 unit roundoff


def _tree(v: np.ndarray) -> np.float32:
    """Adjacent-pair tree sum of a power-of-two number of float32 values."""
    v = np.asarray(v, F32)
    with np.errstate(all="ignore"):
        while v.size > 1:
            v = (v[0::2] + v[1::2]).astype(F32)
    return F32(v[0])


def _lanes(v: np.ndarray, n: int = 64) -> np.float32:
    """One repeat of WholeReduceSum: the values in the first lanes, +0.0 in the rest."""
    pad = np.zeros(n, F32)
    pad[:v.size] = v
    return _tree(pad)


def _small(v: np.ndarray) -> np.float32:
    """The <= 4096 recipe: a tree per 64, a masked tree of the tail, a tree over the partials."""
    q, tail = divmod(v.size, 64)
    parts = [_tree(v[64 * i:64 * (i + 1)]) for i in range(q)]
    if tail:
        parts.append(_lanes(v[64 * q:]))
    return _lanes(np.array(parts, F32))


def reduce_sum(v: np.ndarray) -> tuple[np.float32, ...]:
    """GetReduceSum of len(v) <= 8192 values: (sum,) or, for 4096 < len < 8192, (d0, d1)."""
    if v.size == VEC:
        return (_tree(v),)
    if v.size <= HALF_VEC:
        return (_small(v),)
    return (_tree(v[:HALF_VEC]), _small(v[HALF_VEC:]))


def reduce_to_scalar(v: np.ndarray) -> np.float32:
    parts = reduce_sum(v)
    return parts[0] if len(parts) == 1 else F32(parts[0] + parts[1])


def _row_max(x: np.ndarray) -> np.float32:
    if np.isnan(x).any():
        return F32(np.nan)
    return F32(max(F32(-3.4028235e38), x.max()))


def _chunks(c: int, tile: int) -> list[tuple[int, int]]:
    loops, tail = (c // tile, c % tile) if c > tile else (0, c)
    out = [(k * tile, tile) for k in range(loops)]
    if tail:
        out.append((loops * tile, tail))
    return out


def _sub_sums(acc: np.float32, v: np.ndarray) -> np.float32:
    """acc + each 8192-element sub-block's GetReduceSum in order (the scalar accumulator)."""
    with np.errstate(all="ignore"):
        for j in range(0, v.size, VEC):
            acc = F32(acc + reduce_to_scalar(v[j:j + VEC]))
    return acc


def split(n: int, cores: int) -> list[tuple[int, int]]:
    """(start row, rows) per core: CoresSplitTiling."""
    if n < cores:
        return [(i, 1) for i in range(n)]
    r = n % cores
    front = cores if r == 0 else r
    fb = -(-n // cores)
    tb = 0 if r == 0 else n // cores
    out = [(i * fb, fb) for i in range(front)]
    out += [(front * fb + i * tb, tb) for i in range(cores - front)]
    return out


def default_tile(n: int, c: int, itemsize: int, smoothing_weight: bool, cores: int,
                 ub: int = UB_BYTES) -> int:
    """inputUbSize of UbSplitTiling."""
    f = 1 if n < cores else -(-n // cores)
    ln = -(-4 * f // 32) * 32
    reserve = 3 * ln + 32 + 32 + 4096
    w = 1 if smoothing_weight else 0
    div = (1 + w) if itemsize == 4 else (4 + 2 * w)
    ubyte = (ub - reserve) // div // 512 * 512
    ubyte = min(ubyte, -(-itemsize * c // 32) * 32)
    return ubyte // itemsize


def numpy_model(input: np.ndarray, target: np.ndarray, weight: np.ndarray | None = None,
                reduction: str = "mean", ignore_index: int = -100,
                label_smoothing: float = 0.0, cores: int = DEFAULT_CORES,
                tile: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(loss, log_prob) as the kernel computes them on `cores` cores with chunks of `tile`
    elements (default: the tiling's): loss (N) for none, (1) otherwise, in input's dtype."""
    x = np.asarray(input)
    dtype = x.dtype
    xf = x.astype(F32)
    n, c = xf.shape
    tgt = np.asarray(target).astype(np.int64)
    wt = None if weight is None else np.asarray(weight).astype(F32)
    ls = F32(label_smoothing)
    smoothing = ls > F32(0)
    if tile is None:
        tile = default_tile(n, c, dtype.itemsize, bool(smoothing and wt is not None), cores)
    log_prob = np.empty((n, c), F32)
    ln = np.zeros(n, F32)
    wv = np.zeros(n, F32)
    smooth = np.zeros(n, F32)
    with np.errstate(all="ignore"):
        for r in range(n):
            row = xf[r]
            m = _row_max(row)
            t = int(tgt[r])
            ignored = t == ignore_index
            valid = ignored or 0 <= t < c
            w = F32(0) if ignored else F32(np.nan) if not valid else (
                F32(1) if wt is None else wt[t])
            s_acc = F32(0)
            for o, length in _chunks(c, tile):
                e = np.exp((row[o:o + length] + (-m)).astype(F32).astype(np.float64)).astype(F32)
                s_acc = _sub_sums(s_acc, e)
            lse = F32(F32(np.log(np.float64(s_acc))) + m)
            g = F32(0) if valid else F32(np.nan)
            sigma = F32(0)
            for o, length in _chunks(c, tile):
                lp = (row[o:o + length] + (-lse)).astype(F32)
                log_prob[r, o:o + length] = lp
                if valid and not ignored and o <= t < o + length:
                    g = lp[t - o]
                if smoothing and not ignored:
                    v = lp if wt is None else (lp * wt[o:o + length]).astype(F32)
                    sigma = _sub_sums(sigma, v)
            ln[r] = F32(g * w)
            wv[r] = w
            smooth[r] = -sigma
        s = F32(ls / F32(c))
        if reduction == "none":
            if smoothing:
                loss = ((ln * F32(ls - F32(1))).astype(F32) + (smooth * s).astype(F32)).astype(F32)
            else:
                loss = (ln * F32(-1)).astype(F32)
        else:
            parts = split(n, cores)
            ln_p = np.array([reduce_to_scalar(ln[a:a + b]) for a, b in parts], F32)
            ln_sum = _lanes(ln_p)
            value = F32(-ln_sum)
            if smoothing:
                sm_p = np.array([reduce_to_scalar(smooth[a:a + b]) for a, b in parts], F32)
                value = F32(F32(F32(ls - F32(1)) * ln_sum) + F32(_lanes(sm_p) * s))
            if reduction == "mean":
                w_p = np.array([reduce_to_scalar(wv[a:a + b]) for a, b in parts], F32)
                value = F32(value / _lanes(w_p))
            loss = np.array([value], F32)
        if _narrow(dtype):
            return loss.astype(dtype), log_prob.astype(dtype)
    return loss, log_prob


def torch_reference(input: np.ndarray, target: np.ndarray, weight: np.ndarray | None = None,
                    reduction: str = "mean", ignore_index: int = -100,
                    label_smoothing: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """torch.nn.functional.cross_entropy and log_softmax on CPU in float32 (loss (N) or 0-D,
    log_prob (N, C)), float32 results."""
    import torch
    xt = torch.from_numpy(np.ascontiguousarray(np.asarray(input).astype(F32)))
    tt = torch.from_numpy(np.ascontiguousarray(np.asarray(target).astype(np.int64)))
    wt = None if weight is None else torch.from_numpy(np.asarray(weight).astype(F32))
    loss = torch.nn.functional.cross_entropy(xt, tt, wt, ignore_index=int(ignore_index),
                                             reduction=reduction,
                                             label_smoothing=float(label_smoothing))
    return loss.numpy(), torch.log_softmax(xt, dim=1).numpy()


def torch_tolerance(input: np.ndarray, t: np.ndarray, w: np.ndarray | None = None,
                    red: str = "mean", ignore: int = -100, ls: float = 0.0
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(loss tolerance, log_prob tolerance): how far the kernel's result may lie from
    PyTorch's float32 cross_entropy / log_softmax (rounded to the input's dtype), derived from
    float64 values of the inputs (u = 2^-24). Both compute lp_i = x_i - m - ln S, S = sum_j
    exp(x_j - m), in float32 in different orders (the kernel: lse = ln S + m, then x - lse;
    PyTorch: (x - m) - ln S). A sum of C positive terms in any order is within (C - 1) u
    relatively, exp adds u per term, so ln S is within C u + u |ln S| on each side; the other
    roundings add u |x - m|, u |lse|, u |lp|: per side u (C + |x - m| + |ln S| + |lse| + |lp|)
    to first order; the two sides differ by at most twice that ((C + 2) covers the second-order
    terms). A row's loss (ls - 1) w lp_t - (ls / C) sum_c w_c lp_c takes the log-prob bounds
    weighted by |w| plus its products' and sum's (C + 3) u |terms| and 4 u |loss|; a sum over
    rows adds (N + 2) u sum |loss_r|; a mean divides by sum w and adds its (N + 2) u relative
    error. fp16 / bf16: both sides round a float32 value to nearest-even, so add one ULP of
    the output dtype."""
    x = np.asarray(input)
    dtype = x.dtype
    t = np.asarray(t)
    xf = x.astype(np.float64)
    n, c = xf.shape
    m = xf.max(axis=1, keepdims=True)
    ln_s = np.log(np.exp(xf - m).sum(axis=1, keepdims=True))
    lse = ln_s + m
    lp = xf - lse
    tol_lp = _U * (2 * (c + 2) + 2 * (np.abs(xf - m) + np.abs(ln_s) + np.abs(lse) + np.abs(lp)))
    wc = np.ones(c) if w is None else np.asarray(w, np.float64)
    rows = np.arange(n)
    ignored = t == ignore
    tt = np.where(ignored, 0, t)
    wt = np.where(ignored, 0.0, wc[tt])
    g_tol = tol_lp[rows, tt] * np.abs(wt)
    nll = -wt * lp[rows, tt]
    smooth = -(lp * wc).sum(axis=1) * (~ignored)
    loss_r = (1 - ls) * nll + ls / c * smooth
    tol_r = (abs(1 - ls) * g_tol + ls / c * ((tol_lp * wc).sum(axis=1)
                                             + (c + 3) * _U * np.abs(lp * wc).sum(axis=1))
             + 4 * _U * np.abs(loss_r))
    if red == "none":
        tol_loss, value = tol_r, loss_r
    else:
        tol_loss = tol_r.sum() + (n + 2) * _U * np.abs(loss_r).sum()
        value = loss_r.sum()
        if red == "mean":
            value, tol_loss = value / wt.sum(), tol_loss / wt.sum() + (n + 2) * _U * abs(
                value / wt.sum())
    if _narrow(dtype):  # one output ULP for the final rounding on either side
        tol_lp = tol_lp + np.spacing(np.abs(lp).astype(dtype)).astype(np.float64)
        tol_loss = tol_loss + np.spacing(np.abs(value).astype(dtype)).astype(np.float64)
    return tol_loss, tol_lp
