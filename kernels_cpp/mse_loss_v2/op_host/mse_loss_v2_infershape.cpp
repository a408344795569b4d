/**
 * MSELossV2 shape and dtype inference: output has input's shape for reduction "none" and
 * rank 0 otherwise; output has input's dtype.
 */
#include <cstring>

#include "register/op_impl_registry.h"

namespace ops {
constexpr size_t INPUT_INDEX = 0;
constexpr size_t OUTPUT_INDEX = 0;
constexpr size_t REDUCTION_ATTR_INDEX = 0;

static ge::graphStatus InferShapeMSELossV2(gert::InferShapeContext *context)
{
    const gert::Shape *inputShape = context->GetInputShape(INPUT_INDEX);
    gert::Shape *outputShape = context->GetOutputShape(OUTPUT_INDEX);
    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    if (inputShape == nullptr || outputShape == nullptr || attrs == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const char *reduction = attrs->GetStr(REDUCTION_ATTR_INDEX);
    if (reduction != nullptr && strcmp(reduction, "none") == 0) {
        outputShape->SetDimNum(inputShape->GetDimNum());
        for (size_t i = 0; i < inputShape->GetDimNum(); i++) {
            outputShape->SetDim(i, inputShape->GetDim(i));
        }
        return ge::GRAPH_SUCCESS;
    }
    outputShape->SetDimNum(0);
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus InferDataTypeMSELossV2(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(OUTPUT_INDEX, context->GetInputDataType(INPUT_INDEX));
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_INFERSHAPE(MSELossV2).InferShape(InferShapeMSELossV2).InferDataType(InferDataTypeMSELossV2);
}  // namespace ops
