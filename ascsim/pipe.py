"""TPipe, TQue and TBuf: UB allocation and the queue framework's implicit synchronisation.

`TPipe.InitBuffer` carves buffers from UB address 0 upwards in call order (lengths rounded up to
32 bytes). A `TQue` cycles through its buffers: `AllocTensor` -> (fill) -> `EnQue` -> `DeQue` ->
(use) -> `FreeTensor`, and those calls are flags: VECIN uses MTE2_V to hand a filled buffer to V
and V_MTE2 to hand it back; VECOUT uses V_MTE3 and MTE3_V. The flags appear in the instruction
record as implicit SetFlag/WaitFlag at the kernel line of the queue call.
"""

from __future__ import annotations

import sys
from enum import IntEnum
from functools import partial
from types import CodeType
from typing import Any

from numba import njit

from . import records as rec
from .core import MEM_UB, PIPE_MTE2, PIPE_S, PIPE_V, CoreState, current_core, dummy_byte
from .dtypes import ALL_DTYPES, DType
from .errors import QueueStateError
from .faults import abort, fault
from .memory import BufferInfo, LocalTensor
from .registry import (
    AccessPattern,
    Cost,
    CostKind,
    CppDecl,
    Dataflow,
    Operand,
    Signature,
    Work,
    register,
)
from .sync import EVENT_PIPES, NUM_EVENT_IDS, HardEvent, record_set, record_wait

__all__ = ["TPipe", "TQue", "TBuf", "QuePosition", "TPosition", "MAX_TENSOR_POSITION_ALLOC"]


class QuePosition(IntEnum):
    GM = 0
    VECIN = 1
    VECOUT = 2
    VECCALC = 3


TPosition = QuePosition

MAX_BUFFERS_PER_PIPE = 64      # InitBuffer.md
MAX_QUE_BUFFERS_PER_POSITION = 8  # one event id each
MAX_TENSOR_POSITION_ALLOC = 4  # AllocTensor.md: at most 4 outstanding per position

# position -> (enqueue event, free event); VECCALC queues carry no events
_QUE_EVENTS = {
    QuePosition.VECIN: (HardEvent.MTE2_V, HardEvent.V_MTE2),
    QuePosition.VECOUT: (HardEvent.V_MTE3, HardEvent.MTE3_V),
}
# the pipe that writes a freshly allocated buffer of each position
_FILL_PIPE = {QuePosition.VECIN: PIPE_MTE2, QuePosition.VECOUT: PIPE_V,
              QuePosition.VECCALC: PIPE_V}



_, _, _BUF_START, _BUF_END = rec.access_fields(0, 0)  # the buffer access of a queue row


@njit(cache=True, nogil=True, error_model="numpy")
def fill_buffer(dummy, _b, _c, ub, gm, row):
    """AllocTensor from its row: the buffer's bytes become the dummy fill (its contents are
    unspecified; the simulator makes stale data obvious)."""
    for i in range(row[_BUF_START], row[_BUF_END]):
        ub[i] = dummy


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


class TPipe:
    """The per-core UB allocator. Create one per kernel, before its queues are initialised."""

    def __init__(self) -> None:
        self.core = current_core()
        self.core.pipe = self
        self.core.owned.append(self)
        self.cursor = 0
        self.buffers: list[BufferInfo] = []

    def _detach(self) -> None:
        self.core = None

    def InitBuffer(self, que: TQue | TBuf, *args: int) -> None:
        """`InitBuffer(que, num, len)` or `InitBuffer(tbuf, len)`."""
        f = sys._getframe(1)
        name = _caller_name(que)
        core = self.core
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
        if que.buffers:
            return fault(core, QueueStateError(f"InitBuffer: {name} was already initialised"), f)
        length = (length + 31) // 32 * 32
        if len(self.buffers) + num > MAX_BUFFERS_PER_PIPE:
            return fault(core, QueueStateError(f"InitBuffer({name}): more than "
                                               f"{MAX_BUFFERS_PER_PIPE} buffers in one TPipe"), f)
        if isinstance(que, TQue) and que.position not in _FILL_PIPE:
            return fault(core, QueueStateError(
                f"InitBuffer({name}): a TQue at {que.position.name} has no place on an AI Vector "
                "core (its queues are VECIN, VECOUT or VECCALC)"), f)
        if isinstance(que, TQue) and que.position in _QUE_EVENTS:
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
                core=core.block_idx), f, memory="UB", start=self.cursor, end=end)
        infos = []
        for i in range(num):
            start = self.cursor + i * length
            label = f"{name}[{i}]" if num > 1 else name
            infos.append(BufferInfo(label, min(start, ub), min(start + length, ub),
                                    que.position.name, i if isinstance(que, TQue) else -1,
                                    len(core.buffers) + i))
        self.cursor = end
        self.buffers.extend(infos)
        core.buffers.extend(infos)
        que._attach(core, infos, name)

    def Destroy(self) -> None:
        pass

    def Reset(self) -> None:
        self.cursor = 0
        self.buffers = []


class _QueMeta(type):
    def __getitem__(cls, params: Any) -> Any:
        if not isinstance(params, tuple):
            params = (params,)
        position = QuePosition(params[0])
        depth = int(params[1]) if len(params) > 1 else 1
        return lambda: cls(position, depth)


class _Bracket(dict):
    """`q.AllocTensor[T]()`: the template argument in brackets. A dict from dtype to the bound
    call, so that the brackets cost one C-level lookup (the call lands in `fn` directly, one
    frame below the kernel)."""

    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def __missing__(self, dtype: DType):
        if self.fn is None:
            raise QueueStateError("this queue or buffer belongs to a kernel run that has ended")
        call = self[dtype] = partial(self.fn, dtype)
        return call

    def close(self) -> None:
        self.clear()
        self.fn = None


class TQue(metaclass=_QueMeta):
    """`TQue<QuePosition::VECIN, depth>`: written `TQue[QuePosition.VECIN, 1]()`."""

    def __init__(self, position: QuePosition, depth: int = 1) -> None:
        self.position = position
        self.depth = depth
        self.buffers: list[BufferInfo] = []
        self.core: CoreState | None = None
        self.name = "TQue"
        self.AllocTensor = _Bracket(self._alloc)
        self.DeQue = _Bracket(self._deque)
        self.fifo: list[tuple[int, int]] = []  # (buffer index, enqueue event id)

    def _attach(self, core: CoreState, infos: list[BufferInfo], name: str) -> None:
        self.core, self.buffers, self.name = core, infos, name
        core.owned.append(self)
        core.queues.append(self)
        self.state = [FREE_STATE] * len(infos)
        self.free_id = [-1] * len(infos)      # event id of a pending free event per buffer
        self.next = 0                         # round-robin allocation cursor
        self.fifo = []
        # the implicit events as (event, source pipe, destination pipe): EnQue -> DeQue, and
        # FreeTensor -> the next AllocTensor of the buffer; None where a position has none
        events = _QUE_EVENTS.get(self.position)
        self.handoff = None if events is None else (int(events[0]), *EVENT_PIPES[events[0]])
        self.giveback = None if events is None else (int(events[1]), *EVENT_PIPES[events[1]])
        self.fill_pipe = _FILL_PIPE[self.position]

    def _detach(self) -> None:
        self.core = None
        self.AllocTensor.close()
        self.DeQue.close()

    def _buffer_of(self, tensor: LocalTensor, call: str, f) -> int:
        for i, b in enumerate(self.buffers):
            if b is tensor.origin:
                return i
        fault(self.core, QueueStateError(f"{call}: the tensor {tensor!r} does not come from "
                                         f"queue {self.name}",
                                         core=self.core.block_idx if self.core else None), f)
        return -1

    def _record(self, ins, index: int, code: CodeType, lasti: int) -> None:
        b = self.buffers[index]
        self.core.records.append(rec.access_row(ins.id, PIPE_S, code, lasti, 0, 0, b.id, 0,
                                                rec.W if ins is ALLOC else rec.R, MEM_UB,
                                                b.start, b.end))

    def _alloc(self, dtype: DType) -> LocalTensor:
        f = sys._getframe(1)
        if not self.buffers:
            abort(self.core, QueueStateError("AllocTensor before InitBuffer"), f)
        core = self.core
        i = self.next
        if self.state[i] != FREE_STATE:
            busy = sum(1 for s in self.state if s != FREE_STATE)
            abort(core, QueueStateError(
                f"AllocTensor on {self.name}: all {len(self.buffers)} buffer(s) are in use "
                f"({busy} allocated and not freed); on hardware this call would hang",
                core=core.block_idx), f)
        if core.sanitizer is not None:
            busy = sum(1 for s in self.state if s != FREE_STATE)
            if busy >= MAX_TENSOR_POSITION_ALLOC:
                fault(core, QueueStateError(
                    f"AllocTensor on {self.name}: {busy + 1} tensors allocated and not freed; "
                    f"at most {MAX_TENSOR_POSITION_ALLOC} may be outstanding (AllocTensor.md: "
                    "a hang on NPU)", core=core.block_idx), f)
        self.next = (i + 1) % len(self.buffers)
        code = f.f_code
        self._record(ALLOC, i, code, f.f_lasti)
        event_id = self.free_id[i]
        if event_id >= 0:  # wait for the FreeTensor of this buffer (implicit flag)
            event, _, dst = self.giveback
            record_wait(core, dst, event * NUM_EVENT_IDS + event_id, code, f.f_lasti, 1)
            _release_id(core, event, event_id)
            self.free_id[i] = -1
        b = self.buffers[i]
        if core.stalled & (1 << self.fill_pipe):
            core.backlog[self.fill_pipe].append((_fill, (core, b.start, b.end)))
        else:
            _fill(core, b.start, b.end)
        self.state[i] = ALLOCATED
        return LocalTensor(dtype, core, b.start, (b.end - b.start) // dtype.size, b)

    def EnQue(self, tensor: LocalTensor) -> bool:
        f = sys._getframe(1)
        i = self._buffer_of(tensor, "EnQue", f)
        if i < 0:
            return False
        if self.state[i] != ALLOCATED:
            fault(self.core, QueueStateError(
                f"EnQue/DeQue is not matched with the previous state: EnQue of "
                f"{self.buffers[i].name}, which is {self.state[i]}", core=self.core.block_idx), f)
            return False  # check mode: skipped
        if len(self.fifo) >= max(self.depth, 1):
            # check mode: enqueued anyway
            fault(self.core, QueueStateError(
                f"EnQue on {self.name}: depth {self.depth} already holds {len(self.fifo)} "
                "tensor(s) not yet dequeued", core=self.core.block_idx), f)
        code = f.f_code
        self._record(ENQUE, i, code, f.f_lasti)
        event_id = -1
        if self.handoff is not None:
            event, src, dst = self.handoff
            event_id = _alloc_id(self.core, event, f)
            record_set(self.core, src, dst, event * NUM_EVENT_IDS + event_id, code, f.f_lasti, 1)
        self.state[i] = ENQUEUED
        self.fifo.append((i, event_id))
        return True

    def _deque(self, dtype: DType) -> LocalTensor:
        f = sys._getframe(1)
        if not self.fifo:
            abort(self.core, QueueStateError(
                f"DeQue on {self.name} without a matching EnQue: the queue is empty (on "
                "hardware this call would hang)",
                core=self.core.block_idx if self.core else None), f)
        i, event_id = self.fifo.pop(0)
        code = f.f_code
        self._record(DEQUE, i, code, f.f_lasti)
        if self.handoff is not None:
            event, _, dst = self.handoff
            record_wait(self.core, dst, event * NUM_EVENT_IDS + event_id, code, f.f_lasti, 1)
            _release_id(self.core, event, event_id)
        self.state[i] = DEQUEUED
        b = self.buffers[i]
        return LocalTensor(dtype, self.core, b.start, (b.end - b.start) // dtype.size, b)

    def FreeTensor(self, tensor: LocalTensor) -> None:
        f = sys._getframe(1)
        i = self._buffer_of(tensor, "FreeTensor", f)
        if i < 0:
            return
        if self.state[i] == FREE_STATE:
            return fault(self.core, QueueStateError(
                f"FreeTensor of {self.buffers[i].name}, which is already free (freed twice)",
                core=self.core.block_idx), f)  # check mode: ignored
        if self.state[i] == ENQUEUED:
            return fault(self.core, QueueStateError(
                f"FreeTensor of {self.buffers[i].name} while it is enqueued (DeQue it first)",
                core=self.core.block_idx), f)  # check mode: ignored
        code = f.f_code
        self._record(FREE, i, code, f.f_lasti)
        if self.giveback is not None:
            event, src, dst = self.giveback
            event_id = _alloc_id(self.core, event, f)
            record_set(self.core, src, dst, event * NUM_EVENT_IDS + event_id, code, f.f_lasti, 1)
            self.free_id[i] = event_id
        self.state[i] = FREE_STATE

    def VacantInQue(self) -> bool:
        return len(self.fifo) < max(self.depth, 1)

    def HasTensorInQue(self) -> bool:
        return bool(self.fifo)


class _BufMeta(type):
    def __getitem__(cls, position: Any) -> Any:
        return lambda: cls(QuePosition(position))


class TBuf(metaclass=_BufMeta):
    """`TBuf<TPosition::VECCALC>`: a plain UB block, no queue and no syncs."""

    def __init__(self, position: QuePosition = QuePosition.VECCALC) -> None:
        self.position = position
        self.buffers: list[BufferInfo] = []
        self.core: CoreState | None = None
        self.Get = _Bracket(self._get)

    def _attach(self, core: CoreState, infos: list[BufferInfo], name: str) -> None:
        self.core, self.buffers, self.name = core, infos, name
        core.owned.append(self)

    def _detach(self) -> None:
        self.core = None
        self.Get.close()

    def _get(self, dtype: DType, length: int | None = None) -> LocalTensor:
        f = sys._getframe(1)
        if not self.buffers:
            abort(self.core, QueueStateError("TBuf.Get before InitBuffer"), f)
        b = self.buffers[0]
        capacity = (b.end - b.start) // dtype.size
        n = capacity if length is None else int(length)
        if n < 0 or n > capacity:
            fault(self.core, QueueStateError(f"{self.name}.Get<{dtype}>({n}): the buffer holds "
                                             f"{capacity} elements of {dtype} "
                                             f"({b.end - b.start} bytes)",
                                             core=self.core.block_idx), f)
            n = min(max(n, 0), capacity)  # check mode: the buffer; accesses past it report
        return LocalTensor(dtype, self.core, b.start, n, b)


def _fill(core: CoreState, start: int, end: int) -> None:
    # AllocTensor contents are unspecified: make stale data obvious.
    core.ub[start:end] = core.dummy


def _alloc_id(core: CoreState, event: int, frame=None) -> int:
    held = core.event_pool.get(event, 0)
    for event_id in range(NUM_EVENT_IDS):
        if not held & (1 << event_id):
            core.event_pool[event] = held | (1 << event_id)
            return event_id
    abort(core, QueueStateError(f"no free event id for {HardEvent(event).name}: all "
                                f"{NUM_EVENT_IDS} are held by queue operations",
                                core=core.block_idx), frame)
    return -1


def _release_id(core: CoreState, event: int, event_id: int) -> None:
    core.event_pool[event] = core.event_pool.get(event, 0) & ~(1 << event_id)
