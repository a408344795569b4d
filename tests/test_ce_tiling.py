"""CrossEntropyLoss tiling (op_host/cross_entropy_loss_tiling): the fact sheet's worked values
(K = 48, UB 196608; checked there with a re-implementation of the public tiling), the tiling UT's
keys, the core split, the refusals (561002 with the reason), the knobs."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from bugs._ce import tiling

import ascsim
from ascsim.errors import AclnnError
from ascsim.host import (
    GRAPH_SUCCESS,
    StorageShape,
    TensorDesc,
    TensorInfo,
    TilingContext,
    take_tiling_error,
)
from ascsim.host import DataType as DT
from ascsim.profile import load_profile
from ascsim.tuning import tiling_overrides
from kernels_py.cross_entropy_loss import aclnnCrossEntropyLossGetWorkspaceSize
from kernels_py.cross_entropy_loss.op_host.cross_entropy_loss_tiling import (
    Tiling4CrossEntropyLoss,
)
from kernels_py.cross_entropy_loss.reference import numpy_model

BF16 = np.dtype(ml_dtypes.bfloat16)
GE = {np.dtype(np.float32): DT.DT_FLOAT, np.dtype(np.float16): DT.DT_FLOAT16, BF16: DT.DT_BF16}


def context(n, c, dtype, weight=False, reduction="mean", ls=0.0, ignore=-100):
    """A tiling context from shapes only (no arrays: the big shapes stay cheap)."""
    def info(dims, dt):
        return TensorInfo(StorageShape(dims), TensorDesc(dt))
    ins = [info([n, c], GE[np.dtype(dtype)]), info([n], DT.DT_INT64),
           info([c], DT.DT_FLOAT) if weight else None]
    outs = [info([n] if reduction == "none" else [1], GE[np.dtype(dtype)]),
            info([n, c], GE[np.dtype(dtype)])]
    return TilingContext("CrossEntropyLoss", ins, outs, [reduction, ignore, ls, 0.0, False],
                         load_profile("Ascend910B2"))


# (dtype, N, C, weight, ls) -> inputUbSize, ubLoop/ubTail, vec/tailVec, castTmp, totalTmp, UB
WORKED = [
    (BF16, 49, 112595, True, 0.0, 23808, (4, 17363), (2, 7424, 2, 979), 95232, 147104, 194720),
    (np.float32, 49, 112595, True, 0.0, 48000, (2, 16595), (5, 7040, 2, 211), 0, 4256, 196256),
    (np.float32, 2, 5, False, 0.0, 8, (0, 5), (0, 8, 0, 5), 0, 4256, 4288),
    (BF16, 7542, 129280, True, 0.5, 15872, (8, 2304), (1, 7680, 0, 2304), 63488, 164800,
     196544),
]


@pytest.mark.parametrize("case", WORKED, ids=lambda c: f"{np.dtype(c[0]).name}-{c[1]}x{c[2]}")
def test_the_fact_sheets_worked_values(case):
    dtype, n, c, weight, ls, ub_size, ub_split, vec, cast, total, ub_used = case
    ctx = context(n, c, dtype, weight, ls=ls)
    assert Tiling4CrossEntropyLoss(ctx) == GRAPH_SUCCESS
    t = ctx.tiling_data
    assert t.inputUbSize == ub_size
    assert (t.ubLoopNum, t.ubTailNum) == ub_split
    assert (t.vecLoopNum, t.vecTailNum, t.tailVecLoopNum, t.tailVecTailNum) == vec
    assert (t.castTmpBufByte, t.totalTmpBufByte) == (cast, total)
    in_bytes = ub_size * np.dtype(dtype).itemsize
    # the public UB use; ascsim rounds the input buffer up to whole 256-byte repeats, which
    # only a chunk capped at a short row (the (2, 5) case: 32 -> 256 bytes) changes
    assert total + in_bytes == ub_used
    assert total + -(-in_bytes // 256) * 256 == (4512 if (n, c) == (2, 5) else ub_used)
    assert t.probOutBufByte == (in_bytes if np.dtype(dtype) != np.float32 else 0)
    assert sum(ctx.workspaces) == 16 * 1024 * 1024 + 768


def test_core_splits_of_the_worked_cases():
    t = _tiled(49, 112595, BF16, True)
    assert (t.frontCoreNum, t.frontBatchNum, t.tailCoreNum, t.tailBatchNum) == (1, 2, 47, 1)
    t = _tiled(7542, 129280, BF16, True, ls=0.5)
    assert (t.frontCoreNum, t.frontBatchNum, t.tailCoreNum, t.tailBatchNum) == (6, 158, 42, 157)
    t = _tiled(96, 10, np.float32)  # N a multiple of K: every core a front core
    assert (t.frontCoreNum, t.frontBatchNum, t.tailCoreNum, t.tailBatchNum) == (48, 2, 0, 0)
    ctx = context(5, 10, np.float32)
    Tiling4CrossEntropyLoss(ctx)
    assert ctx.block_dim == 5 and ctx.tiling_data.frontBatchNum == 1


def _tiled(n, c, dtype, weight=False, **kw):
    ctx = context(n, c, dtype, weight, **kw)
    assert Tiling4CrossEntropyLoss(ctx) == GRAPH_SUCCESS
    return ctx.tiling_data


@pytest.mark.parametrize("dtype,reduction,key", [(BF16, "mean", 1), (BF16, "none", 1),
                                                 (np.float32, "mean", 3),
                                                 (np.float32, "sum", 3),
                                                 (np.float16, "mean", 2)])
def test_the_tiling_uts_keys_and_schedule_mode(dtype, reduction, key):
    ctx = context(49, 112595, dtype, True, reduction)
    assert Tiling4CrossEntropyLoss(ctx) == GRAPH_SUCCESS
    assert ctx.tiling_key == key
    assert ctx.schedule_mode == (0 if reduction == "none" else 1)
    assert ctx.tiling_data.reduction == {"none": 0, "mean": 1, "sum": 2}[reduction]
    assert ctx.tiling_data.defaultWeight == 0


def test_probout_buffer_holds_a_cores_loss_vector():
    """fp16 (4901, 1): 103 rows per core but a 16-element chunk (the public overrun)."""
    t = _tiled(4901, 1, np.float16, reduction="none")
    assert t.frontBatchNum == 103 and t.inputUbSize == 16
    assert t.probOutBufByte == 224 >= 2 * 103


@pytest.mark.parametrize("kw,why", [
    ({"reduction": "avg"}, "reduction avg should be mean, sum or none"),
    ({"ls": 1.5}, "label_smoothing"),
    ({"ls": -0.1}, "label_smoothing"),
])
def test_attribute_refusals(kw, why):
    ctx = context(4, 8, np.float32, **kw)
    take_tiling_error()
    assert Tiling4CrossEntropyLoss(ctx) != GRAPH_SUCCESS
    assert why in take_tiling_error()


def test_rows_per_core_limit_is_a_tiling_error():
    """F > 8192 rows per core: the per-core reduction covers 8192 values (the public kernel
    sums garbage there); refused before anything runs."""
    n = 8192 * 48 + 1
    x = np.zeros((n, 1), np.float32)
    t = np.zeros(n, np.int64)
    with pytest.raises(AclnnError) as e:
        aclnnCrossEntropyLossGetWorkspaceSize(x, t, None, "sum", -100, 0.0, 0.0, False,
                                              np.empty(1, np.float32), np.empty_like(x),
                                              np.empty(1, np.float32), np.empty(n, np.float32))
    assert e.value.code == 561002
    assert "8193 rows per core exceed the 8192" in str(e.value)
    assert Tiling4CrossEntropyLoss(context(8192 * 48, 1, np.float32)) == GRAPH_SUCCESS


def test_knobs_resplit_and_the_model_follows():
    """cores and tile (inputUbSize) from a sweep: the kernel re-splits rows and chunks, and the
    numpy model with the same split stays bit-exact (the summation order changes with it)."""
    from kernels_py.cross_entropy_loss import cross_entropy_loss
    rng = np.random.default_rng(11)
    x = rng.uniform(-5, 5, (7, 300)).astype(np.float32)
    t = rng.integers(0, 300, 7).astype(np.int64)
    with tiling_overrides(cores=3, tile=64):
        loss, run = cross_entropy_loss(x, t, reduction="sum", label_smoothing=0.1,
                                       return_run=True)
    assert run.block_dim == 3 and run.tiling.inputUbSize == 64
    assert (run.tiling.ubLoopNum, run.tiling.ubTailNum) == (4, 44)
    want, _ = numpy_model(x, t, None, "sum", -100, 0.1, cores=3, tile=64)
    assert loss.tobytes() == want[0].tobytes()
    for bad in ({"cores": 0}, {"cores": 65}, {"tile": 3}, {"tile": 60000}):
        with tiling_overrides(**bad), pytest.raises(ascsim.errors.ParameterError):
            cross_entropy_loss(x, t)


def test_knob_helper_reaches_the_cores_knob():
    ctx = tiling(np.zeros((10, 4), np.float32), np.zeros(10, np.int64), None, "mean", cores=4)
    t = ctx.tiling_data
    assert ctx.block_dim == 4 and (t.frontCoreNum, t.frontBatchNum, t.tailBatchNum) == (2, 3, 2)


@pytest.mark.parametrize("dtype,c,ub_size,split", [(np.float16, 40960, 23808, (1, 17152)),
                                                   (np.float32, 81920, 48000, (1, 33920))])
def test_the_kernel_uts_big_shapes(dtype, c, ub_size, split):
    """The kernel UT's big-shape cases (2, C) without weight: its tiling values."""
    t = _tiled(2, c, dtype)
    assert t.inputUbSize == ub_size and (t.ubLoopNum, t.ubTailNum) == split
    assert t.defaultWeight == 1


@pytest.mark.parametrize("dtype", [BF16, np.float32, np.float16])
def test_the_infershape_ut(dtype):
    """input (49, 112595), mean: loss {1}, log_prob {49, 112595}, both in input's dtype;
    none: loss {49}."""
    from ascsim.host import InferDataTypeContext, InferShapeContext, op_registration
    reg = op_registration("CrossEntropyLoss")

    def info(dims, dt):
        return TensorInfo(StorageShape(dims), TensorDesc(dt))
    for reduction, loss_dims in (("mean", [1]), ("none", [49])):
        ins = [info([49, 112595], GE[np.dtype(dtype)]), info([49], DT.DT_INT64),
               info([112595], DT.DT_FLOAT)]
        outs = [info([], DT.DT_UNDEFINED), info([], DT.DT_UNDEFINED)]
        attrs = [reduction, -100, 0.0, 0.0, False]
        assert reg.infer_shape(InferShapeContext("CrossEntropyLoss", ins, outs, attrs)) == 0
        assert reg.infer_dtype(InferDataTypeContext("CrossEntropyLoss", ins, outs, attrs)) == 0
        assert outs[0].shape.GetOriginShape().dims == loss_dims
        assert outs[1].shape.GetOriginShape().dims == [49, 112595]
        assert outs[0].desc.dtype == outs[1].desc.dtype == GE[np.dtype(dtype)]
    ins[1] = info([48], DT.DT_INT64)
    assert reg.infer_shape(InferShapeContext("CrossEntropyLoss", ins, outs, attrs)) != 0
