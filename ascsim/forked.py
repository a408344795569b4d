"""`launch(workers=N)`: a launch's cores traced in N processes, for hosts with more CPU cores.

One CPython thread captures every AscendC call of a launch, so a launch uses about one host core
(and a second for the deferred numba work, batch.py). With `workers=N` the launch, once set up,
forks N processes, and each runs a contiguous share of the cores (the *shares*) on its
copy-on-write copy of the GM buffers; the Unified Buffers live in a shared anonymous mapping.
Each child sends back, through a pipe, its cores' records and logs, and puts the GM bytes
they wrote (the byte ranges of the records' GM writes) in a shared staging copy of GM.

Shares that are independent give exactly what one process gives, so the launch keeps the
shared run only when that is certain, and otherwise runs again in one process from the caller's
arrays, which it has not touched yet:
- a cross-core point (SyncAll, CrossCoreSetFlag/WaitFlag) in any share: the cores of the other
  shares are not there to meet it;
- an error in any core: the one-process run raises it, from the one-process state;
- GM bytes one share writes and another reads or writes (from the records' byte ranges, which
  cover every access; a strided access counts its whole span): the shares' order would matter.
Then the bytes the children wrote are copied from the staging copy into the caller's arrays.

Forking, not a pool of long-lived processes: a forked child has the kernel, its arguments and
every compiled function already (any kernel, closures included, with nothing pickled), and the
inputs copy-on-write; the price is the fork itself, a few milliseconds for a large process.
The children are forked as a tree (each forks for half of its range of shares before running
its own), so the last one starts after about log2(N) forks rather than N. Only the fast mode
(sanitize="off") and POSIX hosts; the sanitizer and value traces run in one process.
"""

from __future__ import annotations

import marshal
import mmap
import os
import pickle
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import batch
from . import records as rec
from .recordstore import RecordStore

__all__ = ["available", "shared_bytes", "split", "run_shares", "NeedsOneProcess"]


class NeedsOneProcess(BaseException):
    """Raised in a core of a share that cannot go on without the other shares' cores."""


def available() -> bool:
    return hasattr(os, "fork")


def shared_bytes(nbytes: int) -> np.ndarray:
    """`nbytes` zero bytes that forked children share with this process (MAP_SHARED)."""
    return np.frombuffer(mmap.mmap(-1, max(1, nbytes)), np.uint8)[:nbytes]


def split(order: Sequence[int], workers: int) -> list[list[int]]:
    """`order` cut into `workers` contiguous shares of nearly equal size (none empty)."""
    n = len(order)
    workers = max(1, min(workers, n))
    cuts = [n * k // workers for k in range(workers + 1)]
    return [list(order[cuts[k]:cuts[k + 1]]) for k in range(workers)]


def run_shares(run_share: Callable[[list[int]], None], shares: list[list[int]],
               cores: Sequence[Any], gm: Sequence[Any], finish: Callable[[], None]) -> bool:
    """Run `run_share(share)` then `finish()` (the deferred work has all run) in a forked child
    per share. True when the shared run stands (see the module docstring): the cores then hold
    the children's records and logs, and `gm` (memory id k - 1 -> GmBuffer or None) the bytes
    they wrote."""
    known = len(rec._CODES)  # the code ids every child inherits
    kinds = batch.kind_count()   # and the batch kinds
    # where the children put the GM bytes they wrote (pages cost only where written)
    stage = [None if buf is None else shared_bytes(buf.nbytes) for buf in gm]
    pipes = [os.pipe() for _ in shares]  # share k's child writes its _Share to pipes[k][1]

    def run(k: int, forked: list[int]) -> None:  # in share k's child; does not return
        for read, _ in pipes:
            os.close(read)
        _child(run_share, shares[k], cores, finish, (known, kinds), stage, pipes[k][1],
               forked)

    children = _fork_tree(0, len(shares), pipes, run)
    results = []
    for read, _ in pipes:
        with os.fdopen(read, "rb") as pipe:
            data = pipe.read()
        results.append(pickle.loads(data) if data else None)
    for pid in children:
        os.waitpid(pid, 0)
    # what the children compiled or loaded, this process loads now: forked again, they have it
    batch.load_kinds(dict.fromkeys(k for got in results if got is not None for k in got.kinds))
    if any(got is None for got in results):
        return False
    if not independent([got.spans for got in results]):
        return False
    for share, got in zip(shares, results, strict=True):
        _take(got, share, cores)
        for mem, start, end in got.writes:
            gm[mem - 1].data[start:end] = stage[mem - 1][start:end]
    return True


def _fork_tree(lo: int, hi: int, pipes: list[tuple[int, int]],
               run: Callable[[int, list[int]], None], own: int | None = None) -> list[int]:
    """Fork a child for each share of [lo, hi) as a binary tree, so that the last one starts
    after about log2(N) forks, not N: this process forks a child for the upper half of the
    range, which forks for the rest of its half in turn and then runs the first share of it
    (`run(k, its children)`), and goes on with the lower half. Returns the pids this process
    forked. The write ends of pipes[lo:hi] (and of pipes[own], this process's own share) are
    the ones open here; each process closes those it does not write or hand on (a reader sees
    the end of a pipe only when every process holding its write end has closed it)."""
    forked: list[int] = []
    while hi > lo:
        mid = (lo + hi) // 2
        try:
            pid = os.fork()
        except OSError:  # no more processes: the shares not started send nothing, so the
            for k in range(lo, hi):  # launch runs again in one process
                os.close(pipes[k][1])
            break
        if pid == 0:  # the child for shares [mid, hi): its own is `mid`
            try:
                for k in [*range(lo, mid), *([] if own is None else [own])]:
                    os.close(pipes[k][1])
                run(mid, _fork_tree(mid + 1, hi, pipes, run, mid))
            finally:  # `run` exits; a child must never return into its parent's code
                os._exit(1)
        for k in range(mid, hi):
            os.close(pipes[k][1])
        forked.append(pid)
        hi = mid
    return forked


class _Share(NamedTuple):
    """What a child sends back about its share of the cores."""

    records: list[RecordStore]      # per core of the share
    logs: list[list[str]]
    codes: dict[int, bytes]         # the child's new code ids -> their code, marshalled
    spans: np.ndarray               # gm_spans of its records
    writes: list[tuple[int, int, int]]  # (memory id, start, end): the bytes are in the stage
    kinds: list[tuple]              # the batch kinds it made (batch.kinds_since)


def _child(run_share: Callable[[list[int]], None], share: list[int], cores: Sequence[Any],
           finish: Callable[[], None], inherited: tuple[int, int],
           stage: list[np.ndarray | None], write: int, forked: Sequence[int] = ()) -> None:
    """Run one share, send its _Share through `write`, wait for the children this process
    forked (its part of the tree) and exit."""
    known, kinds = inherited
    out = b""
    try:
        run_share(share)
        finish()
        rows = [RecordStore.pack(cores[c].records) for c in share]  # pickles as two arrays
        new_ids = {i for r in rows for i in np.unique(rec.Columns(r).code).tolist() if i >= known}
        codes = {i: marshal.dumps(rec._CODES[i]) for i in new_ids}
        spans = gm_spans(rows)
        gm = cores[share[0]].gm
        writes = _merged(spans[spans[:, 3] == 1, :3])
        for mem, start, end in writes:
            stage[mem - 1][start:end] = gm[mem].data[start:end]
        out = pickle.dumps(_Share(rows, [cores[c].log for c in share], codes, spans, writes,
                                  batch.kinds_since(kinds)), protocol=5)
    except BaseException:  # noqa: BLE001 - an empty message: the shared run does not stand
        out = b""
    finally:
        with os.fdopen(write, "wb") as pipe:
            pipe.write(out)
        for pid in forked:
            os.waitpid(pid, 0)
        os._exit(0)


def gm_spans(rows: list[list[tuple]]) -> np.ndarray:
    """The GM accesses of these cores' records that touch bytes: (memory id, start, end,
    written) rows."""
    parts = [np.zeros((0, 4), np.int64)]
    for r in rows:
        col = rec.Columns(r)
        gm = (col.acc_mem > 0) & (col.acc_end > col.acc_start)
        parts.append(np.stack([col.acc_mem[gm], col.acc_start[gm], col.acc_end[gm],
                               (col.acc_flags[gm] & rec.W) != 0], axis=1))
    return np.concatenate(parts)


def _merged(spans: np.ndarray) -> list[tuple[int, int, int]]:
    """(memory id, start, end) ranges, overlapping and touching ones merged."""
    merged: list[list[int]] = []
    for mem, start, end in spans[np.lexsort((spans[:, 1], spans[:, 0]))].tolist():
        if merged and merged[-1][0] == mem and start <= merged[-1][2]:
            merged[-1][2] = max(merged[-1][2], end)
        else:
            merged.append([mem, start, end])
    return [(m[0], m[1], m[2]) for m in merged]


def _take(got: _Share, share: list[int], cores: Sequence[Any]) -> None:
    """Give the parent's cores the child's records (code ids mapped to the parent's) and logs."""
    ids = {i: rec.code_id(marshal.loads(b)) for i, b in got.codes.items()}  # equal code: same id
    moved = {i: j for i, j in ids.items() if i != j}
    for c, store, log in zip(share, got.records, got.logs, strict=True):
        if moved:
            flat = store.flat.copy()
            at = store.off[:-1] + rec.CODE
            old = flat[at]
            for i, j in moved.items():
                flat[at[old == i]] = j
            store = RecordStore(flat, store.off)
        cores[c].records = store
        cores[c].log = log


def independent(spans: list[np.ndarray]) -> bool:
    """No GM byte written by one share is read or written by another; `spans[k]`: share k's
    `gm_spans`."""
    for k, mine in enumerate(spans):
        writes = mine[mine[:, 3] == 1]
        for j, theirs in enumerate(spans):
            if j == k or not len(writes) or not len(theirs):
                continue
            for mem in np.intersect1d(writes[:, 0], theirs[:, 0]):
                if _overlap(writes[writes[:, 0] == mem, 1:3], theirs[theirs[:, 0] == mem, 1:3]):
                    return False
    return True


def _overlap(writes: np.ndarray, accesses: np.ndarray) -> bool:
    """Whether any [start, end) of `accesses` meets the union of the `writes`."""
    order = np.argsort(writes[:, 0], kind="stable")
    starts, ends = writes[order, 0], np.maximum.accumulate(writes[order, 1])
    # the last write starting before each access's end: does it reach past the access start?
    i = np.searchsorted(starts, accesses[:, 1], side="left") - 1
    hit = i >= 0
    return bool(np.any(ends[i[hit]] > accesses[hit, 0]))

