"""Global Memory buffers and the two tensor types kernels use: `GlobalTensor` (a typed window on
a GM buffer) and `LocalTensor` (a typed window on one core's Unified Buffer).

Offsets follow AscendC: `tensor[offset]` is a new tensor `offset` elements of the tensor's own
type later (bytes on a `LocalTensor<uint8_t>`); element values are read and written with
`GetValue`/`SetValue`, which are scalar-pipe instructions and are recorded as such.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from numba import njit

from . import records as rec
from .core import (
    MEM_UB,
    PIPE_S,
    CoreState,
    append_gm_writer,
    current_core,
    dummy_byte,
    kernel_frame,
    settle_memory,
)
from .dtypes import ALL_DTYPES, DType
from .errors import OutOfRangeError, ParameterError
from .faults import abort, fault
from .registry import (
    AccessPattern,
    Cost,
    CostKind,
    CppDecl,
    Dataflow,
    Operand,
    Signature,
    Work,
    register,
)

__all__ = ["GmBuffer", "GlobalTensor", "LocalTensor", "GM_ADDR", "BufferInfo"]


class GmBuffer:
    """One GM allocation: a kernel argument wrapping a caller's array (written in place)."""

    __slots__ = ("data", "name", "mem_id", "nbytes", "array", "struct", "written")

    def __init__(self, array: np.ndarray, name: str, mem_id: int, struct: Any = None) -> None:
        if not array.flags.c_contiguous:
            raise ParameterError(f"GM buffer {name!r} must be C-contiguous (the kernel sees flat "
                                 "memory); pass np.ascontiguousarray(...)")
        self.array = array
        self.data = array.reshape(-1).view(np.uint8)  # shares memory: writes reach the caller
        self.name = name
        self.mem_id = mem_id
        self.nbytes = self.data.size
        self.struct = struct  # the tiling-data class when this buffer holds a tiling struct

    def __repr__(self) -> str:
        return f"<GM {self.name!r} {self.nbytes} B>"


# In C++ a kernel argument is `GM_ADDR x` (an untyped byte pointer); in Python it is the GmBuffer.
GM_ADDR = GmBuffer


class _Typed(type):
    """`GlobalTensor[float]()` / `LocalTensor[half]()`: the element type in brackets, as in C++."""

    def __getitem__(cls, dtype: DType) -> Any:
        try:
            maker = _MAKERS.get((cls, dtype))
        except TypeError:  # unhashable: not a type either
            maker = None
        if maker is None:
            if not isinstance(dtype, DType):
                raise TypeError(f"{cls.__name__}[...] takes an AscendC type, got {dtype!r}")
            maker = _MAKERS[cls, dtype] = partial(cls, dtype)
        return maker


_MAKERS: dict[tuple[type, DType], Any] = {}  # (class, dtype) -> the constructor with its dtype


class GlobalTensor(metaclass=_Typed):
    """A typed view of GM. `SetGlobalBuffer(addr, size)` binds it; `[]` offsets by elements."""

    __slots__ = ("dtype", "buf", "byte_off", "size")

    def __init__(self, dtype: DType, buf: GmBuffer | None = None, byte_off: int = 0,
                 size: int = 0) -> None:
        self.dtype = dtype
        self.buf = buf
        self.byte_off = byte_off
        self.size = size

    def SetGlobalBuffer(self, addr: GmBuffer | GlobalTensor, bufferSize: int | None = None) -> None:
        """Bind to `addr` (a GM_ADDR, or a GlobalTensor to share its start). Like the hardware,
        a size larger than the allocation is accepted here; accesses are checked."""
        if isinstance(addr, GlobalTensor):
            buf, off = addr.buf, addr.byte_off
        elif isinstance(addr, GmBuffer):
            buf, off = addr, 0
        else:
            abort(None, ParameterError(f"SetGlobalBuffer needs a GM_ADDR kernel argument, got "
                                       f"{addr!r}"))
        if bufferSize is not None and int(bufferSize) < 0:
            fault(None, ParameterError(f"SetGlobalBuffer: negative size {bufferSize}"))
            bufferSize = 0
        self.buf, self.byte_off = buf, off
        self.size = 0 if bufferSize is None else int(bufferSize)

    def __getitem__(self, offset: int) -> GlobalTensor:
        if type(offset) is not int:  # kernels index GM per tile: no int() call for an int
            offset = int(offset)
        buf = self.buf
        if buf is None:
            abort(None, ParameterError("GlobalTensor[...] before SetGlobalBuffer"))
        dtype = self.dtype
        byte_off = self.byte_off + offset * dtype.size
        if offset < 0 or byte_off > buf.nbytes:
            # check mode: the view is made; its accesses are reported and clipped
            fault(None, OutOfRangeError(
                f"GlobalTensor<{self.dtype}>[{offset}] starts at byte {byte_off}, outside GM "
                f"buffer {self.buf.name!r} of {self.buf.nbytes} bytes"),
                memory=f"GM {self.buf.name}", start=byte_off, end=byte_off,
                instruction="GlobalTensor[]")
        size = self.size
        return GlobalTensor(dtype, buf, byte_off,
                            size - offset if size and offset <= size else 0)

    def GetSize(self) -> int:
        return self.size

    def GetPhyAddr(self) -> int:
        return self.byte_off

    def _element(self, index: int, write: bool) -> tuple[int, int, bool]:
        """(start, end, inside the buffer) of element `index`."""
        if self.buf is None:
            abort(None, ParameterError("GlobalTensor used before SetGlobalBuffer"))
        start = self.byte_off + int(index) * self.dtype.size
        end = start + self.dtype.size
        if start < 0 or end > self.buf.nbytes:
            fault(None, OutOfRangeError(
                f"GlobalTensor<{self.dtype}> element {index} at GM bytes [{start}, {end}) is "
                f"outside buffer {self.buf.name!r} of {self.buf.nbytes} bytes",
                buffer=f"GM {self.buf.name}", byte_range=f"[{start}, {end})"),
                memory=f"GM {self.buf.name}", start=start, end=end, write=write,
                instruction="SetValue" if write else "GetValue")
            return start, end, False
        return start, end, True

    def GetValue(self, index: int) -> np.generic:
        start, end, inside = self._element(index, False)
        core = current_core()
        _record_scalar(core, GET_VALUE, self.dtype, self.buf.mem_id, start, end, 0)
        settle_memory(core)
        if not inside:  # check mode: the missing bytes read as the dummy pattern
            return _decode(self.dtype, np.full(end - start, dummy_byte(core.profile), np.uint8))
        return _decode(self.dtype, self.buf.data[start:end])

    def SetValue(self, index: int, value: object) -> None:
        start, end, inside = self._element(index, True)
        core = current_core()
        _record_scalar(core, SET_VALUE, self.dtype, self.buf.mem_id, start, end,
                       self.dtype.scalar_bits(value))
        settle_memory(core)
        if inside:  # check mode: a write outside the buffer is dropped
            self.buf.data[start:end] = self.dtype.encode(value)

    def __repr__(self) -> str:
        name = self.buf.name if self.buf else "unbound"
        return f"GlobalTensor<{self.dtype}>({name}+{self.byte_off}, size={self.size})"


class BufferInfo:
    """Where a LocalTensor came from: a TQue/TBuf buffer (name, UB byte range, position, its
    index in its TQue or -1 for a TBuf, and its id: its index in the core's buffer table).
    It exists from record index `since` (its InitBuffer) to `until` (TPipe.Reset; -1: the end)."""

    __slots__ = ("name", "start", "end", "position", "index", "id", "since", "until")

    def __init__(self, name: str, start: int, end: int, position: str, index: int = 0,
                 id: int = -1) -> None:
        self.name, self.start, self.end, self.position, self.index, self.id = (
            name, start, end, position, index, id)
        self.since, self.until = 0, -1

    def __repr__(self) -> str:
        return f"{self.name} UB [{self.start}, {self.end})"


class LocalTensor(metaclass=_Typed):
    """A typed window of one core's UB: byte address `addr`, `size` elements of `dtype`."""

    __slots__ = ("core", "addr", "dtype", "size", "origin")

    def __init__(self, dtype: DType, core: CoreState | None = None, addr: int = 0, size: int = 0,
                 origin: BufferInfo | None = None) -> None:
        self.dtype = dtype
        self.core = core
        self.addr = addr
        self.size = size
        self.origin = origin

    def __getitem__(self, offset: int) -> LocalTensor:
        if type(offset) is not int:  # kernels index views per tile: no int() call for an int
            offset = int(offset)
        size = self.size
        if offset < 0 or offset > size:
            # check mode: the view is made (empty); accesses through it are reported
            fault(self.core, OutOfRangeError(
                f"LocalTensor<{self.dtype}>[{offset}] is outside the tensor's {self.size} "
                f"elements", buffer=self.origin, byte_range=self._range_text()),
                memory=_ub_name(self.origin), start=self.addr + offset * self.dtype.size,
                end=self.addr + offset * self.dtype.size, instruction="LocalTensor[]")
        dtype = self.dtype
        return LocalTensor(dtype, self.core, self.addr + offset * dtype.size,
                           size - offset if offset <= size else 0, self.origin)

    @property
    def ReinterpretCast(self) -> _Reinterpret:
        """`t.ReinterpretCast[uint16_t]()`: same address and bytes, seen as another type."""
        return _Reinterpret(self)

    def reinterpret(self, dtype: DType) -> LocalTensor:
        return LocalTensor(dtype, self.core, self.addr, self.size * self.dtype.size // dtype.size,
                           self.origin)

    def __call__(self) -> LocalTensor:
        """`ReinterpretCast[U]()`: the brackets already made the view; `()` is the C++ call."""
        return self

    def GetSize(self) -> int:
        return self.size

    def SetSize(self, size: int) -> None:
        """Shrink or regrow the view within its buffer."""
        size = int(size)
        limit = (self.origin.end - self.addr) // self.dtype.size if self.origin else size
        if size < 0 or size > limit:
            fault(self.core, OutOfRangeError(f"LocalTensor.SetSize({size}) exceeds its buffer "
                                             f"({limit} elements of {self.dtype})",
                                             buffer=self.origin), instruction="SetSize")
            size = min(max(size, 0), limit)  # check mode: the buffer; accesses past it report
        self.size = size

    def GetPhyAddr(self) -> int:
        return self.addr

    def _element(self, index: int, write: bool) -> tuple[int, int, bool]:
        """(start, end, inside the UB) of element `index`."""
        if self.core is None:
            abort(None, ParameterError("LocalTensor used before it was allocated"))
        index = int(index)
        start = self.addr + index * self.dtype.size
        end = start + self.dtype.size
        if index < 0 or index >= self.size:
            fault(self.core, OutOfRangeError(
                f"LocalTensor<{self.dtype}> element {index} is outside the tensor's "
                f"{self.size} elements", buffer=self.origin, byte_range=self._range_text()),
                memory=_ub_name(self.origin), start=start, end=end, write=write,
                instruction="SetValue" if write else "GetValue")
        return start, end, 0 <= start and end <= self.core.ub.size

    def GetValue(self, index: int) -> np.generic:
        start, end, inside = self._element(index, False)
        _record_scalar(self.core, GET_VALUE, self.dtype, MEM_UB, start, end, 0)
        settle_memory(self.core)
        if not inside:  # check mode: outside the UB reads as the dummy pattern
            return _decode(self.dtype, np.full(end - start, dummy_byte(self.core.profile),
                                               np.uint8))
        return _decode(self.dtype, self.core.ub[start:end])

    def SetValue(self, index: int, value: object) -> None:
        start, end, inside = self._element(index, True)
        _record_scalar(self.core, SET_VALUE, self.dtype, MEM_UB, start, end,
                       self.dtype.scalar_bits(value))
        settle_memory(self.core)
        if inside:
            self.core.ub[start:end] = self.dtype.encode(value)

    def _range_text(self) -> str:
        return f"UB [{self.addr}, {self.addr + self.size * self.dtype.size})"

    def __repr__(self) -> str:
        return f"LocalTensor<{self.dtype}>(UB+{self.addr}, size={self.size})"

    def numpy(self) -> np.ndarray:
        """A copy of the tensor's elements as a caller-facing numpy array (for debugging)."""
        settle_memory(self.core)
        raw = self.core.ub[self.addr:self.addr + self.size * self.dtype.size].copy()
        return raw.view(self.dtype.numpy)


class _Reinterpret:
    __slots__ = ("tensor",)

    def __init__(self, tensor: LocalTensor) -> None:
        self.tensor = tensor

    def __getitem__(self, dtype: DType) -> LocalTensor:
        # The view itself; calling it (the C++ `()`) returns it unchanged.
        t = self.tensor
        return LocalTensor(dtype, t.core, t.addr, t.size * t.dtype.size // dtype.size, t.origin)


def _ub_name(origin: BufferInfo | None) -> str:
    return f"UB ({origin.name})" if origin is not None else "UB"


def _decode(dtype: DType, raw: np.ndarray) -> np.generic:
    return raw.view(dtype.numpy)[0]


# ---- GetValue / SetValue: scalar-pipe instructions -------------------------------------------

_ANY_ELEMENT = tuple(Signature((t,)) for t in ALL_DTYPES)
_, _ELEMENT_MEM, _ELEMENT_START, _ELEMENT_END = rec.access_fields(0, 0)


@njit(cache=True, nogil=True, error_model="numpy")
def set_value_work(_a, _b, _c, ub, gm, row):
    """SetValue from its row: the value's bits (SCALAR, little-endian) into the element's bytes
    in the UB or the GM buffer (the eager call writes `dtype.encode(value)`: the same bytes)."""
    start = row[_ELEMENT_START]
    mem = ub if row[_ELEMENT_MEM] == MEM_UB else gm
    bits = row[rec.SCALAR]
    for i in range(row[_ELEMENT_END] - start):
        mem[start + i] = (bits >> (8 * i)) & 0xFF


def _bind_set_value(row: tuple, profile: object) -> tuple[str, tuple[int, int, int]]:
    return "element", (0, 0, 0)


GET_VALUE = register(
    "GetValue", family="scalar", pipe=PIPE_S,
    operands=(Operand("element", AccessPattern.ELEMENT),),
    dataflow=Dataflow.SCALAR_READ, cost=Cost(CostKind.SCALAR), signatures=_ANY_ELEMENT,
    work=None,
    cpp=(CppDecl("__aicore__ T GetValue(const uint32_t index) const;", "LocalTensor"),
         CppDecl("__aicore__ T GetValue(const uint64_t index) const;", "GlobalTensor")),
    doc="scalar read of one UB or GM element")
SET_VALUE = register(
    "SetValue", family="scalar", pipe=PIPE_S,
    operands=(Operand("element", AccessPattern.ELEMENT, write=True),
              Operand("value", AccessPattern.NONE)),
    dataflow=Dataflow.SCALAR_WRITE, cost=Cost(CostKind.SCALAR),
    signatures=tuple(Signature((t, t)) for t in ALL_DTYPES),
    work=Work({"element": set_value_work}, bind=_bind_set_value),
    cpp=(CppDecl("__aicore__ void SetValue(const uint32_t index, const ScalarT<T> value) const;",
                 "LocalTensor"),
         CppDecl("__aicore__ void SetValue(const uint64_t index, const ScalarT<T> value);",
                 "GlobalTensor")),
    doc="scalar write of one UB or GM element")


def _record_scalar(core: CoreState, ins: object, dtype: DType, mem: int, start: int, end: int,
                   value_bits: int) -> None:
    """Record a GetValue/SetValue (scalar pipe) made by the kernel line that called it."""
    code, lasti = kernel_frame(3)
    row = rec.access_row(ins.id, PIPE_S, code, lasti, dtype.code, 1, 0, value_bits,
                         rec.W if ins is SET_VALUE else rec.R, mem, start, end)
    if ins is SET_VALUE:
        append_gm_writer(core, row)
    else:
        core.records.append(row)

