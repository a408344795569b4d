/**
 * aclnnMseLoss: the two-phase aclnn API of MSELossV2, l = (self - target)^2, then none (the
 * tensor), mean (sum / N) or sum, N the element count after broadcasting.
 *
 * Checks, in order: self, target and out not null (161001); then (161002) the dtypes of self,
 * target and out and their promoted dtype are in the platform list ({fp32, fp16, bf16} on
 * DAV_2201, else {fp32, fp16}); reduction is 0 (none), 1 (mean) or 2 (sum); self and target
 * have rank <= 8 and broadcast together; for none out has the broadcast shape, for mean / sum
 * out is 0-dimensional (any rank >= 1, [1] included, is refused).
 *
 * An empty self or target launches nothing: none leaves out alone, mean fills it with NaN and
 * sum with 0 (an l0op::Fill of shape [1], then a ViewCopy into out).
 *
 * Otherwise: promote (PyTorch's rule); make each input contiguous and cast it to the promoted
 * type; if the view shapes differ, BroadcastTo the input that is not already the broadcast
 * shape; run MSELossV2 (its output has self's shape for none and rank 0 otherwise); cast the
 * result to out's dtype and ViewCopy it into out.
 *
 * The public L0 MseLoss launches MSELossV2 for ND / NCL tensors of equal view shapes and
 * formats and the legacy MseLoss otherwise; ascsim's aclTensors are ND and the L2 broadcast
 * makes the shapes equal, so the L0 function here launches MSELossV2 only.
 */
#include "aclnn/aclnn_base.h"
#include "aclnn_kernels/cast.h"
#include "aclnn_kernels/contiguous.h"
#include "level0/broadcast_to.h"
#include "level0/fill.h"
#include "opdev/common_types.h"
#include "opdev/data_type_utils.h"
#include "opdev/make_op_executor.h"
#include "opdev/op_def.h"
#include "opdev/op_executor.h"
#include "opdev/op_log.h"
#include "opdev/platform.h"
#include "opdev/shape_utils.h"

using namespace op;

static const std::initializer_list<DataType> DTYPE_SUPPORT_LIST = {DataType::DT_FLOAT, DataType::DT_FLOAT16};
static const std::initializer_list<DataType> DTYPE_SUPPORT_LIST_WITH_BF16 = {
    DataType::DT_FLOAT, DataType::DT_FLOAT16, DataType::DT_BF16};
static constexpr size_t MAX_DIM_LEN = 8;
static constexpr int64_t REDUCTION_NONE = 0;
static constexpr int64_t REDUCTION_MEAN = 1;
static constexpr int64_t REDUCTION_SUM = 2;
static const char *const REDUCTION_STR[] = {"none", "mean", "sum"};
static constexpr int64_t FILL_LENGTH = 1;

namespace l0op {
OP_TYPE_REGISTER(MSELossV2);

const aclTensor *MseLoss(const aclTensor *self, const aclTensor *target, const char *reduction,
    aclOpExecutor *executor)
{
    aclTensor *out = executor->AllocTensor(self->GetDataType(), self->GetStorageFormat(), self->GetOriginalFormat());
    auto ret = INFER_SHAPE(MSELossV2, OP_INPUT(self, target), OP_OUTPUT(out), OP_ATTR(reduction));
    if (ret != ACLNN_SUCCESS) {
        OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "MSELossV2 InferShape failed.");
        return nullptr;
    }
    ADD_TO_LAUNCHER_LIST_AICORE(MSELossV2, OP_INPUT(self, target), OP_OUTPUT(out), OP_ATTR(reduction));
    return out;
}
}  // namespace l0op

static const std::initializer_list<DataType> &GetDtypeSupportList()
{
    if (GetCurrentPlatformInfo().GetCurNpuArch() == NpuArch::DAV_2201) {
        return DTYPE_SUPPORT_LIST_WITH_BF16;
    }
    return DTYPE_SUPPORT_LIST;
}

static bool CheckNotNull(const aclTensor *self, const aclTensor *target, const aclTensor *out)
{
    if (self == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "self must not be nullptr.");
        return false;
    }
    if (target == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "target must not be nullptr.");
        return false;
    }
    if (out == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "out must not be nullptr.");
        return false;
    }
    return true;
}

static bool CheckDtypeInList(DataType dtype, const char *name)
{
    const std::initializer_list<DataType> &supportList = GetDtypeSupportList();
    if (!CheckType(dtype, supportList)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be in dtype support list %s.", name,
            ToString(dtype).GetString(), ToString(supportList).GetString());
        return false;
    }
    return true;
}

static bool CheckDtypeValid(const aclTensor *self, const aclTensor *target, const aclTensor *out)
{
    DataType promoteType = PromoteType(self->GetDataType(), target->GetDataType());
    return CheckDtypeInList(promoteType, "promoted") && CheckDtypeInList(self->GetDataType(), "self") &&
        CheckDtypeInList(target->GetDataType(), "target") && CheckDtypeInList(out->GetDataType(), "out");
}

static bool CheckReduction(int64_t reduction)
{
    if (reduction < REDUCTION_NONE || reduction > REDUCTION_SUM) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "reduction %ld should be 0 (none), 1 (mean) or 2 (sum).", reduction);
        return false;
    }
    return true;
}

static bool CheckShape(const aclTensor *self, const aclTensor *target, int64_t reduction, const aclTensor *out)
{
    if (self->GetViewShape().GetDimNum() > MAX_DIM_LEN || target->GetViewShape().GetDimNum() > MAX_DIM_LEN) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "self rank %zu and target rank %zu should not be greater than %zu.",
            self->GetViewShape().GetDimNum(), target->GetViewShape().GetDimNum(), MAX_DIM_LEN);
        return false;
    }
    op::Shape broadcastShape;
    if (!BroadcastInferShape(self->GetViewShape(), target->GetViewShape(), broadcastShape)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "self shape %s and target shape %s cannot broadcast.",
            ToString(self->GetViewShape()).GetString(), ToString(target->GetViewShape()).GetString());
        return false;
    }
    if (reduction == REDUCTION_NONE && out->GetViewShape() != broadcastShape) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out shape %s should be the broadcast shape %s.",
            ToString(out->GetViewShape()).GetString(), ToString(broadcastShape).GetString());
        return false;
    }
    if (reduction != REDUCTION_NONE && out->GetViewShape().GetDimNum() != 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out should be 0-dimensional for mean and sum, got shape %s.",
            ToString(out->GetViewShape()).GetString());
        return false;
    }
    return true;
}

static bool CheckParams(const aclTensor *self, const aclTensor *target, int64_t reduction, const aclTensor *out)
{
    if (!CheckDtypeValid(self, target, out)) {
        return false;
    }
    if (!CheckReduction(reduction)) {
        return false;
    }
    return CheckShape(self, target, reduction, out);
}

// mean of nothing is NaN, sum of nothing is 0: an l0op::Fill of shape [1] copied into out.
static aclnnStatus FillEmptyOut(int64_t reduction, aclTensor *out, aclOpExecutor *executor)
{
    float fillValue = 0.0f;
    if (reduction == REDUCTION_MEAN) {
        fillValue = __builtin_nanf("");
    }
    int64_t fillShape[] = {FILL_LENGTH};
    const aclTensor *dims = executor->ConvertToTensor(fillShape, FILL_LENGTH, DataType::DT_INT64);
    aclIntArray *shapeArray = executor->AllocIntArray(fillShape, FILL_LENGTH);
    const aclScalar *valueScalar = executor->AllocScalar(fillValue);
    const aclTensor *valueTensor = executor->ConvertToTensor(valueScalar, out->GetDataType());
    const aclTensor *fillOut = l0op::Fill(dims, valueTensor, shapeArray, executor);
    CHECK_RET(fillOut != nullptr, ACLNN_ERR_INNER_NULLPTR);
    const aclTensor *viewCopyResult = l0op::ViewCopy(fillOut, out, executor);
    CHECK_RET(viewCopyResult != nullptr, ACLNN_ERR_INNER_NULLPTR);
    return ACLNN_SUCCESS;
}

static const aclTensor *BroadcastToShape(const aclTensor *x, const op::Shape &shape, aclOpExecutor *executor)
{
    if (x->GetViewShape() == shape) {
        return x;
    }
    FVector<int64_t> dims;
    for (size_t i = 0; i < shape.GetDimNum(); i++) {
        dims.push_back(shape.GetDim(i));
    }
    aclIntArray *shapeArray = executor->AllocIntArray(dims.data(), dims.size());
    return l0op::BroadcastTo(x, shapeArray, executor);
}

aclnnStatus aclnnMseLossGetWorkspaceSize(const aclTensor *self, const aclTensor *target, int64_t reduction,
    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    CHECK_RET(CheckNotNull(self, target, out), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_RET(CheckParams(self, target, reduction, out), ACLNN_ERR_PARAM_INVALID);
    auto uniqueExecutor = CREATE_EXECUTOR();
    if (self->IsEmpty() || target->IsEmpty()) {
        if (reduction != REDUCTION_NONE) {
            aclnnStatus ret = FillEmptyOut(reduction, out, uniqueExecutor.get());
            CHECK_RET(ret == ACLNN_SUCCESS, ret);
        }
        *workspaceSize = uniqueExecutor->GetWorkspaceSize();
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    DataType promoteType = PromoteType(self->GetDataType(), target->GetDataType());
    const aclTensor *selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
    CHECK_RET(selfContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    const aclTensor *selfCasted = l0op::Cast(selfContiguous, promoteType, uniqueExecutor.get());
    CHECK_RET(selfCasted != nullptr, ACLNN_ERR_INNER_NULLPTR);
    const aclTensor *targetContiguous = l0op::Contiguous(target, uniqueExecutor.get());
    CHECK_RET(targetContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    const aclTensor *targetCasted = l0op::Cast(targetContiguous, promoteType, uniqueExecutor.get());
    CHECK_RET(targetCasted != nullptr, ACLNN_ERR_INNER_NULLPTR);
    if (self->GetViewShape() != target->GetViewShape()) {
        op::Shape broadcastShape;
        BroadcastInferShape(self->GetViewShape(), target->GetViewShape(), broadcastShape);
        selfCasted = BroadcastToShape(selfCasted, broadcastShape, uniqueExecutor.get());
        CHECK_RET(selfCasted != nullptr, ACLNN_ERR_INNER_NULLPTR);
        targetCasted = BroadcastToShape(targetCasted, broadcastShape, uniqueExecutor.get());
        CHECK_RET(targetCasted != nullptr, ACLNN_ERR_INNER_NULLPTR);
    }
    const aclTensor *lossOut = l0op::MseLoss(selfCasted, targetCasted, REDUCTION_STR[reduction], uniqueExecutor.get());
    CHECK_RET(lossOut != nullptr, ACLNN_ERR_INNER_NULLPTR);
    const aclTensor *castOut = l0op::Cast(lossOut, out->GetDataType(), uniqueExecutor.get());
    CHECK_RET(castOut != nullptr, ACLNN_ERR_INNER_NULLPTR);
    const aclTensor *viewCopyResult = l0op::ViewCopy(castOut, out, uniqueExecutor.get());
    CHECK_RET(viewCopyResult != nullptr, ACLNN_ERR_INNER_NULLPTR);
    *workspaceSize = uniqueExecutor->GetWorkspaceSize();
    uniqueExecutor.ReleaseTo(executor);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnMseLoss(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return CommonOpExecutorRun(workspace, workspaceSize, executor, stream);
}
