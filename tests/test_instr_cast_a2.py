"""The Cast pairs of ascendc_more.md §2.3 added for fidelity: hand-computed pins of the
references (cast_a2_ref.py) the every-pair tests of test_instr_cast.py and
test_instr_level0_convert.py compare against, the profile option int_narrow in both forms, and
int32_t -> half through SetDeqScale (DEQSCALE), in both forms, recorded and replayed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cast_a2_ref import deq_to_half, float_to_int, int64_to_float, int_narrow
from conftest import BF16, custom_profile, run_ub, tensor, ub_array
from test_instr_cast import NP_OF, inputs, run_cast
from test_instr_level0_convert import lane_byte

import ascsim.ascendc as A
from ascsim.ascendc import RoundMode as RM
from ascsim.ascendc import UnaryRepeatParams
from ascsim.dtypes import DType, half, int16_t, int32_t, int64_t
from ascsim.errors import ParameterError
from ascsim.records import SCALAR
from ascsim.replay import replay

DST, SRC = 0, 65536
SENTINEL = 0xA5
I8, U8, I16, I32, I64 = (np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.int32, np.int64))


def _h(bits: list[int]) -> np.ndarray:
    return np.array(bits, np.uint16).view(np.float16)


def test_float_to_int_reference_pins() -> None:
    # half: NaN, +-Inf, -0.0, the smallest subnormal, 2.5 / -2.5 ties, 127.5, 255.5, 65504
    x = _h([0x7E00, 0x7C00, 0xFC00, 0x8000, 0x0001, 0x4100, 0xC100, 0x57F8, 0x5BFC, 0x7BFF,
            0xFBFF])
    i8 = {RM.CAST_RINT: [0, 127, -128, 0, 0, 2, -2, 127, 127, 127, -128],
          RM.CAST_ROUND: [0, 127, -128, 0, 0, 3, -3, 127, 127, 127, -128],
          RM.CAST_FLOOR: [0, 127, -128, 0, 0, 2, -3, 127, 127, 127, -128],
          RM.CAST_CEIL: [0, 127, -128, 0, 1, 3, -2, 127, 127, 127, -128],
          RM.CAST_TRUNC: [0, 127, -128, 0, 0, 2, -2, 127, 127, 127, -128]}
    for mode, want in i8.items():
        assert list(float_to_int(x, I8, mode).view(I8)) == want, mode.name
    # uint8: negatives clip to 0, 127.5 RINT -> 128, 255.5 ROUND -> 256 -> 255
    assert list(float_to_int(x, U8, RM.CAST_RINT)) == [0, 255, 0, 0, 0, 2, 0, 128, 255, 255, 0]
    assert list(float_to_int(x, I16, RM.CAST_RINT).view(I16)) == [
        0, 32767, -32768, 0, 0, 2, -2, 128, 256, 32767, -32768]
    # float -> int64: 2**63 and beyond saturate, the largest float below 2**63 is exact
    f = np.array([2.0**63, -2.0**63, np.nextafter(np.float32(2.0**63), 0), 3e38, -0.5, 0.5,
                  1.5, -1e-45], np.float32)
    assert list(float_to_int(f, I64, RM.CAST_RINT).view(I64)) == [
        2**63 - 1, -2**63, 2**63 - 2**39, 2**63 - 1, 0, 0, 2, 0]
    assert list(float_to_int(f, I64, RM.CAST_FLOOR).view(I64))[4:] == [-1, 0, 1, -1]
    # bf16 -> int32: 0x4F00 = 2**31 saturates, 0xCF00 = -2**31 is exact
    b = np.array([0x4F00, 0xCF00, 0x3FC0, 0x7FC1], np.uint16).view(BF16)
    assert list(float_to_int(b, I32, RM.CAST_TRUNC).view(I32)) == [2**31 - 1, -2**31, 1, 0]


def test_integer_reference_pins() -> None:
    x = np.array([32767, 32768, -32769, 65536 + 5, -65536 - 5, -1], I32)
    assert list(int_narrow(x, I16, RM.CAST_NONE).view(I16)) == [32767, 32767, -32768, 32767,
                                                                -32768, -1]
    assert list(int_narrow(x, I16, RM.CAST_NONE, wrap=True).view(I16)) == [
        32767, -32768, 32767, 5, -5, -1]
    y = np.array([2**31, -2**31 - 1, 2**32 + 7, -2**63], I64)
    assert list(int_narrow(y, I32, RM.CAST_NONE, wrap=True).view(I32)) == [-2**31, 2**31 - 1,
                                                                          7, 0]
    # int64 -> float: 2**24 + 1 is a tie (between 2**24 and 2**24 + 2); 2**40 + 2**16 too
    v = np.array([2**24 + 1, 2**40 + 2**16, 2**40 + 2**16 + 1, -(2**40 + 2**16), 2**63 - 1,
                  -2**63], I64)
    want = {RM.CAST_RINT: [0x4B800000, 0x53800000, 0x53800001, 0xD3800000, 0x5F000000,
                           0xDF000000],
            RM.CAST_ROUND: [0x4B800001, 0x53800001, 0x53800001, 0xD3800001, 0x5F000000,
                            0xDF000000],
            RM.CAST_TRUNC: [0x4B800000, 0x53800000, 0x53800000, 0xD3800000, 0x5EFFFFFF,
                            0xDF000000],
            RM.CAST_FLOOR: [0x4B800000, 0x53800000, 0x53800000, 0xD3800001, 0x5EFFFFFF,
                            0xDF000000]}
    for mode, bits in want.items():
        assert list(int64_to_float(v, np.dtype(np.float32), mode)) == bits, mode.name


def test_deq_reference_pins() -> None:
    x = np.array([1, 3, -7, 2**24 + 1, 2**31 - 1, 70000, 0], I32)
    # scale 0.5: 0.5 1.5 -3.5, 2**23 -> inf, 2**30 -> inf, 35000 -> 35008 (half spacing 32)
    assert list(deq_to_half(x, 0.5)) == [0x3800, 0x3E00, 0xC300, 0x7C00, 0x7C00, 0x7846, 0]
    assert list(deq_to_half(x, 0.5, saturate=True))[3:5] == [0x7BFF, 0x7BFF]
    # a subnormal scale: 1 * 2**-24 is the smallest half subnormal, 3 * 2**-24 exact
    assert list(deq_to_half(x[:2], 2.0**-24)) == [0x0001, 0x0003]


@pytest.mark.parametrize(("src_t", "dst_t"), [(int32_t, int16_t), (int64_t, int32_t)],
                         ids=str)
@pytest.mark.instruction("Cast")
def test_int_narrow_wrap_profile_both_forms(tmp_path: Path, src_t: DType, dst_t: DType) -> None:
    profile = custom_profile(tmp_path, "int_narrow", '"wrap"')
    x = inputs(src_t)
    got, _ = run_cast(src_t, dst_t, RM.CAST_NONE, x, x.size, profile=profile)
    want = int_narrow(x, NP_OF[dst_t], RM.CAST_NONE, wrap=True)
    assert (got == want).all()
    assert (got != int_narrow(x, NP_OF[dst_t], RM.CAST_NONE)).any()   # the option matters
    per_repeat = 256 // src_t.size
    mask = [0x8000_0000_F0F0_1235 & ((1 << per_repeat) - 1), 0]
    xs = x[:3 * per_repeat * 2]
    init = [(DST, np.full(8192, SENTINEL, np.uint8)), (SRC, xs)]

    def body(ub):
        A.Cast(tensor(ub, DST, dst_t), tensor(ub, SRC, src_t), RM.CAST_NONE, mask, 3,
               UnaryRepeatParams(1, 2, 4, 16))

    ub, _ = run_ub(body, init, profile=profile)
    expect = np.full(8192, SENTINEL, np.uint8)
    bits = mask[0]
    for r in range(3):
        for j in (j for j in range(per_repeat) if bits >> j & 1):
            s = (lane_byte(SRC, src_t.size, r, j, 2, 16) - SRC) // src_t.size
            d = lane_byte(DST, dst_t.size, r, j, 1, 4)
            expect[d:d + dst_t.size] = int_narrow(xs[s:s + 1], NP_OF[dst_t], RM.CAST_NONE,
                                                  wrap=True).view(np.uint8)
    assert (ub[DST:DST + 8192] == expect).all()


DEQ_X = np.concatenate([np.array([0, 1, -1, 3, -7, 2**24 + 1, 2**31 - 1, -2**31, 70000, 65519,
                                  65520, 4097, -4097], I32),
                        np.random.default_rng(5).integers(-2**31, 2**31, 1000).astype(I32),
                        np.random.default_rng(6).integers(-70000, 70000, 1000).astype(I32)])
SCALES = [1.0, 0.5, -3.0, 2.0**-24, 0.0999755859375, 1000.0]


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.instruction("Cast", "SetDeqScale")
def test_deq_count_form_every_mode(scale: float) -> None:
    """Every RoundMode is accepted and ignored; each row records the scale it ran with."""
    n = DEQ_X.size

    def body(ub):
        A.SetDeqScale(scale)
        for k, mode in enumerate(RM):
            A.Cast(tensor(ub, DST + k * 4096 * 2, half), tensor(ub, SRC, int32_t), mode, n)

    ub, run = run_ub(body, [(SRC, DEQ_X)])
    want = deq_to_half(DEQ_X, scale)
    for k in range(len(RM)):
        assert (ub_array(ub, DST + k * 8192, np.uint16, n) == want).all(), RM(k).name
    rows = run.cores[0].records
    bits = int(np.float16(scale).view(np.uint16))
    assert [r.name for r in run.decoded(0)][:2] == ["SetDeqScale", "Cast"]
    assert {r[SCALAR] & 0xFFFF for r in rows} == {bits}
    fresh = np.full_like(ub, 0)
    fresh[SRC:SRC + DEQ_X.nbytes] = DEQ_X.view(np.uint8)
    replay(rows, fresh, [None], run.profile)
    for k in range(len(RM)):
        assert (ub_array(fresh, DST + k * 8192, np.uint16, n) == want).all()


@pytest.mark.instruction("Cast", "SetDeqScale")
def test_deq_saturating_profile_and_level0_mask(tmp_path: Path) -> None:
    profile = custom_profile(tmp_path, "saturation", "true")
    mask = [0x8000_0000_F0F0_1235, 0]   # 64 lanes (int32 is the wider side)
    x = DEQ_X[:3 * 128]

    def body(ub):
        A.SetDeqScale(0.5)
        A.Cast(tensor(ub, DST, half), tensor(ub, SRC, int32_t), RM.CAST_ODD, x.size)
        A.SetDeqScale(-2.0)
        A.Cast(tensor(ub, 8192, half), tensor(ub, SRC, int32_t), RM.CAST_NONE, mask, 3,
               UnaryRepeatParams(2, 1, 9, 16))

    ub, run = run_ub(body, [(SRC, x), (8192, np.full(4096, SENTINEL, np.uint8))], profile=profile)
    assert (ub_array(ub, DST, np.uint16, x.size) == deq_to_half(x, 0.5, saturate=True)).all()
    expect = np.full(4096, SENTINEL, np.uint8)
    for r in range(3):
        for j in (j for j in range(64) if mask[0] >> j & 1):
            s = (lane_byte(SRC, 4, r, j, 1, 16) - SRC) // 4
            d = lane_byte(0, 2, r, j, 2, 9)
            expect[d:d + 2] = deq_to_half(x[s:s + 1], -2.0, saturate=True).view(np.uint8)
    assert (ub[8192:8192 + 4096] == expect).all()
    assert [r[SCALAR] & 0xFFFF for r in run.cores[0].records] == [0x3800, 0x3800, 0xC000, 0xC000]


@pytest.mark.instruction("Cast", "SetDeqScale")
def test_deq_cast_before_set_deq_scale_is_refused() -> None:
    def body(ub):
        with pytest.raises(ParameterError, match="before any SetDeqScale"):
            A.Cast(tensor(ub, DST, half), tensor(ub, SRC, int32_t), RM.CAST_NONE, 64)

    _, run = run_ub(body)
    assert run.cores[0].records == []
