"""Tiling knobs of SigmoidCrossEntropyWithLogitsGradV2 for profiling sweeps (ascsim.tuning):
buffer_num (re-runs the op's tiling with the attribute, so the UB budget follows), tile
(tileDataNum in elements) and cores; each re-splits the blocks over the cores with the tiling's
own CalculateCoreBlockNums. Applied in that order."""

from __future__ import annotations

from ascsim.errors import ParameterError
from ascsim.host import GRAPH_SUCCESS, PlatformAscendC, TilingContext, op_registration
from ascsim.runtime import Run
from ascsim.tuning import TilingKnob, register_knob

from .op_host.sigmoid_cross_entropy_with_logits_grad_v2_tiling import (
    BLOCK_SIZE,
    BUFFER_NUM_ATTR_INDEX,
    CALC_SLOT_BYTES,
    CALC_SLOTS,
    LITE_CALC_SLOTS,
    CalculateCoreBlockNums,
    CeilDiv,
)

OP_TYPE = "SigmoidCrossEntropyWithLogitsGradV2"


def _input_bytes(context: TilingContext) -> int:
    return 4 if context.tiling_data.fp32_lite_mode else 2


def _blocks(context: TilingContext) -> int:
    n = context.tiling_data.totalDataNum
    return max(1, CeilDiv(n * _input_bytes(context), BLOCK_SIZE))


def _resplit(context: TilingContext, tile_blocks: int, cores: int) -> None:
    t = context.tiling_data
    t.tileDataNum = tile_blocks * BLOCK_SIZE // _input_bytes(context)
    CalculateCoreBlockNums(t, _blocks(context), cores, tile_blocks, _input_bytes(context))
    context.SetBlockDim(cores)


def _apply_buffer_num(context: TilingContext, value: int) -> None:
    context.attrs.values[BUFFER_NUM_ATTR_INDEX] = int(value)
    context.tiling_data, context.workspaces = None, []
    if op_registration(OP_TYPE).tiling(context) != GRAPH_SUCCESS:
        raise ParameterError(f"buffer_num={value}: the tiling refuses it (1 or 2; 2 needs at "
                             "most 4 input queues, i.e. not both weights)")


def _apply_tile(context: TilingContext, value: int) -> None:
    ib = _input_bytes(context)
    if value <= 0 or value * ib % BLOCK_SIZE:
        raise ParameterError(f"tile={value}: tileDataNum must be a positive multiple of "
                             f"{BLOCK_SIZE // ib} elements (whole 32-byte blocks)")
    t = context.tiling_data
    tensors = 4 + t.has_weight + t.has_pos_weight
    calc = (LITE_CALC_SLOTS if t.fp32_lite_mode else CALC_SLOTS) * CALC_SLOT_BYTES // ib
    need = (tensors * t.bufferNum + calc) * value * ib
    ub = context.GetPlatformInfo().ub_bytes
    if need > ub:
        raise ParameterError(f"tile={value}: the buffers would need {need} bytes of UB, "
                             f"which has {ub}")
    _resplit(context, value * ib // BLOCK_SIZE, context.GetBlockDim())


def _apply_cores(context: TilingContext, value: int) -> None:
    limit = min(PlatformAscendC(context.GetPlatformInfo()).GetCoreNumAiv(), _blocks(context))
    if not 1 <= value <= limit:
        raise ParameterError(f"cores={value}: this input splits over 1..{limit} cores")
    ib = _input_bytes(context)
    _resplit(context, context.tiling_data.tileDataNum * ib // BLOCK_SIZE, int(value))


def _read_buffer_num(run: Run) -> int:
    return int(run.tiling.bufferNum)


def _read_tile(run: Run) -> int:
    return int(run.tiling.tileDataNum)


def _read_cores(run: Run) -> int:
    return int(run.block_dim)


BUFFER_NUM = register_knob(OP_TYPE, TilingKnob(
    "buffer_num", "BUFFER_NUM: 1 single, 2 double buffering", _read_buffer_num,
    _apply_buffer_num))
TILE = register_knob(OP_TYPE, TilingKnob("tile", "tileDataNum: elements per tile", _read_tile,
                                         _apply_tile))
CORES = register_knob(OP_TYPE, TilingKnob("cores", "coreNum: cores the blocks are split over",
                                          _read_cores, _apply_cores))
KNOBS = (BUFFER_NUM, TILE, CORES)  # in the order they are applied; the runner's Operator lists them
