"""The state of one simulated AI Vector core: its Unified Buffer, its flags, its instruction record.

A kernel runs once per core. While it runs, `current_core()` (thread-local) is that core's
`CoreState`; tensors also carry their core, so instructions with tensor operands never need the
thread-local lookup.
"""

from __future__ import annotations

import mmap
import os
import sys
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .dtypes import ALL_DTYPES
from .errors import SimulationError

if TYPE_CHECKING:
    from .profile import HardwareProfile

__all__ = ["CoreState", "current_core", "bind_core", "PIPE_NAMES", "kernel_frame", "new_ubs",
           "settle_memory",
           "dummy_byte", "first_element_dummy"]

# Pipe numbers used in records. The AscendC `pipe_t` values are compiler-defined and not
# published, so these are ascsim's own; `PIPE_ALL` only appears as a PipeBarrier argument.
PIPE_S, PIPE_V, PIPE_MTE2, PIPE_MTE3, PIPE_ALL = 0, 1, 2, 3, 4
PIPE_NAMES = ("S", "V", "MTE2", "MTE3", "ALL")

# Memory ids used in records: 0 is the core's UB, 1.. are the launch's GM buffers.
MEM_UB = 0

_tls = threading.local()


class CoreState:
    """One AIV core. `records` holds one row per executed instruction (see records.py): a list
    while the core runs, a read-only recordstore.RecordStore once the launch has ended."""

    __slots__ = (
        "block_idx", "block_num", "profile", "ub", "views", "records", "flags", "waiting",
        "stalled", "backlog", "gm", "tiling_key", "pipe", "event_pool", "sanitizer", "log",
        "dummy", "first_element_dummy", "tmp_ub", "owned", "buffers", "queues", "uviews",
        "pad_reg",
        "deq_scale",
        "vmask", "acc_val", "maxmin_cnt",
        "xcore", "kernel_type", "tiling_struct", "batch", "gm_watch", "__weakref__",
    )

    def __init__(self, block_idx: int, block_num: int, profile: HardwareProfile,
                 gm: list[Any], tiling_key: int | None = None,
                 ub: np.ndarray | None = None) -> None:
        self.block_idx = block_idx
        self.block_num = block_num
        self.profile = profile
        # UB contents are unspecified at kernel start: the recognisable pattern (see new_ubs).
        self.ub = new_ubs(profile, 1)[0] if ub is None else ub
        self.dummy = dummy_byte(profile)            # what unspecified bytes read as (0..255)
        # how DataCopyPad fills dummy bytes without left/right padding (first_element_dummy)
        self.first_element_dummy = first_element_dummy(profile)
        # MOV_PAD_VAL, the pad value register (SetPadValue, DataCopyPad with isPad): its bits
        self.pad_reg = profile.pad_reg_init
        # DEQSCALE (SetDeqScale), the half bits Cast int32_t -> half multiplies by; None until
        # set (its reset value is not public)
        self.deq_scale: int | None = None
        self.tmp_ub = profile.tmp_ub_offset         # the library temp area's first byte
        # One typed view of the whole UB per dtype code; instructions index them by element.
        # ... and as unsigned integers of the dtype's size, for work that only moves bits
        self.views: list[np.ndarray | None] = [None] * (max(t.code for t in ALL_DTYPES) + 1)
        self.uviews: list[np.ndarray | None] = list(self.views)
        for t in ALL_DTYPES:
            self.views[t.code] = self.ub.view(t.storage)
            self.uviews[t.code] = self.ub.view(f"u{t.size}")
        self.records: Any = []  # list[tuple], then a RecordStore (runtime.launch packs it)
        # flags[event * 8 + id] = 1 while set and not yet waited for (binary semaphore)
        self.flags = [0] * N_FLAGS
        # waiting[pipe] = the flag index a stalled pipe waits for, or -1
        self.waiting = [-1, -1, -1, -1]
        self.stalled = 0           # bit mask of stalled pipes
        self.backlog: list[list] = [[], [], [], []]  # work issued to a stalled pipe
        self.gm = gm               # the launch's GM buffers, index = memory id
        self.tiling_key = tiling_key
        self.pipe = None           # the TPipe the kernel created (at most one per core)
        self.event_pool: dict[int, int] = {}  # HardEvent -> bit mask of ids held by TQue
        self.sanitizer = None      # set by the runtime when a sanitizer mode is on
        self.log: list[str] = []   # printf / DumpTensor output
        # kernel-side objects that point back at this core (TPipe, TQue, TBuf): unhooked when
        # the kernel ends, so that a finished run is freed as soon as nobody holds it
        self.owned: list[Any] = []
        # every TQue/TBuf buffer the kernel initialised (a record's buffer id indexes it) and
        # every TQue, kept after the kernel ends for the analyses
        self.buffers: list[Any] = []
        self.queues: list[Any] = []
        # cross-core state (instructions/crosscore.py): scheduler, atomic mode, workspace base
        self.xcore: Any = None
        # KERNEL_TASK_TYPE_DEFAULT's declaration (ascsim/tiling.py); None when undeclared
        self.kernel_type: int | None = None
        # REGISTER_TILING_DEFAULT / _FOR_TILINGKEY (ascsim/tiling.py): the struct that
        # GET_TILING_DATA must find for this launch's key; None when nothing is registered
        self.tiling_struct: Any = None
        # The vector unit's mask state (instructions/vmask.py): None is the reset state, Normal
        # mode with a full mask; else (counter mode?, low 64 bits, high 64 bits).
        self.vmask: tuple[bool, int, int] | None = None
        # Reduction result registers: ACC_VAL (bits of the last accumulating ReduceSum) and
        # MAX_MIN_CNT (value bits, index) of the last WholeReduceMax/Min.
        # None: nothing set them (instructions/reduce.py; maxmin_cnt is (value bits, index,
        # why it is undefined or ""))
        self.acc_val: int | None = None
        self.maxmin_cnt: tuple[int, int, str] | None = None
        # the launch's deferred work (batch.Batch), or None: every call runs its work eagerly
        self.batch: Any = None
        # check mode's launch snapshot hook (sanitizer/snapshot.py), called with each record
        # that may write GM before it is appended (append_gm_writer), or None
        self.gm_watch: Any = None

    def __repr__(self) -> str:
        return f"<core {self.block_idx}/{self.block_num}>"


def append_gm_writer(core: CoreState, row: tuple) -> None:
    """Append a record that may write GM (a copy to GM, GlobalTensor.SetValue): in check mode
    the launch snapshot first copies the GM buffers it writes, while they still hold their
    launch-time bytes. Every other record is a plain `core.records.append` (the deferred
    copies call the hook before they are deferred: datacopy._defer_appended;
    tests/test_atomics.py checks that no GM write of a check-mode run bypasses the hook; the
    hook returns once a copy another core queued on the worker has been made)."""
    if core.gm_watch is not None:
        core.gm_watch(row)
    core.records.append(row)


def settle_memory(core: CoreState | None) -> None:
    """Before Python reads or writes UB or GM bytes itself: the deferred work added so far has
    run (batch.py; nothing to do when the core runs its work eagerly)."""
    if core is not None and core.batch is not None:
        core.batch.sync()


# a core's SetFlag/WaitFlag flags: HardEvent x 8 + event id
N_FLAGS = 64 * 8


class _BlockPool:
    """Memory of large blocks whose launches are over (UBs, the sanitizer's launch-time GM
    copies), kept for the next launches.

    Memory a process has not touched yet is slow to fault in, and on some hosts a freshly
    allocated large numpy array (which numpy asks the kernel to back with huge pages) sometimes
    waits tens of milliseconds for the kernel to compact memory (tools/bench_fresh_memory.py,
    48 UBs on a 2-core VM: a median of about 1 ms either way, worst 60-71 ms fresh, 6-7 ms from
    here). So a block is a private anonymous mapping that goes back here when the last view of
    it dies (a run's cores keep their UBs for as long as the run lives), and the next request
    of the same size gets it as it was left (new_ubs refills a UB block with the dummy byte).
    UB blocks and snapshot copies share the `_KEEP_BYTES` that may wait here: a block coming
    back pushes out the blocks that have waited longest, so the pool holds the sizes the recent
    launches use (the rest goes back to the OS)."""

    _KEEP_BYTES = 64 << 20

    def __init__(self) -> None:
        self._free: dict[int, list[mmap.mmap]] = {}  # size -> blocks, the latest back last
        self._order: dict[int, int] = {}  # id of a waiting block -> its size, oldest first
        self._kept = 0
        self._lock = threading.Lock()
        if hasattr(os, "register_at_fork"):  # a thread may hold the lock while another forks
            os.register_at_fork(after_in_child=self._new_lock)

    def _new_lock(self) -> None:
        self._lock = threading.Lock()

    def take(self, nbytes: int) -> np.ndarray:
        with self._lock:
            spare = self._free.get(nbytes)
            memory = spare.pop() if spare else None
            if memory is not None:
                del self._order[id(memory)]
                self._kept -= nbytes
        if memory is None:
            # private: a forked process (a sweep's workers) gets its own copy on write, not
            # the same memory (an anonymous mmap is shared by default)
            memory = mmap.mmap(-1, max(nbytes, 1), flags=mmap.MAP_PRIVATE)
        block = np.frombuffer(memory, np.uint8, nbytes)
        # every view of the block has it as its base (numpy collapses bases to the array
        # that wraps the buffer): when it dies, no view of this memory is left
        weakref.finalize(block, self._give_back, memory, nbytes)
        return block

    def _give_back(self, memory: mmap.mmap, nbytes: int) -> None:
        if nbytes > self._KEEP_BYTES:
            return
        with self._lock:
            while self._kept + nbytes > self._KEEP_BYTES:  # the longest waiting go first
                oldest, size = next(iter(self._order.items()))
                del self._order[oldest]
                same = self._free[size]
                same.pop(next(i for i, m in enumerate(same) if id(m) == oldest))
                self._kept -= size
            self._free.setdefault(nbytes, []).append(memory)
            self._order[id(memory)] = nbytes
            self._kept += nbytes

    def waiting_bytes(self) -> int:
        """The bytes of the blocks waiting for a launch."""
        return self._kept


_POOL = _BlockPool()


def pooled_bytes(nbytes: int) -> np.ndarray:
    """`nbytes` uninitialised bytes from the pool (`_BlockPool`): they go back to it when the
    last view of them dies."""
    return _POOL.take(nbytes)


def new_ubs(profile: HardwareProfile, count: int,
            allocate: Callable[[int], np.ndarray] | None = None) -> list[np.ndarray]:
    """`count` Unified Buffers filled with the dummy byte, cut from one block: one large block
    is faulted in far faster than many small ones, which matters for a 48-core launch, and it
    is reused by later launches once nothing refers to it (`_BlockPool`). `allocate(nbytes)`:
    where the block lives instead (forked launches: shared memory)."""
    size = profile.ub_bytes
    block = (allocate or pooled_bytes)(count * size)
    block[:] = dummy_byte(profile)
    return [block[i * size:(i + 1) * size] for i in range(count)]


def dummy_byte(profile: HardwareProfile) -> int:
    """The byte that unspecified memory reads as: 0xFF is a NaN for fp32, fp16 and bf16."""
    return 0 if profile.dummy_fill == "zero" else 0xFF


def first_element_dummy(profile: HardwareProfile) -> int:
    """How DataCopyPad GM->UB fills the dummy bytes of a block without left/right padding: 0
    with the dummy byte, 1 with the block's first element, 2 with the pad value when isPad is
    set and else the first element (the profile's dummy_fill)."""
    return {"first_element": 1, "pad_if_isPad_else_first_elem": 2}.get(profile.dummy_fill, 0)


def current_core() -> CoreState:
    core = getattr(_tls, "core", None)
    if core is None:
        raise SimulationError("this AscendC call needs a running kernel: call it from a kernel "
                              "started with ascsim.launch")
    return core


def bind_core(core: CoreState | None) -> None:
    """Make `core` the current core of this thread (None unbinds)."""
    _tls.core = core


_ASCSIM_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def kernel_frame(depth: int = 2) -> tuple[Any, int]:
    """(code object, last instruction offset) of the first frame outside ascsim, at least
    `depth` frames up: the kernel line that made the current call."""
    f = sys._getframe(depth)
    while f.f_code.co_filename.startswith(_ASCSIM_DIR) and f.f_back is not None:
        f = f.f_back
    return f.f_code, f.f_lasti
