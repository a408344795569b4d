"""Tiling knobs of MSELossV2 for profiling sweeps (ascsim.tuning): buffer_num (1 single,
2 double buffering: the tile shrinks to the op's own UB budget for that count), tile (blocks
per queue buffer, given as tileLength in elements) and cores (blockDim). Each re-runs the
tiling's own CoreSplit / TileSplit arithmetic on the element count, so the struct stays
consistent; the workspace follows the core count. Applied in that order."""

from __future__ import annotations

from ascsim.errors import ParameterError
from ascsim.host import PlatformAscendC, TilingContext
from ascsim.runtime import Run
from ascsim.tuning import TilingKnob, register_knob

from .op_host.mse_loss_v2_tiling import BYTES_PER_BLOCK, BlocksPerQueue
from .op_kernel.mse_loss_v2_tiling_key import MSE_LOSS_V2_KEY_NONE

OP_TYPE = "MSELossV2"


def _type_size(context: TilingContext) -> int:
    return 4 if context.tiling_key % 10 == 1 else 2


def _reduction_key(context: TilingContext) -> int:
    return context.tiling_key // 10 * 10


def _total(context: TilingContext) -> int:
    return context.GetInputShape(0).GetStorageShape().GetShapeSize()


def _resplit(context: TilingContext, cores: int, blocks_per_queue: int) -> None:
    """CoreSplit + TileSplit for `cores` cores and tiles of `blocks_per_queue` blocks."""
    t = context.tiling_data
    epb = BYTES_PER_BLOCK // _type_size(context)
    total_blocks = _total(context) // epb
    per_core, tail_blocks = divmod(total_blocks, cores)
    t.coreNum = cores
    t.coreLength = per_core * epb
    t.tileLength = blocks_per_queue * epb
    t.epochs, rest = divmod(per_core, blocks_per_queue)
    t.tailTileLength = rest * epb
    t.epochsForLastCore, rest = divmod(per_core + tail_blocks, blocks_per_queue)
    t.tailTileLengthForLastCore = rest * epb
    context.SetBlockDim(cores)
    if _reduction_key(context) != MSE_LOSS_V2_KEY_NONE:
        platform = PlatformAscendC(context.GetPlatformInfo())
        context.workspaces = [platform.GetLibApiWorkSpaceSize() + 2 * BYTES_PER_BLOCK * cores]


def _max_blocks_per_queue(context: TilingContext, cores: int, buffer_num: int) -> int:
    ub = context.GetPlatformInfo().ub_bytes
    return BlocksPerQueue(ub, _reduction_key(context), _type_size(context), cores, buffer_num)


def _blocks_per_queue(context: TilingContext) -> int:
    return context.tiling_data.tileLength * _type_size(context) // BYTES_PER_BLOCK


def _apply_buffer_num(context: TilingContext, value: int) -> None:
    if value not in (1, 2):
        raise ParameterError(f"buffer_num={value}: 1 (single) or 2 (double buffering)")
    t = context.tiling_data
    t.bufferNum = int(value)
    cores = int(t.coreNum)
    _resplit(context, cores, _max_blocks_per_queue(context, cores, int(value)))


def _apply_tile(context: TilingContext, value: int) -> None:
    epb = BYTES_PER_BLOCK // _type_size(context)
    t = context.tiling_data
    limit = _max_blocks_per_queue(context, int(t.coreNum), int(t.bufferNum)) * epb
    if value <= 0 or value % epb or value > limit:
        raise ParameterError(f"tile={value}: tileLength must be a positive multiple of {epb} "
                             f"elements (whole 32-byte blocks) and at most {limit} (the UB "
                             f"budget for bufferNum={t.bufferNum})")
    _resplit(context, int(t.coreNum), value // epb)


def _apply_cores(context: TilingContext, value: int) -> None:
    epb = BYTES_PER_BLOCK // _type_size(context)
    aiv = PlatformAscendC(context.GetPlatformInfo()).GetCoreNumAiv()
    limit = max(1, min(aiv, _total(context) // epb))
    if not 1 <= value <= limit:
        raise ParameterError(f"cores={value}: this input splits over 1..{limit} cores "
                             "(whole 32-byte blocks per core, at most the AIV cores)")
    bpq = min(_blocks_per_queue(context),
              _max_blocks_per_queue(context, int(value), int(context.tiling_data.bufferNum)))
    _resplit(context, int(value), bpq)


def _read_buffer_num(run: Run) -> int:
    return int(run.tiling.bufferNum)


def _read_tile(run: Run) -> int:
    return int(run.tiling.tileLength)


def _read_cores(run: Run) -> int:
    return int(run.block_dim)


BUFFER_NUM = register_knob(OP_TYPE, TilingKnob(
    "buffer_num", "bufferNum: 1 single, 2 double buffering", _read_buffer_num,
    _apply_buffer_num))
TILE = register_knob(OP_TYPE, TilingKnob("tile", "tileLength: elements per tile (whole blocks)",
                                         _read_tile, _apply_tile))
CORES = register_knob(OP_TYPE, TilingKnob("cores", "coreNum: cores the blocks are split over",
                                          _read_cores, _apply_cores))
KNOBS = (BUFFER_NUM, TILE, CORES)  # in the order they are applied; the runner's Operator lists them
