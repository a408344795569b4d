/**
 * LogitGrad kernel entry: one instantiation per dtype, chosen by the tiling key
 * (1 fp16, 2 fp32, 3 bf16).
 */
#include "kernel_operator.h"
#include "logit_grad_tiling_data.h"
#include "logit_grad_kernel.h"

extern "C" __global__ __aicore__ void logit_grad(GM_ADDR x, GM_ADDR dy, GM_ADDR dx, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(LogitGradTilingData);
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        LogitGradKernel::KernelLogitGrad<half> op;
        op.Init(x, dy, dx, tilingData);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        LogitGradKernel::KernelLogitGrad<float> op;
        op.Init(x, dy, dx, tilingData);
        op.Process();
    } else if (TILING_KEY_IS(3)) {
        LogitGradKernel::KernelLogitGrad<bfloat16_t> op;
        op.Init(x, dy, dx, tilingData);
        op.Process();
    }
}
