"""aclnnCrossEntropyLoss: the two-phase aclnn API of CrossEntropyLoss.

The real API is generated from the op def (no hand-written op_api), so the order of its checks
is not public; ascsim's, in order:
1. input, target, lossOut, logProbOut, zlossOut and lseForZlossOut not null (161001);
2. dtypes (161002): input in {bf16, fp16, fp32}; target int64; weight (if given) fp32; the four
   outputs in input's dtype (the op def's dtype combinations);
3. the tiling's checks, run here too so that an empty input (which launches nothing) gets
   them (561002): reductionOptional "mean" (also for null), "sum" or "none"; labelSmoothing in
   [0, 1]; input rank 2 (N, C), target rank 1 with N elements, weight rank 1 with C;
4. output shapes (161002): lossOut (N) for none, (1) otherwise; logProbOut (N, C).
An input with N = 0 launches nothing: log_prob is empty and the loss is PyTorch's (none:
empty, mean: NaN, sum: 0). lseSquareScaleForZloss and returnZloss are accepted and ignored,
and zlossOut / lseForZlossOut are left as the caller gave them: the A2 operator does not
implement zloss (its kernel gets the buffers and never writes them; ascsim passes it empty
placeholders). The inputs are made contiguous; loss and log_prob are copied into the
caller's views.
"""

from math import isnan

from ascsim.aclnn import *
from ascsim.errors import ACLNN_ERR_INNER_TILING_ERROR
from ascsim.host import DataType, Shape
from ascsim.opdev import strcmp

INPUT_DTYPE_SUPPORT_LIST = [DataType.DT_BF16, DataType.DT_FLOAT16, DataType.DT_FLOAT]
INPUT_DIM_NUM = 2
LOSS_LENGTH = 1

OP_TYPE_REGISTER("CrossEntropyLoss")


@l0op.define
def CrossEntropyLoss(input, target, weight, reduction, ignoreIndex, labelSmoothing, lseSquareScaleForZloss, returnZloss,
                     logProb, executor):
    loss = executor.AllocTensor(input.GetDataType(), input.GetStorageFormat(), input.GetOriginalFormat())
    zloss = executor.AllocTensor(Shape([0]), input.GetDataType())
    lseForZloss = executor.AllocTensor(Shape([0]), input.GetDataType())
    ret = INFER_SHAPE("CrossEntropyLoss", OP_INPUT(input, target, weight), OP_OUTPUT(loss, logProb),
                      OP_ATTR(reduction, ignoreIndex, labelSmoothing, lseSquareScaleForZloss, returnZloss))
    if ret != ACLNN_SUCCESS:
        OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "CrossEntropyLoss InferShape failed.")
        return None
    ADD_TO_LAUNCHER_LIST_AICORE("CrossEntropyLoss", OP_INPUT(input, target, weight),
                                OP_OUTPUT(loss, logProb, zloss, lseForZloss),
                                OP_ATTR(reduction, ignoreIndex, labelSmoothing, lseSquareScaleForZloss, returnZloss))
    return loss


def CheckNotNull(input, target, lossOut, logProbOut, zlossOut, lseForZlossOut):
    if input is None:
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "input must not be nullptr.")
        return False
    if target is None:
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "target must not be nullptr.")
        return False
    if lossOut is None:
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "lossOut must not be nullptr.")
        return False
    if logProbOut is None:
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "logProbOut must not be nullptr.")
        return False
    if zlossOut is None:
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "zlossOut must not be nullptr.")
        return False
    if lseForZlossOut is None:
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "lseForZlossOut must not be nullptr.")
        return False
    return True


def CheckOutDtype(name, out, input):
    if out.GetDataType() != input.GetDataType():
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be the same as input dtype %s.", name,
                ToString(out.GetDataType()), ToString(input.GetDataType()))
        return False
    return True


def CheckDtype(input, target, weight, lossOut, logProbOut, zlossOut, lseForZlossOut):
    if not CheckType(input.GetDataType(), INPUT_DTYPE_SUPPORT_LIST):
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "input dtype %s should be in dtype support list %s.",
                ToString(input.GetDataType()), ToString(INPUT_DTYPE_SUPPORT_LIST))
        return False
    if target.GetDataType() != DataType.DT_INT64:
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "target dtype %s should be DT_INT64.", ToString(target.GetDataType()))
        return False
    if weight is not None and weight.GetDataType() != DataType.DT_FLOAT:
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "weight dtype %s should be DT_FLOAT.", ToString(weight.GetDataType()))
        return False
    if not CheckOutDtype("lossOut", lossOut, input):
        return False
    if not CheckOutDtype("logProbOut", logProbOut, input):
        return False
    if not CheckOutDtype("zlossOut", zlossOut, input):
        return False
    if not CheckOutDtype("lseForZlossOut", lseForZlossOut, input):
        return False
    return True


def CheckAttrAndShape(input, target, weight, reduction, labelSmoothing):
    if strcmp(reduction, "none") != 0 and strcmp(reduction, "mean") != 0 and strcmp(reduction, "sum") != 0:
        OP_LOGE(ACLNN_ERR_INNER_TILING_ERROR, "reduction %s should be mean, sum or none.", reduction)
        return False
    if labelSmoothing < 0.0 or labelSmoothing > 1.0 or isnan(labelSmoothing):
        OP_LOGE(ACLNN_ERR_INNER_TILING_ERROR, "labelSmoothing %f should be in [0, 1].", labelSmoothing)
        return False
    if input.GetViewShape().GetDimNum() != INPUT_DIM_NUM:
        OP_LOGE(ACLNN_ERR_INNER_TILING_ERROR, "input shape %s should be (N, C).", ToString(input.GetViewShape()))
        return False
    if target.GetViewShape().GetDimNum() != 1 or target.GetViewShape().GetDim(0) != input.GetViewShape().GetDim(0):
        OP_LOGE(ACLNN_ERR_INNER_TILING_ERROR, "target shape %s should be (N) with N = %d.",
                ToString(target.GetViewShape()), input.GetViewShape().GetDim(0))
        return False
    if weight is not None:
        if weight.GetViewShape().GetDimNum() != 1 or weight.GetViewShape().GetDim(0) != input.GetViewShape().GetDim(1):
            OP_LOGE(ACLNN_ERR_INNER_TILING_ERROR, "weight shape %s should be (C) with C = %d.",
                    ToString(weight.GetViewShape()), input.GetViewShape().GetDim(1))
            return False
    return True


def CheckOutShape(input, reduction, lossOut, logProbOut):
    lossShape = Shape([input.GetViewShape().GetDim(0)]) if strcmp(reduction, "none") == 0 else Shape([1])
    if lossOut.GetViewShape() != lossShape:
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "lossOut shape %s should be %s.", ToString(lossOut.GetViewShape()), ToString(lossShape))
        return False
    if logProbOut.GetViewShape() != input.GetViewShape():
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "logProbOut shape %s should be %s.",
                ToString(logProbOut.GetViewShape()), ToString(input.GetViewShape()))
        return False
    return True


# An empty batch launches nothing: the (1)-shaped loss of mean (NaN) or sum (0) is an
# l0op::Fill copied into lossOut.
def FillLoss(lossOut, value, executor):
    fillShape = [LOSS_LENGTH]
    dims = executor.ConvertToTensor(fillShape, LOSS_LENGTH, DataType.DT_INT64)
    shapeArray = executor.AllocIntArray(fillShape, LOSS_LENGTH)
    valueScalar = executor.AllocScalar(value)
    valueTensor = executor.ConvertToTensor(valueScalar, lossOut.GetDataType())
    fillOut = l0op.Fill(dims, valueTensor, shapeArray, executor)
    if fillOut is None:
        return ACLNN_ERR_INNER_NULLPTR
    if l0op.ViewCopy(fillOut, lossOut, executor) is None:
        return ACLNN_ERR_INNER_NULLPTR
    return ACLNN_SUCCESS


@aclnn_api
def aclnnCrossEntropyLossGetWorkspaceSize(input, target, weightOptional, reductionOptional, ignoreIndex, labelSmoothing,
                                          lseSquareScaleForZloss, returnZloss, lossOut, logProbOut, zlossOut, lseForZlossOut):
    CHECK_RET(CheckNotNull(input, target, lossOut, logProbOut, zlossOut, lseForZlossOut), ACLNN_ERR_PARAM_NULLPTR)
    CHECK_RET(CheckDtype(input, target, weightOptional, lossOut, logProbOut, zlossOut, lseForZlossOut), ACLNN_ERR_PARAM_INVALID)
    reduction = "mean" if reductionOptional is None else reductionOptional
    CHECK_RET(CheckAttrAndShape(input, target, weightOptional, reduction, float(labelSmoothing)), ACLNN_ERR_INNER_TILING_ERROR)
    CHECK_RET(CheckOutShape(input, reduction, lossOut, logProbOut), ACLNN_ERR_PARAM_INVALID)
    uniqueExecutor = CREATE_EXECUTOR()
    if input.GetViewShape().GetDim(0) == 0:
        if strcmp(reduction, "mean") == 0:
            CHECK_RET(FillLoss(lossOut, float("nan"), uniqueExecutor.get()) == ACLNN_SUCCESS, ACLNN_ERR_INNER_NULLPTR)
        elif strcmp(reduction, "sum") == 0:
            CHECK_RET(FillLoss(lossOut, 0.0, uniqueExecutor.get()) == ACLNN_SUCCESS, ACLNN_ERR_INNER_NULLPTR)
        workspaceSize = 0
        executor = uniqueExecutor.ReleaseTo()
        return workspaceSize, executor
    inputContiguous = l0op.Contiguous(input, uniqueExecutor.get())
    CHECK_RET(inputContiguous is not None, ACLNN_ERR_INNER_NULLPTR)
    targetContiguous = l0op.Contiguous(target, uniqueExecutor.get())
    CHECK_RET(targetContiguous is not None, ACLNN_ERR_INNER_NULLPTR)
    weightContiguous = None
    if weightOptional is not None:
        weightContiguous = l0op.Contiguous(weightOptional, uniqueExecutor.get())
        CHECK_RET(weightContiguous is not None, ACLNN_ERR_INNER_NULLPTR)
    logProb = uniqueExecutor.get().AllocTensor(input.GetDataType(), input.GetStorageFormat(), input.GetOriginalFormat())
    loss = l0op.CrossEntropyLoss(inputContiguous, targetContiguous, weightContiguous, reduction, int(ignoreIndex),
                                 float(labelSmoothing), float(lseSquareScaleForZloss), bool(returnZloss), logProb,
                                 uniqueExecutor.get())
    CHECK_RET(loss is not None, ACLNN_ERR_INNER_NULLPTR)
    lossResult = l0op.ViewCopy(loss, lossOut, uniqueExecutor.get())
    CHECK_RET(lossResult is not None, ACLNN_ERR_INNER_NULLPTR)
    logProbResult = l0op.ViewCopy(logProb, logProbOut, uniqueExecutor.get())
    CHECK_RET(logProbResult is not None, ACLNN_ERR_INNER_NULLPTR)
    workspaceSize = uniqueExecutor.GetWorkspaceSize()
    executor = uniqueExecutor.ReleaseTo()
    return workspaceSize, executor


def aclnnCrossEntropyLoss(workspace, workspaceSize, executor, stream=None):
    return CommonOpExecutorRun(workspace, workspaceSize, executor, stream)
