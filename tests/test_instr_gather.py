"""Gather and GatherMask against numpy models written here from ascendc_more.md §5: Gather's
dst[i] = the element at byte src + srcBaseAddr + srcOffset[i]; GatherMask's selected lanes
(LSB first) compacted into dst, rsvdCnt = how many. Values move as bits, so NaN payloads,
-0.0, Inf and subnormals come through unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import custom_profile, run_ub, tensor

import ascsim
import ascsim.ascendc as A
from ascsim.ascendc import QuePosition, TBuf, TPipe, uint8_t
from ascsim.core import current_core
from ascsim.dtypes import bfloat16_t, float, half, int16_t, int32_t, uint16_t, uint32_t
from ascsim.errors import OutOfRangeError, ParameterError

DST, SRC, OFF, PAT = 0, 32768, 65536, 131072
DTYPES = [(float, np.uint32), (int32_t, np.uint32), (uint32_t, np.uint32), (half, np.uint16),
          (bfloat16_t, np.uint16), (int16_t, np.uint16), (uint16_t, np.uint16)]
SPECIAL32 = [0x7FC00001, 0xFF800000, 0x7F800000, 0x80000000, 0x00000001, 0x807FFFFF]
SPECIAL16 = [0x7E01, 0xFC00, 0x7C00, 0x8000, 0x0001, 0x83FF]


def _src(u: type, n: int = 4096) -> np.ndarray:
    rng = np.random.default_rng(2)
    x = rng.integers(0, 2 ** (8 * np.dtype(u).itemsize), n, dtype=np.uint64).astype(u)
    x[:6] = x[32:38] = SPECIAL32 if u is np.uint32 else SPECIAL16
    return x


def _init(u, offsets, pattern=None) -> list:
    init = [(DST, np.full(SRC - DST, 0xA5, np.uint8)), (SRC, _src(u)),
            (OFF, np.asarray(offsets, np.uint32))]
    if pattern is not None:
        init.append((PAT, pattern))
    return init


def _dst(ub: np.ndarray, u: type, n: int) -> np.ndarray:
    return ub[DST:DST + n * np.dtype(u).itemsize].view(u)


def _checked(body, init=(), profile=None) -> ascsim.Run:
    def kernel() -> None:
        pipe = TPipe()
        buf = TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(buf, 196608)
        core = current_core()
        for addr, arr in init:
            raw = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
            core.ub[addr:addr + raw.size] = raw
        body(buf.Get[uint8_t]())
    return ascsim.launch(kernel, 1, sanitize="check", profile=profile)


# ---- Gather ----------------------------------------------------------------------------------

@pytest.mark.instruction("Gather")
@pytest.mark.parametrize("dt,u", DTYPES, ids=str)
@pytest.mark.parametrize("count", [1, 100, 300])
def test_gather_count_form(dt, u, count) -> None:
    size = dt.size
    rng = np.random.default_rng(count)
    base = 64
    target = rng.integers(base // size, 1000, count)     # src elements
    target[:6] = np.arange(32, 38)[:count]               # the special values
    offsets = target * size - base
    want = _src(u)[target]
    ub, _ = run_ub(lambda ub: A.Gather(tensor(ub, DST, dt), tensor(ub, SRC, dt, 4096),
                                       tensor(ub, OFF, uint32_t), base, count),
                   _init(u, offsets))
    np.testing.assert_array_equal(_dst(ub, u, count), want)
    assert (ub[DST + count * size:DST + count * size + 64] == 0xA5).all()


def _ref_repeat(u, offsets, base, lanes_by_repeat, drep, size, n_out):
    src = _src(u)
    out = np.full(n_out, 0xA5A5A5A5 if size == 4 else 0xA5A5, u)
    per = 256 // size
    for r, lanes in enumerate(lanes_by_repeat):
        for j in lanes:
            out[r * drep * 32 // size + j] = src[(offsets[r * per + j] + base) // size]
    return out


@pytest.mark.instruction("Gather")
@pytest.mark.parametrize("dt,u", [(float, np.uint32), (half, np.uint16), (int16_t, np.uint16)],
                         ids=str)
def test_gather_repeat_form_normal_and_counter(dt, u) -> None:
    size = dt.size
    per = 256 // size
    rng = np.random.default_rng(9)
    offsets = rng.integers(0, 2000, 4 * per) * size
    mask = [0x8000_0000_0000_F00F, 0x1 if per > 64 else 0]
    bits = mask[0] | mask[1] << 64
    lanes = [j for j in range(per) if (bits >> j) & 1]
    ub, _ = run_ub(lambda ub: A.Gather(tensor(ub, DST, dt), tensor(ub, SRC, dt, 4096),
                                       tensor(ub, OFF, uint32_t), 32, mask, 3, 12),
                   _init(u, offsets))
    n = 4 * 12 * 32 // size
    np.testing.assert_array_equal(_dst(ub, u, n), _ref_repeat(u, offsets, 32, [lanes] * 3, 12,
                                                              size, n))
    count = per + 17  # Counter mode: one full repeat and 17 lanes of the next

    def body(ub):
        A.SetMaskCount()
        A.SetVectorMask[dt, A.MaskMode.COUNTER](0, count)
        A.Gather(tensor(ub, DST, dt), tensor(ub, SRC, dt, 4096), tensor(ub, OFF, uint32_t), 0,
                 [count, 0], 1, 8)
        A.SetMaskNorm()
    ub, _ = run_ub(body, _init(u, offsets))
    want = _ref_repeat(u, offsets, 0, [range(per), range(17)], 8, size, 4 * per)
    np.testing.assert_array_equal(_dst(ub, u, 4 * per), want)


@pytest.mark.instruction("Gather")
def test_gather_count_form_repeat_wrap(tmp_path) -> None:
    """count >= 256*E: with gather_repeat_wrap = emulate only (count/E mod 256) full repeats run
    (then the tail); 'none' writes everything."""
    dt, u = float, np.uint32
    per = 64
    count = 256 * per + 2 * per + 5                      # 258 full repeats + 5
    offsets = ((np.arange(count) % 1000) * 4).astype(np.uint32)
    o, d, s = 0, 66560, 133120

    def body(ub):
        A.Gather(tensor(ub, d, dt, count), tensor(ub, s, dt, 1024), tensor(ub, o, uint32_t), 0,
                 count)
    init = [(o, offsets), (d, np.full(count * 4, 0xEE, np.uint8)), (s, _src(u, 1024))]
    run = _checked(body, init)
    got = run.cores[0].ub[d:d + 4 * count].view(u)
    want = _src(u, 1024)[offsets // 4]
    written = np.r_[0:2 * per, 258 * per:count]
    np.testing.assert_array_equal(got[written], want[written])
    assert (got[2 * per:258 * per] == 0xEEEEEEEE).all()
    assert [f.severity for f in run.findings] == ["WARNING"]
    assert "only 2 run" in run.findings[0].message
    profile = custom_profile(tmp_path, "gather_repeat_wrap", '"none"')
    run = _checked(body, init, profile)
    np.testing.assert_array_equal(run.cores[0].ub[d:d + 4 * count].view(u), want)
    assert not run.findings


@pytest.mark.instruction("Gather")
def test_gather_errors_bounds_and_overlap() -> None:
    def call(offsets, base=0, dst=DST, src_size=64, dt=float, odt=uint32_t):
        run_ub(lambda ub: A.Gather(tensor(ub, dst, dt), tensor(ub, SRC, float, src_size),
                                   tensor(ub, OFF, odt), base, len(offsets)),
               _init(np.uint32, offsets))
    with pytest.raises(OutOfRangeError, match=r"srcOffset\[1\] \+ srcBaseAddr = 256 bytes "
                                              "reads outside src"):
        call([0, 256])
    with pytest.raises(OutOfRangeError, match="reads outside src"):
        call([0, 248], base=8)
    with pytest.raises(ParameterError, match="not a multiple of sizeof"):
        call([0, 6])
    with pytest.raises(ParameterError, match="uint32"):
        call([0, 4], odt=int32_t)
    with pytest.raises(ParameterError, match="16- or 32-bit"):
        run_ub(lambda ub: A.Gather(tensor(ub, DST, A.int8_t), tensor(ub, SRC, A.int8_t),
                                   tensor(ub, OFF, uint32_t), 0, 8))
    run = _checked(lambda ub: A.Gather(tensor(ub, SRC + 32, float), tensor(ub, SRC, float, 64),
                                       tensor(ub, OFF, uint32_t), 0, 8),
                   _init(np.uint32, np.zeros(8)))
    assert [f.check for f in run.findings] == ["address overlap"]
    run = _checked(lambda ub: A.Gather(tensor(ub, DST, float), tensor(ub, SRC, float, 64),
                                       tensor(ub, OFF, uint32_t), 0, 8),
                   _init(np.uint32, np.arange(8) * 4))
    assert not run.findings


@pytest.mark.instruction("Gather")
def test_gather_reads_uninitialised_src_taints_dst() -> None:
    """initcheck: Gather's dst is uninitialised when any src byte is (GATHER dataflow): the
    fresh queue buffer's bytes reach GM."""
    def kernel(out) -> None:
        pipe = TPipe()
        q = A.TQue[QuePosition.VECOUT, 1]()
        pipe.InitBuffer(q, 1, 4096)
        buf = TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(buf, 4096)
        t = q.AllocTensor[float]()
        off = buf.Get[uint32_t]()
        A.Duplicate(off, 0, 64)
        A.Duplicate(t[512], 1.0, 64)  # dst half initialised; src (t[0..]) is not
        A.Gather(t[512], t, off, 0, 64)
        q.EnQue(t)
        t = q.DeQue[float]()
        g = A.GlobalTensor[float]()
        g.SetGlobalBuffer(out)
        A.DataCopy(g, t[512], 64)
        q.FreeTensor(t)
    run = ascsim.launch(kernel, 1, np.zeros(64, np.float32), sanitize="check", outputs=(0,))
    assert any("uninit" in f.check for f in run.findings), run.findings


# ---- GatherMask ------------------------------------------------------------------------------

def _ref_mask(u, select, nl, repeat, blk, rep):
    src = _src(u)
    epb = 32 // np.dtype(u).itemsize
    out = []
    for r in range(repeat):
        for j in range(nl):
            if select(r, j):
                out.append(src[(r * rep + (j // epb) * blk) * epb + j % epb])
    return np.array(out, u)


@pytest.mark.instruction("GatherMask")
@pytest.mark.parametrize("dt,u", DTYPES, ids=str)
@pytest.mark.parametrize("pattern", range(1, 8))
def test_gather_mask_builtin_patterns(dt, u, pattern) -> None:
    period, lane = {1: (2, 0), 2: (2, 1), 3: (4, 0), 4: (4, 1), 5: (4, 2), 6: (4, 3),
                    7: (1, 0)}[pattern]
    nl = 256 // dt.size
    got = []
    ub, _ = run_ub(lambda ub: got.append(A.GatherMask(
        tensor(ub, DST, dt), tensor(ub, SRC, dt), pattern, False, 0,
        A.GatherMaskParams(1, 3, 8, 0), None)), _init(u, [0]))
    want = _ref_mask(u, lambda r, j: j % period == lane, nl, 3, 1, 8)
    assert got == [len(want)]
    np.testing.assert_array_equal(_dst(ub, u, len(want)), want)
    assert (ub[DST + len(want) * dt.size:DST + len(want) * dt.size + 32] == 0xA5).all()


@pytest.mark.instruction("GatherMask")
@pytest.mark.parametrize("dt,u,pu", [(float, np.uint32, np.uint32), (half, np.uint16, np.uint16),
                                     (int32_t, np.uint32, np.uint32)], ids=str)
@pytest.mark.parametrize("reduce_mode", [False, True])
def test_gather_mask_user_pattern(dt, u, pu, reduce_mode) -> None:
    rng = np.random.default_rng(4)
    pattern = rng.integers(0, 256, 256, dtype=np.uint8)
    nl = 37 if reduce_mode else 256 // dt.size
    repeat, blk, rep, prep = 3, 2, 20, 2
    bits = np.unpackbits(pattern, bitorder="little")
    want = _ref_mask(u, lambda r, j: bits[r * prep * 256 + j], nl, repeat, blk, rep)
    cnt = [None]
    pdt = A.uint16_t if pu is np.uint16 else A.uint32_t

    def body(ub):
        n = A.GatherMask[dt, pdt](tensor(ub, DST, dt), tensor(ub, SRC, dt),
                                  tensor(ub, PAT, pdt), reduce_mode, nl,
                                  A.GatherMaskParams(blk, repeat, rep, prep), cnt)
        assert n == cnt[0]
        assert current_core().vmask == (False, nl, 0)
    ub, _ = run_ub(body, _init(u, [0], pattern))
    assert cnt == [len(want)]
    np.testing.assert_array_equal(_dst(ub, u, len(want)), want)


@pytest.mark.instruction("GatherMask")
def test_gather_mask_errors_and_overlap() -> None:
    def call(*args, dt=float):
        run_ub(lambda ub: A.GatherMask(tensor(ub, DST, dt), tensor(ub, SRC, dt), *args))
    p = A.GatherMaskParams()
    with pytest.raises(ParameterError, match="built-in src1Pattern is 1..7"):
        call(8, False, 0, p, None)
    with pytest.raises(ParameterError, match="LocalTensor<uint32_t>"):
        run_ub(lambda ub: A.GatherMask(tensor(ub, DST, float), tensor(ub, SRC, float),
                                       tensor(ub, PAT, uint16_t), False, 0, p, None))
    with pytest.raises(ParameterError, match="reduceMode=true takes mask"):
        call(1, True, 65, p, None)
    with pytest.raises(ParameterError, match="GatherMaskParams"):
        call(1, False, 0, A.UnaryRepeatParams(), None)
    run = _checked(lambda ub: A.GatherMask(tensor(ub, SRC + 32, float), tensor(ub, SRC, float),
                                           7, False, 0, A.GatherMaskParams(1, 2, 8, 0), None))
    assert [f.check for f in run.findings] == ["address overlap"]
