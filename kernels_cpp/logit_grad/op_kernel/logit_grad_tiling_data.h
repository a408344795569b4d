/**
 * Tiling data of LogitGrad, shared by the host tiling function and the kernel.
 * Layout with natural alignment: elementNum at 0, eps at 8, needCoreNum at 16; 24 bytes.
 */
#ifndef LOGIT_GRAD_TILING_DATA_H
#define LOGIT_GRAD_TILING_DATA_H

#include <cstdint>

struct LogitGradTilingData {
    int64_t elementNum;
    float eps;
    uint64_t needCoreNum;
};

#endif  // LOGIT_GRAD_TILING_DATA_H
