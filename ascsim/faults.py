"""Fault routing: what an instruction does when one of its checks fails.

Every check site in the simulator builds its `SimulationError` as before and hands it to
`fault` (the kernel may go on: the caller then continues safely, e.g. with a clipped range or by
skipping the instruction) or `abort` (the call cannot go on, e.g. a DeQue that would hang: the
core stops). Checks that only the sanitizer makes (a DataCopy tail that is silently dropped, a
partial overlap, a reserved event id) go to `note`, which does nothing when the sanitizer is off.

Modes: with the sanitizer off (`core.sanitizer is None`) `fault` and `abort` raise the error,
which is the simulator's plain behaviour. "strict" raises too (an ERROR stops the launch at
once). "check" records a `Finding` on the core and returns, or for `abort` stops the core with
`CoreAborted`, which the runtime catches; the other cores and the offline analyses still run.
"""

from __future__ import annotations

import weakref
from typing import Any

from . import records as rec
from .core import PIPE_NAMES, _tls, kernel_frame
from .errors import KernelAssertError, SimulationError, SyncError
from .findings import ERROR, Finding
from .registry import REGISTRY
from .source import describe_position

__all__ = ["Session", "CoreChecker", "CoreAborted", "fault", "abort", "note", "checker_of",
           "kind_of_error"]


class CoreAborted(Exception):
    """Check mode: a core hit a fault it cannot continue from (reported as a finding)."""


class Session:
    """The sanitizer settings of one launch."""

    def __init__(self, mode: str, sync_mode: str, outputs: frozenset[int],
                 kernel_name: str) -> None:
        self.mode = mode              # "check" | "strict"
        self.sync_mode = sync_mode    # "auto" | "manual"
        self.outputs = outputs        # memory ids (1 + GM argument index) of the outputs
        self.kernel_name = kernel_name


def kind_of_error(err: SimulationError) -> str:
    if isinstance(err, KernelAssertError):
        return "assert"
    if isinstance(err, SyncError):
        return "synccheck"
    return "memcheck"


def _memory_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    name = getattr(value, "name", None)
    return f"UB ({name})" if name is not None else str(value)


class CoreChecker:
    """One core's online findings (set as `core.sanitizer` while the sanitizer is on)."""

    __slots__ = ("_core", "session", "findings", "aborted")

    def __init__(self, core: Any, session: Session) -> None:
        # weak: the core holds its checker, and a cycle would keep a check run's cores (and
        # their Unified Buffers, which the next launch could reuse) until the cyclic GC runs
        self._core = weakref.ref(core)
        self.session = session
        self.findings: list[Finding] = []
        self.aborted = False

    @property
    def core(self) -> Any:
        return self._core()

    def add(self, finding: Finding) -> None:
        """Record a finding (strict mode raises an ERROR instead)."""
        finding.kernel = self.session.kernel_name
        if finding.core is None:
            finding.core = self.core.block_idx
        if self.session.mode == "strict" and finding.severity == ERROR:
            raise finding.to_error()
        self.findings.append(finding)

    def finding_from(self, err: SimulationError, frame: Any = None, serial: int | None = None,
                     severity: str = ERROR, **where: Any) -> Finding:
        records = self.core.records
        if serial is not None and 0 <= serial < len(records) and \
                records[serial][rec.CODE]:
            row = records[serial]
            py, cpp = rec.position_of(row)
            where.setdefault("instruction", REGISTRY[row[rec.OP]].name)
            where.setdefault("pipe", PIPE_NAMES[row[rec.PIPE]])
        else:
            code, lasti = (frame.f_code, frame.f_lasti) if frame is not None else kernel_frame(3)
            py, cpp = describe_position(code, lasti)
        ctx = dict(err.context)
        for key in ("core", "kernels_py", "kernels_cpp"):
            ctx.pop(key, None)
        memory = where.pop("memory", None) or _memory_text(ctx.get("buffer"))
        check = where.pop("check", None) or err.check
        extra = [f"{k.replace('_', ' ')}: {v}" for k, v in ctx.items()]
        message = err.message + ("".join("\n" + e for e in extra) if extra else "")
        return Finding(kind=kind_of_error(err), severity=severity, check=check,
                       message=message, core=self.core.block_idx,
                       serial=len(records) if serial is None else serial, py=py, cpp=cpp,
                       memory=memory, error=type(err), **where)

    def fault(self, err: SimulationError, frame: Any = None, serial: int | None = None,
              severity: str = ERROR, **where: Any) -> None:
        if self.session.mode == "strict" and severity == ERROR:
            code, lasti = (frame.f_code, frame.f_lasti) if frame is not None else kernel_frame(3)
            py, cpp = describe_position(code, lasti)
            err.add_context(core=self.core.block_idx, kernels_py=py, kernels_cpp=cpp)
            raise err
        self.add(self.finding_from(err, frame, serial, severity, **where))


def checker_of(core: Any) -> CoreChecker | None:
    if core is None:
        core = getattr(_tls, "core", None)
        if core is None:
            return None
    return core.sanitizer


def fault(core: Any, err: SimulationError, frame: Any = None, **where: Any) -> None:
    """A failed check the kernel can continue from: raise when the sanitizer is off or strict,
    otherwise record it and return (the caller continues safely)."""
    s = checker_of(core)
    if s is None:
        raise err
    s.fault(err, frame, **where)


def abort(core: Any, err: SimulationError, frame: Any = None, **where: Any) -> None:
    """A failed check the core cannot continue from (a hang, no buffer to return...)."""
    s = checker_of(core)
    if s is None:
        raise err
    s.fault(err, frame, **where)
    s.aborted = True
    raise CoreAborted(str(err))


def note(core: Any, err: SimulationError, frame: Any = None, severity: str = ERROR,
         **where: Any) -> None:
    """A check only the sanitizer makes: nothing happens when it is off."""
    s = checker_of(core)
    if s is not None:
        s.fault(err, frame, severity=severity, **where)

