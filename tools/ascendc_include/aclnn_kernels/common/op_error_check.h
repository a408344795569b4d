/**
 * ascsim: the op_api declarations live in opdev/op_executor.h; this conventional CANN header
 * name brings them in, for the C++ syntax check only.
 */
#ifndef ASCSIM_ACLNN_KERNELS_COMMON_OP_ERROR_CHECK_H
#define ASCSIM_ACLNN_KERNELS_COMMON_OP_ERROR_CHECK_H

#include "opdev/op_executor.h"

#endif  // ASCSIM_ACLNN_KERNELS_COMMON_OP_ERROR_CHECK_H
