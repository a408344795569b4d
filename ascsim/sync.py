"""Intra-core synchronisation: `HardEvent`, event ids, `SetFlag`/`WaitFlag`, `PipeBarrier`.

Each (event, id) is a per-core binary flag. `SetFlag<E>(id)` runs on E's source pipe and sets
it; setting a flag that is already set is undefined on hardware and an error here.
`WaitFlag<E>(id)` runs on E's destination pipe: a set flag is consumed, otherwise that pipe
stalls until the matching SetFlag. Execution is in program order, except that work issued to a
stalled pipe waits in that pipe's backlog and runs when the flag is set, so that a WaitFlag
issued before its SetFlag behaves as on hardware. A wait that nothing satisfies by the end of
the kernel (or a scalar-pipe wait that nothing can satisfy) is a deadlock.
"""

from __future__ import annotations

import sys
from enum import IntEnum
from types import CodeType

from . import records as rec
from .batch import kind_of
from .core import (
    PIPE_ALL,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_NAMES,
    PIPE_S,
    PIPE_V,
    CoreState,
    _tls,
    current_core,
)
from .errors import DeadlockError, ParameterError, SyncError
from .faults import abort, fault, note
from .registry import (
    AccessPattern,
    Cost,
    CostKind,
    CppDecl,
    Dataflow,
    Instruction,
    Operand,
    PipeRule,
    Signature,
    register,
)

__all__ = ["HardEvent", "SetFlag", "WaitFlag", "PipeBarrier", "event_t", "pipe_t",
           "PIPE_S", "PIPE_V", "PIPE_MTE2", "PIPE_MTE3", "PIPE_ALL",
           "EVENT_ID0", "EVENT_ID1", "EVENT_ID2", "EVENT_ID3", "EVENT_ID4", "EVENT_ID5",
           "EVENT_ID6", "EVENT_ID7", "set_flag", "wait_flag", "finish_core", "flag_name",
           "run_on_pipe", "defer_on_pipe", "defer_row", "eager_instead",
           "EVENT_PIPES"]


class HardEvent(IntEnum):
    """`enum class HardEvent : uint8_t` (impl/basic_api/kernel_event.h): source_destination."""

    MTE2_MTE1 = 0
    MTE1_MTE2 = 1
    MTE1_M = 2
    M_MTE1 = 3
    MTE2_V = 4
    V_MTE2 = 5
    MTE3_V = 6
    V_MTE3 = 7
    M_V = 8
    V_M = 9
    V_V = 10
    MTE3_MTE1 = 11
    MTE1_MTE3 = 12
    MTE1_V = 13
    MTE2_M = 14
    M_MTE2 = 15
    V_MTE1 = 16
    M_FIX = 17
    FIX_M = 18
    MTE3_MTE2 = 19
    MTE2_MTE3 = 20
    S_V = 21
    V_S = 22
    S_MTE2 = 23
    MTE2_S = 24
    S_MTE3 = 25
    MTE3_S = 26
    MTE2_FIX = 27
    FIX_MTE2 = 28
    FIX_S = 29
    M_S = 30
    FIX_MTE3 = 31
    MTE1_FIX = 32
    FIX_MTE1 = 33
    FIX_FIX = 34
    MAX = 35


class pipe_t(IntEnum):  # noqa: N801 - AscendC name
    PIPE_S = PIPE_S
    PIPE_V = PIPE_V
    PIPE_MTE2 = PIPE_MTE2
    PIPE_MTE3 = PIPE_MTE3
    PIPE_ALL = PIPE_ALL


event_t = int
EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 = range(8)
NUM_EVENT_IDS = 8

_PIPE_BY_NAME = {"S": PIPE_S, "V": PIPE_V, "MTE2": PIPE_MTE2, "MTE3": PIPE_MTE3}
# (source pipe, destination pipe) of every event both of whose pipes an AIV core has
EVENT_PIPES: dict[int, tuple[int, int]] = {}
for _e in HardEvent:
    _src, _, _dst = _e.name.partition("_")
    if _src in _PIPE_BY_NAME and _dst in _PIPE_BY_NAME:
        EVENT_PIPES[int(_e)] = (_PIPE_BY_NAME[_src], _PIPE_BY_NAME[_dst])

# the HardEvent template argument and the event id: scalars, no memory (MODE is event * 8 + id)
_FLAG_OPERANDS = (Operand("event", AccessPattern.NONE), Operand("eventID", AccessPattern.NONE))
_NO_TENSOR = (Signature((None, None)),)
SET = register(
    "SetFlag", family="sync", pipe=PipeRule.EVENT_SOURCE, operands=_FLAG_OPERANDS,
    signatures=_NO_TENSOR,
    dataflow=Dataflow.SET_FLAG, cost=Cost(CostKind.SET_FLAG), work=None,
    cpp=(CppDecl("template <HardEvent event>\n__aicore__ void SetFlag(int32_t eventID);"),),
    doc="set an (event, id) flag on the event's source pipe")
WAIT = register(
    "WaitFlag", family="sync", pipe=PipeRule.EVENT_DESTINATION, operands=_FLAG_OPERANDS,
    signatures=_NO_TENSOR,
    dataflow=Dataflow.WAIT_FLAG, cost=Cost(CostKind.WAIT_FLAG), work=None,
    cpp=(CppDecl("template <HardEvent event>\n__aicore__ void WaitFlag(int32_t eventID);"),),
    doc="wait for and clear an (event, id) flag on the event's destination pipe")
BARRIER = register(
    "PipeBarrier", family="sync", pipe=PipeRule.TEMPLATE_ARGUMENT,
    operands=(Operand("pipe", AccessPattern.NONE),),  # the template argument (MODE)
    signatures=(Signature((None,)),), dataflow=Dataflow.BARRIER, cost=Cost(CostKind.BARRIER),
    work=None,
    cpp=(CppDecl("template <pipe_t pipe>\n__aicore__ void PipeBarrier();"),),
    doc="wait until every earlier instruction of a pipe has finished")


def flag_name(flag: int) -> str:
    return f"{HardEvent(flag >> 3).name} id {flag & 7}"


def _event_pipes(event: int) -> tuple[int, int]:
    try:
        return EVENT_PIPES[event]
    except KeyError:
        raise SyncError(f"HardEvent {HardEvent(event).name} names a pipe an AI Vector core does "
                        "not have (only S, V, MTE2 and MTE3)") from None


def _flag_index(event: int, event_id: int) -> int:
    if not 0 <= event_id < NUM_EVENT_IDS:
        raise SyncError(f"eventID {event_id} should be in range [0, {NUM_EVENT_IDS})",
                        event=HardEvent(event).name)
    return event * NUM_EVENT_IDS + event_id


def _checked(core: CoreState, event: int, event_id: int, implicit: bool, what: str,
             frame) -> tuple[int, int, int] | None:
    """(source pipe, destination pipe, flag) of a SetFlag/WaitFlag, or None when the call is
    invalid and skipped (check mode; otherwise the error is raised)."""
    pipes = EVENT_PIPES.get(event)
    if pipes is None or not 0 <= event_id < NUM_EVENT_IDS:
        try:
            _event_pipes(event)
        except SyncError as e:
            fault(core, e, frame, check="illegal event pair")
            return None
        try:
            _flag_index(event, event_id)
        except SyncError as e:
            fault(core, e, frame, check="event id out of range")
            return None
    src, dst = pipes
    if src == dst or (event_id >= 6 and not implicit and not _from_tpipe(core, event, event_id)):
        _note_unusual(core, event, event_id, src, dst, what, frame)
    return src, dst, event * NUM_EVENT_IDS + event_id


def _from_tpipe(core: CoreState, event: int, event_id: int) -> bool:
    """Whether the TPipe handed this id out (FetchEventID / AllocEventID): not the kernel's
    pick, so not a reserved id written by hand."""
    pipe = core.pipe
    return pipe is not None and event * NUM_EVENT_IDS + event_id in pipe.handed


def _note_unusual(core: CoreState, event: int, event_id: int, src: int, dst: int, what: str,
                  frame) -> None:
    """Legal to execute, but reported by the sanitizer: a same-pipe event, a reserved id."""
    name = HardEvent(event).name
    if src == dst:
        note(core, SyncError(f"{what}<HardEvent::{name}>: an AI Vector core syncs between "
                             f"different pipes only (S, V, MTE2, MTE3); order PIPE_"
                             f"{PIPE_NAMES[src]} with PipeBarrier<PIPE_{PIPE_NAMES[src]}>"),
             frame, check="illegal event pair")
    if event_id >= 6:
        note(core, SyncError(f"{what}<HardEvent::{name}>(EVENT_ID{event_id}): event id 6 is "
                             "reserved and 7 belongs to the TPipe auto-sync; hand-written "
                             "syncs use ids 0-5 (or ids from FetchEventID)"), frame,
             check="reserved event id")


def _do_set(core: CoreState, flag: int, dst: int, rec: int = -1) -> None:
    if core.waiting[dst] == flag:
        # The destination pipe was stalled on exactly this flag: release it.
        core.waiting[dst] = -1
        core.stalled &= ~(1 << dst)
        _drain(core, dst)
    elif core.flags[flag]:
        # check mode: the flag stays set (the second set is lost)
        fault(core, SyncError(f"SetFlag on {flag_name(flag)}, which is already set and not yet "
                              "waited for (undefined on hardware: the second set is lost)",
                              core=core.block_idx), serial=rec if rec >= 0 else None,
              check="double SetFlag")
    else:
        core.flags[flag] = 1


def _pending_set(core: CoreState, flag: int) -> tuple[int, int] | None:
    """(pipe, record) of a SetFlag of `flag` that was issued but sits in a stalled pipe's
    backlog, or None."""
    for pipe in range(4):
        for fn, args in core.backlog[pipe]:
            if fn is _do_set and args[1] == flag:
                return pipe, args[3]
    return None


def _last_wait(core: CoreState, pipe: int, flag: int) -> int | None:
    """The record of the WaitFlag `pipe` is stalled on."""
    records = core.records
    return next((i for i in range(len(records) - 1, -1, -1)
                 if records[i][rec.OP] == WAIT.id and records[i][rec.PIPE] == pipe
                 and records[i][rec.MODE] == flag), None)


def _line(core: CoreState, serial: int | None) -> str:
    if serial is None:
        return "?"
    row = core.records[serial]
    return rec.position_of(row)[0]


def stall_chain(core: CoreState, pipe: int, flag: int) -> tuple[list[str], int, int]:
    """Why `pipe`'s wait for `flag` never ends, link by link: a SetFlag issued but held behind
    another pipe's wait, and so on to the first stalled wait, whose SetFlag was never issued.
    Returns (the links as text, that root pipe, its flag)."""
    links: list[str] = []
    seen = {pipe}
    while True:
        pending = _pending_set(core, flag)
        if pending is None or pending[0] in seen:
            return links, pipe, flag
        held_on, set_serial = pending
        nxt = core.waiting[held_on]
        links.append(f"its SetFlag<{flag_name(flag)}> ({_line(core, set_serial)}) was issued "
                     f"but is held on PIPE_{PIPE_NAMES[held_on]} behind WaitFlag<"
                     f"{flag_name(nxt)}> ({_line(core, _last_wait(core, held_on, nxt))})")
        seen.add(held_on)
        pipe, flag = held_on, nxt


def _chain_text(links: list[str], root_flag: int) -> str:
    tail = f"and no SetFlag<{flag_name(root_flag)}> was ever issued"
    return "; ".join([*links, tail])


def _do_wait(core: CoreState, flag: int, dst: int) -> None:
    if core.flags[flag]:
        core.flags[flag] = 0
    elif dst == PIPE_S:
        links, root, root_flag = stall_chain(core, dst, flag)
        if links:
            text = (f"the scalar pipe waits for {flag_name(flag)}: {_chain_text(links, root_flag)}"
                    f"; the first stalled wait is PIPE_{PIPE_NAMES[root]}'s at "
                    f"{_line(core, _last_wait(core, root, root_flag))}")
        else:
            text = (f"the scalar pipe waits for {flag_name(flag)}, which no issued instruction "
                    "sets: the scalar unit stops issuing, so nothing can")
        abort(core, DeadlockError(text, core=core.block_idx), serial=len(core.records) - 1)
    else:
        core.waiting[dst] = flag
        core.stalled |= 1 << dst


def _drain(core: CoreState, pipe: int) -> None:
    """Run work held back while `pipe` was stalled, until it stalls again."""
    backlog = core.backlog[pipe]
    while backlog and not core.stalled & (1 << pipe):
        fn, args = backlog.pop(0)
        if core.batch is not None and fn not in (core.batch.add, _do_set, _do_wait):
            core.batch.sync()  # eager work after deferred work (batch.py); flags touch none
        fn(*args)


def run_on_pipe(core: CoreState, pipe: int, fn, args: tuple) -> None:
    """Run `fn(*args)`, the work of a call on `pipe`, now or, while the pipe is stalled, when
    its flag is set. In deferred execution the deferred work added so far runs
    first (batch.py): `fn` may read what it wrote."""
    if core.stalled & (1 << pipe):
        core.backlog[pipe].append((fn, args))
    else:
        if core.batch is not None:
            core.batch.sync()
        fn(*args)


def defer_on_pipe(core: CoreState, pipe: int, header: int, row: tuple) -> None:
    """The deferred form of running `row`'s work on `pipe` (core.batch is set): added to the
    core's batch now, or when the pipe's flag is set."""
    if core.stalled & (1 << pipe):
        core.backlog[pipe].append((core.batch.add, (header, row)))
    else:
        core.batch.add(header, row)


def defer_row(core: CoreState, pipe: int, ins: Instruction, row: tuple, gm: int = 0,
              key: tuple | None = None) -> bool:
    """`defer_on_pipe` for a row whose kind its registry entry's `Work.bind` gives; `gm`: the
    memory id of the GM buffer the row touches (0: none). `key`: every value `Work.bind` reads
    from the row and the profile, when the caller knows them: the kind is then looked up once
    per key instead of bound per call. False, having deferred nothing, when the kind runs
    eagerly (batch.EAGER; see `eager_instead`): the caller then runs the work itself."""
    header = None if key is None else _DEFERRED.get((ins.id, key))
    if header is None:
        form, literals = ins.work.bind(row, core.profile)
        header = kind_of(ins.work.kernels[form], literals, len(row))
        if key is not None and header >= 0:  # EAGER is asked again (batch.py)
            _DEFERRED[ins.id, key] = header
    if header < 0:
        return eager_instead(core, pipe)
    if core.stalled & (1 << pipe):  # defer_on_pipe, inline: every deferred call comes here
        core.backlog[pipe].append((core.batch.add, (header | gm, row)))
    else:
        core.batch.add(header | gm, row)
    return True


def eager_instead(core: CoreState, pipe: int) -> bool:
    """Before a call whose kind runs eagerly in a deferring core (batch.EAGER: its work is not
    compiled yet) runs its work itself: the deferred work added so far runs first, unless `pipe`
    is stalled (its backlog then runs the eager work after it). Returns False (nothing was
    deferred)."""
    if not core.stalled & (1 << pipe):
        core.batch.sync()
    return False


_DEFERRED: dict[tuple, int] = {}  # (instruction id, key) -> header (defer_row)


def set_flag(core: CoreState, event: int, event_id: int, code: CodeType, lasti: int,
             implicit: bool = False, frame=None) -> None:
    checked = _checked(core, event, event_id, implicit, "SetFlag", frame)
    if checked is not None:
        record_set(core, checked[0], checked[1], checked[2], code, lasti, int(implicit))


def wait_flag(core: CoreState, event: int, event_id: int, code: CodeType, lasti: int,
              implicit: bool = False, frame=None) -> None:
    checked = _checked(core, event, event_id, implicit, "WaitFlag", frame)
    if checked is not None:
        record_wait(core, checked[1], checked[2], code, lasti, int(implicit))


# record_set / record_wait run for every flag, the queue calls' implicit ones included
_sync_row = rec.sync_row
_SET_ID, _WAIT_ID = SET.id, WAIT.id


def record_set(core: CoreState, src: int, dst: int, flag: int, code: CodeType, lasti: int,
               implicit: int) -> None:
    """Record a checked SetFlag and execute it on its source pipe (every SetFlag ends here);
    `code` is the kernel line's code object."""
    set_recorded(core, _sync_row(_SET_ID, src, code, lasti, flag, implicit), src, dst, flag)


def set_recorded(core: CoreState, row: tuple, src: int, dst: int, flag: int) -> None:
    """`record_set` with its row already built (a queue call keeps its rows per call site)."""
    core.records.append(row)
    if core.stalled & (1 << src):
        core.backlog[src].append((_do_set, (core, flag, dst, len(core.records) - 1)))
    elif core.flags[flag] or core.waiting[dst] == flag:
        _do_set(core, flag, dst, len(core.records) - 1)  # release a stalled pipe, or a double set
    else:
        core.flags[flag] = 1


def record_wait(core: CoreState, dst: int, flag: int, code: CodeType, lasti: int,
                implicit: int) -> None:
    """Record a checked WaitFlag and execute it on its destination pipe."""
    wait_recorded(core, _sync_row(_WAIT_ID, dst, code, lasti, flag, implicit), dst, flag)


def wait_recorded(core: CoreState, row: tuple, dst: int, flag: int) -> None:
    """`record_wait` with its row already built."""
    core.records.append(row)
    if core.stalled & (1 << dst):
        core.backlog[dst].append((_do_wait, (core, flag, dst)))
    elif core.flags[flag]:
        core.flags[flag] = 0
    else:
        _do_wait(core, flag, dst)


def _make_flag_op(op, event: int):
    """The kernel-facing SetFlag<event> / WaitFlag<event>: the common case (a legal event, an id
    in range, no stalled pipe) inline, everything else through set_flag / wait_flag."""
    pipes = EVENT_PIPES.get(event)
    legal = pipes is not None and pipes[0] != pipes[1]  # same-pipe events take the slow path
    src, dst = pipes if legal else (-1, -1)
    is_set = op is set_flag
    iid = SET.id if is_set else WAIT.id
    on_pipe = src if is_set else dst
    base = event * NUM_EVENT_IDS
    getframe = sys._getframe
    sync_row = rec.sync_row

    def call(eventId: int) -> None:
        f = getframe(1)
        core = getattr(_tls, "core", None)
        if (core is None or not legal or core.stalled or type(eventId) is not int
                or not 0 <= eventId < 6):
            # ids 6 and 7 too: the sanitizer reports them when written by hand
            op(current_core(), event, int(eventId), f.f_code, f.f_lasti, frame=f)
            return
        # record_set / record_wait with no stalled pipe, inline: the hottest sync path
        flag = base + eventId
        core.records.append(sync_row(iid, on_pipe, f.f_code, f.f_lasti, flag, 0))
        if is_set:
            if core.flags[flag] or core.waiting[dst] == flag:
                _do_set(core, flag, dst, len(core.records) - 1)  # release, or a double set
            else:
                core.flags[flag] = 1
        elif core.flags[flag]:
            core.flags[flag] = 0
        else:
            _do_wait(core, flag, dst)
    call.__name__ = f"{op.__name__}<{HardEvent(event).name}>"
    return call


class _TemplateArgs(dict):
    """A template's instantiations by argument value, so that `X[arg]` costs one C-level dict
    lookup; an integer-like argument that is not an int (a numpy integer) finds the same one."""

    accepts = ""  # the first half of the error for an argument outside the set
    spelling = ""  # how the C++ call is written here, for a call without the brackets

    def __call__(self, *args: object, **kwargs: object):
        raise ParameterError(f"{self.spelling}: the template argument goes in brackets "
                             "(C++ <...> is [...] in ascsim)")

    def __missing__(self, arg: object):
        call = None
        if type(arg) is not int:
            try:
                call = self.get(int(arg))
            except (TypeError, ValueError):
                pass
        if call is None:
            raise ParameterError(f"{self.accepts}, got {arg!r}")
        return call


class _FlagOp(_TemplateArgs):
    """`SetFlag[HardEvent.MTE2_V](EVENT_ID0)`: the event is the template argument."""

    def __init__(self, op) -> None:
        super().__init__((int(e), _make_flag_op(op, int(e))) for e in HardEvent
                         if e != HardEvent.MAX)
        name = "SetFlag" if op is set_flag else "WaitFlag"
        self.accepts = name + "[...] takes a HardEvent"
        self.spelling = (f"C++ {name}<HardEvent::MTE2_V>(EVENT_ID0) is written "
                         f"{name}[HardEvent.MTE2_V](EVENT_ID0)")


SetFlag = _FlagOp(set_flag)
WaitFlag = _FlagOp(wait_flag)


def _pipe_barrier(pipe: int):
    getframe = sys._getframe
    sync_row = rec.sync_row

    def call() -> None:
        f = getframe(1)
        core = getattr(_tls, "core", None) or current_core()
        if pipe == PIPE_S:
            fault(core, SyncError("PipeBarrier<PIPE_S> is not supported: the scalar pipe is "
                                  "ordered by hardware", core=core.block_idx), f)
            return  # check mode: skipped
        core.records.append(sync_row(BARRIER.id, pipe, f.f_code, f.f_lasti, pipe, 0))
        if pipe == PIPE_ALL and core.stalled:
            stuck = [PIPE_NAMES[p] for p in range(4) if core.stalled & (1 << p)]
            abort(core, DeadlockError(f"PipeBarrier<PIPE_ALL> while pipe(s) {', '.join(stuck)} "
                                      "wait for flags that only later instructions could set",
                                      core=core.block_idx), f,
                  serial=len(core.records) - 1)
    return call


class _Barrier(_TemplateArgs):
    """`PipeBarrier[PIPE_V]()`."""

    accepts = "PipeBarrier[...] takes PIPE_S, PIPE_V, PIPE_MTE2, PIPE_MTE3 or PIPE_ALL"
    spelling = "C++ PipeBarrier<PIPE_V>() is written PipeBarrier[PIPE_V]()"

    def __init__(self) -> None:
        super().__init__((p, _pipe_barrier(p)) for p in (PIPE_S, PIPE_V, PIPE_MTE2, PIPE_MTE3,
                                                         PIPE_ALL))


PipeBarrier = _Barrier()


def finish_core(core: CoreState) -> None:
    """End-of-kernel check: every stalled pipe is a deadlock."""
    if not core.stalled:
        return
    stuck = [p for p in range(4) if core.stalled & (1 << p)]
    if core.sanitizer is None:
        raise DeadlockError("the kernel ended with a WaitFlag nobody set: " + "; ".join(
            f"PIPE_{PIPE_NAMES[p]} waits for {flag_name(core.waiting[p])} "
            f"({len(core.backlog[p])} instruction(s) behind it)" for p in stuck),
            core=core.block_idx)
    # the first stalled wait of each chain first: it is the one to fix
    chains = {p: stall_chain(core, p, core.waiting[p]) for p in stuck}
    for p in sorted(stuck, key=lambda q: len(chains[q][0])):
        flag = core.waiting[p]
        links, root, root_flag = chains[p]
        behind = f"{len(core.backlog[p])} instruction(s) behind it never run"
        follows = ""
        if links:
            first = _line(core, _last_wait(core, root, root_flag))
            follows = f"the deadlock at {first}"
            text = (f"PIPE_{PIPE_NAMES[p]} waits for {flag_name(flag)} until the kernel ends: "
                    f"{_chain_text(links, root_flag)} ({behind}); fix the first stalled wait, "
                    f"PIPE_{PIPE_NAMES[root]}'s at {first}")
        else:
            text = (f"PIPE_{PIPE_NAMES[p]} waits for {flag_name(flag)} until the kernel ends: "
                    f"no SetFlag<{flag_name(flag)}> was ever issued ({behind})")
        fault(core, DeadlockError(text, core=core.block_idx), serial=_last_wait(core, p, flag),
              follows=follows)
