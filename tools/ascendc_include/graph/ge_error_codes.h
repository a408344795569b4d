/**
 * ascsim's declaration of `ge::graphStatus` and its two values, for the C++ syntax check only.
 */
#ifndef ASCSIM_GRAPH_GE_ERROR_CODES_H
#define ASCSIM_GRAPH_GE_ERROR_CODES_H

#include <cstdint>

namespace ge {
using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
}  // namespace ge

#endif  // ASCSIM_GRAPH_GE_ERROR_CODES_H
