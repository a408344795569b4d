"""Tiling-data structs and the kernel-side macros that read them.

A tiling struct mirrors its C++ twin field by field: `_fields_` lists (name, AscendC type) in
declaration order, and the byte layout follows C's natural alignment, so `to_bytes()` is what
the host would copy to the device and `from_bytes()` what `GET_TILING_DATA` reads back (floats
round-trip through float32, integers wrap to their width).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .core import current_core
from .dtypes import DType
from .errors import ParameterError
from .faults import fault

__all__ = ["TilingData", "GET_TILING_DATA", "TILING_KEY_IS", "GetBlockIdx", "GetBlockNum",
           "KERNEL_TASK_TYPE_DEFAULT", "KERNEL_TYPE_AIV_ONLY", "KERNEL_TYPE_AIC_ONLY",
           "KERNEL_TYPE_MIX_AIV_1_0", "KERNEL_TYPE_MIX_AIC_1_0", "KERNEL_TYPE_MIX_AIC_1_1",
           "KERNEL_TYPE_MIX_AIC_1_2"]


class TilingData:
    """Base of tiling structs: subclasses set `_fields_ = (("name", dtype), ...)`."""

    _fields_: ClassVar[tuple[tuple[str, DType], ...]] = ()
    SIZEOF: ClassVar[int] = 0
    _layout: ClassVar[tuple[tuple[str, DType, int], ...]] = ()

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        offset, align, layout = 0, 1, []
        for name, dtype in cls._fields_:
            offset = (offset + dtype.size - 1) // dtype.size * dtype.size
            layout.append((name, dtype, offset))
            offset += dtype.size
            align = max(align, dtype.size)
        cls._layout = tuple(layout)
        cls.SIZEOF = (offset + align - 1) // align * align

    def __init__(self, **values: Any) -> None:
        for name, dtype in self._fields_:
            setattr(self, name, dtype(0))
        for name, value in values.items():
            setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        for field, dtype in self._fields_:
            if field == name:
                value = dtype(value)
                object.__setattr__(self, name, value if dtype.is_float else int(value))
                return
        raise AttributeError(f"{type(self).__name__} has no field {name!r}")

    def to_bytes(self) -> np.ndarray:
        raw = np.zeros(self.SIZEOF, dtype=np.uint8)
        for name, dtype, offset in self._layout:
            value = np.array([getattr(self, name)], dtype=dtype.numpy)
            raw[offset:offset + dtype.size] = value.view(np.uint8)
        return raw

    @classmethod
    def from_bytes(cls, raw: np.ndarray) -> TilingData:
        if raw.size < cls.SIZEOF:
            raise ParameterError(f"{cls.__name__} needs {cls.SIZEOF} bytes of tiling data, "
                                 f"got {raw.size}")
        obj = cls()
        for name, dtype, offset in cls._layout:
            value = raw[offset:offset + dtype.size].view(dtype.numpy)[0]
            setattr(obj, name, value)
        return obj

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name, _ in self._fields_}

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items())
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.as_dict() == other.as_dict()


def GET_TILING_DATA(tiling: Any) -> TilingData:
    """`GET_TILING_DATA(tilingData, tiling)` in C++; here `tilingData = GET_TILING_DATA(tiling)`."""
    struct = getattr(tiling, "struct", None)
    if struct is None:
        raise ParameterError("GET_TILING_DATA: the kernel's tiling argument carries no tiling "
                             "struct; pass tiling=<TilingData> to ascsim.launch")
    return struct.from_bytes(tiling.data)


def TILING_KEY_IS(key: int) -> bool:
    return current_core().tiling_key == key


def GetBlockIdx() -> int:
    return current_core().block_idx


def GetBlockNum() -> int:
    return current_core().block_num


# The kernel types of `KERNEL_TASK_TYPE_DEFAULT` (CANN's KernelMetaType, in its order).
KERNEL_TYPE_AIV_ONLY = 0
KERNEL_TYPE_AIC_ONLY = 1
KERNEL_TYPE_MIX_AIV_1_0 = 2
KERNEL_TYPE_MIX_AIC_1_0 = 3
KERNEL_TYPE_MIX_AIC_1_1 = 4
KERNEL_TYPE_MIX_AIC_1_2 = 5
_AIV_TYPES = (KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_MIX_AIV_1_0)


def KERNEL_TASK_TYPE_DEFAULT(kernelType: int) -> None:  # noqa: N802, N803 - AscendC names
    """`KERNEL_TASK_TYPE_DEFAULT(type)`: the kernel type the binary is built as. A vector
    kernel that calls the hard SyncAll declares KERNEL_TYPE_MIX_AIV_1_0, the docs' mix(0,1).
    ascsim runs AIV cores only, so the types with AI Cube work are refused; the declared type
    is kept on the core (`kernel_type`) for the analyses."""
    core = current_core()
    if kernelType not in _AIV_TYPES:
        fault(core, ParameterError(
            f"KERNEL_TASK_TYPE_DEFAULT({kernelType}): ascsim launches AIV cores only; the "
            "vector kernel types are KERNEL_TYPE_AIV_ONLY and KERNEL_TYPE_MIX_AIV_1_0"))
        return
    core.kernel_type = int(kernelType)
