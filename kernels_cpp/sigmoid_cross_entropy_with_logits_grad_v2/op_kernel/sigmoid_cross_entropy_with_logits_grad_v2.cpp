/**
 * SigmoidCrossEntropyWithLogitsGradV2 kernel entry. The tiling key picks the dtype (0 half,
 * 1 float, 2 bfloat16_t); the tiling flags has_weight / has_pos_weight pick one of the four
 * template variants. An absent optional input arrives as a null GM_ADDR and is never touched.
 */
#include "kernel_operator.h"
#include "sigmoid_cross_entropy_with_logits_grad_v2_tiling_data.h"
#include "sigmoid_cross_entropy_with_logits_grad_v2_kernel.h"
#include "sigmoid_cross_entropy_with_logits_grad_v2_tiling_key.h"

using namespace SigmoidCrossEntropyWithLogitsGradV2Kernel;

template <typename T>
__aicore__ inline void RunVariant(GM_ADDR predict, GM_ADDR target, GM_ADDR dout, GM_ADDR weight, GM_ADDR posWeight,
    GM_ADDR gradient, const SigmoidCrossEntropyWithLogitsGradV2TilingData &tilingData)
{
    if (tilingData.has_weight == 1 && tilingData.has_pos_weight == 1) {
        KernelSigmoidCrossEntropyWithLogitsGradV2<T, true, true> op;
        op.Init(predict, target, dout, weight, posWeight, gradient, tilingData);
        op.Process();
    } else if (tilingData.has_weight == 1) {
        KernelSigmoidCrossEntropyWithLogitsGradV2<T, true, false> op;
        op.Init(predict, target, dout, weight, posWeight, gradient, tilingData);
        op.Process();
    } else if (tilingData.has_pos_weight == 1) {
        KernelSigmoidCrossEntropyWithLogitsGradV2<T, false, true> op;
        op.Init(predict, target, dout, weight, posWeight, gradient, tilingData);
        op.Process();
    } else {
        KernelSigmoidCrossEntropyWithLogitsGradV2<T, false, false> op;
        op.Init(predict, target, dout, weight, posWeight, gradient, tilingData);
        op.Process();
    }
}

extern "C" __global__ __aicore__ void sigmoid_cross_entropy_with_logits_grad_v2(GM_ADDR predict, GM_ADDR target,
    GM_ADDR dout, GM_ADDR weight, GM_ADDR posWeight, GM_ADDR gradient, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(SigmoidCrossEntropyWithLogitsGradV2TilingData);
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(SIGMOID_CE_GRAD_V2_TILING_KEY_HALF)) {
        RunVariant<half>(predict, target, dout, weight, posWeight, gradient, tilingData);
    } else if (TILING_KEY_IS(SIGMOID_CE_GRAD_V2_TILING_KEY_FLOAT)) {
        RunVariant<float>(predict, target, dout, weight, posWeight, gradient, tilingData);
    } else if (TILING_KEY_IS(SIGMOID_CE_GRAD_V2_TILING_KEY_BF16)) {
        RunVariant<bfloat16_t>(predict, target, dout, weight, posWeight, gradient, tilingData);
    }
}
