"""The GM state at launch, for the atomic-order re-run (crosscore.order_findings), copied lazily.

A check-mode launch may have to run its kernel again from the original GM bytes. Copying every
GM buffer up front costs more than the whole fast-mode run on large inputs (fresh memory is
slow to fault in), and most launches never need it. So a buffer is copied just before the
first record that writes it enters its core's record list: every GM write appends its record
before its work runs (records.py: a record describes what the call does), through
`core.append_gm_writer`, which calls the snapshot's hook first, so the copy still holds the
launch-time bytes. (Watching every append instead, with a list subclass, cost check runs a
few percent; tests/test_atomics.py checks with such a list that no GM-writing record bypasses
the hook.) Buffers a launch only reads (its inputs) are never copied; their bytes at
the end are their bytes at launch. Buffers whose memory overlaps are copied together.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..core import MEM_UB, pooled_bytes
from ..records import HEADER, NPARAM, W
from ..registry import REGISTRY

if TYPE_CHECKING:
    from ..core import CoreState
    from ..memory import GmBuffer

__all__ = ["LaunchSnapshot", "may_write_gm"]

_ACCESS = 4  # ints per access in a row (records.py)


def may_write_gm(op: int) -> bool:
    """Can a record of instruction `op` write GM? (A vector instruction works on LocalTensors
    only.) The records that can go through `core.append_gm_writer`."""
    hit = _WRITES_GM.get(op)
    if hit is None:
        ins = REGISTRY[op]
        hit = _WRITES_GM[op] = ins.family != "vector" and any(
            o.write for o in ins.memory_operands)
    return hit


_WRITES_GM: dict[int, bool] = {}  # instruction id -> may_write_gm


_CHUNK = 1 << 20


def _sparse_copy(data: np.ndarray) -> dict[int, np.ndarray]:
    """The bytes of `data` as {offset: copy} of its chunks that are not all zero: outputs
    and workspaces are mostly fresh zero pages, which then cost a read, not a copy. The copies
    live in pooled memory: an output that reuses freed heap memory holds its garbage, and
    copying 16 MB of it into fresh pages took 100-190 ms where the reused pages take a few.
    Garbage shows in a chunk's first page: only a chunk whose first page is zero is read
    through before it is copied (16 MB of garbage: about 1 ms less)."""
    out = {}
    for i in range(0, data.size, _CHUNK):
        chunk = data[i:i + _CHUNK]
        if chunk[:4096].any() or chunk.any():
            out[i] = pooled_bytes(chunk.size)
            out[i][:] = chunk
    return out


class LaunchSnapshot:
    """Launch-time bytes of the launch's GM buffers (`gm`: memory id k is gm[k - 1])."""

    def __init__(self, gm: Sequence[GmBuffer | None]) -> None:
        self.gm = list(gm)
        # memory id -> its launch-time bytes, as the chunks that are not zero
        self.copies: dict[int, dict[int, np.ndarray]] = {}
        self.lock = threading.Lock()  # cores on threads may write a buffer first together
        live = [(k + 1, b.data) for k, b in enumerate(self.gm) if b is not None]
        self.group = {k: [j for j, other in live if j == k or np.may_share_memory(data, other)]
                      for k, data in live}

    def before_write(self, row: tuple) -> None:
        """Copy every GM buffer `row` writes that has not been copied yet."""
        for i in range(HEADER + row[NPARAM], len(row), _ACCESS):
            mem = row[i + 1]
            if row[i] & W and mem != MEM_UB and mem not in self.copies:
                self._copy(mem)

    def _copy(self, mem: int) -> None:
        with self.lock:
            for k in self.group.get(mem, ()):
                if k not in self.copies:
                    self.copies[k] = _sparse_copy(self.gm[k - 1].data)

    def originals(self) -> list[np.ndarray | None]:
        """Every buffer's launch-time bytes (the buffer itself when nothing wrote it)."""
        out: list[np.ndarray | None] = []
        for k, b in enumerate(self.gm):
            chunks = self.copies.get(k + 1)
            if b is None or chunks is None:
                out.append(None if b is None else b.data)
                continue
            data = np.zeros(b.nbytes, np.uint8)
            for i, chunk in chunks.items():
                data[i:i + chunk.size] = chunk
            out.append(data)
        return out

    def attach(self, cores: list[CoreState]) -> None:
        """Copy what each GM-writing record of these cores writes first, from now on."""
        for core in cores:
            core.gm_watch = self.before_write

    @staticmethod
    def detach(cores: list[CoreState]) -> None:
        """The launch has ended: nothing is watched any more."""
        for core in cores:
            core.gm_watch = None
