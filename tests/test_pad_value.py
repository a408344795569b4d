"""MOV_PAD_VAL, the pad value register (ascendc_more.md §5 SetPadValue, §6(b)): SetPadValue<T>(v)
writes T's bits; DataCopyPad GM->UB with isPad=true writes paddingValue's bits (converted to T,
or raw uint64 with the legacy DataCopyPadParams); with isPad=false the left/right pads, and the
dummy bytes after them, repeat the register's low sizeof(T) bytes (4 for 64-bit types, copied
as b32). The register persists across copies and TPipe.Reset; at kernel start it is the profile's
pad_reg_init (0). Expected bytes are the reference bit patterns of numpy / ml_dtypes.
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from conftest import custom_profile, gtensor, run_ub, tensor
from test_replay import assert_replay_matches

import ascsim.ascendc as A
from ascsim.ascendc import (
    DataCopyExtParams,
    DataCopyPadExtParams,
    DataCopyPadParams,
    DataCopyParams,
    GetTPipePtr,
    QuePosition,
    SetPadValue,
)
from ascsim.dtypes import (
    DType,
    bfloat16_t,
    half,
    int8_t,
    int16_t,
    int32_t,
    int64_t,
    uint8_t,
    uint16_t,
    uint32_t,
    uint64_t,
)
from ascsim.dtypes import float as f32
from ascsim.errors import ParameterError

UB0 = 4096
F16, BF16 = np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
NP = {f32: np.dtype(np.float32), half: F16, bfloat16_t: BF16, int8_t: np.dtype(np.int8),
      uint8_t: np.dtype(np.uint8), int16_t: np.dtype(np.int16), uint16_t: np.dtype(np.uint16),
      int32_t: np.dtype(np.int32), uint32_t: np.dtype(np.uint32), int64_t: np.dtype(np.int64),
      uint64_t: np.dtype(np.uint64)}

# (dtype, value): NaN, +-Inf, -0.0, subnormals, extremes
VALUES = [
    (f32, float("nan")), (f32, -np.inf), (f32, -0.0), (f32, 1e-45), (f32, 3.4028235e38),
    (half, np.inf), (half, -0.0), (half, 6e-08), (half, 65504.0), (half, float("nan")),
    (bfloat16_t, -np.inf), (bfloat16_t, 9.2e-41), (bfloat16_t, -0.0), (bfloat16_t, 1.5),
    (int8_t, -128), (uint8_t, 255), (int16_t, -2), (uint16_t, 0xBEEF), (int32_t, -7),
    (uint32_t, 0xDEADBEEF),
]


def value_bytes(dtype: DType, value: object) -> bytes:
    return np.array([value], NP[dtype]).tobytes()


def pad_with_register(dtype: DType, left: int, right: int, blen: int, x: np.ndarray,
                      before=None, is_pad: bool = False, pad_value: object = 0):
    """Run `before(ub)` then one DataCopyPad of `blen` bytes with the given paddings; returns
    the 32-byte-padded block's bytes."""
    def body(ub, xb):
        if before is not None:
            before(ub)
        A.DataCopyPad(tensor(ub, UB0, dtype), gtensor(xb, dtype), DataCopyExtParams(1, blen, 0, 0),
                      DataCopyPadExtParams[dtype](is_pad, left, right, pad_value))

    ub, run = run_ub(body, gm=(x,))
    padded = -(-(left * dtype.size + blen + right * dtype.size) // 32) * 32
    return ub[UB0:UB0 + padded], run


@pytest.mark.parametrize(("dtype", "value"), VALUES, ids=lambda v: str(v))
@pytest.mark.instruction("SetPadValue")
def test_set_pad_value_fills_the_pads_of_a_copy_without_is_pad(dtype: DType,
                                                               value: object) -> None:
    x = np.random.default_rng(1).integers(0, 256, 256, dtype=np.uint64).astype(np.uint8)
    blen = 2 * dtype.size
    left, right = 32 // dtype.size // 4 or 1, 1
    block, run = pad_with_register(dtype, left, right, blen, x,
                                   before=lambda ub: SetPadValue[dtype](value))
    v = value_bytes(dtype, value)
    lb, rb = left * dtype.size, right * dtype.size
    want = v * left + bytes(x[:blen]) + v * right
    want += v * ((32 - len(want)) // dtype.size)          # the dummy after a pad: the value
    assert bytes(block) == want
    rec = run.decoded(0)[0]
    assert (rec.name, rec.pipe_name, rec.dtype, rec.mode) == ("SetPadValue", "S", dtype,
                                                              int(QuePosition.MAX))
    assert rec.scalar & ((1 << 8 * dtype.size) - 1) == int.from_bytes(v, "little")
    assert lb + blen + rb <= 32


@pytest.mark.instruction("SetPadValue")
def test_register_persists_until_the_next_write() -> None:
    """SetPadValue, then a copy with isPad writes the register, then copies without isPad see
    the last write; TPipe.Reset leaves it alone; a template position is accepted."""
    x = np.arange(64, dtype=np.uint8)
    seen = []

    def body(ub, xb):
        g = gtensor(xb, half)

        def copy(addr, is_pad=False, value=0):
            A.DataCopyPad(tensor(ub, addr, half), g, DataCopyExtParams(1, 4, 0, 0),
                          DataCopyPadExtParams[half](is_pad, 1, 0, value))
            seen.append(addr)

        copy(UB0)                                         # pad_reg_init: 0
        SetPadValue[half, QuePosition.VECIN](-2.0)
        copy(UB0 + 32)
        copy(UB0 + 64, True, 0.5)                         # isPad writes 0.5
        copy(UB0 + 96)
        GetTPipePtr().Reset()
        copy(UB0 + 128)
        SetPadValue[f32](1.0)                             # a float write, read by half
        copy(UB0 + 160)

    ub, run = run_ub(body, gm=(x,))
    pads = [bytes(ub[a:a + 2]) for a in seen]
    assert pads == [b"\x00\x00", value_bytes(half, -2.0), value_bytes(half, 0.5),
                    value_bytes(half, 0.5), value_bytes(half, 0.5), b"\x00\x00"]
    # 1.0f is 0x3F800000: its low half-word is 0
    assert [bytes(ub[a + 2:a + 6]) for a in seen] == [bytes(x[:4])] * 6
    assert_replay_matches(run)


def test_pad_reg_init_profile_option(tmp_path: Path) -> None:
    prof = custom_profile(tmp_path, "pad_reg_init", str(0x11223344))
    x = np.arange(64, dtype=np.uint8)

    def body(ub, xb):
        A.DataCopyPad(tensor(ub, UB0, f32), gtensor(xb, f32), DataCopyExtParams(1, 8, 0, 0),
                      DataCopyPadExtParams[f32](False, 0, 1, 0))

    ub, _ = run_ub(body, gm=(x,), profile=prof)
    assert bytes(ub[UB0:UB0 + 32]) == bytes(x[:8]) + bytes.fromhex("44332211") * 6


@pytest.mark.instruction("DataCopyPad")
def test_legacy_pad_params_take_raw_bits_and_block_len_in_bytes() -> None:
    x = np.arange(100, dtype=np.uint8)
    raw = 0x1122334455667788

    def body(ub, xb):
        # DataCopyParams with blockLen in BYTES (6 bytes of half, 2 blocks, GM gap 2 bytes)
        A.DataCopyPad(tensor(ub, UB0, half), gtensor(xb, half), DataCopyParams(2, 6, 2, 0),
                      DataCopyPadParams(True, 1, 1, raw))
        A.DataCopyPad(tensor(ub, UB0 + 128, f32), gtensor(xb, f32), DataCopyParams(1, 4, 0, 0),
                      DataCopyPadParams(False, 1, 0, 0))        # the register: raw
        with pytest.raises(ParameterError, match="legacy DataCopyParams fields are uint16"):
            A.DataCopyPad(tensor(ub, UB0, uint8_t), gtensor(xb, uint8_t),
                          DataCopyParams(1, 70000, 0, 0), DataCopyPadParams())

    ub, _ = run_ub(body, gm=(x,))
    pad16 = bytes.fromhex("8877")
    block0 = pad16 + bytes(x[0:6]) + pad16 + pad16 * 11
    block1 = pad16 + bytes(x[8:14]) + pad16 + pad16 * 11
    assert bytes(ub[UB0:UB0 + 64]) == block0 + block1
    pad32 = bytes.fromhex("88776655")
    assert bytes(ub[UB0 + 128:UB0 + 160]) == pad32 + bytes(x[:4]) + pad32 * 6


@pytest.mark.parametrize("dtype", [int64_t, uint64_t], ids=str)
@pytest.mark.instruction("DataCopyPad")
def test_64_bit_types_pad_with_the_low_word(dtype: DType) -> None:
    x = np.arange(64, dtype=np.uint8)

    def body(ub, xb):
        SetPadValue[uint64_t](0x0102030405060708)
        A.DataCopyPad(tensor(ub, UB0, dtype), gtensor(xb, dtype), DataCopyExtParams(1, 8, 0, 0),
                      DataCopyPadExtParams[dtype](False, 1, 1, 0))
        A.DataCopyPad(tensor(ub, UB0 + 64, dtype), gtensor(xb, dtype),
                      DataCopyExtParams(1, 8, 0, 0), DataCopyPadExtParams[dtype](True, 1, 0, 0))
        with pytest.raises(ParameterError, match="paddingValue must be 0"):
            A.DataCopyPad(tensor(ub, UB0, dtype), gtensor(xb, dtype),
                          DataCopyExtParams(1, 8, 0, 0),
                          DataCopyPadExtParams[dtype](True, 1, 0, 5))

    ub, _ = run_ub(body, gm=(x,))
    low = bytes.fromhex("08070605")
    assert bytes(ub[UB0:UB0 + 32]) == low * 2 + bytes(x[:8]) + low * 4
    assert bytes(ub[UB0 + 64:UB0 + 96]) == bytes(8) + bytes(x[:8]) + bytes(16)  # isPad 0


@pytest.mark.parametrize(("dummy_fill", "is_pad", "want"), [
    ("pad_if_isPad_else_first_elem", True, "pad"),
    ("pad_if_isPad_else_first_elem", False, "first"),
    ("first_element", True, "first"),
    ("first_element", False, "first"),
    ("nan", True, "fill"), ("nan", False, "fill")])
@pytest.mark.instruction("DataCopyPad")
def test_unpadded_dummy_by_profile(tmp_path: Path, dummy_fill: str, is_pad: bool,
                                   want: str) -> None:
    """The 950 example's scenario 5 (isPad, no padding, pad -1) expects -1 in the dummy; the
    doc says the first element; A2 is unknown: the profile chooses."""
    prof = custom_profile(tmp_path, "dummy_fill", f'"{dummy_fill}"')
    x = np.array([3.5, -1.25, 7.0], np.float16)

    def body(ub, xb):
        SetPadValue[half](9.0)     # what the register holds when isPad is not set
        A.DataCopyPad(tensor(ub, UB0, half), gtensor(xb, half), DataCopyExtParams(1, 6, 0, 0),
                      DataCopyPadExtParams[half](is_pad, 0, 0, -1.0))

    ub, _ = run_ub(body, gm=(x,), profile=prof)
    got = ub[UB0:UB0 + 32].view(np.float16)
    assert (got[:3] == x).all()
    expect = {"pad": np.float16(-1.0), "first": np.float16(3.5)}
    if want == "fill":
        assert (ub[UB0 + 6:UB0 + 32] == 0xFF).all()
    else:
        assert (got[3:] == expect[want]).all()


@pytest.mark.parametrize(("is_pad", "left", "clean"), [(True, 1, True), (False, 1, False),
                                                      (True, 0, False)])
def test_initcheck_takes_the_dummy_after_a_pad_as_defined(is_pad: bool, left: int,
                                                          clean: bool) -> None:
    """With isPad and a left/right pad the dummy bytes hold the pad value [DOC]: reading the
    whole padded block is fine. Without isPad, or without padding (unknown on A2), they are
    still uninitialised for initcheck."""
    import ascsim

    def kernel(x, y):
        pipe = A.TPipe()
        tb = A.TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(tb, 64)
        t = tb.Get[f32]()
        A.DataCopyPad(t, gtensor(x, f32), DataCopyExtParams(1, 12, 0, 0),
                      DataCopyPadExtParams[f32](is_pad, left, 0, 0.0))
        A.SetFlag[A.HardEvent.MTE2_MTE3](0)
        A.WaitFlag[A.HardEvent.MTE2_MTE3](0)
        A.DataCopy(gtensor(y, f32), t, 8)

    x = np.arange(3, dtype=np.float32)
    y = np.zeros(8, np.float32)
    r = ascsim.launch(kernel, 1, x, y, sanitize="check", outputs=(1,))
    checks = [f.check for f in r.findings]
    assert checks == ([] if clean else ["uninitialised value reaches GM"])


def test_set_pad_value_template_errors() -> None:
    x = np.zeros(64, np.uint8)

    def body(ub, xb):
        with pytest.raises(ParameterError, match="takes a dtype"):
            SetPadValue[3](1)
        with pytest.raises(ValueError):
            SetPadValue[half, 99](1)
        with pytest.raises(ParameterError, match=r"DataCopyPadExtParams<float> with tensors of "
                                                 "half"):
            A.DataCopyPad(tensor(ub, UB0, half), gtensor(xb, half), DataCopyExtParams(1, 4, 0, 0),
                          DataCopyPadExtParams[f32](True, 1, 0, 1.0))

    _, run = run_ub(body, gm=(x,))
    assert run.cores[0].records == [] and run.cores[0].pad_reg == 0
