"""The instruction registry and the record format.

Every AscendC call the simulator executes is described once, by an `Instruction` entry: its
name, its pipe, its cost class (what the timing model charges for it) and the dtypes it takes.
The executor appends one flat tuple per executed call to its core's `records`:

    (instr_id, pipe, code, lasti, dtype_code, count, repeats, extra, *accesses)

`code`/`lasti` locate the kernel line (see source.py); `count` is the element count, `repeats`
the number of 256-byte vector repeats (or bytes moved, for copies: see `Record.bytes`); `extra`
holds what the family needs (a flag index for sync, the parameters of a strided form); the
accesses are flattened `(flags, mem, start, end)` quadruples: `flags & W` for a write,
`flags & STRIDED` when only parts of [start, end) are touched (the parts follow from `extra`).
Memory 0 is the core's UB, 1.. the launch's GM buffers. Records never hold element data.

Analysis code (scheduler, sanitizer, exporters) reads records through `decode()`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import CodeType
from typing import Any

from .core import PIPE_NAMES, PIPE_S, CoreState, kernel_frame
from .dtypes import BY_CODE, DType

__all__ = ["Instruction", "register", "REGISTRY", "by_name", "decode", "Record", "Access",
           "R", "W", "STRIDED", "scalar_access"]

R, W, STRIDED = 0, 1, 2
PREFIX = 8  # fields before the accesses


class Instruction:
    """One AscendC call: the single definition everything else reads."""

    __slots__ = ("id", "name", "pipe", "family", "cost_class", "dtypes", "doc")

    def __init__(self, id: int, name: str, pipe: int | None, family: str, cost_class: str,
                 dtypes: frozenset[DType], doc: str) -> None:
        self.id = id
        self.name = name
        self.pipe = pipe            # None when the pipe depends on the call (sync, DataCopy)
        self.family = family        # "vector", "copy", "sync", "scalar", "queue"
        self.cost_class = cost_class
        self.dtypes = dtypes
        self.doc = doc

    def __repr__(self) -> str:
        return f"<instruction {self.name}>"


REGISTRY: list[Instruction] = []
_BY_NAME: dict[str, Instruction] = {}


def register(name: str, pipe: int | None, family: str, cost_class: str | None = None,
             dtypes: tuple[DType, ...] = (), doc: str = "") -> Instruction:
    """Add an instruction; names are unique (a second definition is a programming error)."""
    if name in _BY_NAME:
        raise RuntimeError(f"instruction {name} is registered twice")
    ins = Instruction(len(REGISTRY), name, pipe, family, cost_class or name, frozenset(dtypes),
                      doc)
    REGISTRY.append(ins)
    _BY_NAME[name] = ins
    return ins


def by_name(name: str) -> Instruction:
    return _BY_NAME[name]


@dataclass(frozen=True, slots=True)
class Access:
    write: bool
    mem: int        # 0 = UB, k >= 1 = GM buffer k
    start: int      # byte range [start, end)
    end: int
    strided: bool   # only parts of the range are touched

    @property
    def nbytes(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Record:
    """A decoded record: what analysis code sees."""

    index: int
    instruction: Instruction
    pipe: int
    code: CodeType | None
    lasti: int
    dtype: DType | None
    count: int
    repeats: int
    extra: Any
    accesses: tuple[Access, ...]

    @property
    def name(self) -> str:
        return self.instruction.name

    @property
    def pipe_name(self) -> str:
        return PIPE_NAMES[self.pipe]

    @property
    def reads(self) -> tuple[Access, ...]:
        return tuple(a for a in self.accesses if not a.write)

    @property
    def writes(self) -> tuple[Access, ...]:
        return tuple(a for a in self.accesses if a.write)

    @property
    def bytes(self) -> int:
        """Bytes moved by a copy (its write size), or bytes written by a vector op."""
        return sum(a.nbytes for a in self.accesses if a.write)

    def position(self) -> tuple[str, str | None]:
        """("kernels_py/...:line", "kernels_cpp/...:line" | None)."""
        from .source import describe_position
        if self.code is None:
            return "<ascsim>", None
        return describe_position(self.code, self.lasti)


def decode(rec: tuple, index: int = -1) -> Record:
    accesses = tuple(
        Access(bool(rec[i] & W), rec[i + 1], rec[i + 2], rec[i + 3], bool(rec[i] & STRIDED))
        for i in range(PREFIX, len(rec), 4))
    return Record(index, REGISTRY[rec[0]], rec[1], rec[2], rec[3], BY_CODE.get(rec[4]), rec[5],
                  rec[6], rec[7], accesses)


_GET = register("GetValue", PIPE_S, "scalar", doc="scalar read of one tensor element")
_SET = register("SetValue", PIPE_S, "scalar", doc="scalar write of one tensor element")


def scalar_access(name: str, core: CoreState, mem: int, start: int, end: int,
                  write: bool) -> None:
    """Record a GetValue/SetValue (scalar pipe) made by the kernel line three frames up."""
    code, lasti = kernel_frame(3)
    ins = _SET if write else _GET
    core.records.append((ins.id, PIPE_S, code, lasti, 0, 1, 0, None, W if write else R, mem,
                         start, end))
