"""Everything a kernel gets from `#include "kernel_operator.h"` and `using namespace AscendC;`.

    from ascsim.ascendc import *

Names are AscendC's. C++ template arguments go in square brackets (`SetFlag[HardEvent.MTE2_V]
(EVENT_ID0)`, `buf.Get[float]()`, `TQue[QuePosition.VECIN, 1]()`), and class templates
subclass `Generic[T, ...]` from this module, so that `Kernel[half]()` is an instance whose
methods see `self.T is half`.

Debug aids: `printf`, `DumpTensor` and `ascendc_assert` (C++ `assert`). `kernel_sync` (imported
by name, it has no C++ counterpart) declares a kernel entry's sync mode for the sanitizer:
`@kernel_sync("manual")` for a kernel built with auto_sync = false.
"""

from __future__ import annotations

from typing import Any, TypeVar

from . import instructions as _instructions
from .core import PIPE_ALL, PIPE_MTE2, PIPE_MTE3, PIPE_S, PIPE_V
from .debug import DumpTensor, ascendc_assert, printf
from .dtypes import (
    bfloat16_t,
    float,
    half,
    int8_t,
    int16_t,
    int32_t,
    int64_t,
    sizeof,
    uint8_t,
    uint16_t,
    uint32_t,
    uint64_t,
)
from .memory import GM_ADDR, GlobalTensor, LocalTensor
from .pipe import GetTPipePtr, QuePosition, TBuf, TPipe, TPosition, TQue, TQueBind
from .sync import (
    EVENT_ID0,
    EVENT_ID1,
    EVENT_ID2,
    EVENT_ID3,
    EVENT_ID4,
    EVENT_ID5,
    EVENT_ID6,
    EVENT_ID7,
    HardEvent,
    PipeBarrier,
    SetFlag,
    WaitFlag,
    event_t,
    pipe_t,
)
from .syncmode import kernel_sync  # noqa: F401  (imported by name, not by *)
from .tiling import (
    GET_TILING_DATA,
    KERNEL_TASK_TYPE_DEFAULT,
    KERNEL_TYPE_AIC_ONLY,
    KERNEL_TYPE_AIV_ONLY,
    KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2,
    KERNEL_TYPE_MIX_AIV_1_0,
    REGISTER_TILING_DEFAULT,
    REGISTER_TILING_FOR_TILINGKEY,
    TILING_KEY_IS,
    GetBlockIdx,
    GetBlockNum,
    TilingData,
)

__all__ = [
    "half", "float", "bfloat16_t", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t",
    "uint32_t", "int64_t", "uint64_t", "sizeof",
    "GM_ADDR", "GlobalTensor", "LocalTensor", "TPipe", "TQue", "TBuf", "QuePosition", "TPosition",
    "TQueBind", "GetTPipePtr",
    "HardEvent", "SetFlag", "WaitFlag", "PipeBarrier", "event_t", "pipe_t",
    "EVENT_ID0", "EVENT_ID1", "EVENT_ID2", "EVENT_ID3", "EVENT_ID4", "EVENT_ID5", "EVENT_ID6",
    "EVENT_ID7", "PIPE_S", "PIPE_V", "PIPE_MTE2", "PIPE_MTE3", "PIPE_ALL",
    "GET_TILING_DATA", "TILING_KEY_IS", "GetBlockIdx", "GetBlockNum", "TilingData",
    "KERNEL_TASK_TYPE_DEFAULT", "REGISTER_TILING_DEFAULT", "REGISTER_TILING_FOR_TILINGKEY",
    "KERNEL_TYPE_AIV_ONLY", "KERNEL_TYPE_AIC_ONLY",
    "KERNEL_TYPE_MIX_AIV_1_0", "KERNEL_TYPE_MIX_AIC_1_0", "KERNEL_TYPE_MIX_AIC_1_1",
    "KERNEL_TYPE_MIX_AIC_1_2",
    "Generic", "TypeVar", "T", "DumpTensor", "printf", "ascendc_assert",
]


class _Specialised:
    """Marker base of a class template instantiated with its arguments."""


class Generic:
    """`template <typename T, bool HAS_WEIGHT> class K` is written
    `class K(Generic[T, HAS_WEIGHT])`; `K[half, True]()` makes an instance whose class has the
    attributes `T = half` and `HAS_WEIGHT = True` (cached per argument tuple)."""

    _template_params: tuple[str, ...] = ()

    def __class_getitem__(cls, params: Any) -> Any:
        if not isinstance(params, tuple):
            params = (params,)
        if cls is Generic:
            # The declaration: Generic[T, HAS_WEIGHT] as a base class.
            names = tuple(p.__name__ for p in params)
            return type("Generic[" + ", ".join(names) + "]", (Generic,),
                        {"_template_params": names})
        if len(params) != len(cls._template_params):
            raise TypeError(f"{cls.__name__} takes {len(cls._template_params)} template "
                            f"argument(s) {cls._template_params}, got {len(params)}")
        cache = cls.__dict__.get("_instances")
        if cache is None:
            cache = {}
            cls._instances = cache
        key = tuple(params)
        if key not in cache:
            label = ", ".join(map(repr, params))
            attrs = dict(zip(cls._template_params, params, strict=True))
            cache[key] = type(f"{cls.__name__}<{label}>", (cls, _Specialised), attrs)
        return cache[key]


T = TypeVar("T")

# Every registered instruction (Add, Cast, DataCopy, ...) and its parameter types.
for _name in _instructions.__all__:
    globals()[_name] = getattr(_instructions, _name)

__all__ += _instructions.__all__
