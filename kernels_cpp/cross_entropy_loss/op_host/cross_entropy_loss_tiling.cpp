/**
 * CrossEntropyLoss tiling (Tiling4CrossEntropyLoss, the A2 non-regbase path).
 *
 * Steps: GetTilingAttr (tiling key from the input dtype: bf16 1, fp16 2, fp32 3, set before the
 * dtype check; reduction "none" / "mean" / "sum" -> 0 / 1 / 2, batch schedule mode unless none;
 * ignore_index; label_smoothing in [0, 1]), CheckInputDtype (input bf16 / fp16 / fp32, target
 * int64, weight fp32), CheckInputShape (target dim 0 = N, weight dim 0 = C), GetTilingData:
 * - CoresSplitTiling: rows over K = the AIV cores; N < K: N cores of one row; else the first
 *   frontCoreNum = (N mod K or K) cores take F = ceil(N / K) rows, the others floor(N / K);
 * - UbSplitTiling: a reserve of 3 per-row vectors (ceil(4F / 32) * 32 bytes each), 32 + 32 bytes
 *   of reduce results and 4096 bytes of reduce work; the rest of the UB is shared by the input
 *   chunk and, for half / bf16, its fp32 copy (2x) and the narrowed log_prob (1x), plus the
 *   weight chunk for smoothing with a weight (1x fp32 / 2x half), in 512-byte steps, capped at
 *   one row;
 * - VecCalcTiling: a row is ubLoopNum chunks of inputUbSize and a tail of ubTailNum, each cut
 *   into 8192-element sub-blocks (vecLoopNum / vecTailNum and tailVecLoopNum / tailVecTailNum);
 * - workspace: 16 MiB + 3 slots of 64 floats (ln sums, weight sums, smoothing sums, by core).
 * Each check that fails makes the tiling fail (aclnn 561002).
 *
 * ascsim additions (documented deviations): the chunk buffers hold whole 256-byte repeats (the
 * kernel's masked reductions of a chunk's last partial repeat address the whole repeat), so
 * castTmpBufByte is rounded up to 256 bytes (and the kernel rounds its input buffer so); this
 * changes the numbers only when the chunk is capped at a short row; probOutBufByte sizes probOutBuf for the per-row loss
 * vector of `none` too (max with F * sizeof(T)); the tiling refuses what the kernel cannot reduce
 * instead of computing garbage: more than MAX_BATCH_PER_CORE (8192) rows per core (the per-core
 * reduction handles at most 8192 values, i.e. N <= 8192 * K), more than WS_SLOT_NUM (64) cores
 * (the workspace slots) and a UB that cannot hold the buffers.
 */
#include <algorithm>
#include <cstring>

#include "log/ops_log.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "../op_kernel/cross_entropy_loss_tiling_data.h"

namespace optiling {
constexpr uint64_t TILING_KEY_BF16 = 1;
constexpr uint64_t TILING_KEY_FP16 = 2;
constexpr uint64_t TILING_KEY_FP32 = 3;
constexpr uint64_t REDUCTION_NONE = 0;
constexpr uint64_t REDUCTION_MEAN = 1;
constexpr uint64_t REDUCTION_SUM = 2;
constexpr size_t REDUCTION_ATTR_IDX = 0;
constexpr size_t IGNORE_INDEX_ATTR_IDX = 1;
constexpr size_t LABEL_SMOOTHING_ATTR_IDX = 2;
constexpr size_t INPUT_IDX = 0;
constexpr size_t TARGET_IDX = 1;
constexpr size_t WEIGHT_IDX = 2;
constexpr uint64_t BLOCK_BYTES = 32;
constexpr uint64_t UB_ALIGN_BYTES = 512;
constexpr uint64_t REPEAT_BYTES = 256;
constexpr uint64_t REDUCE_CALC_BYTES = 32;
constexpr uint64_t REDUCE_RES_BYTES = 32;
constexpr uint64_t WORK_BYTES = 8192 / 8 * 4;
constexpr uint64_t VEC_MAX_LEN = 8192;
constexpr uint64_t FLOAT_BYTES = 4;
constexpr uint64_t HALF_BYTES = 2;
constexpr uint64_t WS_SLOT_NUM = 64;
constexpr uint64_t WS_SLOTS = 3;
constexpr uint64_t SYS_WORKSPACE_BYTES = 16 * 1024 * 1024;
constexpr uint64_t MAX_BATCH_PER_CORE = 8192;

class CrossEntropyLossTiling {
public:
    explicit CrossEntropyLossTiling(gert::TilingContext *context) : context(context) {}

    ge::graphStatus GetTilingAttr()
    {
        ge::DataType dtype = context->GetInputDesc(INPUT_IDX)->GetDataType();
        if (dtype == ge::DT_BF16) {
            tilingKey = TILING_KEY_BF16;
        } else if (dtype == ge::DT_FLOAT16) {
            tilingKey = TILING_KEY_FP16;
        } else {
            tilingKey = TILING_KEY_FP32;
        }
        context->SetTilingKey(tilingKey);
        auto attrs = context->GetAttrs();
        const char *reductionAttr = attrs->GetStr(REDUCTION_ATTR_IDX);
        if (reductionAttr == nullptr) {
            OP_LOGE(context->GetNodeName(), "reduction is nullptr.");
            return ge::GRAPH_FAILED;
        }
        if (strcmp(reductionAttr, "none") == 0) {
            reduction = REDUCTION_NONE;
        } else if (strcmp(reductionAttr, "mean") == 0) {
            reduction = REDUCTION_MEAN;
        } else if (strcmp(reductionAttr, "sum") == 0) {
            reduction = REDUCTION_SUM;
        } else {
            OP_LOGE(context->GetNodeName(), "reduction %s should be mean, sum or none.", reductionAttr);
            return ge::GRAPH_FAILED;
        }
        if (reduction != REDUCTION_NONE) {
            context->SetScheduleMode(1);
        }
        const int64_t *ignoreIndexAttr = attrs->GetAttrPointer<int64_t>(IGNORE_INDEX_ATTR_IDX);
        if (ignoreIndexAttr != nullptr) {
            ignoreIndex = *ignoreIndexAttr;
        }
        const float *labelSmoothingAttr = attrs->GetAttrPointer<float>(LABEL_SMOOTHING_ATTR_IDX);
        if (labelSmoothingAttr != nullptr) {
            labelSmoothing = *labelSmoothingAttr;
        }
        if (labelSmoothing < 0.0f || labelSmoothing > 1.0f) {
            OP_LOGE(context->GetNodeName(), "label_smoothing %f should be in [0, 1].", labelSmoothing);
            return ge::GRAPH_FAILED;
        }
        return ge::GRAPH_SUCCESS;
    }

    ge::graphStatus CheckInputDtype()
    {
        ge::DataType dtype = context->GetInputDesc(INPUT_IDX)->GetDataType();
        if (dtype != ge::DT_BF16 && dtype != ge::DT_FLOAT16 && dtype != ge::DT_FLOAT) {
            OP_LOGE(context->GetNodeName(), "input dtype should be bfloat16, float16 or float.");
            return ge::GRAPH_FAILED;
        }
        isHalf = dtype != ge::DT_FLOAT;
        if (context->GetInputDesc(TARGET_IDX)->GetDataType() != ge::DT_INT64) {
            OP_LOGE(context->GetNodeName(), "target dtype should be int64.");
            return ge::GRAPH_FAILED;
        }
        auto weightDesc = context->GetOptionalInputDesc(WEIGHT_IDX);
        hasWeight = weightDesc != nullptr;
        if (hasWeight && weightDesc->GetDataType() != ge::DT_FLOAT) {
            OP_LOGE(context->GetNodeName(), "weight dtype should be float.");
            return ge::GRAPH_FAILED;
        }
        return ge::GRAPH_SUCCESS;
    }

    ge::graphStatus CheckInputShape()
    {
        const gert::Shape &inputShape = context->GetInputShape(INPUT_IDX)->GetStorageShape();
        const gert::Shape &targetShape = context->GetInputShape(TARGET_IDX)->GetStorageShape();
        if (inputShape.GetDimNum() != 2 || targetShape.GetDimNum() != 1) {
            OP_LOGE(context->GetNodeName(), "input should be (N, C) and target (N).");
            return ge::GRAPH_FAILED;
        }
        batchNum = inputShape.GetDim(0);
        targetNum = inputShape.GetDim(1);
        if (targetNum == 0) {
            OP_LOGE(context->GetNodeName(), "input has no classes (C = 0).");
            return ge::GRAPH_FAILED;
        }
        if (targetShape.GetDim(0) != batchNum) {
            OP_LOGE(context->GetNodeName(), "target dim 0 %ld should be input dim 0 %ld.", targetShape.GetDim(0), batchNum);
            return ge::GRAPH_FAILED;
        }
        if (hasWeight) {
            const gert::Shape &weightShape = context->GetOptionalInputShape(WEIGHT_IDX)->GetStorageShape();
            if (weightShape.GetDimNum() != 1 || weightShape.GetDim(0) != targetNum) {
                OP_LOGE(context->GetNodeName(), "weight dim 0 %ld should be input dim 1 %ld.", weightShape.GetDim(0), targetNum);
                return ge::GRAPH_FAILED;
            }
        }
        return ge::GRAPH_SUCCESS;
    }

    void CoresSplitTiling()
    {
        CrossEntropyLossTilingData *t = tiling;
        if (batchNum < coreNum) {
            t->frontCoreNum = batchNum;
            t->frontBatchNum = 1;
            t->tailCoreNum = 0;
            t->tailBatchNum = 0;
            blockDim = batchNum;
        } else {
            int64_t remainder = batchNum % coreNum;
            t->frontCoreNum = remainder == 0 ? coreNum : remainder;
            t->frontBatchNum = (batchNum + coreNum - 1) / coreNum;
            t->tailCoreNum = coreNum - t->frontCoreNum;
            t->tailBatchNum = remainder == 0 ? 0 : batchNum / coreNum;
            blockDim = coreNum;
        }
    }

    ge::graphStatus UbSplitTiling(uint64_t ubSize)
    {
        CrossEntropyLossTilingData *t = tiling;
        uint64_t lnBytes = (FLOAT_BYTES * t->frontBatchNum + BLOCK_BYTES - 1) / BLOCK_BYTES * BLOCK_BYTES;
        uint64_t reserve = 3 * lnBytes + REDUCE_CALC_BYTES + REDUCE_RES_BYTES + WORK_BYTES;
        uint64_t needW = labelSmoothing > 0.0f && hasWeight ? 1 : 0;
        if (reserve >= ubSize) {
            OP_LOGE(context->GetNodeName(), "%lu rows per core leave no UB for the input.", t->frontBatchNum);
            return ge::GRAPH_FAILED;
        }
        uint64_t probOutBufByte = 0;
        uint64_t weight4SmoothingByte = 0;
        if (!isHalf) {
            uint64_t rowBytes = (FLOAT_BYTES * targetNum + BLOCK_BYTES - 1) / BLOCK_BYTES * BLOCK_BYTES;
            inputUbByte = (ubSize - reserve) / (1 + needW) / UB_ALIGN_BYTES * UB_ALIGN_BYTES;
            inputUbByte = std::min(inputUbByte, rowBytes);
            t->castTmpBufByte = 0;
            weight4SmoothingByte = needW == 1 ? inputUbByte : 0;
            t->inputUbSize = inputUbByte / FLOAT_BYTES;
        } else {
            uint64_t rowBytes = (HALF_BYTES * targetNum + BLOCK_BYTES - 1) / BLOCK_BYTES * BLOCK_BYTES;
            inputUbByte = (ubSize - reserve) / (4 + 2 * needW) / UB_ALIGN_BYTES * UB_ALIGN_BYTES;
            inputUbByte = std::min(inputUbByte, rowBytes);
            t->castTmpBufByte = (2 * inputUbByte + REPEAT_BYTES - 1) / REPEAT_BYTES * REPEAT_BYTES;
            uint64_t lossBytes = (HALF_BYTES * t->frontBatchNum + BLOCK_BYTES - 1) / BLOCK_BYTES * BLOCK_BYTES;
            probOutBufByte = std::max(inputUbByte, lossBytes);
            weight4SmoothingByte = needW == 1 ? 2 * inputUbByte : 0;
            t->inputUbSize = inputUbByte / HALF_BYTES;
        }
        if (t->inputUbSize == 0) {
            OP_LOGE(context->GetNodeName(), "%lu rows per core leave no UB for the input.", t->frontBatchNum);
            return ge::GRAPH_FAILED;
        }
        t->probOutBufByte = probOutBufByte;
        t->totalTmpBufByte = reserve + t->castTmpBufByte + probOutBufByte + weight4SmoothingByte;
        t->lnTmpBufSize = lnBytes / FLOAT_BYTES;
        t->weightTmpBufSize = lnBytes / FLOAT_BYTES;
        t->weight4SmoothingBufSize = weight4SmoothingByte / FLOAT_BYTES;
        uint64_t inQueueByte = (inputUbByte + REPEAT_BYTES - 1) / REPEAT_BYTES * REPEAT_BYTES;
        if (t->totalTmpBufByte + inQueueByte > ubSize) {
            OP_LOGE(context->GetNodeName(), "the buffers need %lu bytes of UB, which has %lu.", t->totalTmpBufByte + inQueueByte, ubSize);
            return ge::GRAPH_FAILED;
        }
        return ge::GRAPH_SUCCESS;
    }

    void VecCalcTiling()
    {
        CrossEntropyLossTilingData *t = tiling;
        if (targetNum > t->inputUbSize) {
            t->ubLoopNum = targetNum / t->inputUbSize;
            t->ubTailNum = targetNum % t->inputUbSize;
        } else {
            t->ubLoopNum = 0;
            t->ubTailNum = targetNum;
        }
        // SplitByRepeat: (len / 8192, len % 8192), which is (0, len) below 8192
        t->vecLoopNum = t->inputUbSize / VEC_MAX_LEN;
        t->vecTailNum = t->inputUbSize % VEC_MAX_LEN;
        t->tailVecLoopNum = t->ubTailNum / VEC_MAX_LEN;
        t->tailVecTailNum = t->ubTailNum % VEC_MAX_LEN;
        t->defaultWeight = hasWeight ? 0 : 1;
    }

    ge::graphStatus GetTilingData()
    {
        CrossEntropyLossTilingData *t = tiling;
        auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
        coreNum = ascendcPlatform.GetCoreNumAiv();
        uint64_t ubSize = 0;
        ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
        t->targetNum = targetNum;
        t->reduction = reduction;
        t->ignoreIndex = ignoreIndex;
        t->labelSmoothing = labelSmoothing;
        CoresSplitTiling();
        if (blockDim > WS_SLOT_NUM) {
            OP_LOGE(context->GetNodeName(), "%ld cores exceed the %lu workspace slots.", blockDim, WS_SLOT_NUM);
            return ge::GRAPH_FAILED;
        }
        if (t->frontBatchNum > MAX_BATCH_PER_CORE) {
            OP_LOGE(context->GetNodeName(), "%lu rows per core exceed the %lu the reduction handles (N <= %lu).", t->frontBatchNum, MAX_BATCH_PER_CORE, MAX_BATCH_PER_CORE * coreNum);
            return ge::GRAPH_FAILED;
        }
        if (UbSplitTiling(ubSize) != ge::GRAPH_SUCCESS) {
            return ge::GRAPH_FAILED;
        }
        VecCalcTiling();
        context->SetBlockDim(blockDim);
        size_t *workspaces = context->GetWorkspaceSizes(1);
        workspaces[0] = SYS_WORKSPACE_BYTES + FLOAT_BYTES * WS_SLOTS * WS_SLOT_NUM;
        return ge::GRAPH_SUCCESS;
    }

    ge::graphStatus RunTiling()
    {
        tiling = context->GetTilingData<CrossEntropyLossTilingData>();
        if (GetTilingAttr() != ge::GRAPH_SUCCESS) {
            return ge::GRAPH_FAILED;
        }
        if (CheckInputDtype() != ge::GRAPH_SUCCESS) {
            return ge::GRAPH_FAILED;
        }
        if (CheckInputShape() != ge::GRAPH_SUCCESS) {
            return ge::GRAPH_FAILED;
        }
        return GetTilingData();
    }

private:
    gert::TilingContext *context;
    CrossEntropyLossTilingData *tiling = nullptr;
    uint64_t tilingKey = 0;
    uint64_t reduction = REDUCTION_MEAN;
    int64_t ignoreIndex = -100;
    float labelSmoothing = 0.0f;
    bool hasWeight = false;
    bool isHalf = false;
    int64_t batchNum = 0;
    int64_t targetNum = 0;
    int64_t coreNum = 0;
    int64_t blockDim = 0;
    uint64_t inputUbByte = 0;
};

static ge::graphStatus Tiling4CrossEntropyLoss(gert::TilingContext *context)
{
    CrossEntropyLossTiling tiling(context);
    return tiling.RunTiling();
}

IMPL_OP_OPTILING(CrossEntropyLoss).Tiling(Tiling4CrossEntropyLoss);
}  // namespace optiling
