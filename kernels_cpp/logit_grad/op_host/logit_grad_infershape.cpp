/**
 * LogitGrad shape and dtype inference: dx has x's shape and dtype.
 */
#include "register/op_impl_registry.h"

namespace ops {
static ge::graphStatus InferShapeLogitGrad(gert::InferShapeContext *context)
{
    const gert::Shape *xShape = context->GetInputShape(0);
    gert::Shape *dxShape = context->GetOutputShape(0);
    if (xShape == nullptr || dxShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    dxShape->SetDimNum(xShape->GetDimNum());
    for (size_t i = 0; i < xShape->GetDimNum(); i++) {
        dxShape->SetDim(i, xShape->GetDim(i));
    }
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus InferDataTypeLogitGrad(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_INFERSHAPE(LogitGrad).InferShape(InferShapeLogitGrad).InferDataType(InferDataTypeLogitGrad);
}  // namespace ops
