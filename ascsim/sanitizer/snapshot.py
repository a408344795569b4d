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

When the first write is a copy deferred to the core's batch (batch.py), the snapshot's copy is
a row of that batch too, ahead of the write's: the worker thread copies in order with the work,
and the kernel's thread does not wait. A first write that Python makes itself right after the
hook (a library's internal copy, SetValue) has its buffer copied at once, as in eager execution,
and a later one waits, in the hook, for a copy still queued on the worker.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ..batch import EAGER, array_at, kind_of, libc_address
from ..core import MEM_UB, pooled_bytes
from ..instructions.datacopy import copy_blocks
from ..records import HEADER, NPARAM, W
from ..registry import REGISTRY

if TYPE_CHECKING:
    from ..batch import Batch, Executor
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
_PAGE = 4096
_WORDS = 512  # the 8-byte words a zero test ORs together between looks at the result
_MADV_POPULATE_WRITE = 23  # Linux's, since 5.14


@njit(cache=True, nogil=True, error_model="numpy")
def _all_zero(data, lo, hi):
    """Are data[lo:hi] all zero bytes? Read as 8-byte words, a page at a time."""
    whole = lo + (hi - lo) // 8 * 8
    words = data[lo:whole].view(np.uint64)
    for p in range(0, words.size, _WORDS):
        acc = np.uint64(0)
        for j in range(p, min(p + _WORDS, words.size)):  # no early exit: it vectorises
            acc |= words[j]
        if acc:
            return False
    for j in range(whole, hi):
        if data[j]:
            return False
    return True


@intrinsic
def _populate(typingctx, madvise, address, n):
    """madvise(the pages of the n bytes at `address`, MADV_POPULATE_WRITE) through the C
    library's madvise at address `madvise` (nothing when 0). An error (a kernel before 5.14, a
    read-only mapping) leaves the pages as they were: they are then only slower to write."""
    def codegen(context, builder, signature, args):
        i64, i32 = ir.IntType(64), ir.IntType(32)
        fn_type = ir.FunctionType(i32, [ir.IntType(8).as_pointer(), i64, i32])
        with builder.if_then(builder.icmp_unsigned("!=", args[0], ir.Constant(i64, 0))):
            first = builder.and_(args[1], ir.Constant(i64, -_PAGE))
            end = builder.add(args[1], args[2])
            builder.call(builder.inttoptr(args[0], fn_type.as_pointer()),
                         [builder.inttoptr(first, ir.IntType(8).as_pointer()),
                          builder.sub(end, first), ir.Constant(i32, _MADV_POPULATE_WRITE)])
        return context.get_dummy_value()
    return types.none(madvise, address, n), codegen


@njit(cache=True, nogil=True, error_model="numpy")
def _sparse_copy_into(data, out, kept, madvise):
    """Copy the 1 MB chunks of `data` that are not all zero to the same offsets of `out` and
    set their flags in `kept` (one per chunk). Outputs and workspaces are mostly fresh zero
    pages, which then cost a read, not a copy (and their pages of `out` are never touched).
    Garbage shows in a chunk's first page: only a chunk whose first page is zero is read
    through before it is copied.

    `data`'s pages are first faulted in for writing (`_populate`; `madvise`: the address of
    the C library's madvise, or 0): the kernel is about to write this buffer anyway (one it
    writes only sparsely is then resident in full, as if written). Reading a page nothing has
    touched yet maps the system's shared zero page there, and the first write then takes a
    copy-on-write fault instead of a plain one. On the 2-core VM, writing 16 MB of
    fresh memory took 8 ms, 23 ms after a read of it, and 4.5 + 1.7 ms populated first. In
    check mode, LogitGrad's cores (2^22, its output in reused heap memory) took 35 ms with the
    copy on the kernel's thread and 40 ms on the worker when the zero test read first, 31 and
    28 ms populated first, and 27-28 ms with no copy at all.
    """
    _populate(madvise, data.ctypes.data, data.size)
    for c in range(kept.size):
        lo = c * _CHUNK
        hi = min(lo + _CHUNK, data.size)
        if not _all_zero(data, lo, min(lo + _PAGE, hi)) or not _all_zero(data, lo, hi):
            copy_blocks(out, lo, 0, data, lo, 0, hi - lo, 1)
            kept[c] = 1


@njit(cache=True, nogil=True, error_model="numpy")
def copy_at_launch(_a, _b, _c, ub, gm, addresses):
    """The batched work (batch.py) of a buffer's first write: `_sparse_copy_into` of GM buffer
    `gm`. Its row is not a record but three addresses: the copy's bytes and chunk flags (a
    `_Copy`'s arrays, which the snapshot keeps alive) and madvise."""
    out_at, kept_at, madvise = addresses
    _sparse_copy_into(gm, array_at(out_at, gm.size, ub),
                      array_at(kept_at, (gm.size + _CHUNK - 1) // _CHUNK, ub), madvise)


# the C library's madvise on Linux (MADV_POPULATE_WRITE is Linux's), else 0
_MADVISE = libc_address("madvise") if sys.platform.startswith("linux") else 0


class _Copy:
    """One buffer's launch-time bytes: `data` (pooled memory of the buffer's size) holds the
    chunks flagged in `kept`; the others were all zero. The copies live in pooled memory: an
    output that reuses freed heap memory holds its garbage, and copying 16 MB of it into fresh
    pages took 100-190 ms where reused pages take a few. `queued`: the executor whose worker
    makes the copy, until a writer from Python has waited for it."""

    __slots__ = ("data", "kept", "queued")

    def __init__(self, nbytes: int) -> None:
        self.data = pooled_bytes(nbytes)
        self.kept = np.zeros(-(-nbytes // _CHUNK), np.uint8)
        self.queued: Executor | None = None

    def bytes(self) -> np.ndarray:
        out = np.zeros(self.data.size, np.uint8)
        for c in np.flatnonzero(self.kept):
            out[c * _CHUNK:(c + 1) * _CHUNK] = self.data[c * _CHUNK:(c + 1) * _CHUNK]
        return out


def _copy_kind() -> int:
    """The batch header of copy_at_launch (without its memory id), or batch.EAGER."""
    return kind_of(copy_at_launch, (0, 0, 0), 3)


class LaunchSnapshot:
    """Launch-time bytes of the launch's GM buffers (`gm`: memory id k is gm[k - 1])."""

    def __init__(self, gm: Sequence[GmBuffer | None]) -> None:
        self.gm = list(gm)
        # memory id -> its launch-time bytes
        self.copies: dict[int, _Copy] = {}
        self.lock = threading.Lock()  # cores on threads may write a buffer first together
        live = [(k + 1, b.data) for k, b in enumerate(self.gm) if b is not None]
        self.group = {k: [j for j, other in live if j == k or np.may_share_memory(data, other)]
                      for k, data in live}

    def before_write(self, row: tuple, core: CoreState | None = None,
                     deferred: bool = False) -> None:
        """Copy every GM buffer `row` writes that has not been copied yet (`core`: the core
        whose record it is). `deferred`: the caller defers the write itself to the core's batch
        (datacopy._defer_appended), so the copy may go there first. Other writers (a library's
        internal copy, SetValue) write from Python right after: their buffer is copied now, or,
        when a core (on another thread, say) has queued its copy on the worker, the worker has
        made it when this returns."""
        for i in range(HEADER + row[NPARAM], len(row), _ACCESS):
            mem = row[i + 1]
            if row[i] & W and mem != MEM_UB:
                copy = self.copies.get(mem)
                if copy is None:
                    self._copy(mem, core.batch if deferred and core is not None else None)
                elif not deferred and copy.queued is not None:
                    copy.queued.wait()
                    copy.queued = None

    def _copy(self, mem: int, batch: Batch | None) -> None:
        """Copy buffer `mem` and the buffers it overlaps. A deferring core (`batch`) adds the
        copy to its batch, ahead of the row that writes: the worker thread copies while the
        kernel's thread goes on (the copy is about a tenth of a check run of LogitGrad). The
        batch is handed over before the copies are published in `copies`, so a core on another
        thread that finds one there submits its writes after it."""
        with self.lock:
            header = _copy_kind() if batch is not None else EAGER
            made = {}
            for k in self.group.get(mem, ()):
                if k in self.copies:
                    continue
                copy = made[k] = _Copy(self.gm[k - 1].data.size)
                if header >= 0:
                    batch.add(header | k, (copy.data.ctypes.data, copy.kept.ctypes.data,
                                           _MADVISE))
                    copy.queued = batch.executor
                else:
                    _sparse_copy_into(self.gm[k - 1].data, copy.data, copy.kept, _MADVISE)
            if made and header >= 0:
                batch.submit()
            self.copies.update(made)

    def originals(self) -> list[np.ndarray | None]:
        """Every buffer's launch-time bytes (the buffer itself when nothing wrote it). Read
        once the launch's deferred work has run."""
        out: list[np.ndarray | None] = []
        for k, b in enumerate(self.gm):
            copy = self.copies.get(k + 1)
            out.append(b if b is None else b.data if copy is None else copy.bytes())
        return out

    def attach(self, cores: list[CoreState]) -> None:
        """Copy what each GM-writing record of these cores writes first, from now on."""
        for core in cores:
            core.gm_watch = partial(self.before_write, core=core)

    @staticmethod
    def detach(cores: list[CoreState]) -> None:
        """The launch has ended: nothing is watched any more."""
        for core in cores:
            core.gm_watch = None
