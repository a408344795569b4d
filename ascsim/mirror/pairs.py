"""File pairs (`kernels_cpp/<op>/<dir>/<stem>.{h,cpp}` <-> `kernels_py/<op>/<dir>/<stem>.py`),
their check, and the py-line -> cpp-line map that error messages use.

When both `<stem>.h` and `<stem>.cpp` exist, the Python file mirrors the header followed by the
source. The declarations that resolve names (classes, fields, namespaces, global constants) are
collected from every C++ file of the op, so that a source can use a struct from another
directory (the op_host tiling reads the op_kernel tiling struct).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .align import Finding, align
from .canon import Item
from .cpp_convert import CppContext, collect, convert_cpp
from .cpp_parse import parse_cpp
from .cpp_tree import ParseError
from .py_convert import convert_py

__all__ = ["FilePair", "PairResult", "find_pairs", "check_pair", "check_tree", "op_context",
           "CPP_SUFFIXES"]

CPP_SUFFIXES = (".h", ".cpp")


@dataclass
class FilePair:
    cpp: list[Path]          # header first; empty when the Python file has no C++ twin
    py: Path | None          # None when the C++ file has no Python twin
    op_dir: Path             # kernels_cpp/<op>


@dataclass
class PairResult:
    pair: FilePair
    pairs: list[tuple[Item, Item, bool]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    cpp_items: int = 0
    py_items: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None and not self.findings

    @property
    def unpaired(self) -> int:
        return len(self.findings) + (1 if self.error else 0)

    def line_map(self) -> dict[int, tuple[str, int]]:
        """Python line -> (C++ path, C++ line) for every paired statement."""
        out: dict[int, tuple[str, int]] = {}
        for c, p, _ in self.pairs:
            if p.kind == "end":
                continue
            for ln in range(p.lines[0], p.lines[1] + 1):
                out.setdefault(ln, (c.path, c.line))
        return out


def _twin_py(cpp_root: Path, py_root: Path, cpp_file: Path) -> Path:
    rel = cpp_file.relative_to(cpp_root)
    return py_root / rel.parent / (cpp_file.stem + ".py")


def find_pairs(root: str | os.PathLike, ops: list[str] | None = None) -> list[FilePair]:
    """Every file pair under root/kernels_cpp and root/kernels_py (for the named ops, or all)."""
    root = Path(root)
    cpp_root, py_root = root / "kernels_cpp", root / "kernels_py"
    op_names = set()
    for base in (cpp_root, py_root):
        if base.is_dir():
            op_names |= {p.name for p in base.iterdir() if p.is_dir()
                         and not p.name.startswith(("_", "."))}
    if ops is not None:
        op_names &= set(ops)
    pairs: list[FilePair] = []
    for op in sorted(op_names):
        op_cpp, op_py = cpp_root / op, py_root / op
        groups: dict[Path, list[Path]] = {}
        for f in sorted(op_cpp.rglob("*")) if op_cpp.is_dir() else ():
            if f.suffix in CPP_SUFFIXES and f.is_file():
                groups.setdefault(_twin_py(cpp_root, py_root, f), []).append(f)
        for py, cpps in groups.items():
            cpps.sort(key=lambda p: CPP_SUFFIXES.index(p.suffix))
            pairs.append(FilePair(cpps, py if py.is_file() else None, op_cpp))
        for f in sorted(op_py.rglob("*.py")) if op_py.is_dir() else ():
            # files that depend on no C++ source: package markers and the op's own __init__
            if f.name == "__init__.py" or f in groups or f.parent == op_py:
                continue
            pairs.append(FilePair([], f, op_cpp))
    return pairs


_CONTEXTS: dict[Path, tuple[tuple, CppContext, dict[Path, list]]] = {}


def op_context(op_dir: Path) -> tuple[CppContext, dict[Path, list]]:
    """The declarations of all C++ files of an op and their parse trees (cached by mtime)."""
    files = sorted(f for f in op_dir.rglob("*") if f.suffix in CPP_SUFFIXES and f.is_file()) \
        if op_dir.is_dir() else []
    stamp = tuple((str(f), f.stat().st_mtime_ns) for f in files)
    cached = _CONTEXTS.get(op_dir)
    if cached is not None and cached[0] == stamp:
        return cached[1], cached[2]
    trees: dict[Path, list] = {}
    errors: dict[Path, str] = {}
    for f in files:
        try:
            trees[f] = parse_cpp(f.read_text())
        except (ParseError, SyntaxError) as e:
            errors[f] = str(e)
    ctx = collect(list(trees.values()))
    ctx.parse_errors = errors
    _CONTEXTS[op_dir] = (stamp, ctx, trees)
    return ctx, trees


def check_pair(pair: FilePair) -> PairResult:
    result = PairResult(pair)
    if pair.py is None:
        result.error = (f"{pair.cpp[0]} has no Python twin (expected "
                        f"{_twin_py_text(pair.cpp[0])})")
        return result
    if not pair.cpp:
        result.error = f"{pair.py} has no C++ twin (no .h or .cpp of the same name)"
        return result
    ctx, trees = op_context(pair.op_dir)
    cpp_items: list[Item] = []
    for f in pair.cpp:
        if f not in trees:
            result.error = f"{f}: cannot parse: {ctx.parse_errors.get(f)}"
            return result
        cpp_items += convert_cpp(trees[f], str(f), ctx)
    try:
        py_items = convert_py(pair.py.read_text(), str(pair.py), frozenset(ctx.namespaces))
    except SyntaxError as e:
        result.error = f"{pair.py}: cannot parse: {e}"
        return result
    result.cpp_items, result.py_items = len(cpp_items), len(py_items)
    result.pairs, result.findings = align(cpp_items, py_items, str(pair.cpp[0]), str(pair.py))
    return result


def _twin_py_text(cpp_file: Path) -> str:
    parts = list(cpp_file.parts)
    if "kernels_cpp" in parts:
        k = len(parts) - 1 - parts[::-1].index("kernels_cpp")
        parts[k] = "kernels_py"
    return str(Path(*parts).with_suffix(".py"))


def check_tree(root: str | os.PathLike, ops: list[str] | None = None) -> list[PairResult]:
    return [check_pair(p) for p in find_pairs(root, ops)]
