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

from ..core import PIPE_NAMES, CoreState
from ..dtypes import BY_CODE, float, half
from ..instructions.cmpsel import SELECT_TMP_ACCESS
from ..registry import PREFIX, REGISTRY, W
from ..source import describe_position

__all__ = ["capture", "attach", "detach", "CapturingRecords", "format_trace", "Capture"]

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
        rec = self[index]
        if REGISTRY[rec[0]].family in ("queue", "sync"):
            return
        dt = BY_CODE.get(rec[4])
        size = dt.size if dt is not None else 1
        for a, i in enumerate(range(PREFIX, len(rec), 4)):
            if bool(rec[i] & W) != writes:
                continue
            mem, start, end = rec[i + 1], rec[i + 2], rec[i + 3]
            data = self.core.ub if mem == 0 else getattr(self.core.gm[mem], "data", None)
            if data is None:
                continue
            lo, hi = max(start, 0), min(end, start + self.k * max(size, 1), data.size)
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


def _format_values(rec: tuple, access: int, raw: bytes, count: int) -> str:
    name = REGISTRY[rec[0]].name
    dt = BY_CODE.get(rec[4])
    i = PREFIX + 4 * access
    nbytes = rec[i + 3] - rec[i + 2]
    is_mask = (name in ("Compare", "CompareScalar") and access == 0) or (
        name == "Select" and access == 2)
    if dt is not None and not is_mask and count and name == "Cast" and access == 1:
        src_size = nbytes // count if count else dt.size
        dt = float if src_size == 4 else (half if src_size == 2 and dt is float else None)
    if dt is None or is_mask or dt.size == 0:
        return " ".join(f"{b:02x}" for b in raw)
    n = len(raw) // dt.size
    vals = np.frombuffer(raw[:n * dt.size], dtype=dt.numpy)
    return "[" + ", ".join(str(v) for v in vals) + "]"


def format_trace(core: CoreState, limit: int | None = None) -> str:
    """The core's instruction log: serialNo, pipe, instruction, dtype/count, operands, kernel
    line (and mirrored C++ line), and captured values when there are any."""
    records = core.records
    values = getattr(records, "values", {})
    lines = [f"core {core.block_idx}: {len(records)} instruction(s)"]
    gm = core.gm
    for idx, rec in enumerate(records):
        if limit is not None and idx >= limit:
            lines.append(f"... {len(records) - limit} more")
            break
        ins = REGISTRY[rec[0]]
        dt = BY_CODE.get(rec[4])
        head = f"{idx:6d}  {PIPE_NAMES[rec[1]]:<4} {ins.name:<14}"
        info = []
        if ins.family == "sync":
            if ins.name == "PipeBarrier":
                info.append(f"PIPE_{PIPE_NAMES[rec[7]]}")
            else:
                from ..sync import flag_name
                info.append(flag_name(rec[7]) + (" (queue)" if rec[5] else ""))
        else:
            if dt is not None:
                info.append(f"{dt.name} x{rec[5]}")
            for a, i in enumerate(range(PREFIX, len(rec), 4)):
                mem = rec[i + 1]
                where = "UB" if mem == 0 else f"GM {getattr(gm[mem], 'name', mem)}"
                lib = " (library temp)" if ins.name == "Select" and a == SELECT_TMP_ACCESS else ""
                info.append(f"{'W' if rec[i] & W else 'R'} {where}[{rec[i + 2]}, "
                            f"{rec[i + 3]}){lib}")
        py, cpp = describe_position(rec[2], rec[3]) if rec[2] is not None else ("<ascsim>", None)
        lines.append(f"{head} {'  '.join(info)}    {py}" + (f" ({cpp})" if cpp else ""))
        for a in range((len(rec) - PREFIX) // 4):
            raw = values.get((idx, a))
            if raw is not None:
                lines.append(f"{'':8}{'W' if rec[PREFIX + 4 * a] & W else 'R'}{a}: "
                             + _format_values(rec, a, raw, rec[5]))
    return "\n".join(lines)
