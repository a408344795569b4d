/**
 * ascsim's declaration of the op_api building blocks (ascsim/aclnn.py): tensors, the executor,
 * the L0 launch macros, checks and logging, for the C++ syntax check only. Every opdev/ and
 * aclnn_kernels/ header includes this one, so a source may include any of them.
 *
 * Macros that CANN defines with a hidden use of the enclosing function's `executor`
 * (INFER_SHAPE, ADD_TO_LAUNCHER_LIST_AICORE) name it here too, so the check catches its absence.
 */
#ifndef ASCSIM_OPDEV_OP_EXECUTOR_H
#define ASCSIM_OPDEV_OP_EXECUTOR_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "aclnn/aclnn_base.h"
#include "exe_graph/runtime/shape.h"
#include "graph/types.h"

namespace op {
using DataType = ge::DataType;
using Format = ge::Format;
using Shape = gert::Shape;

class AscendString {
public:
    const char *GetString() const;
};

template <typename T>
class FVector {
public:
    FVector();
    FVector(std::initializer_list<T> values);
    void push_back(const T &value);
    T *data();
    const T *data() const;
    size_t size() const;
    bool empty() const;
    T &operator[](size_t index);
    const T &operator[](size_t index) const;
};

enum class NpuArch { DAV_2201 = 2201, DAV_3510 = 3510, DAV_RESV };
enum class SocVersion { ASCEND910, ASCEND910B, ASCEND910_93, ASCEND950, RESERVED_VERSION };

class PlatformInfo {
public:
    NpuArch GetCurNpuArch() const;
    SocVersion GetSocVersion() const;
};
const PlatformInfo &GetCurrentPlatformInfo();

AscendString ToString(DataType dataType);
AscendString ToString(Format format);
AscendString ToString(const Shape &shape);
AscendString ToString(const std::initializer_list<DataType> &dataTypes);
bool CheckType(DataType dataType, const std::initializer_list<DataType> &supported);
DataType PromoteType(DataType a, DataType b);
bool CanCast(DataType from, DataType to);
bool BroadcastInferShape(const Shape &a, const Shape &b, Shape &broadcastShape);

namespace internal {
struct OpArgs {};
template <typename... Args>
OpArgs OpInput(const Args &...tensors);
template <typename... Args>
OpArgs OpOutput(const Args &...tensors);
template <typename... Args>
OpArgs OpAttr(const Args &...values);
template <typename... Args>
aclnnStatus InferShape(const char *opType, aclOpExecutor *executor, const Args &...args);
template <typename... Args>
aclnnStatus AddToLauncherListAiCore(const char *opType, aclOpExecutor *executor, const Args &...args);
struct OpTypeRegistration {
    explicit OpTypeRegistration(const char *opType);
};
void LogError(aclnnStatus code, const char *format, ...) __attribute__((format(printf, 2, 3)));
}  // namespace internal
}  // namespace op

class aclIntArray {
public:
    uint64_t Size() const;
};

class aclTensor {
public:
    op::DataType GetDataType() const;
    op::Format GetStorageFormat() const;
    op::Format GetOriginalFormat() const;
    op::Format GetViewFormat() const;
    const op::Shape &GetViewShape() const;
    const op::Shape &GetStorageShape() const;
    bool IsEmpty() const;
    int64_t Numel() const;
    bool IsContiguous() const;
};

class aclScalar {
public:
    template <typename T>
    T ToValue() const;
};

class aclOpExecutor {
public:
    aclTensor *AllocTensor(const op::Shape &shape, op::DataType dataType, op::Format format = ge::FORMAT_ND);
    aclTensor *AllocTensor(op::DataType dataType, op::Format storageFormat, op::Format originFormat);
    uint64_t GetWorkspaceSize();
    aclIntArray *AllocIntArray(const int64_t *value, uint64_t size);
    aclScalar *AllocScalar(float value);
    const aclTensor *ConvertToTensor(const int64_t *value, uint64_t size, op::DataType dataType);
    const aclTensor *ConvertToTensor(const aclScalar *value, op::DataType dataType);
};

class UniqueExecutor {
public:
    aclOpExecutor *get() const;
    aclOpExecutor *operator->() const;
    void ReleaseTo(aclOpExecutor **executor);
};

namespace op::internal {
UniqueExecutor CreateExecutor();
}  // namespace op::internal

aclnnStatus CommonOpExecutorRun(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                aclrtStream stream);

namespace l0op {
const aclTensor *Contiguous(const aclTensor *x, aclOpExecutor *executor);
const aclTensor *ViewCopy(const aclTensor *x, const aclTensor *y, aclOpExecutor *executor);
const aclTensor *Cast(const aclTensor *x, op::DataType dataType, aclOpExecutor *executor);
const aclTensor *BroadcastTo(const aclTensor *x, const aclIntArray *shape, aclOpExecutor *executor);
const aclTensor *OnesLike(const aclTensor *x, aclOpExecutor *executor);
const aclTensor *ReFormat(const aclTensor *x, op::Format format, aclOpExecutor *executor = nullptr);
const aclTensor *Fill(const aclTensor *dims, const aclTensor *value, const aclIntArray *outShape,
                      aclOpExecutor *executor);
}  // namespace l0op

#ifndef ASCSIM_CONCAT
#define ASCSIM_CONCAT_INNER(A, B) A##B
#define ASCSIM_CONCAT(A, B) ASCSIM_CONCAT_INNER(A, B)
#endif

#define OP_INPUT(...) ::op::internal::OpInput(__VA_ARGS__)
#define OP_OUTPUT(...) ::op::internal::OpOutput(__VA_ARGS__)
#define OP_ATTR(...) ::op::internal::OpAttr(__VA_ARGS__)
#define INFER_SHAPE(OP_TYPE, ...) ::op::internal::InferShape(#OP_TYPE, executor, __VA_ARGS__)
#define ADD_TO_LAUNCHER_LIST_AICORE(OP_TYPE, ...) \
    ::op::internal::AddToLauncherListAiCore(#OP_TYPE, executor, __VA_ARGS__)
#define OP_TYPE_REGISTER(OP_TYPE) \
    static const ::op::internal::OpTypeRegistration ASCSIM_CONCAT(g_ascsimOpType_, __COUNTER__)(#OP_TYPE)
#define CREATE_EXECUTOR() ::op::internal::CreateExecutor()
#define OP_LOGE(...) ::op::internal::LogError(__VA_ARGS__)
// C++ returns the code; the Python twin raises AclnnError with it.
#define CHECK_RET(COND, RET) \
    do {                     \
        if (!(COND)) {       \
            return RET;      \
        }                    \
    } while (false)

#endif  // ASCSIM_OPDEV_OP_EXECUTOR_H
