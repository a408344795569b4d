"""`ascsim mirror`: check that each kernels_py file transcribes its kernels_cpp twin statement
by statement; exit status 1 if any statement has no counterpart (see ascsim.mirror)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..mirror import FilePair, PairResult, check_pair, find_pairs


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "mirror", help="check that kernels_py mirrors kernels_cpp statement by statement",
        description="Pair each kernels_cpp/<op>/<dir>/<stem>.{h,cpp} with "
                    "kernels_py/<op>/<dir>/<stem>.py, align them statement by statement "
                    "(calls with their arguments, control flow, assignments, function order) "
                    "and report every statement without a counterpart or with a different call "
                    "or argument, with both file:line positions. Exit status 1 if there is any.")
    p.add_argument("targets", nargs="*", metavar="OP_OR_PATH",
                   help="operator names, or kernels_cpp / kernels_py files or directories "
                        "(default: every operator)")
    p.add_argument("--root", default=None,
                   help="repository root holding kernels_cpp/ and kernels_py/ (default: the "
                        "current directory if it has them, else the ascsim checkout)")
    p.add_argument("--map", action="store_true",
                   help="also print the kernels_py line -> kernels_cpp line map")
    p.add_argument("--pairs", action="store_true",
                   help="also print every paired statement")
    return p


def _default_root() -> Path:
    cwd = Path.cwd()
    if (cwd / "kernels_cpp").is_dir():
        return cwd
    return Path(__file__).resolve().parents[2]


def _select(root: Path, targets: list[str]) -> list[FilePair] | str:
    """The file pairs the targets name, or an error message."""
    if not targets:
        return find_pairs(root)
    chosen: list[FilePair] = []
    for t in targets:
        path = Path(t)
        if path.exists():
            path = path.resolve()
            parts = path.parts
            side = next((s for s in ("kernels_cpp", "kernels_py") if s in parts), None)
            if side is None:
                return f"{t}: not inside kernels_cpp/ or kernels_py/"
            k = len(parts) - 1 - parts[::-1].index(side)
            base = Path(*parts[:k])
            if len(parts) <= k + 1:
                pairs = find_pairs(base)
            else:
                pairs = [p for p in find_pairs(base, [parts[k + 1]])
                         if any(_under(f, path) for f in [*p.cpp, *([p.py] if p.py else [])])]
        else:
            pairs = find_pairs(root, [t])
        if not pairs:
            return f"{t}: no kernels_cpp / kernels_py files found"
        chosen += [p for p in pairs if p not in chosen]
    return chosen


def _under(f: Path, path: Path) -> bool:
    f = f.resolve()
    return f == path or path in f.parents


def _rel(path: Path | str | None) -> str:
    if path is None:
        return "-"
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def _print_result(r: PairResult, show_map: bool, show_pairs: bool) -> None:
    cpp = " + ".join(_rel(c) for c in r.pair.cpp) or "-"
    head = f"{cpp} <-> {_rel(r.pair.py)}"
    if r.error:
        print(f"FAIL {head}: {r.error}")
        return
    status = "ok  " if r.ok else "FAIL"
    exact = sum(1 for *_, eq in r.pairs if eq)
    print(f"{status} {head}: {exact} statements paired, {len(r.findings)} unpaired")
    for f in r.findings:
        print("  " + f.format().replace("\n", "\n  "))
    if show_pairs:
        for c, p, eq in sorted(r.pairs, key=lambda t: (t[1].line, t[0].line)):
            mark = " " if eq else "!"
            print(f"   {mark} {_rel(c.path)}:{c.line:<5} {_rel(p.path)}:{p.line:<5} {p.text}")
    if show_map:
        for py_line, (cpp_path, cpp_line) in sorted(r.line_map().items()):
            print(f"   {_rel(r.pair.py)}:{py_line} -> {_rel(cpp_path)}:{cpp_line}")


def main(args: argparse.Namespace) -> int:
    root = Path(args.root).resolve() if args.root else _default_root()
    selected = _select(root, args.targets)
    if isinstance(selected, str):
        print(f"ascsim mirror: {selected}")
        return 2
    if not selected:
        print(f"ascsim mirror: no kernels_cpp / kernels_py files under {root}")
        return 2
    results = [check_pair(p) for p in selected]
    for r in results:
        _print_result(r, args.map, args.pairs)
    unpaired = sum(r.unpaired for r in results)
    paired = sum(sum(1 for *_, eq in r.pairs if eq) for r in results)
    failed = sum(1 for r in results if not r.ok)
    print(f"mirror: {len(results)} file pairs, {paired} statements paired, {unpaired} unpaired"
          + (f" ({failed} file pairs fail)" if failed else ""))
    return 1 if unpaired else 0
