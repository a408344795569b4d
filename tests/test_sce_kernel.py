"""SigmoidCrossEntropyWithLogitsGradV2 kernel, launched directly with its own tiling: each of the
four template variants <T, HAS_WEIGHT, HAS_POS_WEIGHT> in each dtype bit-exact against the
float32 numpy model; the exact per-tile instruction sequence and UB slots of the reference
tables; GM traffic read from the records (every input byte read once, every output byte written
once, nothing past any tensor's end, DataCopyPad for a partial last block); double buffering;
special values; thread-count independence."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ascsim.compare import first_mismatch
from ascsim.core import PIPE_MTE2, PIPE_MTE3, PIPE_V
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import run_kernel, tiling_for
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2.reference import direct_model

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
DTYPES = [F32, F16, BF16]
VARIANTS = [(False, False), (True, False), (False, True), (True, True)]
NAMES = ("predict", "target", "dout", "weight", "posWeight", "gradient")  # kernel parameters


def make(n: int, dtype: np.dtype, w: bool, pw: bool, seed: int = 0, shape=None):
    rng = np.random.default_rng(seed)
    shape = shape or (n,)

    def draw(lo: float, hi: float) -> np.ndarray:
        return rng.uniform(lo, hi, shape).astype(np.float32).astype(dtype)
    return (draw(-4, 4), draw(0, 1), draw(-1, 1), draw(-1, 1) if w else None,
            draw(-1, 2) if pw else None)


def check_model(args, reduction="mean", **kw):
    out, run = run_kernel(*args, reduction=reduction, **kw)
    expected = direct_model(*args, reduction=reduction)
    mismatch = first_mismatch(out, expected)
    assert mismatch is None, f"vs numpy model: {mismatch}"
    return out, run


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("w, pw", VARIANTS, ids=["plain", "weight", "pos_weight", "both"])
@pytest.mark.parametrize("n", [1, 7, 15, 16, 17, 1023, 1024, 1025, 4673, 8193, 100_003])
def test_variant_bit_exact(dtype, w, pw, n):
    reduction = ("none", "mean", "sum")[n % 3]
    _, run = check_model(make(n, dtype, w, pw, seed=n), reduction)
    d = run.tiling
    assert (d.has_weight, d.has_pos_weight) == (int(w), int(pw))


def test_variants_run_their_own_template():
    # the variant is a compile-time choice: absent queues are not even allocated
    for w, pw in VARIANTS:
        _, run = check_model(make(64, F16, w, pw))
        names = [b.name for b in run.cores[0].pipe.buffers]
        assert ("weightQue_" in names, "posWeightQue_" in names) == (w, pw)


# ---- the per-tile instruction sequence of the reference tables --------------------------------

WIDEN_PW = [("Cast", "S0", "predictQue_"), ("Cast", "S1", "targetQue_"),
            ("Cast", "S3", "posWeightQue_"), ("Mul", "S2", "S3", "S1"), ("Adds", "S4", "S2"),
            ("Sub", "S4", "S4", "S1"), ("Muls", "S3", "S0"), ("Exp", "S3", "S3"),
            ("Adds", "S1", "S3"), ("Duplicate", "S3"), ("Div", "S0", "S3", "S1"),
            ("Mul", "S4", "S4", "S0"), ("Sub", "S0", "S4", "S2")]
WIDEN_PLAIN = [("Cast", "S0", "predictQue_"), ("Cast", "S1", "targetQue_"),
               ("Muls", "S2", "S0"), ("Exp", "S2", "S2"), ("Adds", "S4", "S2"),
               ("Duplicate", "S3"), ("Div", "S0", "S3", "S4"), ("Sub", "S0", "S0", "S1")]
WIDEN_TAIL_W = [("Cast", "S1", "doutQue_"), ("Mul", "S0", "S0", "S1"),
                ("Cast", "S2", "weightQue_"), ("Mul", "S0", "S0", "S2")]
LITE_PW = [("Mul", "S0", "posWeightQue_", "targetQue_"), ("Adds", "S2", "S0"),
           ("Sub", "S2", "S2", "targetQue_"), ("Muls", "S1", "predictQue_"), ("Exp", "S1", "S1"),
           ("Adds", "targetQue_", "S1"), ("Duplicate", "S1"),
           ("Div", "predictQue_", "S1", "targetQue_"), ("Mul", "S2", "S2", "predictQue_"),
           ("Sub", "predictQue_", "S2", "S0")]
LITE_PLAIN = [("Muls", "S0", "predictQue_"), ("Exp", "S0", "S0"), ("Adds", "S2", "S0"),
              ("Duplicate", "S1"), ("Div", "predictQue_", "S1", "S2"),
              ("Sub", "predictQue_", "predictQue_", "targetQue_")]
LITE_TAIL_W = [("Mul", "predictQue_", "predictQue_", "doutQue_"),
               ("Mul", "predictQue_", "predictQue_", "weightQue_")]


def expected_sequence(dtype: np.dtype, w: bool, pw: bool, mean: bool) -> list[tuple]:
    if dtype == F32:
        seq = list(LITE_PW if pw else LITE_PLAIN)
        seq += LITE_TAIL_W if w else LITE_TAIL_W[:1]
        if mean:
            seq.append(("Muls", "predictQue_", "predictQue_"))
        return seq + [("DataCopy", "gradientQue_", "predictQue_")]
    seq = list(WIDEN_PW if pw else WIDEN_PLAIN)
    seq += WIDEN_TAIL_W if w else WIDEN_TAIL_W[:2]
    if mean:
        seq.append(("Muls", "S0", "S0"))
    return seq + [("Cast", "gradientQue_", "S0")]


def vector_sequence(run, core: int = 0) -> list[tuple]:
    """The V-pipe instructions of one core as (name, operand, ...): a queue buffer's name, or
    S<k> for the k-th tileDataNum-float slot of the calc buffer."""
    buffers = run.cores[core].pipe.buffers
    calc = next(b for b in buffers if b.name == "calcBuf_")
    slot = run.tiling.tileDataNum * 4

    def where(addr: int) -> str:
        if calc.start <= addr < calc.end:
            assert (addr - calc.start) % slot == 0
            return f"S{(addr - calc.start) // slot}"
        return next(b.name for b in buffers if b.start <= addr < b.end)
    seq = []
    for r in run.decoded(core):
        if r.pipe == PIPE_V and r.instruction.family in ("vector", "copy"):
            seq.append((r.name, *(where(a.start) for a in r.accesses)))
    return seq


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("w, pw", VARIANTS, ids=["plain", "weight", "pos_weight", "both"])
@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_op_order_and_slots_of_one_tile(dtype, w, pw, reduction):
    _, run = check_model(make(40, dtype, w, pw), reduction)
    assert vector_sequence(run) == expected_sequence(dtype, w, pw, reduction == "mean")
    counts = {r.count for r in run.decoded(0) if r.instruction.family == "vector"}
    assert counts == {40}  # the vector work runs over the tile's elements, nothing more
    if dtype == F32:  # the UB->UB copy moves whole 32-byte blocks: 40 floats
        copy = [r for r in run.decoded(0) if r.pipe == PIPE_V and r.name == "DataCopy"]
        assert [r.count for r in copy] == [40]


def test_fp32_lite_layout_and_ub_to_ub_copy_of_a_partial_block():
    # 7 floats: the UB->UB copy rounds up to one block (8), the store writes exactly 7
    out, run = check_model(make(7, F32, True, True), "sum")
    copy = [r for r in run.decoded(0) if r.pipe == PIPE_V and r.name == "DataCopy"]
    assert [r.count for r in copy] == [8]
    sizes = {b.name: b.end - b.start for b in run.cores[0].pipe.buffers}
    tile = run.tiling.tileDataNum
    assert sizes["calcBuf_"] == 3 * tile * 4  # lite: 3 fp32 slots
    assert sizes["predictQue_"] == tile * 4


def test_widen_layout_has_five_calc_slots():
    _, run = check_model(make(100, BF16, False, False))
    sizes = {b.name: b.end - b.start for b in run.cores[0].pipe.buffers}
    tile = run.tiling.tileDataNum
    assert sizes["calcBuf_"] == 5 * tile * 4
    assert [b.name for b in run.cores[0].pipe.buffers] == [
        "predictQue_", "targetQue_", "doutQue_", "gradientQue_", "calcBuf_"]


# ---- GM traffic: read once, written once, never past the end ---------------------------------

def gm_traffic(run) -> dict[str, list[tuple[int, int, int, str]]]:
    """Per GM buffer name: every (start, end, pipe, instruction) access of every core."""
    names = {b.mem_id: b.name for b in run.gm if b is not None}
    out: dict[str, list] = {}
    for core in range(run.block_dim):
        for r in run.decoded(core):
            for a in r.accesses:
                if a.mem in names:
                    out.setdefault(names[a.mem], []).append((a.start, a.end, r.pipe, r.name,
                                                             a.write))
    return out


def assert_tiles_exactly(ranges: list[tuple[int, int]], nbytes: int, what: str) -> None:
    ranges = sorted(ranges)
    assert ranges[0][0] == 0, f"{what}: starts at byte {ranges[0][0]}"
    for (s1, e1), (s2, _) in zip(ranges, ranges[1:], strict=False):
        assert e1 == s2, f"{what}: [{s1}, {e1}) then [{s2}, ...): a gap or an overlap"
    assert ranges[-1][1] == nbytes, f"{what}: ends at byte {ranges[-1][1]}, tensor has {nbytes}"


@pytest.mark.parametrize("dtype, n, w, pw, buffer_num", [
    (F32, 1, True, True, 1), (F16, 7, False, False, 1), (BF16, 15, True, False, 1),
    (F32, 8193, True, True, 1),      # perf tune: tiles < 1024 floats, DataCopy for whole ones
    (F16, 100_003, False, True, 1),  # big and small cores, several tiles
    (BF16, 160_001, True, True, 1),  # the bf16 sum window: 2 tiles per core
    (F32, 30_011, False, True, 2),   # double buffering
    (F16, 50_001, True, False, 2),
])
def test_every_byte_read_once_and_written_once(dtype, n, w, pw, buffer_num):
    args = make(n, dtype, w, pw)
    out, run = check_model(args, "sum", buffer_num=buffer_num)
    assert run.block_dim == tiling_for((n,), dtype, w, pw, "sum", buffer_num).block_dim
    traffic = gm_traffic(run)
    nbytes = n * dtype.itemsize
    for name, present in zip(NAMES, (True, True, True, w, pw, True), strict=True):
        if not present:
            assert name not in traffic
            continue
        acc = traffic[name]
        writes = [(s, e) for s, e, _, _, wr in acc if wr]
        reads = [(s, e) for s, e, _, _, wr in acc if not wr]
        if name == "gradient":
            assert not reads and all(p == PIPE_MTE3 for _, _, p, _, wr in acc)
            assert_tiles_exactly(writes, nbytes, "gradient writes")
        else:
            assert not writes and all(p == PIPE_MTE2 for _, _, p, _, wr in acc)
            assert_tiles_exactly(reads, nbytes, f"{name} reads")
    # the partial last block (if any) goes through DataCopyPad with its exact byte count
    last = max(traffic["gradient"])
    if nbytes % 32:
        assert last[3] == "DataCopyPad" and last[1] == nbytes
    assert all(e - s >= 0 and (e - s) % 32 == 0 for s, e, _, op, _ in traffic["gradient"]
               if op == "DataCopy")


def test_small_fp32_tiles_use_datacopy_for_whole_tiles_and_pad_for_the_tail():
    # fp32 with both weights and N = 8193: 9 cores, 8 big ones of 912 floats and a small one
    # of 904 cut back to 897 (N's end); tiles under 1024 floats take DataCopy (the public
    # kernel's rule) when they are whole blocks, and the last one needs DataCopyPad
    args = make(8193, F32, True, True)
    _, run = check_model(args, "none")
    ops = sorted((s, op, e - s) for s, e, _, op, wr in gm_traffic(run)["gradient"])
    assert ops == [(i * 912 * 4, "DataCopy", 912 * 4) for i in range(8)] + [
        (8 * 912 * 4, "DataCopyPad", 897 * 4)]


# ---- double buffering, special values, threads ------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_double_buffering_same_bits_and_two_buffers_per_queue(dtype):
    args = make(70_001, dtype, True, False, seed=3)
    one, _ = check_model(args, "mean")
    two, run = check_model(args, "mean", buffer_num=2)
    assert first_mismatch(one, two) is None
    buffers = [b.name for b in run.cores[0].pipe.buffers]
    assert buffers.count("predictQue_[0]") == 1 and buffers.count("predictQue_[1]") == 1


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("w, pw", VARIANTS, ids=["plain", "weight", "pos_weight", "both"])
def test_special_values(dtype, w, pw):
    specials = np.array([0.0, -0.0, 1.0, -1.0, 100.0, -100.0, 88.0, -88.0, 89.0, -89.0,
                         1e-30, np.inf, -np.inf, np.nan, 20.0, -20.0], np.float32)
    n = 64
    x, y, d, wt, p = make(n, dtype, w, pw, seed=5)
    x = np.resize(specials, n).astype(dtype)
    y[::7] = np.array(np.nan).astype(dtype)
    d[3::11] = np.array(np.inf).astype(dtype)
    check_model((x, y, d, wt, p), "none")


def test_threads_do_not_change_bits():
    args = make(123_457, F16, True, True, seed=9)
    one, _ = check_model(args, "mean")
    two, _ = check_model(args, "mean", threads=2)
    assert first_mismatch(one, two) is None


def test_run_kernel_rejects_inputs_the_kernel_cannot_read():
    x, y, d, w, _ = make(16, F16, True, False)
    with pytest.raises(ValueError, match="broadcast"):
        run_kernel(x, y, d[:1], w)
    with pytest.raises(ValueError, match="broadcast"):
        run_kernel(x, y.astype(np.float32), d, w)
    with pytest.raises(ValueError, match="buffer_num"):
        run_kernel(x, y, d, w, w, buffer_num=2)
