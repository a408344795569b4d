"""CrossEntropyLoss shape and dtype inference: input rank 2 (N, C), target rank 1 with dim 0 N,
weight (if given) rank 1 with dim 0 C; loss is (N) for reduction "none" and (1) otherwise,
log_prob is (N, C). Only loss and log_prob are shaped and typed (input's dtype), as in the
public operator.
"""

from ascsim.host import *
from ascsim.opdev import strcmp

INPUT_IDX = 0
TARGET_IDX = 1
WEIGHT_IDX = 2
LOSS_IDX = 0
LOG_PROB_IDX = 1
REDUCTION_ATTR_IDX = 0


def InferShapeCrossEntropyLoss(context):
    inputShape = context.GetInputShape(INPUT_IDX)
    targetShape = context.GetInputShape(TARGET_IDX)
    weightShape = context.GetOptionalInputShape(WEIGHT_IDX)
    lossShape = context.GetOutputShape(LOSS_IDX)
    logProbShape = context.GetOutputShape(LOG_PROB_IDX)
    if inputShape is None or targetShape is None or lossShape is None or logProbShape is None:
        return ge.GRAPH_FAILED
    if inputShape.GetDimNum() != 2 or targetShape.GetDimNum() != 1:
        return ge.GRAPH_FAILED
    if inputShape.GetDim(0) != targetShape.GetDim(0):
        return ge.GRAPH_FAILED
    if weightShape is not None:
        if weightShape.GetDimNum() != 1 or weightShape.GetDim(0) != inputShape.GetDim(1):
            return ge.GRAPH_FAILED
    reduction = context.GetAttrs().GetStr(REDUCTION_ATTR_IDX)
    lossShape.SetDimNum(1)
    if reduction is not None and strcmp(reduction, "none") == 0:
        lossShape.SetDim(0, inputShape.GetDim(0))
    else:
        lossShape.SetDim(0, 1)
    logProbShape.SetDimNum(2)
    logProbShape.SetDim(0, inputShape.GetDim(0))
    logProbShape.SetDim(1, inputShape.GetDim(1))
    return ge.GRAPH_SUCCESS


def InferDataTypeCrossEntropyLoss(context):
    context.SetOutputDataType(LOSS_IDX, context.GetInputDataType(INPUT_IDX))
    context.SetOutputDataType(LOG_PROB_IDX, context.GetInputDataType(INPUT_IDX))
    return ge.GRAPH_SUCCESS


IMPL_OP_INFERSHAPE("CrossEntropyLoss").InferShape(InferShapeCrossEntropyLoss).InferDataType(InferDataTypeCrossEntropyLoss)
