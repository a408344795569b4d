/**
 * aclnnBinaryCrossEntropyWithLogitsBackward: the two-phase aclnn API of
 * SigmoidCrossEntropyWithLogitsGradV2 (gradient of BCE-with-logits w.r.t. self).
 *
 * Checks, in order: gradOutput, self, target and out not null (161001); then (161002) every
 * tensor given has rank <= 8; every dtype is in the platform list ({fp16, fp32, bf16} where the
 * SoC supports bf16, else {fp16, fp32}) and out's dtype equals target's; self, target and out
 * share one storage format; target and out have self's shape and gradOutput, weight and
 * posWeight broadcast to it (an empty self passes); reduction is 0 (none), 1 (mean) or 2 (sum).
 *
 * Then: an empty self needs no launch (workspace 0). The inputs are promoted with PyTorch's
 * rules (self, target, gradOutput, weight, posWeight) and the result must cast to out's dtype.
 * Each input is made contiguous and cast to the promoted type; a missing weight or posWeight
 * becomes OnesLike(self), so the kernel always runs its both-weights variant; gradOutput,
 * weight and posWeight are broadcast to self's shape here (materialised by BroadcastTo), because
 * the kernel reads every input as a full tensor. The public API skips that step and its kernel
 * then reads past a broadcast input (e.g. the [1]-shaped gradOutput of mean/sum). The result is
 * cast to out's dtype, given out's format and copied into out's view.
 */
#include "aclnn/aclnn_base.h"
#include "aclnn_kernels/cast.h"
#include "aclnn_kernels/contiguous.h"
#include "aclnn_kernels/transdata.h"
#include "level0/broadcast_to.h"
#include "level0/ones_like.h"
#include "opdev/common_types.h"
#include "opdev/data_type_utils.h"
#include "opdev/make_op_executor.h"
#include "opdev/op_def.h"
#include "opdev/op_executor.h"
#include "opdev/op_log.h"
#include "opdev/platform.h"
#include "opdev/shape_utils.h"

using namespace op;

static const std::initializer_list<DataType> ASCEND910_DTYPE_SUPPORT_LIST = {DataType::DT_FLOAT16, DataType::DT_FLOAT};
static const std::initializer_list<DataType> ASCEND910B_DTYPE_SUPPORT_LIST = {
    DataType::DT_FLOAT16, DataType::DT_FLOAT, DataType::DT_BF16};
static constexpr size_t MAX_SUPPORT_DIMS_NUMS = 8;
static constexpr int64_t REDUCTION_NONE = 0;
static constexpr int64_t REDUCTION_SUM = 2;
static const char *const REDUCTION_STR[] = {"none", "mean", "sum"};

namespace l0op {
OP_TYPE_REGISTER(SigmoidCrossEntropyWithLogitsGradV2);

const aclTensor *SigmoidCrossEntropyWithLogitsGradV2(const aclTensor *predict, const aclTensor *target,
    const aclTensor *dout, const aclTensor *weight, const aclTensor *posWeight, const char *reduction,
    aclOpExecutor *executor)
{
    aclTensor *gradient =
        executor->AllocTensor(predict->GetDataType(), predict->GetStorageFormat(), predict->GetOriginalFormat());
    auto ret = INFER_SHAPE(SigmoidCrossEntropyWithLogitsGradV2, OP_INPUT(predict, target, dout, weight, posWeight),
        OP_OUTPUT(gradient), OP_ATTR(reduction));
    if (ret != ACLNN_SUCCESS) {
        OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "SigmoidCrossEntropyWithLogitsGradV2 InferShape failed.");
        return nullptr;
    }
    ADD_TO_LAUNCHER_LIST_AICORE(SigmoidCrossEntropyWithLogitsGradV2,
        OP_INPUT(predict, target, dout, weight, posWeight), OP_OUTPUT(gradient), OP_ATTR(reduction));
    return gradient;
}
}  // namespace l0op

static const std::initializer_list<DataType> &GetDtypeSupportList()
{
    if (GetCurrentPlatformInfo().GetCurNpuArch() == NpuArch::DAV_2201) {
        return ASCEND910B_DTYPE_SUPPORT_LIST;
    }
    return ASCEND910_DTYPE_SUPPORT_LIST;
}

static bool CheckNotNull(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
    const aclTensor *out)
{
    if (gradOutput == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "gradOutput must not be nullptr.");
        return false;
    }
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

static bool CheckTensorDims(const aclTensor *tensor, const char *name)
{
    if (tensor != nullptr && tensor->GetViewShape().GetDimNum() > MAX_SUPPORT_DIMS_NUMS) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s rank %zu should not be greater than %zu.", name,
            tensor->GetViewShape().GetDimNum(), MAX_SUPPORT_DIMS_NUMS);
        return false;
    }
    return true;
}

static bool CheckDims(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
    const aclTensor *weight, const aclTensor *posWeight, const aclTensor *out)
{
    return CheckTensorDims(gradOutput, "gradOutput") && CheckTensorDims(self, "self") &&
        CheckTensorDims(target, "target") && CheckTensorDims(weight, "weight") &&
        CheckTensorDims(posWeight, "posWeight") && CheckTensorDims(out, "out");
}

static bool CheckTensorDtype(const aclTensor *tensor, const char *name)
{
    const std::initializer_list<DataType> &supportList = GetDtypeSupportList();
    if (tensor != nullptr && !CheckType(tensor->GetDataType(), supportList)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be in dtype support list %s.", name,
            ToString(tensor->GetDataType()).GetString(), ToString(supportList).GetString());
        return false;
    }
    return true;
}

static bool CheckDtype(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
    const aclTensor *weight, const aclTensor *posWeight, const aclTensor *out)
{
    if (!(CheckTensorDtype(gradOutput, "gradOutput") && CheckTensorDtype(self, "self") &&
            CheckTensorDtype(target, "target") && CheckTensorDtype(weight, "weight") &&
            CheckTensorDtype(posWeight, "posWeight") && CheckTensorDtype(out, "out"))) {
        return false;
    }
    if (out->GetDataType() != target->GetDataType()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out dtype %s should be the same as target dtype %s.",
            ToString(out->GetDataType()).GetString(), ToString(target->GetDataType()).GetString());
        return false;
    }
    return true;
}

static bool CheckFormat(const aclTensor *self, const aclTensor *target, const aclTensor *out)
{
    if (self->GetStorageFormat() != target->GetStorageFormat() || self->GetStorageFormat() != out->GetStorageFormat()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "self, target and out should have one format, got %s, %s and %s.",
            ToString(self->GetStorageFormat()).GetString(), ToString(target->GetStorageFormat()).GetString(),
            ToString(out->GetStorageFormat()).GetString());
        return false;
    }
    return true;
}

// Whether shape broadcasts to target exactly: aligned at the last dim, each dim 1 or equal.
static bool BroadcastsTo(const op::Shape &shape, const op::Shape &target)
{
    if (shape.GetDimNum() > target.GetDimNum()) {
        return false;
    }
    size_t lead = target.GetDimNum() - shape.GetDimNum();
    for (size_t i = 0; i < shape.GetDimNum(); i++) {
        if (shape.GetDim(i) != 1 && shape.GetDim(i) != target.GetDim(lead + i)) {
            return false;
        }
    }
    return true;
}

static bool CheckBroadcastToSelf(const aclTensor *tensor, const aclTensor *self, const char *name)
{
    if (tensor == nullptr) {
        return true;
    }
    if (!BroadcastsTo(tensor->GetViewShape(), self->GetViewShape())) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s shape %s should broadcast to self shape %s.", name,
            ToString(tensor->GetViewShape()).GetString(), ToString(self->GetViewShape()).GetString());
        return false;
    }
    return true;
}

static bool CheckShape(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
    const aclTensor *weight, const aclTensor *posWeight, const aclTensor *out)
{
    if (self->IsEmpty()) {
        return true;
    }
    if (target->GetViewShape() != self->GetViewShape()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "target shape %s should be the same as self shape %s.",
            ToString(target->GetViewShape()).GetString(), ToString(self->GetViewShape()).GetString());
        return false;
    }
    if (out->GetViewShape() != self->GetViewShape()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out shape %s should be the same as self shape %s.",
            ToString(out->GetViewShape()).GetString(), ToString(self->GetViewShape()).GetString());
        return false;
    }
    return CheckBroadcastToSelf(gradOutput, self, "gradOutput") && CheckBroadcastToSelf(weight, self, "weight") &&
        CheckBroadcastToSelf(posWeight, self, "posWeight");
}

static bool CheckReduction(int64_t reduction)
{
    if (reduction < REDUCTION_NONE || reduction > REDUCTION_SUM) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "reduction %ld should be 0 (none), 1 (mean) or 2 (sum).", reduction);
        return false;
    }
    return true;
}

static bool CheckParams(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
    const aclTensor *weight, const aclTensor *posWeight, int64_t reduction, const aclTensor *out)
{
    if (!CheckDims(gradOutput, self, target, weight, posWeight, out)) {
        return false;
    }
    if (!CheckDtype(gradOutput, self, target, weight, posWeight, out)) {
        return false;
    }
    if (!CheckFormat(self, target, out)) {
        return false;
    }
    if (!CheckShape(gradOutput, self, target, weight, posWeight, out)) {
        return false;
    }
    return CheckReduction(reduction);
}

static DataType PromoteInputsType(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
    const aclTensor *weight, const aclTensor *posWeight)
{
    DataType promoteType = PromoteType(self->GetDataType(), target->GetDataType());
    promoteType = PromoteType(promoteType, gradOutput->GetDataType());
    if (weight != nullptr) {
        promoteType = PromoteType(promoteType, weight->GetDataType());
    }
    if (posWeight != nullptr) {
        promoteType = PromoteType(promoteType, posWeight->GetDataType());
    }
    return promoteType;
}

static bool CheckPromoteType(DataType promoteType, const aclTensor *out)
{
    if (promoteType == DataType::DT_UNDEFINED) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "the input dtypes cannot be promoted to a common dtype.");
        return false;
    }
    if (!CanCast(promoteType, out->GetDataType())) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "promoted dtype %s cannot be cast to out dtype %s.",
            ToString(promoteType).GetString(), ToString(out->GetDataType()).GetString());
        return false;
    }
    return true;
}

static const aclTensor *BroadcastToSelf(const aclTensor *x, const aclTensor *self, aclOpExecutor *executor)
{
    if (x->GetViewShape() == self->GetViewShape()) {
        return x;
    }
    op::Shape selfShape = self->GetViewShape();
    FVector<int64_t> dims;
    for (size_t i = 0; i < selfShape.GetDimNum(); i++) {
        dims.push_back(selfShape.GetDim(i));
    }
    const aclIntArray *shapeArray = executor->AllocIntArray(dims.data(), dims.size());
    return l0op::BroadcastTo(x, shapeArray, executor);
}

static const aclTensor *PrepareInput(const aclTensor *x, const aclTensor *self, DataType promoteType,
    aclOpExecutor *executor)
{
    const aclTensor *contiguous = l0op::Contiguous(x, executor);
    if (contiguous == nullptr) {
        return nullptr;
    }
    const aclTensor *casted = l0op::Cast(contiguous, promoteType, executor);
    if (casted == nullptr) {
        return nullptr;
    }
    return BroadcastToSelf(casted, self, executor);
}

aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(const aclTensor *gradOutput,
    const aclTensor *self, const aclTensor *target, const aclTensor *weightOptional,
    const aclTensor *posWeightOptional, int64_t reduction, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor)
{
    CHECK_RET(CheckNotNull(gradOutput, self, target, out), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_RET(CheckParams(gradOutput, self, target, weightOptional, posWeightOptional, reduction, out),
        ACLNN_ERR_PARAM_INVALID);
    auto uniqueExecutor = CREATE_EXECUTOR();
    if (self->IsEmpty()) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    DataType promoteType = PromoteInputsType(gradOutput, self, target, weightOptional, posWeightOptional);
    CHECK_RET(CheckPromoteType(promoteType, out), ACLNN_ERR_PARAM_INVALID);

    const aclTensor *weight =
        weightOptional != nullptr ? weightOptional : l0op::OnesLike(self, uniqueExecutor.get());
    CHECK_RET(weight != nullptr, ACLNN_ERR_INNER_NULLPTR);
    const aclTensor *posWeight =
        posWeightOptional != nullptr ? posWeightOptional : l0op::OnesLike(self, uniqueExecutor.get());
    CHECK_RET(posWeight != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto selfPrepared = PrepareInput(self, self, promoteType, uniqueExecutor.get());
    CHECK_RET(selfPrepared != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto targetPrepared = PrepareInput(target, self, promoteType, uniqueExecutor.get());
    CHECK_RET(targetPrepared != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto gradOutputPrepared = PrepareInput(gradOutput, self, promoteType, uniqueExecutor.get());
    CHECK_RET(gradOutputPrepared != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto weightPrepared = PrepareInput(weight, self, promoteType, uniqueExecutor.get());
    CHECK_RET(weightPrepared != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto posWeightPrepared = PrepareInput(posWeight, self, promoteType, uniqueExecutor.get());
    CHECK_RET(posWeightPrepared != nullptr, ACLNN_ERR_INNER_NULLPTR);

    auto gradient = l0op::SigmoidCrossEntropyWithLogitsGradV2(selfPrepared, targetPrepared, gradOutputPrepared,
        weightPrepared, posWeightPrepared, REDUCTION_STR[reduction], uniqueExecutor.get());
    CHECK_RET(gradient != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto castOut = l0op::Cast(gradient, out->GetDataType(), uniqueExecutor.get());
    CHECK_RET(castOut != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto reformatOut = l0op::ReFormat(castOut, out->GetStorageFormat());
    CHECK_RET(reformatOut != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto viewCopyResult = l0op::ViewCopy(reformatOut, out, uniqueExecutor.get());
    CHECK_RET(viewCopyResult != nullptr, ACLNN_ERR_INNER_NULLPTR);
    *workspaceSize = uniqueExecutor->GetWorkspaceSize();
    uniqueExecutor.ReleaseTo(executor);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackward(void *workspace, uint64_t workspaceSize,
    aclOpExecutor *executor, aclrtStream stream)
{
    return CommonOpExecutorRun(workspace, workspaceSize, executor, stream);
}
