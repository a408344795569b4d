/**
 * aclnnCrossEntropyLoss: the two-phase aclnn API of CrossEntropyLoss.
 *
 * The real API is generated from the op def (no hand-written op_api), so the order of its checks
 * is not public; ascsim's, in order:
 * 1. input, target, lossOut, logProbOut, zlossOut and lseForZlossOut not null (161001);
 * 2. dtypes (161002): input in {bf16, fp16, fp32}; target int64; weight (if given) fp32; the four
 *    outputs in input's dtype (the op def's dtype combinations);
 * 3. the tiling's checks, run here too so that an empty input (which launches nothing) gets
 *    them (561002): reductionOptional "mean" (also for null), "sum" or "none"; labelSmoothing in
 *    [0, 1]; input rank 2 (N, C), target rank 1 with N elements, weight rank 1 with C;
 * 4. output shapes (161002): lossOut (N) for none, (1) otherwise; logProbOut (N, C).
 * An input with N = 0 launches nothing: log_prob is empty and the loss is PyTorch's (none:
 * empty, mean: NaN, sum: 0). lseSquareScaleForZloss and returnZloss are accepted and ignored,
 * and zlossOut / lseForZlossOut are left as the caller gave them: the A2 operator does not
 * implement zloss (its kernel gets the buffers and never writes them; ascsim passes it empty
 * placeholders). The inputs are made contiguous; loss and log_prob are copied into the
 * caller's views.
 */
#include <cmath>
#include <cstring>

#include "aclnn/aclnn_base.h"
#include "aclnn_kernels/contiguous.h"
#include "level0/fill.h"
#include "opdev/make_op_executor.h"
#include "opdev/op_def.h"
#include "opdev/op_executor.h"
#include "opdev/op_log.h"

using namespace op;

static const std::initializer_list<DataType> INPUT_DTYPE_SUPPORT_LIST = {DataType::DT_BF16, DataType::DT_FLOAT16, DataType::DT_FLOAT};
static constexpr size_t INPUT_DIM_NUM = 2;
static constexpr int64_t LOSS_LENGTH = 1;

namespace l0op {
OP_TYPE_REGISTER(CrossEntropyLoss);

const aclTensor *CrossEntropyLoss(const aclTensor *input, const aclTensor *target, const aclTensor *weight,
    const char *reduction, int64_t ignoreIndex, float labelSmoothing, float lseSquareScaleForZloss, bool returnZloss,
    aclTensor *logProb, aclOpExecutor *executor)
{
    aclTensor *loss = executor->AllocTensor(input->GetDataType(), input->GetStorageFormat(), input->GetOriginalFormat());
    aclTensor *zloss = executor->AllocTensor(op::Shape({0}), input->GetDataType());
    aclTensor *lseForZloss = executor->AllocTensor(op::Shape({0}), input->GetDataType());
    auto ret = INFER_SHAPE(CrossEntropyLoss, OP_INPUT(input, target, weight), OP_OUTPUT(loss, logProb),
        OP_ATTR(reduction, ignoreIndex, labelSmoothing, lseSquareScaleForZloss, returnZloss));
    if (ret != ACLNN_SUCCESS) {
        OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "CrossEntropyLoss InferShape failed.");
        return nullptr;
    }
    ADD_TO_LAUNCHER_LIST_AICORE(CrossEntropyLoss, OP_INPUT(input, target, weight),
        OP_OUTPUT(loss, logProb, zloss, lseForZloss),
        OP_ATTR(reduction, ignoreIndex, labelSmoothing, lseSquareScaleForZloss, returnZloss));
    return loss;
}
}  // namespace l0op

static bool CheckNotNull(const aclTensor *input, const aclTensor *target, const aclTensor *lossOut,
    const aclTensor *logProbOut, const aclTensor *zlossOut, const aclTensor *lseForZlossOut)
{
    if (input == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "input must not be nullptr.");
        return false;
    }
    if (target == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "target must not be nullptr.");
        return false;
    }
    if (lossOut == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "lossOut must not be nullptr.");
        return false;
    }
    if (logProbOut == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "logProbOut must not be nullptr.");
        return false;
    }
    if (zlossOut == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "zlossOut must not be nullptr.");
        return false;
    }
    if (lseForZlossOut == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "lseForZlossOut must not be nullptr.");
        return false;
    }
    return true;
}

static bool CheckOutDtype(const char *name, const aclTensor *out, const aclTensor *input)
{
    if (out->GetDataType() != input->GetDataType()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be the same as input dtype %s.", name,
            ToString(out->GetDataType()).GetString(), ToString(input->GetDataType()).GetString());
        return false;
    }
    return true;
}

static bool CheckDtype(const aclTensor *input, const aclTensor *target, const aclTensor *weight, const aclTensor *lossOut,
    const aclTensor *logProbOut, const aclTensor *zlossOut, const aclTensor *lseForZlossOut)
{
    if (!CheckType(input->GetDataType(), INPUT_DTYPE_SUPPORT_LIST)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "input dtype %s should be in dtype support list %s.",
            ToString(input->GetDataType()).GetString(), ToString(INPUT_DTYPE_SUPPORT_LIST).GetString());
        return false;
    }
    if (target->GetDataType() != DataType::DT_INT64) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "target dtype %s should be DT_INT64.", ToString(target->GetDataType()).GetString());
        return false;
    }
    if (weight != nullptr && weight->GetDataType() != DataType::DT_FLOAT) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "weight dtype %s should be DT_FLOAT.", ToString(weight->GetDataType()).GetString());
        return false;
    }
    if (!CheckOutDtype("lossOut", lossOut, input)) {
        return false;
    }
    if (!CheckOutDtype("logProbOut", logProbOut, input)) {
        return false;
    }
    if (!CheckOutDtype("zlossOut", zlossOut, input)) {
        return false;
    }
    if (!CheckOutDtype("lseForZlossOut", lseForZlossOut, input)) {
        return false;
    }
    return true;
}

static bool CheckAttrAndShape(const aclTensor *input, const aclTensor *target, const aclTensor *weight,
    const char *reduction, double labelSmoothing)
{
    if (strcmp(reduction, "none") != 0 && strcmp(reduction, "mean") != 0 && strcmp(reduction, "sum") != 0) {
        OP_LOGE(ACLNN_ERR_INNER_TILING_ERROR, "reduction %s should be mean, sum or none.", reduction);
        return false;
    }
    if (labelSmoothing < 0.0 || labelSmoothing > 1.0 || std::isnan(labelSmoothing)) {
        OP_LOGE(ACLNN_ERR_INNER_TILING_ERROR, "labelSmoothing %f should be in [0, 1].", labelSmoothing);
        return false;
    }
    if (input->GetViewShape().GetDimNum() != INPUT_DIM_NUM) {
        OP_LOGE(ACLNN_ERR_INNER_TILING_ERROR, "input shape %s should be (N, C).", ToString(input->GetViewShape()).GetString());
        return false;
    }
    if (target->GetViewShape().GetDimNum() != 1 || target->GetViewShape().GetDim(0) != input->GetViewShape().GetDim(0)) {
        OP_LOGE(ACLNN_ERR_INNER_TILING_ERROR, "target shape %s should be (N) with N = %ld.",
            ToString(target->GetViewShape()).GetString(), input->GetViewShape().GetDim(0));
        return false;
    }
    if (weight != nullptr) {
        if (weight->GetViewShape().GetDimNum() != 1 || weight->GetViewShape().GetDim(0) != input->GetViewShape().GetDim(1)) {
            OP_LOGE(ACLNN_ERR_INNER_TILING_ERROR, "weight shape %s should be (C) with C = %ld.",
                ToString(weight->GetViewShape()).GetString(), input->GetViewShape().GetDim(1));
            return false;
        }
    }
    return true;
}

static bool CheckOutShape(const aclTensor *input, const char *reduction, const aclTensor *lossOut, const aclTensor *logProbOut)
{
    op::Shape lossShape = strcmp(reduction, "none") == 0 ? op::Shape({input->GetViewShape().GetDim(0)}) : op::Shape({1});
    if (lossOut->GetViewShape() != lossShape) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "lossOut shape %s should be %s.", ToString(lossOut->GetViewShape()).GetString(),
            ToString(lossShape).GetString());
        return false;
    }
    if (logProbOut->GetViewShape() != input->GetViewShape()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "logProbOut shape %s should be %s.",
            ToString(logProbOut->GetViewShape()).GetString(), ToString(input->GetViewShape()).GetString());
        return false;
    }
    return true;
}

// An empty batch launches nothing: the (1)-shaped loss of mean (NaN) or sum (0) is an
// l0op::Fill copied into lossOut.
static aclnnStatus FillLoss(const aclTensor *lossOut, float value, aclOpExecutor *executor)
{
    int64_t fillShape[] = {LOSS_LENGTH};
    const aclTensor *dims = executor->ConvertToTensor(fillShape, LOSS_LENGTH, DataType::DT_INT64);
    aclIntArray *shapeArray = executor->AllocIntArray(fillShape, LOSS_LENGTH);
    const aclScalar *valueScalar = executor->AllocScalar(value);
    const aclTensor *valueTensor = executor->ConvertToTensor(valueScalar, lossOut->GetDataType());
    const aclTensor *fillOut = l0op::Fill(dims, valueTensor, shapeArray, executor);
    if (fillOut == nullptr) {
        return ACLNN_ERR_INNER_NULLPTR;
    }
    if (l0op::ViewCopy(fillOut, lossOut, executor) == nullptr) {
        return ACLNN_ERR_INNER_NULLPTR;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnCrossEntropyLossGetWorkspaceSize(const aclTensor *input, const aclTensor *target,
    const aclTensor *weightOptional, char *reductionOptional, int64_t ignoreIndex, double labelSmoothing,
    double lseSquareScaleForZloss, bool returnZloss, const aclTensor *lossOut, const aclTensor *logProbOut,
    const aclTensor *zlossOut, const aclTensor *lseForZlossOut, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    CHECK_RET(CheckNotNull(input, target, lossOut, logProbOut, zlossOut, lseForZlossOut), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_RET(CheckDtype(input, target, weightOptional, lossOut, logProbOut, zlossOut, lseForZlossOut), ACLNN_ERR_PARAM_INVALID);
    const char *reduction = reductionOptional == nullptr ? "mean" : reductionOptional;
    CHECK_RET(CheckAttrAndShape(input, target, weightOptional, reduction, static_cast<float>(labelSmoothing)), ACLNN_ERR_INNER_TILING_ERROR);
    CHECK_RET(CheckOutShape(input, reduction, lossOut, logProbOut), ACLNN_ERR_PARAM_INVALID);
    auto uniqueExecutor = CREATE_EXECUTOR();
    if (input->GetViewShape().GetDim(0) == 0) {
        if (strcmp(reduction, "mean") == 0) {
            CHECK_RET(FillLoss(lossOut, std::numeric_limits<float>::quiet_NaN(), uniqueExecutor.get()) == ACLNN_SUCCESS, ACLNN_ERR_INNER_NULLPTR);
        } else if (strcmp(reduction, "sum") == 0) {
            CHECK_RET(FillLoss(lossOut, 0.0, uniqueExecutor.get()) == ACLNN_SUCCESS, ACLNN_ERR_INNER_NULLPTR);
        }
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    auto inputContiguous = l0op::Contiguous(input, uniqueExecutor.get());
    CHECK_RET(inputContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto targetContiguous = l0op::Contiguous(target, uniqueExecutor.get());
    CHECK_RET(targetContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    const aclTensor *weightContiguous = nullptr;
    if (weightOptional != nullptr) {
        weightContiguous = l0op::Contiguous(weightOptional, uniqueExecutor.get());
        CHECK_RET(weightContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    }
    aclTensor *logProb = uniqueExecutor.get()->AllocTensor(input->GetDataType(), input->GetStorageFormat(), input->GetOriginalFormat());
    auto loss = l0op::CrossEntropyLoss(inputContiguous, targetContiguous, weightContiguous, reduction, static_cast<int64_t>(ignoreIndex),
        static_cast<float>(labelSmoothing), static_cast<float>(lseSquareScaleForZloss), static_cast<bool>(returnZloss), logProb,
        uniqueExecutor.get());
    CHECK_RET(loss != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto lossResult = l0op::ViewCopy(loss, lossOut, uniqueExecutor.get());
    CHECK_RET(lossResult != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto logProbResult = l0op::ViewCopy(logProb, logProbOut, uniqueExecutor.get());
    CHECK_RET(logProbResult != nullptr, ACLNN_ERR_INNER_NULLPTR);
    *workspaceSize = uniqueExecutor->GetWorkspaceSize();
    uniqueExecutor.ReleaseTo(executor);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnCrossEntropyLoss(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return CommonOpExecutorRun(workspace, workspaceSize, executor, stream);
}
