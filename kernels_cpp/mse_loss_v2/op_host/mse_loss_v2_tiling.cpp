/**
 * MSELossV2 tiling (A2), transcribed from the public operator's arch22 tiling.
 *
 * 1. Checks: input and target share one dtype, fp32 / fp16 / bf16 (dtype key 1 / 2 / 3); the
 *    reduction attribute is "none" / "sum" / "mean" (key 10 / 20 / 30); sum and mean ask for
 *    batch schedule mode, which the hard SyncAll needs. Tiling key = reduction + dtype key.
 * 2. CoreSplit: N elements, epb = 32 / sizeof(T) per block; totalBlocks = N div epb,
 *    tailElems = N mod epb; C = AIV cores, cut to ceil(totalBlocks / 128) when there are fewer
 *    than 128 blocks per core (every core gets >= 4 KB unless all are busy), at least 1;
 *    blockPerCore = totalBlocks div C, the last core also takes totalBlocks mod C.
 *    scale = (float)(1.0 / N), the division in double.
 * 3. UBSplit, blocks per queue buffer: none: UB / 32 blocks over 3 * bn buffers (fp32) or
 *    3 * bn + 4 (half / bf16: the two fp32 cast buffers count as 2 each); sum / mean: the UB
 *    minus the 32-byte upload and 32 * C download buffers, over 2 * bn (+ 4). First bn = 1;
 *    if an ordinary core then has more than one full tile, bn = 2 and again.
 * 4. TileSplit: full tiles (epochs) and the tail tile (whole blocks) per ordinary core and for
 *    the last core.
 * 5. Workspace: none 0; sum / mean the library's system workspace + 32 * C (the public
 *    "sync-all" part, unused by the hard SyncAll) + 32 * C (the per-core partials).
 *
 * Differences from the public tiling: the state is local to the call (the public one keeps it
 * in namespace variables); N == 0 fails (the public one logs and goes on; the aclnn API never
 * tiles an empty input).
 */
#include <cstring>

#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "../op_kernel/mse_loss_v2_tiling_data.h"
#include "../op_kernel/mse_loss_v2_tiling_key.h"

namespace optiling {
constexpr uint64_t BYTES_PER_BLOCK = 32;
constexpr uint64_t BLOCK_PER_CORE = 128;
constexpr uint64_t CAST_BUFFER_NUM = 4;
constexpr uint64_t IN_OUT_QUEUES_NONE = 3;
constexpr uint64_t IN_QUEUES_REDUCE = 2;
constexpr uint64_t DOUBLE_BUFFER = 2;
constexpr uint32_t BATCH_MODE = 1;
constexpr uint32_t INPUT_INDEX = 0;
constexpr uint32_t TARGET_INDEX = 1;
constexpr uint32_t REDUCTION_ATTR_INDEX = 0;

// UB blocks of one queue buffer for bn buffers per queue.
static uint64_t BlocksPerQueue(uint64_t ubSize, uint64_t reductionKey, uint64_t typeSize, uint64_t coreNum,
    uint64_t bufferNum)
{
    uint64_t castBuffers = typeSize == sizeof(float) ? 0 : CAST_BUFFER_NUM;
    if (reductionKey == MSE_LOSS_V2_KEY_NONE) {
        uint64_t blocks = ubSize / BYTES_PER_BLOCK;
        return blocks / (IN_OUT_QUEUES_NONE * bufferNum + castBuffers);
    }
    uint64_t blocks = (ubSize - BYTES_PER_BLOCK * (coreNum + 1)) / BYTES_PER_BLOCK;
    return blocks / (IN_QUEUES_REDUCE * bufferNum + castBuffers);
}

static ge::graphStatus MSELossV2TilingFunc(gert::TilingContext *context)
{
    MSELossV2TilingData *tiling = context->GetTilingData<MSELossV2TilingData>();
    const gert::CompileTimeTensorDesc *inputDesc = context->GetInputDesc(INPUT_INDEX);
    const gert::CompileTimeTensorDesc *targetDesc = context->GetInputDesc(TARGET_INDEX);
    const gert::StorageShape *inputShape = context->GetInputShape(INPUT_INDEX);
    if (inputDesc == nullptr || targetDesc == nullptr || inputShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    ge::DataType dtype = inputDesc->GetDataType();
    if (dtype != targetDesc->GetDataType()) {
        return ge::GRAPH_FAILED;
    }
    uint64_t dtypeKey = 0;
    uint64_t typeSize = 0;
    if (dtype == ge::DT_FLOAT) {
        dtypeKey = MSE_LOSS_V2_KEY_FLOAT;
        typeSize = 4;
    } else if (dtype == ge::DT_FLOAT16) {
        dtypeKey = MSE_LOSS_V2_KEY_HALF;
        typeSize = 2;
    } else if (dtype == ge::DT_BF16) {
        dtypeKey = MSE_LOSS_V2_KEY_BF16;
        typeSize = 2;
    } else {
        return ge::GRAPH_FAILED;
    }

    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    if (attrs == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const char *reduction = attrs->GetStr(REDUCTION_ATTR_INDEX);
    if (reduction == nullptr) {
        return ge::GRAPH_FAILED;
    }
    uint64_t reductionKey = 0;
    if (strcmp(reduction, "none") == 0) {
        reductionKey = MSE_LOSS_V2_KEY_NONE;
    } else if (strcmp(reduction, "sum") == 0) {
        reductionKey = MSE_LOSS_V2_KEY_SUM;
    } else if (strcmp(reduction, "mean") == 0) {
        reductionKey = MSE_LOSS_V2_KEY_MEAN;
    } else {
        return ge::GRAPH_FAILED;
    }
    if (reductionKey != MSE_LOSS_V2_KEY_NONE) {
        context->SetScheduleMode(BATCH_MODE);
    }

    // CoreSplit
    uint64_t totalLength = inputShape->GetStorageShape().GetShapeSize();
    if (totalLength == 0) {
        return ge::GRAPH_FAILED;
    }
    uint64_t elemsPerBlock = BYTES_PER_BLOCK / typeSize;
    uint64_t totalBlocks = totalLength / elemsPerBlock;
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t coreNum = ascendcPlatform.GetCoreNumAiv();
    if (totalBlocks < coreNum * BLOCK_PER_CORE) {
        coreNum = (totalBlocks + BLOCK_PER_CORE - 1) / BLOCK_PER_CORE;
    }
    if (coreNum == 0) {
        coreNum = 1;
    }
    uint64_t blockPerCore = totalBlocks / coreNum;
    uint64_t tailBlocks = totalBlocks % coreNum;
    tiling->coreNum = coreNum;
    tiling->tailElems = totalLength % elemsPerBlock;
    tiling->scale = static_cast<float>(1.0 / totalLength);
    tiling->coreLength = blockPerCore * elemsPerBlock;

    // UBSplit
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint64_t bufferNum = 1;
    uint64_t blocksPerQueue = BlocksPerQueue(ubSize, reductionKey, typeSize, coreNum, bufferNum);
    if (blockPerCore / blocksPerQueue > 1) {
        bufferNum = DOUBLE_BUFFER;
        blocksPerQueue = BlocksPerQueue(ubSize, reductionKey, typeSize, coreNum, bufferNum);
    }
    tiling->bufferNum = bufferNum;
    tiling->tileLength = blocksPerQueue * elemsPerBlock;

    // TileSplit
    tiling->epochs = blockPerCore / blocksPerQueue;
    tiling->tailTileLength = blockPerCore % blocksPerQueue * elemsPerBlock;
    uint64_t lastCoreBlocks = blockPerCore + tailBlocks;
    tiling->epochsForLastCore = lastCoreBlocks / blocksPerQueue;
    tiling->tailTileLengthForLastCore = lastCoreBlocks % blocksPerQueue * elemsPerBlock;

    context->SetBlockDim(coreNum);
    context->SetTilingKey(reductionKey + dtypeKey);
    size_t *workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = 0;
    if (reductionKey != MSE_LOSS_V2_KEY_NONE) {
        workspaces[0] = ascendcPlatform.GetLibApiWorkSpaceSize() + BYTES_PER_BLOCK * coreNum + BYTES_PER_BLOCK * coreNum;
    }
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(MSELossV2).Tiling(MSELossV2TilingFunc);
}  // namespace optiling
