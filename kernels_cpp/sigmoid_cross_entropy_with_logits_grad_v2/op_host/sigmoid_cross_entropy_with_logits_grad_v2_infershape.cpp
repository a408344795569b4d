/**
 * SigmoidCrossEntropyWithLogitsGradV2 shape and dtype inference: gradient has predict's shape
 * and dtype.
 */
#include "register/op_impl_registry.h"

namespace ops {
constexpr size_t PREDICT_INDEX = 0;
constexpr size_t GRADIENT_INDEX = 0;

static ge::graphStatus InferShapeSigmoidCrossEntropyWithLogitsGradV2(gert::InferShapeContext *context)
{
    const gert::Shape *predictShape = context->GetInputShape(PREDICT_INDEX);
    gert::Shape *gradientShape = context->GetOutputShape(GRADIENT_INDEX);
    if (predictShape == nullptr || gradientShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    gradientShape->SetDimNum(predictShape->GetDimNum());
    for (size_t i = 0; i < predictShape->GetDimNum(); i++) {
        gradientShape->SetDim(i, predictShape->GetDim(i));
    }
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus InferDataTypeSigmoidCrossEntropyWithLogitsGradV2(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(GRADIENT_INDEX, context->GetInputDataType(PREDICT_INDEX));
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_INFERSHAPE(SigmoidCrossEntropyWithLogitsGradV2)
    .InferShape(InferShapeSigmoidCrossEntropyWithLogitsGradV2)
    .InferDataType(InferDataTypeSigmoidCrossEntropyWithLogitsGradV2);
}  // namespace ops
