"""The mirror check: `kernels_py` transcribes `kernels_cpp` statement by statement.

Each `kernels_cpp/<op>/<dir>/<stem>.{h,cpp}` is paired with `kernels_py/<op>/<dir>/<stem>.py`.
Both files become lists of statement items (function and class headers, fields, statements,
if/elif/else/for/while and block ends) in one common form, in which the documented C++ ->
Python spellings (DESIGN.md "Writing a kernel in Python"; the conventions of ascsim/host.py and
ascsim/aclnn.py) are equal: see canon.py, cpp_convert.py and py_convert.py for the full list.
The lists are aligned (align.py); a statement without an equal counterpart is reported with
both file:line positions. The same alignment maps each Python line to its C++ line, which
`ascsim.source` uses for error messages and traces (installed lazily by `cpp_line_for`).

    from ascsim.mirror import check_tree
    for result in check_tree("/path/to/repo"):
        for finding in result.findings:
            print(finding.format())
"""

from __future__ import annotations

import os
from pathlib import Path

from .align import Finding
from .canon import Item
from .pairs import FilePair, PairResult, check_pair, check_tree, find_pairs

__all__ = ["check_pair", "check_tree", "find_pairs", "FilePair", "PairResult", "Finding", "Item",
           "cpp_line_for", "line_map_for"]

# realpath of a .py -> (stamp, {py line: (cpp path, cpp line)})
_MAPS: dict[str, tuple[tuple, dict[int, tuple[str, int]]]] = {}
_MARK = os.sep + "kernels_py" + os.sep


def _twin_of(py_path: str) -> FilePair | None:
    parts = Path(py_path).parts
    if "kernels_py" not in parts:
        return None
    k = len(parts) - 1 - parts[::-1].index("kernels_py")
    root = Path(*parts[:k])
    rel = Path(*parts[k + 1:])
    if len(rel.parts) < 2:
        return None
    cpp_dir = root / "kernels_cpp" / rel.parent
    cpps = [cpp_dir / (rel.stem + s) for s in (".h", ".cpp")]
    cpps = [c for c in cpps if c.is_file()]
    if not cpps:
        return None
    return FilePair(cpps, Path(py_path), root / "kernels_cpp" / rel.parts[0])


def line_map_for(py_path: str) -> dict[int, tuple[str, int]]:
    """{Python line: (C++ path, C++ line)} of a kernels_py file ({} if it has no twin);
    computed once per file version."""
    if _MARK not in py_path:
        return {}
    real = os.path.realpath(py_path)
    pair = _twin_of(real)
    if pair is None:
        return {}
    try:
        stamp = tuple(os.stat(p).st_mtime_ns for p in (real, *pair.cpp))
    except OSError:
        return {}
    cached = _MAPS.get(real)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        mapping = check_pair(pair).line_map()
    except Exception:  # noqa: BLE001 - a position is a courtesy; never fail the caller
        mapping = {}
    _MAPS[real] = (stamp, mapping)
    return mapping


def cpp_line_for(py_path: str, py_line: int) -> tuple[str, int] | None:
    """The kernels_cpp (path, line) mirrored by a kernels_py line, or None."""
    return line_map_for(py_path).get(py_line)
