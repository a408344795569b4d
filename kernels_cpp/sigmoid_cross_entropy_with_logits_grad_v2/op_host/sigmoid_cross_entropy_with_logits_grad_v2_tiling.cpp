/**
 * SigmoidCrossEntropyWithLogitsGradV2 tiling, transcribed from the public experimental operator.
 *
 * N = predict's element count, ib = sizeof(dtype), blocks are 32 bytes; totalBlocks =
 * max(1, ceil(N * ib / 32)).
 * 1. Flags: has_weight / has_pos_weight (optional inputs 3 / 4 present), fp32_lite_mode for
 *    fp32, globalScale = 1/N for an internal reduction of kMean.
 * 2. Cores: min(max(1, ceil(N / 1024)), AIV cores, totalBlocks), then the special windows
 *    (fp32 with both weights "perf tune" caps by N; the heavy 3-D/4-D sum window; the bf16 3-D
 *    mean window), clamped to [1, min(AIV cores, totalBlocks)].
 * 3. UB per tile: UB minus a reserve (64 KB; 16 KB fp32; 8 KB perf tune; 4 KB heavy; 8 KB for
 *    the fp16 5-D none window) shared by every queue buffer and the fp32 calc slots, in 32-byte
 *    blocks (tileBlockNum); fp32 keeps it even; perf tune may lower the core count or cap the
 *    tile to one core's share; the bf16 sum window splits a core's share into 2 tiles.
 * 4. Split: B = ceil(N * ib / 32) blocks; every core gets B div coreNum blocks and the first
 *    B mod coreNum cores ("big" cores, tailBlockNum of them) one more.
 * The reduction comes from the string attr ("none"/"mean"/"sum" or "n"/"m"/"s", any case) or
 * an int attr with the aclnn numbering (0 none, 1 mean, 2 sum), mapped to the internal enum
 * (0 none, 1 sum, 2 mean); anything else falls back to mean.
 *
 * ascsim additions (documented deviations): totalDataNum = N, so the kernel ends the last core
 * exactly at N; bufferNum from the optional attr buffer_num (1, the public value, or 2), which
 * doubles every queue buffer in the UB budget and needs 2 event ids per input queue (at most 8
 * VECIN buffers: double buffering is refused when both weights are present).
 */
#include <strings.h>

#include <algorithm>

#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "../op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_tiling_data.h"
#include "../op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_tiling_key.h"

namespace optiling {
constexpr uint64_t BLOCK_SIZE = 32;  // GetUbBlockSize(context) on A2 [INFERRED]
constexpr uint64_t ELEMENTS_PER_CORE_UNIT = 1024;
constexpr uint64_t BASE_TENSOR_NUM = 4;  // predict, target, dout, gradient
constexpr uint64_t BASE_INPUT_NUM = 3;   // predict, target, dout
constexpr uint64_t LITE_CALC_SLOTS = 3;
constexpr uint64_t CALC_SLOTS = 5;
constexpr uint64_t CALC_SLOT_BYTES = 4;
constexpr uint32_t PREDICT_INDEX = 0;
constexpr uint32_t WEIGHT_INDEX = 3;
constexpr uint32_t POS_WEIGHT_INDEX = 4;
constexpr uint32_t REDUCTION_ATTR_INDEX = 0;
constexpr uint32_t BUFFER_NUM_ATTR_INDEX = 1;
constexpr int64_t DEFAULT_BUFFER_NUM = 1;
constexpr int64_t MAX_BUFFER_NUM = 2;
constexpr uint64_t MAX_QUE_BUFFERS_PER_POSITION = 8;
constexpr uint64_t HEAVY_MIN_N = 250000;
constexpr uint64_t HEAVY_MAX_N = 950000;
constexpr uint64_t HEAVY_CORE_NUM = 40;
constexpr uint64_t BF16_MEAN_3D_MIN_N = 20000;
constexpr uint64_t BF16_MEAN_3D_MAX_N = 30000;
constexpr uint64_t BF16_MEAN_3D_CORE_NUM = 25;
constexpr uint64_t FP16_NONE_5D_MIN_N = 900000;
constexpr uint64_t FP16_NONE_5D_MAX_N = 1200000;
constexpr uint64_t BF16_SUM_SPLIT_MIN_N = 150000;
constexpr uint64_t BF16_SUM_SPLIT_MAX_N = 180000;
constexpr uint64_t BF16_SUM_SPLIT_MIN_BLOCKS = 128;
constexpr uint64_t PERF_CAP_N_8 = 8192;
constexpr uint64_t PERF_CAP_N_16 = 65536;
constexpr uint64_t PERF_CAP_N_24 = 524288;
constexpr uint64_t PERF_CAP_N_32 = 1048576;
constexpr uint64_t PERF_SMALL_N = 65536;
constexpr uint64_t PERF_MIN_CORES_SMALL = 4;
constexpr uint64_t PERF_MIN_CORES = 8;
constexpr uint64_t PERF_TILES_PER_CORE = 3;
constexpr uint64_t RESERVED_DEFAULT = 64 * 1024;
constexpr uint64_t RESERVED_FP32 = 16 * 1024;
constexpr uint64_t RESERVED_PERF = 8 * 1024;
constexpr uint64_t RESERVED_HEAVY = 4 * 1024;
constexpr uint64_t RESERVED_FP16_NONE_5D = 8 * 1024;
constexpr uint64_t RANK_3 = 3;
constexpr uint64_t RANK_4 = 4;
constexpr uint64_t RANK_5 = 5;

enum ReductionType : int64_t { kNone = 0, kSum = 1, kMean = 2 };

static uint64_t CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

static int64_t GetReductionType(gert::TilingContext *context)
{
    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    if (attrs == nullptr) {
        return kMean;
    }
    const char *reductionStr = attrs->GetStr(REDUCTION_ATTR_INDEX);
    if (reductionStr != nullptr) {
        if (strcasecmp(reductionStr, "none") == 0 || strcasecmp(reductionStr, "n") == 0) {
            return kNone;
        }
        if (strcasecmp(reductionStr, "sum") == 0 || strcasecmp(reductionStr, "s") == 0) {
            return kSum;
        }
        if (strcasecmp(reductionStr, "mean") == 0 || strcasecmp(reductionStr, "m") == 0) {
            return kMean;
        }
    }
    const int64_t *reductionInt = attrs->GetInt(REDUCTION_ATTR_INDEX);
    if (reductionInt != nullptr) {
        if (*reductionInt == 0) {
            return kNone;
        }
        if (*reductionInt == 1) {
            return kMean;
        }
        if (*reductionInt == 2) {
            return kSum;
        }
        return *reductionInt;
    }
    return kMean;
}

static int64_t GetBufferNum(gert::TilingContext *context)
{
    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    if (attrs == nullptr) {
        return DEFAULT_BUFFER_NUM;
    }
    const int64_t *bufferNum = attrs->GetInt(BUFFER_NUM_ATTR_INDEX);
    if (bufferNum == nullptr) {
        return DEFAULT_BUFFER_NUM;
    }
    return *bufferNum;
}

static uint64_t PerfTuneCoreCap(uint64_t totalLength, uint64_t aivNum)
{
    if (totalLength <= PERF_CAP_N_8) {
        return 8;
    }
    if (totalLength <= PERF_CAP_N_16) {
        return 16;
    }
    if (totalLength <= PERF_CAP_N_24) {
        return 24;
    }
    if (totalLength <= PERF_CAP_N_32) {
        return 32;
    }
    return aivNum;
}

static void CalculateCoreBlockNums(SigmoidCrossEntropyWithLogitsGradV2TilingData *tiling, uint64_t blockNum,
    uint64_t coreNum, uint64_t tileBlockNum, uint64_t inputBytes)
{
    uint64_t everyCoreBlockNum = blockNum / coreNum;
    tiling->tailBlockNum = blockNum % coreNum;
    tiling->smallCoreDataNum = everyCoreBlockNum * BLOCK_SIZE / inputBytes;
    uint64_t smallTileNum = everyCoreBlockNum / tileBlockNum;
    tiling->finalSmallTileNum = (everyCoreBlockNum % tileBlockNum == 0) ? smallTileNum : smallTileNum + 1;
    tiling->smallTailDataNum = tiling->smallCoreDataNum - tiling->tileDataNum * smallTileNum;
    if (tiling->smallTailDataNum == 0) {
        tiling->smallTailDataNum = tiling->tileDataNum;
    }
    uint64_t bigCoreBlockNum = everyCoreBlockNum + 1;
    tiling->bigCoreDataNum = bigCoreBlockNum * BLOCK_SIZE / inputBytes;
    uint64_t bigTileNum = bigCoreBlockNum / tileBlockNum;
    tiling->finalBigTileNum = (bigCoreBlockNum % tileBlockNum == 0) ? bigTileNum : bigTileNum + 1;
    tiling->bigTailDataNum = tiling->bigCoreDataNum - tiling->tileDataNum * bigTileNum;
    if (tiling->bigTailDataNum == 0) {
        tiling->bigTailDataNum = tiling->tileDataNum;
    }
}

static ge::graphStatus SigmoidCrossEntropyWithLogitsGradV2TilingFunc(gert::TilingContext *context)
{
    SigmoidCrossEntropyWithLogitsGradV2TilingData *tiling =
        context->GetTilingData<SigmoidCrossEntropyWithLogitsGradV2TilingData>();
    const gert::StorageShape *predictShape = context->GetInputShape(PREDICT_INDEX);
    if (predictShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    uint64_t totalLength = predictShape->GetOriginShape().GetShapeSize();
    uint64_t dimNum = predictShape->GetOriginShape().GetDimNum();
    ge::DataType dtype = context->GetInputDesc(PREDICT_INDEX)->GetDataType();
    uint64_t tilingKey = 0;
    uint64_t inputBytes = 0;
    if (dtype == ge::DT_FLOAT16) {
        tilingKey = SIGMOID_CE_GRAD_V2_TILING_KEY_HALF;
        inputBytes = 2;
    } else if (dtype == ge::DT_FLOAT) {
        tilingKey = SIGMOID_CE_GRAD_V2_TILING_KEY_FLOAT;
        inputBytes = 4;
    } else if (dtype == ge::DT_BF16) {
        tilingKey = SIGMOID_CE_GRAD_V2_TILING_KEY_BF16;
        inputBytes = 2;
    } else {
        return ge::GRAPH_FAILED;
    }
    bool hasWeight = context->GetOptionalInputShape(WEIGHT_INDEX) != nullptr;
    bool hasPosWeight = context->GetOptionalInputShape(POS_WEIGHT_INDEX) != nullptr;
    bool isFp32 = dtype == ge::DT_FLOAT;
    int64_t reductionType = GetReductionType(context);
    int64_t bufferNum = GetBufferNum(context);
    uint64_t inputNum = BASE_INPUT_NUM + (hasWeight ? 1 : 0) + (hasPosWeight ? 1 : 0);
    if (bufferNum < DEFAULT_BUFFER_NUM || bufferNum > MAX_BUFFER_NUM ||
        inputNum * static_cast<uint64_t>(bufferNum) > MAX_QUE_BUFFERS_PER_POSITION) {
        return ge::GRAPH_FAILED;
    }

    tiling->has_weight = hasWeight ? 1 : 0;
    tiling->has_pos_weight = hasPosWeight ? 1 : 0;
    tiling->fp32_lite_mode = isFp32 ? 1 : 0;
    tiling->globalScale = 1.0f;
    if (reductionType == kMean && totalLength > 0) {
        tiling->globalScale = 1.0f / static_cast<float>(totalLength);
    }
    tiling->totalDataNum = totalLength;
    tiling->bufferNum = static_cast<uint32_t>(bufferNum);

    uint64_t numTensors = BASE_TENSOR_NUM + tiling->has_weight + tiling->has_pos_weight;
    uint64_t calcBlocks = ((tiling->fp32_lite_mode == 1 ? LITE_CALC_SLOTS : CALC_SLOTS) * CALC_SLOT_BYTES) / inputBytes;
    uint64_t currentBlocks = numTensors * static_cast<uint64_t>(bufferNum) + calcBlocks;
    uint64_t paddedBytes = CeilDiv(totalLength * inputBytes, BLOCK_SIZE) * BLOCK_SIZE;
    uint64_t totalBlocks = std::max<uint64_t>(1, paddedBytes / BLOCK_SIZE);

    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t aivNum = ascendcPlatform.GetCoreNumAiv();
    if (aivNum == 0) {
        aivNum = ascendcPlatform.GetCoreNum();
    }
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint64_t coreNum = std::min({std::max<uint64_t>(1, CeilDiv(totalLength, ELEMENTS_PER_CORE_UNIT)), aivNum, totalBlocks});

    bool bothWeights = hasWeight && hasPosWeight;
    bool perfTune = isFp32 && bothWeights;
    bool heavy = perfTune && (dimNum == RANK_3 || dimNum == RANK_4) && reductionType == kSum &&
        totalLength >= HEAVY_MIN_N && totalLength <= HEAVY_MAX_N;
    bool bf16Mean3d = dtype == ge::DT_BF16 && bothWeights && dimNum == RANK_3 && reductionType == kMean &&
        totalLength >= BF16_MEAN_3D_MIN_N && totalLength <= BF16_MEAN_3D_MAX_N;
    bool fp16None5d = dtype == ge::DT_FLOAT16 && bothWeights && dimNum == RANK_5 && reductionType == kNone &&
        totalLength >= FP16_NONE_5D_MIN_N && totalLength <= FP16_NONE_5D_MAX_N;
    bool bf16SumSplit = dtype == ge::DT_BF16 && bothWeights && reductionType == kSum &&
        totalLength >= BF16_SUM_SPLIT_MIN_N && totalLength <= BF16_SUM_SPLIT_MAX_N;
    if (heavy) {
        coreNum = std::min({HEAVY_CORE_NUM, aivNum, totalBlocks});
    }
    if (bf16Mean3d) {
        coreNum = std::min({BF16_MEAN_3D_CORE_NUM, aivNum, totalBlocks});
    }
    if (perfTune && !heavy) {
        coreNum = std::min(coreNum, PerfTuneCoreCap(totalLength, aivNum));
    }
    coreNum = std::max<uint64_t>(1, std::min({coreNum, aivNum, totalBlocks}));

    uint64_t reserved = RESERVED_DEFAULT;
    if (heavy) {
        reserved = RESERVED_HEAVY;
    } else if (perfTune) {
        reserved = RESERVED_PERF;
    } else if (isFp32) {
        reserved = RESERVED_FP32;
    } else if (fp16None5d) {
        reserved = RESERVED_FP16_NONE_5D;
    }
    uint64_t ubAvailable = (reserved < ubSize) ? ubSize - reserved : ubSize / 2;
    uint64_t tileBlockNum = std::max<uint64_t>(1, ubAvailable / BLOCK_SIZE / currentBlocks);
    if (bf16Mean3d) {
        tileBlockNum = std::min(tileBlockNum, CeilDiv(totalBlocks, coreNum));
    }
    if (isFp32 && tileBlockNum > 1 && tileBlockNum % 2 == 1) {
        tileBlockNum -= 1;
    }
    if (perfTune) {
        uint64_t maxCoreBlocks = CeilDiv(totalBlocks, coreNum);
        if (tileBlockNum < maxCoreBlocks) {
            uint64_t minCores = totalLength <= PERF_SMALL_N ? PERF_MIN_CORES_SMALL : PERF_MIN_CORES;
            uint64_t desired = std::max(CeilDiv(totalBlocks, tileBlockNum), minCores);
            if (desired <= aivNum && desired < coreNum) {
                coreNum = desired;
                maxCoreBlocks = CeilDiv(totalBlocks, coreNum);
            }
        }
        if (tileBlockNum * PERF_TILES_PER_CORE < maxCoreBlocks) {
            uint64_t desired = std::max(CeilDiv(totalBlocks, PERF_TILES_PER_CORE * tileBlockNum), PERF_MIN_CORES);
            if (desired <= aivNum && desired < coreNum) {
                coreNum = desired;
                maxCoreBlocks = CeilDiv(totalBlocks, coreNum);
            }
        }
        if (tileBlockNum > maxCoreBlocks) {
            tileBlockNum = maxCoreBlocks;
        }
    }
    if (bf16SumSplit && coreNum > 1) {
        uint64_t maxCoreBlocks = CeilDiv(totalBlocks, coreNum);
        if (maxCoreBlocks >= BF16_SUM_SPLIT_MIN_BLOCKS && tileBlockNum >= maxCoreBlocks) {
            tileBlockNum = std::max<uint64_t>(1, (maxCoreBlocks + 1) / 2);
        }
    }
    tiling->tileDataNum = tileBlockNum * BLOCK_SIZE / inputBytes;
    CalculateCoreBlockNums(tiling, paddedBytes / BLOCK_SIZE, coreNum, tileBlockNum, inputBytes);

    context->SetBlockDim(coreNum);
    context->SetTilingKey(tilingKey);
    size_t *workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = ascendcPlatform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(SigmoidCrossEntropyWithLogitsGradV2).Tiling(SigmoidCrossEntropyWithLogitsGradV2TilingFunc);
}  // namespace optiling
