"""Every C++ source under kernels_cpp/<op>/ is well-formed C++17 against the declaration headers
in tools/ascendc_include (`g++ -std=c++17 -fsyntax-only`), and those headers declare the surface
ascsim simulates, with its enum values."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import ascsim.ascendc as surface

ROOT = Path(__file__).resolve().parents[1]
CPP_ROOT = ROOT / "kernels_cpp"
INCLUDE = ROOT / "tools" / "ascendc_include"
GXX = shutil.which("g++")

needs_gxx = pytest.mark.skipif(
    GXX is None, reason="g++ is not on PATH: the C++ syntax check of kernels_cpp/ needs it "
                        "(apt-get install g++)")


def _sources() -> list[Path]:
    return sorted(p for p in CPP_ROOT.rglob("*")
                  if p.suffix in (".cpp", ".h") and p.is_file() and INCLUDE not in p.parents)


def _compile(path: Path, workdir: Path | None = None) -> subprocess.CompletedProcess:
    """g++ -fsyntax-only on one file: headers are compiled as C++ too (-x c++)."""
    cmd = [GXX, "-std=c++17", "-fsyntax-only", "-x", "c++", f"-I{INCLUDE}",
           f"-I{path.parent}", str(path)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=workdir or ROOT)


def test_there_are_sources_to_check():
    names = {p.relative_to(CPP_ROOT).as_posix() for p in _sources()}
    assert "logit_grad/op_kernel/logit_grad_kernel.h" in names
    assert "logit_grad/op_kernel/logit_grad.cpp" in names


@needs_gxx
@pytest.mark.parametrize("source", _sources(), ids=lambda p: p.relative_to(CPP_ROOT).as_posix())
def test_source_is_well_formed(source):
    proc = _compile(source)
    assert proc.returncode == 0, f"g++ -fsyntax-only {source.relative_to(ROOT)}:\n{proc.stderr}"


@needs_gxx
def test_an_ill_formed_kernel_fails(tmp_path):
    # mixed dtypes in a binary instruction, and an instruction ascsim does not have
    bad = tmp_path / "bad.cpp"
    bad.write_text('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                   "void F(LocalTensor<float> a, LocalTensor<half> b) {\n"
                   "    Add(a, b, a, 64);\n    VectorPadding(a, a, 2.0f, 64);\n}\n")
    proc = _compile(bad, tmp_path)
    assert proc.returncode != 0
    assert "Add" in proc.stderr and "VectorPadding" in proc.stderr


def _enum_checks() -> list[str]:
    """static_asserts that the header's enum values are ascsim's."""
    from ascsim.instructions import CMPMODE, SELMODE, ReduceOrder, RoundMode
    from ascsim.pipe import QuePosition
    from ascsim.sync import HardEvent

    lines = []
    for enum, cpp in ((HardEvent, "AscendC::HardEvent"), (RoundMode, "AscendC::RoundMode"),
                      (CMPMODE, "AscendC::CMPMODE"), (SELMODE, "AscendC::SELMODE"),
                      (QuePosition, "AscendC::TPosition"),
                      (ReduceOrder, "AscendC::ReduceOrder")):
        for member in enum:
            lines.append(f"static_assert(static_cast<int>({cpp}::{member.name}) == "
                         f"{int(member)}, \"{cpp}::{member.name}\");")
    for name in ("PIPE_S", "PIPE_V", "PIPE_MTE2", "PIPE_MTE3", "PIPE_ALL"):
        lines.append(f"static_assert({name} == {int(getattr(surface, name))}, \"{name}\");")
    for i in range(8):
        lines.append(f"static_assert(EVENT_ID{i} == {getattr(surface, f'EVENT_ID{i}')}, "
                     f"\"EVENT_ID{i}\");")
    for name in [n for n in surface.__all__ if n.startswith("KERNEL_TYPE_")]:
        lines.append(f"static_assert(AscendC::{name} == {getattr(surface, name)}, \"{name}\");")
    return lines


# Python-only names of ascsim.ascendc (typing helpers, the dtype sizeof, fixed-width ints
# from <cstdint>) and the names C++ has at global scope rather than in namespace AscendC.
_PYTHON_ONLY = {"sizeof", "Generic", "TypeVar", "T", "TilingData", "float", "int8_t", "uint8_t",
                "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t"}
_MACROS = {"GM_ADDR", "GET_TILING_DATA", "TILING_KEY_IS", "KERNEL_TASK_TYPE_DEFAULT",
           "REGISTER_TILING_DEFAULT", "REGISTER_TILING_FOR_TILINGKEY"}
_GLOBAL = {"half", "bfloat16_t", "event_t", "pipe_t", "PIPE_S", "PIPE_V", "PIPE_MTE2",
           "PIPE_MTE3", "PIPE_ALL", *(f"EVENT_ID{i}" for i in range(8))}


@needs_gxx
def test_header_declares_the_ascsim_surface_with_its_values(tmp_path):
    lines = ['#include "kernel_operator.h"', "namespace surface_check {"]
    for name in surface.__all__:
        if name in _PYTHON_ONLY:
            continue
        if name in _MACROS:
            lines.append(f"#ifndef {name}\n#error {name} is not defined\n#endif")
        elif name in _GLOBAL:
            lines.append(f"using ::{name};")
        else:
            lines.append(f"using AscendC::{name};")
    lines.append("}  // namespace surface_check")
    lines += _enum_checks()
    lines.append("static_assert(sizeof(half) == 2 && sizeof(bfloat16_t) == 2, \"16-bit types\");")
    check = tmp_path / "surface_check.cpp"
    check.write_text("\n".join(lines) + "\n")
    proc = _compile(check, tmp_path)
    assert proc.returncode == 0, proc.stderr


_ENTRY = """#include "kernel_operator.h"
struct MyTiling {{
    uint64_t n;
}};
struct OtherTiling {{
    uint32_t k;
}};
extern "C" __global__ __aicore__ void my_kernel(GM_ADDR x, GM_ADDR tiling)
{{
{body}
}}
"""


@needs_gxx
@pytest.mark.parametrize("body, ok", [
    ("    REGISTER_TILING_DEFAULT(MyTiling);\n    GET_TILING_DATA(t, tiling);\n"
     "    uint64_t n = t.n;\n    (void)n;", True),
    ("    REGISTER_TILING_DEFAULT(MyTiling);\n"
     "    REGISTER_TILING_FOR_TILINGKEY(\"TILING_KEY_VAR == 2\", OtherTiling);\n"
     "    GET_TILING_DATA_WITH_STRUCT(OtherTiling, t, tiling);\n    (void)t.k;", True),
    ("    GET_TILING_DATA(t, tiling);\n    (void)t;", False),            # not registered
    ("    REGISTER_TILING_FOR_TILINGKEY(\"TILING_KEY_VAR == 2\", OtherTiling);", False),
    ("    REGISTER_TILING_DEFAULT(MyTiling);\n    GET_TILING_DATA(t, tiling);\n"
     "    (void)t.k;", False),                                          # not the struct's field
])
def test_a_kernel_must_register_its_tiling_struct(tmp_path, body: str, ok: bool):
    """A plain C++ tiling struct must be named by REGISTER_TILING_DEFAULT before GET_TILING_DATA
    reads it (ascendc_more.md (c)); without it the check fails and the error says what is
    missing. REGISTER_TILING_FOR_TILINGKEY needs the default registration too."""
    src = tmp_path / "entry.cpp"
    src.write_text(_ENTRY.format(body=body))
    proc = _compile(src, tmp_path)
    assert (proc.returncode == 0) == ok, proc.stderr
    if not ok and "REGISTER_TILING_DEFAULT(" not in body:
        assert "REGISTER_TILING_DEFAULT_is_required_before_GET_TILING_DATA" in proc.stderr
