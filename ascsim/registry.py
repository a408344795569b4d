"""The instruction registry: one `Instruction` entry is the whole definition of an AscendC call.

An entry says everything the rest of ascsim needs to know about its instruction, so that no
module keeps a table keyed by instruction names:

- `name`, `family` and a one-line `doc`;
- `pipe`: the pipe it runs on, or the `PipeRule` that picks it per call;
- `operands`: its operands in record order, each with its role, its `AccessPattern` (how the
  sanitizer walks its bytes, how a trace shows it) and whether it is written; a record's
  accesses are its memory operands in this order (trailing optional ones may be absent);
- `dataflow`: how initcheck propagates uninitialised bytes through it (`Dataflow`), and for the
  control instructions what the racecheck clocks do;
- `cost`: the timing model's treatment (`CostKind`) and, for vector work, the cost table of the
  hardware profile (`[cost.vector.<table>]`);
- `signatures`: the dtype combinations it accepts (with the modes, for Cast);
- `work`: the numba functions that do its work, all of one argument shape (see `Work`), and
  which of them runs a recorded row with which literals (`Work.bind`); None exactly for the
  instructions that write no memory operand (flags, barriers, the queue calls but AllocTensor,
  GetValue), which the pipe model and the analyses handle themselves;
- `cpp`: its declarations in ascsim's AscendC header (`tools/ascendc_include/
  kernel_operator.h` is generated from them: `python -m ascsim.cppheader`).

`import ascsim` registers every instruction; ids follow that fixed import order. Records (see
records.py) carry the id; `REGISTRY[id]` is the entry. docs/extending.md shows how to add one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .core import PIPE_NAMES
from .dtypes import DType

if TYPE_CHECKING:
    from .profile import HardwareProfile

__all__ = ["Instruction", "Operand", "AccessPattern", "Dataflow", "CostKind", "Cost",
           "PipeRule", "Signature", "Work", "CppDecl", "register", "REGISTRY", "by_name",
           "CONTROL_COSTS"]


class PipeRule(Enum):
    """How the pipe of an instruction whose pipe is not fixed is picked, per call."""

    COPY_DIRECTION = "GM->UB on MTE2, UB->GM on MTE3, UB->UB on V"
    EVENT_SOURCE = "the source pipe of the HardEvent template argument"
    EVENT_DESTINATION = "the destination pipe of the HardEvent template argument"
    TEMPLATE_ARGUMENT = "the pipe given as the template argument"


class AccessPattern(Enum):
    """How an operand's bytes are touched (the sanitizer's exact byte ranges follow from it)."""

    ELEMENTWISE = ("element i of the operand for element i of the call; in the repeat form, "
                   "repeats of 8 DataBlocks at block and repeat strides, the DataBlocks the "
                   "mask enables")
    BIT_PER_ELEMENT = "bit i (byte i // 8, bit i % 8) for element i of the call"
    LIBRARY_TEMP = ("bytes the AscendC library itself writes in its temp area at "
                    "TMP_UB_OFFSET, not an operand of the kernel's")
    COPY_BLOCKS = ("blockCount blocks of blockLen bytes at source and destination pitches; "
                   "on the UB side of DataCopyPad GM->UB each block is padded to 32 bytes")
    ELEMENT = "one element"
    BUFFER = "the queue buffer the call hands over (no byte is read or written)"
    NONE = "no memory: a scalar operand"
    REDUCE_SOURCE = ("repeats of 8 DataBlocks at block and repeat strides whose enabled lanes "
                     "feed a reduction: each group of lanes (a repeat, a DataBlock, a pair, or "
                     "every repeat in level 2) gives one result")
    REDUCE_RESULT = ("one result per reduction group: at the repeat stride (WholeReduce*, 8 per "
                     "repeat for BlockReduce*, E/2 for PairReduceSum) or dst[0..1] (level 2)")
    REDUCE_SCRATCH = ("a reduction's (or Power's) sharedTmpBuffer: intermediate results it "
                      "writes")
    DATA_DEPENDENT = ("bytes the call picks by data it reads (Gather's byte offsets): the whole "
                      "range of the tensor counts as read")


class Dataflow(IntEnum):
    """What the offline sanitizer pass does with a record (values are its class ids)."""

    SET_FLAG = 1       # sets its flag: the source pipe's clock reaches the waiting pipe
    WAIT_FLAG = 2      # consumes its flag (or stalls its pipe until it is set)
    BARRIER = 3        # orders everything before it on its pipe
    QUEUE_ALLOC = 4    # a fresh buffer: all its bytes are uninitialised
    QUEUE_ENQUE = 5    # queue state only
    QUEUE_DEQUE = 6
    QUEUE_FREE = 7
    SCALAR_READ = 8    # GetValue: reading uninitialised bytes is reported
    SCALAR_WRITE = 9   # SetValue: the element becomes initialised
    ELEMENTWISE = 10   # dst element i <- source elements i (elements may differ in size)
    BITWISE = 11       # dst bit b <- source bits b
    FILL = 12          # dst fully defined, no source
    COMPARE = 13       # dst bit i <- source elements i
    SELECT = 14        # dst element i <- selMask bit i and source elements i; temp written
    COPY = 15          # bytes as moved; pads and dummy bytes uninitialised unless padded
    STATE = 16         # sets a core register (mask, mode, ...): no memory, nothing to track
    REDUCE = 20        # each result <- every enabled source lane of its group (reductions)
    GATHER = 30        # dst bytes <- source bytes by a data-dependent or many-to-one map
    #                    (Gather, GatherMask, Brcb): dst uninitialised where any source is


class CostKind(IntEnum):
    """How the timing model treats a record (docs/timing.md)."""

    VECTOR = 0     # startup + repeats x cycles per repeat, from [cost.vector.<table>]
    COPY = 1       # latency + bytes / bandwidth (a UB->UB copy is costed as VECTOR work)
    SET_FLAG = 2
    WAIT_FLAG = 3
    BARRIER = 4
    SCALAR = 5     # the scalar unit runs it itself
    CROSS_CORE = 6  # SyncAll / CrossCore flags: the scalar unit waits for other cores


CONTROL_COSTS = frozenset({CostKind.SET_FLAG, CostKind.WAIT_FLAG, CostKind.BARRIER,
                           CostKind.SCALAR, CostKind.CROSS_CORE})


@dataclass(frozen=True)
class Cost:
    kind: CostKind
    table: str = ""  # [cost.vector.<table>] of the hardware profile, for VECTOR (and copies)


@dataclass(frozen=True)
class Operand:
    role: str                   # "dst", "src", "src0", "src1", "selMask", "tmp", "scalar", ...
    pattern: AccessPattern
    write: bool = False
    dtype_param: int | None = None  # this operand's dtype code is row param k (Cast's src)

    @property
    def is_memory(self) -> bool:
        return self.pattern is not AccessPattern.NONE


@dataclass(frozen=True)
class Signature:
    """One accepted dtype combination: a dtype (or None: any) per operand, in operand order,
    and for instructions with a mode argument the modes this combination accepts."""

    dtypes: tuple[DType | None, ...]
    modes: frozenset[int] | None = None
    rule: str = ""  # the documented rule, quoted when a call breaks it


@dataclass(frozen=True)
class Work:
    """The numba functions doing an instruction's work, one per call form ("count", "repeat",
    "gm_to_ub", ...). Every one has the same argument shape,

        kernel(a, b, c, ub, gm, row)

    `a`, `b`, `c` compile-time integer constants (the literals: dtype codes, modes, an op's
    index in its table, profile options; 0 when unused), `ub` the core's Unified Buffer as
    bytes, `gm` the bytes of the GM buffer the call touches (empty when none) and `row` the
    call's record (records.py): every operand address, count and parameter the work needs is
    in the row.
    A batched executor can therefore run recorded rows through these functions directly.

    `bind(row, profile)` returns `(form, (a, b, c))`: the form that executes a recorded row and
    its literals, from the row and the hardware profile (dummy byte, saturation) alone; replay.py
    runs rows through it."""

    kernels: Mapping[str, Any]
    bind: Callable[[tuple, HardwareProfile], tuple[str, tuple[int, int, int]]]
    _entries: dict = field(default_factory=dict, compare=False, repr=False)

    def entry(self, form: str, literals: tuple[int, int, int], row_len: int) -> Callable:
        """The compiled entry point of `form` for these literals and rows of `row_len` ints
        (compiled, or loaded from numba's disk cache, on first use); call it with the whole
        argument list, literals first."""
        key = (form, literals, row_len)
        ep = self._entries.get(key)
        if ep is None:
            from .workcall import compile_work
            ep = self._entries[key] = compile_work(self.kernels[form], literals, row_len)
        return ep


@dataclass(frozen=True)
class CppDecl:
    """A declaration in ascsim's AscendC header: a free function of namespace AscendC, or a
    member of one of its classes (`scope` "TQue", "LocalTensor", "GlobalTensor", "TPipe")."""

    text: str
    scope: str = "AscendC"


@dataclass(frozen=True, eq=False)
class Instruction:
    """One AscendC call: the single definition everything else reads."""

    id: int
    name: str
    family: str            # "vector", "copy", "sync", "queue", "scalar"
    pipe: int | PipeRule
    operands: tuple[Operand, ...]
    dataflow: Dataflow
    cost: Cost
    signatures: tuple[Signature, ...]
    work: Work | None
    cpp: tuple[CppDecl, ...]
    doc: str

    @cached_property
    def memory_operands(self) -> tuple[Operand, ...]:
        """The operands that have a record access, in record order."""
        return tuple(o for o in self.operands if o.is_memory)

    @cached_property
    def dtypes(self) -> frozenset[DType]:
        """Every dtype some signature names."""
        return frozenset(t for s in self.signatures for t in s.dtypes if t is not None)

    def signature_for(self, *dtypes: DType) -> Signature | None:
        """The signature whose leading dtypes are exactly `dtypes` (None: not accepted)."""
        for s in self.signatures:
            if len(s.dtypes) >= len(dtypes) and all(
                    want is None or want is got for want, got in zip(s.dtypes, dtypes,
                                                                     strict=False)):
                return s
        return None

    @property
    def pipe_text(self) -> str:
        return (f"PIPE_{PIPE_NAMES[self.pipe]}" if isinstance(self.pipe, int)
                else self.pipe.value)

    def __repr__(self) -> str:
        return f"<instruction {self.name}>"


REGISTRY: list[Instruction] = []
_BY_NAME: dict[str, Instruction] = {}


def register(name: str, *, family: str, pipe: int | PipeRule, operands: tuple[Operand, ...],
             dataflow: Dataflow, cost: Cost, signatures: tuple[Signature, ...],
             work: Work | None, cpp: tuple[CppDecl, ...], doc: str) -> Instruction:
    """Add an instruction. Names are unique: a second definition is a programming error, and
    so is an entry whose facets contradict each other."""
    if name in _BY_NAME:
        raise RuntimeError(f"instruction {name} is registered twice")
    # an instruction that changes memory is part of the recorded program: it needs work
    changes_memory = cost.kind not in CONTROL_COSTS or any(
        o.write and o.is_memory for o in operands)
    if (work is None) == changes_memory:
        raise RuntimeError(f"instruction {name}: an instruction has numba work exactly when it "
                           "changes memory (flags, barriers and reads have none)")
    if work is not None and not work.kernels:
        raise RuntimeError(f"instruction {name}: its Work has no kernels")
    if cost.kind is CostKind.VECTOR and not cost.table:
        raise RuntimeError(f"instruction {name}: a vector cost needs its profile table name")
    ins = Instruction(len(REGISTRY), name, family, pipe, tuple(operands), dataflow, cost,
                      tuple(signatures), work, tuple(cpp), doc)
    REGISTRY.append(ins)
    _BY_NAME[name] = ins
    return ins


def by_name(name: str) -> Instruction:
    return _BY_NAME[name]
