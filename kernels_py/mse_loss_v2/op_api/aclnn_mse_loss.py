"""aclnnMseLoss: the two-phase aclnn API of MSELossV2, l = (self - target)^2, then none (the
tensor), mean (sum / N) or sum, N the element count after broadcasting.

Checks, in order: self, target and out not null (161001); then (161002) the dtypes of self,
target and out and their promoted dtype are in the platform list ({fp32, fp16, bf16} on
DAV_2201, else {fp32, fp16}); reduction is 0 (none), 1 (mean) or 2 (sum); self and target
have rank <= 8 and broadcast together; for none out has the broadcast shape, for mean / sum
out is 0-dimensional (any rank >= 1, [1] included, is refused).

An empty self or target launches nothing: none leaves out alone, mean fills it with NaN and
sum with 0 (an l0op::Fill of shape [1], then a ViewCopy into out).

Otherwise: promote (PyTorch's rule); make each input contiguous and cast it to the promoted
type; if the view shapes differ, BroadcastTo the input that is not already the broadcast
shape; run MSELossV2 (its output has self's shape for none and rank 0 otherwise); cast the
result to out's dtype and ViewCopy it into out.

The public L0 MseLoss launches MSELossV2 for ND / NCL tensors of equal view shapes and
formats and the legacy MseLoss otherwise; ascsim's aclTensors are ND and the L2 broadcast
makes the shapes equal, so the L0 function here launches MSELossV2 only.

(The NPU arch comes from the hardware profile: DAV_2201 where it supports bf16; ascsim/opdev.py.)
"""

import numpy as np

from ascsim.aclnn import *
from ascsim.host import DataType, Shape
from ascsim.opdev import GetCurrentPlatformInfo, NpuArch

DTYPE_SUPPORT_LIST = [DataType.DT_FLOAT, DataType.DT_FLOAT16]
DTYPE_SUPPORT_LIST_WITH_BF16 = [
    DataType.DT_FLOAT, DataType.DT_FLOAT16, DataType.DT_BF16]
MAX_DIM_LEN = 8
REDUCTION_NONE = 0
REDUCTION_MEAN = 1
REDUCTION_SUM = 2
REDUCTION_STR = ["none", "mean", "sum"]
FILL_LENGTH = 1

OP_TYPE_REGISTER("MSELossV2")


@l0op.define
def MseLoss(self, target, reduction, executor):
    out = executor.AllocTensor(self.GetDataType(), self.GetStorageFormat(), self.GetOriginalFormat())
    ret = INFER_SHAPE("MSELossV2", OP_INPUT(self, target), OP_OUTPUT(out), OP_ATTR(reduction))
    if ret != ACLNN_SUCCESS:
        OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "MSELossV2 InferShape failed.")
        return None
    ADD_TO_LAUNCHER_LIST_AICORE("MSELossV2", OP_INPUT(self, target), OP_OUTPUT(out), OP_ATTR(reduction))
    return out


def GetDtypeSupportList():
    if GetCurrentPlatformInfo().GetCurNpuArch() == NpuArch.DAV_2201:
        return DTYPE_SUPPORT_LIST_WITH_BF16
    return DTYPE_SUPPORT_LIST


def CheckNotNull(self, target, out):
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


def CheckDtypeInList(dtype, name):
    supportList = GetDtypeSupportList()
    if not CheckType(dtype, supportList):
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be in dtype support list %s.", name,
                ToString(dtype), ToString(supportList))
        return False
    return True


def CheckDtypeValid(self, target, out):
    promoteType = PromoteType(self.GetDataType(), target.GetDataType())
    return (CheckDtypeInList(promoteType, "promoted") and CheckDtypeInList(self.GetDataType(), "self") and
            CheckDtypeInList(target.GetDataType(), "target") and CheckDtypeInList(out.GetDataType(), "out"))


def CheckReduction(reduction):
    if reduction < REDUCTION_NONE or reduction > REDUCTION_SUM:
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "reduction %d should be 0 (none), 1 (mean) or 2 (sum).", reduction)
        return False
    return True


def CheckShape(self, target, reduction, out):
    if self.GetViewShape().GetDimNum() > MAX_DIM_LEN or target.GetViewShape().GetDimNum() > MAX_DIM_LEN:
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "self rank %d and target rank %d should not be greater than %d.",
                self.GetViewShape().GetDimNum(), target.GetViewShape().GetDimNum(), MAX_DIM_LEN)
        return False
    broadcastShape = Shape()
    if not BroadcastInferShape(self.GetViewShape(), target.GetViewShape(), broadcastShape):
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "self shape %s and target shape %s cannot broadcast.",
                ToString(self.GetViewShape()), ToString(target.GetViewShape()))
        return False
    if reduction == REDUCTION_NONE and out.GetViewShape() != broadcastShape:
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out shape %s should be the broadcast shape %s.",
                ToString(out.GetViewShape()), ToString(broadcastShape))
        return False
    if reduction != REDUCTION_NONE and out.GetViewShape().GetDimNum() != 0:
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out should be 0-dimensional for mean and sum, got shape %s.",
                ToString(out.GetViewShape()))
        return False
    return True


def CheckParams(self, target, reduction, out):
    if not CheckDtypeValid(self, target, out):
        return False
    if not CheckReduction(reduction):
        return False
    return CheckShape(self, target, reduction, out)


# mean of nothing is NaN, sum of nothing is 0: an l0op::Fill of shape [1] copied into out.
def FillEmptyOut(reduction, out, executor):
    fillValue = float(0.0)
    if reduction == REDUCTION_MEAN:
        fillValue = np.float32(np.nan)
    fillShape = [FILL_LENGTH]
    dims = executor.ConvertToTensor(fillShape, FILL_LENGTH, DataType.DT_INT64)
    shapeArray = executor.AllocIntArray(fillShape, FILL_LENGTH)
    valueScalar = executor.AllocScalar(fillValue)
    valueTensor = executor.ConvertToTensor(valueScalar, out.GetDataType())
    fillOut = l0op.Fill(dims, valueTensor, shapeArray, executor)
    CHECK_RET(fillOut is not None, ACLNN_ERR_INNER_NULLPTR)
    viewCopyResult = l0op.ViewCopy(fillOut, out, executor)
    CHECK_RET(viewCopyResult is not None, ACLNN_ERR_INNER_NULLPTR)
    return ACLNN_SUCCESS


def BroadcastToShape(x, shape, executor):
    if x.GetViewShape() == shape:
        return x
    dims = []
    for i in range(shape.GetDimNum()):
        dims.append(shape.GetDim(i))
    shapeArray = executor.AllocIntArray(dims, len(dims))
    return l0op.BroadcastTo(x, shapeArray, executor)


@aclnn_api
def aclnnMseLossGetWorkspaceSize(self, target, reduction, out):
    CHECK_RET(CheckNotNull(self, target, out), ACLNN_ERR_PARAM_NULLPTR)
    CHECK_RET(CheckParams(self, target, reduction, out), ACLNN_ERR_PARAM_INVALID)
    uniqueExecutor = CREATE_EXECUTOR()
    if self.IsEmpty() or target.IsEmpty():
        if reduction != REDUCTION_NONE:
            ret = FillEmptyOut(reduction, out, uniqueExecutor.get())
            CHECK_RET(ret == ACLNN_SUCCESS, ret)
        workspaceSize = uniqueExecutor.GetWorkspaceSize()
        executor = uniqueExecutor.ReleaseTo()
        return workspaceSize, executor
    promoteType = PromoteType(self.GetDataType(), target.GetDataType())
    selfContiguous = l0op.Contiguous(self, uniqueExecutor.get())
    CHECK_RET(selfContiguous is not None, ACLNN_ERR_INNER_NULLPTR)
    selfCasted = l0op.Cast(selfContiguous, promoteType, uniqueExecutor.get())
    CHECK_RET(selfCasted is not None, ACLNN_ERR_INNER_NULLPTR)
    targetContiguous = l0op.Contiguous(target, uniqueExecutor.get())
    CHECK_RET(targetContiguous is not None, ACLNN_ERR_INNER_NULLPTR)
    targetCasted = l0op.Cast(targetContiguous, promoteType, uniqueExecutor.get())
    CHECK_RET(targetCasted is not None, ACLNN_ERR_INNER_NULLPTR)
    if self.GetViewShape() != target.GetViewShape():
        broadcastShape = Shape()
        BroadcastInferShape(self.GetViewShape(), target.GetViewShape(), broadcastShape)
        selfCasted = BroadcastToShape(selfCasted, broadcastShape, uniqueExecutor.get())
        CHECK_RET(selfCasted is not None, ACLNN_ERR_INNER_NULLPTR)
        targetCasted = BroadcastToShape(targetCasted, broadcastShape, uniqueExecutor.get())
        CHECK_RET(targetCasted is not None, ACLNN_ERR_INNER_NULLPTR)
    lossOut = l0op.MseLoss(selfCasted, targetCasted, REDUCTION_STR[reduction], uniqueExecutor.get())
    CHECK_RET(lossOut is not None, ACLNN_ERR_INNER_NULLPTR)
    castOut = l0op.Cast(lossOut, out.GetDataType(), uniqueExecutor.get())
    CHECK_RET(castOut is not None, ACLNN_ERR_INNER_NULLPTR)
    viewCopyResult = l0op.ViewCopy(castOut, out, uniqueExecutor.get())
    CHECK_RET(viewCopyResult is not None, ACLNN_ERR_INNER_NULLPTR)
    workspaceSize = uniqueExecutor.GetWorkspaceSize()
    executor = uniqueExecutor.ReleaseTo()
    return workspaceSize, executor


def aclnnMseLoss(workspace, workspaceSize, executor, stream=None):
    return CommonOpExecutorRun(workspace, workspaceSize, executor, stream)
