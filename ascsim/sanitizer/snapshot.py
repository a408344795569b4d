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
from numba import njit

from ..batch import raise_flag
from ..core import MEM_UB, pooled_bytes
from ..records import HEADER, NPARAM, W
from ..registry import REGISTRY

if TYPE_CHECKING:
    from ..batch import Executor
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


class _Copy:
    """The launch-time bytes of one GM buffer, as the copies of its chunks that are not all
    zero (`chunks()`): outputs and workspaces are mostly fresh zero pages, which then cost a
    read, not a copy. The copies are views of one pooled block: an output that reuses freed
    heap memory holds its garbage, and copying 16 MB of it into fresh pages took 100-190 ms
    where reused pages take a few (a fresh block's pages that no chunk is copied to are never
    touched). `work` is the copy: one nogil call, which a thread may make while the kernel's
    thread goes on; it raises `done` when it has read the buffer."""

    def __init__(self, data: np.ndarray) -> None:
        self.block = pooled_bytes(data.size)
        self.words = data.size // 8 * 8
        self.copied = np.zeros((data.size + _CHUNK - 1) // _CHUNK, np.uint8)
        self.done = np.zeros(1, np.int64)
        words, block = self.words, self.block
        self.work = (_copy_nonzero_chunks, (data[:words].view(np.uint64),
                                            block[:words].view(np.uint64), data[words:],
                                            block[words:], _CHUNK // 8, self.copied, self.done))

    def run(self) -> None:
        fn, args = self.work
        fn(*args)

    def chunks(self) -> dict[int, np.ndarray]:
        """{offset: copy} of the chunks that are not all zero (after `run`)."""
        block = self.block
        return {k * _CHUNK: block[k * _CHUNK:(k + 1) * _CHUNK]
                for k in np.flatnonzero(self.copied).tolist()}


@njit(cache=True, nogil=True, error_model="numpy")
def _copy_nonzero_chunks(src: np.ndarray, dst: np.ndarray, src_tail: np.ndarray,
                         dst_tail: np.ndarray, chunk: int, copied: np.ndarray,
                         done: np.ndarray) -> None:
    """dst = src for every `chunk` words of src that are not all zero (copied[k] = 1 for
    chunk k), the bytes past the last whole word (`src_tail`) going with the last chunk; then
    done[0] = 1. The search stops at the first word that is not zero: heap garbage is found at
    once, and only a chunk of zeros is read through."""
    for k in range(copied.size):
        start, stop = k * chunk, min((k + 1) * chunk, src.size)
        for i in range(start, stop):
            if src[i] != 0:
                for j in range(start, stop):
                    dst[j] = src[j]
                copied[k] = 1
                break
    tail = False
    for i in range(src_tail.size):
        dst_tail[i] = src_tail[i]
        tail |= src_tail[i] != 0
    last = copied.size - 1
    if tail and not copied[last]:  # bytes in the tail: its chunk is kept, zero words and all
        for j in range(last * chunk, src.size):
            dst[j] = src[j]
        copied[last] = 1
    raise_flag(done)


class LaunchSnapshot:
    """Launch-time bytes of the launch's GM buffers (`gm`: memory id k is gm[k - 1])."""

    def __init__(self, gm: Sequence[GmBuffer | None]) -> None:
        self.gm = list(gm)
        # memory id -> its launch-time bytes
        self.copies: dict[int, _Copy] = {}
        self.lock = threading.Lock()  # cores on threads may write a buffer first together
        self.executor: Executor | None = None  # a deferring launch's: copies run beside it
        self.copying: list[threading.Thread] = []
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
        """Copy buffer `mem` (and the buffers it overlaps). In a deferring launch a thread
        copies while the kernel's thread goes on (16 MB: about 2 ms); the executor holds back
        the batches submitted from now on, the write among them, until the copy has read the
        buffer."""
        with self.lock:
            for k in self.group.get(mem, ()):
                if k in self.copies:
                    continue
                copy = self.copies[k] = _Copy(self.gm[k - 1].data)
                if self.executor is None:
                    copy.run()
                    continue
                fn, args = copy.work
                thread = threading.Thread(target=fn, args=args, name="ascsim-snapshot",
                                          daemon=True)
                thread.start()
                self.copying.append(thread)
                self.executor.fence(thread, copy.done)

    def originals(self) -> list[np.ndarray | None]:
        """Every buffer's launch-time bytes (the buffer itself when nothing wrote it)."""
        for thread in self.copying:  # (the launch's end has waited for them already)
            thread.join()
        out: list[np.ndarray | None] = []
        for k, b in enumerate(self.gm):
            copy = self.copies.get(k + 1)
            if b is None or copy is None:
                out.append(None if b is None else b.data)
                continue
            data = np.zeros(b.nbytes, np.uint8)
            for i, chunk in copy.chunks().items():
                data[i:i + chunk.size] = chunk
            out.append(data)
        return out

    def attach(self, cores: list[CoreState], executor: Executor | None = None) -> None:
        """Copy what each GM-writing record of these cores writes first, from now on
        (`executor`: the launch's, when its cores defer their work)."""
        self.executor = executor
        for core in cores:
            core.gm_watch = self.before_write

    @staticmethod
    def detach(cores: list[CoreState]) -> None:
        """The launch has ended: nothing is watched any more."""
        for core in cores:
            core.gm_watch = None
