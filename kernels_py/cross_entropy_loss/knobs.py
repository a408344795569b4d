"""Tiling knobs of CrossEntropyLoss for profiling sweeps (ascsim.tuning), applied in this
order: cores (K: re-splits the rows with the tiling's own CoresSplitTiling and re-runs its
UB split for the new rows per core) and tile (inputUbSize, the chunk length in elements: the
UB buffers are re-carved for it and VecCalcTiling re-run)."""

from __future__ import annotations

from ascsim.errors import ParameterError
from ascsim.host import PlatformAscendC, TilingContext
from ascsim.runtime import Run
from ascsim.tuning import TilingKnob, register_knob

from .op_host.cross_entropy_loss_tiling import (
    BLOCK_BYTES,
    MAX_BATCH_PER_CORE,
    REDUCE_CALC_BYTES,
    REDUCE_RES_BYTES,
    REPEAT_BYTES,
    WORK_BYTES,
    WS_SLOT_NUM,
    CrossEntropyLossTiling,
    ge,
)

OP_TYPE = "CrossEntropyLoss"


def _tiling(context: TilingContext) -> CrossEntropyLossTiling:
    """The tiling object of `context` with its attributes and shapes read again."""
    tiling = CrossEntropyLossTiling(context)
    tiling.tiling = context.tiling_data
    for step in (tiling.GetTilingAttr, tiling.CheckInputDtype, tiling.CheckInputShape):
        if step() != ge.GRAPH_SUCCESS:  # the first tiling passed them: cannot happen
            raise ParameterError("CrossEntropyLoss: re-tiling failed")
    return tiling


def _round_block(n: int) -> int:
    return (n + BLOCK_BYTES - 1) // BLOCK_BYTES * BLOCK_BYTES


def _round_repeat(n: int) -> int:
    return (n + REPEAT_BYTES - 1) // REPEAT_BYTES * REPEAT_BYTES


def _apply_cores(context: TilingContext, value: int) -> None:
    tiling = _tiling(context)
    limit = min(PlatformAscendC(context.GetPlatformInfo()).GetCoreNumAiv(), WS_SLOT_NUM)
    if not 1 <= int(value) <= limit:
        raise ParameterError(f"cores={value}: CrossEntropyLoss runs on 1..{limit} cores here")
    tiling.coreNum = int(value)
    tiling.CoresSplitTiling()
    if tiling.tiling.frontBatchNum > MAX_BATCH_PER_CORE:
        raise ParameterError(f"cores={value}: {tiling.tiling.frontBatchNum} rows per core "
                             f"exceed {MAX_BATCH_PER_CORE}")
    ub = context.GetPlatformInfo().ub_bytes
    if tiling.UbSplitTiling(ub) != ge.GRAPH_SUCCESS:
        raise ParameterError(f"cores={value}: the rows per core do not fit the UB")
    tiling.VecCalcTiling()
    context.SetBlockDim(tiling.blockDim)


def _apply_tile(context: TilingContext, value: int) -> None:
    tiling = _tiling(context)
    t = context.tiling_data
    ib = 2 if tiling.isHalf else 4
    value = int(value)
    if value <= 0 or value * ib % BLOCK_BYTES:
        raise ParameterError(f"tile={value}: inputUbSize must be a positive multiple of "
                             f"{BLOCK_BYTES // ib} elements (whole 32-byte blocks)")
    inputUbByte = value * ib
    lnBytes = _round_block(4 * t.frontBatchNum)
    reserve = 3 * lnBytes + REDUCE_CALC_BYTES + REDUCE_RES_BYTES + WORK_BYTES
    needW = t.labelSmoothing > 0 and tiling.hasWeight
    cast = _round_repeat(2 * inputUbByte) if tiling.isHalf else 0
    prob = max(inputUbByte, _round_block(2 * t.frontBatchNum)) if tiling.isHalf else 0
    w4s = (2 * inputUbByte if tiling.isHalf else inputUbByte) if needW else 0
    total = reserve + cast + prob + w4s
    ub = context.GetPlatformInfo().ub_bytes
    if total + _round_repeat(inputUbByte) > ub:
        raise ParameterError(f"tile={value}: the buffers would need {total + inputUbByte} "
                             f"bytes of UB, which has {ub}")
    t.inputUbSize = value
    t.castTmpBufByte = cast
    t.probOutBufByte = prob
    t.weight4SmoothingBufSize = w4s // 4
    t.totalTmpBufByte = total
    tiling.VecCalcTiling()


def _read_cores(run: Run) -> int:
    return int(run.block_dim)


def _read_tile(run: Run) -> int:
    return int(run.tiling.inputUbSize)


CORES = register_knob(OP_TYPE, TilingKnob("cores", "K: cores the rows are split over",
                                          _read_cores, _apply_cores))
TILE = register_knob(OP_TYPE, TilingKnob("tile", "inputUbSize: elements per UB chunk of a row",
                                         _read_tile, _apply_tile))
KNOBS = (CORES, TILE)  # in the order they are applied; the runner's Operator lists them
