"""`Finding`: one sanitizer result, as data (for tests and tools) and as an msSanitizer-style
text block (for people).

Kinds follow msSanitizer's tools: memcheck (illegal or misaligned access, bad parameters, queue
misuse), racecheck (RAW/WAR/WAW hazards), synccheck (flag misuse, deadlocks), initcheck
(uninitialised bytes reaching a result); plus multicore (cores writing the same GM bytes, output
bytes no core writes) and assert (a kernel's own assert). ERROR is a deterministic bug, WARNING
depends on intent (msSanitizer's levels).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import SimulationError

__all__ = ["Finding", "FindingAccess", "ERROR", "WARNING", "KINDS"]

ERROR, WARNING = "ERROR", "WARNING"
KINDS = ("memcheck", "racecheck", "synccheck", "initcheck", "multicore", "assert")


@dataclass(frozen=True)
class FindingAccess:
    """The other side of a two-sided finding: the earlier access of a race, the other core of a
    multi-core conflict, the instruction that first read uninitialised bytes."""

    core: int
    serial: int
    instruction: str
    pipe: str | None = None
    write: bool = False
    py: str | None = None
    cpp: str | None = None
    start: int | None = None
    end: int | None = None

    def describe(self) -> str:
        what = "Write" if self.write else "Read"
        pipe = f"PIPE_{self.pipe} " if self.pipe else ""
        rng = "" if self.start is None else f" of bytes [{self.start}, {self.end})"
        return (f"{pipe}{what} by {self.instruction}{rng} in block aiv({self.core}) "
                f"(serialNo:{self.serial})")


@dataclass
class Finding:
    """One sanitizer finding. `serial` is the core's record index (msSanitizer's serialNo) of
    the instruction (for an instruction that was skipped: the index it would have had); `py` and
    `cpp` are "path:line" of the kernel line and of its mirrored C++ line."""

    kind: str
    severity: str
    check: str
    message: str
    core: int | None = None
    serial: int | None = None
    instruction: str | None = None
    pipe: str | None = None
    py: str | None = None
    cpp: str | None = None
    memory: str | None = None
    start: int | None = None
    end: int | None = None
    write: bool | None = None
    other: FindingAccess | None = None
    kernel: str = ""
    error: type[SimulationError] = field(default=SimulationError, repr=False, compare=False)
    follows: str = ""  # a follow-on: the earlier finding that caused it ("" for a root cause)

    @property
    def serialNo(self) -> int | None:  # noqa: N802 - msSanitizer's name
        return self.serial

    @property
    def size(self) -> int | None:
        return None if self.start is None or self.end is None else self.end - self.start

    @property
    def py_line(self) -> int | None:
        """The kernels_py line number (None when the position is unknown)."""
        if not self.py or ":" not in self.py:
            return None
        tail = self.py.rsplit(":", 1)[1]
        return int(tail) if tail.isdigit() else None

    @property
    def py_file(self) -> str | None:
        return self.py.rsplit(":", 1)[0] if self.py and ":" in self.py else self.py

    def group_key(self) -> tuple:
        return (self.severity, self.kind, self.check, self.py, self.instruction)

    def format(self) -> str:
        """msSanitizer's layout: headline, location, block and serialNo, source lines."""
        size = f" of size {self.size}" if self.size is not None else ""
        lines = [f"====== {self.severity}: {self.kind}: {self.check}{size}"]
        if self.memory is not None:
            at = f"at bytes [{self.start}, {self.end}) " if self.start is not None else ""
            verb = "" if self.write is None else (" when writing data" if self.write
                                                  else " when reading data")
            lines.append(f"======    {at}on {self.memory}{verb}"
                         + (f" in {self.kernel}" if self.kernel else ""))
        where = []
        if self.core is not None:
            where.append(f"in block aiv({self.core})")
        if self.instruction:
            pipe = f" on PIPE_{self.pipe}" if self.pipe else ""
            where.append(f"by {self.instruction}{pipe}")
        if self.serial is not None:
            where.append(f"(serialNo:{self.serial})")
        if where:
            lines.append("======    " + " ".join(where))
        if self.py:
            lines.append(f"======    #0 {self.py}")
        if self.cpp:
            lines.append(f"======       mirrors {self.cpp}")
        if self.other is not None:
            lines.append(f"======    and {self.other.describe()}")
            if self.other.py:
                lines.append(f"======    #0 {self.other.py}")
            if self.other.cpp:
                lines.append(f"======       mirrors {self.other.cpp}")
        for text in self.message.splitlines():
            lines.append(f"======    {text}")
        if self.follows:
            lines.append(f"======    follow-on of {self.follows}: fix that first")
        return "\n".join(lines)

    def to_error(self) -> SimulationError:
        """The SimulationError strict mode raises for this finding."""
        err = self.error(f"{self.check}: {self.message}")
        err.add_context(instruction=self.instruction, core=self.core, serial=self.serial,
                        kernels_py=self.py, kernels_cpp=self.cpp, memory=self.memory,
                        byte_range=None if self.start is None else f"[{self.start}, {self.end})")
        if self.other is not None:
            err.add_context(other_access=self.other.describe(), other_kernels_py=self.other.py)
        return err
