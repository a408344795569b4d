/**
 * ascsim's declaration of `gert::Shape` and `gert::StorageShape`, for the C++ syntax check only.
 */
#ifndef ASCSIM_EXE_GRAPH_RUNTIME_SHAPE_H
#define ASCSIM_EXE_GRAPH_RUNTIME_SHAPE_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace gert {
class Shape {
public:
    Shape();
    Shape(std::initializer_list<int64_t> dims);
    size_t GetDimNum() const;
    int64_t GetDim(size_t index) const;
    void SetDimNum(size_t dimNum);
    Shape &SetDim(size_t index, int64_t value);
    Shape &AppendDim(int64_t value);
    int64_t GetShapeSize() const;
    bool operator==(const Shape &other) const;
    bool operator!=(const Shape &other) const;
};

class StorageShape {
public:
    StorageShape();
    const Shape &GetOriginShape() const;
    const Shape &GetStorageShape() const;
    Shape &MutableOriginShape();
    Shape &MutableStorageShape();
};
}  // namespace gert

#endif  // ASCSIM_EXE_GRAPH_RUNTIME_SHAPE_H
