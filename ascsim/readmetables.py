"""The README's tables of supported instructions and assumed behaviour, generated from the
registry and the default hardware profile.

    python -m ascsim.readmetables           # rewrite the tables in README.md
    python -m ascsim.readmetables --check   # exit 1 if the committed README is out of date

README.md is hand-written except for blocks between marker lines

    <!-- BEGIN ascsim-generated: <section> -->
    <!-- END ascsim-generated: <section> -->

`instructions` lists every registry entry: its AscendC name, pipe, call forms (the parameter
names of its C++ declarations, template parameters in <>), dtypes and what it does.
`assumptions` lists the default profile's [semantics] options: each is a hardware behaviour the
public documents do not settle, with the value ascsim assumes and the reason. So the README
cannot claim an instruction ascsim does not simulate, nor hide an assumption.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from .profile import load_profile, semantic_options
from .registry import REGISTRY, Instruction

__all__ = ["README", "forms_of", "dtypes_of", "instruction_table", "assumption_table", "render",
           "main"]

README = Path(__file__).resolve().parents[1] / "README.md"
_MARKER = re.compile(r"^<!-- (?P<kind>BEGIN|END) ascsim-generated: (?P<section>[\w ]+) -->$")
_TEMPLATE = re.compile(r"template\s*<(?P<params>[^>]*)>")
_CALL = re.compile(r"(?P<name>~?\w+)\s*\((?P<params>[^;]*)\)\s*(const)?\s*;")
_FAMILY_ORDER = ("vector", "copy", "sync", "queue", "scalar")


def _param_names(params: str) -> list[str]:
    """The names of a C++ parameter list (`const LocalTensor<T> &dst` -> `dst`)."""
    depth, parts, start = 0, [], 0
    for i, ch in enumerate(params):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(params[start:i])
            start = i + 1
    parts.append(params[start:])
    names = []
    for p in (p.split("=")[0].strip() for p in parts):
        if p:
            m = re.search(r"(\w+)\s*(\[\s*\])?$", p)
            names.append((m.group(1) + ("[]" if m.group(2) else "")) if m else p)
    return names


def forms_of(ins: Instruction) -> list[str]:
    """One `Name<template params>(params)` per C++ declaration of the entry."""
    forms = []
    for decl in ins.cpp:
        for text in decl.text.split(";"):
            call = _CALL.search(text + ";")
            if call is None:
                continue
            tmpl = _TEMPLATE.search(text)
            targs = ""
            if tmpl:
                targs = "<" + ", ".join(_param_names(tmpl.group("params"))) + ">"
            args = ", ".join(_param_names(call.group("params")))
            forms.append(f"{call.group('name')}{targs}({args})")
    return list(dict.fromkeys(forms))


def dtypes_of(ins: Instruction) -> str:
    """The dtypes the signatures accept: one list when every signature repeats one dtype, else
    the distinct tuples."""
    if not ins.signatures:
        return "-"
    tuples = [tuple(str(t) if t is not None else "any" for t in s.dtypes)
              for s in ins.signatures]
    if all(len(set(t)) == 1 for t in tuples):
        names = list(dict.fromkeys(t[0] for t in tuples))
        return "any" if len(names) >= 10 else ", ".join(names)
    return ", ".join("/".join(t) for t in dict.fromkeys(tuples))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def instruction_table(instructions: Sequence[Instruction] = REGISTRY) -> list[str]:
    rank = {f: i for i, f in enumerate(_FAMILY_ORDER)}
    rows = sorted(instructions, key=lambda i: (rank.get(i.family, len(rank)), i.id))
    lines = [f"{len(rows)} instructions, from the registry (`python -m ascsim.readmetables` "
             "writes this table).", "",
             "| instruction | family | pipe | forms | dtypes | what it does |",
             "|---|---|---|---|---|---|"]
    for ins in rows:
        forms = "<br>".join(f"`{f}`" for f in forms_of(ins)) or "-"
        lines.append(f"| `{ins.name}` | {ins.family} | {ins.pipe_text} | {_cell(forms)} | "
                     f"{_cell(dtypes_of(ins))} | {_cell(ins.doc)} |")
    return lines


def assumption_table() -> list[str]:
    profile = load_profile(None)
    lines = [f"The [semantics] options of the default profile ({profile.name}); each profile file "
             "sets them, with its source, and a run can use a profile of its own.", "",
             "| option | what it decides | ascsim's default | why |", "|---|---|---|---|"]
    for key, what in semantic_options().items():
        value = getattr(profile, key)
        source = profile.sources.get(f"semantics.{key}", "")
        lines.append(f"| `{key}` | {_cell(what)} | `{value!r}` | {_cell(source)} |")
    return lines


_SECTIONS = {"instructions": instruction_table, "assumptions": assumption_table}


def render(text: str) -> str:
    """`text` with every generated block rewritten."""
    out: list[str] = []
    section = None
    for line in text.splitlines():
        m = _MARKER.match(line.strip())
        if section is None:
            out.append(line)
            if m and m["kind"] == "BEGIN":
                section = m["section"]
                if section not in _SECTIONS:
                    raise ValueError(f"README: unknown generated section {section!r}")
                out.extend(_SECTIONS[section]())
        elif m and m["kind"] == "END" and m["section"] == section:
            out.append(line)
            section = None
    if section is not None:
        raise ValueError(f"README: generated section {section!r} has no END marker")
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ascsim.readmetables",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if README is out of date")
    parser.add_argument("--readme", type=Path, default=README, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    text = args.readme.read_text()
    new = render(text)
    if args.check:
        if new != text:
            print(f"{args.readme} is out of date: run `python -m ascsim.readmetables`",
                  file=sys.stderr)
            return 1
        return 0
    args.readme.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
