"""Tiling data of MSELossV2, shared by the host tiling function and the kernel: the public
operator's field order (all uint64 except scale).
  coreNum        blockDim used; the last core is coreNum - 1
  tailElems      N mod (32 / sizeof(T)): the elements after the last whole 32-byte block,
                 handled by the last core only
  bufferNum      buffers per input/output queue (1, or 2 for double buffering)
  scale          fl32(1 / N) for mean (computed in double, rounded once), else 1
  epochs / epochsForLastCore                     full tiles per core
  coreLength                                     elements per core (whole blocks)
  tileLength                                     elements per full tile
  tailTileLength / tailTileLengthForLastCore     elements of the tail tile (whole blocks)
With natural alignment the struct is 80 bytes.
"""

from ascsim.ascendc import *


class MSELossV2TilingData(TilingData):
    _fields_ = (
        ("coreNum", uint64_t),
        ("tailElems", uint64_t),
        ("bufferNum", uint64_t),
        ("scale", float),
        ("epochs", uint64_t),
        ("epochsForLastCore", uint64_t),
        ("coreLength", uint64_t),
        ("tileLength", uint64_t),
        ("tailTileLength", uint64_t),
        ("tailTileLengthForLastCore", uint64_t),
    )
