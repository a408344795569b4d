"""The sanitizer's taint map (sanitizer/shadow.py) against a byte-by-byte model.

The map keeps a summary per 32-byte block and a count of unclean blocks per super-block, and
its range operations skip clean super-blocks whole; a random mix of operations over ranges that
start, end and span anywhere must leave it answering as a plain per-byte array does.
"""

from __future__ import annotations

import numpy as np

from ascsim.sanitizer import shadow as sh

UB = 5 * sh.SUPER * sh.BLOCK + 3 * sh.BLOCK  # five super-blocks and a short sixth


class _Model:
    """Per byte: the uninitialised bits and the first reader (-1: nobody read it yet)."""

    def __init__(self) -> None:
        self.bits = np.full(UB, 0xFF, np.uint8)
        self.orig = np.full(UB, -1, np.int64)

    def clean(self, lo: int, hi: int) -> None:
        self.bits[lo:hi] = 0

    def mark(self, lo: int, hi: int, origin: int) -> None:
        self.bits[lo:hi] = 0xFF
        self.orig[lo:hi] = origin

    def set(self, i: int, val: int, origin: int) -> None:
        self.bits[i] = val
        if val:
            self.orig[i] = origin

    def read(self, lo: int, hi: int, rec: int) -> tuple[bool, int]:
        hit = np.flatnonzero(self.bits[lo:hi]) + lo
        unread = hit[self.orig[hit] < 0]
        self.orig[unread] = rec
        return (True, int(self.orig[hit[0]])) if hit.size else (False, -1)


def _counts_agree(tsum: np.ndarray) -> bool:
    nb = (UB + sh.BLOCK - 1) // sh.BLOCK
    unclean = tsum[:nb] != sh.CLEAN
    return all(int(tsum[nb + k]) == int(unclean[k * sh.SUPER:(k + 1) * sh.SUPER].sum())
               for k in range(len(tsum) - nb))


def test_taint_map_answers_as_a_byte_array_does() -> None:
    rng = np.random.default_rng(7)
    tsum = sh.t_new(UB)
    tb = np.empty(UB, np.uint8)  # stale bytes are the map's to ignore
    tb[:] = rng.integers(0, 256, UB)
    torig = rng.integers(-5, 5, UB).astype(np.int64)
    model = _Model()

    edge = sh.SUPER * sh.BLOCK

    def span() -> tuple[int, int]:
        """Anywhere, or within a block of a super-block's edge (where the whole-super-block
        shortcuts start and stop)."""
        if rng.integers(0, 2):
            lo = int(rng.integers(0, UB))
            return lo, min(UB, lo + int(rng.choice([1, 7, 32, 200, 2048, 9000, UB])))
        lo = max(0, int(rng.integers(0, UB // edge + 1)) * edge + int(rng.integers(-40, 41)))
        n = int(rng.integers(1, 4)) * edge + int(rng.integers(-40, 41))
        return min(lo, UB - 1), min(UB, lo + max(n, 1))

    for step in range(3000):
        op = rng.integers(0, 6)
        lo, hi = span()
        if op == 0:
            sh.t_clean(tsum, tb, torig, lo, hi)
            model.clean(lo, hi)
        elif op == 1:
            origin = int(rng.choice([-1, step]))
            sh.t_mark(tsum, tb, torig, lo, hi, origin)
            model.mark(lo, hi, origin)
        elif op == 2:
            val, origin = int(rng.choice([0, 1, 0x80, 0xFF])), int(rng.integers(-1, 50))
            sh.t_set(tsum, tb, torig, lo, np.uint8(val), origin)
            model.set(lo, val, origin)
        elif op == 3:
            assert sh.t_any(tsum, tb, lo, hi) == bool(model.bits[lo:hi].any()), step
        elif op == 4:
            assert sh.t_read(tsum, tb, torig, lo, hi, step) == model.read(lo, hi, step), step
        else:
            assert sh.t_get(tsum, tb, lo) == model.bits[lo], step
            if model.bits[lo]:
                want = model.orig[lo] if model.orig[lo] >= 0 else step
                assert sh.t_origin(tsum, tb, torig, lo, step) == want, step
                model.orig[lo] = want
        assert _counts_agree(tsum), step
    assert (tsum[:(UB + 31) // 32] == sh.CLEAN).any() and (tsum[:(UB + 31) // 32] != 0).any()
