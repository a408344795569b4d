"""TPipe, TQue, TQueBind and TBuf: UB allocation, the queue framework's implicit synchronisation
and the TPipe's event ids (ascendc_semantics.md §1.3, ascendc_more.md §4).

`TPipe.InitBuffer` carves buffers from UB address 0 upwards in call order (lengths rounded up to
32 bytes). A `TQue` cycles through its buffers round-robin: `AllocTensor` -> (fill) -> `EnQue` ->
`DeQue` -> (use) -> `FreeTensor`, and those calls are flags. The events come from the queue's
physical ends, `TQueBind<src, dst, depth>` (a `TQue<pos, depth>` is `TQueBind<pos, pos, depth>`):
the producer of a VECIN end is MTE2, of a VECOUT end V; the consumer of a VECIN end is V, of a
VECOUT end MTE3. So VECIN uses MTE2_V to hand a filled buffer on and V_MTE2 to hand it back,
VECOUT V_MTE3 and MTE3_V, the copy-through `TQueBind<VECIN, VECOUT>` MTE2_MTE3 and MTE3_MTE2.
`TQue<VECCALC>` is not a documented position: its ends map to "MAX", whose physical place is UB,
so its events are MTE2_MTE3 / MTE3_MTE2 as well (ascendc_more.md §4, [INFERRED]). The flags
appear in the instruction record as implicit SetFlag/WaitFlag at the kernel line of the call.

A queue is a FIFO ring of capacity `depth`: EnQue on a full queue and DeQue on an empty one are
errors. Event ids: the TPipe keeps an 8-bit occupancy mask per HardEvent (`core.event_pool`). A
queue of depth != 0 holds its enqueue id from EnQue to DeQue and its free id from FreeTensor to
the next AllocTensor of that buffer; a depth-0 queue reserves both at InitBuffer and sets its
free flag at once (its calls then reuse the two ids). `FetchEventID` returns the lowest id not
held, without holding it (for an immediate SetFlag/WaitFlag pair); `AllocEventID` holds it until
`ReleaseEventID`. `TPipe.Reset()` waits for every pending free event, resets the SoC state
(`SOC_STATE_HOOKS`), puts the UB pool end back to 0 and clears the occupancy: InitBuffer may lay
out UB afresh and re-initialise the same queues, and LocalTensors taken before alias the new
buffers (the old buffers are retired for the sanitizer's queue-state check). `TPipe.Destroy()`
does the same waits and a PipeBarrier<PIPE_ALL>, after which using the pipe or its queues is an
error. (The TPipe destructor's implicit Destroy at kernel end is not simulated.)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from enum import IntEnum
from functools import partial
from types import CodeType
from typing import Any

from numba import njit

from . import records as rec
from .batch import EAGER, kind_of
from .core import (
    MEM_UB,
    PIPE_ALL,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_NAMES,
    PIPE_S,
    PIPE_V,
    CoreState,
    current_core,
    dummy_byte,
)
from .dtypes import ALL_DTYPES, DType
from .errors import (
    AlignmentError,
    DeadlockError,
    OutOfRangeError,
    ParameterError,
    QueueStateError,
    SyncError,
)
from .faults import abort, fault
from .memory import BufferInfo, LocalTensor
from .registry import (
    AccessPattern,
    Cost,
    CostKind,
    CppDecl,
    Dataflow,
    Instruction,
    Operand,
    Signature,
    Work,
    register,
)
from .sync import (
    BARRIER,
    EVENT_PIPES,
    NUM_EVENT_IDS,
    SET,
    WAIT,
    HardEvent,
    eager_instead,
    record_set,
    record_wait,
    set_recorded,
    wait_recorded,
)

__all__ = ["TPipe", "TQue", "TQueBind", "TBuf", "QuePosition", "TPosition", "GetTPipePtr",
           "MAX_TENSOR_POSITION_ALLOC", "SOC_STATE_HOOKS"]
KERNEL_SURFACE = ("TPipe", "TQue", "TQueBind", "TBuf", "QuePosition", "TPosition",
                  "GetTPipePtr")


class QuePosition(IntEnum):
    GM = 0
    VECIN = 1
    VECOUT = 2
    VECCALC = 3
    MAX = 4  # no place: the default position argument of SetPadValue


TPosition = QuePosition

MAX_BUFFERS_PER_PIPE = 64      # InitBuffer.md
MAX_QUE_BUFFERS_PER_POSITION = 8  # one event id each
MAX_TENSOR_POSITION_ALLOC = 4  # AllocTensor.md: at most 4 outstanding per position

# the pipe that fills a queue end: the producer of its src position, the consumer of its dst
# position (ascendc_more.md §4: VECCALC's ends map to MAX, physically UB: MTE2 in, MTE3 out)
_PRODUCER = {QuePosition.VECIN: PIPE_MTE2, QuePosition.VECOUT: PIPE_V,
             QuePosition.VECCALC: PIPE_MTE2}
_CONSUMER = {QuePosition.VECIN: PIPE_V, QuePosition.VECOUT: PIPE_MTE3,
             QuePosition.VECCALC: PIPE_MTE3}
# the pipe that writes a freshly allocated buffer (its dummy fill), by the queue's src position
_FILL_PIPE = {QuePosition.VECIN: PIPE_MTE2, QuePosition.VECOUT: PIPE_V,
              QuePosition.VECCALC: PIPE_V}
_EVENT_OF = {pipes: event for event, pipes in EVENT_PIPES.items()}

# What `InitSocState()` resets, run by the TPipe constructor and by TPipe.Reset: callables
# taking the CoreState, appended by the modules that own a piece of SoC state.
SOC_STATE_HOOKS: list[Callable[[CoreState], None]] = []


def _queue_events(src: QuePosition, dst: QuePosition) -> tuple[int, int] | None:
    """(enqueue event, free event) of a queue from src to dst; None when both ends are one pipe
    (no event joins a pipe to itself)."""
    producer, consumer = _PRODUCER[src], _CONSUMER[dst]
    if producer == consumer:
        return None
    return _EVENT_OF[producer, consumer], _EVENT_OF[consumer, producer]


_, _, _BUF_START, _BUF_END = rec.access_fields(0, 0)  # the buffer access of a queue row
_access_row = rec.access_row


@njit(cache=True, nogil=True, error_model="numpy")
def fill_buffer(dummy, _b, _c, ub, gm, row):
    """AllocTensor from its row: the buffer's bytes become the dummy fill (its contents are
    unspecified; the simulator makes stale data obvious). A slice, not a loop over absolute
    indices: numba checks each of those for wraparound, and the loop then runs a byte at a
    time (10x slower on a 20 KB tile)."""
    ub[row[_BUF_START]:row[_BUF_END]] = dummy


def _bind_alloc(row: tuple, profile: Any) -> tuple[str, tuple[int, int, int]]:
    return "fill", (dummy_byte(profile), 0, 0)


_ANY_T = tuple(Signature((t,)) for t in ALL_DTYPES)  # the calls are templates on T


def _queue_call(name: str, dataflow: Dataflow, cpp: str, doc: str):
    """A TQue call: run by the scalar unit, its one operand the buffer it hands over (MODE of
    its record is that buffer's id); its implicit flags are SetFlag/WaitFlag records. Only
    AllocTensor changes memory (the fresh buffer reads as the dummy fill)."""
    alloc = dataflow is Dataflow.QUEUE_ALLOC
    return register(name, family="queue", pipe=PIPE_S,
                    operands=(Operand("buffer", AccessPattern.BUFFER, write=alloc),),
                    dataflow=dataflow, cost=Cost(CostKind.SCALAR), signatures=_ANY_T,
                    work=Work({"fill": fill_buffer}, bind=_bind_alloc) if alloc else None,
                    cpp=(CppDecl(cpp, "TQue"),), doc=doc)


ALLOC = _queue_call("AllocTensor", Dataflow.QUEUE_ALLOC,
                    "template <typename T>\n__aicore__ LocalTensor<T> AllocTensor();",
                    "take the next free buffer of a TQue (its contents are unspecified)")
ENQUE = _queue_call("EnQue", Dataflow.QUEUE_ENQUE,
                    "template <typename T>\n__aicore__ bool EnQue(const LocalTensor<T> &tensor);",
                    "hand a filled buffer to the consumer pipe")
DEQUE = _queue_call("DeQue", Dataflow.QUEUE_DEQUE,
                    "template <typename T>\n__aicore__ LocalTensor<T> DeQue();",
                    "take the oldest enqueued buffer")
FREE = _queue_call("FreeTensor", Dataflow.QUEUE_FREE,
                   "template <typename T>\n__aicore__ void FreeTensor(LocalTensor<T> &tensor);",
                   "give a buffer back to the producer pipe")


# The TPipe's event-id calls: scalar bookkeeping of the occupancy masks (no memory, no flag);
# MODE of the record is the flag index event * 8 + id they returned or released.
_EVENT_OPERANDS = (Operand("event", AccessPattern.NONE), Operand("eventID", AccessPattern.NONE))
_NO_TENSOR = (Signature((None, None)),)


def _event_call(name: str, cpp: tuple[str, ...], doc: str):
    return register(name, family="scalar", pipe=PIPE_S, operands=_EVENT_OPERANDS,
                    dataflow=Dataflow.STATE, cost=Cost(CostKind.SCALAR), signatures=_NO_TENSOR,
                    work=None, cpp=tuple(CppDecl(c, "TPipe") for c in cpp), doc=doc)


FETCH_ID = _event_call(
    "FetchEventID",
    ("template <HardEvent evt>\n__aicore__ TEventID FetchEventID();",
     "__aicore__ TEventID FetchEventID(HardEvent evt);"),
    "the lowest event id of a HardEvent no queue or AllocEventID holds (not reserved)")
ALLOC_ID = _event_call(
    "AllocEventID", ("template <HardEvent evt>\n__aicore__ TEventID AllocEventID();",),
    "reserve the lowest free event id of a HardEvent until ReleaseEventID")
RELEASE_ID = _event_call(
    "ReleaseEventID",
    ("template <HardEvent evt>\n__aicore__ void ReleaseEventID(TEventID id);",),
    "give an event id reserved by AllocEventID back")

FREE_STATE, ALLOCATED, ENQUEUED, DEQUEUED = "free", "allocated", "enqueued", "dequeued"


def _caller_name(obj: object) -> str:
    """The attribute or variable name the kernel uses for `obj`, for messages."""
    f = sys._getframe(2)
    for scope in (f.f_locals.get("self").__dict__ if hasattr(f.f_locals.get("self"), "__dict__")
                  else {}, f.f_locals):
        for name, value in scope.items():
            if value is obj:
                return name
    return type(obj).__name__


class _EventIDs(dict):
    """`pipe.FetchEventID[HardEvent.V_S]()` (the event as template argument) and, for
    FetchEventID, `pipe.FetchEventID(HardEvent.V_S)` too: one call bound per event."""

    def __init__(self, fn, name: str, runtime_arg: bool) -> None:
        super().__init__()
        self.fn = fn
        self.name = name
        self.runtime_arg = runtime_arg

    def __missing__(self, event: object):
        if self.fn is None:
            raise QueueStateError("this TPipe belongs to a kernel run that has ended")
        try:
            e = HardEvent(int(event))
        except (TypeError, ValueError):
            raise SyncError(f"{self.name}[...] takes a HardEvent, got {event!r}") from None
        call = self[event] = partial(self.fn, e)
        return call

    def __call__(self, event: object) -> int:
        if not self.runtime_arg:
            raise SyncError(f"{self.name} takes the HardEvent as template argument: "
                            f"pipe.{self.name}[HardEvent.V_S](...)")
        return self[event]()

    def close(self) -> None:
        self.clear()
        self.fn = None


class TPipe:
    """The per-core UB allocator and event-id pool. Create one per kernel, before its queues
    are initialised."""

    def __init__(self) -> None:
        self.core = current_core()
        self.core.pipe = self
        self.core.owned.append(self)
        if self.core.xcore is not None:  # TPipe() resets the DMA atomic mode (crosscore.py)
            self.core.xcore.atomic = None
        self.cursor = 0
        self.buffers: list[BufferInfo] = []
        self.objects: list[TQueBind | TBuf] = []  # what InitBuffer initialised since Reset
        self.destroyed = False
        self.handed: set[int] = set()  # flag indices FetchEventID / AllocEventID handed out
        self.FetchEventID = _EventIDs(self._fetch, "FetchEventID", True)
        self.AllocEventID = _EventIDs(self._alloc_event, "AllocEventID", False)
        self.ReleaseEventID = _EventIDs(self._release_event, "ReleaseEventID", False)
        _init_soc_state(self.core)

    def _detach(self) -> None:
        self.core = None
        for ids in (self.FetchEventID, self.AllocEventID, self.ReleaseEventID):
            ids.close()

    def _usable(self, what: str, f) -> CoreState:
        core = self.core
        if core is None:
            raise QueueStateError(f"TPipe.{what}: this TPipe belongs to a kernel run that has "
                                  "ended")
        if self.destroyed:
            abort(core, QueueStateError(f"TPipe.{what} after TPipe.Destroy(): the pipe is no "
                                        "longer usable", core=core.block_idx), f)
        return core

    # ---- event ids ------------------------------------------------------------------------

    def _event_record(self, ins, event: int, event_id: int, f) -> None:
        flag = event * NUM_EVENT_IDS + (event_id & 7)
        self.core.records.append(rec.row(ins.id, PIPE_S, f.f_code, f.f_lasti, 0, 0, 0, flag, 0,
                                         (), ()))

    def _fetch(self, event: HardEvent) -> int:
        f = sys._getframe(1)
        if f.f_code is _EventIDs.__call__.__code__:
            f = f.f_back
        core = self._usable("FetchEventID", f)
        held = core.event_pool.get(int(event), 0)
        event_id = _lowest_free(held)
        if event_id < 0:
            fault(core, SyncError(f"FetchEventID<{event.name}>: all {NUM_EVENT_IDS} event ids "
                                  "are held (by queues or AllocEventID)", core=core.block_idx),
                  f, check="no free event id")
            return -1  # check mode: SetFlag(-1) is then reported too
        self._event_record(FETCH_ID, int(event), event_id, f)
        self.handed.add(int(event) * NUM_EVENT_IDS + event_id)
        return event_id

    def _alloc_event(self, event: HardEvent) -> int:
        f = sys._getframe(1)
        core = self._usable("AllocEventID", f)
        held = core.event_pool.get(int(event), 0)
        event_id = _lowest_free(held)
        if event_id < 0:
            fault(core, SyncError(f"AllocEventID<{event.name}>: all {NUM_EVENT_IDS} event ids "
                                  "are held (by queues or AllocEventID); release one first",
                                  core=core.block_idx), f, check="no free event id")
            return -1
        core.event_pool[int(event)] = held | (1 << event_id)
        self._event_record(ALLOC_ID, int(event), event_id, f)
        self.handed.add(int(event) * NUM_EVENT_IDS + event_id)
        return event_id

    def _release_event(self, event: HardEvent, eventID: int) -> None:
        f = sys._getframe(1)
        core = self._usable("ReleaseEventID", f)
        held = core.event_pool.get(int(event), 0)
        event_id = int(eventID)
        if not 0 <= event_id < NUM_EVENT_IDS or not held & (1 << event_id):
            fault(core, SyncError(f"ReleaseEventID<{event.name}>({event_id}): that id is not "
                                  "held (AllocEventID did not return it, or it was released "
                                  "already)", core=core.block_idx), f,
                  check="release of an event id not held")
            return  # check mode: ignored
        core.event_pool[int(event)] = held & ~(1 << event_id)
        self._event_record(RELEASE_ID, int(event), event_id, f)

    # ---- buffers ------------------------------------------------------------------------------

    def InitBuffer(self, que: TQueBind | TBuf, *args: int) -> None:
        """`InitBuffer(que, num, len)` or `InitBuffer(tbuf, len)`."""
        f = sys._getframe(1)
        name = _caller_name(que)
        core = self._usable("InitBuffer", f)
        if isinstance(que, TBuf):
            if len(args) != 1:
                return fault(core, QueueStateError("InitBuffer(TBuf, len) takes one length"), f)
            num, length = 1, int(args[0])
        else:
            if len(args) != 2:
                return fault(core, QueueStateError("InitBuffer(TQue, num, len) takes a count "
                                                   "and a length"), f)
            num, length = int(args[0]), int(args[1])
        if num < 1 or length < 0:
            return fault(core, QueueStateError(f"InitBuffer({name}, {num}, {length}): count "
                                               "must be >= 1 and length >= 0"), f)
        if que.buffers and que in self.objects:
            return fault(core, QueueStateError(f"InitBuffer: {name} was already initialised"), f)
        length = (length + 31) // 32 * 32
        if len(self.buffers) + num > MAX_BUFFERS_PER_PIPE:
            return fault(core, QueueStateError(f"InitBuffer({name}): more than "
                                               f"{MAX_BUFFERS_PER_PIPE} buffers in one TPipe"), f)
        if isinstance(que, TQueBind):
            bad = next((p for p in (que.position, que.dst) if p not in _FILL_PIPE), None)
            if bad is not None:
                return fault(core, QueueStateError(
                    f"InitBuffer({name}): a TQue at {bad.name} has no place on an AI Vector "
                    "core (its queues are VECIN, VECOUT or VECCALC)"), f)
            if _queue_events(que.position, que.dst) is None:
                return fault(core, QueueStateError(
                    f"InitBuffer({name}): TQueBind<{que.position.name}, {que.dst.name}> joins "
                    f"PIPE_{PIPE_NAMES[_PRODUCER[que.position]]} to itself: no event can order "
                    "its two ends"), f)
            same = sum(1 for b in self.buffers if b.position == que.position.name and
                       b.index >= 0) + num
            if same > MAX_QUE_BUFFERS_PER_POSITION:
                return fault(core, QueueStateError(
                    f"InitBuffer({name}): more than {MAX_QUE_BUFFERS_PER_POSITION} TQue buffers "
                    f"at {que.position.name} (each needs its own event id)"), f)
        ub = core.profile.ub_bytes
        end = self.cursor + num * length
        if end > ub:
            # check mode: the buffers are placed, cut at the UB end; accesses beyond are
            # reported where they happen
            fault(core, QueueStateError(
                f"InitBuffer({name}, {num}, {length}) needs UB [{self.cursor}, {end}) but UB "
                f"has {ub} bytes: buffer size is {num * length}, exceeds the limit "
                f"{ub - self.cursor} left after {len(self.buffers)} earlier buffer(s)",
                check="UB capacity", core=core.block_idx), f, memory="UB", start=self.cursor,
                end=end)
        infos = []
        since = len(core.records)
        for i in range(num):
            start = self.cursor + i * length
            label = f"{name}[{i}]" if num > 1 else name
            infos.append(BufferInfo(label, min(start, ub), min(start + length, ub),
                                    que.position.name, i if isinstance(que, TQueBind) else -1,
                                    len(core.buffers) + i))
        for b in infos:
            b.since = since
        self.cursor = end
        self.buffers.extend(infos)
        core.buffers.extend(infos)
        if que not in self.objects:
            self.objects.append(que)
        que._attach(core, infos, name, f)

    # ---- Reset and Destroy --------------------------------------------------------------------

    def _wait_pending_frees(self, f) -> None:
        """Wait for every free event a queue of this pipe still has pending (implicit flags
        at the kernel line of Reset/Destroy)."""
        for que in self.objects:
            if isinstance(que, TQueBind) and que.core is not None:
                que._wait_frees(f)

    def Reset(self) -> None:
        """Wait for the pending free events, InitSocState(), every pool's end back to 0 and all
        event occupancy cleared: the kernel may InitBuffer afresh (re-initialising the same
        queues); tensors taken before alias the new buffers."""
        f = sys._getframe(1)
        core = self._usable("Reset", f)
        self._wait_pending_frees(f)
        _init_soc_state(core)
        retired = len(core.records)
        for b in self.buffers:
            b.until = retired
        self.cursor = 0
        self.buffers = []
        self.objects = []
        core.event_pool.clear()

    def Destroy(self) -> None:
        """Wait for the pending free events, then PipeBarrier<PIPE_ALL>; the pipe (and its
        queues and buffers) cannot be used afterwards."""
        f = sys._getframe(1)
        core = self._usable("Destroy", f)
        self._wait_pending_frees(f)
        core.records.append(rec.sync_row(BARRIER.id, PIPE_ALL, f.f_code, f.f_lasti, PIPE_ALL, 0))
        if core.stalled:
            stuck = [PIPE_NAMES[p] for p in range(4) if core.stalled & (1 << p)]
            abort(core, DeadlockError(f"TPipe.Destroy(): its PipeBarrier<PIPE_ALL> waits for "
                                      f"pipe(s) {', '.join(stuck)}, stalled on flags nothing "
                                      "has set", core=core.block_idx), f,
                  serial=len(core.records) - 1)
        self.destroyed = True
        for que in self.objects:
            que.pipe_destroyed = True
        core.event_pool.clear()


def GetTPipePtr() -> TPipe:
    """The core's TPipe (AscendC keeps a global pointer to the TPipe the kernel created)."""
    core = current_core()
    if core.pipe is None:
        abort(core, QueueStateError("GetTPipePtr(): the kernel has created no TPipe",
                                    core=core.block_idx), sys._getframe(1))
    return core.pipe


def _init_soc_state(core: CoreState) -> None:
    for hook in SOC_STATE_HOOKS:
        hook(core)


class _QueMeta(type):
    def __getitem__(cls, params: Any) -> Any:
        if not isinstance(params, tuple):
            params = (params,)
        if cls is TQueBind:
            if len(params) not in (2, 3):
                raise QueueStateError("TQueBind[src, dst, depth] takes two positions and a "
                                      "depth")
            src, dst = QuePosition(params[0]), QuePosition(params[1])
            depth = int(params[2]) if len(params) > 2 else 1
            return lambda: cls(src, depth, dst)
        position = QuePosition(params[0])
        depth = int(params[1]) if len(params) > 1 else 1
        return lambda: cls(position, depth)


class _Bracket(dict):
    """`q.AllocTensor[T]()`: the template argument in brackets. A dict from dtype to the bound
    call, so that the brackets cost one C-level lookup (the call lands in `fn` directly, one
    frame below the kernel)."""

    def __init__(self, fn, name: str) -> None:
        super().__init__()
        self.fn = fn
        self.name = name

    def __call__(self, *args: object, **kwargs: object):
        raise ParameterError(f"{self.name} needs its element type: C++ {self.name}<T>(...) is "
                             f"written {self.name}[T](...) in ascsim, e.g. "
                             f"{self.name}[float]()")

    def __missing__(self, dtype: DType):
        if self.fn is None:
            raise QueueStateError("this queue or buffer belongs to a kernel run that has ended")
        call = self[dtype] = partial(self.fn, dtype)
        return call

    def close(self) -> None:
        self.clear()
        self.fn = None


class TQueBind(metaclass=_QueMeta):
    """`TQueBind<src, dst, depth>`: written `TQueBind[QuePosition.VECIN, QuePosition.VECOUT, 1]()`
    (a copy-through queue: MTE2 fills it, MTE3 drains it)."""

    def __init__(self, position: QuePosition, depth: int = 1,
                 dst: QuePosition | None = None) -> None:
        self.position = position          # the src end (TQue: both ends)
        self.dst = position if dst is None else dst
        self.depth = depth
        self.buffers: list[BufferInfo] = []
        self.core: CoreState | None = None
        self.name = type(self).__name__
        self.AllocTensor = _Bracket(self._alloc, "AllocTensor")
        self.DeQue = _Bracket(self._deque, "DeQue")
        self.fifo: list[tuple[int, int]] = []  # (buffer index, enqueue event id)
        self.pipe_destroyed = False

    def _attach(self, core: CoreState, infos: list[BufferInfo], name: str, f=None) -> None:
        self.core, self.buffers, self.name = core, infos, name
        if self not in core.owned:
            core.owned.append(self)
        if self not in core.queues:
            core.queues.append(self)
        self.state = [FREE_STATE] * len(infos)
        self.free_id = [-1] * len(infos)      # event id of a pending free event per buffer
        self.next = 0                         # round-robin allocation cursor
        self.fifo = []
        # call site -> its rows (see _site); buffers of an earlier InitBuffer had other rows
        self.sites: dict[tuple[int, int, int], tuple[CodeType, tuple, dict[int, tuple]]] = {}
        # the implicit events as (event, source pipe, destination pipe): EnQue -> DeQue, and
        # FreeTensor -> the next AllocTensor of the buffer
        enq, free = _queue_events(self.position, self.dst)
        self.handoff = (enq, *EVENT_PIPES[enq])
        self.giveback = (free, *EVENT_PIPES[free])
        self.fill_pipe = _FILL_PIPE[self.position]
        # depth 0: both ids reserved now, the free flag set at once (ascendc_more.md §4)
        self.fixed_ids: tuple[int, int] | None = None
        self.free_pending = False
        if self.depth == 0:
            enq_id, free_id = _alloc_id(core, enq, f), _alloc_id(core, free, f)
            self.fixed_ids = (enq_id, free_id)
            code, lasti = (f.f_code, f.f_lasti) if f is not None else (None, 0)
            record_set(core, self.giveback[1], self.giveback[2],
                       free * NUM_EVENT_IDS + free_id, code, lasti, 1)
            self.free_pending = True

    def _detach(self) -> None:
        self.core = None
        self.AllocTensor.close()
        self.DeQue.close()

    def _check_live(self, call: str, f) -> CoreState:
        core = self.core
        if self.pipe_destroyed:
            abort(core, QueueStateError(f"{call} on {self.name} after TPipe.Destroy(): its pipe "
                                        "is no longer usable",
                                        core=core.block_idx if core else None), f)
        return core

    def _wait_frees(self, f) -> None:
        """Reset/Destroy: wait for the pending free event of every buffer."""
        core = self.core
        event, _, dst = self.giveback
        if self.fixed_ids is not None:
            if self.free_pending:
                record_wait(core, dst, event * NUM_EVENT_IDS + self.fixed_ids[1], f.f_code,
                            f.f_lasti, 1)
                self.free_pending = False
            return
        for i, event_id in enumerate(self.free_id):
            if event_id >= 0:
                record_wait(core, dst, event * NUM_EVENT_IDS + event_id, f.f_code, f.f_lasti, 1)
                _release_id(core, event, event_id)
                self.free_id[i] = -1

    def _buffer_of(self, tensor: LocalTensor, call: str, f) -> int:
        origin = getattr(tensor, "origin", None)
        if type(origin) is BufferInfo:  # a queue buffer sits at its own index: no search
            i = origin.index
            buffers = self.buffers
            if 0 <= i < len(buffers) and buffers[i] is origin:
                return i
        for i, b in enumerate(self.buffers):
            if b is tensor.origin:
                return i
        fault(self.core, QueueStateError(f"{call}: the tensor {tensor!r} does not come from "
                                         f"queue {self.name}",
                                         core=self.core.block_idx if self.core else None), f)
        return -1

    # The four queue calls below run several times per tile in every queue-based kernel. A call
    # site (the kernel line, the buffer) always gives the same access row and, for a given flag,
    # the same implicit sync row: `sites` keeps them (rows are immutable tuples, and one row
    # object may sit in the records any number of times), so a call builds no row after its
    # first. Event ids come from a table (_LOWEST_FREE); the tensor's buffer is found by its
    # index; the error paths are unchanged.

    def _site(self, ins: Instruction, f, i: int) -> tuple[CodeType, tuple, dict[int, tuple]]:
        """(code, access row, {flag: implicit sync row}) of queue call `ins` on buffer `i` from
        the kernel line of frame `f`."""
        code = f.f_code
        key = (ins.id, f.f_lasti, i)
        site = self.sites.get(key)
        if site is None or site[0] is not code:
            b = self.buffers[i]
            flags = rec.W if ins is ALLOC else rec.R
            site = self.sites[key] = (code, _access_row(ins.id, PIPE_S, code, f.f_lasti, 0, 0,
                                                        b.id, 0, flags, MEM_UB, b.start, b.end),
                                      {})
        return site

    @staticmethod
    def _sync_of(site: tuple, f, set_: bool, pipe: int, flag: int) -> tuple:
        """The implicit SetFlag (or WaitFlag) row of `flag` on `pipe` at `site`."""
        row = site[2].get(flag)
        if row is None:
            row = site[2][flag] = rec.sync_row(SET.id if set_ else WAIT.id, pipe, site[0],
                                               f.f_lasti, flag, 1)
        return row

    def _alloc(self, dtype: DType) -> LocalTensor:
        f = sys._getframe(1)
        buffers = self.buffers
        if not buffers:
            abort(self.core, QueueStateError("AllocTensor before InitBuffer"), f)
        core = self._check_live("AllocTensor", f) if self.pipe_destroyed else self.core
        i = self.next
        state = self.state
        if state[i] != FREE_STATE:
            busy = sum(1 for s in state if s != FREE_STATE)
            abort(core, QueueStateError(
                f"AllocTensor on {self.name}: all {len(buffers)} buffer(s) are in use "
                f"({busy} allocated and not freed); on hardware this call would hang",
                core=core.block_idx), f)
        # (a queue of at most 4 buffers cannot have 4 others outstanding: the count is skipped)
        if core.sanitizer is not None and len(state) > MAX_TENSOR_POSITION_ALLOC:
            busy = len(state) - state.count(FREE_STATE)
            if busy >= MAX_TENSOR_POSITION_ALLOC:
                fault(core, QueueStateError(
                    f"AllocTensor on {self.name}: {busy + 1} tensors allocated and not freed; "
                    f"at most {MAX_TENSOR_POSITION_ALLOC} may be outstanding (AllocTensor.md: "
                    "a hang on NPU)", core=core.block_idx), f)
        self.next = (i + 1) % len(buffers)
        b = buffers[i]
        site = self._site(ALLOC, f, i)
        row = site[1]
        core.records.append(row)
        fixed = self.fixed_ids
        event_id = self.free_id[i] if fixed is None else fixed[1]  # depth 0: the reserved id
        if event_id >= 0:  # wait for the FreeTensor of this buffer (implicit flag)
            event, _, dst = self.giveback
            flag = event * NUM_EVENT_IDS + event_id
            wait_recorded(core, self._sync_of(site, f, False, dst, flag), dst, flag)
            if fixed is None:
                pool = core.event_pool
                pool[event] = pool.get(event, 0) & ~(1 << event_id)  # _release_id
                self.free_id[i] = -1
            else:
                self.free_pending = False
        batch = core.batch
        header = EAGER if batch is None else _fill_header(core.dummy, len(row))
        if header >= 0:  # defer_on_pipe, inline
            if core.stalled & (1 << self.fill_pipe):
                core.backlog[self.fill_pipe].append((batch.add, (header, row)))
            else:
                batch.add(header, row)
        elif core.stalled & (1 << self.fill_pipe):
            core.backlog[self.fill_pipe].append((_fill, (core, b.start, b.end)))
        else:
            if core.batch is not None:
                eager_instead(core, self.fill_pipe)
            _fill(core, b.start, b.end)
        state[i] = ALLOCATED
        return LocalTensor(dtype, core, b.start, (b.end - b.start) // dtype.size, b)

    def EnQue(self, tensor: LocalTensor) -> bool:
        f = sys._getframe(1)
        if self.pipe_destroyed:
            self._check_live("EnQue", f)
        i = self._buffer_of(tensor, "EnQue", f)
        if i < 0:
            return False
        core = self.core
        if self.state[i] != ALLOCATED:
            fault(core, QueueStateError(
                f"EnQue/DeQue is not matched with the previous state: EnQue of "
                f"{self.buffers[i].name}, which is {self.state[i]}", core=core.block_idx), f)
            return False  # check mode: skipped
        fifo = self.fifo
        if len(fifo) >= max(self.depth, 1):
            # check mode: enqueued anyway
            fault(core, QueueStateError(
                f"EnQue on {self.name}: depth {self.depth} already holds {len(fifo)} "
                "tensor(s) not yet dequeued (the queue is full)", core=core.block_idx), f)
        site = self._site(ENQUE, f, i)
        core.records.append(site[1])
        event, src, dst = self.handoff
        if self.fixed_ids is not None:
            event_id = self.fixed_ids[0]
        else:
            event_id = _alloc_id(core, event, f)
        flag = event * NUM_EVENT_IDS + event_id
        set_recorded(core, self._sync_of(site, f, True, src, flag), src, dst, flag)
        self.state[i] = ENQUEUED
        fifo.append((i, event_id))
        return True

    def _deque(self, dtype: DType) -> LocalTensor:
        f = sys._getframe(1)
        if self.pipe_destroyed:
            self._check_live("DeQue", f)
        if not self.fifo:
            abort(self.core, QueueStateError(
                f"DeQue on {self.name} without a matching EnQue: the queue is empty (on "
                "hardware this call would hang)", check="DeQue on an empty queue",
                core=self.core.block_idx if self.core else None), f)
        i, event_id = self.fifo.pop(0)
        core = self.core
        b = self.buffers[i]
        site = self._site(DEQUE, f, i)
        core.records.append(site[1])
        event, _, dst = self.handoff
        flag = event * NUM_EVENT_IDS + event_id
        wait_recorded(core, self._sync_of(site, f, False, dst, flag), dst, flag)
        if self.fixed_ids is None:
            pool = core.event_pool
            pool[event] = pool.get(event, 0) & ~(1 << event_id)  # _release_id
        self.state[i] = DEQUEUED
        return LocalTensor(dtype, core, b.start, (b.end - b.start) // dtype.size, b)

    def FreeTensor(self, tensor: LocalTensor) -> None:
        f = sys._getframe(1)
        if self.pipe_destroyed:
            self._check_live("FreeTensor", f)
        i = self._buffer_of(tensor, "FreeTensor", f)
        if i < 0:
            return
        core = self.core
        state = self.state[i]
        if state == FREE_STATE:
            return fault(core, QueueStateError(
                f"FreeTensor of {self.buffers[i].name}, which is already free (freed twice)",
                check="double FreeTensor", core=core.block_idx), f)  # check mode: ignored
        if state == ENQUEUED:
            return fault(core, QueueStateError(
                f"FreeTensor of {self.buffers[i].name} while it is enqueued (DeQue it first)",
                check="FreeTensor while enqueued",
                core=core.block_idx), f)  # check mode: ignored
        site = self._site(FREE, f, i)
        core.records.append(site[1])
        event, src, dst = self.giveback
        fixed = self.fixed_ids
        event_id = fixed[1] if fixed is not None else _alloc_id(core, event, f)
        flag = event * NUM_EVENT_IDS + event_id
        set_recorded(core, self._sync_of(site, f, True, src, flag), src, dst, flag)
        if fixed is not None:
            self.free_pending = True
        else:
            self.free_id[i] = event_id
        self.state[i] = FREE_STATE

    def VacantInQue(self) -> bool:
        return len(self.fifo) < max(self.depth, 1)

    def HasTensorInQue(self) -> bool:
        return bool(self.fifo)


class TQue(TQueBind):
    """`TQue<QuePosition::VECIN, depth>`: written `TQue[QuePosition.VECIN, 1]()`; the same as
    `TQueBind<pos, pos, depth>`."""

    def __init__(self, position: QuePosition, depth: int = 1) -> None:
        super().__init__(position, depth)


class _BufMeta(type):
    def __getitem__(cls, position: Any) -> Any:
        return lambda: cls(QuePosition(position))


class TBuf(metaclass=_BufMeta):
    """`TBuf<TPosition::VECCALC>`: a plain UB block, no queue and no syncs."""

    def __init__(self, position: QuePosition = QuePosition.VECCALC) -> None:
        self.position = position
        self.buffers: list[BufferInfo] = []
        self.core: CoreState | None = None
        self.Get = _Bracket(self._get, "Get")
        self.GetWithOffset = _Bracket(self._get_with_offset, "GetWithOffset")
        self.pipe_destroyed = False

    def _attach(self, core: CoreState, infos: list[BufferInfo], name: str, f=None) -> None:
        self.core, self.buffers, self.name = core, infos, name
        if self not in core.owned:
            core.owned.append(self)

    def _detach(self) -> None:
        self.core = None
        self.Get.close()
        self.GetWithOffset.close()

    def _buffer(self, call: str, f) -> BufferInfo:
        if not self.buffers:
            abort(self.core, QueueStateError(f"TBuf.{call} before InitBuffer"), f)
        if self.pipe_destroyed:
            abort(self.core, QueueStateError(f"{self.name}.{call} after TPipe.Destroy(): its "
                                             "pipe is no longer usable",
                                             core=self.core.block_idx), f)
        return self.buffers[0]

    def _get(self, dtype: DType, length: int | None = None) -> LocalTensor:
        f = sys._getframe(1)
        b = self._buffer("Get", f)
        capacity = (b.end - b.start) // dtype.size
        n = capacity if length is None else int(length)
        if n < 0 or n > capacity:
            fault(self.core, QueueStateError(f"{self.name}.Get<{dtype}>({n}): the buffer holds "
                                             f"{capacity} elements of {dtype} "
                                             f"({b.end - b.start} bytes)",
                                             core=self.core.block_idx), f)
            n = min(max(n, 0), capacity)  # check mode: the buffer; accesses past it report
        return LocalTensor(dtype, self.core, b.start, n, b)

    def _get_with_offset(self, dtype: DType, size: int, bufOffset: int) -> LocalTensor:
        """`GetWithOffset<T>(size, bufOffset)`: `size` elements from `bufOffset` bytes into the
        buffer; the offset 32-byte aligned, `size * sizeof(T) + bufOffset` within the TBuf."""
        f = sys._getframe(1)
        b = self._buffer("GetWithOffset", f)
        n, off = int(size), int(bufOffset)
        length = b.end - b.start
        if off & 31:
            fault(self.core, AlignmentError(
                f"{self.name}.GetWithOffset<{dtype}>({n}, {off}): bufOffset must be 32-byte "
                "aligned", buffer=b, core=self.core.block_idx), f)
        if n < 0 or off < 0 or n * dtype.size + off > length:
            fault(self.core, OutOfRangeError(
                f"{self.name}.GetWithOffset<{dtype}>({n}, {off}): bytes [{off}, "
                f"{off + n * dtype.size}) of a {length}-byte TBuf", buffer=b,
                byte_range=f"UB [{b.start + off}, {b.start + off + n * dtype.size})",
                core=self.core.block_idx), f, memory=f"UB ({b.name})",
                start=b.start + off, end=b.start + off + n * dtype.size)
            # check mode: clipped to the buffer; accesses past it are reported where they are
            off = min(max(off, 0), length)
            n = min(max(n, 0), (length - off) // dtype.size)
        return LocalTensor(dtype, self.core, b.start + off, n, b)


def _fill(core: CoreState, start: int, end: int) -> None:
    # AllocTensor contents are unspecified: make stale data obvious.
    core.ub[start:end] = core.dummy


def _fill_header(dummy: int, row_len: int) -> int:
    """The deferred form of `_fill` (batch.py): AllocTensor's row through its registry work
    (`_bind_alloc`'s form and literals)."""
    h = _FILL_HEADERS.get((dummy, row_len))
    if h is None:
        h = kind_of(fill_buffer, (dummy, 0, 0), row_len)
        if h >= 0:  # EAGER is asked again: compile_in_background may be switched off
            _FILL_HEADERS[dummy, row_len] = h
    return h


_FILL_HEADERS: dict[tuple[int, int], int] = {}


def _lowest_clear_bit(held: int) -> int:
    for event_id in range(NUM_EVENT_IDS):
        if not held & (1 << event_id):
            return event_id
    return -1


# the lowest id not held, by occupancy mask: EnQue and FreeTensor take an id per call
_LOWEST_FREE = tuple(_lowest_clear_bit(held) for held in range(1 << NUM_EVENT_IDS))


def _lowest_free(held: int) -> int:
    return _LOWEST_FREE[held & ((1 << NUM_EVENT_IDS) - 1)]


def _alloc_id(core: CoreState, event: int, frame=None) -> int:
    pool = core.event_pool
    held = pool.get(event, 0)
    event_id = _LOWEST_FREE[held & ((1 << NUM_EVENT_IDS) - 1)]
    if event_id >= 0:
        pool[event] = held | (1 << event_id)
        return event_id
    abort(core, QueueStateError(f"no free event id for {HardEvent(event).name}: all "
                                f"{NUM_EVENT_IDS} are held by queue operations or "
                                "AllocEventID", core=core.block_idx), frame)
    return -1


def _release_id(core: CoreState, event: int, event_id: int) -> None:
    core.event_pool[event] = core.event_pool.get(event, 0) & ~(1 << event_id)
