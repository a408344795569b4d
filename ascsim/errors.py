"""Exceptions. Everything ascsim raises on purpose derives from `AscsimError`:

- `AclnnError`: API misuse at an aclnn entry point (`.code`: the aclnn return code);
- `SimulationError` (one subclass per kind of kernel fault): what a kernel does wrong on the
  simulated core;
- `ProfileError`: a hardware profile that is missing, malformed or out of range;
- `ParseError`: C++ the mirror check cannot read;
- `UsageError`: a request ascsim cannot carry out as asked (an unknown operator, a shape or
  dtype it cannot parse, a tiling knob the operator does not have).

The command line turns any of them into one line on stderr (a traceback only with --debug).
"""

from __future__ import annotations

# aclnn return codes (docs/zh/context/aclnn_return_code.md)
ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_RUNTIME_ERROR = 361001
ACLNN_ERR_INNER = 561000
ACLNN_ERR_INNER_TILING_ERROR = 561002
ACLNN_ERR_INNER_NULLPTR = 561103

_CODE_NAMES = {
    ACLNN_ERR_PARAM_NULLPTR: "ACLNN_ERR_PARAM_NULLPTR",
    ACLNN_ERR_PARAM_INVALID: "ACLNN_ERR_PARAM_INVALID",
    ACLNN_ERR_RUNTIME_ERROR: "ACLNN_ERR_RUNTIME_ERROR",
    ACLNN_ERR_INNER: "ACLNN_ERR_INNER",
    ACLNN_ERR_INNER_TILING_ERROR: "ACLNN_ERR_INNER_TILING_ERROR",
    ACLNN_ERR_INNER_NULLPTR: "ACLNN_ERR_INNER_NULLPTR",
}


class AscsimError(Exception):
    """The root of every error ascsim raises on purpose."""


class UsageError(AscsimError, ValueError):
    """A request ascsim cannot carry out as asked (see the module docstring)."""


class ProfileError(AscsimError, ValueError):
    """A profile file that is missing, malformed or out of range."""


class ParseError(AscsimError, SyntaxError):
    """C++ source the mirror check cannot read."""


class AclnnError(AscsimError):
    """An aclnn API call failed; `.code` is the aclnn return code (161001, 161002, 561xxx)."""

    def __init__(self, code: int, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{_CODE_NAMES.get(code, 'ACLNN_ERR')} ({code}): {message}")


class SimulationError(AscsimError):
    """A kernel did something the hardware does not allow (or leaves undefined).

    `.kind` names the check, `.where` is a list of "label: text" context lines (instruction,
    kernels_py and kernels_cpp positions, core, buffer, byte range) filled in by whoever knows
    them; the message reads top-down like a sanitizer report.
    """

    kind = "simulation error"

    def __init__(self, message: str, check: str | None = None, **context: object) -> None:
        self.message = message
        self.check = check or self.kind  # a narrower name than the kind, where one helps
        self.context: dict[str, object] = {k: v for k, v in context.items() if v is not None}
        super().__init__(message)

    def add_context(self, **context: object) -> SimulationError:
        for k, v in context.items():
            if v is not None and k not in self.context:
                self.context[k] = v
        return self

    def __str__(self) -> str:
        lines = [f"{self.check}: {self.message}"]
        lines += [f"    {k.replace('_', ' ')}: {v}" for k, v in self.context.items()]
        return "\n".join(lines)


class OutOfRangeError(SimulationError):
    """An access or a tensor view outside its memory (UB, a GM buffer, a queue buffer)."""

    kind = "out of range"


class AlignmentError(SimulationError):
    kind = "misaligned address"


class ParameterError(SimulationError):
    """An instruction parameter outside its documented range or an unsupported dtype/mode."""

    kind = "invalid parameter"


class CastRuleError(ParameterError):
    kind = "illegal cast"


class QueueStateError(SimulationError):
    """TPipe/TQue/TBuf misuse: over capacity, DeQue without EnQue, double free, ..."""

    kind = "queue state"


class SyncError(SimulationError):
    """SetFlag/WaitFlag misuse: a flag set twice, an illegal event pair, an id out of range."""

    kind = "sync"


class DeadlockError(SyncError):
    """A WaitFlag that nothing will ever satisfy."""

    kind = "deadlock"


class KernelAssertError(SimulationError):
    """A kernel's own `assert` failed."""

    kind = "kernel assert"


class RaceError(SimulationError):
    """Two accesses to the same bytes (at least one a write) with no happens-before order
    between them: a missing SetFlag/WaitFlag or PipeBarrier."""

    kind = "race"


class UninitialisedError(SimulationError):
    """Bytes never written since their buffer was allocated reach a result."""

    kind = "uninitialised read"


class MultiCoreError(SimulationError):
    """Cores that write the same GM bytes, or output bytes no core writes."""

    kind = "multi-core"
