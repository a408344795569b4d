"""The registry keeps itself honest: every entry has every facet, in a form the rest of ascsim
handles, and a semantics test pins every instruction.

- facets: name, doc and family; a pipe or a PipeRule; operands with roles and access patterns
  the sanitizer walks; a dataflow class the sanitizer has a rule for; a cost kind, and for
  vector costs a table every shipped hardware profile resolves; signatures matching the
  operands; numba work exactly for the instructions that change memory, compiled with ascsim's
  standard options (cache, nogil, numpy error model, never fastmath) and a bind; C++ text;
- coverage: each instruction is named by a `@pytest.mark.instruction(...)` marker on a test in
  tests/test_*.py (read with `ast`, nothing imported), and that test's module mentions it;
- registration: `import ascsim` registers the same instructions in the same order whichever
  ascsim module a process imports first, and no module snapshots the registry at import time.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path

import numba
import pytest
from numba.core.registry import CPUDispatcher

import ascsim
from ascsim.core import PIPE_ALL, PIPE_NAMES
from ascsim.dtypes import DType
from ascsim.profile import PROFILE_DIR, load_profile, profile_names
from ascsim.registry import (
    CONTROL_COSTS,
    REGISTRY,
    AccessPattern,
    Cost,
    CostKind,
    CppDecl,
    Dataflow,
    Instruction,
    Operand,
    PipeRule,
    Signature,
    Work,
    by_name,
)
from ascsim.sanitizer.passes import HANDLED_DATAFLOW, HANDLED_PATTERNS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ascsim"
TESTS = ROOT / "tests"
FAMILIES = frozenset({"vector", "copy", "sync", "queue", "scalar"})
JIT_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}
# the numba functions that read Python objects (through the C API or in line) and so must hold
# the GIL
GIL_HOLDERS = {"ascsim.pyrows._flatten", "ascsim.pyrows._row_at", "ascsim.pyrows._length",
               "ascsim.pyrows._item", "ascsim.pyrows._small_int"}
NAMES = [ins.name for ins in REGISTRY]


def test_registry_is_populated() -> None:
    assert len(REGISTRY) >= 30
    assert [ins.id for ins in REGISTRY] == list(range(len(REGISTRY)))
    assert len(set(NAMES)) == len(NAMES)
    assert all(by_name(ins.name) is ins for ins in REGISTRY)


# ---- facets ------------------------------------------------------------------------------------

@pytest.fixture(params=NAMES)
def ins(request: pytest.FixtureRequest) -> Instruction:
    return by_name(request.param)


def test_name_doc_family(ins: Instruction) -> None:
    assert isinstance(ins.name, str) and ins.name.isidentifier()
    assert isinstance(ins.doc, str) and ins.doc.strip()
    assert ins.family in FAMILIES


def test_pipe(ins: Instruction) -> None:
    if isinstance(ins.pipe, PipeRule):
        return
    assert type(ins.pipe) is int and 0 <= ins.pipe < len(PIPE_NAMES) and ins.pipe != PIPE_ALL
    assert ins.pipe_text == f"PIPE_{PIPE_NAMES[ins.pipe]}"


def test_operands(ins: Instruction) -> None:
    assert ins.operands, "every instruction has operands (scalars and template arguments "
    "as AccessPattern.NONE)"
    roles = [op.role for op in ins.operands]
    assert len(set(roles)) == len(roles)
    for op in ins.operands:
        assert isinstance(op, Operand) and isinstance(op.role, str) and op.role
        assert isinstance(op.pattern, AccessPattern)
        assert op.pattern in HANDLED_PATTERNS, (
            f"{ins.name}.{op.role}: the sanitizer has no walk for {op.pattern.name} "
            "(sanitizer/passes.py HANDLED_PATTERNS)")
        assert isinstance(op.write, bool)
        assert not (op.write and op.pattern is AccessPattern.NONE)
        if op.dtype_param is not None:
            assert op.is_memory and op.dtype_param >= 0
    assert ins.memory_operands == tuple(o for o in ins.operands if o.is_memory)


def test_dataflow(ins: Instruction) -> None:
    assert isinstance(ins.dataflow, Dataflow)
    assert ins.dataflow in HANDLED_DATAFLOW, (
        f"{ins.name}: the sanitizer has no rule for {ins.dataflow.name} "
        "(sanitizer/passes.py HANDLED_DATAFLOW)")


def test_cost(ins: Instruction) -> None:
    assert isinstance(ins.cost, Cost) and isinstance(ins.cost.kind, CostKind)
    if ins.cost.kind in (CostKind.VECTOR, CostKind.COPY):
        assert ins.cost.table, f"{ins.name}: a {ins.cost.kind.name} cost names its table"
    if ins.cost.kind is CostKind.VECTOR:
        assert ins.family == "vector" and ins.pipe != PIPE_ALL
    if ins.cost.kind is CostKind.COPY:
        assert ins.family == "copy"


def _profile_vector_tables(name: str) -> set[str]:
    """The [cost.vector.<table>] sections of a shipped profile file."""
    data = tomllib.loads((PROFILE_DIR / f"{name}.toml").read_text())
    vector = data["cost"]["vector"]
    return {k for k, v in vector.items() if isinstance(v, dict) and "startup" in v}


@pytest.mark.parametrize("profile", profile_names())
def test_cost_tables_in_every_profile(profile: str) -> None:
    """Every vector cost table resolves in every shipped profile: to a table of its own or to
    [cost.vector.default] (docs/timing.md); and every table a profile has is one some entry
    names (a misspelt table would silently cost its instruction with the default)."""
    cost = load_profile(profile).cost
    assert cost is not None, f"{profile} has no [cost] section"
    assert "default" in cost.vector
    tables = {ins.cost.table for ins in REGISTRY if ins.cost.kind is CostKind.VECTOR}
    for table in tables:
        vc = cost.vector_cost(table)
        assert vc.for_dtype("float") and vc.for_dtype(None)
    named = tables | {ins.cost.table for ins in REGISTRY if ins.cost.table}
    extra = _profile_vector_tables(profile) - named - {"default"}
    assert not extra, f"{profile}: [cost.vector.*] tables no instruction uses: {sorted(extra)}"


def test_profiles_agree_on_their_tables() -> None:
    sets = {p: frozenset(_profile_vector_tables(p)) for p in profile_names()}
    assert len(set(sets.values())) == 1, sets


def test_signatures(ins: Instruction) -> None:
    assert ins.signatures, f"{ins.name}: no signature"
    for s in ins.signatures:
        assert isinstance(s, Signature)
        assert len(s.dtypes) == len(ins.operands), (ins.name, s)
        assert all(t is None or isinstance(t, DType) for t in s.dtypes)
        if s.modes is not None:
            assert s.modes and all(type(m) is int for m in s.modes)
    assert len(set(ins.signatures)) == len(ins.signatures)


def test_work(ins: Instruction) -> None:
    writes = any(op.write and op.is_memory for op in ins.operands)
    if ins.cost.kind in CONTROL_COSTS and not writes:
        assert ins.work is None, f"{ins.name} changes no memory: no work"
        return
    assert isinstance(ins.work, Work), f"{ins.name} changes memory: it needs work"
    assert ins.work.kernels and callable(ins.work.bind)
    for form, kernel in ins.work.kernels.items():
        assert isinstance(form, str) and form
        check_dispatcher(kernel, f"{ins.name} work {form!r}")


def check_dispatcher(fn: object, what: str) -> None:
    assert isinstance(fn, CPUDispatcher), f"{what} is not a numba njit function"
    opts = fn.targetoptions
    assert not opts.get("fastmath"), f"{what} uses fastmath"
    assert opts.get("error_model") == "numpy", (what, opts)
    assert bool(opts.get("nogil")) is (what not in GIL_HOLDERS), (what, opts)
    assert opts.get("nopython", True) and not opts.get("forceobj"), what
    assert type(fn._cache).__name__ != "NullCache", f"{what} is not cache=True"


def test_cpp(ins: Instruction) -> None:
    assert ins.cpp and all(isinstance(d, CppDecl) and d.text.strip() for d in ins.cpp)
    assert any(ins.name in d.text for d in ins.cpp)


# ---- numba options everywhere ------------------------------------------------------------------

def _ascsim_modules() -> list:
    return [m for name, m in sorted(sys.modules.items())
            if (name == "ascsim" or name.startswith("ascsim.")) and m is not None]


def test_every_numba_function_has_the_standard_options() -> None:
    """Not only the work: every njit function a module of ascsim defines."""
    seen = 0
    for module in _ascsim_modules():
        for attr, value in vars(module).items():
            if isinstance(value, numba.core.dispatcher.Dispatcher) and \
                    value.py_func.__module__ == module.__name__:
                check_dispatcher(value, f"{module.__name__}.{attr}")
                seen += 1
    assert seen > 50


def _jit_calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(
                f, ast.Attribute) else ""
            if name in ("njit", "jit", "vectorize", "guvectorize", "overload", "cfunc",
                        "generated_jit", "stencil"):
                yield name, node


def test_every_jit_decorator_in_the_sources() -> None:
    """The sources too (nested and overload implementations are not module attributes):
    `njit(cache=True, nogil=True, error_model="numpy")` exactly, or with `inline="always"` (a
    small helper numba types inside its caller instead of compiling it on its own) or
    `_nrt=False` (a hot function that allocates nothing, compiled without reference counting:
    the sanitizer's per-record functions), overloads with `jit_options=JIT` (worklib's dict of
    the same options); without `nogil` in the modules of GIL_HOLDERS."""
    from ascsim.instructions.worklib import JIT
    assert JIT == JIT_OPTIONS
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for name, call in _jit_calls(ast.parse(path.read_text())):
            where = f"{path.relative_to(ROOT)}:{call.lineno}"
            kw = {k.arg: k.value for k in call.keywords}
            if name == "njit":
                got = {k: ast.literal_eval(v) for k, v in kw.items() if k is not None}
                inline = got.pop("inline", "always")
                nrt = got.pop("_nrt", False)
                holds_gil = path.name in {g.split(".")[1] + ".py" for g in GIL_HOLDERS}
                expected = {k: v for k, v in JIT_OPTIONS.items() if k != "nogil" or not holds_gil}
                if got != expected or inline != "always" or nrt is not False or call.args \
                        or None in kw:
                    bad.append(f"{where}: njit{tuple(got.items())}")
            elif name == "overload":
                opt = kw.get("jit_options")
                if not (isinstance(opt, ast.Name) and opt.id == "JIT"):
                    bad.append(f"{where}: overload without jit_options=JIT")
            else:
                bad.append(f"{where}: {name} (use njit with the standard options)")
    assert not bad, "\n".join(bad)


# ---- semantics test coverage -------------------------------------------------------------------

def _instruction_marks(node: ast.expr) -> list[ast.Call]:
    """The `pytest.mark.instruction(...)` calls in a decorator or a `pytestmark` value."""
    items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
    return [n for n in items if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "instruction" and ast.unparse(n.func.value) == "pytest.mark"]


def marked_instructions() -> dict[str, list[str]]:
    """Instruction name -> the tests marked with it ("file::test"); `pytestmark` marks a
    whole module ("file")."""
    found: dict[str, list[str]] = {}
    for path in sorted(TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            calls, where = [], path.name
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                calls = [c for d in node.decorator_list for c in _instruction_marks(d)]
                where = f"{path.name}::{node.name}"
            elif isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
                calls = _instruction_marks(node.value)
            for call in calls:
                assert call.args and not call.keywords, f"{where}: instruction(...) takes names"
                for arg in call.args:
                    assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), (
                        f"{where}: instruction(...) takes string literals (read without "
                        "importing the test)")
                    found.setdefault(arg.value, []).append(where)
    return found


MARKED = marked_instructions()


def test_the_marker_is_registered() -> None:
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert any(m.startswith("instruction(") for m in ini.get("markers", []))


def test_markers_name_registered_instructions() -> None:
    unknown = {n: w for n, w in MARKED.items() if n not in NAMES}
    assert not unknown, f"markers naming no registered instruction: {unknown}"


def test_every_instruction_has_a_semantics_test() -> None:
    missing = [n for n in NAMES if n not in MARKED]
    assert not missing, ("instructions without a test marked @pytest.mark.instruction(...): "
                         + ", ".join(missing))


@cache
def _mentions(path: Path) -> set[str]:
    """Identifiers, attribute names and string constants of a test module, the markers'
    arguments left out."""
    tree = ast.parse(path.read_text())
    in_marks = {id(arg) for node in ast.walk(tree) if isinstance(node, ast.Call)
                for arg in (node.args if _instruction_marks(node) else ())}
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.alias):
            out.add(node.asname or node.name)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                id(node) not in in_marks:
            out.add(node.value)
    return out


def test_marked_modules_mention_their_instructions() -> None:
    """A marker on a test whose module never names the instruction (as code or as a string,
    outside the marker) is a misplaced marker."""
    bad = []
    for name, places in MARKED.items():
        for where in places:
            if name not in _mentions(TESTS / where.split("::")[0]):
                bad.append(f"{where} is marked {name!r} but never mentions it")
    assert not bad, "\n".join(bad)


# ---- registration ------------------------------------------------------------------------------

_PRINT = "from ascsim.registry import REGISTRY; print(','.join(i.name for i in REGISTRY))"
# a module of each layer (the ids must not depend on which one a process imports first)
FIRST_IMPORTS = ["ascsim", "ascsim.registry", "ascsim.records", "ascsim.replay",
                 "ascsim.instructions.cast", "ascsim.pipe", "ascsim.sanitizer", "ascsim.timing",
                 "ascsim.export", "ascsim.cli"]


def test_import_order_does_not_change_the_registry() -> None:
    """In fresh interpreters, importing any of these first registers every instruction, in
    the order `import ascsim` does (ids are registry positions: they must not depend on it)."""
    procs = {first: subprocess.Popen([sys.executable, "-c", f"import {first}; {_PRINT}"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     cwd=ROOT)
             for first in FIRST_IMPORTS if (first in sys.modules or _exists(first))}
    out = {}
    for first, p in procs.items():
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, f"import {first}: {stderr}"
        out[first] = stdout.strip()
    assert out["ascsim"] == ",".join(NAMES)
    different = [f for f, names in out.items() if names != out["ascsim"]]
    assert not different, f"importing these first changes the registry: {different}"


def _exists(module: str) -> bool:
    return (PACKAGE.parent / (module.replace(".", "/") + ".py")).exists() or (
        PACKAGE.parent / module.replace(".", "/") / "__init__.py").exists()


def _module_level_registry_uses(tree: ast.Module) -> list[int]:
    """Lines where module-level code (not a function body) reads REGISTRY."""
    lines = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Name) and node.id == "REGISTRY":
            lines.append(node.lineno)
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            stack.extend(ast.iter_child_nodes(node))
    return lines


def _cached_registry_uses(tree: ast.Module) -> list[int]:
    """Lines of functions memoised (functools.cache, lru_cache, cached_property) that read
    REGISTRY or its length: their result would outlive a later registration."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decos = {ast.unparse(d).split("(")[0].rsplit(".", 1)[-1] for d in node.decorator_list}
            if decos & {"cache", "lru_cache", "cached_property"} and any(
                    isinstance(n, ast.Name) and n.id == "REGISTRY" for n in ast.walk(node)):
                out.append(node.lineno)
    return out


def test_no_module_snapshots_the_registry() -> None:
    """Tables over the registry are built when used (they are cheap): a module-level table, or
    a memoised one, built while instructions are still being registered would miss the later
    ones. Reading REGISTRY at import time is left to registry.py."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "registry.py":
            continue
        tree = ast.parse(path.read_text())
        rel = path.relative_to(ROOT)
        bad += [f"{rel}:{n}: REGISTRY read at import time"
                for n in _module_level_registry_uses(tree)]
        bad += [f"{rel}:{n}: a memoised function reads REGISTRY"
                for n in _cached_registry_uses(tree)]
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if "len(REGISTRY)" in line and ("cache" in line.lower() or "key" in line.lower()):
                bad.append(f"{rel}:{n}: a cache keyed on len(REGISTRY)")
    assert not bad, "\n".join(bad)


def test_facade_exports() -> None:
    assert ascsim.launch and ascsim.Run
