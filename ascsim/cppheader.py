"""The instruction declarations of ascsim's AscendC header, generated from the registry.

    python -m ascsim.cppheader           # rewrite tools/ascendc_include/kernel_operator.h
    python -m ascsim.cppheader --check   # exit 1 if the committed header is out of date

The header (`tools/ascendc_include/kernel_operator.h`) is hand-written except for blocks
between marker lines

    // BEGIN ascsim-generated: <section>
    // END ascsim-generated: <section>

one per declaration scope: `free functions` (namespace AscendC) and `<Class> members` inside
each class that has instruction members (`LocalTensor`, `GlobalTensor`, `TQue`, `TPipe`).
Each block holds the `CppDecl`s of that scope, in registry order, each instruction's under a
comment naming it. The marker's indentation is the block's. So the header cannot drift from
what ascsim simulates: a kernel that compiles against it calls only registered instructions.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from .registry import REGISTRY, CppDecl, Instruction

__all__ = ["HEADER", "SCOPES", "WIDTH", "section_name", "declared_name", "block", "render",
           "main"]

HEADER = Path(__file__).resolve().parents[1] / "tools" / "ascendc_include" / "kernel_operator.h"
WIDTH = 100  # the header's line length, as the Python code's
SCOPES = ("AscendC", "LocalTensor", "GlobalTensor", "TQue", "TPipe")  # the CppDecl scopes
_BEGIN, _END = "// BEGIN ascsim-generated: ", "// END ascsim-generated: "
_MARKER = re.compile(r"^(?P<indent>[ \t]*)// (?P<kind>BEGIN|END) ascsim-generated: "
                     r"(?P<section>.+?)\s*$")
_NAME = re.compile(r"(~?\w+)\s*\(")


def section_name(scope: str) -> str:
    """The marker section of a CppDecl scope."""
    return "free functions" if scope == "AscendC" else f"{scope} members"


def declared_name(decl: CppDecl) -> str:
    """The name a declaration declares: the identifier before its parameter list."""
    m = _NAME.search(decl.text)
    if m is None:
        raise ValueError(f"no function declarator in {decl.text!r}")
    return m.group(1)


def _split_params(params: str) -> list[str]:
    """Top-level comma split: commas inside <...>, (...) or [...] belong to one parameter."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(params):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(params[start:i].strip())
            start = i + 1
    parts.append(params[start:].strip())
    return parts


def _wrap_decl(line: str, indent: str, width: int) -> list[str]:
    """One declaration line, broken after parameters so that no line passes `width`; the
    continuation lines line up with the first parameter, as in the hand-written parts."""
    if len(indent) + len(line) <= width or "(" not in line:
        return [indent + line]
    open_ = line.index("(")
    close = line.rindex(")")
    head, params, tail = line[:open_ + 1], line[open_ + 1:close], line[close:]
    items = _split_params(params)
    tokens = [p + "," for p in items[:-1]] + [items[-1] + tail]
    lines, current = [], indent + head + tokens[0]
    pad = " " * len(indent + head)
    for tok in tokens[1:]:
        if len(current) + 1 + len(tok) <= width:
            current += " " + tok
        else:
            lines.append(current)
            current = pad + tok
    lines.append(current)
    return lines


def _comment(text: str, indent: str, width: int) -> list[str]:
    return textwrap.wrap(text, width=width - len(indent), initial_indent=indent + "// ",
                         subsequent_indent=indent + "//   ")


def block(scope: str, instructions: Sequence[Instruction] = REGISTRY, indent: str = "",
          width: int = WIDTH) -> list[str]:
    """The generated lines of one scope: every instruction's declarations in that scope, in
    registry order, each instruction's under a `// Name: doc` comment."""
    lines: list[str] = []
    for ins in instructions:
        decls = [d for d in ins.cpp if d.scope == scope]
        if not decls:
            continue
        lines += _comment(f"{ins.name}: {ins.doc}", indent, width)
        for d in decls:
            # template heads keep their own lines; the declarator is re-flowed as one line,
            # so a CppDecl text may be written on one line or several
            raw = [r.strip() for r in d.text.strip().splitlines()]
            heads = [r for r in raw if r.startswith("template")]
            declarator = " ".join(r for r in raw if not r.startswith("template"))
            lines += [indent + h for h in heads]
            lines += _wrap_decl(" ".join(declarator.split()), indent, width)
    return lines


def render(header: str, instructions: Sequence[Instruction] = REGISTRY,
           width: int = WIDTH) -> str:
    """`header` with every generated block rewritten from `instructions`' cpp facets. Raises
    ValueError on unpaired or unknown markers, on a scope the header has no block for and on
    a CppDecl scope ascsim does not know."""
    for ins in instructions:
        for d in ins.cpp:
            if d.scope not in SCOPES:
                raise ValueError(f"{ins.name}: unknown CppDecl scope {d.scope!r}")
    by_section = {section_name(s): s for s in SCOPES}
    needed = {section_name(d.scope) for ins in instructions for d in ins.cpp}
    out: list[str] = []
    seen: set[str] = set()
    open_section: str | None = None
    for lineno, line in enumerate(header.splitlines(), 1):
        m = _MARKER.match(line)
        if m is None:
            if open_section is None:  # lines inside a block are dropped and regenerated
                out.append(line)
            continue
        section, kind = m["section"], m["kind"]
        if kind == "BEGIN":
            if open_section is not None:
                raise ValueError(f"line {lineno}: BEGIN {section!r} inside {open_section!r}")
            if section not in by_section:
                raise ValueError(f"line {lineno}: unknown generated section {section!r}")
            if section in seen:
                raise ValueError(f"line {lineno}: second block for {section!r}")
            seen.add(section)
            open_section = section
            out.append(line)
            out += block(by_section[section], instructions, m["indent"], width)
        else:
            if section != open_section:
                raise ValueError(f"line {lineno}: END {section!r} does not close "
                                 f"{open_section!r}")
            open_section = None
            out.append(line)
    if open_section is not None:
        raise ValueError(f"generated section {open_section!r} is not closed")
    missing = sorted(needed - seen)
    if missing:
        raise ValueError(f"the header has no generated block for {', '.join(missing)}")
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ascsim.cppheader",
        description="Regenerate the instruction declarations of ascsim's AscendC header from "
                    "the registry's cpp facets.")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if the header differs from the generated one")
    parser.add_argument("--header", type=Path, default=HEADER, help=f"default: {HEADER}")
    args = parser.parse_args(argv)
    import ascsim  # noqa: F401  (registers every instruction)

    current = args.header.read_text()
    try:
        wanted = render(current)
    except ValueError as e:
        print(f"{args.header}: {e}", file=sys.stderr)
        return 2
    if args.check:
        if current != wanted:
            print(f"{args.header} is out of date with the instruction registry: run "
                  "python -m ascsim.cppheader", file=sys.stderr)
            return 1
        return 0
    if current != wanted:
        args.header.write_text(wanted)
        print(f"wrote {args.header}")
    else:
        print(f"{args.header} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
