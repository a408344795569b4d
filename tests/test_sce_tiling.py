"""SigmoidCrossEntropyWithLogitsGradV2 tiling: the reference's worked numbers, every special
window on both sides of its edges, the reduction encodings, the flags, buffer_num, and a
coverage check over thousands of N: the split the kernel derives from the tiling (its Init and
Process, mirrored here) covers [0, N) exactly once, ends exactly at N, and fits the UB.
(test_sce_kernel.py checks the same on the records of real launches.)"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import tiling_for

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
UB_BYTES = 196608


def ub_used(t) -> int:
    """UB bytes the kernel's InitBuffer calls take: bufferNum buffers per queue (predict, target,
    dout, [weight], [pos_weight], gradient) of tileDataNum elements, plus the fp32 calc slots."""
    d = t.data
    ib = 4 if d.fp32_lite_mode else 2
    queues = 4 + d.has_weight + d.has_pos_weight
    slots = 3 if d.fp32_lite_mode else 5
    return queues * d.bufferNum * d.tileDataNum * ib + slots * d.tileDataNum * 4


# ---- the reference's worked numbers (48 AIV cores, UB 196608) --------------------------------

@pytest.mark.parametrize("shape, dtype, w, pw, reduction, cores, tile, ub", [
    ((10_000_000,), F16, False, False, "none", 48, 4672, 130816),
    ((1000, 1000), F32, False, False, "none", None, 6432, None),
    ((1000, 1000), F32, True, True, "none", 32, 5232, 188352),
    ((100, 100, 30), F32, True, True, "sum", 40, 5344, 192384),
    ((120,), F32, True, True, "sum", 1, 120, None),
    ((32, 64), F32, False, False, "none", 2, 6432, None),  # the public tiling UT
])
def test_worked_numbers(shape, dtype, w, pw, reduction, cores, tile, ub):
    t = tiling_for(shape, dtype, w, pw, reduction)
    assert t.data.tileDataNum == tile
    if cores is not None:
        assert t.block_dim == cores
    if ub is not None:
        assert ub_used(t) == ub


def test_public_tiling_ut_split():
    # fp32 (32, 64), reduction none: 2 cores of 1024 elements, one tile each
    d = tiling_for((32, 64), F32, False, False, "none").data
    assert (d.smallCoreDataNum, d.tailBlockNum, d.finalSmallTileNum, d.smallTailDataNum) == (
        1024, 0, 1, 1024)
    assert (d.globalScale, d.has_weight, d.has_pos_weight, d.fp32_lite_mode) == (1.0, 0, 0, 1)


def test_tiling_key_workspace_and_lite_flag():
    for dtype, key, lite in ((F16, 0, 0), (F32, 1, 1), (BF16, 2, 0)):
        t = tiling_for((64,), dtype, True, False)
        assert (t.tiling_key, t.data.fp32_lite_mode) == (key, lite)
        assert t.workspace == 16 * 1024 * 1024  # GetLibApiWorkSpaceSize()


# ---- special windows, each on both sides of its edges ------------------------------------------

def test_heavy_window():
    heavy = tiling_for((50, 50, 100), F32, True, True, "sum")  # N = 250000, rank 3
    assert (heavy.block_dim, heavy.data.tileDataNum) == (40, 5344)  # 4 KB reserved
    assert tiling_for((25, 2, 50, 100), F32, True, True, "sum").block_dim == 40  # rank 4
    edge = tiling_for((38, 25, 1000), F32, True, True, "sum")  # N = 950000
    assert edge.block_dim == 40
    # outside: N one below / above, rank 2 or 5, reduction mean, a weight missing
    for shape, w, red in (((3, 83333, 1), True, "sum"), ((950001, 1, 1), True, "sum"),
                          ((500, 500), True, "sum"), ((50, 50, 100), True, "mean"),
                          ((2, 25, 50, 100, 1), True, "sum")):
        t = tiling_for(shape, F32, w, True, red)
        assert t.block_dim != 40 and t.data.tileDataNum == 5232, (shape, red)
    no_weight = tiling_for((50, 50, 100), F32, False, True, "sum")
    assert no_weight.data.tileDataNum == 5632  # 16 KB reserved: no perf tune, no heavy


def test_perf_tune_core_caps():
    # fp32 with both weights: the core count is capped by N
    for n, cores, tile in ((8192, 8, 1024), (8193, 9, 912), (65536, 16, 4096),
                           (65537, 24, 342 * 8), (524288, 24, 5232), (524289, 32, 5232),
                           (1048576, 32, 5232), (1048577, 48, 5232)):
        t = tiling_for((n,), F32, True, True, "none")
        assert (t.block_dim, t.data.tileDataNum) == (cores, tile), n
    # a core's whole share fits one tile: the tile shrinks to it (8193: 1025 blocks / 9 cores)
    t = tiling_for((8193,), F32, True, True, "none")
    assert t.data.tileDataNum == 114 * 8 and t.data.finalBigTileNum == 1


def test_bf16_mean_3d_window():
    t = tiling_for((10, 20, 100), BF16, True, True, "mean")  # N = 20000
    assert (t.block_dim, t.data.tileDataNum) == (25, 800)  # tile capped at one core's share
    assert tiling_for((10, 30, 100), BF16, True, True, "mean").block_dim == 25  # N = 30000
    for shape, red, dtype in (((19999, 1, 1), "mean", BF16), ((30001, 1, 1), "mean", BF16),
                              ((200, 100), "mean", BF16), ((10, 20, 100), "sum", BF16),
                              ((10, 20, 100), "mean", F16)):
        t = tiling_for(shape, dtype, True, True, red)
        assert t.block_dim != 25 and t.data.tileDataNum == 4096, (shape, red, dtype)


def test_fp16_5d_none_window():
    t = tiling_for((10, 10, 10, 10, 100), F16, True, True, "none")  # N = 1e6
    assert t.data.tileDataNum == 5888  # 8 KB reserved instead of 64 KB
    assert tiling_for((1, 1, 1, 1, 900000), F16, True, True, "none").data.tileDataNum == 5888
    assert tiling_for((1, 1, 1, 1, 1200000), F16, True, True, "N").data.tileDataNum == 5888
    for shape, red, dtype in (((10, 10, 10, 1000), "none", F16),
                              ((10, 10, 10, 10, 100), "sum", F16),
                              ((10, 10, 10, 10, 100), "none", BF16),
                              ((1, 1, 1, 1, 899999), "none", F16),
                              ((1, 1, 1, 1, 1200001), "none", F16)):
        assert tiling_for(shape, dtype, True, True, red).data.tileDataNum == 4096, shape
    assert tiling_for((10, 10, 10, 10, 100), F16, True, False, "none").data.tileDataNum == 4368


def test_bf16_sum_split_window():
    d = tiling_for((160000,), BF16, True, True, "sum").data
    # 10000 blocks on 48 cores: 16 big cores of 209 blocks, 32 small of 208; tile 105 blocks
    assert (d.tileDataNum, d.tailBlockNum) == (1680, 16)
    assert (d.bigCoreDataNum, d.finalBigTileNum, d.bigTailDataNum) == (3344, 2, 1664)
    assert (d.smallCoreDataNum, d.finalSmallTileNum, d.smallTailDataNum) == (3328, 2, 1648)
    for n, red in ((160000, "mean"), (149999, "sum"), (180001, "sum")):
        d = tiling_for((n,), BF16, True, True, red).data
        assert d.tileDataNum == 4096 and d.finalSmallTileNum == 1, (n, red)


def test_fp32_keeps_tile_blocks_even():
    # fp32, a weight, double buffering: 5632 blocks / 13 = 433 -> 432 (fp16 would keep 204)
    assert tiling_for((10**6,), F32, True, False, buffer_num=2).data.tileDataNum == 432 * 8
    assert tiling_for((10**6,), F16, True, False, buffer_num=2).data.tileDataNum == 204 * 16
    assert tiling_for((10**6,), F16, True, False).data.tileDataNum == 273 * 16  # odd kept


def test_core_count_rules():
    assert tiling_for((1,), F16, False, False).block_dim == 1
    assert tiling_for((1025,), F16, False, False).block_dim == 2  # ceil(N / 1024)
    assert tiling_for((49 * 1024,), F16, False, False).block_dim == 48  # AIV cores
    # capped by the 32-byte blocks: N = 1030 fp32 on 2 cores gives 129 blocks
    d = tiling_for((1030,), F32, False, False).data
    assert (d.tailBlockNum, d.bigCoreDataNum, d.smallCoreDataNum) == (1, 520, 512)
    # the AIV core count comes from the hardware profile (40 on Ascend910B4)
    assert tiling_for((10**6,), F16, False, False, profile="Ascend910B4").block_dim == 40


# ---- reduction encodings and globalScale ------------------------------------------------------

@pytest.mark.parametrize("attr, is_mean", [
    ("mean", True), ("MEAN", True), ("Mean", True), ("m", True), ("M", True),
    ("none", False), ("NONE", False), ("n", False), ("N", False),
    ("sum", False), ("SUM", False), ("s", False), ("S", False),
    ("average", True),  # an unknown string with no int attr is treated as mean
    (1, True), (0, False), (2, False), (5, False),  # aclnn ints; others pass through
])
def test_reduction_attribute_and_global_scale(attr, is_mean):
    n = 3000
    d = tiling_for((n,), F32, False, False, attr).data
    expected = np.float32(1.0) / np.float32(n) if is_mean else np.float32(1.0)
    assert d.globalScale == expected


@pytest.mark.parametrize("attr, internal_sum", [
    ("sum", True), ("S", True), (2, True), ("none", False), (0, False), (1, False), (5, False)])
def test_reduction_maps_to_the_internal_enum(attr, internal_sum):
    # the heavy window needs the internal kSum (1): reached by "sum"/"s" and by aclnn's 2
    assert (tiling_for((50, 50, 100), F32, True, True, attr).block_dim == 40) == internal_sum


def test_int_one_is_internal_mean():
    # aclnn's 1 is mean: the bf16 3-D mean window (internal kMean = 2)
    assert tiling_for((10, 20, 100), BF16, True, True, 1).block_dim == 25
    assert tiling_for((10, 20, 100), BF16, True, True, 2).block_dim != 25


def test_global_scale_is_float_arithmetic():
    # 1.0f / float(N): N above 2**24 is rounded to float first
    n = 2**24 + 1
    assert tiling_for((n,), F16, False, False, "mean").data.globalScale == np.float32(2.0**-24)


# ---- buffer_num (ascsim's tiling choice) ------------------------------------------------------

def test_buffer_num_doubles_the_queue_buffers_in_the_budget():
    one = tiling_for((10**6,), F16, False, True)
    two = tiling_for((10**6,), F16, False, True, buffer_num=2)
    assert (one.data.bufferNum, two.data.bufferNum) == (1, 2)
    assert one.data.tileDataNum == 4096 // 15 * 16  # 64 KB reserved, 5 queues + 10 calc
    assert two.data.tileDataNum == 4096 // 20 * 16  # 5 queues doubled + 10 calc
    assert ub_used(two) <= UB_BYTES - 64 * 1024


@pytest.mark.parametrize("w, pw, buffer_num", [(True, True, 2), (False, False, 3),
                                               (False, False, 0)])
def test_buffer_num_refused(w, pw, buffer_num):
    # both weights double-buffered need 10 VECIN buffers, but A2 has 8 event ids per position
    with pytest.raises(ValueError, match="buffer_num"):
        tiling_for((4096,), F32, w, pw, buffer_num=buffer_num)


# ---- the split covers [0, N) exactly once ------------------------------------------------------

def kernel_split(t) -> list[list[tuple[int, int]]]:
    """Per core, its tiles as (GM element offset, element count): the kernel's Init and Process
    applied to the tiling (the same arithmetic, written independently)."""
    d = t.data
    cores = []
    for b in range(t.block_dim):
        big = b < d.tailBlockNum
        start = d.bigCoreDataNum * b
        if not big:
            start -= (d.bigCoreDataNum - d.smallCoreDataNum) * (b - d.tailBlockNum)
        count = d.bigCoreDataNum if big else d.smallCoreDataNum
        tiles = d.finalBigTileNum if big else d.finalSmallTileNum
        tail = d.bigTailDataNum if big else d.smallTailDataNum
        over = max(0, start + count - d.totalDataNum)
        count, tail = count - over, tail - over
        cores.append([(start + i * d.tileDataNum, tail if i == tiles - 1 else d.tileDataNum)
                      for i in range(tiles)])
    return cores


def check_split(t, n: int, ib: int) -> None:
    cores = kernel_split(t)
    flat = [tile for core in cores for tile in core]
    assert all(core for core in cores), "a core without a tile"
    assert flat[0][0] == 0
    for (o1, c1), (o2, _) in zip(flat, flat[1:], strict=False):
        assert o1 + c1 == o2, "tiles leave a gap or overlap"
    assert flat[-1][0] + flat[-1][1] == n, "the split does not end exactly at N"
    assert all(0 < c <= t.data.tileDataNum for _, c in flat)
    # only the very last tile may end in a partial 32-byte block
    assert all(c * ib % 32 == 0 for _, c in flat[:-1])
    assert all(o * ib % 32 == 0 for o, _ in flat)
    assert ub_used(t) <= UB_BYTES


CONFIGS = [(dtype, w, pw, red, rank) for dtype in (F16, F32, BF16)
           for w, pw in ((False, False), (True, False), (False, True), (True, True))
           for red, rank in (("none", 1), ("sum", 3), ("mean", 3), ("none", 5), ("sum", 4))]


def shape_of_rank(n: int, rank: int) -> tuple[int, ...]:
    return (n,) + (1,) * (rank - 1)


@pytest.mark.parametrize("dtype, w, pw, red, rank", CONFIGS,
                         ids=lambda v: str(v) if not isinstance(v, np.dtype) else v.name)
def test_split_covers_every_n_exactly_once(dtype, w, pw, red, rank):
    rng = np.random.default_rng(hash((dtype.name, w, pw, red, rank)) % 2**32)
    small = np.arange(1, 400)
    windows = np.array([8192, 8193, 65536, 65537, 150000, 180000, 20000, 30000, 250000, 950000,
                        900000, 1200000, 524288, 1048576, 1048577])
    big = rng.integers(400, 4_000_000, 60)
    for n in np.concatenate([small, windows, windows - 1, windows + 1, big]):
        n = int(n)
        t = tiling_for(shape_of_rank(n, rank), dtype, w, pw, red)
        check_split(t, n, dtype.itemsize)
