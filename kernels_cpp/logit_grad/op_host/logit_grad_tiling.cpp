/**
 * LogitGrad tiling: one core per 8192-element tile, at most every AIV core, at least one.
 * Tiling keys: 1 fp16, 2 fp32, 3 bf16. The workspace is the 16 MiB the public operator asks for
 * (the kernel never uses it).
 */
#include <algorithm>

#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "../op_kernel/logit_grad_tiling_data.h"

namespace optiling {
constexpr uint64_t MAX_ELEMENT_NUM_EACH_CORE = 8192;
constexpr size_t WORKSPACE_BYTES = 16 * 1024 * 1024;
constexpr uint64_t TILING_KEY_HALF = 1;
constexpr uint64_t TILING_KEY_FLOAT = 2;
constexpr uint64_t TILING_KEY_BFLOAT16 = 3;

static ge::graphStatus LogitGradTilingFunc(gert::TilingContext *context)
{
    LogitGradTilingData *tiling = context->GetTilingData<LogitGradTilingData>();
    int64_t elementNum = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    uint64_t tilingKey = 0;
    if (dtype == ge::DT_FLOAT16) {
        tilingKey = TILING_KEY_HALF;
    } else if (dtype == ge::DT_FLOAT) {
        tilingKey = TILING_KEY_FLOAT;
    } else if (dtype == ge::DT_BF16) {
        tilingKey = TILING_KEY_BFLOAT16;
    } else {
        return ge::GRAPH_FAILED;
    }
    const float *eps = context->GetAttrs()->GetAttrPointer<float>(0);
    if (eps == nullptr) {
        return ge::GRAPH_FAILED;
    }
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t aivNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t tileNum = (static_cast<uint64_t>(elementNum) + MAX_ELEMENT_NUM_EACH_CORE - 1) / MAX_ELEMENT_NUM_EACH_CORE;
    uint64_t needCoreNum = std::max<uint64_t>(std::min(tileNum, aivNum), 1);
    tiling->elementNum = elementNum;
    tiling->eps = *eps;
    tiling->needCoreNum = needCoreNum;
    context->SetBlockDim(needCoreNum);
    context->SetTilingKey(tilingKey);
    size_t *workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = WORKSPACE_BYTES;
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(LogitGrad).Tiling(LogitGradTilingFunc);
}  // namespace optiling
