"""tools/ascendc_include/kernel_operator.h declares ascsim's instructions exactly as the registry's
cpp facets say (`python -m ascsim.cppheader` writes those parts), each instruction under its own
name and nowhere else, and g++ accepts the header on its own."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import ascsim.ascendc as surface
from ascsim import cppheader
from ascsim.cppheader import HEADER, SCOPES, declared_name, render, section_name
from ascsim.registry import REGISTRY, CppDecl, Instruction

GXX = shutil.which("g++")
_REGEN = "run `python -m ascsim.cppheader` and commit the header"


def _without_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _hand_written(text: str) -> str:
    """The header minus its generated blocks (markers included) and its comments."""
    kept, inside = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("// BEGIN ascsim-generated: "):
            inside = True
        elif stripped.startswith("// END ascsim-generated: "):
            inside = False
        elif not inside:
            kept.append(line)
    return _without_comments("\n".join(kept))


def test_committed_header_is_the_generated_one():
    text = HEADER.read_text()
    assert render(text) == text, f"{HEADER.name} is out of date with the registry: {_REGEN}"


def test_header_has_a_block_for_every_scope_and_says_how_it_is_made():
    text = HEADER.read_text()
    for scope in SCOPES:
        assert f"// BEGIN ascsim-generated: {section_name(scope)}" in text
        assert f"// END ascsim-generated: {section_name(scope)}" in text
    assert "python -m ascsim.cppheader" in text.split("*/", 1)[0]  # the note at the top


def test_every_instruction_has_declarations_named_after_it():
    assert REGISTRY, "import ascsim registers the instructions"
    for ins in REGISTRY:
        assert ins.cpp, f"{ins.name} has no C++ declaration"
        for decl in ins.cpp:
            assert decl.scope in SCOPES, f"{ins.name}: unknown scope {decl.scope!r}"
            name = declared_name(decl)
            if name == ins.name:
                continue
            # another spelling of the same call (Compares for CompareScalar) is allowed only
            # where ascsim's kernel surface binds both names to one function
            assert decl.scope == "AscendC" and getattr(surface, name, None) is getattr(
                surface, ins.name), f"{ins.name} declares {name!r}: {decl.text!r}"


def test_instructions_are_declared_only_in_the_generated_blocks():
    names = {declared_name(d) for ins in REGISTRY for d in ins.cpp}
    rest = _hand_written(HEADER.read_text())
    stray = sorted(n for n in names if re.search(rf"\b{n}\s*\(", rest))
    assert not stray, f"hand-written declarations of registry instructions: {stray}"


def test_generated_blocks_keep_registry_order():
    text = HEADER.read_text()
    free = text.split("// BEGIN ascsim-generated: free functions", 1)[1].split(
        "// END ascsim-generated: free functions", 1)[0]
    seen = [m.group(1) for m in re.finditer(r"^// (\w+): ", free, flags=re.M)]
    assert seen == [i.name for i in REGISTRY if any(d.scope == "AscendC" for d in i.cpp)]


def _fake(name: str, *decls: CppDecl) -> Instruction:
    return Instruction(0, name, "vector", 0, (), REGISTRY[0].dataflow, REGISTRY[0].cost, (), None,
                       decls, "a test instruction")


def test_render_rewrites_blocks_and_refuses_bad_input():
    header = ("namespace AscendC {\n    // BEGIN ascsim-generated: free functions\n    stale;\n"
              "    // END ascsim-generated: free functions\n}\n")
    ins = _fake("Foo", CppDecl("template <typename T>\n__aicore__ void Foo(T x);"))
    out = render(header, [ins])
    assert out == ("namespace AscendC {\n    // BEGIN ascsim-generated: free functions\n"
                   "    // Foo: a test instruction\n    template <typename T>\n"
                   "    __aicore__ void Foo(T x);\n    // END ascsim-generated: free functions\n"
                   "}\n")
    assert render(out, [ins]) == out
    with pytest.raises(ValueError, match="no generated block for TQue members"):
        render(header, [_fake("Bar", CppDecl("void Bar();", "TQue"))])
    with pytest.raises(ValueError, match="unknown CppDecl scope"):
        render(header, [_fake("Baz", CppDecl("void Baz();", "TBuf"))])
    with pytest.raises(ValueError, match="not closed"):
        render(header.replace("END", "ENDED"), [ins])


def test_long_declarations_are_wrapped_at_the_parameters():
    ins = _fake("Foo", CppDecl("__aicore__ void Foo(" + ", ".join(
        f"const LocalTensor<T> &argument{i}" for i in range(6)) + ");"))
    lines = cppheader.block("AscendC", [ins])
    assert len(lines) > 2 and all(len(line) <= cppheader.WIDTH for line in lines)
    assert lines[2].startswith(" " * len("__aicore__ void Foo(") + "const")


def test_check_flags_a_stale_header_and_a_rewrite_fixes_it(tmp_path: Path, capsys):
    stale = tmp_path / "kernel_operator.h"
    stale.write_text(HEADER.read_text().replace("__aicore__ void PipeBarrier();\n", "", 1))
    assert cppheader.main(["--check", "--header", str(stale)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "python -m ascsim.cppheader" in err
    assert cppheader.main(["--header", str(stale)]) == 0
    assert stale.read_text() == HEADER.read_text()
    assert cppheader.main(["--check", "--header", str(stale)]) == 0


@pytest.mark.skipif(GXX is None, reason="g++ is not on PATH (apt-get install g++)")
def test_gxx_accepts_the_header_alone():
    proc = subprocess.run([GXX, "-std=c++17", "-fsyntax-only", "-x", "c++", str(HEADER)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
