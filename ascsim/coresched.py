"""The core scheduler: runs the cores of one launch as cooperative tasks.

Every core runs its kernel on an OS thread of its own stack, but only the
cores holding a *baton* run: one with `threads=1`, up to N with `threads=N`. A core gives its
baton back at a cross-core point (a SyncAll, a CrossCoreSetFlag or CrossCoreWaitFlag) and when
its kernel ends; the free batons go to the runnable cores in a fixed order (core order, or
`core_order="reverse"`, or the launch's `atomic_order` permutation), lowest first. A core that
waits (a SyncAll not all cores have reached, a flag counter at 0) is not runnable. So with
`threads=1` the interleaving is a function of the kernel alone, and the cores of a kernel
without cross-core points run one after another on the launching thread, as before (no thread
is made). When nothing is runnable and some core still waits, that is a deadlock: the waiting
cores are resumed one at a time (lowest first) with a `DeadlockError` at their waiting line
(a finding in `sanitize="check"` mode, raised otherwise).

With `threads=N > 1` the phases between cross-core points of different cores run in
parallel; a correctly synchronised kernel gives the same bits. The one order-sensitive thing
cores do in a phase, an atomic GM write, waits until every core before it in the order is
itself waiting at a cross-core point or finished, which is exactly when it happens with
`threads=1`: float atomics then accumulate in the same order whatever the thread count.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .core import CoreState, settle_memory
from .errors import DeadlockError
from .faults import abort
from .forked import NeedsOneProcess
from .source import describe_position

__all__ = ["CoreScheduler", "Cancelled"]

NEW, READY, RUNNING, BLOCKED, DONE = range(5)
_CROSS, _ATOMIC = 1, 2  # why a BLOCKED core waits


class Cancelled(BaseException):
    """Raised in a waiting core when the launch stops (another core faulted)."""


class CoreScheduler:
    """Runs the cores of one launch (see the module docstring). Cross-core calls wait through
    `point`; an atomic GM write through `atomic_turn`."""

    def __init__(self, cores: list[CoreState], order: list[int], threads: int,
                 run_core: Callable[[CoreState], None]) -> None:
        n = len(cores)
        self.cores = cores
        self.n = n
        self.order = order
        self.rank = [0] * n
        for i, c in enumerate(order):
            self.rank[c] = i
        self.slots = max(1, min(int(threads), n))
        self.run_core = run_core
        self.lock = threading.Lock()
        self.cond = [threading.Condition(self.lock) for _ in range(n)]
        self.all_done = threading.Condition(self.lock)
        self.state = [NEW] * n
        self.why = [0] * n
        self.ready_fn: list[Callable[[], bool] | None] = [None] * n
        self.resume_fn: list[Callable[[], None] | None] = [None] * n
        self.waits: list[tuple[str, Any] | None] = [None] * n   # (text, frame) while waiting
        self.deadlocked = [False] * n
        self.running = 0
        self.ndone = 0
        self.lo = 0  # order[:lo] are DONE
        self.cancel = False
        self.errors: dict[int, BaseException] = {}
        self.threads: list[threading.Thread] = []
        self.share: list[int] | None = None  # run only these cores (forked.py)

    def keep_only(self, share: list[int]) -> None:
        """Run only the cores of `share` (a forked launch's share, forked.py): the others
        count as ended, and a cross-core point raises NeedsOneProcess."""
        keep = set(share)
        for c in range(self.n):
            if c not in keep:
                self.state[c] = DONE
                self.ndone += 1
        self.order = [c for c in self.order if c in keep] + \
            [c for c in self.order if c not in keep]
        for i, c in enumerate(self.order):
            self.rank[c] = i
        self.share = share

    # -- running --

    def run(self) -> None:
        """Run every core; re-raise the fault of the first core (in order) that had one."""
        with self.lock:
            first = self._dispatch(reuse=True)
        self._worker(first)
        with self.lock:
            while self.ndone < self.n:
                self.all_done.wait()
        for t in self.threads:
            t.join()
        # the run's cores point at this scheduler (core.xcore.sched): let go of them and of the
        # kernel, so that a finished run is freed by reference counting, not the cyclic GC
        self.cores, self.run_core, self.threads = [], None, []
        self.cond = []
        if self.errors:
            raise self.errors[min(self.errors, key=lambda c: self.rank[c])]

    def _worker(self, c: int | None) -> None:
        while c is not None:
            if not self.cancel:
                try:
                    self.run_core(self.cores[c])
                except Cancelled:
                    pass
                except BaseException as e:  # noqa: BLE001 - handed to the launching thread
                    with self.lock:
                        self.errors[c] = e
                        self.cancel = True
            with self.lock:
                self.state[c] = DONE
                self.ndone += 1
                self.running -= 1
                c = self._dispatch(reuse=True)

    def _spawn(self, c: int) -> None:
        t = threading.Thread(target=self._worker, args=(c,), name=f"ascsim-core-{c}",
                             daemon=True)
        self.threads.append(t)
        t.start()

    def _runnable(self, c: int) -> bool:
        s = self.state[c]
        if s == NEW or s == READY:
            return True
        if s == BLOCKED:
            return self.cancel or self.ready_fn[c]()
        return False

    def _dispatch(self, reuse: bool = False) -> int | None:
        """Hand free batons to runnable cores, lowest in the order first (lock held). Returns
        a core that has not started for the calling thread to run (when `reuse`)."""
        take = None
        order, state = self.order, self.state
        lo = self.lo
        while lo < self.n and state[order[lo]] == DONE:
            lo += 1  # the finished prefix of the order is never looked at again
        self.lo = lo
        while self.running < self.slots:
            c = next((order[i] for i in range(lo, self.n) if self._runnable(order[i])), None)
            if c is None:
                break
            self.running += 1
            if self.state[c] == NEW:
                self.state[c] = RUNNING
                if self.cancel:  # never started: nothing to unwind
                    self.state[c] = DONE
                    self.ndone += 1
                    self.running -= 1
                    continue
                if reuse and take is None:
                    take = c
                else:
                    self._spawn(c)
            else:
                if self.state[c] == BLOCKED and not self.cancel:
                    fn = self.resume_fn[c]
                    if fn is not None:
                        fn()
                self.state[c] = RUNNING
                self.cond[c].notify()
        if self.running == 0 and take is None and self.ndone < self.n:
            # nothing can run but some core waits: a deadlock; resume the first waiting core
            # with it (it reports and stops; the next one follows when it has)
            c = next((c for c in self.order if self.state[c] == BLOCKED), None)
            if c is not None:
                self.deadlocked[c] = True
                self.state[c] = RUNNING
                self.running += 1
                self.cond[c].notify()
        if self.ndone == self.n:
            self.all_done.notify_all()
        return take

    def _wait(self, c: int, why: int, ready: Callable[[], bool],
              resume: Callable[[], None] | None, what: str, frame: Any) -> bool:
        """Give the baton back and wait until `ready()` holds and it is this core's turn
        (lock held). Returns False when the wait deadlocked."""
        self.state[c] = BLOCKED
        self.why[c] = why
        self.ready_fn[c] = ready
        self.resume_fn[c] = resume
        self.waits[c] = (what, frame)
        self.running -= 1
        self._dispatch()
        while self.state[c] != RUNNING:
            self.cond[c].wait()
        self.ready_fn[c] = self.resume_fn[c] = None
        self.waits[c] = None
        if self.deadlocked[c]:
            self.deadlocked[c] = False
            return False
        if self.cancel:
            raise Cancelled()
        return True

    def point(self, core: CoreState, arrive: Callable[[], None] | None,
              ready: Callable[[], bool], resume: Callable[[], None] | None, what: str,
              frame: Any) -> None:
        """A cross-core point of `core`: `arrive()` (its effect on the shared state), then
        wait for `ready()`, then `resume()`; all under the scheduler's lock."""
        c = core.block_idx
        if self.share is not None:
            raise NeedsOneProcess(f"{what}: the other cores run in other processes")
        if core.batch is not None:
            # What the core wrote reaches memory before others look at it: other cores' work
            # runs after it in the one queue of batches, and Python reading memory waits
            # for the queue first (batch.py), so handing the rows over is enough; running
            # them here would keep the worker idle while the core waits.
            core.batch.submit()
        with self.lock:
            if arrive is not None:
                arrive()
            ok = self._wait(c, _CROSS, ready, resume, what, frame)
            if not ok:
                text = self._deadlock_text(c, what)
        if not ok:
            abort(core, DeadlockError(text, core=c), frame)

    def _deadlock_text(self, c: int, what: str) -> str:
        others = []
        for j in range(self.n):
            if j == c:
                continue
            if self.state[j] == DONE:
                others.append(f"core {j} has ended")
            elif self.waits[j] is not None:
                others.append(f"core {j} waits at {self.waits[j][0]} ({_where(self.waits[j][1])})")
        tail = "; ".join(others) if others else "no other core can run"
        return f"{what} is never satisfied: {tail}"

    def atomic_turn(self, core: CoreState) -> None:
        """With several batons: wait until every core before `core` in the order is waiting
        at a cross-core point or finished (see the module docstring)."""
        if self.slots == 1:
            return
        settle_memory(core)
        c = core.block_idx
        mine = self.rank[c]

        def ready() -> bool:
            for j in self.order[:mine]:
                s = self.state[j]
                if not (s == DONE or (s == BLOCKED and self.why[j] == _CROSS)):
                    return False
            return True

        with self.lock:
            if ready():
                return
            if not self._wait(c, _ATOMIC, ready, None, "an atomic GM write", None):
                return


def _where(frame: Any) -> str:
    if frame is None:
        return "?"
    py, _ = describe_position(frame.f_code, frame.f_lasti)
    return py


