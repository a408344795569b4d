"""The sanitizer report: root causes first, then their follow-ons; findings grouped by
(severity, kind, check, kernel line), the first of each group in full with a count of the
others, then msSanitizer's summary line.

A follow-on is a finding an earlier one explains, so that the first finding printed is the one
to fix: output bytes not covered when some core faulted; a deadlock on a core after another
error (a core that stopped never sets its flags or reaches SyncAll); a deadlock whose SetFlag
is held behind another stalled wait (marked where it is found: sync.stall_chain); the
warnings of a core that deadlocked (flags left set, tensors left in queues); accesses past the
UB after an InitBuffer past it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from ..findings import ERROR, WARNING, Finding

__all__ = ["format_report", "summary_line", "sort_key", "root_causes_first"]

_SEVERITY_ORDER = {ERROR: 0, WARNING: 1}
_LEFT_BEHIND = ("unpaired SetFlag", "double SetFlag", "EnQue without DeQue",
                "AllocTensor without FreeTensor", "redundant sync")


def sort_key(f: Finding) -> tuple:
    return (1 if f.follows else 0, _SEVERITY_ORDER.get(f.severity, 2),
            -1 if f.core is None else f.core, -1 if f.serial is None else f.serial, f.kind,
            f.check)


def _name(f: Finding) -> str:
    return f"the {f.check} at {f.py}" if f.py else f"the {f.check}"


class _Causes:
    """Which root a finding follows from. The candidates of each rule are gathered once, so a
    report of many findings (a race in every tile) costs a lookup per finding, not a scan of
    every root."""

    def __init__(self, roots: list[Finding]) -> None:
        errors = [r for r in roots if r.severity == ERROR]
        self.first_error = {check: next((r for r in errors if r.check != check), None)
                            for check in ("output not covered", "deadlock")}
        self.errors_not_deadlock = [r for r in errors if r.check != "deadlock"]
        self.deadlock_of: dict[int | None, Finding] = {}   # core -> its first deadlock
        self.capacity_of: dict[int | None, list[Finding]] = {}  # core -> its UB capacity ones
        for r in roots:
            if r.check == "deadlock":
                self.deadlock_of.setdefault(r.core, r)
            elif r.check == "UB capacity":
                self.capacity_of.setdefault(r.core, []).append(r)

    def of(self, f: Finding) -> Finding | None:
        """The root finding `f` follows from, or None when `f` is a root cause itself."""
        if f.check == "output not covered":
            return self.first_error["output not covered"]
        if f.check == "deadlock":
            first = self.first_error["deadlock"]
            if first is None or first.core != f.core:
                return first
            return next((r for r in self.errors_not_deadlock
                         if r.core != f.core or (r.serial or 0) <= (f.serial or 0)), None)
        if f.check in _LEFT_BEHIND:
            return self.deadlock_of.get(f.core)
        if f.check == "out of range":
            return next((r for r in self.capacity_of.get(f.core, ())
                         if (r.serial or 0) <= (f.serial or 0)), None)
        return None


def root_causes_first(findings: list[Finding]) -> list[Finding]:
    """`findings` in the order to fix them: root causes by (severity, core, serialNo, kind,
    check), then the follow-ons, each marked with the finding it follows from."""
    ordered = sorted(findings, key=sort_key)
    causes = _Causes([f for f in ordered if not f.follows])
    marked = []
    for f in ordered:
        cause = None if f.follows else causes.of(f)
        marked.append(dataclasses.replace(f, follows=_name(cause)) if cause else f)
    # one pass: a finding names its direct cause, which may itself be a follow-on (a deadlock
    # after an error, the flags that deadlock left set)
    return sorted(marked, key=sort_key)


def summary_line(findings: list[Finding], kernel: str = "") -> str:
    errors = sum(1 for f in findings if f.severity == ERROR)
    warnings = sum(1 for f in findings if f.severity == WARNING)
    kinds = Counter(f.kind for f in findings)
    detail = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
    where = f" in {kernel}" if kernel else ""
    return (f"====== SUMMARY{where}: {errors} error(s), {warnings} warning(s)"
            + (f" ({detail})" if detail else ""))


def format_report(findings: list[Finding], kernel: str = "") -> str:
    """The whole report (just the summary line when there is nothing to report)."""
    groups: dict[tuple, list[Finding]] = {}
    for f in sorted(findings, key=sort_key):
        groups.setdefault(f.group_key(), []).append(f)
    ordered = sorted(groups.values(), key=lambda g: sort_key(g[0]))
    parts: list[str] = []
    for group in ordered:
        text = group[0].format()
        if len(group) > 1:
            cores = sorted({f.core for f in group if f.core is not None})
            shown = ", ".join(map(str, cores[:12])) + (" ..." if len(cores) > 12 else "")
            text += (f"\n======    ({len(group) - 1} more like this"
                     + (f" on core(s) {shown}" if cores else "") + ")")
        parts.append(text)
    parts.append(summary_line(findings, kernel))
    return "\n".join(parts)
