"""Scalar operands are converted once and remembered (dtypes.memo_convert): the remembered
result must be bit for bit what a fresh conversion gives, in any call order. `DType.bits`
gives the storage value, `DType.scalar_bits` the int64 a record's SCALAR field holds."""

import math

import numpy as np
import pytest

from ascsim.ascendc import PIPE_V, HardEvent, PipeBarrier, SetFlag, WaitFlag
from ascsim.dtypes import _MEMO_LIMIT, bfloat16_t, half, int16_t, int32_t, uint8_t
from ascsim.dtypes import float as f32
from ascsim.errors import ParameterError

DTYPES = (half, f32, bfloat16_t, int16_t, int32_t, uint8_t)
FLOATS = (half, f32, bfloat16_t)


def _raw(v: np.generic) -> bytes:
    return np.asarray(v).tobytes()


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("first", [0.0, -0.0], ids=["+0 first", "-0 first"])
def test_signed_zeros_keep_their_sign_whatever_was_remembered_first(dtype, first):
    dtype._bits_memo.clear()
    dtype._int_memo.clear()
    sign_bit = 1 << (dtype.size * 8 - 1)
    for value in (first, -first, first, np.float32(-0.0), np.float16(0.0), 0, False):
        negative = math.copysign(1.0, value) < 0 if isinstance(value, (float, np.floating)) \
            else False
        assert int(np.asarray(dtype.bits(value)).view(f"u{dtype.size}")) == (
            sign_bit if negative else 0)
        assert dtype.scalar_bits(value) == (sign_bit if negative else 0)


@pytest.mark.parametrize("dtype", (f32,), ids=str)
def test_each_nan_keeps_its_own_payload(dtype):
    a = np.uint32(0x7FC00123).view(np.float32)
    b = np.uint32(0xFFC00456).view(np.float32)
    for _ in range(2):  # the second round answers from the memo
        assert int(dtype.bits(a).view(np.uint32)) == 0x7FC00123
        assert int(dtype.bits(b).view(np.uint32)) == 0xFFC00456
        assert dtype.scalar_bits(a) == 0x7FC00123 and dtype.scalar_bits(b) == 0xFFC00456


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_remembered_conversions_equal_fresh_ones(dtype):
    rng = np.random.default_rng(7)
    values = [0.1, -2.5, 1e30, -1e-30, 65504.0, 65520.0, 3.0, 3, True, 70000, -70000,
              np.float32(1.5), np.float16(-0.25), np.float64(1 / 3), float("inf"),
              float("-inf")] + [float(v) for v in rng.normal(0, 1e3, 50)]
    if dtype.kind != "f":
        values = [v for v in values if math.isfinite(v)]
    with np.errstate(over="ignore"):  # 1e30 and 70000 overflow half to inf, as they should
        for _ in range(2):
            for v in values:
                assert _raw(dtype.bits(v)) == _raw(dtype._bits(v)), v
                assert dtype.scalar_bits(v) == dtype._scalar_bits(v), v
                # the field holds the storage bits, read as two's complement
                assert np.int64(dtype.scalar_bits(v)).astype(np.uint64) & (
                    (1 << (8 * dtype.size)) - 1) == int.from_bytes(_raw(dtype.bits(v)), "little")


def test_the_memo_stays_bounded():
    f32._bits_memo.clear()
    for i in range(3 * _MEMO_LIMIT):
        f32.bits(i + 0.5)
    assert 0 < len(f32._bits_memo) <= _MEMO_LIMIT


def test_values_that_are_not_plain_numbers_are_converted_every_time():
    class Seven:
        def __float__(self) -> float:
            return 7.0
    f32._bits_memo.clear()
    assert float(f32.bits(Seven())) == 7.0
    assert not f32._bits_memo


def test_template_arguments_outside_the_set_name_what_is_accepted():
    with pytest.raises(ParameterError, match="takes a HardEvent"):
        SetFlag[999]
    with pytest.raises(ParameterError, match="takes a HardEvent"):
        WaitFlag["MTE2_V"]
    with pytest.raises(ParameterError, match="PIPE_S, PIPE_V"):
        PipeBarrier[17]
    # integer-like arguments that are not ints find the same call
    assert SetFlag[np.int64(int(HardEvent.MTE2_V))] is SetFlag[HardEvent.MTE2_V]
    assert PipeBarrier[np.int32(PIPE_V)] is PipeBarrier[PIPE_V]
