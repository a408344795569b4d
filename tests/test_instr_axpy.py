"""Axpy: dst = scalar * src + dst, against references written here: numpy for the two-rounding
default (`axpy_fma = false`: the product rounded to T, then the sum), and exact rational
arithmetic (fractions) rounded to nearest-even by comparing the two neighbours for the fused
alternative. NaN, +-Inf, -0.0 and subnormals included, every pair (half/half, float/float,
half -> float)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from conftest import assert_same_bits, custom_profile, run_ub, tensor, ub_array

import ascsim
import ascsim.ascendc as A
from ascsim.ascendc import QuePosition, TBuf, TPipe, uint8_t
from ascsim.core import current_core
from ascsim.dtypes import float, half
from ascsim.errors import ParameterError

pytestmark = pytest.mark.instruction("Axpy")

DST, SRC = 0, 32768
PAIRS = [(half, half, np.float16, np.float16), (float, float, np.float32, np.float32),
         (float, half, np.float32, np.float16)]
SCALAR = 1.5


def _values(np_t: type, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 4).astype(np_t)
    tiny = np.finfo(np_t).smallest_subnormal
    x[:8] = [np.nan, np.inf, -np.inf, -0.0, 0.0, tiny, -3 * tiny, np.finfo(np_t).max]
    return x


def ref_two(s, x, d, nd):
    p = (np.float32(s) * x.astype(np.float32)).astype(nd if x.dtype == nd else np.float32)
    with np.errstate(all="ignore"):
        return (p.astype(np.float32) + d.astype(np.float32)).astype(nd)


def _rne(exact: Fraction, nd: type) -> object:
    """exact rounded to nearest-even in nd, by comparing the neighbours of a first guess."""
    with np.errstate(all="ignore"):
        f = nd(exact.numerator / exact.denominator) if abs(exact) < 2**1000 else nd(np.inf)
    if not np.isfinite(f):
        return f  # only reached at overflow
    cands = {f, np.nextafter(f, nd(np.inf)), np.nextafter(f, nd(-np.inf))}
    def key(c: object) -> tuple:
        dist = abs(Fraction(np.float64(c).item()) - exact) if np.isfinite(c) else 10**999
        return dist, int(np.array(c).view(f"u{np.dtype(nd).itemsize}")) & 1
    best = min(cands, key=key)
    if best == 0 and exact < 0:
        return nd(-0.0)
    return best


def ref_fused(s, x, d, nd):
    out = np.empty(len(x), nd)
    for i in range(len(x)):
        xs, ds = np.float64(x[i]), np.float64(d[i])
        if not (np.isfinite(xs) and np.isfinite(ds)):
            with np.errstate(all="ignore"):
                out[i] = nd(np.float64(s) * xs + ds)
            continue
        exact = Fraction(np.float64(s).item()) * Fraction(xs.item()) + Fraction(ds.item())
        if exact == 0:
            p0 = np.float64(s) * xs
            out[i] = nd(p0 + ds)  # the IEEE sign of an exact zero sum
        else:
            out[i] = _rne(exact, nd)
    return out


def _run(dt, st, nd, ns, n, profile=None, call=None):
    x = _values(ns, n, 1)
    d = _values(nd, n, 2)[::-1].copy()

    def body(ub):
        if call is None:
            A.Axpy(tensor(ub, DST, dt), tensor(ub, SRC, st), SCALAR, n)
        else:
            call(tensor(ub, DST, dt), tensor(ub, SRC, st))
    ub, _ = run_ub(body, [(DST, d), (SRC, x)], profile=profile)
    return ub_array(ub, DST, nd, n), x, d


@pytest.mark.parametrize("dt,st,nd,ns", PAIRS, ids=lambda p: str(p))
def test_count_form_two_roundings(dt, st, nd, ns) -> None:
    got, x, d = _run(dt, st, nd, ns, 300)
    assert_same_bits(got, ref_two(SCALAR, x, d, nd), f"Axpy<{dt}, {st}>")


@pytest.mark.parametrize("dt,st,nd,ns", PAIRS, ids=lambda p: str(p))
def test_count_form_fused(tmp_path, dt, st, nd, ns) -> None:
    profile = custom_profile(tmp_path, "axpy_fma", "true")
    got, x, d = _run(dt, st, nd, ns, 300, profile)
    assert_same_bits(got, ref_fused(SCALAR, x, d, nd), f"fused Axpy<{dt}, {st}>")


@pytest.mark.parametrize("np_t,one_ulp", [(np.float16, 2.0**-10), (np.float32, 2.0**-23)])
def test_fused_and_unfused_differ_where_they_must(tmp_path, np_t, one_ulp) -> None:
    """x = s = 1 + ulp: s*x = 1 + 2 ulp + ulp^2; with d = -(1 + 2 ulp) the unfused result is
    0 and the fused one ulp^2 (so a test of either setting can fail)."""
    dt = half if np_t is np.float16 else float
    s = 1 + one_ulp

    def call(d, x):
        A.Axpy(d, x, s, 16)
    init = [(DST, np.full(16, -(1 + 2 * one_ulp), np_t)), (SRC, np.full(16, s, np_t))]
    ub, _ = run_ub(lambda ub: call(tensor(ub, DST, dt), tensor(ub, SRC, dt)), init)
    assert (ub_array(ub, DST, np_t, 16) == 0).all()
    profile = custom_profile(tmp_path, "axpy_fma", "true")
    ub, _ = run_ub(lambda ub: call(tensor(ub, DST, dt), tensor(ub, SRC, dt)), init, profile)
    assert (ub_array(ub, DST, np_t, 16) == np_t(one_ulp * one_ulp)).all()


@pytest.mark.parametrize("dt,nd", [(half, np.float16), (float, np.float32)], ids=str)
def test_level0_form_mask_strides_and_counter_mode(dt, nd) -> None:
    per = 256 // dt.size
    mask = [0xF0F0_0000_0000_00FF, 0x1 if per > 64 else 0]
    bits = mask[0] | mask[1] << 64
    lanes = [j for j in range(per) if (bits >> j) & 1]
    n = 4096 // dt.size
    x = _values(nd, n, 3)
    d = _values(nd, n, 4)
    epb = 32 // dt.size

    def at(base, r, j, blk, rep):
        return base + (r * rep + (j // epb) * blk) * epb + j % epb
    want = d.copy()
    for r in range(2):
        for j in lanes:
            di, si = at(0, r, j, 2, 16), at(0, r, j, 1, 8)
            want[di] = ref_two(SCALAR, x[si:si + 1], d[di:di + 1], nd)[0]
    got, _, _ = (lambda ub: (ub_array(ub, DST, nd, n), None, None))(run_ub(
        lambda ub: A.Axpy(tensor(ub, DST, dt), tensor(ub, SRC, dt), SCALAR, mask, 2,
                          A.UnaryRepeatParams(2, 1, 16, 8)), [(DST, d), (SRC, x)])[0])
    assert_same_bits(got, want, "level-0 Axpy")

    count = per + 9

    def body(ub):
        A.SetMaskCount()
        A.SetVectorMask[dt, A.MaskMode.COUNTER](0, count)
        A.Axpy[dt, dt, False](tensor(ub, DST, dt), tensor(ub, SRC, dt), SCALAR,
                              A.MASK_PLACEHOLDER, 1, A.UnaryRepeatParams())
        A.SetMaskNorm()
    ub, _ = run_ub(body, [(DST, d), (SRC, x)])
    want = d.copy()
    want[:count] = ref_two(SCALAR, x[:count], d[:count], nd)
    assert_same_bits(ub_array(ub, DST, nd, n), want, "Counter-mode Axpy")


def test_count_form_leaves_normal_mode_full_mask_and_errors() -> None:
    def body(ub):
        A.SetVectorMask[float](0, 3)
        A.Axpy(tensor(ub, DST, float), tensor(ub, SRC, float), 2.0, 8)
        assert current_core().vmask is None
    run_ub(body)
    with pytest.raises(ParameterError, match=r"\(half, float\)"):
        run_ub(lambda ub: A.Axpy(tensor(ub, DST, half), tensor(ub, SRC, float), 1.0, 8))
    with pytest.raises(ParameterError, match="half -> float pair is not modelled"):
        run_ub(lambda ub: A.Axpy(tensor(ub, DST, float), tensor(ub, SRC, half), 1.0, 64, 1,
                                 A.UnaryRepeatParams()))
    with pytest.raises(ParameterError, match="Axpy<float, float>"):
        run_ub(lambda ub: A.Axpy[float, float](tensor(ub, DST, half), tensor(ub, SRC, half),
                                               1.0, 8))


def _checked(kernel, *gm, outputs=()):
    return ascsim.launch(kernel, 1, *gm, sanitize="check", outputs=outputs)


def test_mixed_pair_overlap_is_reported() -> None:
    def kernel():
        pipe = TPipe()
        buf = TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(buf, 8192)
        ub = buf.Get[uint8_t]()
        A.Duplicate(tensor(ub, 0, float), 1.0, 1024)
        A.Axpy(tensor(ub, 0, float), tensor(ub, 512, half), 1.0, 256)  # src inside dst
    run = _checked(kernel)
    assert [f.check for f in run.findings] == ["address overlap"]


def test_initcheck_sees_the_dst_read() -> None:
    """dst is read: an uninitialised dst makes the output uninitialised, a defined one not."""
    def kernel(out, init_dst):
        pipe = TPipe()
        q = A.TQue[QuePosition.VECOUT, 1]()
        pipe.InitBuffer(q, 1, 1024)
        buf = TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(buf, 1024)
        t = q.AllocTensor[float]()
        src = buf.Get[float]()
        A.Duplicate(src, 1.0, 64)
        if init_dst:
            A.Duplicate(t, 0.0, 64)
        A.Axpy(t, src, 2.0, 64)
        q.EnQue(t)
        t = q.DeQue[float]()
        g = A.GlobalTensor[float]()
        g.SetGlobalBuffer(out)
        A.DataCopy(g, t, 64)
        q.FreeTensor(t)
    bad = _checked(lambda out: kernel(out, False), np.zeros(64, np.float32), outputs=(0,))
    good = _checked(lambda out: kernel(out, True), np.zeros(64, np.float32), outputs=(0,))
    assert any("uninit" in f.check for f in bad.findings), bad.findings
    assert not good.findings
