"""`ascsim trace`: one core's instruction log with operand addresses and, on request, the first
elements of every operand.

Values need capturing while the kernel runs, for the traced core only: inside `capture(core=N,
values=K)` the next launch replaces that core's record list by a `CapturingRecords`, whose
`append` snapshots the first K elements of each operand: sources when the instruction is
issued, destinations when the next one is (by then it has run, unless its pipe was stalled).
Outside `capture` nothing changes, so tracing costs nothing when it is not used.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import records
from ..core import PIPE_NAMES, CoreState
from ..dtypes import BY_CODE, DType
from ..records import DTYPE, MODE, OP, PIPE, W
from ..registry import REGISTRY, AccessPattern, Dataflow
from ..sync import flag_name

__all__ = ["capture", "attach", "detach", "CapturingRecords", "format_trace", "Capture",
           "reads_memory"]

_local = threading.local()


class Capture:
    """What to capture; after the launch, `run` is the traced Run."""

    def __init__(self, core: int, values: int) -> None:
        self.core = core
        self.values = values
        self.runs: list[Any] = []


@contextlib.contextmanager
def capture(core: int, values: int = 0) -> Iterator[Capture]:
    """Trace core `core` of the launches inside; `values` = elements shown per operand."""
    spec = Capture(int(core), int(values))
    old = getattr(_local, "spec", None)
    _local.spec = spec
    try:
        yield spec
    finally:
        _local.spec = old


class CapturingRecords(list):
    """A core's record list that also snapshots operand values (see the module docstring)."""

    def __init__(self, core: CoreState, values: int) -> None:
        super().__init__()
        self.core = core
        self.k = values
        self.values: dict[tuple[int, int], bytes] = {}  # (record, access) -> raw bytes

    def _snap(self, index: int, writes: bool) -> None:
        row = self[index]
        if REGISTRY[row[OP]].family in ("queue", "sync"):
            return
        for a, (flags, mem, start, end) in enumerate(records.accesses_of(row)):
            if bool(flags & W) != writes:
                continue
            dt = _access_dtype(row, a)
            size = dt.size if dt is not None else 1
            data = self.core.ub if mem == 0 else getattr(self.core.gm[mem], "data", None)
            if data is None:
                continue
            lo, hi = max(start, 0), min(end, start + self.k * size, data.size)
            if hi > lo:
                self.values[(index, a)] = data[lo:hi].tobytes()

    def append(self, rec: tuple) -> None:
        if len(self):
            self._snap(len(self) - 1, True)
        super().append(rec)
        self._snap(len(self) - 1, False)

    def finish(self) -> None:
        if len(self):
            self._snap(len(self) - 1, True)


def capturing() -> bool:
    """Whether the next launch is traced (on this thread)."""
    return getattr(_local, "spec", None) is not None


def reads_memory() -> bool:
    """Whether the next launch captures operand values: its memory must be current after every
    instruction, so it runs eagerly (batch.py defers the work otherwise)."""
    spec = getattr(_local, "spec", None)
    return spec is not None and spec.values > 0


def attach(cores: list[CoreState]) -> None:
    """Called by launch: install the capturing record list on the traced core, if any."""
    spec = getattr(_local, "spec", None)
    if spec is not None and 0 <= spec.core < len(cores):
        core = cores[spec.core]
        core.records = CapturingRecords(core, spec.values)


def detach(cores: list[CoreState]) -> None:
    spec = getattr(_local, "spec", None)
    if spec is not None and 0 <= spec.core < len(cores):
        records = cores[spec.core].records
        if isinstance(records, CapturingRecords):
            records.finish()


def _access_dtype(row: tuple, access: int) -> DType | None:
    """The element type of a row's access (None: shown as raw bytes, as bit masks are)."""
    operand = REGISTRY[row[OP]].memory_operands[access]
    if operand.pattern in (AccessPattern.BIT_PER_ELEMENT, AccessPattern.BUFFER):
        return None
    if operand.dtype_param is not None:
        return BY_CODE.get(records.params_of(row)[operand.dtype_param])
    return BY_CODE.get(row[DTYPE])


def _format_values(row: tuple, access: int, raw: bytes) -> str:
    dt = _access_dtype(row, access)
    if dt is None:
        return " ".join(f"{b:02x}" for b in raw)
    n = len(raw) // dt.size
    vals = np.frombuffer(raw[:n * dt.size], dtype=dt.numpy)
    return "[" + ", ".join(str(v) for v in vals) + "]"


def format_trace(core: CoreState, limit: int | None = None) -> str:
    """The core's instruction log: serialNo, pipe, instruction, dtype/count, operands, kernel
    line (and mirrored C++ line), and captured values when there are any."""
    rows = core.records
    values = getattr(rows, "values", {})
    lines = [f"core {core.block_idx}: {len(rows)} instruction(s)"]
    gm = core.gm
    for idx, row in enumerate(rows):
        if limit is not None and idx >= limit:
            lines.append(f"... {len(rows) - limit} more")
            break
        d = records.decode(row, idx)
        ins = d.instruction
        head = f"{idx:6d}  {PIPE_NAMES[row[PIPE]]:<4} {ins.name:<14}"
        info = []
        if ins.family == "sync":
            if ins.dataflow is Dataflow.BARRIER:
                info.append(f"PIPE_{PIPE_NAMES[row[MODE]]}")
            else:
                info.append(flag_name(row[MODE]) + (" (queue)" if d.implicit else ""))
        else:
            if d.dtype is not None:
                info.append(f"{d.dtype.name} x{d.count}")
            for acc in d.accesses:
                where = "UB" if acc.mem == 0 else f"GM {getattr(gm[acc.mem], 'name', acc.mem)}"
                lib = " (library temp)" if acc.pattern is AccessPattern.LIBRARY_TEMP else ""
                info.append(f"{'W' if acc.write else 'R'} {where}[{acc.start}, {acc.end}){lib}")
        py, cpp = records.position_of(row)
        lines.append(f"{head} {'  '.join(info)}    {py}" + (f" ({cpp})" if cpp else ""))
        for a, acc in enumerate(d.accesses):
            raw = values.get((idx, a))
            if raw is not None:
                lines.append(f"{'':8}{'W' if acc.write else 'R'}{a}: "
                             + _format_values(row, a, raw))
    return "\n".join(lines)
