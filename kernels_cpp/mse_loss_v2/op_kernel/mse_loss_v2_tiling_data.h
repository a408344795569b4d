/**
 * Tiling data of MSELossV2, shared by the host tiling function and the kernel: the public
 * operator's field order (all uint64 except scale).
 *   coreNum        blockDim used; the last core is coreNum - 1
 *   tailElems      N mod (32 / sizeof(T)): the elements after the last whole 32-byte block,
 *                  handled by the last core only
 *   bufferNum      buffers per input/output queue (1, or 2 for double buffering)
 *   scale          fl32(1 / N) for mean (computed in double, rounded once), else 1
 *   epochs / epochsForLastCore                     full tiles per core
 *   coreLength                                     elements per core (whole blocks)
 *   tileLength                                     elements per full tile
 *   tailTileLength / tailTileLengthForLastCore     elements of the tail tile (whole blocks)
 * With natural alignment the struct is 80 bytes.
 */
#ifndef MSE_LOSS_V2_TILING_DATA_H
#define MSE_LOSS_V2_TILING_DATA_H

#include <cstdint>

struct MSELossV2TilingData {
    uint64_t coreNum;
    uint64_t tailElems;
    uint64_t bufferNum;
    float scale;
    uint64_t epochs;
    uint64_t epochsForLastCore;
    uint64_t coreLength;
    uint64_t tileLength;
    uint64_t tailTileLength;
    uint64_t tailTileLengthForLastCore;
};

#endif  // MSE_LOSS_V2_TILING_DATA_H
