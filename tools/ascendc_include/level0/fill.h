/**
 * ascsim: l0op::Fill, ascsim's L0 building block that sets every element of a tensor (any
 * strides) to a value in phase two (ascsim.aclnn l0op.Fill), for the C++ syntax check only.
 */
#ifndef ASCSIM_LEVEL0_FILL_H
#define ASCSIM_LEVEL0_FILL_H

#include "opdev/op_executor.h"

namespace l0op {
const aclTensor *Fill(const aclTensor *x, float value, aclOpExecutor *executor);
}  // namespace l0op

#endif  // ASCSIM_LEVEL0_FILL_H
