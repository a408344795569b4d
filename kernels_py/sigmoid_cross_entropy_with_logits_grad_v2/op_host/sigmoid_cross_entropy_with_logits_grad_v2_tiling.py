"""SigmoidCrossEntropyWithLogitsGradV2 tiling, transcribed from the public experimental operator.

N = predict's element count, ib = sizeof(dtype), blocks are 32 bytes; totalBlocks =
max(1, ceil(N * ib / 32)).
1. Flags: has_weight / has_pos_weight (optional inputs 3 / 4 present), fp32_lite_mode for
   fp32, globalScale = 1/N for an internal reduction of kMean.
2. Cores: min(max(1, ceil(N / 1024)), AIV cores, totalBlocks), then the special windows
   (fp32 with both weights "perf tune" caps by N; the heavy 3-D/4-D sum window; the bf16 3-D
   mean window), clamped to [1, min(AIV cores, totalBlocks)].
3. UB per tile: UB minus a reserve (64 KB; 16 KB fp32; 8 KB perf tune; 4 KB heavy; 8 KB for
   the fp16 5-D none window) shared by every queue buffer and the fp32 calc slots, in 32-byte
   blocks (tileBlockNum); fp32 keeps it even; perf tune may lower the core count or cap the
   tile to one core's share; the bf16 sum window splits a core's share into 2 tiles.
4. Split: B = ceil(N * ib / 32) blocks; every core gets B div coreNum blocks and the first
   B mod coreNum cores ("big" cores, tailBlockNum of them) one more.
The reduction comes from the string attr ("none"/"mean"/"sum" or "n"/"m"/"s", any case) or
an int attr with the aclnn numbering (0 none, 1 mean, 2 sum), mapped to the internal enum
(0 none, 1 sum, 2 mean); anything else falls back to mean.

ascsim additions (documented deviations): totalDataNum = N, so the kernel ends the last core
exactly at N; bufferNum from the optional attr buffer_num (1, the public value, or 2), which
doubles every queue buffer in the UB budget and needs 2 event ids per input queue (at most 8
VECIN buffers: double buffering is refused when both weights are present).
"""

from ascsim.dtypes import float
from ascsim.host import *
from ascsim.opdev import strcasecmp

from ..op_kernel.sigmoid_cross_entropy_with_logits_grad_v2_tiling_data import (
    SigmoidCrossEntropyWithLogitsGradV2TilingData,
)
from ..op_kernel.sigmoid_cross_entropy_with_logits_grad_v2_tiling_key import (
    SIGMOID_CE_GRAD_V2_TILING_KEY_BF16,
    SIGMOID_CE_GRAD_V2_TILING_KEY_FLOAT,
    SIGMOID_CE_GRAD_V2_TILING_KEY_HALF,
)

BLOCK_SIZE = 32  # GetUbBlockSize(context) on A2 [INFERRED]
ELEMENTS_PER_CORE_UNIT = 1024
BASE_TENSOR_NUM = 4  # predict, target, dout, gradient
BASE_INPUT_NUM = 3  # predict, target, dout
LITE_CALC_SLOTS = 3
CALC_SLOTS = 5
CALC_SLOT_BYTES = 4
PREDICT_INDEX = 0
WEIGHT_INDEX = 3
POS_WEIGHT_INDEX = 4
REDUCTION_ATTR_INDEX = 0
BUFFER_NUM_ATTR_INDEX = 1
DEFAULT_BUFFER_NUM = 1
MAX_BUFFER_NUM = 2
MAX_QUE_BUFFERS_PER_POSITION = 8
HEAVY_MIN_N = 250000
HEAVY_MAX_N = 950000
HEAVY_CORE_NUM = 40
BF16_MEAN_3D_MIN_N = 20000
BF16_MEAN_3D_MAX_N = 30000
BF16_MEAN_3D_CORE_NUM = 25
FP16_NONE_5D_MIN_N = 900000
FP16_NONE_5D_MAX_N = 1200000
BF16_SUM_SPLIT_MIN_N = 150000
BF16_SUM_SPLIT_MAX_N = 180000
BF16_SUM_SPLIT_MIN_BLOCKS = 128
PERF_CAP_N_8 = 8192
PERF_CAP_N_16 = 65536
PERF_CAP_N_24 = 524288
PERF_CAP_N_32 = 1048576
PERF_SMALL_N = 65536
PERF_MIN_CORES_SMALL = 4
PERF_MIN_CORES = 8
PERF_TILES_PER_CORE = 3
RESERVED_DEFAULT = 64 * 1024
RESERVED_FP32 = 16 * 1024
RESERVED_PERF = 8 * 1024
RESERVED_HEAVY = 4 * 1024
RESERVED_FP16_NONE_5D = 8 * 1024
RANK_3 = 3
RANK_4 = 4
RANK_5 = 5


class ReductionType:
    kNone = 0
    kSum = 1
    kMean = 2


kNone, kSum, kMean = ReductionType.kNone, ReductionType.kSum, ReductionType.kMean


def CeilDiv(a, b):
    return (a + b - 1) // b


def GetReductionType(context):
    attrs = context.GetAttrs()
    if attrs is None:
        return kMean
    reductionStr = attrs.GetStr(REDUCTION_ATTR_INDEX)
    if reductionStr is not None:
        if strcasecmp(reductionStr, "none") == 0 or strcasecmp(reductionStr, "n") == 0:
            return kNone
        if strcasecmp(reductionStr, "sum") == 0 or strcasecmp(reductionStr, "s") == 0:
            return kSum
        if strcasecmp(reductionStr, "mean") == 0 or strcasecmp(reductionStr, "m") == 0:
            return kMean
    reductionInt = attrs.GetInt(REDUCTION_ATTR_INDEX)
    if reductionInt is not None:
        if reductionInt == 0:
            return kNone
        if reductionInt == 1:
            return kMean
        if reductionInt == 2:
            return kSum
        return reductionInt
    return kMean


def GetBufferNum(context):
    attrs = context.GetAttrs()
    if attrs is None:
        return DEFAULT_BUFFER_NUM
    bufferNum = attrs.GetInt(BUFFER_NUM_ATTR_INDEX)
    if bufferNum is None:
        return DEFAULT_BUFFER_NUM
    return bufferNum


def PerfTuneCoreCap(totalLength, aivNum):
    if totalLength <= PERF_CAP_N_8:
        return 8
    if totalLength <= PERF_CAP_N_16:
        return 16
    if totalLength <= PERF_CAP_N_24:
        return 24
    if totalLength <= PERF_CAP_N_32:
        return 32
    return aivNum


def CalculateCoreBlockNums(tiling, blockNum, coreNum, tileBlockNum, inputBytes):
    everyCoreBlockNum = blockNum // coreNum
    tiling.tailBlockNum = blockNum % coreNum
    tiling.smallCoreDataNum = everyCoreBlockNum * BLOCK_SIZE // inputBytes
    smallTileNum = everyCoreBlockNum // tileBlockNum
    tiling.finalSmallTileNum = smallTileNum if everyCoreBlockNum % tileBlockNum == 0 else smallTileNum + 1
    tiling.smallTailDataNum = tiling.smallCoreDataNum - tiling.tileDataNum * smallTileNum
    if tiling.smallTailDataNum == 0:
        tiling.smallTailDataNum = tiling.tileDataNum
    bigCoreBlockNum = everyCoreBlockNum + 1
    tiling.bigCoreDataNum = bigCoreBlockNum * BLOCK_SIZE // inputBytes
    bigTileNum = bigCoreBlockNum // tileBlockNum
    tiling.finalBigTileNum = bigTileNum if bigCoreBlockNum % tileBlockNum == 0 else bigTileNum + 1
    tiling.bigTailDataNum = tiling.bigCoreDataNum - tiling.tileDataNum * bigTileNum
    if tiling.bigTailDataNum == 0:
        tiling.bigTailDataNum = tiling.tileDataNum


def SigmoidCrossEntropyWithLogitsGradV2TilingFunc(context):
    tiling = \
        context.GetTilingData[SigmoidCrossEntropyWithLogitsGradV2TilingData]()
    predictShape = context.GetInputShape(PREDICT_INDEX)
    if predictShape is None:
        return ge.GRAPH_FAILED
    totalLength = predictShape.GetOriginShape().GetShapeSize()
    dimNum = predictShape.GetOriginShape().GetDimNum()
    dtype = context.GetInputDesc(PREDICT_INDEX).GetDataType()
    tilingKey = 0
    inputBytes = 0
    if dtype == ge.DT_FLOAT16:
        tilingKey = SIGMOID_CE_GRAD_V2_TILING_KEY_HALF
        inputBytes = 2
    elif dtype == ge.DT_FLOAT:
        tilingKey = SIGMOID_CE_GRAD_V2_TILING_KEY_FLOAT
        inputBytes = 4
    elif dtype == ge.DT_BF16:
        tilingKey = SIGMOID_CE_GRAD_V2_TILING_KEY_BF16
        inputBytes = 2
    else:
        return ge.GRAPH_FAILED
    hasWeight = context.GetOptionalInputShape(WEIGHT_INDEX) is not None
    hasPosWeight = context.GetOptionalInputShape(POS_WEIGHT_INDEX) is not None
    isFp32 = dtype == ge.DT_FLOAT
    reductionType = GetReductionType(context)
    bufferNum = GetBufferNum(context)
    inputNum = BASE_INPUT_NUM + (1 if hasWeight else 0) + (1 if hasPosWeight else 0)
    if (bufferNum < DEFAULT_BUFFER_NUM or bufferNum > MAX_BUFFER_NUM or
            inputNum * bufferNum > MAX_QUE_BUFFERS_PER_POSITION):
        return ge.GRAPH_FAILED

    tiling.has_weight = 1 if hasWeight else 0
    tiling.has_pos_weight = 1 if hasPosWeight else 0
    tiling.fp32_lite_mode = 1 if isFp32 else 0
    tiling.globalScale = float(1.0)
    if reductionType == kMean and totalLength > 0:
        tiling.globalScale = float(1.0) / float(totalLength)
    tiling.totalDataNum = totalLength
    tiling.bufferNum = bufferNum

    numTensors = BASE_TENSOR_NUM + tiling.has_weight + tiling.has_pos_weight
    calcBlocks = ((LITE_CALC_SLOTS if tiling.fp32_lite_mode == 1 else CALC_SLOTS) * CALC_SLOT_BYTES) // inputBytes
    currentBlocks = numTensors * bufferNum + calcBlocks
    paddedBytes = CeilDiv(totalLength * inputBytes, BLOCK_SIZE) * BLOCK_SIZE
    totalBlocks = max(1, paddedBytes // BLOCK_SIZE)

    ascendcPlatform = platform_ascendc.PlatformAscendC(context.GetPlatformInfo())
    aivNum = ascendcPlatform.GetCoreNumAiv()
    if aivNum == 0:
        aivNum = ascendcPlatform.GetCoreNum()
    ubSize = 0
    ubSize = ascendcPlatform.GetCoreMemSize(platform_ascendc.CoreMemType.UB)
    coreNum = min(max(1, CeilDiv(totalLength, ELEMENTS_PER_CORE_UNIT)), aivNum, totalBlocks)

    bothWeights = hasWeight and hasPosWeight
    perfTune = isFp32 and bothWeights
    heavy = (perfTune and (dimNum == RANK_3 or dimNum == RANK_4) and reductionType == kSum and
             totalLength >= HEAVY_MIN_N and totalLength <= HEAVY_MAX_N)
    bf16Mean3d = (dtype == ge.DT_BF16 and bothWeights and dimNum == RANK_3 and reductionType == kMean and
                  totalLength >= BF16_MEAN_3D_MIN_N and totalLength <= BF16_MEAN_3D_MAX_N)
    fp16None5d = (dtype == ge.DT_FLOAT16 and bothWeights and dimNum == RANK_5 and reductionType == kNone and
                  totalLength >= FP16_NONE_5D_MIN_N and totalLength <= FP16_NONE_5D_MAX_N)
    bf16SumSplit = (dtype == ge.DT_BF16 and bothWeights and reductionType == kSum and
                    totalLength >= BF16_SUM_SPLIT_MIN_N and totalLength <= BF16_SUM_SPLIT_MAX_N)
    if heavy:
        coreNum = min(HEAVY_CORE_NUM, aivNum, totalBlocks)
    if bf16Mean3d:
        coreNum = min(BF16_MEAN_3D_CORE_NUM, aivNum, totalBlocks)
    if perfTune and not heavy:
        coreNum = min(coreNum, PerfTuneCoreCap(totalLength, aivNum))
    coreNum = max(1, min(coreNum, aivNum, totalBlocks))

    reserved = RESERVED_DEFAULT
    if heavy:
        reserved = RESERVED_HEAVY
    elif perfTune:
        reserved = RESERVED_PERF
    elif isFp32:
        reserved = RESERVED_FP32
    elif fp16None5d:
        reserved = RESERVED_FP16_NONE_5D
    ubAvailable = ubSize - reserved if reserved < ubSize else ubSize // 2
    tileBlockNum = max(1, ubAvailable // BLOCK_SIZE // currentBlocks)
    if bf16Mean3d:
        tileBlockNum = min(tileBlockNum, CeilDiv(totalBlocks, coreNum))
    if isFp32 and tileBlockNum > 1 and tileBlockNum % 2 == 1:
        tileBlockNum -= 1
    if perfTune:
        maxCoreBlocks = CeilDiv(totalBlocks, coreNum)
        if tileBlockNum < maxCoreBlocks:
            minCores = PERF_MIN_CORES_SMALL if totalLength <= PERF_SMALL_N else PERF_MIN_CORES
            desired = max(CeilDiv(totalBlocks, tileBlockNum), minCores)
            if desired <= aivNum and desired < coreNum:
                coreNum = desired
                maxCoreBlocks = CeilDiv(totalBlocks, coreNum)
        if tileBlockNum * PERF_TILES_PER_CORE < maxCoreBlocks:
            desired = max(CeilDiv(totalBlocks, PERF_TILES_PER_CORE * tileBlockNum), PERF_MIN_CORES)
            if desired <= aivNum and desired < coreNum:
                coreNum = desired
                maxCoreBlocks = CeilDiv(totalBlocks, coreNum)
        if tileBlockNum > maxCoreBlocks:
            tileBlockNum = maxCoreBlocks
    if bf16SumSplit and coreNum > 1:
        maxCoreBlocks = CeilDiv(totalBlocks, coreNum)
        if maxCoreBlocks >= BF16_SUM_SPLIT_MIN_BLOCKS and tileBlockNum >= maxCoreBlocks:
            tileBlockNum = max(1, (maxCoreBlocks + 1) // 2)
    tiling.tileDataNum = tileBlockNum * BLOCK_SIZE // inputBytes
    CalculateCoreBlockNums(tiling, paddedBytes // BLOCK_SIZE, coreNum, tileBlockNum, inputBytes)

    context.SetBlockDim(coreNum)
    context.SetTilingKey(tilingKey)
    workspaces = context.GetWorkspaceSizes(1)
    workspaces[0] = ascendcPlatform.GetLibApiWorkSpaceSize()
    return ge.GRAPH_SUCCESS


IMPL_OP_OPTILING("SigmoidCrossEntropyWithLogitsGradV2").Tiling(SigmoidCrossEntropyWithLogitsGradV2TilingFunc)
