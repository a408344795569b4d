/**
 * ascsim's declaration of the op implementation registry (`IMPL_OP_OPTILING`,
 * `IMPL_OP_INFERSHAPE`) and the gert contexts it takes, for the C++ syntax check only.
 */
#ifndef ASCSIM_REGISTER_OP_IMPL_REGISTRY_H
#define ASCSIM_REGISTER_OP_IMPL_REGISTRY_H

#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/shape.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/ge_error_codes.h"
#include "graph/types.h"

namespace gert {
using TilingKernelFunc = ge::graphStatus (*)(TilingContext *);
using InferShapeKernelFunc = ge::graphStatus (*)(InferShapeContext *);
using InferDataTypeKernelFunc = ge::graphStatus (*)(InferDataTypeContext *);

class OpImplRegisterV2 {
public:
    explicit OpImplRegisterV2(const char *opType);
    OpImplRegisterV2 &Tiling(TilingKernelFunc tilingFunc);
    OpImplRegisterV2 &InferShape(InferShapeKernelFunc inferShapeFunc);
    OpImplRegisterV2 &InferDataType(InferDataTypeKernelFunc inferDataTypeFunc);
};
}  // namespace gert

#define ASCSIM_CONCAT_INNER(A, B) A##B
#define ASCSIM_CONCAT(A, B) ASCSIM_CONCAT_INNER(A, B)

// `IMPL_OP_OPTILING(LogitGrad).Tiling(fn);` registers for the op type "LogitGrad".
#define IMPL_OP(OP_TYPE) \
    static ::gert::OpImplRegisterV2 ASCSIM_CONCAT(g_ascsimOpImpl_, __COUNTER__) = ::gert::OpImplRegisterV2(#OP_TYPE)
#define IMPL_OP_OPTILING(OP_TYPE) IMPL_OP(OP_TYPE)
#define IMPL_OP_INFERSHAPE(OP_TYPE) IMPL_OP(OP_TYPE)

#endif  // ASCSIM_REGISTER_OP_IMPL_REGISTRY_H
