"""The sanitizer report: findings grouped by (severity, kind, check, kernel line), the first of
each group in full with a count of the others, then msSanitizer's summary line."""

from __future__ import annotations

from collections import Counter

from ..findings import ERROR, WARNING, Finding

__all__ = ["format_report", "summary_line", "sort_key"]

_SEVERITY_ORDER = {ERROR: 0, WARNING: 1}


def sort_key(f: Finding) -> tuple:
    return (-1 if f.core is None else f.core, -1 if f.serial is None else f.serial,
            _SEVERITY_ORDER.get(f.severity, 2), f.kind, f.check)


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
    ordered = sorted(groups.values(), key=lambda g: (_SEVERITY_ORDER.get(g[0].severity, 2),
                                                      sort_key(g[0])))
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
