"""AscendC scalar types: `half`, `float`, `bfloat16_t` and the fixed-width integers.

A `DType` knows its C name, its size, how its elements are *stored* in a byte buffer (fp16 and
bf16 as uint16 bit patterns, so that every conversion is under our control) and which numpy
dtype a caller sees (`np.float16`, `ml_dtypes.bfloat16`, ...). Calling a dtype converts a Python
value the way a C++ cast would: `float(0.1)` is `np.float32(0.1)`, rounded to nearest-even.
"""

from __future__ import annotations

import builtins
import math
import sys
from collections.abc import Callable

import numpy as np

__all__ = [
    "DType",
    "half",
    "float",
    "bfloat16_t",
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "sizeof",
    "ALL_DTYPES",
    "dtype_from_numpy",
    "is_bfloat16",
]


# Scalar operands are mostly the same few constants call after call, so their conversions are
# remembered (per dtype, up to _MEMO_LIMIT values) for these plain numeric types.
_MEMO_TYPES = frozenset({builtins.float, builtins.int, builtins.bool, np.float16, np.float32,
                         np.float64})
_MEMO_LIMIT = 256


_PLUS_ZERO, _MINUS_ZERO = object(), object()  # memo keys of the two zeros


def memo_convert(memo: dict, value: object, convert) -> object:
    """convert(value), remembered in `memo`. Equal numbers convert alike, with one exception:
    0.0 == -0.0 as dict keys but their bits differ, so zeros are keyed by their sign. A NaN
    never equals another, so it is found again only as the same object (same payload)."""
    if type(value) not in _MEMO_TYPES:
        return convert(value)
    key = value
    if value == 0:
        key = _MINUS_ZERO if math.copysign(1.0, value) < 0 else _PLUS_ZERO
    hit = memo.get(key)
    if hit is None:
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        hit = memo[key] = convert(value)
    return hit


class DType:
    """One AscendC element type. Instances are singletons compared with `is`."""

    __slots__ = ("name", "size", "shift", "kind", "storage", "numpy", "code", "_bits_memo",
                 "_int_memo", "_fmax", "_numpy_of", "__weakref__")

    def __init__(self, name: str, size: int, kind: str, storage: type,
                 numpy_type: type | Callable[[], type], code: int) -> None:
        self.name = name          # the C++ spelling, used in messages
        self.size = size          # bytes per element
        self.shift = size.bit_length() - 1  # byte address >> shift = element index
        self.kind = kind          # "f" float, "i" signed int, "u" unsigned int
        self.storage = np.dtype(storage)   # how the simulator holds the bits
        self.code = code          # small id used in instruction records
        self._bits_memo: dict = {}
        self._int_memo: dict = {}
        if isinstance(numpy_type, type):
            self._set_numpy(numpy_type)
        else:  # a function giving the type: `numpy` and `_fmax` are set on first use
            self._numpy_of = numpy_type

    def _set_numpy(self, numpy_type: type) -> None:
        self.numpy = np.dtype(numpy_type)  # what callers hand in and get back
        # the largest finite value: only a finite value past it makes numpy warn on conversion
        self._fmax = builtins.float(np.finfo(self.numpy).max) if self.kind == "f" else 0.0

    def __getattr__(self, name: str) -> object:
        # only called for a slot not set yet: a lazily imported numpy type's two attributes
        if name in ("numpy", "_fmax"):
            self._set_numpy(self._numpy_of())
            return getattr(self, name)
        raise AttributeError(f"DType has no attribute {name!r}")

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> str:
        # Pickle as the module attribute of the same name: worker processes get the singleton.
        return self.name

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    def bits(self, value: object) -> np.generic:
        """`value` converted to this type (as `__call__`), as the UB stores it: fp16 and bf16 as
        their uint16 bit pattern, everything else as is."""
        return memo_convert(self._bits_memo, value, self._bits)

    def _bits(self, value: object) -> np.generic:
        v = self(value)
        return v if self.storage == self.numpy else v.view(self.storage)

    def scalar_bits(self, value: object) -> int:
        """`value` converted to this type (as `__call__`), as the int64 a record's SCALAR field
        holds: the element's bits, two's complement (remembered like `bits`)."""
        if type(value) in _MEMO_TYPES and value:  # a remembered non-zero number: no call
            hit = self._int_memo.get(value)
            if hit is not None:
                return hit
        return memo_convert(self._int_memo, value, self._scalar_bits)

    def _scalar_bits(self, value: object) -> int:
        raw = int(np.array(self(value), dtype=self.numpy).view(f"u{self.size}")[()])
        return raw - (1 << 64) if raw >> 63 else raw

    def encode(self, value: object) -> np.ndarray:
        """`value` converted to this type, as its little-endian bytes."""
        return np.array([self(value)], dtype=self.numpy).view(np.uint8)

    def __call__(self, value: object) -> np.generic:
        """C-style conversion of a Python value to this type (floats round to nearest-even,
        a finite value past the type's range becomes +-Inf as IEEE conversion gives, e.g.
        Muls on half by 1e6 multiplies by +Inf; integers wrap modulo 2**bits like a C cast)."""
        if self.kind == "f":
            try:
                in_range = not abs(value) > self._fmax  # NaN and +-Inf convert silently too
            except TypeError:
                in_range = False
            if in_range:
                return self.numpy.type(value)
            with np.errstate(over="ignore"):  # np.errstate costs microseconds: only out here
                return self.numpy.type(value)
        bits = self.size * 8
        v = builtins.int(value) & ((1 << bits) - 1)
        if self.kind == "i" and v >= 1 << (bits - 1):
            v -= 1 << bits
        return self.numpy.type(v)


half = DType("half", 2, "f", np.uint16, np.float16, 1)
float = DType("float", 4, "f", np.float32, np.float32, 2)  # noqa: A001 - AscendC name


def _ml_dtypes_bfloat16() -> type:
    """ml_dtypes.bfloat16, imported on first use: importing ml_dtypes registers its numpy ufunc
    loops, about 0.8 s on a 2-core VM, which a run without bf16 does not need."""
    import ml_dtypes
    return ml_dtypes.bfloat16


bfloat16_t = DType("bfloat16_t", 2, "f", np.uint16, _ml_dtypes_bfloat16, 3)
int8_t = DType("int8_t", 1, "i", np.int8, np.int8, 4)
uint8_t = DType("uint8_t", 1, "u", np.uint8, np.uint8, 5)
int16_t = DType("int16_t", 2, "i", np.int16, np.int16, 6)
uint16_t = DType("uint16_t", 2, "u", np.uint16, np.uint16, 7)
int32_t = DType("int32_t", 4, "i", np.int32, np.int32, 8)
uint32_t = DType("uint32_t", 4, "u", np.uint32, np.uint32, 9)
int64_t = DType("int64_t", 8, "i", np.int64, np.int64, 10)
uint64_t = DType("uint64_t", 8, "u", np.uint64, np.uint64, 11)

ALL_DTYPES: tuple[DType, ...] = (half, float, bfloat16_t, int8_t, uint8_t, int16_t, uint16_t,
                                 int32_t, uint32_t, int64_t, uint64_t)
BY_CODE: dict[int, DType] = {t.code: t for t in ALL_DTYPES}
BY_NAME: dict[str, DType] = {t.name: t for t in ALL_DTYPES}
# bfloat16_t joins once ml_dtypes is imported (dtype_from_numpy)
_BY_NUMPY: dict[np.dtype, DType] = {t.numpy: t for t in ALL_DTYPES if t is not bfloat16_t}


def dtype_from_numpy(dt: np.dtype | type) -> DType:
    """The AscendC type of a numpy dtype (float16 -> half, ml_dtypes.bfloat16 -> bfloat16_t)."""
    dt = np.dtype(dt)
    found = _BY_NUMPY.get(dt)
    if found is None and is_bfloat16(dt):
        found = _BY_NUMPY[dt] = bfloat16_t
    if found is None:
        raise TypeError(f"no AscendC type for numpy dtype {dt}")
    return found


def is_bfloat16(dt: np.dtype | type) -> bool:
    """Whether `dt` is ml_dtypes' bfloat16, without importing ml_dtypes: no array or scalar has
    that type before ml_dtypes is imported."""
    return "ml_dtypes" in sys.modules and np.dtype(dt) == bfloat16_t.numpy


def sizeof(t: object) -> int:
    """`sizeof(T)` for AscendC types and for tiling-data structs (anything with `sizeof()`)."""
    if isinstance(t, DType):
        return t.size
    size = getattr(t, "SIZEOF", None)
    if size is None:
        raise TypeError(f"sizeof: {t!r} is not an AscendC type or struct")
    return size
