"""aclnnBinaryCrossEntropyWithLogitsBackward: the two-phase aclnn API of
SigmoidCrossEntropyWithLogitsGradV2 (gradient of BCE-with-logits w.r.t. self).

Checks, in order: gradOutput, self, target and out not null (161001); then (161002) every
tensor given has rank <= 8; every dtype is in the platform list ({fp16, fp32, bf16} where the
SoC supports bf16, else {fp16, fp32}) and out's dtype equals target's; self, target and out
share one storage format; target and out have self's shape and gradOutput, weight and
posWeight broadcast to it (an empty self passes); reduction is 0 (none), 1 (mean) or 2 (sum).

Then: an empty self needs no launch (workspace 0). The inputs are promoted with PyTorch's
rules (self, target, gradOutput, weight, posWeight) and the result must cast to out's dtype.
Each input is made contiguous and cast to the promoted type; a missing weight or posWeight
becomes OnesLike(self), so the kernel always runs its both-weights variant; gradOutput,
weight and posWeight are broadcast to self's shape here (materialised by BroadcastTo), because
the kernel reads every input as a full tensor. The public API skips that step and its kernel
then reads past a broadcast input (e.g. the [1]-shaped gradOutput of mean/sum). The result is
cast to out's dtype, given out's format and copied into out's view.

(The NPU arch comes from the hardware profile: DAV_2201 where it supports bf16; ascsim/opdev.py.)
"""

from ascsim.aclnn import *
from ascsim.host import DataType
from ascsim.opdev import GetCurrentPlatformInfo, NpuArch

ASCEND910_DTYPE_SUPPORT_LIST = [DataType.DT_FLOAT16, DataType.DT_FLOAT]
ASCEND910B_DTYPE_SUPPORT_LIST = [
    DataType.DT_FLOAT16, DataType.DT_FLOAT, DataType.DT_BF16]
MAX_SUPPORT_DIMS_NUMS = 8
REDUCTION_NONE = 0
REDUCTION_SUM = 2
REDUCTION_STR = ["none", "mean", "sum"]

OP_TYPE_REGISTER("SigmoidCrossEntropyWithLogitsGradV2")


@l0op.define
def SigmoidCrossEntropyWithLogitsGradV2(predict, target, dout, weight, posWeight, reduction, executor):
    gradient = \
        executor.AllocTensor(predict.GetDataType(), predict.GetStorageFormat(), predict.GetOriginalFormat())
    ret = INFER_SHAPE("SigmoidCrossEntropyWithLogitsGradV2", OP_INPUT(predict, target, dout, weight, posWeight),
                      OP_OUTPUT(gradient), OP_ATTR(reduction))
    if ret != ACLNN_SUCCESS:
        OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "SigmoidCrossEntropyWithLogitsGradV2 InferShape failed.")
        return None
    ADD_TO_LAUNCHER_LIST_AICORE("SigmoidCrossEntropyWithLogitsGradV2",
                                OP_INPUT(predict, target, dout, weight, posWeight), OP_OUTPUT(gradient), OP_ATTR(reduction))
    return gradient


def GetDtypeSupportList():
    if GetCurrentPlatformInfo().GetCurNpuArch() == NpuArch.DAV_2201:
        return ASCEND910B_DTYPE_SUPPORT_LIST
    return ASCEND910_DTYPE_SUPPORT_LIST


def CheckNotNull(gradOutput, self, target, out):
    if gradOutput is None:
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "gradOutput must not be nullptr.")
        return False
    if self is None:
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "self must not be nullptr.")
        return False
    if target is None:
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "target must not be nullptr.")
        return False
    if out is None:
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "out must not be nullptr.")
        return False
    return True


def CheckTensorDims(tensor, name):
    if tensor is not None and tensor.GetViewShape().GetDimNum() > MAX_SUPPORT_DIMS_NUMS:
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s rank %d should not be greater than %d.", name,
                tensor.GetViewShape().GetDimNum(), MAX_SUPPORT_DIMS_NUMS)
        return False
    return True


def CheckDims(gradOutput, self, target, weight, posWeight, out):
    return (CheckTensorDims(gradOutput, "gradOutput") and CheckTensorDims(self, "self") and
            CheckTensorDims(target, "target") and CheckTensorDims(weight, "weight") and
            CheckTensorDims(posWeight, "posWeight") and CheckTensorDims(out, "out"))


def CheckTensorDtype(tensor, name):
    supportList = GetDtypeSupportList()
    if tensor is not None and not CheckType(tensor.GetDataType(), supportList):
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be in dtype support list %s.", name,
                ToString(tensor.GetDataType()), ToString(supportList))
        return False
    return True


def CheckDtype(gradOutput, self, target, weight, posWeight, out):
    if not (CheckTensorDtype(gradOutput, "gradOutput") and CheckTensorDtype(self, "self") and
            CheckTensorDtype(target, "target") and CheckTensorDtype(weight, "weight") and
            CheckTensorDtype(posWeight, "posWeight") and CheckTensorDtype(out, "out")):
        return False
    if out.GetDataType() != target.GetDataType():
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out dtype %s should be the same as target dtype %s.",
                ToString(out.GetDataType()), ToString(target.GetDataType()))
        return False
    return True


def CheckFormat(self, target, out):
    if self.GetStorageFormat() != target.GetStorageFormat() or self.GetStorageFormat() != out.GetStorageFormat():
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "self, target and out should have one format, got %s, %s and %s.",
                ToString(self.GetStorageFormat()), ToString(target.GetStorageFormat()),
                ToString(out.GetStorageFormat()))
        return False
    return True


# Whether shape broadcasts to target exactly: aligned at the last dim, each dim 1 or equal.
def BroadcastsTo(shape, target):
    if shape.GetDimNum() > target.GetDimNum():
        return False
    lead = target.GetDimNum() - shape.GetDimNum()
    for i in range(shape.GetDimNum()):
        if shape.GetDim(i) != 1 and shape.GetDim(i) != target.GetDim(lead + i):
            return False
    return True


def CheckBroadcastToSelf(tensor, self, name):
    if tensor is None:
        return True
    if not BroadcastsTo(tensor.GetViewShape(), self.GetViewShape()):
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s shape %s should broadcast to self shape %s.", name,
                ToString(tensor.GetViewShape()), ToString(self.GetViewShape()))
        return False
    return True


def CheckShape(gradOutput, self, target, weight, posWeight, out):
    if self.IsEmpty():
        return True
    if target.GetViewShape() != self.GetViewShape():
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "target shape %s should be the same as self shape %s.",
                ToString(target.GetViewShape()), ToString(self.GetViewShape()))
        return False
    if out.GetViewShape() != self.GetViewShape():
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out shape %s should be the same as self shape %s.",
                ToString(out.GetViewShape()), ToString(self.GetViewShape()))
        return False
    return (CheckBroadcastToSelf(gradOutput, self, "gradOutput") and CheckBroadcastToSelf(weight, self, "weight") and
            CheckBroadcastToSelf(posWeight, self, "posWeight"))


def CheckReduction(reduction):
    if reduction < REDUCTION_NONE or reduction > REDUCTION_SUM:
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "reduction %d should be 0 (none), 1 (mean) or 2 (sum).", reduction)
        return False
    return True


def CheckParams(gradOutput, self, target, weight, posWeight, reduction, out):
    if not CheckDims(gradOutput, self, target, weight, posWeight, out):
        return False
    if not CheckDtype(gradOutput, self, target, weight, posWeight, out):
        return False
    if not CheckFormat(self, target, out):
        return False
    if not CheckShape(gradOutput, self, target, weight, posWeight, out):
        return False
    return CheckReduction(reduction)


def PromoteInputsType(gradOutput, self, target, weight, posWeight):
    promoteType = PromoteType(self.GetDataType(), target.GetDataType())
    promoteType = PromoteType(promoteType, gradOutput.GetDataType())
    if weight is not None:
        promoteType = PromoteType(promoteType, weight.GetDataType())
    if posWeight is not None:
        promoteType = PromoteType(promoteType, posWeight.GetDataType())
    return promoteType


def CheckPromoteType(promoteType, out):
    if promoteType == DataType.DT_UNDEFINED:
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "the input dtypes cannot be promoted to a common dtype.")
        return False
    if not CanCast(promoteType, out.GetDataType()):
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "promoted dtype %s cannot be cast to out dtype %s.",
                ToString(promoteType), ToString(out.GetDataType()))
        return False
    return True


def BroadcastToSelf(x, self, executor):
    if x.GetViewShape() == self.GetViewShape():
        return x
    selfShape = self.GetViewShape()
    dims = []
    for i in range(selfShape.GetDimNum()):
        dims.append(selfShape.GetDim(i))
    shapeArray = executor.AllocIntArray(dims, len(dims))
    return l0op.BroadcastTo(x, shapeArray, executor)


def PrepareInput(x, self, promoteType, executor):
    contiguous = l0op.Contiguous(x, executor)
    if contiguous is None:
        return None
    casted = l0op.Cast(contiguous, promoteType, executor)
    if casted is None:
        return None
    return BroadcastToSelf(casted, self, executor)


@aclnn_api
def aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(gradOutput, self, target, weightOptional,
                                                              posWeightOptional, reduction, out):
    CHECK_RET(CheckNotNull(gradOutput, self, target, out), ACLNN_ERR_PARAM_NULLPTR)
    CHECK_RET(CheckParams(gradOutput, self, target, weightOptional, posWeightOptional, reduction, out),
              ACLNN_ERR_PARAM_INVALID)
    uniqueExecutor = CREATE_EXECUTOR()
    if self.IsEmpty():
        workspaceSize = 0
        executor = uniqueExecutor.ReleaseTo()
        return workspaceSize, executor
    promoteType = PromoteInputsType(gradOutput, self, target, weightOptional, posWeightOptional)
    CHECK_RET(CheckPromoteType(promoteType, out), ACLNN_ERR_PARAM_INVALID)

    weight = \
        weightOptional if weightOptional is not None else l0op.OnesLike(self, uniqueExecutor.get())
    CHECK_RET(weight is not None, ACLNN_ERR_INNER_NULLPTR)
    posWeight = \
        posWeightOptional if posWeightOptional is not None else l0op.OnesLike(self, uniqueExecutor.get())
    CHECK_RET(posWeight is not None, ACLNN_ERR_INNER_NULLPTR)
    selfPrepared = PrepareInput(self, self, promoteType, uniqueExecutor.get())
    CHECK_RET(selfPrepared is not None, ACLNN_ERR_INNER_NULLPTR)
    targetPrepared = PrepareInput(target, self, promoteType, uniqueExecutor.get())
    CHECK_RET(targetPrepared is not None, ACLNN_ERR_INNER_NULLPTR)
    gradOutputPrepared = PrepareInput(gradOutput, self, promoteType, uniqueExecutor.get())
    CHECK_RET(gradOutputPrepared is not None, ACLNN_ERR_INNER_NULLPTR)
    weightPrepared = PrepareInput(weight, self, promoteType, uniqueExecutor.get())
    CHECK_RET(weightPrepared is not None, ACLNN_ERR_INNER_NULLPTR)
    posWeightPrepared = PrepareInput(posWeight, self, promoteType, uniqueExecutor.get())
    CHECK_RET(posWeightPrepared is not None, ACLNN_ERR_INNER_NULLPTR)

    gradient = l0op.SigmoidCrossEntropyWithLogitsGradV2(selfPrepared, targetPrepared, gradOutputPrepared,
                                                        weightPrepared, posWeightPrepared, REDUCTION_STR[reduction], uniqueExecutor.get())
    CHECK_RET(gradient is not None, ACLNN_ERR_INNER_NULLPTR)
    castOut = l0op.Cast(gradient, out.GetDataType(), uniqueExecutor.get())
    CHECK_RET(castOut is not None, ACLNN_ERR_INNER_NULLPTR)
    reformatOut = l0op.ReFormat(castOut, out.GetStorageFormat())
    CHECK_RET(reformatOut is not None, ACLNN_ERR_INNER_NULLPTR)
    viewCopyResult = l0op.ViewCopy(reformatOut, out, uniqueExecutor.get())
    CHECK_RET(viewCopyResult is not None, ACLNN_ERR_INNER_NULLPTR)
    workspaceSize = uniqueExecutor.GetWorkspaceSize()
    executor = uniqueExecutor.ReleaseTo()
    return workspaceSize, executor


def aclnnBinaryCrossEntropyWithLogitsBackward(workspace, workspaceSize, executor, stream=None):
    return CommonOpExecutorRun(workspace, workspaceSize, executor, stream)
