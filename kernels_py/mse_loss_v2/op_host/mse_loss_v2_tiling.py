"""MSELossV2 tiling (A2), transcribed from the public operator's arch22 tiling.

1. Checks: input and target share one dtype, fp32 / fp16 / bf16 (dtype key 1 / 2 / 3); the
   reduction attribute is "none" / "sum" / "mean" (key 10 / 20 / 30); sum and mean ask for
   batch schedule mode, which the hard SyncAll needs. Tiling key = reduction + dtype key.
2. CoreSplit: N elements, epb = 32 / sizeof(T) per block; totalBlocks = N div epb,
   tailElems = N mod epb; C = AIV cores, cut to ceil(totalBlocks / 128) when there are fewer
   than 128 blocks per core (every core gets >= 4 KB unless all are busy), at least 1;
   blockPerCore = totalBlocks div C, the last core also takes totalBlocks mod C.
   scale = (float)(1.0 / N), the division in double.
3. UBSplit, blocks per queue buffer: none: UB / 32 blocks over 3 * bn buffers (fp32) or
   3 * bn + 4 (half / bf16: the two fp32 cast buffers count as 2 each); sum / mean: the UB
   minus the 32-byte upload and 32 * C download buffers, over 2 * bn (+ 4). First bn = 1;
   if an ordinary core then has more than one full tile, bn = 2 and again.
4. TileSplit: full tiles (epochs) and the tail tile (whole blocks) per ordinary core and for
   the last core.
5. Workspace: none 0; sum / mean the library's system workspace + 32 * C (the public
   "sync-all" part, unused by the hard SyncAll) + 32 * C (the per-core partials).

Differences from the public tiling: the state is local to the call (the public one keeps it
in namespace variables); N == 0 fails (the public one logs and goes on; the aclnn API never
tiles an empty input).
"""

from ascsim.dtypes import float, sizeof
from ascsim.host import *
from ascsim.opdev import strcmp

from ..op_kernel.mse_loss_v2_tiling_data import MSELossV2TilingData
from ..op_kernel.mse_loss_v2_tiling_key import (
    MSE_LOSS_V2_KEY_BF16,
    MSE_LOSS_V2_KEY_FLOAT,
    MSE_LOSS_V2_KEY_HALF,
    MSE_LOSS_V2_KEY_MEAN,
    MSE_LOSS_V2_KEY_NONE,
    MSE_LOSS_V2_KEY_SUM,
)

BYTES_PER_BLOCK = 32
BLOCK_PER_CORE = 128
CAST_BUFFER_NUM = 4
IN_OUT_QUEUES_NONE = 3
IN_QUEUES_REDUCE = 2
DOUBLE_BUFFER = 2
BATCH_MODE = 1
INPUT_INDEX = 0
TARGET_INDEX = 1
REDUCTION_ATTR_INDEX = 0


# UB blocks of one queue buffer for bn buffers per queue.
def BlocksPerQueue(ubSize, reductionKey, typeSize, coreNum, bufferNum):
    castBuffers = 0 if typeSize == sizeof(float) else CAST_BUFFER_NUM
    if reductionKey == MSE_LOSS_V2_KEY_NONE:
        blocks = ubSize // BYTES_PER_BLOCK
        return blocks // (IN_OUT_QUEUES_NONE * bufferNum + castBuffers)
    blocks = (ubSize - BYTES_PER_BLOCK * (coreNum + 1)) // BYTES_PER_BLOCK
    return blocks // (IN_QUEUES_REDUCE * bufferNum + castBuffers)


def MSELossV2TilingFunc(context):
    tiling = context.GetTilingData[MSELossV2TilingData]()
    inputDesc = context.GetInputDesc(INPUT_INDEX)
    targetDesc = context.GetInputDesc(TARGET_INDEX)
    inputShape = context.GetInputShape(INPUT_INDEX)
    if inputDesc is None or targetDesc is None or inputShape is None:
        return ge.GRAPH_FAILED
    dtype = inputDesc.GetDataType()
    if dtype != targetDesc.GetDataType():
        return ge.GRAPH_FAILED
    dtypeKey = 0
    typeSize = 0
    if dtype == ge.DT_FLOAT:
        dtypeKey = MSE_LOSS_V2_KEY_FLOAT
        typeSize = 4
    elif dtype == ge.DT_FLOAT16:
        dtypeKey = MSE_LOSS_V2_KEY_HALF
        typeSize = 2
    elif dtype == ge.DT_BF16:
        dtypeKey = MSE_LOSS_V2_KEY_BF16
        typeSize = 2
    else:
        return ge.GRAPH_FAILED

    attrs = context.GetAttrs()
    if attrs is None:
        return ge.GRAPH_FAILED
    reduction = attrs.GetStr(REDUCTION_ATTR_INDEX)
    if reduction is None:
        return ge.GRAPH_FAILED
    reductionKey = 0
    if strcmp(reduction, "none") == 0:
        reductionKey = MSE_LOSS_V2_KEY_NONE
    elif strcmp(reduction, "sum") == 0:
        reductionKey = MSE_LOSS_V2_KEY_SUM
    elif strcmp(reduction, "mean") == 0:
        reductionKey = MSE_LOSS_V2_KEY_MEAN
    else:
        return ge.GRAPH_FAILED
    if reductionKey != MSE_LOSS_V2_KEY_NONE:
        context.SetScheduleMode(BATCH_MODE)

    # CoreSplit
    totalLength = inputShape.GetStorageShape().GetShapeSize()
    if totalLength == 0:
        return ge.GRAPH_FAILED
    elemsPerBlock = BYTES_PER_BLOCK // typeSize
    totalBlocks = totalLength // elemsPerBlock
    ascendcPlatform = platform_ascendc.PlatformAscendC(context.GetPlatformInfo())
    coreNum = ascendcPlatform.GetCoreNumAiv()
    if totalBlocks < coreNum * BLOCK_PER_CORE:
        coreNum = (totalBlocks + BLOCK_PER_CORE - 1) // BLOCK_PER_CORE
    if coreNum == 0:
        coreNum = 1
    blockPerCore = totalBlocks // coreNum
    tailBlocks = totalBlocks % coreNum
    tiling.coreNum = coreNum
    tiling.tailElems = totalLength % elemsPerBlock
    tiling.scale = float(1.0 / totalLength)
    tiling.coreLength = blockPerCore * elemsPerBlock

    # UBSplit
    ubSize = 0
    ubSize = ascendcPlatform.GetCoreMemSize(platform_ascendc.CoreMemType.UB)
    bufferNum = 1
    blocksPerQueue = BlocksPerQueue(ubSize, reductionKey, typeSize, coreNum, bufferNum)
    if blockPerCore // blocksPerQueue > 1:
        bufferNum = DOUBLE_BUFFER
        blocksPerQueue = BlocksPerQueue(ubSize, reductionKey, typeSize, coreNum, bufferNum)
    tiling.bufferNum = bufferNum
    tiling.tileLength = blocksPerQueue * elemsPerBlock

    # TileSplit
    tiling.epochs = blockPerCore // blocksPerQueue
    tiling.tailTileLength = blockPerCore % blocksPerQueue * elemsPerBlock
    lastCoreBlocks = blockPerCore + tailBlocks
    tiling.epochsForLastCore = lastCoreBlocks // blocksPerQueue
    tiling.tailTileLengthForLastCore = lastCoreBlocks % blocksPerQueue * elemsPerBlock

    context.SetBlockDim(coreNum)
    context.SetTilingKey(reductionKey + dtypeKey)
    workspaces = context.GetWorkspaceSizes(1)
    workspaces[0] = 0
    if reductionKey != MSE_LOSS_V2_KEY_NONE:
        workspaces[0] = ascendcPlatform.GetLibApiWorkSpaceSize() + BYTES_PER_BLOCK * coreNum + BYTES_PER_BLOCK * coreNum
    return ge.GRAPH_SUCCESS


IMPL_OP_OPTILING("MSELossV2").Tiling(MSELossV2TilingFunc)
