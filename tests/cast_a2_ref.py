"""Independent references for the Cast pairs of ascendc_more.md §2.3 beyond the first dozen:
float sources widened by numpy / ml_dtypes to float64 (exact), rounded with np.rint / np.floor /
np.ceil / np.trunc or half-away-from-zero, then clipped with Python ints (NaN -> 0, +-Inf ->
the range ends [assumed, as float -> int32]); integers narrowed by np.clip or numpy's wrapping
astype; int64 -> float from the two float32 neighbours of the exact Python int."""

from __future__ import annotations

import math

import numpy as np

from ascsim.ascendc import RoundMode as RM

F32 = np.dtype(np.float32)


def round_with(v: float, mode: RM) -> float:
    """A finite float64 `v` (a float32, half or bf16 value) rounded to an integral float64."""
    if mode == RM.CAST_FLOOR:
        return float(np.floor(v))
    if mode == RM.CAST_CEIL:
        return float(np.ceil(v))
    if mode == RM.CAST_TRUNC:
        return float(np.trunc(v))
    if mode == RM.CAST_ROUND:   # ties away; v + 0.5 is exact below 2**52, integral above
        return v if abs(v) >= 2.0**52 else float(np.trunc(v + math.copysign(0.5, v)))
    return float(np.rint(v))


def float_to_int(x: np.ndarray, dst: np.dtype, mode: RM) -> np.ndarray:
    lo, hi = int(np.iinfo(dst).min), int(np.iinfo(dst).max)
    with np.errstate(invalid="ignore", over="ignore"):
        x64 = x.astype(np.float64)
    out = []
    for v in x64:
        if math.isnan(v):
            out.append(0)
            continue
        r = v if math.isinf(v) else round_with(v, mode)
        out.append(lo if r <= lo else hi if r >= hi else int(r))
    return np.array(out, dst).view(f"u{dst.itemsize}")


def int_narrow(x: np.ndarray, dst: np.dtype, mode: RM, wrap: bool = False) -> np.ndarray:
    info = np.iinfo(dst)
    y = x.astype(dst) if wrap else np.clip(x.astype(np.int64), info.min, info.max).astype(dst)
    return y.view(f"u{dst.itemsize}")


def int_widen(x: np.ndarray, dst: np.dtype, mode: RM) -> np.ndarray:
    return x.astype(dst).view(f"u{dst.itemsize}")


def pick_up(mag: int, down: int, up: int, down_odd: bool, mode: RM, neg: bool) -> bool:
    """Exact integers: True to take `up` (away from zero)."""
    if mode == RM.CAST_TRUNC:
        return False
    if mode == RM.CAST_FLOOR:
        return neg
    if mode == RM.CAST_CEIL:
        return not neg
    below, above = mag - down, up - mag
    if below != above:
        return above < below
    return mode == RM.CAST_ROUND or down_odd


def int64_to_float(x: np.ndarray, dst: np.dtype, mode: RM) -> np.ndarray:
    out = np.empty(x.size, F32)
    for k, v in enumerate(int(i) for i in x):
        mag = abs(v)
        f = np.float32(mag)   # a neighbour of mag (maybe the upper one)
        if int(f) == mag:
            r = f
        else:
            down = f if int(f) < mag else np.nextafter(f, np.float32(0))
            up = np.nextafter(down, np.float32(np.inf))
            odd = bool(np.array(down).view(np.uint32) & 1)
            r = up if pick_up(mag, int(down), int(up), odd, mode, v < 0) else down
        out[k] = -r if v < 0 else r
    return out.view(np.uint32)


def deq_to_half(x: np.ndarray, scale: float, saturate: bool = False) -> np.ndarray:
    """int32 -> half via DEQSCALE: float32(x) (nearest even), times the half scale in float32
    (numpy: one rounding), then numpy's nearest-even float32 -> float16 [assumed steps]."""
    with np.errstate(over="ignore"):
        p = x.astype(F32) * np.float32(np.float16(scale))
        h = p.astype(np.float16)
    bits = h.view(np.uint16).copy()
    if saturate:
        bits[np.isinf(h)] = (bits[np.isinf(h)] & 0x8000) | 0x7BFF
    return bits
