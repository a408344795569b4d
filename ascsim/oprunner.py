"""Finding an operator: `load_operator(spec)` turns what a user typed into an `ascsim.Operator`.

A spec is, in this order:
- a file, `path/to/my_op.py` (anything ending in .py or holding a path separator): imported by
  path;
- a name in the `ascsim.ops` entry-point group of any installed package (ascsim registers its
  own there), whose entry point loads an Operator (or a module holding one);
- a shipped name (`logit_grad`, `sigmoid_cross_entropy_with_logits_grad_v2`, `mse_loss_v2`,
  `cross_entropy_loss`): the fallback for a source checkout that was never pip-installed;
- an importable module, `pkg.module` (or `pkg.module:NAME` for one attribute).

A module supplies its `OPERATOR`, or else its only module-level Operator. Every failure is one
`UsageError` line.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from .errors import AscsimError, UsageError
from .operator import DTYPES, Operator, parse_dtype, parse_shape

__all__ = ["load_operator", "operator_names", "spec_of", "ENTRY_POINT_GROUP", "SHIPPED",
           "parse_shape", "parse_dtype", "DTYPES"]

ENTRY_POINT_GROUP = "ascsim.ops"
SHIPPED = {name: f"kernels_py.{name}.runner"
           for name in ("logit_grad", "sigmoid_cross_entropy_with_logits_grad_v2",
                        "mse_loss_v2", "cross_entropy_loss")}
_FORMS = "a shipped name, an ascsim.ops entry point, path/to/op.py or pkg.module"
_cache: dict[str, Operator] = {}
_origins: dict[int, tuple[Operator, str]] = {}  # id -> (op, a spec that loads it again)


def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def operator_names() -> list[str]:
    """The operators known by name: the entry points and the shipped ones."""
    return sorted(set(_entry_points()) | set(SHIPPED))


def load_operator(spec: str | Operator) -> Operator:
    """The Operator that `spec` names (see the module docstring); an Operator passes through."""
    if isinstance(spec, Operator):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise UsageError(f"an operator is {_FORMS}; got {spec!r}")
    spec = spec.strip()
    if _is_path(spec):  # not cached by text: a relative path depends on the directory
        op, origin = _from_file(Path(spec)), str(Path(spec).resolve())
    else:
        if spec not in _cache:
            _cache[spec] = _load(spec)
        op, origin = _cache[spec], spec
    _origins.setdefault(id(op), (op, origin))
    return op


def spec_of(op: Operator) -> str | None:
    """A spec that `load_operator` turns into `op` again (in another process too), if `op`
    came from `load_operator`."""
    found = _origins.get(id(op))
    return found[1] if found is not None and found[0] is op else None


def _is_path(spec: str) -> bool:
    return spec.endswith(".py") or os.sep in spec or "/" in spec


def _load(spec: str) -> Operator:
    entry = _entry_points().get(spec)
    if entry is not None:
        return _from_entry_point(entry)
    if spec in SHIPPED:
        return _operator_in(importlib.import_module(SHIPPED[spec]), spec)
    return _from_module(spec)


def _from_file(path: Path) -> Operator:
    if not path.is_file():
        raise UsageError(f"operator file {path} not found" if not path.is_dir() else
                         f"operator {path} is a directory; name the .py file that defines it")
    shown, path = str(path), path.resolve()
    # a unique module name per file; registered in sys.modules so that dataclasses, pickling
    # (sweep workers) and tracebacks find the module
    name = f"ascsim_op_{path.stem}_{hashlib.sha1(str(path).encode()).hexdigest()[:8]}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise UsageError(f"cannot import {shown} as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except AscsimError:
            del sys.modules[name]
            raise
        except Exception as e:
            del sys.modules[name]
            raise UsageError(f"cannot import {shown}: {_one_line(e)}") from e
    return _operator_in(module, shown)


def _from_entry_point(entry: importlib.metadata.EntryPoint) -> Operator:
    try:
        obj = entry.load()
    except AscsimError:
        raise
    except Exception as e:
        raise UsageError(f"entry point {entry.name} = {entry.value!r} ({ENTRY_POINT_GROUP}) "
                         f"does not load: {_one_line(e)}") from e
    if isinstance(obj, ModuleType):
        return _operator_in(obj, f"entry point {entry.name} ({entry.value})")
    if not isinstance(obj, Operator):
        raise UsageError(f"entry point {entry.name} = {entry.value!r} ({ENTRY_POINT_GROUP}) is "
                         f"a {type(obj).__name__}, not an ascsim.Operator")
    return obj


def _from_module(spec: str) -> Operator:
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name is None or not (module_name == e.name or module_name.startswith(e.name + ".")):
            raise UsageError(f"cannot import {module_name}: {_one_line(e)}") from e
        raise UsageError(_unknown(spec)) from None
    except AscsimError:
        raise
    except Exception as e:
        raise UsageError(f"cannot import {module_name}: {_one_line(e)}") from e
    if attr:
        obj = getattr(module, attr, None)
        if not isinstance(obj, Operator):
            raise UsageError(f"{module_name} has no Operator named {attr}")
        return obj
    return _operator_in(module, module_name)


def _operator_in(module: ModuleType, what: str) -> Operator:
    """The module's OPERATOR, or else its only module-level Operator."""
    op = getattr(module, "OPERATOR", None)
    if op is not None:
        if not isinstance(op, Operator):
            raise UsageError(f"{what}: OPERATOR is a {type(op).__name__}, not an ascsim.Operator")
        return op
    found: dict[int, tuple[str, Operator]] = {}
    for key, value in vars(module).items():
        if isinstance(value, Operator):
            found.setdefault(id(value), (key, value))
    if len(found) == 1:
        return next(iter(found.values()))[1]
    if not found:
        raise UsageError(f"{what} defines no ascsim.Operator "
                         "(add OPERATOR = ascsim.Operator(...))")
    names = ", ".join(k for k, _ in found.values())
    raise UsageError(f"{what} defines {len(found)} Operators ({names}); "
                     "name the one to run OPERATOR")


def _unknown(spec: str) -> str:
    names = operator_names()
    close = difflib.get_close_matches(spec, names, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return (f"unknown operator {spec!r}{hint}; known: {', '.join(names)}; or give "
            "path/to/op.py or pkg.module")


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__
