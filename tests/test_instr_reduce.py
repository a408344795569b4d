"""Reductions (ascendc_more.md §1): WholeReduceSum/Max/Min, RepeatReduceSum, BlockReduceSum/
Max/Min, PairReduceSum, the level-2 ReduceSum/Max/Min and the register readers GetAccVal and
GetReduceMaxMinCount.

The reference is written here from the fact sheet, on UB bytes: lane j of repeat r sits at
src + (r*srcRepStride + (j // epb)*srcBlkStride)*32 + (j % epb)*size; a sum is numpy's tree of
adjacent pairs in np.float16 / np.float32 (each node rounded to T by numpy), masked lanes +0.0;
max/min scan the enabled lanes in order, a strictly better value or the first NaN replaces the
winner; the results go where §1.2-§1.6 say, and every other byte keeps its sentinel. Index
slots are checked against hand-written bit patterns too.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_bits, bits, gtensor, run_ub, tensor, ub_array

import ascsim
import ascsim.ascendc as A
from ascsim.ascendc import HardEvent, QuePosition, TBuf, TPipe, TQue, uint8_t
from ascsim.core import current_core
from ascsim.dtypes import float as f32
from ascsim.dtypes import half, int32_t
from ascsim.errors import AlignmentError, OutOfRangeError, ParameterError
from ascsim.instructions.reduce import maxmin_tmp_elements, reduce_tmp_elements
from ascsim.records import MODE, OP, decode
from ascsim.registry import by_name

SRC, DST, TMP = 0, 65536, 98304
SENT = {np.float32: np.float32(-7.0), np.float16: np.float16(-7.0)}
NP = {f32: np.float32, half: np.float16}
ORDERS = list(A.ReduceOrder)


# ---- the reference -------------------------------------------------------------------------

def lane_elem(size: int, r: int, j: int, blk: int, rep: int) -> int:
    epb = 32 // size
    return ((r * rep + (j // epb) * blk) * 32 + (j % epb) * size) // size


def tree(vals: np.ndarray) -> np.generic:
    v = vals.copy()
    with np.errstate(over="ignore", invalid="ignore"):
        while v.size > 1:
            v = (v[0::2] + v[1::2]).astype(vals.dtype)
    return v[0]


def better(op: str, x, best) -> bool:
    if np.isnan(best):
        return False
    if np.isnan(x):
        return True
    return x > best if op == "max" else x < best


def extreme(op: str, vals: list, lanes: list[int]) -> tuple[int, object]:
    at, best = -1, None
    for j in lanes:
        if at < 0 or better(op, vals[j], best):
            at, best = j, vals[j]
    return at, best


def mask_lanes(mask, per: int) -> list[int]:
    if isinstance(mask, (list, tuple)):
        m = int(mask[0]) | (int(mask[1]) << 64)
        return [j for j in range(per) if (m >> j) & 1]
    return list(range(min(int(mask), per)))


def ref_groups(src: np.ndarray, dst: np.ndarray, op: str, group: int, lanes_of, repeats: int,
               sblk: int, srep: int, dstep: int, pair: bool = False) -> None:
    """Block/Pair/Whole value results into dst (element view), dstep elements per repeat."""
    size = src.itemsize
    per = 256 // size
    for r in range(repeats):
        active = set(lanes_of(r))
        vals = [src[lane_elem(size, r, j, sblk, srep)] for j in range(per)]
        for g in range(per // group):
            members = range(g * group, (g + 1) * group)
            on = [j for j in members if j in active]
            if not on:
                continue
            d = r * dstep + g
            if op == "sum":
                if pair and len(on) == 1:
                    dst[d] = vals[on[0]]
                else:
                    dst[d] = tree(np.array([vals[j] if j in active else 0 for j in members],
                                           src.dtype))
            else:
                dst[d] = extreme(op, vals, on)[1]


def random_values(np_t, n: int, rng, specials: bool = True) -> np.ndarray:
    x = (rng.standard_normal(n) * 8).astype(np_t)
    if specials:
        tiny = np.finfo(np_t).smallest_subnormal
        k = rng.integers(0, n, n // 20)
        x[k] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0, tiny, -3 * tiny, 0.0],
                                   np_t), k.size)
    return x


def run(body, init, profile=None):
    return run_ub(body, init, profile=profile)


def sentinel(np_t, n: int) -> np.ndarray:
    return np.full(n, SENT[np_t], np_t)


# ---- WholeReduce ---------------------------------------------------------------------------

WHOLE_CASES = [
    # mask, repeat, dstRepStride, srcBlkStride, srcRepStride
    (64, 4, 1, 1, 8),
    ([0xF0F0_F0F0_0F0F_0F0F, 0], 3, 2, 2, 16),
    (5, 2, 3, 1, 1),
]


@pytest.mark.instruction("WholeReduceSum")
@pytest.mark.parametrize("dtype", [f32, half], ids=str)
@pytest.mark.parametrize("case", WHOLE_CASES)
def test_whole_reduce_sum(dtype, case) -> None:
    np_t = NP[dtype]
    mask, repeat, drep, sblk, srep = case
    if dtype is half and isinstance(mask, list):
        mask = [mask[0], 0x8000_0000_0000_0001]
    per = 256 // dtype.size
    src = random_values(np_t, 8192, np.random.default_rng(1))
    ub, _ = run(lambda u: A.WholeReduceSum(tensor(u, DST, dtype, 256), tensor(u, SRC, dtype),
                                           mask, repeat, drep, sblk, srep),
                [(SRC, src), (DST, sentinel(np_t, 256))])
    want = sentinel(np_t, 256)
    ref_groups(src, want, "sum", per, lambda r: mask_lanes(mask, per), repeat, sblk, srep,
               drep)
    assert_same_bits(ub_array(ub, DST, np_t, 256), want, "WholeReduceSum")


@pytest.mark.instruction("WholeReduceMax", "WholeReduceMin")
@pytest.mark.parametrize("dtype", [f32, half], ids=str)
@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
def test_whole_reduce_max_min_orders(dtype, op, order) -> None:
    np_t = NP[dtype]
    size = dtype.size
    per = 256 // size
    rng = np.random.default_rng(2)
    src = rng.integers(-20, 20, 4096).astype(np_t)      # many ties
    src[5 * per + 2] = np.nan                            # repeat 5: the first NaN wins
    src[5 * per + 3] = np.nan                            # (lane 3 is masked off)
    src[5 * per + 9] = np.nan
    src[6 * per:7 * per] = -0.0
    src[6 * per + 4] = 0.0                               # ties with -0.0: lane 0 wins
    mask = [0xFFFF_FFFF_FFFF_FFF7, 0xFFFF_0000_FFFF_FFFF if size == 2 else 0]
    repeat, drep = 7, 2
    fn = A.WholeReduceMax if op == "max" else A.WholeReduceMin
    ub, _ = run(lambda u: fn(tensor(u, DST, dtype, 512), tensor(u, SRC, dtype), mask, repeat,
                             drep, 1, 8, order),
                [(SRC, src), (DST, sentinel(np_t, 512))])
    got = ub[DST:DST + 1024].copy()
    want = sentinel(np_t, 1024 // size).view(np.uint8).copy()
    unit = {0: 2 * size, 1: 2 * size, 2: size, 3: 4}[int(order)]
    ubits = np.dtype(f"u{size}")
    for r in range(repeat):
        lanes = mask_lanes(mask, per)
        vals = list(src[r * per:(r + 1) * per])
        j, _ = extreme(op, vals, lanes)
        vbits = src[r * per + j:r * per + j + 1].view(np.uint8)
        ibits = np.array([j], ubits).view(np.uint8)
        a = r * drep * unit
        if order == A.ReduceOrder.ORDER_VALUE_INDEX:
            want[a:a + 2 * size] = np.concatenate([vbits, ibits])
        elif order == A.ReduceOrder.ORDER_INDEX_VALUE:
            want[a:a + 2 * size] = np.concatenate([ibits, vbits])
        elif order == A.ReduceOrder.ORDER_ONLY_VALUE:
            want[a:a + size] = vbits
        else:
            want[a:a + 4] = np.array([j], np.uint32).view(np.uint8)
    np.testing.assert_array_equal(got, want)
    if order == A.ReduceOrder.ORDER_VALUE_INDEX:
        # hand-checked: repeat 5 holds the first NaN at lane 2; repeat 6 the tie -0.0 at lane 0
        idx = got.view(ubits)[5 * drep * 2 + 1], got.view(ubits)[6 * drep * 2 + 1]
        assert (int(idx[0]), int(idx[1])) == (2, 0)
        assert bits(got.view(np_t)[6 * drep * 2:6 * drep * 2 + 1])[0] == (
            0x8000 if size == 2 else 0x8000_0000)


@pytest.mark.instruction("WholeReduceMax")
def test_whole_reduce_max_half_index_bits() -> None:
    """The §1.1 example: a half index slot holding 0x0072 means lane 114."""
    src = np.zeros(128, np.float16)
    src[114] = 3.0
    src[120] = 3.0                                       # a later tie loses
    ub, _ = run(lambda u: A.WholeReduceMax(tensor(u, DST, half, 16), tensor(u, SRC, half), 128,
                                           1, 1, 1, 8),
                [(SRC, src), (DST, sentinel(np.float16, 16))])
    slots = ub[DST:DST + 4].view(np.uint16)
    assert (int(slots[0]), int(slots[1])) == (0x4200, 0x0072)


@pytest.mark.instruction("WholeReduceSum")
@pytest.mark.parametrize("dtype", [f32, half], ids=str)
def test_whole_reduce_sum_counter_mode(dtype) -> None:
    np_t = NP[dtype]
    per = 256 // dtype.size
    n = 2 * per + 7
    src = random_values(np_t, 4096, np.random.default_rng(3), specials=False)

    def body(u):
        A.SetMaskCount()
        A.SetVectorMask[dtype](0, n)
        A.WholeReduceSum[dtype, False](tensor(u, DST, dtype, 64), tensor(u, SRC, dtype),
                                       A.MASK_PLACEHOLDER, 1, 1, 1, 8)
        A.SetMaskNorm()
        A.ResetMask()
    ub, _ = run(body, [(SRC, src), (DST, sentinel(np_t, 64))])
    want = sentinel(np_t, 64)
    ref_groups(src, want, "sum", per, lambda r: range(min(per, n - r * per)), 3, 1, 8, 1)
    assert_same_bits(ub_array(ub, DST, np_t, 64), want, "Counter mode")
    assert want[3] == SENT[np_t]                          # ceil(n/E) = 3 results only


@pytest.mark.instruction("WholeReduceSum")
def test_half_tree_rounds_every_node_and_overflows_to_inf() -> None:
    # hand-computed fp16 trees (lanes 2.. are +0): 65504 + 16 = 65520, a tie, to even: inf;
    # 65504 + 8 rounds to 65504; 2048 + 1 = 2049 rounds to 2048 and stays 2048 + 1 + 1
    cases = {(65504.0, 16.0): 0x7C00, (65504.0, 8.0): 0x7BFF, (2048.0, 1.0, 1.0, 0.0): 0x6800,
             (2048.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0): 0x6800,
             (-65504.0, -65504.0): 0xFC00, (6e-8, 6e-8): 0x0002, (-0.0, -0.0): 0x0000}
    srcs = np.zeros((len(cases), 128), np.float16)
    for k, vals in enumerate(cases):
        srcs[k, :len(vals)] = vals
    ub, _ = run(lambda u: A.WholeReduceSum(tensor(u, DST, half, 16), tensor(u, SRC, half), 128,
                                           len(cases), 1, 1, 8),
                [(SRC, srcs.reshape(-1)), (DST, sentinel(np.float16, 16))])
    got = ub[DST:DST + 2 * len(cases)].view(np.uint16)
    assert [int(g) for g in got] == list(cases.values())


@pytest.mark.instruction("RepeatReduceSum")
def test_repeat_reduce_sum_is_whole_reduce_sum() -> None:
    src = random_values(np.float32, 4096, np.random.default_rng(4))
    init = [(SRC, src), (DST, sentinel(np.float32, 64)), (DST + 4096, sentinel(np.float32, 64))]

    def body(u):
        A.RepeatReduceSum(tensor(u, DST, f32, 64), tensor(u, SRC, f32), 5, 33, 7, 1, 2, 8)
        A.WholeReduceSum(tensor(u, DST + 4096, f32, 64), tensor(u, SRC, f32), 33, 5, 2, 1, 8)
    ub, _ = run(body, init)
    assert_same_bits(ub_array(ub, DST, np.float32, 64), ub_array(ub, DST + 4096, np.float32, 64))
    want = sentinel(np.float32, 64)
    ref_groups(src, want, "sum", 64, lambda r: range(33), 5, 1, 8, 2)
    assert_same_bits(ub_array(ub, DST, np.float32, 64), want)


# ---- BlockReduce and PairReduceSum ---------------------------------------------------------

@pytest.mark.instruction("BlockReduceSum", "BlockReduceMax", "BlockReduceMin")
@pytest.mark.parametrize("dtype", [f32, half], ids=str)
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_block_reduce(dtype, op) -> None:
    np_t = NP[dtype]
    per = 256 // dtype.size
    epb = per // 8
    src = random_values(np_t, 8192, np.random.default_rng(5))
    # block 2 fully masked (keeps dst), block 5 one lane, the rest partly
    bitsm = 0
    for b in range(8):
        if b == 2:
            continue
        for j in range(epb):
            if b == 5 and j != 3:
                continue
            if (j + b) % 3:
                bitsm |= 1 << (b * epb + j)
    mask = [bitsm & (2**64 - 1), bitsm >> 64]
    fn = {"sum": A.BlockReduceSum, "max": A.BlockReduceMax, "min": A.BlockReduceMin}[op]
    repeat, drep, sblk, srep = 3, 2, 1, 9
    ub, _ = run(lambda u: fn(tensor(u, DST, dtype, 64), tensor(u, SRC, dtype), repeat, mask,
                             drep, sblk, srep),
                [(SRC, src), (DST, sentinel(np_t, 64))])
    want = sentinel(np_t, 64)
    ref_groups(src, want, op, epb, lambda r: mask_lanes(mask, per), repeat, sblk, srep, 8 * drep)
    assert_same_bits(ub_array(ub, DST, np_t, 64), want, f"BlockReduce {op}")
    assert (ub_array(ub, DST, np_t, 64)[[2, 18, 34]] == SENT[np_t]).all()


@pytest.mark.instruction("PairReduceSum")
@pytest.mark.parametrize("dtype", [f32, half], ids=str)
def test_pair_reduce_sum(dtype) -> None:
    np_t = NP[dtype]
    per = 256 // dtype.size
    src = random_values(np_t, 8192, np.random.default_rng(6))
    src[1] = -0.0                                        # pair 0: lane 1 alone keeps -0.0
    src[6] = np.nan                                      # pair 3: both lanes, NaN
    on = [j for j in range(per) if j % 8 not in (0, 4, 5) or j == 6]   # lane 4+5: both off
    bm = sum(1 << j for j in on)
    mask = [bm & (2**64 - 1), bm >> 64]
    ub, _ = run(lambda u: A.PairReduceSum(tensor(u, DST, dtype, 1024), tensor(u, SRC, dtype),
                                          2, mask, 1, 1, 8),
                [(SRC, src), (DST, sentinel(np_t, 1024))])
    want = sentinel(np_t, 1024)
    ref_groups(src, want, "sum", 2, lambda r: on, 2, 1, 8, per // 2, pair=True)
    got = ub_array(ub, DST, np_t, 1024)
    assert_same_bits(got, want, "PairReduceSum")
    assert bits(got[:1])[0] == bits(np.array([-0.0], np_t))[0]   # copied, not -0 + 0
    assert got[2] == SENT[np_t] and np.isnan(got[3])


# ---- level 2 -------------------------------------------------------------------------------

def _level2(body, init, profile=None):
    return run(body, init, profile)


@pytest.mark.instruction("ReduceSum", "GetAccVal")
@pytest.mark.parametrize("dtype", [f32, half], ids=str)
@pytest.mark.parametrize("count", [1, 200, 1000, 4096])
def test_reduce_sum_count_form(dtype, count) -> None:
    np_t = NP[dtype]
    per = 256 // dtype.size
    src = random_values(np_t, 8192, np.random.default_rng(count), specials=False)
    src[7] = -0.0
    got_acc = []

    def body(u):
        A.SetVectorMask[dtype](0, 3)                     # lost: the count form resets it
        A.ReduceSum(tensor(u, DST, dtype, 16), tensor(u, SRC, dtype), tensor(u, TMP, dtype, 16),
                    count)
        got_acc.append(A.GetAccVal[dtype]())
        got_acc.append(A.GetAccVal())
        assert current_core().vmask is None
    ub, run_ = _level2(body, [(SRC, src), (DST, sentinel(np_t, 16)),
                              (TMP, sentinel(np_t, 16))])
    sums = [tree(np.array([src[r * per + j] if r * per + j < count else 0
                           for j in range(per)], np_t)) for r in range(-(-count // per))]
    acc = sums[0]
    for s in sums[1:]:
        acc = np_t(acc + s)
    want = sentinel(np_t, 16)
    want[0] = acc
    assert_same_bits(ub_array(ub, DST, np_t, 16), want, "dst")
    assert_same_bits(ub_array(ub, TMP, np_t, 16), sentinel(np_t, 16), "tmp untouched")
    assert_same_bits(np.array([got_acc[0]], np_t), want[:1], "GetAccVal<T>")
    assert int(got_acc[1]) == int(bits(want[:1])[0])
    # the library's syncs: V->S, S->V, S->MTE3, each a Set/Wait pair after the vcadd
    rows = [decode(r) for r in run_.cores[0].records]
    i = next(k for k, r in enumerate(rows) if r.name == "ReduceSum")
    assert [a.role for a in rows[i].accesses] == ["dst", "src"]    # tmp: no access at all
    events = [(r.name, HardEvent(r.mode >> 3).name, r.pipe_name) for r in rows[i + 1:i + 7]]
    assert events == [("SetFlag", "V_S", "V"), ("WaitFlag", "V_S", "S"),
                      ("SetFlag", "S_V", "S"), ("WaitFlag", "S_V", "V"),
                      ("SetFlag", "S_MTE3", "S"), ("WaitFlag", "S_MTE3", "MTE3")]
    assert all(r.implicit for r in rows[i + 1:i + 7])


@pytest.mark.instruction("ReduceSum")
def test_reduce_sum_acc_dtype_float_option(tmp_path) -> None:
    from conftest import custom_profile
    profile = custom_profile(tmp_path, "acc_dtype", '"float"')
    src = np.full(1024, 1.0, np.float16)
    src[0] = 2048.0                                      # repeat 0 sums to 2048 + 127
    # T: 2048+127 = 2175 -> 2176 (ulp 2 in [2048, 4096)), then + 128 each time, in half;
    # float: the 8 repeat sums added exactly, rounded once
    for prof, in_t in ((None, True), (profile, False)):
        ub, _ = _level2(lambda u: A.ReduceSum(tensor(u, DST, half, 16), tensor(u, SRC, half),
                                              tensor(u, TMP, half, 16), 1000),
                        [(SRC, src), (DST, sentinel(np.float16, 16))], prof)
        parts = [tree(np.array(list(src[r * 128:min(1000, (r + 1) * 128)]) +
                               [0] * (128 - len(src[r * 128:min(1000, (r + 1) * 128)])),
                               np.float16)) for r in range(8)]
        if in_t:
            acc = parts[0]
            for p in parts[1:]:
                acc = np.float16(acc + p)
        else:
            acc = np.float16(np.float32(sum(np.float32(p) for p in parts)))
        assert bits(ub_array(ub, DST, np.float16, 1))[0] == bits(np.array([acc]))[0]


@pytest.mark.instruction("ReduceSum")
@pytest.mark.parametrize("dtype", [f32, half], ids=str)
@pytest.mark.parametrize("repeat", [1, 5, 70, 300])
def test_reduce_sum_mask_form(dtype, repeat) -> None:
    np_t = NP[dtype]
    per = 256 // dtype.size
    srep = 8 if repeat <= 70 else 1
    mask = [0x0F0F_FFFF_0000_FFF1, 0x3 if per > 64 else 0]
    src = random_values(np_t, 32768, np.random.default_rng(repeat), specials=False)
    ntmp = reduce_tmp_elements(dtype, repeat)
    ub, _ = _level2(lambda u: A.ReduceSum(tensor(u, DST, dtype, 16), tensor(u, SRC, dtype),
                                          tensor(u, TMP, dtype, ntmp), mask, repeat, srep),
                    [(SRC, src), (DST, sentinel(np_t, 16)), (TMP, sentinel(np_t, ntmp + 16))])
    lanes = mask_lanes(mask, per)
    tmp = sentinel(np_t, ntmp + 16)
    for r in range(repeat):
        tmp[r] = tree(np.array([src[lane_elem(dtype.size, r, j, 1, srep)] if j in lanes else 0
                                for j in range(per)], np_t))
    n = repeat
    while True:
        parts = -(-n // per)
        new = [tree(np.concatenate([tmp[k * per:min(n, (k + 1) * per)],
                                    np.zeros(max(0, (k + 1) * per - n), np_t)]))
               for k in range(parts)]
        tmp[:parts] = new
        if parts == 1:
            result = tmp[0]
            break
        if parts <= per:
            result = tree(np.concatenate([tmp[:parts], np.zeros(per - parts, np_t)]))
            break
        n = parts
    want = sentinel(np_t, 16)
    want[0] = result
    assert_same_bits(ub_array(ub, DST, np_t, 16), want, "dst")
    assert_same_bits(ub_array(ub, TMP, np_t, ntmp + 16), tmp, "tmp")


def ref_maxmin(op: str, src: np.ndarray, count: int | None, mask=None, repeat: int = 0,
               srep: int = 8) -> tuple[object, int]:
    size = src.itemsize
    per = 256 // size
    best, at = None, -1
    if count is not None:
        for i in range(count):
            if at < 0 or better(op, src[i], best):
                best, at = src[i], i
        return best, at
    lanes = mask_lanes(mask, per)
    for r in range(repeat):
        for j in lanes:
            x = src[lane_elem(size, r, j, 1, srep)]
            if at < 0 or better(op, x, best):
                best, at = x, r * srep * (32 // size) + j
    return best, at


@pytest.mark.instruction("ReduceMax", "ReduceMin")
@pytest.mark.parametrize("dtype", [f32, half], ids=str)
@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("count", [5, 128, 1000, 4097])
@pytest.mark.parametrize("cal", [False, True])
def test_reduce_max_min_count_form(dtype, op, count, cal) -> None:
    np_t = NP[dtype]
    per = 256 // dtype.size
    rng = np.random.default_rng(count + cal)
    src = rng.integers(-500, 500, 8192).astype(np_t)
    if count > 600:
        src[600] = src[count - 1] = 1000 if op == "max" else -1000   # body/tail tie: body wins
    r = max(1, count // per)
    ntmp = maxmin_tmp_elements(dtype, r, cal)
    fn = A.ReduceMax if op == "max" else A.ReduceMin
    ub, run_ = _level2(lambda u: fn(tensor(u, DST, dtype, 16), tensor(u, SRC, dtype),
                                    tensor(u, TMP, dtype, ntmp), count, cal),
                    [(SRC, src), (DST, sentinel(np_t, 16)), (TMP, sentinel(np_t, ntmp))])
    value, index = ref_maxmin(op, src, count)
    got = ub_array(ub, DST, np_t, 16)
    assert bits(got[:1])[0] == bits(np.array([value], np_t))[0]
    ubits = bits(got)
    if cal:
        assert int(ubits[1]) == index & (0xFFFF if dtype is half else 0xFFFFFFFF)
        if count > 600:
            assert index == 600
    else:
        assert got[1] == SENT[np_t]
    assert (got[2:] == SENT[np_t]).all()
    tmp = ub_array(ub, TMP, np_t, ntmp)
    [row] = [decode(r) for r in run_.cores[0].records if decode(r).name == fn.__name__]
    assert [(a.role, a.write, a.start, a.end) for a in row.accesses] == [
        ("dst", True, DST, DST + dtype.size * (2 if cal else 1)),
        ("src", False, SRC, SRC + count * dtype.size),
        ("sharedTmpBuffer", True, TMP, TMP + ntmp * dtype.size)]
    if count // per:
        # reduce_tmp_clobber: the body's per-repeat pairs [value, lane] (in front: the final
        # [body, tail] pair when there is a tail)
        body = count // per
        # without calIndex the passes run in place from tmp[0]
        k = 2 if not cal else (1 if count % per else 0)
        for rr in range(k, min(body, 4)):
            j, v = extreme(op, list(src[rr * per:(rr + 1) * per]), range(per))
            assert bits(tmp[2 * rr:2 * rr + 1])[0] == bits(np.array([v], np_t))[0]
            assert int(bits(tmp)[2 * rr + 1]) == j


@pytest.mark.instruction("ReduceMax", "ReduceMin")
@pytest.mark.parametrize("dtype", [f32, half], ids=str)
@pytest.mark.parametrize("op", ["max", "min"])
def test_reduce_max_min_mask_form_and_nan(dtype, op) -> None:
    np_t = NP[dtype]
    rng = np.random.default_rng(9)
    src = rng.integers(-50, 50, 16384).astype(np_t)
    mask, repeat, srep = [0xFFFF_0000_FFFF_00FF, 0], 9, 16
    fn = A.ReduceMax if op == "max" else A.ReduceMin
    ntmp = maxmin_tmp_elements(dtype, repeat, True)
    for with_nan in (False, True):
        s = src.copy()
        if with_nan:
            s[lane_elem(dtype.size, 4, 17, 1, srep)] = np.nan
            s[lane_elem(dtype.size, 6, 1, 1, srep)] = np.nan
        ub, _ = _level2(lambda u: fn(tensor(u, DST, dtype, 16), tensor(u, SRC, dtype),
                                     tensor(u, TMP, dtype, ntmp), mask, repeat, srep, True),
                        [(SRC, s), (DST, sentinel(np_t, 16))])
        value, index = ref_maxmin(op, s, None, mask, repeat, srep)
        got = ub_array(ub, DST, np_t, 16)
        assert_same_bits(got[:1], np.array([value], np_t))
        assert int(bits(got)[1]) == index
        if with_nan:
            assert index == 4 * srep * (32 // dtype.size) + 17


@pytest.mark.instruction("ReduceMax")
def test_reduce_tmp_clobber_false_leaves_tmp(tmp_path) -> None:
    from conftest import custom_profile
    profile = custom_profile(tmp_path, "reduce_tmp_clobber", "false")
    src = np.arange(2048, dtype=np.float32)
    ub, _ = _level2(lambda u: A.ReduceMax(tensor(u, DST, f32, 16), tensor(u, SRC, f32),
                                          tensor(u, TMP, f32, 256), 2000, True),
                    [(SRC, src), (TMP, sentinel(np.float32, 256))], profile)
    assert ub_array(ub, DST, np.float32, 1)[0] == 1999.0
    assert ub_array(ub, DST, np.uint32, 2)[1] == 1999
    assert (ub_array(ub, TMP, np.float32, 256) == -7.0).all()


@pytest.mark.instruction("ReduceMax", "ReduceSum")
def test_tmp_size_rules() -> None:
    # [DOC] hand-evaluated: float, R = 10: no index ceil(20/8)*8 = 24; with index
    # 24 + ceil(2*ceil(20/64)/8)*8 = 24 + 8; R = 100: 200 + ceil(2*4/8)*8 = 208, then the
    # second pass yields 8 > 2 elements: + ceil(2*ceil(8/64)/8)*8 = 216
    assert maxmin_tmp_elements(f32, 10, False) == 24
    assert maxmin_tmp_elements(f32, 10, True) == 32
    assert maxmin_tmp_elements(f32, 100, True) == 216
    assert reduce_tmp_elements(half, 17) == 32
    assert reduce_tmp_elements(f32, 16) == 16

    def small_tmp(u):
        A.ReduceMax(tensor(u, DST, f32, 16), tensor(u, SRC, f32), tensor(u, TMP, f32, 31),
                    640, True)                            # R = 10 with index: 32 needed
    with pytest.raises(OutOfRangeError, match="sharedTmpBuffer has 31 elements.*needs 32"):
        run(small_tmp, [])

    def small_sum_tmp(u):
        A.ReduceSum(tensor(u, DST, f32, 16), tensor(u, SRC, f32), tensor(u, TMP, f32, 8),
                    64, 9, 8)                             # R = 9: 16 needed
    with pytest.raises(OutOfRangeError, match="needs 16"):
        run(small_sum_tmp, [])


# ---- errors and the register readers -------------------------------------------------------

@pytest.mark.instruction("WholeReduceSum", "ReduceSum")
def test_dtype_and_argument_errors() -> None:
    cases = [
        (lambda u: A.WholeReduceSum(tensor(u, DST, int32_t, 64), tensor(u, SRC, int32_t), 64, 1,
                                    1, 1, 8), ParameterError, "half or float"),
        (lambda u: A.WholeReduceSum(tensor(u, DST, f32, 64), tensor(u, SRC, half), 64, 1, 1, 1,
                                    8), ParameterError, "one type"),
        (lambda u: A.WholeReduceSum(tensor(u, DST, f32, 64), tensor(u, SRC, f32), 64, 256, 1, 1,
                                    8), ParameterError, "repeatTime 256"),
        (lambda u: A.WholeReduceMax(tensor(u, DST + 4, f32, 64), tensor(u, SRC, f32), 64, 1, 1,
                                    1, 8), AlignmentError, "8-byte aligned"),
        (lambda u: A.WholeReduceSum(tensor(u, DST, f32, 2), tensor(u, SRC, f32), 64, 4, 1, 1,
                                    8), OutOfRangeError, "dst needs 16 bytes"),
        (lambda u: A.ReduceSum(tensor(u, DST, f32, 2), tensor(u, SRC, f32),
                               tensor(u, TMP, f32, 8), 0), ParameterError, "count 0"),
        (lambda u: A.BlockReduceSum(tensor(u, DST, f32, 64), tensor(u, SRC, f32), 64, 1, 1, 8),
         ParameterError, "repeatTime comes before mask"),
    ]
    for body, err, text in cases:
        with pytest.raises(err, match=text):
            run(body, [])


@pytest.mark.instruction("ReduceSum")
def test_level2_needs_a_tpipe() -> None:
    def body(u):
        current_core().pipe = None   # as if the kernel had made no TPipe
        A.ReduceSum(tensor(u, DST, f32, 16), tensor(u, SRC, f32), tensor(u, TMP, f32, 16), 64)
    with pytest.raises(ParameterError, match="create a TPipe first"):
        run(body, [])


@pytest.mark.instruction("GetAccVal", "GetReduceMaxMinCount")
def test_register_readers() -> None:
    out = {}
    src = np.arange(256, dtype=np.float32)
    src[77] = 500.0

    def body(u):
        d, s = tensor(u, DST, f32, 64), tensor(u, SRC, f32)
        with pytest.raises(ParameterError, match="ACC_VAL holds no result"):
            A.GetAccVal[f32]()
        with pytest.raises(ParameterError, match="nothing set it"):
            A.GetReduceMaxMinCount[f32]()
        A.WholeReduceMax(d, s, 64, 4, 1, 1, 8)
        out["global"] = A.GetReduceMaxMinCount[f32]()
        A.WholeReduceMax(d, s, 64, 4, 1, 1, 4)
        with pytest.raises(ParameterError, match="contiguous use only"):
            A.GetReduceMaxMinCount[f32]()
        A.ReduceSum(d, s, tensor(u, TMP, f32, 8), 100)
        out["acc"] = A.GetAccVal[f32]()
        A.WholeReduceSum(d, s, 64, 1, 1, 1, 8)
        with pytest.raises(ParameterError, match="ACC_VAL holds no result"):
            A.GetAccVal[f32]()
    run(body, [(SRC, src)])
    assert out["global"] == (np.float32(500.0), 77)
    assert out["acc"] == np.float32(tree(np.concatenate([src[:64], np.zeros(0, np.float32)]))
                                     + tree(np.concatenate([src[64:100],
                                                            np.zeros(28, np.float32)])))


@pytest.mark.instruction("GetReduceMaxMinCount")
def test_maxmin_spr_index_per_repeat_option(tmp_path) -> None:
    from conftest import custom_profile
    profile = custom_profile(tmp_path, "maxmin_spr_index", '"per_repeat"')
    src = np.zeros(512, np.float16)
    src[300] = 9.0
    out = []
    run(lambda u: (A.WholeReduceMin(tensor(u, DST, half, 64), tensor(u, SRC, half), 128, 4, 1,
                                    1, 8),
                   out.append(A.GetReduceMaxMinCount[half]()),
                   A.WholeReduceMax(tensor(u, DST, half, 64), tensor(u, SRC, half), 128, 4, 1,
                                    1, 8),
                   out.append(A.GetReduceMaxMinCount[half]())),
        [(SRC, src)], profile)
    assert out == [(np.float16(0.0), 0), (np.float16(9.0), 300 - 256)]


# ---- sanitizer: initcheck through a reduction ----------------------------------------------

def _initcheck_kernel(lanes: int, hole: int, form: str):
    """A fresh queue buffer with 8 floats at `hole` never written, reduced with the first
    `lanes` lanes enabled, and the result copied to GM."""
    def kernel(x, out):
        pipe = TPipe()
        q = TQue[QuePosition.VECIN, 1]()
        pipe.InitBuffer(q, 1, 1024)
        b = TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(b, 1024)
        src = q.AllocTensor[f32]()
        A.Duplicate(src, 1.0, hole)
        A.Duplicate(src[hole + 8], 1.0, 256 - hole - 8)
        dst = b.Get[f32]()
        A.Duplicate(dst, 0.0, 64)
        if form == "whole":
            A.WholeReduceSum(dst, src, lanes, 1, 1, 1, 8)
        elif form == "block":
            A.BlockReduceMax(dst, src, 1, lanes, 1, 1, 8)
        else:
            A.ReduceMax(dst, src, b.Get[f32]()[32], lanes, True)
        A.SetFlag[HardEvent.V_MTE3](0)
        A.WaitFlag[HardEvent.V_MTE3](0)
        A.DataCopy(gtensor(out, f32), dst, 8)
        q.FreeTensor(src)
    return kernel


@pytest.mark.instruction("WholeReduceSum", "BlockReduceMax", "ReduceMax")
@pytest.mark.parametrize("form", ["whole", "block", "level2"])
def test_initcheck_reports_a_result_from_unwritten_lanes(form) -> None:
    x = np.zeros(64, np.float32)
    for lanes, hole, bad in ((64, 40, True), (40, 40, False), (64, 8, True), (8, 8, False)):
        out = np.zeros(8, np.float32)
        run_ = ascsim.launch(_initcheck_kernel(lanes, hole, form), 1, x, out,
                             sanitize="check", outputs=(1,))
        found = [f for f in run_.findings if f.check == "uninitialised value reaches GM"]
        assert bool(found) == bad, (form, lanes, hole, run_.findings)
        assert len(run_.findings) == len(found), run_.findings
        if bad:
            [f] = found
            # whole/level2: dst[0] (4 bytes, +4 for the index); block: the hole's block only
            want = {"whole": (0, 4), "block": (4 * (hole // 8), 4 * (hole // 8) + 4),
                    "level2": (0, 8)}[form]
            assert (f.start, f.end) == want, (f.start, f.end)


def test_reduce_records_use_the_reduce_dataflow() -> None:
    for name in ("WholeReduceSum", "BlockReduceMax", "PairReduceSum", "ReduceSum", "ReduceMin"):
        ins = by_name(name)
        assert ins.dataflow.name == "REDUCE"
        assert ins.work is not None
    assert by_name("GetAccVal").work is None
    _ = (OP, MODE, uint8_t)


@pytest.mark.instruction("ReduceSum", "GetAccVal")
def test_timeline_shows_the_scalar_unit_waiting_for_the_vcadd() -> None:
    """The library's V->S sync: the scalar-pipe WaitFlag<V_S> ends after the vector work, and
    the scalar read that follows (GetAccVal) starts after it."""
    src = np.ones(49152, np.float32)
    ub, run_ = run(lambda u: (A.ReduceSum(tensor(u, DST, f32, 16), tensor(u, SRC, f32, 49152),
                                          tensor(u, TMP, f32, 16), 16000),
                              A.GetAccVal[f32]()), [(SRC, src[:16000])])
    tl = run_.timeline()
    rows = [decode(r) for r in run_.cores[0].records]
    i = next(k for k, r in enumerate(rows) if r.name == "ReduceSum")
    wait = next(k for k in range(i, len(rows)) if rows[k].name == "WaitFlag"
                and rows[k].pipe_name == "S")
    get = next(k for k in range(i, len(rows)) if rows[k].name == "GetAccVal")
    off = int(tl.off[0])
    assert tl.end[off + i] - tl.start[off + i] > 100          # 250 repeats of vector work
    assert tl.end[off + wait] >= tl.end[off + i]
    assert tl.start[off + get] >= tl.end[off + i]
    assert ub_array(ub, DST, np.float32, 1)[0] == 16000.0


@pytest.mark.instruction("ReduceSum")
def test_count_form_is_set_mask_false_takes_the_register_count() -> None:
    src = np.arange(1, 301, dtype=np.float32)
    out = []

    def body(u):
        A.SetMaskCount()
        A.SetVectorMask[f32](0, 70)
        A.ReduceSum[f32, False](tensor(u, DST, f32, 16), tensor(u, SRC, f32),
                                tensor(u, TMP, f32, 16), 0)
        out.append(current_core().vmask)
        with pytest.raises(ParameterError, match="needs Counter mode"):
            A.ReduceSum[f32, False](tensor(u, DST, f32, 16), tensor(u, SRC, f32),
                                    tensor(u, TMP, f32, 16), 70)
    ub, _ = run(body, [(SRC, src)])
    want = np.float32(tree(src[:64])) + np.float32(tree(np.concatenate([src[64:70],
                                                                        np.zeros(58,
                                                                                 np.float32)])))
    assert ub_array(ub, DST, np.float32, 1)[0] == want == np.float32(70 * 71 / 2)
    assert out == [None]                                  # Normal mode, full mask after it


@pytest.mark.instruction("BlockReduceSum", "PairReduceSum")
@pytest.mark.parametrize("dtype", [f32, half], ids=str)
def test_block_and_pair_counter_mode(dtype) -> None:
    """Counter mode: ceil(n/E) repeats, the last one partial; blocks and pairs past the count
    are not written (all their lanes are off)."""
    np_t = NP[dtype]
    per = 256 // dtype.size
    epb = per // 8
    n = per + 3 * epb + 1                                 # repeat 1: 3 full blocks + 1 lane
    src = random_values(np_t, 4096, np.random.default_rng(11))

    def body(u):
        A.SetMaskCount()
        A.SetVectorMask[dtype](0, n)
        A.BlockReduceSum[dtype, False](tensor(u, DST, dtype, 64), tensor(u, SRC, dtype), 1,
                                       A.MASK_PLACEHOLDER, 1, 1, 8)
        A.PairReduceSum[dtype, False](tensor(u, DST + 4096, dtype, 256), tensor(u, SRC, dtype),
                                      1, A.MASK_PLACEHOLDER, 1, 1, 8)
        A.SetMaskNorm()
        A.ResetMask()
    ub, _ = run(body, [(SRC, src), (DST, sentinel(np_t, 64)),
                       (DST + 4096, sentinel(np_t, 256))])
    lanes = lambda r: range(min(per, n - r * per))  # noqa: E731
    want = sentinel(np_t, 64)
    ref_groups(src, want, "sum", epb, lanes, 2, 1, 8, 8)
    assert_same_bits(ub_array(ub, DST, np_t, 64), want, "BlockReduceSum")
    assert (ub_array(ub, DST, np_t, 64)[12:16] == SENT[np_t]).all()
    want = sentinel(np_t, 256)
    ref_groups(src, want, "sum", 2, lanes, 2, 1, 8, per // 2, pair=True)
    assert_same_bits(ub_array(ub, DST + 4096, np_t, 256), want, "PairReduceSum")


@pytest.mark.instruction("WholeReduceSum", "ReduceSum")
@pytest.mark.parametrize("dtype", [f32, half], ids=str)
def test_mask_zero_is_a_nop_and_specials_in_level2(dtype) -> None:
    np_t = NP[dtype]
    src = np.ones(2048, np_t)
    src[700] = np.inf
    src[900] = -np.inf                                    # inf + -inf: NaN
    src[1500] = np.nan                                    # past the count: not read

    def body(u):
        A.WholeReduceSum(tensor(u, DST, dtype, 16), tensor(u, SRC, dtype), 0, 4, 1, 1, 8)
        A.WholeReduceSum(tensor(u, DST, dtype, 16), tensor(u, SRC, dtype), [0, 0], 4, 1, 1, 8)
        A.ReduceSum(tensor(u, DST + 64, dtype, 16), tensor(u, SRC, dtype),
                    tensor(u, TMP, dtype, 16), 800)
        A.ReduceSum(tensor(u, DST + 128, dtype, 16), tensor(u, SRC, dtype),
                    tensor(u, TMP, dtype, 16), 1000)
    ub, _ = run(body, [(SRC, src), (DST, sentinel(np_t, 128))])
    assert (ub_array(ub, DST, np_t, 16) == SENT[np_t]).all()
    assert ub_array(ub, DST + 64, np_t, 1)[0] == np.inf
    assert np.isnan(ub_array(ub, DST + 128, np_t, 1)[0])
