"""Deferred execution: the numba work runs in batches, beside the kernel's Python.

A vector or copy call checks its operands and records its row as the eager simulator does (in every
sanitize mode: check mode's online checks live in the same front ends), and then, instead of running
its numba work, appends the row to its core's `Batch`, with a header: which work function with which
compile-time literals (the call's *kind*) and which GM buffer it touches. Every 256 rows become one
int64 array, which the launch's `Executor` publishes to a ring that its worker thread reads: the
worker is one nogil numba call for the whole launch (`serve`), which runs the batches in
publication order (`run_batch`: every row's registry work function through a table of the native
addresses of its compiled specialisations, the ones eager execution calls) and naps on a pipe
when it has nothing to do (a wait for it writes a byte there), so it never needs the GIL, while
the kernel's Python goes on capturing the next rows on the main thread.

The order of the work is the eager order: a row is added at the moment eager execution would run
its work (after sync.py's pipe-stall logic, which stays in Python: work issued to a stalled pipe
waits in its backlog as before), batches run one after another in submission order, and whatever
needs memory from Python (GetValue/SetValue, printf and DumpTensor, the instructions that still
run eagerly, errors, the end of the launch) first calls `Batch.sync`, which waits until the
worker has run everything submitted and then runs the core's remaining rows on its own thread
(a kernel that reads UB every few rows would otherwise spend its time handing rows to the
worker and back). A cross-core point (SyncAll, CrossCoreSetFlag/WaitFlag) and the end of a core
only submit the core's rows: the other cores' work runs after them in the same queue, and their
Python waits for the queue before it reads memory. So the outputs, the records and the
sanitizer's findings are the eager ones, bit for bit, for every kernel (tests/test_batch.py runs
every shipped and test kernel both ways). In check mode a copy that may write GM shows its row
to the launch snapshot before it is deferred (datacopy._defer_appended).
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import hashlib
import importlib
import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .recordstore import flat_ints
from .workcall import NO_GM, compile_specialisation, compile_work, work_signature

__all__ = ["Batch", "Executor", "kind_of", "compile_in_background", "EAGER", "BATCH_ROWS",
           "MAX_ROW", "array_at", "libc_address"]

_BYTES = types.Array(types.uint8, 1, "C")

# A row's header is kind << _GM_BITS | the memory id of its GM buffer (0: none).
_GM_BITS = 8
_GM_MASK = (1 << _GM_BITS) - 1
# rows per submitted batch: enough that the per-batch cost (a thread hand-over and a numba call,
# about 20 us) is small next to its work, few enough that the worker starts early and a sync
# waits for little
BATCH_ROWS = 256
# a sync with at most this many rows calls their work one by one (Executor.run_here)
_INLINE_ROWS = 8
# the longest row a kind may have (records.py's rows have 14 to 30 ints)
MAX_ROW = 64
# a kind's columns in the kind table: its entry's address, its row length, its literals
_ADDRESS, _LEN, _LITERALS = 0, 1, 2
_COLUMNS = 5


# kind_of's answer for a kind that runs eagerly in this process: its work is not compiled yet,
# and compiles in a background process instead (compile_in_background)
EAGER = -1


def _native_address(kernel: Any, literals: tuple[int, int, int], row_len: int) -> int:
    """The address of the native code of `kernel` specialised on `literals` and rows of
    `row_len` ints: the specialisation the eager path calls (`Work.entry`), compiled or loaded
    from numba's disk cache like any other, so deferring a kind compiles nothing more."""
    if not 0 < row_len <= MAX_ROW:
        raise ValueError(f"a batched row has 1 to {MAX_ROW} ints, not {row_len}")
    sig = work_signature(literals, row_len)
    compile_specialisation(kernel, sig)
    cres = kernel.overloads[sig]
    if cres.signature.return_type != types.none:
        raise TypeError(f"work {kernel.py_func.__qualname__} returns "
                        f"{cres.signature.return_type}: batched work returns nothing")
    address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    if not address:
        raise RuntimeError(f"no native code for {kernel.py_func.__qualname__}{sig}")
    return address


@intrinsic
def _call_work(typingctx, kinds, kind, ub, gm_address, gm_bytes, flat, p):
    """Call kind `kind`'s work (a row `kinds[kind]` of the kind table) on `ub`, the GM bytes at
    `gm_address` and the row at `flat[p:]`, with numba's own calling convention; true when
    the work raised nothing. The call is a switch over the row lengths, as the convention
    passes a row's ints as separate arguments."""
    def codegen(context, builder, signature, args):
        kinds_v, kind_v, ub_v, gm_address_v, gm_bytes_v, flat_v, p_v = args
        i64 = ir.IntType(64)
        table = context.make_array(signature.args[0])(context, builder, kinds_v)
        flat = context.make_array(signature.args[5])(context, builder, flat_v)

        def column(j):
            at = builder.add(builder.mul(kind_v, ir.Constant(i64, _COLUMNS)), ir.Constant(i64, j))
            return builder.load(builder.gep(table.data, [at]))

        gm = context.make_array(_BYTES)(context, builder)
        one = context.get_constant(types.intp, 1)
        context.populate_array(gm, data=builder.inttoptr(gm_address_v, ir.IntType(8).as_pointer()),
                               shape=[gm_bytes_v], strides=[one], itemsize=one, meminfo=None)
        gm_v = gm._getvalue()
        literals = [column(_LITERALS + j) for j in range(3)]
        address = column(_ADDRESS)
        ok = cgutils.alloca_once_value(builder, cgutils.true_bit)
        done = builder.append_basic_block("done")
        switch = builder.switch(column(_LEN), done)
        for n in range(1, MAX_ROW + 1):
            block = builder.append_basic_block(f"row{n}")
            switch.add_case(ir.Constant(i64, n), block)
            with builder.goto_block(block):
                row_type = types.UniTuple(types.int64, n)
                row = context.make_tuple(builder, row_type, [
                    builder.load(builder.gep(flat.data, [builder.add(p_v, ir.Constant(i64, k))]))
                    for k in range(n)])
                arg_types = (types.int64,) * 3 + (_BYTES, _BYTES, row_type)
                fn_type = context.call_conv.get_function_type(types.none, arg_types)
                status, _ = context.call_conv.call_function(
                    builder, builder.inttoptr(address, fn_type.as_pointer()), types.none,
                    arg_types, [*literals, ub_v, gm_v, row])
                builder.store(builder.not_(status.is_error), ok)
                builder.branch(done)
        builder.position_at_end(done)
        return builder.load(ok)
    return types.boolean(kinds, kind, ub, gm_address, gm_bytes, flat, p), codegen


@njit(cache=True, nogil=True, error_model="numpy")
def run_batch(kinds, gm_addresses, gm_bytes, ub, heads, flat):
    """Run a batch: row i (the next kinds[kind, _LEN] ints of `flat`) through its header's
    kind. Returns the number of rows run: all of them, or up to the first whose work raised."""
    p = 0
    for i in range(heads.size):
        kind = heads[i] >> _GM_BITS
        gm = heads[i] & _GM_MASK
        if not _call_work(kinds, kind, ub, gm_addresses[gm], gm_bytes[gm], flat, p):
            return i
        p += kinds[kind, _LEN]
    return heads.size


# ---- the worker: a native loop over a ring of published batches --------------------------------
# A worker that returned to Python between batches needed the GIL each time, which the kernel's
# thread holds nearly always: it waited for a switch interval per batch (measured: SCE fp32
# 2^22 spent 45% of its worker's time there, and its launch waited 18 ms at its end for the
# worker to catch up). So the worker is one nogil call for the whole launch (`serve`), which
# takes batches from a ring the kernel's thread publishes them to and never needs the GIL.
# A ring entry: the addresses and lengths of a batch's arrays (kept alive by the Executor
# until the worker is past them) and of the kind table it was made with.
_UB, _UB_LEN, _HEADS, _ROWS, _FLAT, _FLAT_LEN, _TABLE, _TABLE_ROWS = range(8)
_ENTRY = 8
_RING = 64  # batches published and not yet run, at most (submit waits for room)
# the control words: batches published (by the kernel's threads) and run (by the worker);
# stop (set by close); failed (1: a batch's row raised, then the row and its header)
_PUBLISHED, _RAN, _STOP, _FAILED, _FAILED_ROW, _FAILED_HEAD = range(6)
_CONTROL = 8
_SPINS = 2000   # polls of an empty ring before the worker naps
_NAP_MS = 1     # a nap's length, unless a wake-up byte ends it first
_WAKE_BYTES = 64  # wake-up bytes a napping worker drains at a time
_POLLIN = 1


@intrinsic
def _load_acquire(typingctx, words, i):
    """words[i], read with acquire order: what the other thread wrote before it is seen, and
    the compiler cannot keep the value in a register across polls."""
    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        at = builder.gep(array.data, [args[1]])
        return builder.load_atomic(at, "acquire", 8)
    return types.int64(words, i), codegen


@intrinsic
def _store_release(typingctx, words, i, value):
    """words[i] = value with release order: everything written before is seen first."""
    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        builder.store_atomic(args[2], builder.gep(array.data, [args[1]]), "release", 8)
        return context.get_dummy_value()
    return types.none(words, i, value), codegen


@njit(cache=True, nogil=True, error_model="numpy")
def _acquire(words, i):
    """words[i] read with acquire order, from Python: a plain numpy read may see the worker's
    count before the memory it wrote (on hardware that reorders loads)."""
    return _load_acquire(words, i)


@njit(cache=True, nogil=True, error_model="numpy")
def _release(words, i, value):
    """words[i] = value with release order, from Python: the worker sees what this thread
    wrote before (the ring entry, the batch's arrays) once it sees the value."""
    _store_release(words, i, value)


@intrinsic
def array_at(typingctx, address, n, dtype_of):
    """The C array of n elements at `address` (no owner: the caller keeps the memory alive), of
    the dtype of the one-element array `dtype_of`."""
    array_type = types.Array(dtype_of.dtype, 1, "C")

    def codegen(context, builder, signature, args):
        out = context.make_array(array_type)(context, builder)
        item = context.get_data_type(array_type.dtype)
        size = context.get_constant(types.intp, context.get_abi_sizeof(item))
        context.populate_array(out, data=builder.inttoptr(args[0], item.as_pointer()),
                               shape=[args[1]], strides=[size], itemsize=size, meminfo=None)
        return out._getvalue()
    return array_type(address, n, dtype_of), codegen


@intrinsic
def _table_at(typingctx, address, rows):
    """The kind table (rows x _COLUMNS int64s) at `address`."""
    table_type = types.Array(types.int64, 2, "C")

    def codegen(context, builder, signature, args):
        out = context.make_array(table_type)(context, builder)
        eight = context.get_constant(types.intp, 8)
        columns = context.get_constant(types.intp, _COLUMNS)
        context.populate_array(out, data=builder.inttoptr(args[0], ir.IntType(64).as_pointer()),
                               shape=[args[1], columns],
                               strides=[builder.mul(columns, eight), eight], itemsize=eight,
                               meminfo=None)
        return out._getvalue()
    return table_type(address, rows), codegen


@intrinsic
def _block_on(typingctx, read, fd, buffer, n):
    """read(fd, buffer, n) through the C library's read at address `read`: how the worker
    drains its wake-up pipe once a nap has seen bytes there."""
    def codegen(context, builder, signature, args):
        i64, i32 = ir.IntType(64), ir.IntType(32)
        fn_type = ir.FunctionType(i64, [i32, ir.IntType(8).as_pointer(), i64])
        with builder.if_then(builder.icmp_unsigned("!=", args[0], ir.Constant(i64, 0))):
            builder.call(builder.inttoptr(args[0], fn_type.as_pointer()),
                         [builder.trunc(args[1], i32),
                          builder.inttoptr(args[2], ir.IntType(8).as_pointer()), args[3]])
        return context.get_dummy_value()
    return types.none(read, fd, buffer, n), codegen


@intrinsic
def _nap(typingctx, poll, pollfd, timeout_ms):
    """poll(pollfd, 1, timeout_ms) through the C library's poll at address `poll`: > 0 when
    the descriptor has bytes to read; 0 at once where there is no poll (the worker polls)."""
    def codegen(context, builder, signature, args):
        i64, i32 = ir.IntType(64), ir.IntType(32)
        fn_type = ir.FunctionType(i32, [ir.IntType(8).as_pointer(), i64, i32])
        result = cgutils.alloca_once_value(builder, ir.Constant(i64, 0))
        with builder.if_then(builder.icmp_unsigned("!=", args[0], ir.Constant(i64, 0))):
            ready = builder.call(builder.inttoptr(args[0], fn_type.as_pointer()),
                                 [builder.inttoptr(args[1], ir.IntType(8).as_pointer()),
                                  ir.Constant(i64, 1), builder.trunc(args[2], i32)])
            builder.store(builder.sext(ready, i64), result)
        return builder.load(result)
    return types.int64(poll, pollfd, timeout_ms), codegen


@njit(cache=True, nogil=True, error_model="numpy")
def serve(ring, control, gm_addresses, gm_bytes, read, poll, nap_ms, wake_fd, scratch):
    """The worker: run the ring's batches in publication order until stopped; returns when
    `control[_STOP]` is set and every published batch has run, or when a row raised (then
    `control[_FAILED]` is 1). With nothing to run it polls a while, then naps: it waits
    `nap_ms` for a byte on the wake-up pipe `wake_fd` and, woken by one, drains the pipe into
    `scratch`. Publishing a batch writes nothing there, so that the kernel's thread makes no
    system call per batch (the write cost it about 20 us a batch on a 2-core VM); a napping
    worker finds the batches published meanwhile when its nap ends. Whoever waits for the
    worker writes a byte (Executor._wait_until, close)."""
    u8 = np.zeros(1, np.uint8)
    i64 = np.zeros(1, np.int64)
    pollfd = np.zeros(1, np.int64)  # struct pollfd: int fd, short events, short revents
    pollfd[0] = (wake_fd & 0xFFFFFFFF) | (_POLLIN << 32)
    idle = 0
    while True:
        done = control[_RAN]  # only this thread writes it
        if done < _load_acquire(control, _PUBLISHED):
            e = done % ring.shape[0]
            heads = array_at(ring[e, _HEADS], ring[e, _ROWS], i64)
            ran = run_batch(_table_at(ring[e, _TABLE], ring[e, _TABLE_ROWS]), gm_addresses,
                            gm_bytes, array_at(ring[e, _UB], ring[e, _UB_LEN], u8), heads,
                            array_at(ring[e, _FLAT], ring[e, _FLAT_LEN], i64))
            if ran < heads.size:
                control[_FAILED_ROW] = ran
                control[_FAILED_HEAD] = heads[ran]
                _store_release(control, _FAILED, 1)
                return
            _store_release(control, _RAN, done + 1)
            idle = 0
        elif _load_acquire(control, _STOP):
            return
        else:
            idle += 1
            if idle > _SPINS and _nap(poll, pollfd.ctypes.data, nap_ms) > 0:
                # woken: the bytes are there, so the read returns at once
                _block_on(read, wake_fd, scratch.ctypes.data, scratch.size)


def libc_address(name: str) -> int:
    """The address of the C library's function `name`, for native code to call; 0 where the
    process has none to find."""
    try:
        return ctypes.cast(getattr(ctypes.CDLL(None), name), ctypes.c_void_p).value or 0
    except (OSError, AttributeError, TypeError):
        return 0


# the worker's nap and its wake-up (without poll, the worker polls; without read, a byte
# written ends every later nap at once)
_READ, _POLL = libc_address("read"), libc_address("poll")


class _Kinds:
    """The process's kinds: (work function, literals, row length) -> a row of the kind table
    (its native address, row length and literals). The worker reads the table while the
    kernel's thread adds kinds, so a full table is replaced by a larger copy, never grown in
    place."""

    def __init__(self, capacity: int = 64) -> None:
        self.ids: dict[tuple, int] = {}
        self.lock = threading.Lock()
        self.table = np.zeros((capacity, _COLUMNS), np.int64)
        # kind -> (the entry point of its specialisation, its literals): for a few rows,
        # calling their work from Python costs less than a batch (Executor.run_here)
        self.calls: list[tuple[Any, tuple[int, int, int]]] = []
        self.ran = False  # run_batch has run in this process (and so is in the disk cache)

    def kind(self, kernel: Any, literals: tuple[int, int, int], row_len: int) -> int:
        key = (kernel, literals, row_len)
        found = self.ids.get(key)
        if found is not None:
            return found
        if _background is not None and not _background.ready(kernel, literals, row_len):
            return EAGER
        address = _native_address(kernel, literals, row_len)  # compiles outside the lock
        entry = compile_work(kernel, literals, row_len)  # the same specialisation
        with self.lock:
            found = self.ids.get(key)
            if found is None:
                found = len(self.ids)
                table = self.table
                if found == len(table):
                    table = np.concatenate([table, np.zeros_like(table)])
                table[found] = (address, row_len, *literals)  # no batch refers to it yet
                self.table = table
                self.calls.append((entry, literals))
                self.ids[key] = found
        _mark_compiled(_kind_name(kernel, literals, row_len))
        return found


_KINDS = _Kinds()


def kind_of(kernel: Any, literals: tuple[int, int, int], row_len: int) -> int:
    """The batch header of running rows of `row_len` ints through `kernel` with `literals` (one
    of a registry entry's `Work.kernels`, and the literals its `Work.bind` gives), without its
    GM memory id: callers or it in (`kind_of(...) | gm`). Compiles the kind's work on first
    use; EAGER instead, with compile_in_background on, while the work is not in numba's disk
    cache: the caller then runs the call eagerly (sync.eager_instead)."""
    kind = _KINDS.kind(kernel, literals, row_len)
    return EAGER if kind < 0 else kind << _GM_BITS


def kinds_since(first: int) -> list[tuple[str, str, tuple[int, int, int], int]]:
    """The kinds this process has made from slot `first` on, as (module, function name,
    literals, row length): what `load_kinds` takes in another process (forked.py)."""
    return [(k.py_func.__module__, k.py_func.__qualname__, literals, row_len)
            for (k, literals, row_len), slot in list(_KINDS.ids.items()) if slot >= first]


def kind_count() -> int:
    return len(_KINDS.ids)


def load_kinds(kinds: Sequence[tuple[str, str, tuple[int, int, int], int]]) -> None:
    """Make these kinds here (compiled, or loaded from numba's disk cache), so that processes
    forked later have them."""
    for module, name, literals, row_len in kinds:
        _KINDS.kind(_work_named(module, name), tuple(literals), row_len)


def _work_named(module: str, name: str) -> Any:
    """A registry work function by where it is defined (how kinds travel between processes)."""
    return getattr(importlib.import_module(module), name)


# ---- compiling in the background --------------------------------------------------------------
# A command's first run after an install would compile every kind's row work (a small function
# around the loop the eager path compiles anyway: about 0.2 s more per kind) and run_batch
# (about 1 s). With compile_in_background on, a kind whose work is not in numba's disk cache yet
# runs eagerly for the rest of the process, and a worker process compiles it into the cache for
# the next run. Marker files in the cache directory say what is cached: numba has no cheap
# "is it cached?" query.

_RUN_BATCH = "run_batch"
_background: _Background | None = None


def compile_in_background(on: bool = True) -> None:
    """Run kinds whose work is not compiled yet eagerly and compile them in a worker process
    (the `ascsim` command does this: a first run is then about as quick as an eager one), or,
    with `on=False` (the default state), compile them in this process on first use."""
    global _background
    if on and _background is None:
        _background = _Background()
    elif not on and _background is not None:
        _background.close()
        _background = None


def _markers() -> Path | None:
    return Path(numba.config.CACHE_DIR) / "batch_kinds" if numba.config.CACHE_DIR else None


def _kind_name(kernel: Any, literals: tuple[int, int, int], row_len: int) -> str:
    py = kernel.py_func
    what = f"{py.__module__}.{py.__qualname__}{literals}{row_len}"
    return hashlib.sha1(what.encode()).hexdigest()[:20]


def _mark_compiled(name: str) -> None:
    folder = _markers()
    if folder is None or (folder / name).exists():
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).touch()
    except OSError:
        pass  # a read-only cache: the next process compiles again


class _Background:
    """The worker process compiling kinds for the next run (`python -m ascsim.prewarm batch`,
    reading one kind per line on its standard input), and what this process knows is cached."""

    def __init__(self) -> None:
        self.known: dict[tuple, bool] = {}
        self.worker: Any = None

    def ready(self, kernel: Any, literals: tuple[int, int, int], row_len: int) -> bool:
        key = (kernel, literals, row_len)
        found = self.known.get(key)
        if found is None:
            folder = _markers()
            found = folder is not None and (folder / _RUN_BATCH).exists() and \
                (folder / _kind_name(kernel, literals, row_len)).exists()
            self.known[key] = found
            if not found and folder is not None:
                self._ask(kernel, literals, row_len)
        return found

    def _ask(self, kernel: Any, literals: tuple[int, int, int], row_len: int) -> None:
        from . import prewarm
        if self.worker is None:
            self.worker = prewarm.serve("batch")
        if self.worker is not None and self.worker.poll() is None:
            py = kernel.py_func
            line = f"{py.__module__} {py.__qualname__} {' '.join(map(str, literals))} {row_len}"
            try:
                self.worker.stdin.write(line + "\n")
                self.worker.stdin.flush()
            except OSError:
                pass  # the worker is gone: the kind compiles in a later process

    def close(self) -> None:
        """Let the worker finish what it was asked, without waiting for it."""
        if self.worker is not None and self.worker.stdin is not None:
            with contextlib.suppress(OSError):
                self.worker.stdin.close()


def prewarm() -> None:
    """The background worker (prewarm.py, group "batch"): compile run_batch, serve and the
    executor's helpers, then every kind named on standard input, marking each as cached. What
    it compiles is for the next run, so it yields the CPU to the command that started it,
    which compiles what it runs now."""
    with contextlib.suppress(AttributeError, OSError):
        os.nice(19)
    tiny = np.zeros(0, np.int64)
    run_batch(np.zeros((1, _COLUMNS), np.int64), tiny, tiny, np.zeros(0, np.uint8), tiny, tiny)
    stopped = np.zeros(_CONTROL, np.int64)
    stopped[_STOP] = 1
    serve(np.zeros((_RING, _ENTRY), np.int64), stopped, tiny, tiny, _READ, _POLL, _NAP_MS, -1,
          np.zeros(_WAKE_BYTES, np.uint8))  # returns at once
    _release(stopped, _PUBLISHED, _acquire(stopped, _RAN))  # what Executor calls
    _mark_compiled(_RUN_BATCH)
    for line in sys.stdin:
        module, name, a, b, c, row_len = line.split()
        kernel = _work_named(module, name)
        literals = (int(a), int(b), int(c))
        _native_address(kernel, literals, int(row_len))
        _mark_compiled(_kind_name(kernel, literals, int(row_len)))


class Executor:
    """A launch's worker thread: runs submitted batches in order (`serve`: one nogil call for
    the whole launch). `wait` returns when all of them have run (and raises what a batch
    raised)."""

    def __init__(self, gm: Sequence[Any]) -> None:
        # memory id k -> GM buffer k's bytes (0: no GM), as addresses: the launch holds them
        data = [NO_GM if buf is None else buf.data for buf in gm]
        if len(data) > _GM_MASK:
            raise ValueError(f"a launch has at most {_GM_MASK} GM buffers")
        self.gm_addresses = np.array([d.ctypes.data for d in data], np.int64)
        self.gm_bytes = np.array([d.size for d in data], np.int64)
        self._data = data
        self._ring = np.zeros((_RING, _ENTRY), np.int64)
        self._control = np.zeros(_CONTROL, np.int64)
        self._published = 0
        self._seen = 0  # batches this thread has seen run (through _acquire)
        # what the published batches' entries point at, kept alive until they have run
        self._alive: collections.deque[tuple] = collections.deque()
        self._lock = threading.Lock()  # kernels on several threads publish one at a time
        self._thread: threading.Thread | None = None
        self._wake_read = self._wake_write = -1  # the worker's wake-up pipe (_start)
        self._reported = False  # a failed batch has been raised once

    def submit(self, ub: np.ndarray, heads: list[int], rows: list[tuple]) -> None:
        """Publish rows (their headers, the rows) to run on `ub`. The rows become one int64
        array here, on the submitting thread (it holds the GIL: the worker could not convert
        them any faster)."""
        flat = flat_ints(rows, writable=True)
        head_array = np.array(heads, np.int64)
        table = _KINDS.table  # the table the headers' kinds are in (a larger one replaces it)
        with self._lock:
            if self._thread is None:
                self._start()
            n = self._published
            if n - self._seen >= _RING:
                self._wait_until(n - _RING + 1)
            self._forget_run()
            self._ring[n % _RING] = (ub.ctypes.data, ub.size, head_array.ctypes.data,
                                     head_array.size, flat.ctypes.data, flat.size,
                                     table.ctypes.data, len(table))
            self._alive.append((n, ub, head_array, flat, table))
            self._published = n + 1
            _release(self._control, _PUBLISHED, n + 1)  # the worker may take the entry now

    def _start(self) -> None:
        """Start the worker, with its wake-up pipe (made here, in the process that runs the
        worker: a process forked from this one makes its own)."""
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_write, False)
        self._thread = threading.Thread(
            target=serve, name="ascsim-batch", daemon=True,
            args=(self._ring, self._control, self.gm_addresses, self.gm_bytes, _READ, _POLL,
                  _NAP_MS, self._wake_read, np.zeros(_WAKE_BYTES, np.uint8)))
        self._thread.start()

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError):  # full: the worker has bytes to wake on
            os.write(self._wake_write, b"w")

    def wait(self) -> None:
        if self._seen == self._published:
            # nothing published has yet to run (and none failed: the count stops before a
            # failed batch); most syncs of a kernel that reads UB often find it so
            # (CrossEntropyLoss: 37k of 62k)
            return
        self._wait_until(self._published)  # (the arrays are let go of at the next submit)

    def _wait_until(self, ran: int) -> None:
        """Wait (giving the GIL to the kernel's other threads) until `ran` batches have run;
        raise what the worker's batch raised, once."""
        control = self._control
        polls = 0
        seen = _acquire(control, _RAN)
        if seen < ran and self._thread is not None:
            self._wake()  # it may be napping (publishing does not wake it)
        while seen < ran:
            if _acquire(control, _FAILED):
                if self._reported:
                    return  # the launch is ending on that error: nothing more will run
                self._reported = True
                raise RuntimeError(f"batched work raised on row {control[_FAILED_ROW]} of a "
                                   f"batch (header {control[_FAILED_HEAD]:#x})")
            if self._thread is None or not self._thread.is_alive():
                raise RuntimeError("the batch worker stopped before running every batch")
            # a sync usually waits for one batch (tens of microseconds): poll, then nap
            polls += 1
            time.sleep(0 if polls < 100 else 2e-5)
            seen = _acquire(control, _RAN)
        self._seen = seen

    def _forget_run(self) -> None:
        """Let go of the arrays of the batches that have run (under the lock: kernels on
        several threads submit)."""
        alive, ran = self._alive, self._seen
        while alive and alive[0][0] < ran:
            alive.popleft()

    def run_here(self, ub: np.ndarray, heads: list[int], rows: list[tuple]) -> None:
        """Run rows on this thread, after every batch submitted before them: what a sync needs.
        Handing them to the worker and waiting would cost two thread hand-overs (about 0.1 ms
        here); a kernel that reads UB every few rows (CrossEntropyLoss: 25k syncs of 1-2 rows
        at 2^22) would spend most of its time in them. A few rows call their work's entry
        points one by one: making a batch of them (two arrays, a dispatched numba call) costs
        several microseconds, an entry point about one per row."""
        self.wait()
        if len(heads) > _INLINE_ROWS:
            self._run(ub, np.array(heads, np.int64), flat_ints(rows, writable=True))
            return
        calls, data = _KINDS.calls, self._data
        for header, row in zip(heads, rows, strict=True):
            entry, (a, b, c) = calls[header >> _GM_BITS]
            entry(a, b, c, ub, data[header & _GM_MASK], row)

    def close(self) -> None:
        """Wait for every batch, then stop the worker."""
        try:
            self.wait()
        finally:
            if self._thread is not None:
                _release(self._control, _STOP, 1)
                self._wake()
                self._thread.join()
                self._thread = None
                os.close(self._wake_read)
                os.close(self._wake_write)
                self._alive.clear()
                if not _KINDS.ran and self._control[_RAN]:
                    _KINDS.ran = True
                    _mark_compiled(_RUN_BATCH)

    def _run(self, ub: np.ndarray, heads: np.ndarray, flat: np.ndarray) -> None:
        ran = run_batch(_KINDS.table, self.gm_addresses, self.gm_bytes, ub, heads, flat)
        if ran < heads.size:
            raise RuntimeError(f"batched work raised on row {ran} of a batch "
                               f"(header {heads[ran]:#x})")


class Batch:
    """One core's rows not yet submitted. `add(header, row)` is the deferred form of running a
    row's work; `submit` hands the rows to the executor; `sync` also waits for them."""

    __slots__ = ("executor", "ub", "heads", "rows")

    def __init__(self, executor: Executor, ub: np.ndarray) -> None:
        self.executor = executor
        self.ub = ub
        self.heads: list[int] = []
        self.rows: list[tuple] = []

    def add(self, header: int, row: tuple) -> None:
        self.rows.append(row)
        heads = self.heads
        heads.append(header)
        if len(heads) >= BATCH_ROWS:
            self.submit()

    def submit(self) -> None:
        if self.heads:
            self.executor.submit(self.ub, self.heads, self.rows)
            self.heads, self.rows = [], []

    def sync(self) -> None:
        """Every row added so far has run (on every core: rows of other cores run in the same
        queue); the core's last rows run on this thread (Executor.run_here)."""
        if self.heads:
            heads, rows = self.heads, self.rows
            self.heads, self.rows = [], []
            self.executor.run_here(self.ub, heads, rows)
        else:
            self.executor.wait()
