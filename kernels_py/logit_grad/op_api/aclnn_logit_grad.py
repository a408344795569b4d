"""aclnnLogitGrad: the two-phase aclnn API of LogitGrad.

Checks, in order: x, dy and out not null (161001); x's dtype in {fp16, fp32, bf16}, dy's and
out's dtype equal to x's, rank at most 8, dy's and out's shape equal to x's (161002). Empty
tensors need no launch; non-contiguous inputs are made contiguous and the result is copied into
out's view.
"""

from ascsim.aclnn import *
from ascsim.dtypes import float
from ascsim.host import DataType

DTYPE_SUPPORT_LIST = [DataType.DT_FLOAT16, DataType.DT_FLOAT, DataType.DT_BF16]
MAX_DIM_NUM = 8

OP_TYPE_REGISTER("LogitGrad")


@l0op.define
def LogitGrad(x, dy, eps, executor):
    dx = executor.AllocTensor(x.GetDataType(), x.GetStorageFormat(), x.GetOriginalFormat())
    ret = INFER_SHAPE("LogitGrad", OP_INPUT(x, dy), OP_OUTPUT(dx), OP_ATTR(eps))
    if ret != ACLNN_SUCCESS:
        OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "LogitGrad InferShape failed.")
        return None
    ADD_TO_LAUNCHER_LIST_AICORE("LogitGrad", OP_INPUT(x, dy), OP_OUTPUT(dx), OP_ATTR(eps))
    return dx


def CheckNotNull(x, dy, out):
    if x is None:
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "x must not be nullptr.")
        return False
    if dy is None:
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "dy must not be nullptr.")
        return False
    if out is None:
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "out must not be nullptr.")
        return False
    return True


def CheckDtype(x, dy, out):
    if not CheckType(x.GetDataType(), DTYPE_SUPPORT_LIST):
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "x dtype %s should be in dtype support list %s.",
                ToString(x.GetDataType()), ToString(DTYPE_SUPPORT_LIST))
        return False
    if dy.GetDataType() != x.GetDataType():
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dy dtype %s should be the same as x dtype %s.",
                ToString(dy.GetDataType()), ToString(x.GetDataType()))
        return False
    if out.GetDataType() != x.GetDataType():
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out dtype %s should be the same as x dtype %s.",
                ToString(out.GetDataType()), ToString(x.GetDataType()))
        return False
    return True


def CheckShape(x, dy, out):
    if x.GetViewShape().GetDimNum() > MAX_DIM_NUM:
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "x rank %d should not be greater than %d.",
                x.GetViewShape().GetDimNum(), MAX_DIM_NUM)
        return False
    if dy.GetViewShape() != x.GetViewShape():
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dy shape %s should be the same as x shape %s.",
                ToString(dy.GetViewShape()), ToString(x.GetViewShape()))
        return False
    if out.GetViewShape() != x.GetViewShape():
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out shape %s should be the same as x shape %s.",
                ToString(out.GetViewShape()), ToString(x.GetViewShape()))
        return False
    return True


@aclnn_api
def aclnnLogitGradGetWorkspaceSize(x, dy, eps, out):
    CHECK_RET(CheckNotNull(x, dy, out), ACLNN_ERR_PARAM_NULLPTR)
    CHECK_RET(CheckDtype(x, dy, out), ACLNN_ERR_PARAM_INVALID)
    CHECK_RET(CheckShape(x, dy, out), ACLNN_ERR_PARAM_INVALID)
    uniqueExecutor = CREATE_EXECUTOR()
    if x.IsEmpty():
        workspaceSize = 0
        executor = uniqueExecutor.ReleaseTo()
        return workspaceSize, executor
    xContiguous = l0op.Contiguous(x, uniqueExecutor.get())
    CHECK_RET(xContiguous is not None, ACLNN_ERR_INNER_NULLPTR)
    dyContiguous = l0op.Contiguous(dy, uniqueExecutor.get())
    CHECK_RET(dyContiguous is not None, ACLNN_ERR_INNER_NULLPTR)
    dx = l0op.LogitGrad(xContiguous, dyContiguous, float(eps), uniqueExecutor.get())
    CHECK_RET(dx is not None, ACLNN_ERR_INNER_NULLPTR)
    viewCopyResult = l0op.ViewCopy(dx, out, uniqueExecutor.get())
    CHECK_RET(viewCopyResult is not None, ACLNN_ERR_INNER_NULLPTR)
    workspaceSize = uniqueExecutor.GetWorkspaceSize()
    executor = uniqueExecutor.ReleaseTo()
    return workspaceSize, executor


def aclnnLogitGrad(workspace, workspaceSize, executor, stream=None):
    return CommonOpExecutorRun(workspace, workspaceSize, executor, stream)
