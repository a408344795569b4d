/**
 * CrossEntropyLoss kernel entry: the tiling key picks the dtype (1 bfloat16_t, 2 half,
 * 3 float). zloss and lse_for_zloss are passed and never touched (zloss is not implemented on
 * A2), as in the public operator. KERNEL_TYPE_MIX_AIV_1_0, as the public entry declares: SyncAll
 * needs it in a pure-vector kernel.
 */
#include "kernel_operator.h"
#include "cross_entropy_loss_tiling_data.h"
#include "cross_entropy_loss_kernel.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void cross_entropy_loss(GM_ADDR input, GM_ADDR target, GM_ADDR weight, GM_ADDR loss,
    GM_ADDR logProb, GM_ADDR zloss, GM_ADDR lseForZloss, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    REGISTER_TILING_DEFAULT(CrossEntropyLossTilingData);
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        CrossEntropyLossKernel::KernelCrossEntropyLoss<bfloat16_t> op;
        op.Init(input, target, weight, loss, logProb, workspace, tilingData);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        CrossEntropyLossKernel::KernelCrossEntropyLoss<half> op;
        op.Init(input, target, weight, loss, logProb, workspace, tilingData);
        op.Process();
    } else if (TILING_KEY_IS(3)) {
        CrossEntropyLossKernel::KernelCrossEntropyLoss<float> op;
        op.Init(input, target, weight, loss, logProb, workspace, tilingData);
        op.Process();
    }
}
