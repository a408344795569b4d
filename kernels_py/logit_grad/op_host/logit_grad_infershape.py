"""LogitGrad shape and dtype inference: dx has x's shape and dtype."""

from ascsim.host import *


def InferShapeLogitGrad(context):
    xShape = context.GetInputShape(0)
    dxShape = context.GetOutputShape(0)
    if xShape is None or dxShape is None:
        return ge.GRAPH_FAILED
    dxShape.SetDimNum(xShape.GetDimNum())
    for i in range(xShape.GetDimNum()):
        dxShape.SetDim(i, xShape.GetDim(i))
    return ge.GRAPH_SUCCESS


def InferDataTypeLogitGrad(context):
    context.SetOutputDataType(0, context.GetInputDataType(0))
    return ge.GRAPH_SUCCESS


IMPL_OP_INFERSHAPE("LogitGrad").InferShape(InferShapeLogitGrad).InferDataType(InferDataTypeLogitGrad)
