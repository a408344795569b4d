"""Tiling data of CrossEntropyLoss, shared by the host tiling function and the kernel.

The first fields are the public operator's CrossEntropyLossTilingData in host order (uint64
counts, then ignoreIndex int64, labelSmoothing float, defaultWeight uint32). ascsim appends one
field (a documented deviation):
  probOutBufByte: the bytes of probOutBuf, max(inputUbByte, the per-row loss vector of a core
                  in T), so that the `none` loss of a core with more rows than a chunk holds
                  fits (the public buffer is inputUbByte and the narrowing Cast runs past it).
"""

from ascsim.ascendc import *


class CrossEntropyLossTilingData(TilingData):
    _fields_ = (
        ("targetNum", uint64_t),
        ("frontCoreNum", uint64_t),
        ("frontBatchNum", uint64_t),
        ("tailCoreNum", uint64_t),
        ("tailBatchNum", uint64_t),
        ("inputUbSize", uint64_t),
        ("castTmpBufByte", uint64_t),
        ("lnTmpBufSize", uint64_t),
        ("weightTmpBufSize", uint64_t),
        ("weight4SmoothingBufSize", uint64_t),
        ("totalTmpBufByte", uint64_t),
        ("ubLoopNum", uint64_t),
        ("ubTailNum", uint64_t),
        ("vecLoopNum", uint64_t),
        ("vecTailNum", uint64_t),
        ("tailVecLoopNum", uint64_t),
        ("tailVecTailNum", uint64_t),
        ("reduction", uint64_t),
        ("ignoreIndex", int64_t),
        ("labelSmoothing", float),
        ("defaultWeight", uint32_t),
        ("probOutBufByte", uint64_t),
    )
