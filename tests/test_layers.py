"""ascsim's import graph: no cycles, and every module imports only from its own layer or below.

The graphs are read from the sources with `ast` (nothing is imported), relative imports
resolved, `if TYPE_CHECKING:` blocks left out (annotations only):

- GRAPH, what each module names: every `import` / `from ... import` of an ascsim module, at
  module level or inside a function (a deferred import still ties the layers together);
  `from pkg import x` names pkg.x when that is a module, else pkg. The layering is about it.
- IMPORT_TIME, what importing a module executes at once: its module-level imports, plus the
  package `__init__`s they run (importing `a.b.c` from outside `a.b` runs `a.b` first). A
  cycle here can break an import depending on which module a process imports first.

Neither counts a module's own ancestor packages (Python runs them before the module, not
because of it) nor the root package `ascsim`, the facade checked on its own below.

The layers, lowest first (a package counts as one unit, named after its subpackage):

0. base: the vocabulary every layer uses: errors, dtypes, numeric conversions, the numba cache
   set-up and compiling ahead in a worker process (prewarm), the core state, hardware profiles,
   source positions, the C++ mirror tooling, terminal progress and reading rows of Python ints
   from numba (pyrows).
1. the instruction model: the registry, the record schema and the packed store of a finished
   core's records (recordstore), faults and findings, and calling and replaying numba work,
   running it deferred in batches (batch), and tracing a launch's cores in forked processes
   (forked).
2. the AscendC surface: memory, sync, the TPipe/TQue model, the instructions, debug output,
   tiling structs, the sync-mode marker and the `ascsim.ascendc` star-import surface.
3. the analyses: timing, export (trace files, plots) and the sanitizer.
4. the runtime: `launch` and `Run`.
5. above the runtime: host-side tiling, the aclnn layer, the C library and opdev calls of the
   op transcriptions, the convenience functions' argument checks, tuning, operator packages,
   sweeps and where their jobs run (distribute), comparison, the operator runner, the testing
   helpers.
6. the commands: the command line (and `python -m ascsim`) and the AscendC header generator
   (`python -m ascsim.cppheader`, which reads the whole registry).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "ascsim"

LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "dtypes", "convert", "_numba_cache", "prewarm", "core", "profile",
               "source", "mirror", "progress", "pyrows"}),
    frozenset({"registry", "records", "recordstore", "findings", "faults", "workcall", "replay",
               "batch", "forked"}),
    frozenset({"memory", "sync", "pipe", "instructions", "debug", "tiling", "syncmode",
               "ascendc", "coresched"}),
    frozenset({"timing", "export", "sanitizer"}),
    frozenset({"runtime"}),
    frozenset({"host", "aclnn", "convenience", "opdev", "tuning", "operator", "sweep",
               "distribute", "compare", "oprunner", "testing"}),
    frozenset({"cli", "__main__", "cppheader", "readmetables"}),
)
TOP = len(LAYERS) - 1  # the commands
# the simulated machine never calls up into what analyses or runs it
MACHINE = frozenset({"instructions", "memory", "sync", "pipe"})
ABOVE_MACHINE = frozenset({"sanitizer", "timing", "export", "runtime"})


def module_name(path: Path) -> str:
    parts = ("ascsim", *path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, deferred: bool):
    """(node, at module level) for every Import / ImportFrom, skipping `if TYPE_CHECKING:`
    bodies (not their else); with `deferred` False, only the imports run at import time."""
    stack: list[tuple[ast.AST, bool]] = [(tree, True)]
    while stack:
        node, top = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend((n, top) for n in node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if not deferred:
                continue
            top = False
        stack.extend((n, top) for n in ast.iter_child_nodes(node))


def _packages_run(target: str, importer: str) -> set[str]:
    """The packages whose __init__ importing `target` runs first (not the importer's own
    ancestors, which are running or done already, and not the root facade)."""
    parts = target.split(".")
    return {pkg for pkg in (".".join(parts[:k]) for k in range(2, len(parts)))
            if not (importer == pkg or importer.startswith(pkg + "."))}


def _resolve(node: ast.ImportFrom, package: str) -> str:
    """The absolute module a `from ... import` reads from, inside `package`."""
    if not node.level:
        return node.module or ""
    up = package.split(".")
    if node.level > 1:
        up = up[:-(node.level - 1)]
    return ".".join(up + ([node.module] if node.module else []))


def import_edges(name: str, path: Path, deferred: bool = True, packages: bool = False
                 ) -> set[str]:
    """The ascsim modules `name` imports, resolved: the modules named (`from pkg import x`
    names pkg.x when that is a module, else pkg). `deferred`: count imports inside functions;
    `packages`: add the package __init__s that importing a submodule runs."""
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in _imports(ast.parse(path.read_text(), str(path)), deferred):
        if isinstance(node, ast.Import):
            targets.update(a.name for a in node.names
                           if a.name == "ascsim" or a.name.startswith("ascsim."))
            continue
        base = _resolve(node, package)
        if not (base == "ascsim" or base.startswith("ascsim.")):
            continue
        for alias in node.names:  # `from pkg import submodule`, or names defined in base
            sub = f"{base}.{alias.name}"
            targets.add(sub if sub in MODULES else base)
    edges: set[str] = set()
    for t in targets:
        while t not in MODULES:  # `import ascsim.x.y` of a name that is not a module
            t = t.rpartition(".")[0]
        edges.add(t)
        if packages:
            edges |= _packages_run(t, name)
    edges.discard("ascsim")
    edges.discard(name)
    return edges


# what each module names, deferred imports included (the layering is about these)
GRAPH: dict[str, set[str]] = {name: import_edges(name, path) for name, path in MODULES.items()}
# what importing each module executes at once: module-level imports and the package
# __init__s they run (a cycle here can fail at import time, depending on the entry point)
IMPORT_TIME: dict[str, set[str]] = {name: import_edges(name, path, False, True)
                                    for name, path in MODULES.items()}


def unit(name: str) -> str:
    """The layering unit of a module: its first name below `ascsim`."""
    return name.split(".")[1]


def layer_of(name: str) -> int:
    u = unit(name)
    for i, layer in enumerate(LAYERS):
        if u in layer:
            return i
    raise AssertionError(f"{name}: unit {u!r} is in no layer of tests/test_layers.py: add it")


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle as a path [a, b, ..., a], or None (iterative DFS, deterministic order)."""
    colour: dict[str, int] = {}
    for start in sorted(graph):
        if colour.get(start):
            continue
        path = [start]
        iters = [iter(sorted(graph[start]))]
        colour[start] = 1
        while iters:
            nxt = next(iters[-1], None)
            if nxt is None:
                colour[path.pop()] = 2
                iters.pop()
                continue
            state = colour.get(nxt, 0)
            if state == 1:
                return path[path.index(nxt):] + [nxt]
            if state == 0:
                colour[nxt] = 1
                path.append(nxt)
                iters.append(iter(sorted(graph.get(nxt, ()))))
    return None


def test_the_graph_is_read() -> None:
    # sanity: known edges, a function-level one, and a TYPE_CHECKING one left out
    assert "ascsim.registry" in GRAPH["ascsim.records"]
    assert "ascsim.workcall" in GRAPH["ascsim.registry"]      # inside Work.entry
    assert "ascsim.profile" not in GRAPH["ascsim.core"]       # under TYPE_CHECKING
    assert "ascsim.sanitizer.offline" in GRAPH["ascsim.runtime"]
    assert "ascsim.sanitizer" not in GRAPH["ascsim.runtime"]  # named: only the submodules
    assert "ascsim.sanitizer" in IMPORT_TIME["ascsim.runtime"]  # ... but its __init__ runs
    assert "ascsim.workcall" not in IMPORT_TIME["ascsim.registry"]  # deferred
    assert "ascsim.instructions" not in GRAPH["ascsim.instructions.cast"]
    assert "ascsim.instructions" not in IMPORT_TIME["ascsim.instructions.cast"]
    assert len(MODULES) > 50


@pytest.mark.parametrize("graph", ["named", "import time"])
def test_no_import_cycles(graph: str) -> None:
    g = GRAPH if graph == "named" else IMPORT_TIME
    cycle = find_cycle({k: v for k, v in g.items() if k != "ascsim"})
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_layers() -> None:
    bad = [f"{a} (layer {layer_of(a)}) imports {b} (layer {layer_of(b)})"
           for a, targets in sorted(GRAPH.items()) if a != "ascsim"
           for b in sorted(targets) if layer_of(b) > layer_of(a)]
    assert not bad, "imports from a higher layer:\n" + "\n".join(bad)


def test_every_unit_has_a_layer() -> None:
    units = {unit(m) for m in MODULES if m != "ascsim"}
    named = set().union(*LAYERS)
    assert units <= named, f"modules in no layer: {sorted(units - named)}"
    assert not named - units, f"layers name missing modules: {sorted(named - units)}"


def test_the_machine_does_not_import_its_observers() -> None:
    bad = [f"{a} imports {b}" for a, targets in sorted(GRAPH.items())
           if a != "ascsim" and unit(a) in MACHINE
           for b in sorted(targets) if unit(b) in ABOVE_MACHINE]
    assert not bad, "\n".join(bad)


def test_the_facade() -> None:
    # ascsim/__init__ sits on top: it may import anything but the commands, and only the
    # commands import it by name (the others reach it only as their parent package)
    facade = GRAPH["ascsim"]
    assert not {m for m in facade if layer_of(m) == TOP}
    first = ast.parse(MODULES["ascsim"].read_text()).body
    froms = [n for n in first if isinstance(n, ast.ImportFrom)]
    assert froms and any(a.name == "_numba_cache" for a in froms[0].names), (
        "ascsim/__init__ must import _numba_cache before anything that defines numba code")
    bad = [f"{name} imports {', '.join(names)} from the ascsim facade"
           for name, path in MODULES.items() if name != "ascsim" and layer_of(name) < TOP
           if (names := _facade_names(name, path))]
    assert not bad, "\n".join(bad)


def _facade_names(name: str, path: Path) -> list[str]:
    """What `name` imports from the root package itself (`import ascsim`, or names of
    ascsim/__init__ that are not submodules)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in _imports(ast.parse(path.read_text()), True):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name == "ascsim"]
            continue
        base = _resolve(node, package)
        if base == "ascsim":
            out += [a.name for a in node.names if f"ascsim.{a.name}" not in MODULES]
    return out
