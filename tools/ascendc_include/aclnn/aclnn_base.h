/**
 * ascsim's declaration of the aclnn base types and return codes (values as in ascsim/errors.py
 * and the aclnn return-code table), for the C++ syntax check only.
 */
#ifndef ASCSIM_ACLNN_ACLNN_BASE_H
#define ASCSIM_ACLNN_ACLNN_BASE_H

#include <cstdint>

class aclTensor;
class aclOpExecutor;
using aclrtStream = void *;
using aclnnStatus = int32_t;

constexpr aclnnStatus ACLNN_SUCCESS = 0;
constexpr aclnnStatus ACLNN_ERR_PARAM_NULLPTR = 161001;
constexpr aclnnStatus ACLNN_ERR_PARAM_INVALID = 161002;
constexpr aclnnStatus ACLNN_ERR_RUNTIME_ERROR = 361001;
constexpr aclnnStatus ACLNN_ERR_INNER = 561000;
constexpr aclnnStatus ACLNN_ERR_INNER_INFERSHAPE_ERROR = 561001;
constexpr aclnnStatus ACLNN_ERR_INNER_TILING_ERROR = 561002;
constexpr aclnnStatus ACLNN_ERR_INNER_FIND_KERNEL_ERROR = 561003;
constexpr aclnnStatus ACLNN_ERR_INNER_CREATE_EXECUTOR = 561101;
constexpr aclnnStatus ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR = 561102;
constexpr aclnnStatus ACLNN_ERR_INNER_NULLPTR = 561103;

#endif  // ASCSIM_ACLNN_ACLNN_BASE_H
