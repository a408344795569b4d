/**
 * aclnnLogitGrad: the two-phase aclnn API of LogitGrad.
 *
 * Checks, in order: x, dy and out not null (161001); x's dtype in {fp16, fp32, bf16}, dy's and
 * out's dtype equal to x's, rank at most 8, dy's and out's shape equal to x's (161002). Empty
 * tensors need no launch; non-contiguous inputs are made contiguous and the result is copied into
 * out's view.
 */
#include "aclnn/aclnn_base.h"
#include "aclnn_kernels/contiguous.h"
#include "opdev/make_op_executor.h"
#include "opdev/op_def.h"
#include "opdev/op_executor.h"
#include "opdev/op_log.h"

using namespace op;

static const std::initializer_list<DataType> DTYPE_SUPPORT_LIST = {DataType::DT_FLOAT16, DataType::DT_FLOAT, DataType::DT_BF16};
static constexpr size_t MAX_DIM_NUM = 8;

namespace l0op {
OP_TYPE_REGISTER(LogitGrad);

const aclTensor *LogitGrad(const aclTensor *x, const aclTensor *dy, float eps, aclOpExecutor *executor)
{
    aclTensor *dx = executor->AllocTensor(x->GetDataType(), x->GetStorageFormat(), x->GetOriginalFormat());
    auto ret = INFER_SHAPE(LogitGrad, OP_INPUT(x, dy), OP_OUTPUT(dx), OP_ATTR(eps));
    if (ret != ACLNN_SUCCESS) {
        OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "LogitGrad InferShape failed.");
        return nullptr;
    }
    ADD_TO_LAUNCHER_LIST_AICORE(LogitGrad, OP_INPUT(x, dy), OP_OUTPUT(dx), OP_ATTR(eps));
    return dx;
}
}  // namespace l0op

static bool CheckNotNull(const aclTensor *x, const aclTensor *dy, const aclTensor *out)
{
    if (x == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "x must not be nullptr.");
        return false;
    }
    if (dy == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "dy must not be nullptr.");
        return false;
    }
    if (out == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "out must not be nullptr.");
        return false;
    }
    return true;
}

static bool CheckDtype(const aclTensor *x, const aclTensor *dy, const aclTensor *out)
{
    if (!CheckType(x->GetDataType(), DTYPE_SUPPORT_LIST)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "x dtype %s should be in dtype support list %s.",
            ToString(x->GetDataType()).GetString(), ToString(DTYPE_SUPPORT_LIST).GetString());
        return false;
    }
    if (dy->GetDataType() != x->GetDataType()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dy dtype %s should be the same as x dtype %s.",
            ToString(dy->GetDataType()).GetString(), ToString(x->GetDataType()).GetString());
        return false;
    }
    if (out->GetDataType() != x->GetDataType()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out dtype %s should be the same as x dtype %s.",
            ToString(out->GetDataType()).GetString(), ToString(x->GetDataType()).GetString());
        return false;
    }
    return true;
}

static bool CheckShape(const aclTensor *x, const aclTensor *dy, const aclTensor *out)
{
    if (x->GetViewShape().GetDimNum() > MAX_DIM_NUM) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "x rank %zu should not be greater than %zu.",
            x->GetViewShape().GetDimNum(), MAX_DIM_NUM);
        return false;
    }
    if (dy->GetViewShape() != x->GetViewShape()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dy shape %s should be the same as x shape %s.",
            ToString(dy->GetViewShape()).GetString(), ToString(x->GetViewShape()).GetString());
        return false;
    }
    if (out->GetViewShape() != x->GetViewShape()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out shape %s should be the same as x shape %s.",
            ToString(out->GetViewShape()).GetString(), ToString(x->GetViewShape()).GetString());
        return false;
    }
    return true;
}

aclnnStatus aclnnLogitGradGetWorkspaceSize(const aclTensor *x, const aclTensor *dy, double eps, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    CHECK_RET(CheckNotNull(x, dy, out), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_RET(CheckDtype(x, dy, out), ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(CheckShape(x, dy, out), ACLNN_ERR_PARAM_INVALID);
    auto uniqueExecutor = CREATE_EXECUTOR();
    if (x->IsEmpty()) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    auto xContiguous = l0op::Contiguous(x, uniqueExecutor.get());
    CHECK_RET(xContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto dyContiguous = l0op::Contiguous(dy, uniqueExecutor.get());
    CHECK_RET(dyContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto dx = l0op::LogitGrad(xContiguous, dyContiguous, static_cast<float>(eps), uniqueExecutor.get());
    CHECK_RET(dx != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto viewCopyResult = l0op::ViewCopy(dx, out, uniqueExecutor.get());
    CHECK_RET(viewCopyResult != nullptr, ACLNN_ERR_INNER_NULLPTR);
    *workspaceSize = uniqueExecutor->GetWorkspaceSize();
    uniqueExecutor.ReleaseTo(executor);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnLogitGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return CommonOpExecutorRun(workspace, workspaceSize, executor, stream);
}
