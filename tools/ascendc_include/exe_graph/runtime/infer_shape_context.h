/**
 * ascsim's declaration of `gert::InferShapeContext` and `gert::InferDataTypeContext`, for the
 * C++ syntax check only.
 */
#ifndef ASCSIM_EXE_GRAPH_RUNTIME_INFER_SHAPE_CONTEXT_H
#define ASCSIM_EXE_GRAPH_RUNTIME_INFER_SHAPE_CONTEXT_H

#include <cstddef>

#include "exe_graph/runtime/tiling_context.h"

namespace gert {
class InferShapeContext {
public:
    const char *GetNodeName() const;
    const char *GetNodeType() const;
    const Shape *GetInputShape(size_t index) const;
    const Shape *GetOptionalInputShape(size_t index) const;
    const CompileTimeTensorDesc *GetInputDesc(size_t index) const;
    const Tensor *GetInputTensor(size_t index) const;
    Shape *GetOutputShape(size_t index);
    const RuntimeAttrs *GetAttrs() const;
};

class InferDataTypeContext {
public:
    const char *GetNodeName() const;
    ge::DataType GetInputDataType(size_t index) const;
    ge::DataType GetOutputDataType(size_t index) const;
    ge::graphStatus SetOutputDataType(size_t index, ge::DataType dataType);
    const RuntimeAttrs *GetAttrs() const;
};
}  // namespace gert

#endif  // ASCSIM_EXE_GRAPH_RUNTIME_INFER_SHAPE_CONTEXT_H
