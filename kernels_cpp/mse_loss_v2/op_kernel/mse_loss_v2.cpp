/**
 * MSELossV2 kernel entry: the tiling key picks the reduction (none 10, sum 20, mean 30) and the
 * dtype (float 1, half 2, bfloat16_t 3). Sum and mean call the hard SyncAll, so the kernel is
 * declared mix with vector cores only (KERNEL_TYPE_MIX_AIV_1_0, the docs' mix(0,1)); the
 * public entry declares no kernel type.
 */
#include "kernel_operator.h"
#include "mse_loss_v2_tiling_data.h"
#include "mse_loss_v2_mean.h"
#include "mse_loss_v2_none.h"
#include "mse_loss_v2_sum.h"
#include "mse_loss_v2_tiling_key.h"

using namespace MSELossV2Kernel;

template <typename T>
__aicore__ inline void RunNone(GM_ADDR input, GM_ADDR target, GM_ADDR output, const MSELossV2TilingData &tilingData)
{
    MSELossV2None<T> op;
    op.Init(input, target, output, tilingData);
    op.Process();
}

template <typename T>
__aicore__ inline void RunSum(GM_ADDR input, GM_ADDR target, GM_ADDR output, GM_ADDR workspace,
    const MSELossV2TilingData &tilingData)
{
    MSELossV2Sum<T> op;
    op.Init(input, target, output, workspace, tilingData);
    op.Process();
}

template <typename T>
__aicore__ inline void RunMean(GM_ADDR input, GM_ADDR target, GM_ADDR output, GM_ADDR workspace,
    const MSELossV2TilingData &tilingData)
{
    MSELossV2Mean<T> op;
    op.Init(input, target, output, workspace, tilingData);
    op.Process();
}

extern "C" __global__ __aicore__ void mse_loss_v2(GM_ADDR input, GM_ADDR target, GM_ADDR output,
    GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    REGISTER_TILING_DEFAULT(MSELossV2TilingData);
    GET_TILING_DATA(tilingData, tiling);
    GM_ADDR userWorkspace = GetUserWorkspace(workspace);
    if (TILING_KEY_IS(MSE_LOSS_V2_KEY_NONE + MSE_LOSS_V2_KEY_FLOAT)) {
        RunNone<float>(input, target, output, tilingData);
    } else if (TILING_KEY_IS(MSE_LOSS_V2_KEY_NONE + MSE_LOSS_V2_KEY_HALF)) {
        RunNone<half>(input, target, output, tilingData);
    } else if (TILING_KEY_IS(MSE_LOSS_V2_KEY_NONE + MSE_LOSS_V2_KEY_BF16)) {
        RunNone<bfloat16_t>(input, target, output, tilingData);
    } else if (TILING_KEY_IS(MSE_LOSS_V2_KEY_SUM + MSE_LOSS_V2_KEY_FLOAT)) {
        RunSum<float>(input, target, output, userWorkspace, tilingData);
    } else if (TILING_KEY_IS(MSE_LOSS_V2_KEY_SUM + MSE_LOSS_V2_KEY_HALF)) {
        RunSum<half>(input, target, output, userWorkspace, tilingData);
    } else if (TILING_KEY_IS(MSE_LOSS_V2_KEY_SUM + MSE_LOSS_V2_KEY_BF16)) {
        RunSum<bfloat16_t>(input, target, output, userWorkspace, tilingData);
    } else if (TILING_KEY_IS(MSE_LOSS_V2_KEY_MEAN + MSE_LOSS_V2_KEY_FLOAT)) {
        RunMean<float>(input, target, output, userWorkspace, tilingData);
    } else if (TILING_KEY_IS(MSE_LOSS_V2_KEY_MEAN + MSE_LOSS_V2_KEY_HALF)) {
        RunMean<half>(input, target, output, userWorkspace, tilingData);
    } else if (TILING_KEY_IS(MSE_LOSS_V2_KEY_MEAN + MSE_LOSS_V2_KEY_BF16)) {
        RunMean<bfloat16_t>(input, target, output, userWorkspace, tilingData);
    }
}
