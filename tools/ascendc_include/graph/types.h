/**
 * ascsim's declaration of `ge::DataType` and `ge::Format` (values as in ascsim/host.py), for the
 * C++ syntax check only.
 */
#ifndef ASCSIM_GRAPH_TYPES_H
#define ASCSIM_GRAPH_TYPES_H

#include <cstdint>

#include "graph/ge_error_codes.h"

namespace ge {
enum DataType {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT32 = 8,
    DT_INT64 = 9,
    DT_UINT64 = 10,
    DT_DOUBLE = 11,
    DT_BOOL = 12,
    DT_COMPLEX64 = 16,
    DT_COMPLEX128 = 17,
    DT_BF16 = 27,
    DT_UNDEFINED = 28,
};

enum Format {
    FORMAT_NCHW = 0,
    FORMAT_NHWC = 1,
    FORMAT_ND = 2,
    FORMAT_NC1HWC0 = 3,
    FORMAT_FRACTAL_Z = 4,
    FORMAT_NCDHW = 30,
};
}  // namespace ge

#endif  // ASCSIM_GRAPH_TYPES_H
