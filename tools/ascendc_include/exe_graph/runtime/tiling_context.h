/**
 * ascsim's declaration of `gert::TilingContext` and what it hands out (tensor descriptors,
 * runtime attributes, platform info), for the C++ syntax check only.
 */
#ifndef ASCSIM_EXE_GRAPH_RUNTIME_TILING_CONTEXT_H
#define ASCSIM_EXE_GRAPH_RUNTIME_TILING_CONTEXT_H

#include <cstddef>
#include <cstdint>

#include "exe_graph/runtime/shape.h"
#include "graph/types.h"

namespace fe {
class PlatFormInfos;
}  // namespace fe

namespace gert {
class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const;
    ge::Format GetOriginFormat() const;
    ge::Format GetStorageFormat() const;
};

class RuntimeAttrs {
public:
    template <typename T>
    const T *GetAttrPointer(size_t index) const;
    const char *GetStr(size_t index) const;
    const int64_t *GetInt(size_t index) const;
    const float *GetFloat(size_t index) const;
    size_t GetAttrNum() const;
};

class Tensor {
public:
    const StorageShape &GetShape() const;
    ge::DataType GetDataType() const;
};

class TilingContext {
public:
    const char *GetNodeName() const;
    const char *GetNodeType() const;
    const StorageShape *GetInputShape(size_t index) const;
    const StorageShape *GetOptionalInputShape(size_t index) const;
    const CompileTimeTensorDesc *GetInputDesc(size_t index) const;
    const CompileTimeTensorDesc *GetOptionalInputDesc(size_t index) const;
    const Tensor *GetInputTensor(size_t index) const;
    const Tensor *GetOptionalInputTensor(size_t index) const;
    const StorageShape *GetOutputShape(size_t index) const;
    const CompileTimeTensorDesc *GetOutputDesc(size_t index) const;
    const RuntimeAttrs *GetAttrs() const;
    fe::PlatFormInfos *GetPlatformInfo() const;
    ge::graphStatus SetBlockDim(uint32_t blockDim);
    uint32_t GetBlockDim() const;
    ge::graphStatus SetTilingKey(uint64_t tilingKey);
    uint64_t GetTilingKey() const;
    ge::graphStatus SetScheduleMode(uint32_t scheduleMode);
    size_t *GetWorkspaceSizes(size_t workspaceCount);
    template <typename T>
    T *GetTilingData();
};
}  // namespace gert

#endif  // ASCSIM_EXE_GRAPH_RUNTIME_TILING_CONTEXT_H
