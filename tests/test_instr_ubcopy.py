"""Copy (UB->UB, level 0) and Brcb against a byte-address reference written here from
ascendc_more.md §5 / §2.3: element j of DataBlock b of repeat r of an operand sits at
base + (r*Rep + b*Blk)*32 + j*size; lanes whose mask bit is 0 keep dst's bytes; values move as
bits (NaN payloads, -0.0, subnormals, Inf unchanged)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import run_ub, tensor

import ascsim
import ascsim.ascendc as A
from ascsim.ascendc import QuePosition, TBuf, TPipe, uint8_t
from ascsim.core import current_core
from ascsim.dtypes import bfloat16_t, float, half, int16_t, int32_t, uint16_t, uint32_t
from ascsim.errors import ParameterError

DST, SRC = 0, 65536
SPECIAL32 = [0x7FC00001, 0xFF800000, 0x7F800000, 0x80000000, 0x00000001, 0x807FFFFF, 0x3F800000]
SPECIAL16 = [0x7E01, 0xFC00, 0x7C00, 0x8000, 0x0001, 0x83FF, 0x3C00]
DTYPES = [(float, np.uint32), (int32_t, np.uint32), (uint32_t, np.uint32), (half, np.uint16),
          (bfloat16_t, np.uint16), (int16_t, np.uint16), (uint16_t, np.uint16)]


def _src_bits(u: type, n: int) -> np.ndarray:
    rng = np.random.default_rng(11)
    x = rng.integers(0, 2 ** (8 * np.dtype(u).itemsize), n, dtype=np.uint64).astype(u)
    sp = SPECIAL32 if u is np.uint32 else SPECIAL16
    x[:len(sp)] = sp
    return x


def byte_of(base: int, size: int, r: int, lane: int, blk: int, rep: int) -> int:
    epb = 32 // size
    return base + (r * rep + (lane // epb) * blk) * 32 + (lane % epb) * size


def lanes_of(mask: object, per_repeat: int) -> list[int]:
    if isinstance(mask, (list, tuple)):
        v = int(mask[0]) | int(mask[1]) << 64
        return [j for j in range(per_repeat) if (v >> j) & 1]
    return list(range(int(mask)))


def ref_copy(ub: np.ndarray, size: int, mask: object, repeat: int, blk: tuple, rep: tuple,
             lanes_per_repeat: list[int] | None = None) -> np.ndarray:
    out = ub.copy()
    per_repeat = 256 // size
    lanes = lanes_per_repeat if lanes_per_repeat is not None else lanes_of(mask, per_repeat)
    for r in range(repeat):
        for j in lanes:
            s = byte_of(SRC, size, r, j, blk[1], rep[1])
            d = byte_of(DST, size, r, j, blk[0], rep[0])
            out[d:d + size] = ub[s:s + size]
    return out


def _init(u: type) -> list:
    n = 32768 // np.dtype(u).itemsize
    return [(DST, np.full(16384, 0xA5, np.uint8)), (SRC, _src_bits(u, n))]


def _before(u: type) -> np.ndarray:
    ub, _ = run_ub(lambda ub: None, _init(u))
    return ub


CASES = [
    (lambda pr: pr, 3, (1, 1, 8, 8)),                               # full continuous mask
    (lambda pr: pr // 2 + 3, 2, (2, 1, 16, 8)),                     # continuous, dst strided
    (lambda pr: [0x8000_0000_F0F0_0F01, 0x1 if pr > 64 else 0], 4, (1, 3, 8, 24)),
    (lambda pr: 0, 2, (1, 1, 8, 8)),                                # mask 0: a NOP
]


@pytest.mark.instruction("Copy")
@pytest.mark.parametrize("dt,u", DTYPES, ids=lambda x: str(x))
@pytest.mark.parametrize("case", range(len(CASES)))
def test_copy_repeat_form(dt, u, case) -> None:
    make_mask, repeat, (db, sb, dr, sr) = CASES[case]
    per_repeat = 256 // dt.size
    mask = make_mask(per_repeat)
    before = _before(u)
    params = A.CopyRepeatParams(db, sb, dr, sr)
    ub, _ = run_ub(lambda ub: A.Copy(tensor(ub, DST, dt), tensor(ub, SRC, dt), mask, repeat,
                                       params), _init(u))
    want = ref_copy(before, dt.size, mask, repeat, (db, sb), (dr, sr))
    np.testing.assert_array_equal(ub[:65536], want[:65536])


@pytest.mark.instruction("Copy")
def test_copy_counter_mode_is_per_repeat_and_keeps_repeat_time() -> None:
    """§5: in Counter mode the count applies to every repeat and repeatTime still counts."""
    before = _before(np.uint32)

    def body(ub):
        A.SetMaskCount()
        A.SetVectorMask[float, A.MaskMode.COUNTER](0, 13)
        A.Copy[float, False](tensor(ub, DST, float), tensor(ub, SRC, float), A.MASK_PLACEHOLDER,
                             3, A.CopyRepeatParams(1, 1, 8, 8))
        A.SetMaskNorm()
    ub, _ = run_ub(body, _init(np.uint32))
    want = ref_copy(before, 4, 0, 3, (1, 1), (8, 8), list(range(13)))
    np.testing.assert_array_equal(ub[:65536], want[:65536])


@pytest.mark.instruction("Copy")
def test_copy_isSetMask_false_uses_the_register_and_true_leaves_its_mask() -> None:
    before = _before(np.uint16)

    def body(ub):
        d, s = tensor(ub, DST, half), tensor(ub, SRC, half)
        A.Copy(d, s, [0b1010, 0b1], 1, A.CopyRepeatParams())          # leaves the mask
        A.Copy[half, False](d[128], s[128], A.MASK_PLACEHOLDER, 1, A.CopyRepeatParams())
        assert current_core().vmask == (False, 0b1010, 0b1)
    ub, _ = run_ub(body, _init(np.uint16))
    want = ref_copy(before, 2, [0b1010, 1], 2, (1, 1), (8, 8))
    np.testing.assert_array_equal(ub[:65536], want[:65536])


@pytest.mark.instruction("Copy")
def test_copy_errors() -> None:
    def call(*args):
        run_ub(lambda ub: A.Copy(tensor(ub, DST, float), tensor(ub, SRC, float), *args))
    with pytest.raises(ParameterError, match="count form .* not supported on Atlas A2"):
        call(64)
    with pytest.raises(ParameterError, match="repeatTime 256"):
        call(64, 256, A.CopyRepeatParams())
    with pytest.raises(ParameterError, match="dstRepeatSize 4096"):
        call(64, 1, A.CopyRepeatParams(1, 1, 4096, 8))
    with pytest.raises(ParameterError, match="CopyRepeatParams"):
        call(64, 1, A.UnaryRepeatParams())
    with pytest.raises(ParameterError, match="share one dtype"):
        run_ub(lambda ub: A.Copy(tensor(ub, DST, float), tensor(ub, SRC, half), 64, 1,
                                 A.CopyRepeatParams()))


def _checked(body, init=()) -> ascsim.Run:
    def kernel() -> None:
        pipe = TPipe()
        buf = TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(buf, 196608)
        core = current_core()
        for addr, arr in init:
            raw = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
            core.ub[addr:addr + raw.size] = raw
        body(buf.Get[uint8_t]())
    return ascsim.launch(kernel, 1, sanitize="check")


@pytest.mark.instruction("Copy")
def test_copy_partial_overlap_is_reported() -> None:
    run = _checked(lambda ub: A.Copy(tensor(ub, DST + 32, float), tensor(ub, DST, float), 64, 2,
                                     A.CopyRepeatParams()))
    assert any(f.check == "partial address overlap" for f in run.findings), run.findings


# ---- Brcb ------------------------------------------------------------------------------------

def ref_brcb(ub: np.ndarray, size: int, repeat: int, blk: int, rep: int) -> np.ndarray:
    out = ub.copy()
    for r in range(repeat):
        for j in range(8):
            s = SRC + (8 * r + j) * size
            d = DST + (r * rep + j * blk) * 32
            out[d:d + 32] = np.tile(ub[s:s + size], 32 // size)
    return out


@pytest.mark.instruction("Brcb")
@pytest.mark.parametrize("dt,u", DTYPES, ids=lambda x: str(x))
@pytest.mark.parametrize("repeat,blk,rep", [(1, 1, 8), (5, 1, 8), (3, 2, 20), (4, 1, 0)])
def test_brcb(dt, u, repeat, blk, rep) -> None:
    before = _before(u)
    ub, _ = run_ub(lambda ub: A.Brcb(tensor(ub, DST, dt), tensor(ub, SRC, dt), repeat,
                                     A.BrcbRepeatParams(blk, rep)), _init(u))
    np.testing.assert_array_equal(ub[:65536], ref_brcb(before, dt.size, repeat, blk, rep)[:65536])


@pytest.mark.instruction("Brcb")
def test_brcb_resets_the_mask_and_keeps_the_mode() -> None:
    def body(ub):
        d, s = tensor(ub, DST, float), tensor(ub, SRC, float)
        A.Adds(d, s, 1.0, 5, 1, A.UnaryRepeatParams())   # leaves mask 0b11111
        A.Brcb(d, s, 1, A.BrcbRepeatParams())
        assert current_core().vmask is None
        A.SetMaskCount()
        A.SetVectorMask[float, A.MaskMode.COUNTER](0, 7)
        A.Brcb(d, s, 1, A.BrcbRepeatParams())
        assert current_core().vmask == (True, 2**64 - 1, 2**64 - 1)
        A.SetMaskNorm()
    run_ub(body, _init(np.uint32))


@pytest.mark.instruction("Brcb")
def test_brcb_errors_and_overlap() -> None:
    def call(dst=DST, src=SRC, dt=float, sdt=float, repeat=1, params=None):
        run_ub(lambda ub: A.Brcb(tensor(ub, dst, dt), tensor(ub, src, sdt), repeat,
                                 params or A.BrcbRepeatParams()))
    with pytest.raises(ParameterError, match="dstBlkStride 0 is undefined"):
        call(params=A.BrcbRepeatParams(0, 8))
    with pytest.raises(ParameterError, match="16- or 32-bit"):
        call(dt=A.int8_t, sdt=A.int8_t)
    with pytest.raises(ParameterError, match="repeatTime 256"):
        call(repeat=256)
    with pytest.raises(ascsim.SimulationError, match="Brcb: 200 repeats"):
        run_ub(lambda ub: A.Brcb(tensor(ub, DST, float, 64), tensor(ub, SRC, float), 200,
                                 A.BrcbRepeatParams()))
    run = _checked(lambda ub: A.Brcb(tensor(ub, DST, float), tensor(ub, DST + 64, float), 1,
                                     A.BrcbRepeatParams()))
    assert [f.check for f in run.findings] == ["address overlap"]
    run = _checked(lambda ub: A.Brcb(tensor(ub, DST, float), tensor(ub, SRC, float), 2,
                                     A.BrcbRepeatParams()), _init(np.uint32))
    assert not run.findings
