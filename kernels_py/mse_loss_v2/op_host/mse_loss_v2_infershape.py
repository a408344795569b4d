"""MSELossV2 shape and dtype inference: output has input's shape for reduction "none" and
rank 0 otherwise; output has input's dtype.
"""

from ascsim.host import *
from ascsim.opdev import strcmp

INPUT_INDEX = 0
OUTPUT_INDEX = 0
REDUCTION_ATTR_INDEX = 0


def InferShapeMSELossV2(context):
    inputShape = context.GetInputShape(INPUT_INDEX)
    outputShape = context.GetOutputShape(OUTPUT_INDEX)
    attrs = context.GetAttrs()
    if inputShape is None or outputShape is None or attrs is None:
        return ge.GRAPH_FAILED
    reduction = attrs.GetStr(REDUCTION_ATTR_INDEX)
    if reduction is not None and strcmp(reduction, "none") == 0:
        outputShape.SetDimNum(inputShape.GetDimNum())
        for i in range(inputShape.GetDimNum()):
            outputShape.SetDim(i, inputShape.GetDim(i))
        return ge.GRAPH_SUCCESS
    outputShape.SetDimNum(0)
    return ge.GRAPH_SUCCESS


def InferDataTypeMSELossV2(context):
    context.SetOutputDataType(OUTPUT_INDEX, context.GetInputDataType(INPUT_INDEX))
    return ge.GRAPH_SUCCESS


IMPL_OP_INFERSHAPE("MSELossV2").InferShape(InferShapeMSELossV2).InferDataType(InferDataTypeMSELossV2)
