"""Tiling-data structs and the kernel-side macros that read them.

A tiling struct mirrors its C++ twin field by field: `_fields_` lists (name, AscendC type) in
declaration order, and the byte layout follows C's natural alignment, so `to_bytes()` is what
the host would copy to the device and `from_bytes()` what `GET_TILING_DATA` reads back (floats
round-trip through float32, integers wrap to their width).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import numpy as np

from .core import current_core
from .dtypes import DType
from .errors import ParameterError
from .faults import fault

__all__ = ["TilingData", "GET_TILING_DATA", "TILING_KEY_IS", "GetBlockIdx", "GetBlockNum",
           "REGISTER_TILING_DEFAULT", "REGISTER_TILING_FOR_TILINGKEY",
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
        # Every core of a launch reads the same bytes: decode them once, then copy the fields.
        key = (cls, raw[:cls.SIZEOF].tobytes())
        fields = _DECODED.get(key)
        if fields is None:
            obj = cls()
            for name, dtype, offset in cls._layout:
                value = raw[offset:offset + dtype.size].view(dtype.numpy)[0]
                setattr(obj, name, value)
            if len(_DECODED) >= _DECODED_MAX:
                _DECODED.clear()
            fields = _DECODED[key] = dict(obj.__dict__)
        obj = object.__new__(cls)
        obj.__dict__.update(fields)  # the values are immutable scalars
        return obj

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name, _ in self._fields_}

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items())
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.as_dict() == other.as_dict()


# (struct, its bytes) -> its fields, as TilingData.from_bytes decodes them
_DECODED: dict[tuple[type, bytes], dict[str, Any]] = {}
_DECODED_MAX = 256


def _registrable(macro: str, struct: Any) -> bool:
    if isinstance(struct, type) and issubclass(struct, TilingData):
        return True
    fault(current_core(), ParameterError(f"{macro}: {struct!r} is not a tiling struct (a "
                                         "TilingData subclass)"))
    return False


def REGISTER_TILING_DEFAULT(struct: type[TilingData]) -> None:  # noqa: N802 - AscendC name
    """`REGISTER_TILING_DEFAULT(Struct)`: the plain C++ struct the kernel's tiling is (the
    build records its size; no runtime code). ascsim keeps it on the core, and GET_TILING_DATA
    checks that the launch's tiling is that struct. The C++ declaration header requires it
    before GET_TILING_DATA; a Python kernel may leave it out."""
    if _registrable("REGISTER_TILING_DEFAULT", struct):
        core = current_core()
        if core.tiling_struct is None or core.tiling_struct[0] == "default":
            core.tiling_struct = ("default", struct)


def REGISTER_TILING_FOR_TILINGKEY(condition: str, struct: type[TilingData]) -> None:  # noqa: N802
    """`REGISTER_TILING_FOR_TILINGKEY("TILING_KEY_VAR == 3", Struct)`: the struct of the keys
    the C condition on TILING_KEY_VAR selects (==, !=, <, <=, >, >=, &&, ||, !, parentheses,
    integers). It needs REGISTER_TILING_DEFAULT first; when the launch's key matches, the
    condition's struct replaces the default for GET_TILING_DATA's check."""
    core = current_core()
    if core.tiling_struct is None:
        fault(core, ParameterError("REGISTER_TILING_FOR_TILINGKEY needs REGISTER_TILING_DEFAULT "
                                   "first"))
        return
    if not _registrable("REGISTER_TILING_FOR_TILINGKEY", struct):
        return
    if _key_matches(condition, core.tiling_key):
        core.tiling_struct = (condition, struct)


def _key_matches(condition: str, key: int | None) -> bool:
    """The C condition on TILING_KEY_VAR, evaluated for `key` (None: no key, no match)."""
    text = (condition.replace("&&", " and ").replace("||", " or ").replace("!=", " <> ")
            .replace("!", " not ").replace(" <> ", " != "))
    if key is None or not re.fullmatch(r"[\sA-Z_0-9()=<>!andort]*", text):
        return False
    try:
        return bool(eval(text, {"__builtins__": {}}, {"TILING_KEY_VAR": int(key)}))  # noqa: S307
    except SyntaxError:
        fault(current_core(), ParameterError(f"REGISTER_TILING_FOR_TILINGKEY: cannot read the "
                                             f"condition {condition!r}"))
        return False


def GET_TILING_DATA(tiling: Any) -> TilingData:
    """`GET_TILING_DATA(tilingData, tiling)` in C++; here `tilingData = GET_TILING_DATA(tiling)`."""
    struct = getattr(tiling, "struct", None)
    if struct is None:
        raise ParameterError("GET_TILING_DATA: the kernel's tiling argument carries no tiling "
                             "struct; pass tiling=<TilingData> to ascsim.launch")
    core = current_core()
    if core.tiling_struct is not None and core.tiling_struct[1] is not struct:
        why, registered = core.tiling_struct
        fault(core, ParameterError(
            f"GET_TILING_DATA: the kernel registered {registered.__name__} ("
            f"{'REGISTER_TILING_DEFAULT' if why == 'default' else repr(why)}) but the launch's "
            f"tiling is a {struct.__name__}"))
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
