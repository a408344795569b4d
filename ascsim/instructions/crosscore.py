"""Cross-core execution: the core scheduler, `SyncAll`, `CrossCoreSetFlag`/`CrossCoreWaitFlag`,
the DMA atomic mode register (`SetAtomicAdd/Max/Min/None`, `DisableDmaAtomic`), the
multi-core indices (`GetSubBlockIdx`, `GetTaskRation`), `InitGlobalMemory` and the workspace
calls (`GetUserWorkspace`, `GetSysWorkSpacePtr`, `SetSysWorkspace`). Fact sheet:
ascendc_more.md section 3.

**Scheduling**: `ascsim/coresched.py` runs the cores; the calls here are its cross-core
points (`CoreScheduler.point`), and an atomic GM write with several batons waits for its turn
(`CoreScheduler.atomic_turn`).

**SyncAll.** Hard: `PipeBarrier<PIPE_ALL>` then a barrier over every AIV core of the launch
(the FFTS mode-0 flag 14 handshake is not modelled flag by flag: flags 11-14 are reserved, a
kernel's own CrossCoreSetFlag on them is reported). `SyncAll[False]()` (the AIV->AIC->AIV form)
needs AI Cube cores, which an AIV-only launch does not have: an error. Soft
(`SyncAll(gmWs, ubWs, usedCores)`): the sheet's GM epoch counters, recorded as the copies the
library makes (the slot read, the incremented slot written back, the final poll of all N
slots, PipeBarrier<PIPE_ALL> between them; the scalar increment itself is not a record), the
core waiting until the first int32 of the N slots sum to N x its epoch; the counter must read
as this core's number of earlier soft SyncAlls on that buffer (a buffer not zeroed before first
use is an error). ubWs[0, N x 32 B) is clobbered.

**CrossCoreSetFlag/WaitFlag.** 16 counters (0..15) per AIV core; a set past 15 is an error.
Mode 0 adds 1 to the counter of every AIV of the launch (a global barrier when each core waits
once). Modes 1 (the two AIVs of one AI Core) and 2 (AIC <-> AIV) need a mix kernel: an AIV-only
launch has no partner, so both are errors here (ascsim launches AIV-only kernels:
`GetTaskRation()` is 1 and `GetSubBlockIdx()` 0). Pipes V, MTE2 and MTE3 are accepted (M,
MTE1 and FIX do not exist on an AIV).

**Atomics.** A per-core mode register (op, T): every later UB->GM DataCopy / DataCopyPad does
GM[i] = GM[i] op data[i] in T (datacopy.py has the arithmetic); TPipe() resets it. A T other
than the copied dtype is an error (profile option `atomic_type_mismatch = "error"`, the only
choice: the hardware's behaviour is not public).

**Workspace.** The launch's `workspace` argument is a GM buffer whose first `user_ws_offset`
bytes (profile option, 16 MiB by default: RESERVED_WORKSPACE on 2201) are the system part;
`GetUserWorkspace(ws)` is a GM_ADDR (a `GlobalTensor<uint8_t>`) at ws + user_ws_offset, None for
a null ws. The buffer is allocated zero-filled by the OS on first touch (numpy's calloc), so the
system part costs no memory unless a kernel writes it.
"""

from __future__ import annotations

import sys
import threading
from collections import deque
from typing import Any

import numpy as np

from .. import records as rec
from ..core import (
    MEM_UB,
    PIPE_ALL,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_S,
    PIPE_V,
    CoreState,
    append_gm_writer,
    current_core,
    settle_memory,
)
from ..coresched import CoreScheduler
from ..dtypes import ALL_DTYPES, DType, bfloat16_t, half, int8_t, int16_t, int32_t, uint8_t
from ..dtypes import float as f32
from ..errors import DeadlockError, OutOfRangeError, ParameterError, SyncError
from ..faults import abort, fault, note
from ..memory import GlobalTensor, GmBuffer, LocalTensor
from ..registry import (
    AccessPattern,
    Cost,
    CostKind,
    CppDecl,
    Dataflow,
    Operand,
    Signature,
    register,
)
from ..sync import BARRIER, SET, WAIT, HardEvent, pipe_t, run_on_pipe, set_flag, wait_flag
from .datacopy import COPY, COPY_PAD, copy_blocks
from .elementwise import _duplicate

__all__ = ["SyncAll", "CrossCoreSetFlag", "CrossCoreWaitFlag", "GetSubBlockIdx",
           "GetTaskRation", "GetTaskRatio", "SetAtomicAdd", "SetAtomicMax", "SetAtomicMin",
           "SetAtomicNone", "DisableDmaAtomic", "InitGlobalMemory", "GetUserWorkspace",
           "GetSysWorkSpacePtr", "SetSysWorkspace"]
KERNEL_SURFACE = tuple(__all__)

ATOMIC_NONE, ATOMIC_ADD, ATOMIC_MAX, ATOMIC_MIN = 0, 1, 2, 3
ATOMIC_NAMES = ("None", "Add", "Max", "Min")
ATOMIC_DTYPES = (int8_t, int16_t, half, bfloat16_t, int32_t, f32)
N_XFLAGS = 16
XFLAG_MAX = 15
RESERVED_XFLAGS = frozenset({11, 12, 13, 14})
SOFT_SLOT_BYTES = 32

# ---- per-core and shared cross-core state ----------------------------------------------------

class CoreXState:
    """What one core keeps for the cross-core calls (`core.xcore`)."""

    __slots__ = ("sched", "shared", "atomic", "atomic_used", "internal", "sys_ws",
                 "soft_epochs", "phase")

    def __init__(self, sched: CoreScheduler | None) -> None:
        self.sched = sched
        self.shared: SharedCrossCore | None = None  # the launch's counters and flags
        self.atomic: tuple[int, DType] | None = None    # (ATOMIC_*, T) or None
        self.atomic_used = False          # the atomic mode was on at some point
        self.internal: set[int] = set()   # records a library call made for its own use
        self.sys_ws: GlobalTensor | None = None          # SetSysWorkspace's base
        self.soft_epochs: dict[tuple[int, int], int] = {}  # (mem, offset) -> soft SyncAlls
        self.phase = 0                    # SyncAlls passed


def xstate(core: CoreState) -> CoreXState:
    x = core.xcore
    if x is None:
        x = core.xcore = CoreXState(None)
    return x


class SharedCrossCore:
    """The cross-core state all cores of a launch share (read and written under the
    scheduler's lock): SyncAlls passed per core, the 16 flag counters of each core, and per
    (core, flag) the (core, record) of each set not yet consumed, oldest first."""

    __slots__ = ("hard_syncs", "xflags", "xsrc")

    def __init__(self, n: int) -> None:
        self.hard_syncs = [0] * n
        self.xflags = [[0] * N_XFLAGS for _ in range(n)]
        self.xsrc: list[list[deque[tuple[int, int]]]] = [
            [deque() for _ in range(N_XFLAGS)] for _ in range(n)]


def attach(cores: list[CoreState], sched: CoreScheduler) -> None:
    """Give the cores of a launch their scheduler and shared cross-core state."""
    shared = SharedCrossCore(len(cores))
    for core in cores:
        x = xstate(core)
        x.sched, x.shared = sched, shared


# ---- registry entries ---------------------------------------------------------------------------

_NONE = AccessPattern.NONE
SYNC_ALL = register(
    "SyncAll", family="sync", pipe=PIPE_S,
    operands=(Operand("isAIVOnly", _NONE), Operand("usedCores", _NONE)),
    signatures=(Signature((None, None)),), dataflow=Dataflow.BARRIER,
    cost=Cost(CostKind.CROSS_CORE), work=None,
    cpp=(CppDecl("template <bool isAIVOnly = true>\n__aicore__ void SyncAll();"),
         CppDecl("template <bool isAIVOnly = true>\n__aicore__ void SyncAll(const GlobalTensor"
                 "<int32_t> &gmWorkspace, const LocalTensor<int32_t> &ubWorkspace, const "
                 "int32_t usedCores = 0);")),
    doc="barrier over every AIV core of the launch (hard; or soft, through GM counters)")
XSET = register(
    "CrossCoreSetFlag", family="sync", pipe=PIPE_S,
    operands=(Operand("modeId", _NONE), Operand("pipe", _NONE), Operand("flagId", _NONE)),
    signatures=(Signature((None, None, None)),), dataflow=Dataflow.BARRIER,
    cost=Cost(CostKind.CROSS_CORE), work=None,
    cpp=(CppDecl("template <uint8_t modeId, pipe_t pipe>\n__aicore__ void CrossCoreSetFlag("
                 "uint16_t flagId);"),),
    doc="add 1 to a cross-core flag counter of the cores the mode names")
XWAIT = register(
    "CrossCoreWaitFlag", family="sync", pipe=PIPE_S,
    operands=(Operand("flagId", _NONE),), signatures=(Signature((None,)),),
    dataflow=Dataflow.BARRIER, cost=Cost(CostKind.CROSS_CORE), work=None,
    cpp=(CppDecl("__aicore__ void CrossCoreWaitFlag(uint16_t flagId);"),),
    doc="wait while this core's cross-core flag counter is 0, then decrement it")


def _atomic_entry(name: str, doc: str, templated: bool = True):
    ops = (Operand("T", _NONE),)
    text = (f"template <typename T>\n__aicore__ void {name}();" if templated
            else f"__aicore__ void {name}();")
    return register(name, family="scalar", pipe=PIPE_S, operands=ops,
                    signatures=tuple(Signature((t,)) for t in ATOMIC_DTYPES) if templated
                    else (Signature((None,)),),
                    dataflow=Dataflow.BARRIER, cost=Cost(CostKind.SCALAR), work=None,
                    cpp=(CppDecl(text),), doc=doc)


ATOMIC_ENTRIES = (
    None,
    _atomic_entry("SetAtomicAdd", "later UB->GM copies add into GM (in T)"),
    _atomic_entry("SetAtomicMax", "later UB->GM copies keep the maximum (in T)"),
    _atomic_entry("SetAtomicMin", "later UB->GM copies keep the minimum (in T)"),
)
ATOMIC_OFF = _atomic_entry("SetAtomicNone", "later UB->GM copies overwrite GM again",
                           templated=False)
ATOMIC_OFF2 = _atomic_entry("DisableDmaAtomic", "later UB->GM copies overwrite GM again "
                            "(the new name of SetAtomicNone)", templated=False)


def cross_core_role(row: tuple) -> str | None:
    """"sync" (a SyncAll), "set" (CrossCoreSetFlag) or "wait" (CrossCoreWaitFlag) for a
    cross-core record, None for any other."""
    op = row[rec.OP]
    if op == SYNC_ALL.id:
        return "sync"
    if op == XSET.id:
        return "set"
    if op == XWAIT.id:
        return "wait"
    return None


def cross_wait_partner(row: tuple) -> tuple[int, int] | None:
    """(core, record) of the CrossCoreSetFlag that released a CrossCoreWaitFlag record."""
    p = rec.params_of(row)
    return (p[1], p[2]) if len(p) >= 3 and p[1] >= 0 else None


def atomic_stores(cols: rec.Columns) -> np.ndarray:
    """The indices of one core's rows (as columns) that are UB->GM copies made under the DMA
    atomic mode (MODE holds the operation)."""
    return np.flatnonzero((cols.pipe == PIPE_MTE3) & (cols.mode != 0)
                          & ((cols.op == COPY.id) | (cols.op == COPY_PAD.id)))


# ---- helpers ------------------------------------------------------------------------------------

def _barrier_all(core: CoreState, f: Any) -> None:
    """The PipeBarrier<PIPE_ALL> a library call starts with."""
    core.records.append(rec.sync_row(BARRIER.id, PIPE_ALL, f.f_code, f.f_lasti, PIPE_ALL, 0))
    core.xcore.internal.add(len(core.records) - 1)
    if core.stalled:
        from ..core import PIPE_NAMES
        stuck = [PIPE_NAMES[p] for p in range(4) if core.stalled & (1 << p)]
        abort(core, DeadlockError(f"the PipeBarrier<PIPE_ALL> of a cross-core call while "
                                  f"pipe(s) {', '.join(stuck)} wait for flags that only later "
                                  "instructions could set", core=core.block_idx), f,
              serial=len(core.records) - 1)


def _marker(core: CoreState, ins, f: Any, params: tuple[int, ...]) -> int:
    core.records.append(rec.row(ins.id, PIPE_S, f.f_code, f.f_lasti, 0, 0, 0, 0, 0, params, ()))
    return len(core.records) - 1


def _internal_copy(core: CoreState, f: Any, pipe: int, buf: GmBuffer, gm_off: int, ub_off: int,
                   nbytes: int) -> None:
    """A library-internal DataCopy of whole 32-byte blocks, recorded at the kernel's line."""
    settle_memory(core)
    if pipe == PIPE_MTE2:
        row = rec.copy_row(COPY.id, PIPE_MTE2, f.f_code, f.f_lasti, int32_t.code, nbytes // 4, 1,
                           nbytes, nbytes, nbytes, rec.W, MEM_UB, ub_off, ub_off + nbytes, 0,
                           buf.mem_id, gm_off, gm_off + nbytes)
        core.records.append(row)
        copy_blocks(core.ub, ub_off, nbytes, buf.data, gm_off, nbytes, nbytes, 1)
    else:
        row = rec.copy_row(COPY.id, PIPE_MTE3, f.f_code, f.f_lasti, int32_t.code, nbytes // 4, 1,
                           nbytes, nbytes, nbytes, rec.W, buf.mem_id, gm_off, gm_off + nbytes, 0,
                           MEM_UB, ub_off, ub_off + nbytes)
        append_gm_writer(core, row)
        copy_blocks(buf.data, gm_off, nbytes, core.ub, ub_off, nbytes, nbytes, 1)
    core.xcore.internal.add(len(core.records) - 1)


# ---- SyncAll ------------------------------------------------------------------------------------

def _sync_all(aiv_only: bool, f: Any, gm_ws: GlobalTensor | None = None,
              ub_ws: LocalTensor | None = None, used_cores: int = 0) -> None:
    core = current_core()
    x = xstate(core)
    if not aiv_only:
        fault(core, ParameterError("SyncAll<false> synchronises the AI Cube cores too, and an "
                                   "AIV-only launch has none (use SyncAll<true>)"), f,
              instruction="SyncAll")
    if gm_ws is not None or ub_ws is not None:
        return _soft_sync_all(core, x, f, gm_ws, ub_ws, used_cores)
    _barrier_all(core, f)
    _marker(core, SYNC_ALL, f, (0, core.block_num, x.phase + 1))
    x.phase += 1
    sched = x.sched
    if sched is None or sched.n == 1:
        return
    c = core.block_idx
    k = x.phase
    counts = x.shared.hard_syncs

    def arrive() -> None:
        counts[c] = k

    def ready() -> bool:
        return all(v >= k for v in counts)

    sched.point(core, arrive, ready, None, f"SyncAll #{k}", f)


def _soft_sync_all(core: CoreState, x: CoreXState, f: Any, gm_ws: GlobalTensor | None,
                   ub_ws: LocalTensor | None, used_cores: int) -> None:
    name = "SyncAll(gmWorkspace, ubWorkspace)"
    if not isinstance(gm_ws, GlobalTensor) or not isinstance(ub_ws, LocalTensor):
        return fault(core, ParameterError(f"{name} takes a GlobalTensor<int32_t> and a "
                                          "LocalTensor<int32_t>"), f, instruction="SyncAll")
    if gm_ws.dtype is not int32_t or ub_ws.dtype is not int32_t:
        return fault(core, ParameterError(f"{name}: both workspaces are int32_t tensors, got "
                                          f"{gm_ws.dtype} and {ub_ws.dtype}"), f,
                     instruction="SyncAll")
    n = int(used_cores) or core.block_num
    c = core.block_idx
    if n < 1 or c >= n:
        return fault(core, ParameterError(f"{name}: usedCores {used_cores} leaves out this core "
                                          f"({c} of {core.block_num})"), f,
                     instruction="SyncAll")
    buf = gm_ws.buf
    if buf is None:
        abort(core, ParameterError(f"{name}: gmWorkspace used before SetGlobalBuffer"), f)
    need = n * SOFT_SLOT_BYTES
    base = gm_ws.byte_off
    if base < 0 or base + need > buf.nbytes:
        abort(core, OutOfRangeError(
            f"{name}: the {n} counter slots need GM bytes [{base}, {base + need}) of "
            f"{buf.name!r}, which has {buf.nbytes} bytes", buffer=f"GM {buf.name}"), f,
            instruction="SyncAll", memory=f"GM {buf.name}", start=base, end=base + need)
    if ub_ws.addr & 31 or ub_ws.size * 4 < need:
        abort(core, OutOfRangeError(
            f"{name}: ubWorkspace needs {need} bytes, 32-byte aligned; it has "
            f"{ub_ws.size * 4} at UB {ub_ws.addr}", buffer=ub_ws.origin), f,
            instruction="SyncAll", start=ub_ws.addr, end=ub_ws.addr + need)
    sched = x.sched
    lock = sched.lock if sched is not None else threading.Lock()
    slot = base + c * SOFT_SLOT_BYTES
    ub = ub_ws.addr
    key = (buf.mem_id, base)
    done = x.soft_epochs.get(key, 0)
    _barrier_all(core, f)
    _internal_copy(core, f, PIPE_MTE2, buf, slot, ub, SOFT_SLOT_BYTES)
    counter = core.ub[ub:ub + 4].view("<i4")
    if int(counter[0]) != done:
        fault(core, ParameterError(
            f"{name}: this core's counter at GM {buf.name} byte {slot} reads {int(counter[0])}, "
            f"but the core has made {done} soft SyncAll(s) on this workspace before (the "
            "workspace must be zeroed before its first use, and every core must call SyncAll "
            "equally often)"), f, instruction="SyncAll", memory=f"GM {buf.name}", start=slot,
            end=slot + 4)
    epoch = done + 1
    x.soft_epochs[key] = epoch
    counter[0] = int(counter[0]) + 1
    _barrier_all(core, f)
    with lock:
        _internal_copy(core, f, PIPE_MTE3, buf, slot, ub, SOFT_SLOT_BYTES)
    _barrier_all(core, f)
    _marker(core, SYNC_ALL, f, (1, n, x.phase + 1))
    x.phase += 1
    gm32 = buf.data[base:base + need].view("<i4")

    def ready() -> bool:
        return int(gm32[::8].astype("i8").sum()) >= n * epoch

    if sched is not None and sched.n > 1:
        sched.point(core, None, ready, None, f"soft SyncAll #{epoch}", f)
    elif not ready():
        abort(core, DeadlockError(f"soft SyncAll #{epoch} waits for {n} cores but the launch "
                                  f"has {core.block_num}", core=c), f)
    _internal_copy(core, f, PIPE_MTE2, buf, base, ub, need)
    _barrier_all(core, f)


class _SyncAll:
    """`SyncAll()`, `SyncAll[True]()`, `SyncAll[False]()` and the soft form
    `SyncAll(gmWs, ubWs, usedCores=0)`."""

    def __call__(self, gmWorkspace: GlobalTensor | None = None,
                 ubWorkspace: LocalTensor | None = None, usedCores: int = 0) -> None:
        _sync_all(True, sys._getframe(1), gmWorkspace, ubWorkspace, usedCores)

    def __getitem__(self, aiv_only: bool):
        def call(gmWorkspace: GlobalTensor | None = None, ubWorkspace: LocalTensor | None = None,
                 usedCores: int = 0) -> None:
            _sync_all(bool(aiv_only), sys._getframe(1), gmWorkspace, ubWorkspace, usedCores)
        return call


SyncAll = _SyncAll()


# ---- CrossCoreSetFlag / CrossCoreWaitFlag -------------------------------------------------------

_PIPE_TO_S = {PIPE_V: int(HardEvent.V_S), PIPE_MTE2: int(HardEvent.MTE2_S),
              PIPE_MTE3: int(HardEvent.MTE3_S)}
_XPIPES = {int(PIPE_V): "PIPE_V", int(PIPE_MTE2): "PIPE_MTE2", int(PIPE_MTE3): "PIPE_MTE3"}


def _cross_set(mode: int, pipe: int, flag_id: int, f: Any) -> None:
    core = current_core()
    x = xstate(core)
    name = f"CrossCoreSetFlag<{mode}, {pipe_t(pipe).name if pipe in set(pipe_t) else pipe}>"
    if pipe not in _XPIPES:
        return fault(core, SyncError(f"{name}: an AI Vector core sets cross-core flags from "
                                     "PIPE_V, PIPE_MTE2 or PIPE_MTE3"), f,
                     instruction="CrossCoreSetFlag")
    if mode in (1, 2):
        what = ("the two AIVs of one AI Core (1:2 mix kernels)" if mode == 1
                else "the AI Cube core of this AI Core (mix kernels)")
        return fault(core, SyncError(f"{name}: mode {mode} signals {what}; an AIV-only launch "
                                     "has no such partner (ascsim models mode 0 only)"), f,
                     instruction="CrossCoreSetFlag")
    if mode != 0:
        return fault(core, ParameterError(f"{name}: modeId must be 0, 1 or 2"), f,
                     instruction="CrossCoreSetFlag")
    flag = int(flag_id) & 0xF
    if flag in RESERVED_XFLAGS:
        note(core, SyncError(f"{name}({flag}): flags 11-14 are reserved for SyncAll"), f,
             check="reserved cross-core flag")
    # the set fires once the pipe's earlier work is done: it is a fence on that pipe
    core.records.append(rec.row(XSET.id, pipe, f.f_code, f.f_lasti, 0, 0, 0, 0, 0,
                                (mode, flag), ()))
    sched = x.sched
    if sched is None:
        targets = [[0] * N_XFLAGS]
        counters = targets
    else:
        counters = x.shared.xflags
    over = [j for j, cnt in enumerate(counters) if cnt[flag] >= XFLAG_MAX]
    if over:
        return fault(core, SyncError(f"{name}({flag}): the counter of core(s) "
                                     f"{', '.join(map(str, over))} is already at 15 (overflow: "
                                     "a set more than 15 ahead of its waits)"), f,
                     instruction="CrossCoreSetFlag", check="cross-core flag overflow")
    if sched is None:
        return

    src = (core.block_idx, len(core.records) - 1)

    def arrive() -> None:
        for cnt, fifo in zip(counters, x.shared.xsrc, strict=True):
            cnt[flag] += 1
            fifo[flag].append(src)

    sched.point(core, arrive, lambda: True, None, f"CrossCoreSetFlag({flag})", f)


class _CrossSet(dict):
    """`CrossCoreSetFlag[modeId, pipe](flagId)`."""

    def __missing__(self, key: Any):
        if not isinstance(key, tuple) or len(key) != 2:
            raise ParameterError(f"CrossCoreSetFlag[modeId, pipe] takes two template arguments, "
                                 f"got {key!r}")
        mode, pipe = int(key[0]), int(key[1])

        def call(flagId: int) -> None:
            _cross_set(mode, pipe, flagId, sys._getframe(1))
        call.__name__ = f"CrossCoreSetFlag<{mode}, {pipe}>"
        self[key] = call
        return call


CrossCoreSetFlag = _CrossSet()


def CrossCoreWaitFlag(flagId: int) -> None:
    """`CrossCoreWaitFlag(flagId)`: wait while this core's counter is 0, then decrement it."""
    f = sys._getframe(1)
    core = current_core()
    x = xstate(core)
    flag = int(flagId) & 0xF
    core.records.append(rec.row(XWAIT.id, PIPE_S, f.f_code, f.f_lasti, 0, 0, 0, 0, 0,
                                (flag, -1, -1), ()))
    index = len(core.records) - 1
    sched = x.sched
    c = core.block_idx
    if sched is None:
        abort(core, DeadlockError(f"CrossCoreWaitFlag({flag}) outside a launch's scheduler: "
                                  "nothing can set it", core=c), f)
    cnt = x.shared.xflags[c]
    fifo = x.shared.xsrc[c][flag]
    got: list[tuple[int, int]] = []

    def resume() -> None:
        cnt[flag] -= 1
        got.append(fifo.popleft())

    sched.point(core, None, lambda: cnt[flag] > 0, resume, f"CrossCoreWaitFlag({flag})", f)
    if got:  # the set that released this wait: the timeline pairs them
        core.records[index] = rec.row(XWAIT.id, PIPE_S, f.f_code, f.f_lasti, 0, 0, 0, 0, 0,
                                      (flag, *got[0]), ())
        if got[0][0] == c:
            # released by this core's own set: its pipe's earlier work is done before the
            # scalar unit goes on; the per-core analyses see that as a flag from that pipe to
            # S (implicit rows, not executed: the functional order is already right)
            set_pipe = core.records[got[0][1]][rec.PIPE]
            event = _PIPE_TO_S[set_pipe]
            core.records.append(rec.sync_row(SET.id, set_pipe, f.f_code, f.f_lasti,
                                             event * 8 + 7, 1))
            core.records.append(rec.sync_row(WAIT.id, PIPE_S, f.f_code, f.f_lasti,
                                             event * 8 + 7, 1))
            x.internal.update((len(core.records) - 2, len(core.records) - 1))


# ---- indices ------------------------------------------------------------------------------------

def GetSubBlockIdx() -> int:
    """0: an AIV-only launch has one AIV per block (1 of 2 only in 1:2 mix kernels)."""
    current_core()
    return 0


def GetTaskRation() -> int:
    """1 for AIV-only launches (2 only in KERNEL_TYPE_MIX_AIC_1_2)."""
    current_core()
    return 1


GetTaskRatio = GetTaskRation


# ---- atomics ------------------------------------------------------------------------------------

def _set_atomic(op: int, dtype: DType | None, f: Any) -> None:
    core = current_core()
    ins = ATOMIC_ENTRIES[op] if op else ATOMIC_OFF
    core.records.append(rec.row(ins.id, PIPE_S, f.f_code, f.f_lasti,
                                dtype.code if dtype is not None else 0, 0, 0, 0, 0, (op,), ()))
    x = xstate(core)
    x.atomic = (op, dtype) if op else None
    x.atomic_used |= bool(op)


class _AtomicSetter(dict):
    """`SetAtomicAdd[T]()`: T is the template argument."""

    def __init__(self, op: int) -> None:
        super().__init__()
        self.op = op

    def __missing__(self, dtype: Any):
        if dtype not in ATOMIC_DTYPES:
            raise ParameterError(f"SetAtomic{ATOMIC_NAMES[self.op]}<T>: T must be one of "
                                 f"{', '.join(map(str, ATOMIC_DTYPES))} on A2, got {dtype!r}")
        op = self.op

        def call() -> None:
            _set_atomic(op, dtype, sys._getframe(1))
        call.__name__ = f"SetAtomic{ATOMIC_NAMES[op]}<{dtype}>"
        self[dtype] = call
        return call


SetAtomicAdd = _AtomicSetter(ATOMIC_ADD)
SetAtomicMax = _AtomicSetter(ATOMIC_MAX)
SetAtomicMin = _AtomicSetter(ATOMIC_MIN)


def SetAtomicNone() -> None:
    """Later UB->GM copies overwrite GM again (deprecated name of DisableDmaAtomic)."""
    _set_atomic(ATOMIC_NONE, None, sys._getframe(1))


def DisableDmaAtomic() -> None:
    """Later UB->GM copies overwrite GM again."""
    _set_atomic(ATOMIC_NONE, None, sys._getframe(1))


def reset_atomic(core: CoreState) -> None:
    """TPipe() resets the atomic mode to none (pipe.py calls this)."""
    x = core.xcore
    if x is not None:
        x.atomic = None


# ---- workspace ----------------------------------------------------------------------------------

def _ws_offset(core: CoreState) -> int:
    return int(getattr(core.profile, "user_ws_offset", 16 << 20))


def _as_gm(ws: Any) -> tuple[GmBuffer, int] | None:
    if ws is None:
        return None
    if isinstance(ws, GmBuffer):
        return ws, 0
    if isinstance(ws, GlobalTensor) and ws.buf is not None:
        return ws.buf, ws.byte_off
    raise ParameterError(f"a workspace is a GM_ADDR kernel argument, got {ws!r}")


def GetUserWorkspace(workspace: GmBuffer | GlobalTensor | None) -> GlobalTensor | None:
    """The user part of the workspace: ws + user_ws_offset (a GlobalTensor<uint8_t> usable as a
    GM_ADDR), None for a null workspace."""
    core = current_core()
    x = xstate(core)
    got = _as_gm(workspace)
    if got is None:
        return None
    buf, off = got
    if x.sys_ws is None:
        x.sys_ws = GlobalTensor(uint8_t, buf, off)
    start = off + _ws_offset(core)
    if start > buf.nbytes:
        fault(core, OutOfRangeError(
            f"GetUserWorkspace: the workspace {buf.name!r} has {buf.nbytes} bytes, less than "
            f"the {_ws_offset(core)}-byte system part (the host's workspace size must include "
            "it)", buffer=f"GM {buf.name}"), sys._getframe(1), memory=f"GM {buf.name}",
            start=buf.nbytes, end=start)
    return GlobalTensor(uint8_t, buf, start, max(buf.nbytes - start, 0))


def SetSysWorkspace(workspace: GmBuffer | GlobalTensor | None) -> None:
    """Set the system workspace base if it is not set yet (deprecated API)."""
    core = current_core()
    x = xstate(core)
    got = _as_gm(workspace)
    if got is not None and x.sys_ws is None:
        x.sys_ws = GlobalTensor(uint8_t, got[0], got[1])


def GetSysWorkSpacePtr() -> GlobalTensor | None:
    """The system workspace base (None until SetSysWorkspace or GetUserWorkspace set it)."""
    return xstate(current_core()).sys_ws


# ---- InitGlobalMemory ---------------------------------------------------------------------------

class _InitGlobalMemory(dict):
    """`InitGlobalMemory[T](gm, size, value)` (see init_global_memory in this module)."""

    def __missing__(self, dtype: Any):
        if dtype not in ALL_DTYPES:
            raise ParameterError(f"InitGlobalMemory<T>: T must be a dtype, got {dtype!r}")

        def call(gmWorkspaceAddr: GlobalTensor, size: int, value: Any) -> None:
            init_global_memory(dtype, gmWorkspaceAddr, int(size), value, sys._getframe(1))
        self[dtype] = call
        return call


InitGlobalMemory = _InitGlobalMemory()


INIT_GM_FILL_BYTES = 65280          # the most the library's Duplicate fills at once
INIT_GM_UB_LIMIT = 192 * 1024 - 64  # the free UB it may use ends here


def init_global_memory(dtype: DType, gm: GlobalTensor, size: int, value: Any, f: Any) -> None:
    """`InitGlobalMemory<T>(gm, size, value)` as the library does it (ascendc_more.md 3.5):
    Duplicate `value` into the free UB after the TPipe's last buffer (up to 65 280 B, clobbering
    it), SetFlag/WaitFlag V->MTE3, DataCopyPad the chunks to GM, PipeBarrier<PIPE_MTE3>. Each
    step is recorded at the kernel's line, so the sanitizer and the timeline see them."""
    core = current_core()
    name = f"InitGlobalMemory<{dtype}>"
    pipe = core.pipe
    if pipe is None:
        return fault(core, ParameterError(f"{name} fills GM through the free UB after the "
                                          "TPipe's buffers: create a TPipe first"), f,
                     instruction="InitGlobalMemory")
    if not isinstance(gm, GlobalTensor) or gm.buf is None:
        abort(core, ParameterError(f"{name}: gm must be a bound GlobalTensor"), f)
    if gm.dtype is not dtype or dtype.size not in (2, 4):
        return fault(core, ParameterError(
            f"{name}: T must be the GlobalTensor's type and a 16- or 32-bit type (the fill is a "
            f"Duplicate), got GlobalTensor<{gm.dtype}>"), f, instruction="InitGlobalMemory")
    buf = gm.buf
    total = int(size) * dtype.size
    g0 = gm.byte_off
    if size < 0 or g0 < 0 or g0 + total > buf.nbytes:
        return fault(core, OutOfRangeError(
            f"{name}: {size} elements from GM byte {g0} of {buf.name!r} ({buf.nbytes} bytes) "
            "reach past its end", buffer=f"GM {buf.name}"), f, instruction="InitGlobalMemory",
            memory=f"GM {buf.name}", start=max(g0, 0), end=g0 + total, write=True)
    start = (int(pipe.cursor) + 31) // 32 * 32
    limit = min(INIT_GM_UB_LIMIT, core.profile.ub_bytes)
    chunk = min(INIT_GM_FILL_BYTES, limit - start) // 32 * 32
    if chunk < 32:
        return fault(core, OutOfRangeError(
            f"{name}: no free UB after the TPipe's buffers (they end at {pipe.cursor}; the "
            f"fill needs at least 32 bytes below {limit})"), f, instruction="InitGlobalMemory")
    if total == 0:
        return
    fill = min(chunk, (total + 31) // 32 * 32)
    scratch = LocalTensor(dtype, core, start, fill // dtype.size)
    _duplicate(scratch, value, fill // dtype.size, _f=f)
    event = int(HardEvent.V_MTE3)
    held = core.event_pool.get(event, 0)
    eid = next((i for i in range(8) if not held >> i & 1 and not core.flags[event * 8 + i]), 0)
    set_flag(core, event, eid, f.f_code, f.f_lasti, implicit=True, frame=f)
    wait_flag(core, event, eid, f.f_code, f.f_lasti, implicit=True, frame=f)
    for off in range(0, total, fill):
        n = min(fill, total - off)
        row = rec.copy_row(COPY_PAD.id, PIPE_MTE3, f.f_code, f.f_lasti, dtype.code,
                           n // dtype.size, 1, n, n, n, rec.W, buf.mem_id, g0 + off, g0 + off + n,
                           0, MEM_UB, start, start + n)
        append_gm_writer(core, row)
        run_on_pipe(core, PIPE_MTE3, copy_blocks, (buf.data, g0 + off, n, core.ub, start, n, n,
                                                   1))
    core.records.append(rec.sync_row(BARRIER.id, PIPE_MTE3, f.f_code, f.f_lasti, PIPE_MTE3, 0))
