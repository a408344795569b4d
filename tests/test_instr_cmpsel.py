"""Compare / CompareScalar bit masks, And on mask words, and Select in its three modes.

References: numpy comparisons packed with `np.packbits(bitorder="little")` (element i -> byte
i // 8, bit i % 8), the worked example of ascendc_semantics.md §4.5 as hand-computed bytes, and
a per-element Python model of Select (§4.7: bit 1 takes src0, bit 0 src1 or the scalar).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import TMP_UB_OFFSET, assert_same_bits, bits, gtensor, run_ub, tensor, ub_array

import ascsim.ascendc as A
from ascsim.ascendc import CMPMODE, SELMODE
from ascsim.dtypes import DType, bfloat16_t, half, int16_t, int32_t, uint8_t, uint16_t
from ascsim.dtypes import float as f32
from ascsim.errors import AlignmentError, OutOfRangeError, ParameterError

DST, SRC0, SRC1, MASK = 0, 32768, 65536, 98304
SENTINEL = 0xA5
F32, F16, I32 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int32)
NP_OF = {f32: F32, half: F16, int32_t: I32}
OPS = {CMPMODE.LT: np.less, CMPMODE.GT: np.greater, CMPMODE.EQ: np.equal,
       CMPMODE.LE: np.less_equal, CMPMODE.GE: np.greater_equal, CMPMODE.NE: np.not_equal}


def compare_inputs(dt: np.dtype, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Specials against specials, then random pairs of which a third are equal."""
    rng = np.random.default_rng(3)
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 0.1,
                        65504.0, 6e-8], np.float64).astype(dt)
    a = np.repeat(special, special.size)
    b = np.tile(special, special.size)
    m = n - a.size
    ra = (rng.standard_normal(m) * 100).astype(dt)
    rb = np.where(rng.random(m) < 0.33, ra, (rng.standard_normal(m) * 100).astype(dt))
    return np.concatenate([a, ra]), np.concatenate([b, rb]).astype(dt)


def packed(flags: np.ndarray) -> np.ndarray:
    return np.packbits(flags.astype(np.uint8), bitorder="little")


def run_compare(dtype: DType, mode: CMPMODE, a: np.ndarray, other: object, count: int):
    init = [(DST, np.full(32768, SENTINEL, np.uint8)), (SRC0, a)]
    if isinstance(other, np.ndarray):
        init.append((SRC1, other))

    def body(ub):
        dst = tensor(ub, DST, uint8_t)
        if isinstance(other, np.ndarray):
            A.Compare(dst, tensor(ub, SRC0, dtype), tensor(ub, SRC1, dtype), mode, count)
        else:
            A.CompareScalar(dst, tensor(ub, SRC0, dtype), other, mode, count)

    return run_ub(body, init)


@pytest.mark.parametrize("mode", list(CMPMODE), ids=lambda m: m.name)
@pytest.mark.parametrize("dtype", [f32, half], ids=str)
@pytest.mark.instruction("Compare")
def test_compare_every_mode(dtype: DType, mode: CMPMODE) -> None:
    dt = NP_OF[dtype]
    n = 8192
    a, b = compare_inputs(dt, n)
    ub, run = run_compare(dtype, mode, a, b, n)
    with np.errstate(invalid="ignore"):
        want = packed(OPS[mode](a, b))
    assert (ub[DST:DST + n // 8] == want).all()
    assert (ub[DST + n // 8:DST + 32768] == SENTINEL).all()
    rec = run.decoded(0)[-1]
    assert (rec.name, rec.pipe_name, rec.count, rec.repeats, rec.mode) == (
        "Compare", "V", n, n * dt.itemsize // 256, int(mode))
    assert [(x.write, x.start, x.end) for x in rec.accesses] == [
        (True, DST, DST + n // 8), (False, SRC0, SRC0 + n * dt.itemsize),
        (False, SRC1, SRC1 + n * dt.itemsize)]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("scalar", [0.1, 0.0, -0.0, np.inf, np.nan, 1e-40, 70000.0])
@pytest.mark.parametrize("mode", list(CMPMODE), ids=lambda m: m.name)
@pytest.mark.parametrize("dtype", [f32, half], ids=str)
@pytest.mark.instruction("CompareScalar")
def test_compare_scalar_every_mode(dtype: DType, mode: CMPMODE, scalar: float) -> None:
    """The scalar is T first (half: 70000 -> inf, 1e-40 -> +0)."""
    dt = NP_OF[dtype]
    a, _ = compare_inputs(dt, 2048)
    ub, run = run_compare(dtype, mode, a, scalar, 2048)
    with np.errstate(invalid="ignore", over="ignore"):
        want = packed(OPS[mode](a, np.array(scalar).astype(dt)))
    assert (ub[DST:DST + 256] == want).all()
    assert run.decoded(0)[-1].name == "CompareScalar"


def test_compares_is_compare_scalar() -> None:
    assert A.Compares is A.CompareScalar


def test_worked_example_lsb_first() -> None:
    """§4.5: element 43 true -> byte 5 = 0x08; element 74 true -> byte 9 = 0x04."""
    x = np.zeros(128, F32)
    x[[43, 74]] = 1.0
    ub, _ = run_compare(f32, CMPMODE.GT, x, 0.5, 128)
    want = np.zeros(16, np.uint8)
    want[5], want[9] = 0x08, 0x04
    assert (ub[DST:DST + 16] == want).all()
    words = ub_array(ub, DST, np.uint16, 8)        # as uint16: element i is bit i % 16
    assert words[2] == 1 << 11 and words[4] == 1 << 10


@pytest.mark.parametrize(("dtype", "count", "computed"), [
    (f32, 100, 64), (f32, 63, 0), (f32, 0, 0), (f32, 191, 128), (half, 200, 128),
    (half, 127, 0), (half, 384, 384), (int32_t, 130, 128)], ids=str)
@pytest.mark.instruction("Compare")
def test_count_rule_whole_repeats_only(dtype: DType, count: int, computed: int) -> None:
    """Only floor(count * sizeof(T) / 256) repeats run: the rest of count is not computed and
    the mask bytes beyond the computed ones are left alone."""
    dt = NP_OF[dtype]
    a = np.ones(512, dt)   # every element compares true
    ub, run = run_compare(dtype, CMPMODE.EQ, a, 1, count)
    assert (ub[DST:DST + computed // 8] == 0xFF).all()
    assert (ub[DST + computed // 8:DST + 32768] == SENTINEL).all()
    rec = run.decoded(0)[-1]
    assert rec.count == count and rec.repeats == computed * dt.itemsize // 256
    assert rec.writes[0].nbytes == computed // 8
    assert rec.reads[0].nbytes == computed * dt.itemsize


def test_nan_is_false_except_ne() -> None:
    a = np.full(64, np.nan, F32)
    b = np.concatenate([np.full(32, np.nan, F32), np.arange(32, dtype=F32)])
    for mode in CMPMODE:
        ub, _ = run_compare(f32, mode, a, b, 64)
        assert (ub[DST:DST + 8] == (0xFF if mode == CMPMODE.NE else 0)).all(), mode.name
        ub, _ = run_compare(f32, mode, b, np.nan, 64)
        assert (ub[DST:DST + 8] == (0xFF if mode == CMPMODE.NE else 0)).all(), mode.name


@pytest.mark.instruction("Compare")
def test_int32_eq_compares_integers() -> None:
    """int32 compares as integers: 2**24 and 2**24 + 1 are equal as float32 but not here."""
    a = np.resize(np.array([2**24, 2**24 + 1, -7, 2**31 - 1], I32), 64)
    b = np.resize(np.array([2**24 + 1, 2**24 + 1, -7, -2**31], I32), 64)
    ub, _ = run_compare(int32_t, CMPMODE.EQ, a, b, 64)
    assert (ub[DST:DST + 8] == packed(a == b)).all()
    assert ub[DST] == 0b01100110
    ub, _ = run_compare(int32_t, CMPMODE.EQ, a, 2**24 + 1, 64)
    assert (ub[DST:DST + 8] == packed(a == 2**24 + 1)).all()


@pytest.mark.parametrize("mode", [m for m in CMPMODE if m != CMPMODE.EQ], ids=lambda m: m.name)
def test_int32_other_modes_rejected(mode: CMPMODE) -> None:
    def body(ub):
        with pytest.raises(ParameterError, match="int32_t supports only CMPMODE.EQ"):
            A.Compare(tensor(ub, DST, uint8_t), tensor(ub, SRC0, int32_t),
                      tensor(ub, SRC1, int32_t), mode, 64)
        with pytest.raises(ParameterError, match="int32_t supports only CMPMODE.EQ"):
            A.CompareScalar(tensor(ub, DST, uint8_t), tensor(ub, SRC0, int32_t), 1, mode, 64)
    run_ub(body)


def test_compare_errors() -> None:
    def body(ub):
        dst = tensor(ub, DST, uint8_t, 8)
        for t in (bfloat16_t, int16_t, uint16_t):
            with pytest.raises(ParameterError, match="half, float or int32_t"):
                A.Compare(dst, tensor(ub, SRC0, t), tensor(ub, SRC1, t), CMPMODE.EQ, 128)
        with pytest.raises(ParameterError, match="one dtype"):
            A.Compare(dst, tensor(ub, SRC0, f32), tensor(ub, SRC1, half), CMPMODE.EQ, 64)
        A.CompareScalar(dst, tensor(ub, SRC0, f32), 0.0, CMPMODE.EQ, 64)   # 8 bytes: fits
        with pytest.raises(OutOfRangeError, match="dst"):
            A.CompareScalar(dst, tensor(ub, SRC0, f32), 0.0, CMPMODE.EQ, 128)
        with pytest.raises(OutOfRangeError, match="src0"):
            A.CompareScalar(tensor(ub, DST, uint8_t), tensor(ub, SRC0, f32, 100), 0.0,
                            CMPMODE.EQ, 128)
        with pytest.raises(AlignmentError, match="32-byte"):
            A.CompareScalar(tensor(ub, DST + 8, uint8_t), tensor(ub, SRC0, f32), 0.0,
                            CMPMODE.EQ, 64)
        with pytest.raises(AlignmentError, match="32-byte"):
            A.Compare(tensor(ub, DST, uint8_t), tensor(ub, SRC0, f32),
                      tensor(ub, SRC1 + 4, f32), CMPMODE.EQ, 64)
    run_ub(body)


def test_range_mask_with_and_on_uint16_views() -> None:
    """The LogitGrad idiom: (x >= lo) and (x <= hi) as two masks ANDed as uint16 words."""
    rng = np.random.default_rng(11)
    x = rng.uniform(-0.5, 1.5, 8192).astype(F32)
    x[:4] = [0.0, 1.0, np.nan, -0.0]
    lo_mask, hi_mask = 0, 1024

    def body(ub):
        xs = tensor(ub, SRC0, f32)
        m1 = tensor(ub, DST + lo_mask, uint8_t)
        m2 = tensor(ub, DST + hi_mask, uint8_t)
        A.CompareScalar(m1, xs, 0.0, CMPMODE.GE, 8192)
        A.CompareScalar(m2, xs, 1.0, CMPMODE.LE, 8192)
        w1, w2 = m1.ReinterpretCast[uint16_t](), m2.ReinterpretCast[uint16_t]()
        assert w1.GetSize() == m1.GetSize() // 2
        A.And(w1, w1, w2, 8192 // 16)

    ub, run = run_ub(body, [(SRC0, x)])
    with np.errstate(invalid="ignore"):
        want = packed((x >= 0) & (x <= 1))
    assert (ub[DST:DST + 1024] == want).all()
    assert ub[DST] & 0b1111 == 0b1011   # 0 in, 1 in, NaN out, -0 in
    assert run.decoded(0)[-1].count == 512


# ---- Select -----------------------------------------------------------------------------------

def select_ref(mode: SELMODE, mask: np.ndarray, a: np.ndarray, b: object, count: int,
               per_repeat: int) -> np.ndarray:
    """Element i takes a[i] when its mask bit is 1, else b[i] (or the scalar b)."""
    out = np.empty(count, a.dtype)
    for i in range(count):
        bit_index = i % per_repeat if mode == SELMODE.VSEL_CMPMASK_SPR else i
        bit = (int(mask[bit_index // 8]) >> (bit_index % 8)) & 1
        if bit:
            out[i] = a[i]
        else:
            out[i] = b if mode == SELMODE.VSEL_TENSOR_SCALAR_MODE else b[i]
    return out


def select_inputs(dt: np.dtype, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(17)
    ubits = np.dtype(f"u{dt.itemsize}")
    # raw bit patterns, NaNs with payloads included: Select moves bits, it does no arithmetic
    a = rng.integers(0, 2 ** (8 * dt.itemsize), n, dtype=np.uint64).astype(ubits).view(dt)
    b = rng.integers(0, 2 ** (8 * dt.itemsize), n, dtype=np.uint64).astype(ubits).view(dt)
    mask = rng.integers(0, 256, (n + 7) // 8 + 64, dtype=np.uint64).astype(np.uint8)
    return a, b, mask


SELECT_CASES = [
    (f32, SELMODE.VSEL_TENSOR_TENSOR_MODE, 1000), (half, SELMODE.VSEL_TENSOR_TENSOR_MODE, 8192),
    (f32, SELMODE.VSEL_TENSOR_SCALAR_MODE, 777), (half, SELMODE.VSEL_TENSOR_SCALAR_MODE, 300),
    (f32, SELMODE.VSEL_CMPMASK_SPR, 300), (half, SELMODE.VSEL_CMPMASK_SPR, 1000),
    (f32, SELMODE.VSEL_TENSOR_TENSOR_MODE, 1), (half, SELMODE.VSEL_TENSOR_SCALAR_MODE, 0),
]


@pytest.mark.parametrize("case", SELECT_CASES, ids=lambda c: f"{c[0]}-{c[1].name}-{c[2]}")
@pytest.mark.instruction("Select")
def test_select(case: tuple) -> None:
    dtype, mode, count = case
    dt = NP_OF[dtype]
    a, b, mask = select_inputs(dt, 8192)
    scalar = -2.5
    scalar_mode = mode == SELMODE.VSEL_TENSOR_SCALAR_MODE
    tmp_init = np.zeros(8192, np.uint8)   # the library temp area, visibly pre-filled
    init = [(DST, np.full(32768, SENTINEL, np.uint8)), (SRC0, a), (SRC1, b), (MASK, mask),
            (TMP_UB_OFFSET, tmp_init)]

    def body(ub):
        other = scalar if scalar_mode else tensor(ub, SRC1, dtype)
        A.Select(tensor(ub, DST, dtype), tensor(ub, MASK, uint8_t), tensor(ub, SRC0, dtype),
                 other, mode, count)

    ub, run = run_ub(body, init)
    per_repeat = 256 // dt.itemsize
    want = select_ref(mode, mask, a, dt.type(scalar) if scalar_mode else b, count, per_repeat)
    got = ub_array(ub, DST, dt, count)
    assert (bits(got) == bits(want)).all()
    assert (ub[DST + count * dt.itemsize:DST + 32768] == SENTINEL).all()
    # the hidden write to the temp area at TMP_UB_OFFSET (ascendc_more.md §6(a)): performed ...
    tmp_bytes = {SELMODE.VSEL_CMPMASK_SPR: 0, SELMODE.VSEL_TENSOR_SCALAR_MODE: 32 * dt.itemsize,
                 SELMODE.VSEL_TENSOR_TENSOR_MODE: 128}[mode]
    tmp = ub[TMP_UB_OFFSET:TMP_UB_OFFSET + tmp_bytes]
    if scalar_mode:   # the scalar duplicated into 32 elements of T
        assert (tmp.view(dt) == dt.type(scalar)).all()
    elif tmp_bytes:   # selMask's UB byte address, 32 times as uint32 (hand-computed bytes)
        assert list(tmp[:4]) == [MASK & 0xFF, MASK >> 8 & 0xFF, MASK >> 16 & 0xFF, 0]
        assert (tmp.view(np.uint32) == MASK).all()
    assert (ub[TMP_UB_OFFSET + tmp_bytes:TMP_UB_OFFSET + 8192] == 0).all()   # mode 0: nothing
    # ... and recorded as a write, next to the dst write and the reads
    rec = run.decoded(0)[-1]
    mask_bytes = per_repeat // 8 if mode == SELMODE.VSEL_CMPMASK_SPR else (count + 7) // 8
    nb = count * dt.itemsize
    want_acc = [(True, DST, DST + nb), (True, TMP_UB_OFFSET, TMP_UB_OFFSET + tmp_bytes),
                (False, MASK, MASK + mask_bytes), (False, SRC0, SRC0 + nb)]
    if not scalar_mode:
        want_acc.append((False, SRC1, SRC1 + nb))
    assert [(x.write, x.start, x.end) for x in rec.accesses] == want_acc
    assert (rec.name, rec.pipe_name, rec.mode) == ("Select", "V", int(mode))


@pytest.mark.instruction("Compare", "Select")
def test_select_after_compare() -> None:
    """dst = x where x > 0 else 0: the mask from CompareScalar drives Select mode 1."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal(4096).astype(F32)

    def body(ub):
        xs = tensor(ub, SRC0, f32)
        m = tensor(ub, MASK, uint8_t)
        A.CompareScalar(m, xs, 0.0, CMPMODE.GT, 4096)
        A.Select(tensor(ub, DST, f32), m, xs, 0.0, SELMODE.VSEL_TENSOR_SCALAR_MODE, 4096)

    ub, _ = run_ub(body, [(SRC0, x)])
    assert_same_bits(ub_array(ub, DST, F32, 4096), np.where(x > 0, x, np.float32(0)))


def test_select_errors() -> None:
    def body(ub):
        m = tensor(ub, MASK, uint8_t)
        t = {d: [tensor(ub, a, d) for a in (DST, SRC0, SRC1)] for d in (f32, half, int32_t)}
        with pytest.raises(ParameterError, match="takes a scalar src1"):
            A.Select(t[f32][0], m, t[f32][1], t[f32][2], SELMODE.VSEL_TENSOR_SCALAR_MODE, 64)
        for mode in (SELMODE.VSEL_TENSOR_TENSOR_MODE, SELMODE.VSEL_CMPMASK_SPR):
            with pytest.raises(ParameterError, match="takes a tensor src1"):
                A.Select(t[f32][0], m, t[f32][1], 1.0, mode, 64)
        with pytest.raises(ParameterError, match="half or float"):
            A.Select(*t[int32_t][:1], m, *t[int32_t][1:], SELMODE.VSEL_TENSOR_TENSOR_MODE, 64)
        with pytest.raises(ParameterError, match="half or float"):
            A.Select(t[f32][0], m, t[half][1], t[f32][2], SELMODE.VSEL_TENSOR_TENSOR_MODE, 64)
        with pytest.raises(OutOfRangeError, match="selMask"):
            A.Select(t[f32][0], tensor(ub, MASK, uint8_t, 8), t[f32][1], t[f32][2],
                     SELMODE.VSEL_TENSOR_TENSOR_MODE, 65)
        with pytest.raises(AlignmentError):
            A.Select(t[f32][0], tensor(ub, MASK + 1, uint8_t), t[f32][1], 0.0,
                     SELMODE.VSEL_TENSOR_SCALAR_MODE, 64)
    _, run = run_ub(body)
    assert run.cores[0].records == []


@pytest.mark.parametrize("mask_t", [uint8_t, uint16_t, A.uint32_t, A.uint64_t], ids=str)
def test_select_mask_of_any_unsigned_type(mask_t: DType) -> None:
    """The mask tensor may be uint8/16/32/64: it is the same bits, LSB-first."""
    a, b, mask = select_inputs(F32, 512)

    def body(ub):
        A.Select(tensor(ub, DST, f32), tensor(ub, MASK, mask_t), tensor(ub, SRC0, f32),
                 tensor(ub, SRC1, f32), SELMODE.VSEL_TENSOR_TENSOR_MODE, 512)

    ub, run = run_ub(body, [(SRC0, a), (SRC1, b), (MASK, mask)])
    want = select_ref(SELMODE.VSEL_TENSOR_TENSOR_MODE, mask, a, b, 512, 64)
    assert (bits(ub_array(ub, DST, F32, 512)) == bits(want)).all()
    assert run.profile.tmp_ub_offset == TMP_UB_OFFSET


@pytest.mark.parametrize("mode", [SELMODE.VSEL_TENSOR_SCALAR_MODE,
                                  SELMODE.VSEL_TENSOR_TENSOR_MODE], ids=lambda m: m.name)
def test_select_overlap_reads_sources_before_writing(mode: SELMODE) -> None:
    """Sources partially overlapping dst give the snapshot result, also when the Select waits
    behind a stalled V pipe for the copy that fills them."""
    x = np.arange(1, 129, dtype=F32)
    mask = np.tile(np.array([0x0F], np.uint8), 16)   # elements 0-3 of every 8 from src0

    def body(ub, xb):
        t, u = tensor(ub, SRC0, f32), tensor(ub, SRC1, f32)
        other = -1.0 if mode == SELMODE.VSEL_TENSOR_SCALAR_MODE else t[16]
        A.Select(t[8], tensor(ub, MASK, uint8_t), t, other, mode, 64)
        A.WaitFlag[A.HardEvent.MTE2_V](0)
        other = -1.0 if mode == SELMODE.VSEL_TENSOR_SCALAR_MODE else u[16]
        A.Select(u[8], tensor(ub, MASK, uint8_t), u, other, mode, 64)
        A.DataCopy(u, gtensor(xb, f32), 128)
        A.SetFlag[A.HardEvent.MTE2_V](0)

    ub, _ = run_ub(body, [(SRC0, x), (MASK, mask)], gm=(x,))
    want = x.copy()
    other = np.float32(-1) if mode == SELMODE.VSEL_TENSOR_SCALAR_MODE else x[16:80]
    want[8:72] = np.where(np.arange(64) % 8 < 4, x[:64], other)
    assert (ub_array(ub, SRC0, F32, 128) == want).all()
    assert (ub_array(ub, SRC1, F32, 128) == want).all()
