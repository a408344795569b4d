"""The level-0 (mask / repeat) forms of Cast, Compare, CompareScalar and Select
(ascendc_more.md §2.3, §2.2 and §6(a)), and the sanitizer's view of them.

The reference is a byte-address model written here from §2.3: lane j of repeat r of an operand
of element size s sits at base + (r*Rep + (j // (32/s))*Blk)*32 + (j % (32/s))*s; a repeat has
E = 256 / (the widest operand's size) lanes (Cast: the narrower side covers 4 DataBlocks);
Normal mode runs the lanes whose mask bit is set, Counter mode lanes 0..n-1 spread over
repeats; lanes not run keep dst's old bytes. The element values come from independent
references: test_instr_cast.py's two-neighbours model for Cast, numpy comparisons packed LSB
first for Compare, and a per-lane Python choice for Select (with hand-computed temp bytes).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import TMP_UB_OFFSET, run_ub, tensor
from test_instr_cast import LEGAL, NP_OF, inputs, reference
from test_instr_cmpsel import OPS, compare_inputs, select_inputs

import ascsim
import ascsim.ascendc as A
from ascsim.ascendc import CMPMODE, SELMODE, BinaryRepeatParams, UnaryRepeatParams
from ascsim.ascendc import RoundMode as RM
from ascsim.core import current_core
from ascsim.dtypes import DType, bfloat16_t, half, int8_t, int16_t, int32_t, int64_t, uint8_t
from ascsim.dtypes import float as f32
from ascsim.errors import OutOfRangeError, ParameterError

DST, SRC, SRC1, MASK = 0, 65536, 98304, 131072
SENTINEL = 0xA5
FULL = 2**64 - 1


def lane_byte(base: int, size: int, r: int, j: int, blk: int, rep: int) -> int:
    epb = 32 // size
    return base + (r * rep + (j // epb) * blk) * 32 + (j % epb) * size


def lanes_on(mask: object, per_repeat: int) -> list[int]:
    if isinstance(mask, list):
        bits = mask[0] | mask[1] << 64
        return [j for j in range(per_repeat) if bits >> j & 1]
    return list(range(mask))


def extent(base: int, size: int, repeat: int, per_repeat: int, blk: int, rep: int,
           total: int | None = None) -> tuple[int, int]:
    """[first byte, one past the last byte] over every lane the call runs."""
    total = repeat * per_repeat if total is None else total
    end = max(lane_byte(base, size, i // per_repeat, i % per_repeat, blk, rep) + size
              for i in range(total))
    return base, end


def element(region: np.ndarray, base: int, addr: int, size: int) -> int:
    return (addr - base) // size


# ---- Cast -------------------------------------------------------------------------------------

CAST_CASES = [(s, d, m) for (s, d), modes in LEGAL.items() for m in modes]


def run_cast_level0(src_t: DType, dst_t: DType, mode: RM, x: np.ndarray, call) -> tuple:
    init = [(DST, np.full(65536, SENTINEL, np.uint8)), (SRC, x)]

    def body(ub):
        call(tensor(ub, DST, dst_t), tensor(ub, SRC, src_t))

    return run_ub(body, init)


@pytest.mark.parametrize("case", CAST_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2].name}")
@pytest.mark.instruction("Cast")
def test_cast_level0_every_pair_and_mode_full_mask(case: tuple[DType, DType, RM]) -> None:
    """Every special value through the level-0 form, with the count form's strides (8/4 when
    widening, 4/8 when narrowing): the same bits as the reference."""
    src_t, dst_t, mode = case
    ssz, dsz = src_t.size, dst_t.size
    wide = max(ssz, dsz)
    per_repeat = 256 // wide
    x = inputs(src_t)
    repeat = -(-x.size // per_repeat)
    x = np.resize(x, repeat * per_repeat)
    params = UnaryRepeatParams(1, 1, 8 * dsz // wide, 8 * ssz // wide)
    ub, run = run_cast_level0(src_t, dst_t, mode, x,
                              lambda d, s: A.Cast(d, s, mode, per_repeat, repeat, params))
    got = ub[DST:DST + x.size * dsz].view(f"u{dsz}")
    want = reference(src_t, dst_t, x, mode)
    assert (got == want).all(), f"Cast {src_t}->{dst_t} {mode.name}"
    assert (ub[DST + x.size * dsz:DST + 65536] == SENTINEL).all()
    rec = run.decoded(0)[-1]
    assert (rec.name, rec.dtype, rec.count, rec.repeats, rec.mode) == (
        "Cast", dst_t, x.size, repeat, int(mode))
    assert [(a.write, a.start, a.end, a.strided) for a in rec.accesses] == [
        (True, DST, DST + x.size * dsz, True), (False, SRC, SRC + x.size * ssz, True)]


STRIDED_CASES = [(f32, half, RM.CAST_ODD), (half, f32, RM.CAST_NONE),
                 (f32, int32_t, RM.CAST_ROUND), (int32_t, f32, RM.CAST_FLOOR),
                 (bfloat16_t, f32, RM.CAST_NONE), (f32, bfloat16_t, RM.CAST_TRUNC),
                 (f32, f32, RM.CAST_CEIL), (int8_t, half, RM.CAST_NONE),
                 (uint8_t, half, RM.CAST_NONE), (int16_t, f32, RM.CAST_NONE),
                 (half, int8_t, RM.CAST_ROUND), (half, uint8_t, RM.CAST_CEIL),
                 (half, int16_t, RM.CAST_FLOOR), (bfloat16_t, int32_t, RM.CAST_TRUNC),
                 (f32, int16_t, RM.CAST_RINT), (f32, int64_t, RM.CAST_ROUND),
                 (int32_t, int16_t, RM.CAST_NONE), (int64_t, int32_t, RM.CAST_NONE),
                 (int32_t, int64_t, RM.CAST_NONE), (int64_t, f32, RM.CAST_CEIL)]


@pytest.mark.parametrize("mask", [37, [0x8000_0000_F0F0_1235, 0]], ids=["continuous", "bits"])
@pytest.mark.parametrize("case", STRIDED_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2].name}")
@pytest.mark.instruction("Cast")
def test_cast_level0_masks_and_strides(case: tuple, mask: object) -> None:
    src_t, dst_t, mode = case
    ssz, dsz = src_t.size, dst_t.size
    per_repeat = 256 // max(ssz, dsz)
    if isinstance(mask, int):
        mask = min(mask, per_repeat - 3)    # 64-bit operands: 32 lanes
    repeat, blk, rep = 3, (2, 3), (20, 13)
    x = np.resize(inputs(src_t), 16384 // ssz)
    ub, run = run_cast_level0(src_t, dst_t, mode, x, lambda d, s: A.Cast(
        d, s, mode, mask, repeat, UnaryRepeatParams(blk[0], blk[1], rep[0], rep[1])))
    want = np.full(65536, SENTINEL, np.uint8)
    on = lanes_on(mask, per_repeat)
    for r in range(repeat):
        for j in on:
            s = lane_byte(SRC, ssz, r, j, blk[1], rep[1])
            d = lane_byte(DST, dsz, r, j, blk[0], rep[0])
            value = reference(src_t, dst_t, x[(s - SRC) // ssz:(s - SRC) // ssz + 1], mode)
            want[d:d + dsz] = value.view(np.uint8)
    assert (ub[DST:DST + 65536] == want).all()
    rec = run.decoded(0)[-1]
    assert [(a.start, a.end) for a in rec.accesses] == [
        extent(DST, dsz, repeat, per_repeat, blk[0], rep[0]),
        extent(SRC, ssz, repeat, per_repeat, blk[1], rep[1])]


@pytest.mark.instruction("Cast")
def test_cast_level0_8_to_16_bit_uses_both_mask_words() -> None:
    """int8 -> half: E = 128 lanes, the int8 side in 4 blocks of 32; mask bits 0, 64..71 and
    127 (the high word), dst block stride 3."""
    x = np.arange(-128, 128, dtype=np.int16).astype(np.int8)
    mask = [1, 0x8000_0000_0000_00FF]
    ub, _ = run_cast_level0(int8_t, half, RM.CAST_NONE, x, lambda d, s: A.Cast(
        d, s, RM.CAST_NONE, mask, 2, UnaryRepeatParams(3, 1, 24, 4)))
    want = np.full(65536, SENTINEL, np.uint8)
    for r in range(2):
        for j in [0, *range(64, 72), 127]:
            d = lane_byte(DST, 2, r, j, 3, 24)
            want[d:d + 2] = np.array([x[r * 128 + j]], np.float16).view(np.uint8)
    assert (ub[DST:DST + 65536] == want).all()


@pytest.mark.parametrize("n", [1, 64, 150])
@pytest.mark.instruction("Cast")
def test_cast_level0_counter_mode(n: int) -> None:
    x = np.resize(inputs(f32), 1024)

    def call(d, s):
        A.SetMaskCount()
        A.SetVectorMask[f32, A.MaskMode.COUNTER](0, n)
        A.Cast[half, f32, False](d, s, RM.CAST_RINT, A.MASK_PLACEHOLDER, 1,
                                 UnaryRepeatParams(1, 1, 4, 8))   # repeatTime ignored
        A.Cast(d[512], s, RM.CAST_FLOOR, [n, 0], 7, UnaryRepeatParams(1, 1, 4, 8))
        A.SetMaskNorm()
        A.ResetMask()

    ub, run = run_cast_level0(f32, half, RM.CAST_RINT, x, call)
    got = ub[DST:DST + 2048].view(np.uint16)
    assert (got[:n] == reference(f32, half, x[:n], RM.CAST_RINT)).all()
    assert (got[512:512 + n] == reference(f32, half, x[:n], RM.CAST_FLOOR)).all()
    assert (ub[DST + 2 * n:DST + 1024] == SENTINEL).all()
    assert (ub[DST + 1024 + 2 * n:DST + 4096] == SENTINEL).all()
    casts = [r for r in run.decoded(0) if r.name == "Cast"]
    for rec, base in zip(casts, (DST, DST + 1024), strict=True):
        assert (rec.count, rec.repeats) == (n, -(-n // 64))
        assert [(a.start, a.end) for a in rec.accesses] == [(base, base + 2 * n),
                                                            (SRC, SRC + 4 * n)]


@pytest.mark.instruction("Cast")
def test_cast_mask_state_after_each_form() -> None:
    x = np.resize(inputs(f32), 1024)
    seen = []

    def call(d, s):
        A.Cast(d, s, RM.CAST_RINT, 10, 1, UnaryRepeatParams())      # writes 10 lanes' mask
        seen.append(current_core().vmask)
        A.Cast[half, f32, False](d[256], s, RM.CAST_RINT, A.MASK_PLACEHOLDER, 2,
                                 UnaryRepeatParams(1, 1, 4, 8))       # those 10 lanes again
        A.Cast(d[512], s, RM.CAST_RINT, 64)                          # count form
        seen.append(current_core().vmask)

    ub, _ = run_cast_level0(f32, half, RM.CAST_RINT, x, call)
    assert seen == [(False, 0x3FF, 0), None]
    got = ub[DST:DST + 2048].view(np.uint16)
    ref = reference(f32, half, x[:128], RM.CAST_RINT)
    assert (got[:10] == ref[:10]).all() and (got[10:256] == SENTINEL * 0x101).all()
    assert (got[256:266] == ref[:10]).all() and (got[266:320] == SENTINEL * 0x101).all()
    assert (got[320:330] == ref[64:74]).all() and (got[330:512] == SENTINEL * 0x101).all()
    assert (got[512:576] == ref[:64]).all()


@pytest.mark.instruction("Cast")
def test_cast_level0_in_place_narrowing_reads_each_repeat_first() -> None:
    x = np.resize(inputs(f32), 256)

    def body(ub):
        t = tensor(ub, SRC, f32)
        A.Cast(t.ReinterpretCast[half](), t, RM.CAST_TRUNC, 64, 4, UnaryRepeatParams(1, 1, 4, 8))

    ub, _ = run_ub(body, [(SRC, x)])
    assert (ub[SRC:SRC + 512].view(np.uint16) == reference(f32, half, x, RM.CAST_TRUNC)).all()


def test_cast_level0_errors() -> None:
    def body(ub):
        s32, d16 = tensor(ub, SRC, int32_t, 256), tensor(ub, DST, half, 256)
        with pytest.raises(ParameterError, match="int32_t -> half .* before any SetDeqScale"):
            A.Cast(d16, s32, RM.CAST_NONE, 64, 1, UnaryRepeatParams())
        with pytest.raises(ParameterError, match="int32_t -> half .* before any SetDeqScale"):
            A.Cast(d16, s32, RM.CAST_NONE, 64)
        src = tensor(ub, SRC, f32, 256)
        with pytest.raises(ParameterError, match="UnaryRepeatParams"):
            A.Cast(d16, src, RM.CAST_RINT, 64, 1, BinaryRepeatParams())
        with pytest.raises(ParameterError, match="Cast<float, half>: dst must be a float tensor, "
                                                 "got half"):
            A.Cast[f32, half](d16, src, RM.CAST_RINT, 64, 1, UnaryRepeatParams())
        with pytest.raises(ParameterError, match="count form has no isSetMask"):
            A.Cast[half, f32, False](d16, src, RM.CAST_RINT, 64)
        with pytest.raises(ParameterError, match="repeatTime 256"):
            A.Cast(d16, src, RM.CAST_RINT, 64, 256, UnaryRepeatParams())
        with pytest.raises(ParameterError, match="out of range"):
            A.Cast(d16, src, RM.CAST_RINT, 65, 1, UnaryRepeatParams())   # E = 64 lanes
        with pytest.raises(OutOfRangeError, match="count 320 needs 640 bytes of dst"):
            A.Cast(d16, src, RM.CAST_RINT, 64, 5, UnaryRepeatParams(1, 1, 4, 8))

    _, run = run_ub(body)
    assert run.cores[0].records == []


# ---- Compare / CompareScalar ------------------------------------------------------------------

def int_inputs(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = np.where(rng.random(n) < 0.4, a, rng.integers(-5, 5, n)).astype(np.int32)
    a[:4] = [0, -1, 2**31 - 1, -2**31]
    b[:4] = [0, -1, -2**31, -2**31]
    return a, b


CMP_CASES = ([(f32, m) for m in CMPMODE] + [(half, m) for m in CMPMODE]
             + [(int32_t, CMPMODE.EQ)])
# (src0 blk, src1 blk, src0 rep, src1 rep): contiguous, and src1 broadcasting one block
STRIDES = {"contiguous": (1, 1, 8, 8), "broadcast": (2, 0, 17, 3)}


@pytest.mark.parametrize("strides", list(STRIDES), ids=str)
@pytest.mark.parametrize("case", CMP_CASES, ids=lambda c: f"{c[0]}-{c[1].name}")
@pytest.mark.instruction("Compare")
def test_compare_level0(case: tuple, strides: str) -> None:
    dtype, mode = case
    dt = NP_OF[dtype]
    size = dt.itemsize
    per_repeat = 256 // size
    a, b = int_inputs(8192) if dtype is int32_t else compare_inputs(dt, 8192)
    b0, b1, r0, r1 = STRIDES[strides]
    repeat = 5 if strides == "broadcast" else -(-144 // per_repeat) + 1   # every special pair
    seen = []

    def body(ub):
        dst = tensor(ub, DST, uint8_t)
        # the mask (one lane) and the dst strides have no effect on A2
        A.Compare(dst, tensor(ub, SRC, dtype), tensor(ub, SRC1, dtype), mode, 1, repeat,
                  BinaryRepeatParams(3, b0, b1, 1, r0, r1))
        seen.append(current_core().vmask)

    ub, run = run_ub(body, [(DST, np.full(4096, SENTINEL, np.uint8)), (SRC, a), (SRC1, b)])
    flags = []
    for r in range(repeat):
        for j in range(per_repeat):
            x = a[(lane_byte(SRC, size, r, j, b0, r0) - SRC) // size]
            y = b[(lane_byte(SRC1, size, r, j, b1, r1) - SRC1) // size]
            with np.errstate(invalid="ignore"):
                flags.append(bool(OPS[mode](x, y)))
    want = np.packbits(np.array(flags, np.uint8), bitorder="little")
    nbytes = repeat * per_repeat // 8
    assert (ub[DST:DST + nbytes] == want).all()
    assert (ub[DST + nbytes:DST + 4096] == SENTINEL).all()
    assert seen == [None]   # the mask register is not written
    rec = run.decoded(0)[-1]
    assert (rec.count, rec.repeats, rec.mode) == (repeat * per_repeat, repeat, int(mode))
    assert [(x.start, x.end) for x in rec.accesses] == [
        (DST, DST + nbytes), extent(SRC, size, repeat, per_repeat, b0, r0),
        extent(SRC1, size, repeat, per_repeat, b1, r1)]


@pytest.mark.parametrize(("dtype", "mode", "scalar"), [
    (f32, CMPMODE.LT, 0.5), (f32, CMPMODE.GE, -0.0), (f32, CMPMODE.NE, np.nan),
    (half, CMPMODE.GT, 1.0), (half, CMPMODE.LE, np.inf), (half, CMPMODE.EQ, -0.0),
    (int32_t, CMPMODE.EQ, -1)], ids=str)
@pytest.mark.instruction("CompareScalar")
def test_compare_scalar_level0(dtype: DType, mode: CMPMODE, scalar: float) -> None:
    dt = NP_OF[dtype]
    size = dt.itemsize
    per_repeat = 256 // size
    a = int_inputs(8192)[0] if dtype is int32_t else compare_inputs(dt, 8192)[0]
    if dtype is int32_t:
        a[::7] = -1
    repeat, blk, rep = 4, 2, 16

    def body(ub):
        A.CompareScalar[dtype, uint8_t](tensor(ub, DST, uint8_t), tensor(ub, SRC, dtype),
                                        scalar, mode, [0, 0], repeat,
                                        UnaryRepeatParams(9, blk, 1, rep))

    ub, run = run_ub(body, [(DST, np.full(4096, SENTINEL, np.uint8)), (SRC, a)])
    x = np.array([a[(lane_byte(SRC, size, r, j, blk, rep) - SRC) // size]
                  for r in range(repeat) for j in range(per_repeat)], dt)
    with np.errstate(invalid="ignore"):
        want = np.packbits(OPS[mode](x, dt.type(scalar)).astype(np.uint8), bitorder="little")
    nbytes = repeat * per_repeat // 8
    assert (ub[DST:DST + nbytes] == want).all()
    assert (ub[DST + nbytes:DST + 4096] == SENTINEL).all()
    rec = run.decoded(0)[-1]
    assert rec.name == "CompareScalar"
    assert [(x.start, x.end) for x in rec.accesses] == [
        (DST, DST + nbytes), extent(SRC, size, repeat, per_repeat, blk, rep)]


def test_compare_level0_errors() -> None:
    def body(ub):
        src = tensor(ub, SRC, f32, 1024)
        with pytest.raises(ParameterError, match="dst is uint8_t"):
            A.CompareScalar(tensor(ub, DST, half), src, 0.0, CMPMODE.LT, 0, 1,
                            UnaryRepeatParams())
        with pytest.raises(ParameterError, match="only CMPMODE.EQ"):
            A.CompareScalar(tensor(ub, DST, uint8_t), tensor(ub, SRC, int32_t), 0, CMPMODE.LT,
                            0, 1, UnaryRepeatParams())
        with pytest.raises(ParameterError, match="BinaryRepeatParams"):
            A.Compare(tensor(ub, DST, uint8_t), src, src, CMPMODE.LT, 0, 1,
                      UnaryRepeatParams())
        with pytest.raises(ParameterError, match="Compare<half, uint8_t>: src0 must be a half "
                                                 "tensor, got float"):
            A.Compare[half, uint8_t](tensor(ub, DST, uint8_t), src, src, CMPMODE.LT, 0, 1,
                                     BinaryRepeatParams())
        with pytest.raises(OutOfRangeError, match="of src0"):   # 17 repeats of 64 > 1024
            A.Compare(tensor(ub, DST, uint8_t), src, src, CMPMODE.LT, 0, 17,
                      BinaryRepeatParams())

    _, run = run_ub(body)
    assert run.cores[0].records == []


# ---- Select -----------------------------------------------------------------------------------

def _masks(per_repeat: int) -> list[object]:
    if per_repeat > 64:
        return [per_repeat - 5, [0xF0F0_F0F0_0F0F_0F0F, 0x8000_0000_0000_0001]]
    return [per_repeat - 5, [0x8000_0000_FFFF_0001, 0]]


SELECT_CASES = [(t, m, k) for t in (f32, half) for m in SELMODE for k in (0, 1)]


@pytest.mark.parametrize("case", SELECT_CASES,
                         ids=lambda c: f"{c[0]}-{c[1].name}-{'bits' if c[2] else 'cont'}")
@pytest.mark.instruction("Select")
def test_select_level0(case: tuple) -> None:
    dtype, mode, kind = case
    dt = NP_OF[dtype]
    size = dt.itemsize
    per_repeat = 256 // size
    mask = _masks(per_repeat)[kind]
    a, b, sel = select_inputs(dt, 8192)
    scalar_mode = mode == SELMODE.VSEL_TENSOR_SCALAR_MODE
    scalar = dt.type(-2.5)
    repeat, blk, rep = 3, (2, 1, 3), (20, 8, 30)
    seen = []

    def body(ub):
        other = scalar if scalar_mode else tensor(ub, SRC1, dtype)
        A.Select(tensor(ub, DST, dtype), tensor(ub, MASK, uint8_t), tensor(ub, SRC, dtype),
                 other, mode, mask, repeat, BinaryRepeatParams(*blk, *rep))
        seen.append(current_core().vmask)

    init = [(DST, np.full(32768, SENTINEL, np.uint8)), (SRC, a), (SRC1, b), (MASK, sel),
            (TMP_UB_OFFSET, np.zeros(8192, np.uint8))]
    ub, run = run_ub(body, init)
    want = np.full(32768, SENTINEL, np.uint8)
    for r in range(repeat):
        for j in lanes_on(mask, per_repeat):
            bit = j if mode == SELMODE.VSEL_CMPMASK_SPR else r * per_repeat + j
            if sel[bit // 8] >> (bit % 8) & 1:
                v = a[(lane_byte(SRC, size, r, j, blk[1], rep[1]) - SRC) // size]
            elif scalar_mode:
                v = scalar
            else:
                v = b[(lane_byte(SRC1, size, r, j, blk[2], rep[2]) - SRC1) // size]
            d = lane_byte(DST, size, r, j, blk[0], rep[0])
            want[d:d + size] = np.array([v], dt).view(np.uint8)
    assert (ub[DST:DST + 32768] == want).all()
    # the library's temp writes (§6(a)), hand-computed
    tmp = ub[TMP_UB_OFFSET:TMP_UB_OFFSET + 8192]
    tmp_bytes = {0: 0, 1: 32 * size, 2: 128}[int(mode)]
    if scalar_mode:
        assert (tmp[:tmp_bytes].view(dt) == scalar).all()
    elif tmp_bytes:
        assert (tmp[:tmp_bytes].view(np.uint32) == MASK).all()
    assert (tmp[tmp_bytes:] == 0).all()
    # its mask stays in the register (the library sets it whatever isSetMask says)
    lo, hi = (mask[0], mask[1]) if isinstance(mask, list) else ((1 << mask) - 1 & FULL,
                                                              (1 << mask) - 1 >> 64)
    assert seen == [(False, lo, hi)]
    rec = run.decoded(0)[-1]
    mask_bytes = per_repeat // 8 if mode == SELMODE.VSEL_CMPMASK_SPR else repeat * per_repeat // 8
    want_acc = [(True, *extent(DST, size, repeat, per_repeat, blk[0], rep[0])),
                (True, TMP_UB_OFFSET, TMP_UB_OFFSET + tmp_bytes),
                (False, MASK, MASK + mask_bytes),
                (False, *extent(SRC, size, repeat, per_repeat, blk[1], rep[1]))]
    if not scalar_mode:
        want_acc.append((False, *extent(SRC1, size, repeat, per_repeat, blk[2], rep[2])))
    assert [(x.write, x.start, x.end) for x in rec.accesses] == want_acc


@pytest.mark.parametrize("mode", list(SELMODE), ids=lambda m: m.name)
@pytest.mark.instruction("Select")
def test_select_level0_counter_mode(mode: SELMODE) -> None:
    n = 150
    a, b, sel = select_inputs(np.dtype(np.float32), 1024)
    scalar_mode = mode == SELMODE.VSEL_TENSOR_SCALAR_MODE

    def body(ub):
        other = 7.0 if scalar_mode else tensor(ub, SRC1, f32)
        A.SetMaskCount()
        A.Select(tensor(ub, DST, f32), tensor(ub, MASK, uint8_t), tensor(ub, SRC, f32), other,
                 mode, [n, 0], 1, BinaryRepeatParams())
        A.SetMaskNorm()
        A.ResetMask()

    ub, run = run_ub(body, [(DST, np.full(4096, SENTINEL, np.uint8)), (SRC, a), (SRC1, b),
                            (MASK, sel)])
    got = ub[DST:DST + 4096].view(np.uint32)
    for i in range(n):
        bit = i % 64 if mode == SELMODE.VSEL_CMPMASK_SPR else i
        if sel[bit // 8] >> (bit % 8) & 1:
            assert got[i] == a.view(np.uint32)[i]
        else:
            assert got[i] == (np.float32(7.0).view(np.uint32) if scalar_mode
                              else b.view(np.uint32)[i])
    assert (ub[DST + 4 * n:DST + 4096] == SENTINEL).all()
    rec = [r for r in run.decoded(0) if r.name == "Select"][0]
    mask_bytes = 8 if mode == SELMODE.VSEL_CMPMASK_SPR else (n + 7) // 8
    assert (rec.count, rec.repeats) == (n, 3)
    assert (rec.accesses[0].end, rec.accesses[2].end) == (DST + 4 * n, MASK + mask_bytes)


def test_select_level0_errors() -> None:
    def body(ub):
        d, m = tensor(ub, DST, f32, 1024), tensor(ub, MASK, uint8_t, 1024)
        with pytest.raises(ParameterError, match="takes a scalar src1"):
            A.Select(d, m, d, d, SELMODE.VSEL_TENSOR_SCALAR_MODE, 64, 1, BinaryRepeatParams())
        with pytest.raises(ParameterError, match="dstBlkStride 0"):
            A.Select(d, m, d, d, SELMODE.VSEL_TENSOR_TENSOR_MODE, 64, 1,
                     BinaryRepeatParams(0, 1, 1, 8, 8, 8))
        with pytest.raises(ParameterError, match="selMask must be a uint16_t tensor, got uint8_t"):
            A.Select[f32, A.uint16_t](d, m, d, d, SELMODE.VSEL_TENSOR_TENSOR_MODE, 64, 1,
                                      BinaryRepeatParams())

    _, run = run_ub(body)
    assert run.cores[0].records == []


@pytest.mark.instruction("Select")
def test_select_count_form_resets_the_mask() -> None:
    seen = []

    def body(ub):
        d, m = tensor(ub, DST, f32, 1024), tensor(ub, MASK, uint8_t, 1024)
        A.SetVectorMask[f32](0, 0xFF)
        A.Select(d, m, d, 1.0, SELMODE.VSEL_TENSOR_SCALAR_MODE, 64)
        seen.append(current_core().vmask)

    run_ub(body)
    assert seen == [None]


# ---- the sanitizer on the level-0 forms -------------------------------------------------------

def initcheck(body, addr: int, nbytes: int, sync: bool = True) -> list[str]:
    """Copy 1 KiB of floats to UB[0, 1024), run `body(ub)`, store UB[addr, addr + nbytes) to
    GM (after a V -> MTE3 sync unless `sync` is false); the sanitizer's findings."""
    x = np.arange(256, dtype=np.float32) - 100

    def kernel(xg, og):
        pipe = A.TPipe()
        buf = A.TBuf[A.QuePosition.VECCALC]()
        pipe.InitBuffer(buf, 65536)
        ub = buf.Get[uint8_t]()
        xt, ot = A.GlobalTensor[f32](), A.GlobalTensor[uint8_t]()
        xt.SetGlobalBuffer(xg)
        ot.SetGlobalBuffer(og)
        A.DataCopy(tensor(ub, 0, f32), xt, 256)
        A.SetFlag[A.HardEvent.MTE2_V](A.EVENT_ID0)
        A.WaitFlag[A.HardEvent.MTE2_V](A.EVENT_ID0)
        body(ub)
        if sync:
            A.SetFlag[A.HardEvent.V_MTE3](A.EVENT_ID0)
            A.WaitFlag[A.HardEvent.V_MTE3](A.EVENT_ID0)
        A.DataCopy(ot, tensor(ub, addr, uint8_t), nbytes)

    run = ascsim.launch(kernel, 1, x, np.zeros(nbytes, np.uint8), sanitize="check",
                        outputs=(1,))
    return sorted({f.check for f in run.findings})


UNINIT = ["uninitialised value reaches GM"]


@pytest.mark.parametrize(("nbytes", "findings"), [(32, []), (64, UNINIT)])
@pytest.mark.instruction("Cast")
def test_sanitizer_cast_level0_disabled_lanes_stay_uninitialised(nbytes: int,
                                                                 findings: list) -> None:
    """f32 -> half, 16 lanes on: dst bytes [4096, 4128) are written, the rest are not."""
    def body(ub):
        A.Cast(tensor(ub, 4096, half), tensor(ub, 0, f32), RM.CAST_RINT, 16, 1,
               UnaryRepeatParams(1, 1, 4, 8))

    assert initcheck(body, 4096, nbytes) == findings


@pytest.mark.parametrize(("srep", "findings"), [(8, []), (9, UNINIT)])
@pytest.mark.instruction("Cast")
def test_sanitizer_cast_level0_reads_its_strided_source(srep: int, findings: list) -> None:
    """half <- f32 with 4 repeats: source repeat stride 8 stays in the 1 KiB loaded, 9 reads
    32 uninitialised bytes in its last repeat (the narrow dst's 4 blocks at stride 4)."""
    def body(ub):
        A.Cast(tensor(ub, 4096, half), tensor(ub, 0, f32), RM.CAST_RINT, 64, 4,
               UnaryRepeatParams(1, 1, 4, srep))

    assert initcheck(body, 4096, 512) == findings


@pytest.mark.parametrize(("rep1", "findings"), [(8, []), (12, UNINIT)])
@pytest.mark.instruction("Compare")
def test_sanitizer_compare_level0_strided_sources(rep1: int, findings: list) -> None:
    """4 repeats of 64 floats: src1 at repeat stride 12 reaches past the 1 KiB loaded."""
    def body(ub):
        src = tensor(ub, 0, f32)
        A.Compare(tensor(ub, 4096, uint8_t), src, src, CMPMODE.LT, 0, 4,
                  BinaryRepeatParams(1, 1, 1, 8, 8, rep1))

    assert initcheck(body, 4096, 32) == findings


@pytest.mark.parametrize(("mask", "findings"), [(64, []), (63, UNINIT)])
@pytest.mark.instruction("Select")
def test_sanitizer_select_level0_keeps_disabled_lanes(mask: int, findings: list) -> None:
    """A mask from CompareScalar, then Select into a fresh region: lane 63 disabled leaves its
    dst bytes uninitialised; the mode-2 temp write is the library's (no finding)."""
    def body(ub):
        src = tensor(ub, 0, f32)
        m = tensor(ub, 2048, uint8_t)
        A.CompareScalar(m, src, 0.0, CMPMODE.GT, 0, 4, UnaryRepeatParams())
        A.Select(tensor(ub, 4096, f32), m, src, src[64], SELMODE.VSEL_TENSOR_TENSOR_MODE,
                 mask, 2, BinaryRepeatParams(1, 1, 1, 8, 8, 8))

    assert initcheck(body, 4096, 512) == findings


@pytest.mark.parametrize(("offset", "race"), [(32, False), (64, True), (256, False)])
@pytest.mark.instruction("Cast")
def test_sanitizer_cast_level0_race_walks_the_narrow_blocks(offset: int, race: bool) -> None:
    """f32 -> half with dstBlkStride 2: the 4 half blocks of the repeat land at 0, 64, 128 and
    192 bytes (not 8 blocks: 256 is past them); an unsynchronised copy of a gap block does not
    race, of a written one does."""
    def body(ub):
        A.Cast(tensor(ub, 4096, half), tensor(ub, 0, f32), RM.CAST_RINT, 64, 1,
               UnaryRepeatParams(2, 1, 8, 8))

    assert ("RAW hazard" in initcheck(body, 4096 + offset, 32, sync=False)) == race


@pytest.mark.parametrize(("offset", "race"), [(0, True), (32, False)])
@pytest.mark.instruction("Select")
def test_sanitizer_select_level0_race_walks_its_strided_dst(offset: int, race: bool) -> None:
    """Select's dst at block stride 2: the odd blocks are not written."""
    def body(ub):
        src = tensor(ub, 0, f32)
        A.Select(tensor(ub, 4096, f32), tensor(ub, 0, uint8_t), src, 1.0,
                 SELMODE.VSEL_TENSOR_SCALAR_MODE, 64, 1, BinaryRepeatParams(2, 1, 1, 16, 8, 8))

    assert ("RAW hazard" in initcheck(body, 4096 + offset, 32, sync=False)) == race


@pytest.mark.instruction("Select")
def test_select_level0_partial_overlap_is_reported() -> None:
    """src0 one block above dst: each repeat's dst and src0 partially overlap (check mode
    reports it and runs the call, reading each repeat before writing it)."""
    x = np.arange(512, dtype=np.float32)
    sel = np.full(64, 0xFF, np.uint8)

    def kernel():
        pipe = A.TPipe()
        buf = A.TBuf[A.QuePosition.VECCALC]()
        pipe.InitBuffer(buf, 65536)
        ub = buf.Get[uint8_t]()
        core = current_core()
        core.ub[0:2048] = x.view(np.uint8)
        core.ub[4096:4160] = sel
        A.Select(tensor(ub, 0, f32), tensor(ub, 4096, uint8_t), tensor(ub, 32, f32), 0.0,
                 SELMODE.VSEL_TENSOR_SCALAR_MODE, 64, 2, BinaryRepeatParams())

    run = ascsim.launch(kernel, 1, sanitize="check")
    assert "partial address overlap" in {f.check for f in run.findings}
    got = run.cores[0].ub[0:512].view(np.float32)
    assert (got == x[8:136]).all()
