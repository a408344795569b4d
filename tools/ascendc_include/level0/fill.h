/**
 * ascsim: the op_api declarations live in opdev/op_executor.h; this conventional CANN header
 * name brings them in, for the C++ syntax check only.
 */
#ifndef ASCSIM_LEVEL0_FILL_H
#define ASCSIM_LEVEL0_FILL_H

#include "opdev/op_executor.h"

#endif  // ASCSIM_LEVEL0_FILL_H
