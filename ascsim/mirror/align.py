"""Align two item sequences (C++, Python) and describe every statement without a counterpart.

A global alignment (edit distance): a gap costs 1, pairing two equal items 0, pairing two
statements of the same head (the same call, or an assignment to the same target) that differ
in an argument 1, and pairing two different statements of the same kind 1.6 - still cheaper than
leaving both unpaired, so that a changed call is reported as one difference with both
positions. Unpaired items that are equal to an unpaired item on the other side are reported as
out of order.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .canon import Item, same

__all__ = ["Finding", "align"]

_GAP = 10
_SAME_HEAD = 10
_SAME_GROUP = 16
_INF = 1 << 30


def _short(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


@dataclass
class Finding:
    """kind: "differs" (paired, not equal), "missing" (C++ only), "extra" (Python only) or
    "moved" (equal statements at different places). `cpp_at` / `py_at` are the positions on
    both sides; for missing/extra items the other side's position is where the counterpart
    was expected (just after the last paired statement)."""

    kind: str
    cpp: Item | None
    py: Item | None
    cpp_at: tuple[str, int]
    py_at: tuple[str, int]

    def format(self) -> str:
        c = f"{_short(self.cpp_at[0])}:{self.cpp_at[1]}"
        p = f"{_short(self.py_at[0])}:{self.py_at[1]}"
        if self.kind == "differs":
            return (f"{c} <-> {p}: the statements differ\n"
                    f"    C++:    {self.cpp.text}\n    Python: {self.py.text}")
        if self.kind == "moved":
            return (f"{c} <-> {p}: the same statement at a different place (order differs)\n"
                    f"    {self.cpp.text}")
        if self.kind == "missing":
            return (f"{c}: no counterpart in Python (expected at {p})\n"
                    f"    C++:    {self.cpp.text}")
        return (f"{p}: no counterpart in C++ (expected at {c})\n"
                f"    Python: {self.py.text}")


def _cost(a: Item, b: Item, eq: bool) -> int:
    if eq:
        return 0
    if a.group != b.group:
        return _INF
    return _SAME_HEAD if a.head == b.head else _SAME_GROUP


def align(cpp: list[Item], py: list[Item], cpp_path: str, py_path: str
          ) -> tuple[list[tuple[Item, Item, bool]], list[Finding]]:
    """(pairs (cpp item, py item, equal), findings) of two item lists."""
    n, m = len(cpp), len(py)
    eq = [[same(a, b) for b in py] for a in cpp]
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0] = i * _GAP
    for j in range(1, m + 1):
        cost[0][j] = j * _GAP
    for i in range(1, n + 1):
        a, row, prev, eqr = cpp[i - 1], cost[i], cost[i - 1], eq[i - 1]
        for j in range(1, m + 1):
            best = prev[j - 1] + _cost(a, py[j - 1], eqr[j - 1])
            up = prev[j] + _GAP
            left = row[j - 1] + _GAP
            row[j] = min(best, up, left)
    # trace back, preferring a pairing
    steps: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and cost[i][j] == cost[i - 1][j - 1] + _cost(
                cpp[i - 1], py[j - 1], eq[i - 1][j - 1]):
            steps.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i > 0 and cost[i][j] == cost[i - 1][j] + _GAP:
            steps.append((i - 1, None))
            i -= 1
        else:
            steps.append((None, j - 1))
            j -= 1
    steps.reverse()

    pairs: list[tuple[Item, Item, bool]] = []
    findings: list[Finding] = []
    missing: list[tuple[int, tuple[str, int]]] = []
    extra: list[tuple[int, tuple[str, int]]] = []
    last_cpp: tuple[str, int] = (cpp_path, 0)
    last_py: tuple[str, int] = (py_path, 0)
    for a_i, b_j in steps:
        if a_i is not None and b_j is not None:
            a, b = cpp[a_i], py[b_j]
            pairs.append((a, b, eq[a_i][b_j]))
            if not eq[a_i][b_j]:
                findings.append(Finding("differs", a, b, (a.path, a.line), (b.path, b.line)))
            last_cpp, last_py = (a.path, a.lines[1]), (b.path, b.lines[1])
        elif a_i is not None:
            missing.append((a_i, (last_py[0], last_py[1] + 1)))
        else:
            extra.append((b_j, (last_cpp[0], last_cpp[1] + 1)))
    used: set[int] = set()
    for a_i, py_at in missing:
        a = cpp[a_i]
        match = next((b_j for b_j, _ in extra if b_j not in used and eq[a_i][b_j]), None)
        if match is not None:
            used.add(match)
            b = py[match]
            pairs.append((a, b, True))
            findings.append(Finding("moved", a, b, (a.path, a.line), (b.path, b.line)))
        else:
            findings.append(Finding("missing", a, None, (a.path, a.line), py_at))
    for b_j, cpp_at in extra:
        if b_j not in used:
            b = py[b_j]
            findings.append(Finding("extra", None, b, cpp_at, (b.path, b.line)))
    findings.sort(key=lambda f: (f.cpp_at[0], f.cpp_at[1], f.py_at[1]))
    return pairs, findings
