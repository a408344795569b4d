/**
 * CrossEntropyLoss shape and dtype inference: input rank 2 (N, C), target rank 1 with dim 0 N,
 * weight (if given) rank 1 with dim 0 C; loss is (N) for reduction "none" and (1) otherwise,
 * log_prob is (N, C). Only loss and log_prob are shaped and typed (input's dtype), as in the
 * public operator.
 */
#include <cstring>

#include "register/op_impl_registry.h"

namespace ops {
constexpr size_t INPUT_IDX = 0;
constexpr size_t TARGET_IDX = 1;
constexpr size_t WEIGHT_IDX = 2;
constexpr size_t LOSS_IDX = 0;
constexpr size_t LOG_PROB_IDX = 1;
constexpr size_t REDUCTION_ATTR_IDX = 0;

static ge::graphStatus InferShapeCrossEntropyLoss(gert::InferShapeContext *context)
{
    const gert::Shape *inputShape = context->GetInputShape(INPUT_IDX);
    const gert::Shape *targetShape = context->GetInputShape(TARGET_IDX);
    const gert::Shape *weightShape = context->GetOptionalInputShape(WEIGHT_IDX);
    gert::Shape *lossShape = context->GetOutputShape(LOSS_IDX);
    gert::Shape *logProbShape = context->GetOutputShape(LOG_PROB_IDX);
    if (inputShape == nullptr || targetShape == nullptr || lossShape == nullptr || logProbShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    if (inputShape->GetDimNum() != 2 || targetShape->GetDimNum() != 1) {
        return ge::GRAPH_FAILED;
    }
    if (inputShape->GetDim(0) != targetShape->GetDim(0)) {
        return ge::GRAPH_FAILED;
    }
    if (weightShape != nullptr) {
        if (weightShape->GetDimNum() != 1 || weightShape->GetDim(0) != inputShape->GetDim(1)) {
            return ge::GRAPH_FAILED;
        }
    }
    const char *reduction = context->GetAttrs()->GetStr(REDUCTION_ATTR_IDX);
    lossShape->SetDimNum(1);
    if (reduction != nullptr && strcmp(reduction, "none") == 0) {
        lossShape->SetDim(0, inputShape->GetDim(0));
    } else {
        lossShape->SetDim(0, 1);
    }
    logProbShape->SetDimNum(2);
    logProbShape->SetDim(0, inputShape->GetDim(0));
    logProbShape->SetDim(1, inputShape->GetDim(1));
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus InferDataTypeCrossEntropyLoss(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(LOSS_IDX, context->GetInputDataType(INPUT_IDX));
    context->SetOutputDataType(LOG_PROB_IDX, context->GetInputDataType(INPUT_IDX));
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_INFERSHAPE(CrossEntropyLoss).InferShape(InferShapeCrossEntropyLoss).InferDataType(InferDataTypeCrossEntropyLoss);
}  // namespace ops
