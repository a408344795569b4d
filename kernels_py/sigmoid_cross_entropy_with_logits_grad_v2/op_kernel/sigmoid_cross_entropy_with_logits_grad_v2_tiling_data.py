"""Tiling data of SigmoidCrossEntropyWithLogitsGradV2, shared by the host tiling function and the
kernel.

The first 80 bytes are the public operator's layout, field for field: eight uint64 counts at
0..56, globalScale at 64, the three uint32 flags at 68, 72 and 76. ascsim appends two fields
(a documented deviation):
  totalDataNum (offset 80): the element count N, so that the last core stops exactly at N
                            (the public split counts whole 32-byte blocks and runs past it);
  bufferNum    (offset 88): buffers per TQue, 1 (the public BUFFER_NUM) or 2 (double buffering).
With natural alignment the struct is 96 bytes.
"""

from ascsim.ascendc import *


class SigmoidCrossEntropyWithLogitsGradV2TilingData(TilingData):
    _fields_ = (
        ("smallCoreDataNum", uint64_t),
        ("bigCoreDataNum", uint64_t),
        ("finalBigTileNum", uint64_t),
        ("finalSmallTileNum", uint64_t),
        ("tileDataNum", uint64_t),
        ("smallTailDataNum", uint64_t),
        ("bigTailDataNum", uint64_t),
        ("tailBlockNum", uint64_t),
        ("globalScale", float),
        ("has_weight", uint32_t),
        ("has_pos_weight", uint32_t),
        ("fp32_lite_mode", uint32_t),
        ("totalDataNum", uint64_t),
        ("bufferNum", uint32_t),
    )
