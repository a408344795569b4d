"""Tiling data of LogitGrad, shared by the host tiling function and the kernel.
Layout with natural alignment: elementNum at 0, eps at 8, needCoreNum at 16; 24 bytes.
"""

from ascsim.ascendc import *


class LogitGradTilingData(TilingData):
    _fields_ = (
        ("elementNum", int64_t),
        ("eps", float),
        ("needCoreNum", uint64_t),
    )
