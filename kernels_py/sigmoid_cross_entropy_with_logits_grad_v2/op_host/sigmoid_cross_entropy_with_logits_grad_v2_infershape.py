"""SigmoidCrossEntropyWithLogitsGradV2 shape and dtype inference: gradient has predict's shape
and dtype.
"""

from ascsim.host import *

PREDICT_INDEX = 0
GRADIENT_INDEX = 0


def InferShapeSigmoidCrossEntropyWithLogitsGradV2(context):
    predictShape = context.GetInputShape(PREDICT_INDEX)
    gradientShape = context.GetOutputShape(GRADIENT_INDEX)
    if predictShape is None or gradientShape is None:
        return ge.GRAPH_FAILED
    gradientShape.SetDimNum(predictShape.GetDimNum())
    for i in range(predictShape.GetDimNum()):
        gradientShape.SetDim(i, predictShape.GetDim(i))
    return ge.GRAPH_SUCCESS


def InferDataTypeSigmoidCrossEntropyWithLogitsGradV2(context):
    context.SetOutputDataType(GRADIENT_INDEX, context.GetInputDataType(PREDICT_INDEX))
    return ge.GRAPH_SUCCESS


IMPL_OP_INFERSHAPE("SigmoidCrossEntropyWithLogitsGradV2") \
    .InferShape(InferShapeSigmoidCrossEntropyWithLogitsGradV2) \
    .InferDataType(InferDataTypeSigmoidCrossEntropyWithLogitsGradV2)
