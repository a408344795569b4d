"""`launch`: run a kernel on every simulated core and collect what happened in a `Run`.

Each core gets its own UB, flags and instruction record. Cores run one after another, or on a
thread pool (`threads=N`; numba work releases the GIL). A correctly written kernel gives the same
bits either way: cores only share GM, and the sanitizer reports cores that write the same bytes.

The runtime sits above the analyses: after the cores it runs the sanitizer's offline checks, and
a `Run` hands its records to the timing model. Nothing is printed: the kernels' printf output
goes to the `ascsim.kernel` logger and the sanitizer report to `ascsim.sanitizer` (WARNING when
it has findings, INFO when clean).
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import inspect
import logging
import os
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from . import forked, progress, records
from .batch import Batch, Executor
from .core import PIPE_NAMES, CoreState, bind_core, new_ubs
from .coresched import CoreScheduler
from .errors import ParameterError, SimulationError, UsageError
from .faults import CoreAborted, CoreChecker, Session
from .instructions.crosscore import attach
from .memory import GmBuffer
from .profile import HardwareProfile, load_profile
from .records import Record, decode
from .recordstore import RecordStore
from .registry import REGISTRY
from .sanitizer import trace as _trace
from .sanitizer.crosscore import order_findings
from .sanitizer.offline import analyse_run
from .sanitizer.report import format_report, root_causes_first
from .sanitizer.snapshot import LaunchSnapshot
from .source import cpp_position, short_path
from .sync import finish_core
from .syncmode import sync_mode_of
from .tiling import TilingData
from .timing import profile_run

if TYPE_CHECKING:
    from .timing import Timeline

__all__ = ["launch", "Run", "execution_mode", "worker_processes"]

_ASCSIM_DIR = __file__.rsplit("/", 1)[0]
_KERNEL_LOG = logging.getLogger("ascsim.kernel")
_SANITIZER_LOG = logging.getLogger("ascsim.sanitizer")


@dataclass
class Run:
    """What a launch did: per-core instruction records and the launch parameters."""

    kernel_name: str
    block_dim: int
    profile: HardwareProfile
    cores: list[CoreState]
    gm: list[GmBuffer | None]
    tiling: TilingData | None
    tiling_key: int | None
    wall_seconds: float
    findings: list[Any] = field(default_factory=list)
    processes: int = 1  # the processes that ran the cores (launch's `workers`, forked.py)

    def records(self, core: int) -> Sequence[tuple]:
        """The record rows of one core, in issue order (records.py has the schema): a
        RecordStore (recordstore.py), read-only, indexed and iterated as a list of tuples."""
        return self.cores[core].records

    def decoded(self, core: int) -> list[Record]:
        return [decode(r, i) for i, r in enumerate(self.cores[core].records)]

    @property
    def instruction_count(self) -> int:
        return sum(len(c.records) for c in self.cores)

    def counts_by_pipe(self) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for c in self.cores:
            for r in c.records:
                counts[PIPE_NAMES[r[records.PIPE]]] += 1
        return dict(counts)

    def counts_by_instruction(self) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for c in self.cores:
            for r in c.records:
                counts[REGISTRY[r[records.OP]].name] += 1
        return dict(counts)

    def timeline(self, profile: str | HardwareProfile | None = None) -> Timeline:
        """The pipeline timeline of this run (`ascsim.timing.Timeline`) under `profile`
        (default: the profile the run used); see docs/timing.md."""
        return profile_run(self, profile)

    def log(self) -> list[str]:
        """printf / DumpTensor / assert output of every core, in core order; each line starts
        with `[core N, serialNo K]` (K: the record index of the next instruction)."""
        return [line for c in self.cores for line in c.log]

    @property
    def errors(self) -> list[Any]:
        """The ERROR findings (`findings` also holds warnings)."""
        return [f for f in self.findings if f.severity == "ERROR"]

    def report(self) -> str:
        """The sanitizer report of this run (msSanitizer style; see ascsim.sanitizer)."""
        return format_report(self.findings, self.kernel_name)

    def __repr__(self) -> str:
        return (f"<Run {self.kernel_name} block_dim={self.block_dim} "
                f"instructions={self.instruction_count} profile={self.profile.name}>")


def _wrap_gm(args: Sequence[Any], names: list[str]) -> list[GmBuffer | None]:
    bufs: list[GmBuffer | None] = []
    for i, a in enumerate(args):
        name = names[i] if i < len(names) else f"arg{i}"
        if a is None:
            bufs.append(None)  # an absent optional input: the kernel sees nullptr
        elif isinstance(a, np.ndarray):
            bufs.append(GmBuffer(a, name, len(bufs) + 1))
        else:
            raise ParameterError(f"launch: GM argument {name!r} must be a numpy array or None, "
                                 f"got {type(a).__name__}")
    return bufs


def _kernel_position(exc: BaseException) -> tuple[str | None, str | None]:
    """The innermost traceback frame outside ascsim: the kernel line that faulted."""
    py = cpp = None
    for frame, line in traceback.walk_tb(exc.__traceback__):
        path = frame.f_code.co_filename
        if not path.startswith(_ASCSIM_DIR):
            py = f"{short_path(path)}:{line}"
            mapped = cpp_position(path, line)
            cpp = f"{short_path(mapped[0])}:{mapped[1]}" if mapped else None
    return py, cpp


def _run_core(kernel: Callable[..., Any], args: list[Any], core: CoreState) -> None:
    bind_core(core)
    try:
        _run_kernel(kernel, args, core)
    finally:
        if core.batch is not None:
            core.batch.submit()  # the core's last rows (the launch waits for them)
        for obj in core.owned:  # the kernel has ended: its objects let go of the core
            obj._detach()
        core.owned.clear()


def _run_share(scheduler: CoreScheduler, share: list[int]) -> None:
    scheduler.keep_only(share)
    scheduler.run()


def _nothing() -> None:
    pass


def _run_core_ticking(run_core: Callable[[CoreState], None], tick: Callable[[], None],
                      core: CoreState) -> None:
    try:
        run_core(core)
    finally:
        tick()


def _run_core_packing(run_core: Callable[[CoreState], None], core: CoreState) -> None:
    """Run a core, then pack its records at once: nothing appends to them any more, and they
    are still in the CPU's caches (cheaper than packing every core when the launch ends). A
    forked share's cores come back packed (forked.py); under `unread_records` nothing is."""
    run_core(core)
    _pack_core(core)


def _run_kernel(kernel: Callable[..., Any], args: list[Any], core: CoreState) -> None:
    try:
        # the kernel's scalar float arithmetic (np.float32 values) is IEEE like the scalar
        # unit's: 0/0 is NaN and x/0 is Inf without numpy's RuntimeWarning
        with np.errstate(all="ignore"):
            kernel(*args)
        finish_core(core)
    except CoreAborted:
        pass  # check mode: the fault is a finding; this core stops, the others go on
    except SimulationError as e:
        py, cpp = _kernel_position(e)
        e.add_context(core=core.block_idx, kernels_py=py, kernels_cpp=cpp)
        checker = core.sanitizer
        if checker is None or checker.session.mode != "check":
            raise
        # check mode: a fault no check site handled still becomes a finding
        finding = checker.finding_from(e)
        finding.py, finding.cpp = py or finding.py, cpp or finding.cpp
        finding.message += "\n(the core stopped here)"
        checker.aborted = True
        checker.add(finding)
    finally:
        bind_core(None)


def _emit_logs(cores: list[CoreState]) -> None:
    """The kernels' printf / DumpTensor / assert lines, in core order."""
    for core in cores:
        for line in core.log:
            _KERNEL_LOG.info(line)


def _check_arity(kernel: Callable[..., Any], n_gm: int, has_tiling: bool) -> None:
    """Say which kernel arguments a launch leaves out, in launch's terms (Python would say
    "k() missing 1 required positional argument: 'tiling'")."""
    try:
        params = list(inspect.signature(kernel).parameters.values())
    except (TypeError, ValueError):
        return
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return
    required = [p.name for p in params if p.default is p.empty]
    given = n_gm + has_tiling
    if given >= len(required):
        return
    # the tiling struct, when given, is the last argument: what is missing comes before it
    missing = required[n_gm:len(required) - has_tiling]
    hint = ("pass the tiling struct as tiling=..." if not has_tiling and missing[-1] == "tiling"
            else "pass every GM address in order (None for an absent input or workspace)")
    name = getattr(kernel, "__name__", "kernel")
    raise UsageError(f"{name}({', '.join(p.name for p in params)}) takes {len(required)} "
                     f"arguments and the launch gives {given}: {', '.join(missing)} missing; "
                     f"{hint}")


def launch(kernel: Callable[..., Any], block_dim: int, *gm_args: Any,
           tiling: TilingData | None = None, tiling_key: int | None = None,
           profile: str | HardwareProfile | None = None, sanitize: str = "off",
           threads: int = 1, core_order: str = "forward",
           outputs: Sequence[int] | None = None, atomic_order: str = "core",
           workspace: int | None = None, execution: str | None = None,
           workers: int | None = None) -> Run:
    """Run `kernel(*gm_args, tiling)` on `block_dim` simulated AI Vector cores.

    `gm_args` are numpy arrays (C-contiguous; outputs are written in place) or None for an
    absent optional input; the tiling struct, if given, is passed as the last GM_ADDR argument.
    `core_order="reverse"` runs the cores last to first (a correct kernel gives the same bits).
    Cores are scheduled cooperatively (instructions/crosscore.py): they run in that order and
    hand over at cross-core points (SyncAll, CrossCoreSetFlag/WaitFlag); with `threads=N` up
    to N run at once, with the same bits. `atomic_order` ("core", "reverse" or "shuffle:SEED")
    overrides that order, which is the order float atomics accumulate in; re-running with
    another one exposes order-sensitive outputs (the sanitizer does it in check mode).

    `sanitize`: "off" (faults raise, nothing else is checked), "check" (every check runs,
    faults become findings in `Run.findings`, and the report goes to the `ascsim.sanitizer`
    logger) or "strict" (a SimulationError at the first ERROR). `outputs`: indices into
    `gm_args` of the kernel's outputs (the aclnn layer passes them); the sanitizer then reports
    reads of output bytes not yet written and output bytes no core writes. `workspace`: the
    index of the workspace argument (the aclnn layer passes it); the sanitizer then reports
    reads of workspace bytes no write ordered before them has written. `execution`:
    "deferred" (the default) runs the instructions' numba work in batches on a worker thread
    (batch.py) and "eager" runs each call's work before the call returns; both give the same
    outputs, records and findings. None: what `execution_mode` set (default "deferred", or the
    environment variable ASCSIM_EXECUTION). `workers=N` (fast mode, POSIX): the cores
    run in N processes, forked for the launch, with the bits and records of one process; a
    launch whose shares of the cores are not independent (cross-core points, GM bytes shared,
    an error) runs again in one process (forked.py). None: what `worker_processes` set (default
    1, or the environment variable ASCSIM_WORKERS). In check mode a run
    whose GM was written by atomics is re-run with the opposite atomic order, and output bytes
    that differ are reported (float atomics are order-sensitive).
    """
    if core_order not in ("forward", "reverse"):
        raise ParameterError(f"core_order must be 'forward' or 'reverse', got {core_order!r}")
    if sanitize not in ("off", "check", "strict"):
        raise ParameterError(f"sanitize must be 'off', 'check' or 'strict', got {sanitize!r}")
    if execution is None:
        execution = _EXECUTION.get() or os.environ.get("ASCSIM_EXECUTION", "deferred")
    if execution not in ("deferred", "eager"):
        raise ParameterError(f"execution must be 'deferred' or 'eager', got {execution!r}")
    block_dim = int(block_dim)
    if block_dim < 1:
        raise ParameterError(f"block_dim must be at least 1, got {block_dim}")
    threads = max(1, int(threads))
    prof = load_profile(profile)
    try:
        names = list(inspect.signature(kernel).parameters)
    except (TypeError, ValueError):
        names = []
    _check_arity(kernel, len(gm_args), tiling is not None)
    gm = _wrap_gm(gm_args, names)
    args: list[Any] = list(gm)
    if tiling is not None:
        tbuf = GmBuffer(tiling.to_bytes(), "tiling", len(gm) + 1, struct=type(tiling))
        gm.append(tbuf)
        args.append(tbuf)
    gm_table: list[Any] = [None, *gm]  # memory id k -> buffer (0 is UB)
    sequence = _order(block_dim, core_order, atomic_order)
    if workers is None:
        workers = _WORKERS.get() or int(os.environ.get("ASCSIM_WORKERS") or 1)
    shares = None
    if (int(workers) > 1 and block_dim > 1 and sanitize == "off" and forked.available()
            and not _trace.capturing()):
        shares = forked.split(sequence, int(workers))
    ubs = new_ubs(prof, block_dim, forked.shared_bytes if shares else None)
    cores = [CoreState(b, block_dim, prof, gm_table, tiling_key, ubs[b])
             for b in range(block_dim)]
    name = getattr(kernel, "__name__", str(kernel))
    session = None
    if sanitize != "off":
        outs = frozenset(int(i) + 1 for i in (outputs or ()) if 0 <= int(i) < len(gm_args))
        session = Session(sanitize, sync_mode_of(kernel), outs, name)
        session.workspaces = frozenset(  # type: ignore[attr-defined]
            {int(workspace) + 1} if workspace is not None and 0 <= workspace < len(gm_args)
            else ())
        for core in cores:
            core.sanitizer = CoreChecker(core, session)
    # what the atomic-order re-run starts from (check mode, several cores; copied lazily)
    snapshot = LaunchSnapshot(gm) if sanitize == "check" and block_dim > 1 else None
    executor = None
    if execution == "deferred" and not _trace.reads_memory():
        executor = Executor(gm_table)
        for core in cores:
            core.batch = Batch(executor, core.ub)
    _trace.attach(cores)
    if snapshot is not None:
        snapshot.attach(cores)
    order = [cores[i] for i in sequence]
    start = time.perf_counter()
    # The records are tens of thousands of small tuples: the cyclic GC would rescan them again
    # and again while they grow. Nothing a kernel creates needs cycle collection meanwhile.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    stands = True  # a forked launch's shares were independent (else it runs again)
    try:
        run_core = partial(_run_core, kernel, args)
        if shares is None and _PACK.get():
            run_core = partial(_run_core_packing, run_core)
        with contextlib.ExitStack() as stack:
            # a bar once the launch takes 1 s (forked shares would each draw their own)
            if block_dim > 1 and progress.is_enabled() and shares is None:
                tick = stack.enter_context(progress.tick_bar(block_dim, name, " cores"))
                run_core = partial(_run_core_ticking, run_core, tick)
            scheduler = CoreScheduler(cores, [c.block_idx for c in order], threads, run_core)
            attach(cores, scheduler)
            if shares is None:
                scheduler.run()
            else:
                stands = forked.run_shares(
                    partial(_run_share, scheduler), shares, cores, gm,
                    partial(_close, executor, cores) if executor is not None else _nothing)
    finally:
        if executor is not None:
            _close(executor, cores)
        if gc_was_enabled:
            # What the run made lives as long as the run (records, tensors): hand it to the
            # oldest generation directly, or re-enabling the collector would first scan it all
            # once as young objects (about 7 ms for 100k records).
            gc.freeze()
            gc.unfreeze()
            gc.enable()
        _trace.detach(cores)
        if snapshot is not None:
            snapshot.detach(cores)
        if stands:
            _emit_logs(cores)
    if not stands:  # the shares were not independent: the launch runs in one process
        return launch(kernel, block_dim, *gm_args, tiling=tiling, tiling_key=tiling_key,
                      profile=prof, sanitize=sanitize, threads=threads, core_order=core_order,
                      outputs=outputs, atomic_order=atomic_order, workspace=workspace,
                      execution=execution, workers=1)
    wall = time.perf_counter() - start
    run = Run(name, block_dim, prof, cores, gm, tiling, tiling_key, wall,
              processes=1 if shares is None else len(shares))
    if session is not None:
        rerun = None if snapshot is None else partial(
            _atomic_rerun, kernel, block_dim, snapshot, gm, tiling, tiling_key, prof, threads,
            sequence)
        _sanitize(run, session, rerun)
    return run


def _pack_core(core: CoreState) -> None:
    """A finished core's record list becomes a RecordStore, the same rows in about half the
    memory. A traced core keeps its capturing list: its captured operand values are kept
    beside its rows (sanitizer/trace.py)."""
    if type(core.records) is list:
        core.records = RecordStore.pack(core.records)


_EXECUTION: contextvars.ContextVar[str | None] = contextvars.ContextVar("execution",
                                                                      default=None)


@contextlib.contextmanager
def execution_mode(mode: str) -> Iterator[None]:
    """Launches inside the block (on this thread) run with `execution=mode` unless they say
    otherwise: "deferred" or "eager" (see `launch`)."""
    token = _EXECUTION.set(mode)
    try:
        yield
    finally:
        _EXECUTION.reset(token)


_WORKERS: contextvars.ContextVar[int | None] = contextvars.ContextVar("workers", default=None)

_PACK: contextvars.ContextVar[bool] = contextvars.ContextVar("pack_records", default=True)


@contextlib.contextmanager
def unread_records() -> Iterator[None]:
    """Launches inside the block (on this thread) leave their cores' records as the lists they
    were made in: for a caller that drops the Run unread (an aclnn call without return_run).
    Packing them into a RecordStore halves the memory of a Run that is kept, and costs what
    nobody would see (4.4 ms of SCE grad fp32 at 2^22, 6% of its launch)."""
    token = _PACK.set(False)
    try:
        yield
    finally:
        _PACK.reset(token)


@contextlib.contextmanager
def worker_processes(n: int) -> Iterator[None]:
    """Launches inside the block (on this thread) run with `workers=n` unless they say
    otherwise (see `launch`)."""
    token = _WORKERS.set(max(1, int(n)))
    try:
        yield
    finally:
        _WORKERS.reset(token)


def _close(executor: Executor, cores: list[CoreState]) -> None:
    """The launch's deferred work has all run: then the cores run eagerly (a finished run's
    objects may still be used from Python)."""
    try:
        executor.close()
    finally:
        for core in cores:
            core.batch = None


def _atomic_rerun(kernel: Callable[..., Any], block_dim: int, snapshot: LaunchSnapshot,
                  gm: list[GmBuffer | None], tiling: TilingData | None, tiling_key: int | None,
                  prof: HardwareProfile, threads: int, sequence: list[int]) -> list[Any]:
    """The GM bytes after running the kernel again on the original inputs with the reversed
    atomic order (sanitizer off, kernel output not logged)."""
    args = [None if s is None else s.copy().view(b.array.dtype).reshape(b.array.shape)
            for s, b in zip(snapshot.originals(), gm, strict=False)
            ][:len(gm) - (tiling is not None)]
    was = _KERNEL_LOG.disabled
    _KERNEL_LOG.disabled = True
    try:
        again = launch(kernel, block_dim, *args, tiling=tiling, tiling_key=tiling_key,
                       profile=prof, threads=threads,
                       atomic_order=("core" if sequence == list(range(block_dim))[::-1]
                                     else "reverse"))
    finally:
        _KERNEL_LOG.disabled = was
    return [None if b is None else b.data for b in again.gm]


def _order(n: int, core_order: str, atomic_order: str) -> list[int]:
    """The cores' scheduling order: `atomic_order` when it is not "core", else `core_order`."""
    if atomic_order == "core":
        return list(range(n)) if core_order == "forward" else list(range(n - 1, -1, -1))
    if atomic_order == "reverse":
        return list(range(n - 1, -1, -1))
    if atomic_order.startswith("shuffle:"):
        try:
            seed = int(atomic_order.split(":", 1)[1])
        except ValueError:
            seed = None
        if seed is not None:
            return [int(i) for i in np.random.default_rng(seed).permutation(n)]
    raise ParameterError(f"atomic_order must be 'core', 'reverse' or 'shuffle:SEED', got "
                         f"{atomic_order!r}")


def _sanitize(run: Run, session: Session, rerun: Callable[[], list[Any]] | None = None
              ) -> None:
    """The offline analyses; then strict raises the earliest ERROR, check logs the report."""
    findings = [f for core in run.cores for f in core.sanitizer.findings]
    findings += analyse_run(run, session)
    if rerun is not None and session.mode == "check" and run.block_dim > 1:
        findings += order_findings(run, rerun)
    findings = root_causes_first(findings)
    run.findings = findings
    if session.mode == "strict":
        errors = [f for f in findings if f.severity == "ERROR"]
        if errors:
            raise errors[0].to_error()
    _SANITIZER_LOG.log(logging.WARNING if findings else logging.INFO,
                       format_report(findings, run.kernel_name))
