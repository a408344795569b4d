"""MSELossV2 tiling (A2): the fact sheet's worked values (cann_ops_more.md §1.4, 40 AIV cores)
and the public tiling / infershape UTs, the nine keys, the workspace and schedule mode, the
refusals, and a coverage check: the tiles the kernel derives from the tiling (its InitBase and
Process, as kernels_py/mse_loss_v2/reference.py `split` mirrors them) cover [0, N) exactly once
and fit the UB, for many N on both sides of every core-count and buffer-count edge."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ascsim.host import (
    GRAPH_SUCCESS,
    DataType,
    InferDataTypeContext,
    InferShapeContext,
    StorageShape,
    TensorDesc,
    TensorInfo,
    op_registration,
)
from kernels_py.mse_loss_v2 import tiling_for
from kernels_py.mse_loss_v2.reference import fold_points, split

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
B3 = "Ascend910B3"  # 40 AIV cores, UB 196608: the fact sheet's platform
SYS_WS = 16 * 1024 * 1024


@pytest.mark.parametrize("n, dtype, reduction, key, cores, bn, tile, ep, tail, lep, ltail, te", [
    (30 * 1024, F16, "mean", 32, 15, 1, 16336, 0, 2048, 0, 2048, 0),
    (1000003, F32, "mean", 31, 40, 1, 24408, 1, 592, 1, 592, 3),
    (1000003, F16, "none", 12, 40, 1, 14032, 1, 10960, 1, 11280, 3),
    (3 * 2 ** 24 + 5, F32, "sum", 21, 40, 2, 12200, 103, 1688, 103, 1816, 5),
])
def test_fact_sheet_worked_values(n, dtype, reduction, key, cores, bn, tile, ep, tail, lep,
                                  ltail, te):
    t = tiling_for((n,), dtype, reduction, profile=B3)
    d = t.data
    assert (t.tiling_key, t.block_dim, d.coreNum, d.bufferNum, d.tileLength) == (
        key, cores, cores, bn, tile)
    assert (d.epochs, d.tailTileLength, d.epochsForLastCore, d.tailTileLengthForLastCore,
            d.tailElems) == (ep, tail, lep, ltail, te)
    assert d.scale == np.float32(1.0 / n)


def test_public_tiling_ut_bf16_mean():
    # tests/ut/op_host/arch22/test_mse_loss_v2_tiling.cpp: bf16 (30, 1024), mean, 40 cores
    t = tiling_for((30, 1024), BF16, "mean", profile=B3)
    assert t.tiling_key == 33


def test_fold_points_of_a_24408_tile():
    assert fold_points(24408) == [12208, 6104, 3056, 1528, 768, 384, 192, 96, 48, 24, 16, 8]


@pytest.mark.parametrize("reduction, rkey", [("none", 10), ("sum", 20), ("mean", 30),
                                             (0, 10), (1, 30), (2, 20)])
@pytest.mark.parametrize("dtype, dkey", [(F32, 1), (F16, 2), (BF16, 3)])
def test_keys_workspace_and_schedule_mode(reduction, rkey, dtype, dkey):
    t = tiling_for((5000,), dtype, reduction)
    assert t.tiling_key == rkey + dkey
    if rkey == 10:
        assert (t.workspace, t.schedule_mode) == (0, 0)
    else:  # system part + 32 B per core unused ("sync-all") + 32 B per core of partials
        assert t.workspace == SYS_WS + 64 * t.block_dim
        assert t.schedule_mode == 1
    assert t.data.scale == np.float32(1 / 5000)  # set for every key; only the mean reads it


def test_refusals():
    with pytest.raises(ValueError):
        tiling_for((0,), F32, "sum")            # N == 0 (the aclnn API never tiles it)
    with pytest.raises(ValueError):
        tiling_for((8,), F32, "avg")            # unknown reduction
    with pytest.raises(ValueError):
        tiling_for((8,), np.float64, "sum")     # dtype outside fp32 / fp16 / bf16
    reg = op_registration("MSELossV2")
    from ascsim.host import TilingContext
    from ascsim.profile import load_profile
    a = TensorInfo(StorageShape((8,)), TensorDesc(DataType.DT_FLOAT))
    b = TensorInfo(StorageShape((8,)), TensorDesc(DataType.DT_FLOAT16))
    ctx = TilingContext("MSELossV2", [a, b], [a], ["sum"], load_profile(None), reg.tiling_struct)
    assert reg.tiling(ctx) != GRAPH_SUCCESS     # input and target dtypes differ


def _infer(shape, reduction, dtype=DataType.DT_BF16):
    reg = op_registration("MSELossV2")
    info = TensorInfo(StorageShape(shape), TensorDesc(dtype))
    out = TensorInfo(StorageShape([]), TensorDesc(DataType.DT_FLOAT))
    ctx = InferShapeContext("MSELossV2", [info, info], [out], [reduction])
    assert reg.infer_shape(ctx) == GRAPH_SUCCESS
    dctx = InferDataTypeContext("MSELossV2", [info, info], [out], [reduction])
    assert reg.infer_dtype(dctx) == GRAPH_SUCCESS
    return out.shape.GetOriginShape().dims, out.desc.dtype


def test_infershape_ut():
    # tests/ut/op_host/test_mse_loss_v2_infershape.cpp: bf16 (30, 1024) none -> (30, 1024), bf16
    assert _infer([30, 1024], "none") == ([30, 1024], DataType.DT_BF16)
    assert _infer([30, 1024], "mean") == ([], DataType.DT_BF16)
    assert _infer([2, 3], "sum", DataType.DT_FLOAT16) == ([], DataType.DT_FLOAT16)


def _covered(n, itemsize, reduction, aiv):
    sp = split(n, itemsize, reduction, aiv)
    seen = np.zeros(n, np.int32)
    for tiles in sp.tiles:
        for off, cnt in tiles:
            assert cnt <= sp.tile_length
            seen[off:off + cnt] += 1
    return sp, seen


@pytest.mark.parametrize("itemsize", [4, 2])
@pytest.mark.parametrize("reduction", ["none", "sum"])
def test_split_covers_every_element_once_and_fits_the_ub(itemsize, reduction):
    dtype = F32 if itemsize == 4 else F16
    epb = 32 // itemsize
    edges = [1, epb - 1, epb, epb + 1, 128 * epb - 1, 128 * epb, 128 * epb + 1,
             48 * 128 * epb - 1, 48 * 128 * epb + 3, 1_000_003]
    for n in edges:
        t = tiling_for((n,), dtype, reduction)
        d = t.data
        sp, seen = _covered(n, itemsize, reduction, 48)
        assert (sp.cores, sp.tile_length, sp.buffer_num) == (t.block_dim, d.tileLength,
                                                             d.bufferNum)
        assert seen.min() == 1 and seen.max() == 1, n
        tile_bytes = d.tileLength * itemsize
        cast = 0 if itemsize == 4 else 2 * d.tileLength * 4
        if reduction == "none":
            used = 3 * d.bufferNum * tile_bytes + cast
        else:
            used = 2 * d.bufferNum * tile_bytes + cast + 32 + 32 * d.coreNum
        assert used <= 196608, n
