"""Source positions: turn a record's (code object, instruction offset) into `file:line` in
kernels_py, and, where a mirror map is known, the matching `file:line` in kernels_cpp.

Records store the code object and `f_lasti` because both are free to read on the hot path; the
line number is decoded only when somebody asks for it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache
from types import CodeType

__all__ = ["py_position", "cpp_position", "describe_position", "set_cpp_mapper", "short_path"]

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A function (py_path, py_line) -> (cpp_path, cpp_line) | None. Unset, the mirror checker's map
# (ascsim.mirror.cpp_line_for) is installed on first use; set_cpp_mapper(None) turns it off.
_UNSET = object()
_cpp_mapper: Callable[[str, int], tuple[str, int] | None] | None | object = _UNSET


@lru_cache(maxsize=4096)
def _line_table(code: CodeType) -> tuple[int, ...]:
    # co_positions yields one entry per 2-byte code unit; f_lasti is a byte offset.
    return tuple((pos[0] or 0) for pos in code.co_positions())


def py_position(code: CodeType, lasti: int) -> tuple[str, int]:
    """(path, line) of a record's kernel call."""
    table = _line_table(code)
    idx = max(0, min(lasti // 2, len(table) - 1))
    return code.co_filename, table[idx] if table else code.co_firstlineno


def short_path(path: str) -> str:
    """A path relative to the repository root when it lies inside it."""
    try:
        rel = os.path.relpath(path, _ROOT)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def set_cpp_mapper(mapper: Callable[[str, int], tuple[str, int] | None] | None) -> None:
    global _cpp_mapper
    _cpp_mapper = mapper


def cpp_position(py_path: str, py_line: int) -> tuple[str, int] | None:
    global _cpp_mapper
    if _cpp_mapper is _UNSET:
        from .mirror import cpp_line_for  # lazy: the map is built only when a position is shown
        _cpp_mapper = cpp_line_for
    if _cpp_mapper is None:
        return None
    return _cpp_mapper(py_path, py_line)


def describe_position(code: CodeType, lasti: int) -> tuple[str, str | None]:
    """("kernels_py/...py:LINE", "kernels_cpp/...:LINE" or None)."""
    path, line = py_position(code, lasti)
    cpp = cpp_position(path, line)
    return f"{short_path(path)}:{line}", (f"{short_path(cpp[0])}:{cpp[1]}" if cpp else None)
