"""The common form both sides are reduced to, the statement items the aligner compares, and
their equality.

Each documented C++ <-> Python spelling difference is removed here or in the two converters,
so that equal items mean "the same statement"; everything else stays visible. Applied to both
sides alike:

- functional casts of scalar types `int(x)`, `float(x)`, `uint32_t(x)` -> `x` (C++ `static_cast`
  and C casts are already gone), `float(1.0)` -> `1.0`;
- NaN / infinity spellings (`__builtin_nanf("")`, `std::numeric_limits<float>::quiet_NaN()`,
  `np.float32(np.nan)`, `float("nan")`, ...) -> `NAN` / `INFINITY`;
- `x == nullptr` / `x == None` -> `x is None` (and `!=` -> `is not`);
- `{a, b}`, `[a, b]`, `(a, b)` -> one list form; `a && b && c` flattened;
- `range(0, n)` -> `range(n)`, a step of 1 dropped; `std::max<T>(a, b)` -> `max(a, b)`,
  `std::min({a, b, c})` -> `min(a, b, c)`;
- `.GetString()` / `.c_str()` dropped (C strings); printf length modifiers in format strings
  (`%zu`, `%lld`, `%u`) -> `%d`;
- the op-type argument of the registration macros (`IMPL_OP_OPTILING(LogitGrad)`,
  `INFER_SHAPE(LogitGrad, ...)`) -> the string `"LogitGrad"` the macro makes of it;
- AscendC's `assert(cond[, fmt, ...])` -> `ascendc_assert(...)` (`assert` is a Python keyword).
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass, field

__all__ = ["AnyDiv", "Braced", "UNINIT", "Item", "canonical", "same", "render", "make_item",
           "CAST_NAMES", "STRINGIZING_MACROS"]


class AnyDiv(ast.Div):
    """A C++ division whose operand types are unknown: matches Python's `/` and `//`."""


class Braced(ast.List):
    """A C++ braced list passed as an argument, `f(a, {1, 2})`: an implicit construction of the
    parameter's type, which Python spells `f(a, Type(1, 2))` (or as a list)."""


UNINIT = "__uninitialised__"  # a C++ scalar declared without a value: matches any constant

CAST_NAMES = {"int", "float", "bool", "double", "half", "bfloat16_t", "int8_t", "uint8_t",
              "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "size_t"}
_FLOAT_CASTS = {"float", "double", "half", "bfloat16_t"}
STRINGIZING_MACROS = {"IMPL_OP_OPTILING", "IMPL_OP_INFERSHAPE", "IMPL_OP", "OP_TYPE_REGISTER",
                      "INFER_SHAPE", "ADD_TO_LAUNCHER_LIST_AICORE", "L0_DFX",
                      "L2_DFX_PHASE_1", "L2_DFX_PHASE_2", "OP_ADD_TO_LAUNCHER_LIST"}
_NAN_CALLS = {"__builtin_nanf", "__builtin_nan", "__builtin_nansf", "__builtin_nans"}
_INF_CALLS = {"__builtin_inff", "__builtin_inf", "__builtin_huge_valf", "__builtin_huge_val"}
_NP = {"np", "numpy", "math"}
_FORMAT = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)(?:hh|h|ll|l|z|j|t|L|I64)?([diuxXo])")


def _nan_name(node: ast.expr) -> str | None:
    """NAN / INFINITY when node spells a NaN or an infinity on either side."""
    if isinstance(node, ast.Name) and node.id in ("NAN", "INFINITY"):
        return node.id
    if isinstance(node, ast.Name) and node.id in ("HUGE_VALF", "HUGE_VAL"):
        return "INFINITY"
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
            node.value.id in _NP and node.attr in ("nan", "inf", "NaN", "NAN", "Inf", "infty"):
        return "NAN" if node.attr.lower() == "nan" else "INFINITY"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        low = node.value.strip().lower()
        return "NAN" if low == "nan" else "INFINITY" if low in ("inf", "infinity") else None
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Name) and f.id in _NAN_CALLS:
            return "NAN"
        if isinstance(f, ast.Name) and f.id in _INF_CALLS:
            return "INFINITY"
        if isinstance(f, ast.Attribute) and f.attr in ("quiet_NaN", "signaling_NaN"):
            return "NAN"
        if isinstance(f, ast.Attribute) and f.attr == "infinity" and not node.args:
            return "INFINITY"
        # float('nan'), np.float32(np.nan): a float conversion of a NaN spelling
        is_conv = (isinstance(f, ast.Name) and f.id in _FLOAT_CASTS) or (
            isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
            and f.value.id in _NP and f.attr in ("float32", "float64", "float16", "float_"))
        if is_conv and len(node.args) == 1:
            return _nan_name(node.args[0])
    return None


def _callee(func: ast.expr) -> str:
    while isinstance(func, ast.Subscript):
        func = func.value
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


class _Canon(ast.NodeTransformer):
    def __init__(self, strip: frozenset[str]) -> None:
        self.strip = strip  # names that are namespaces here (Python side)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        nan = _nan_name(node)
        if nan:
            return ast.Name(nan, ast.Load())
        if isinstance(node.value, ast.Name) and node.value.id in self.strip:
            return ast.Name(node.attr, ast.Load())
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        nan = _nan_name(node)
        return ast.Name(nan, ast.Load()) if nan else node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        nan = _nan_name(node)
        if nan:
            return ast.Name(nan, ast.Load())
        self.generic_visit(node)
        f = node.func
        name = f.id if isinstance(f, ast.Name) else None
        if name in CAST_NAMES and len(node.args) == 1 and not node.keywords:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and name in _FLOAT_CASTS and \
                    isinstance(arg.value, (int, float)) and not isinstance(arg.value, bool):
                return ast.Constant(float(arg.value))
            return arg
        if isinstance(f, ast.Attribute) and f.attr in ("GetString", "c_str") and not node.args:
            return f.value
        if isinstance(f, ast.Subscript) and isinstance(f.value, ast.Name) and \
                f.value.id in ("min", "max", "abs"):
            node.func = f = f.value
            name = f.id
        if name in ("min", "max") and len(node.args) == 1 and isinstance(node.args[0], ast.List):
            node.args = node.args[0].elts  # std::min({a, b, c})
        if name == "assert":
            node.func = ast.Name("ascendc_assert", ast.Load())
        if name in STRINGIZING_MACROS and node.args and isinstance(node.args[0], ast.Name):
            node.args[0] = ast.Constant(node.args[0].id)
        if name == "range":
            args = node.args
            if len(args) == 3 and isinstance(args[2], ast.Constant) and args[2].value == 1:
                args = args[:2]
            if len(args) == 2 and isinstance(args[0], ast.Constant) and args[0].value == 0:
                args = args[1:]
            node.args = args
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) == 1:
            left, right = node.left, node.comparators[0]
            if isinstance(left, ast.Constant) and left.value is None:
                left, right = right, left
            if isinstance(right, ast.Constant) and right.value is None:
                op = node.ops[0]
                if isinstance(op, ast.Eq):
                    return ast.Compare(left, [ast.Is()], [right])
                if isinstance(op, ast.NotEq):
                    return ast.Compare(left, [ast.IsNot()], [right])
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        values: list[ast.expr] = []
        for v in node.values:
            if isinstance(v, ast.BoolOp) and type(v.op) is type(node.op):
                values.extend(v.values)
            else:
                values.append(v)
        node.values = values
        return node

    def visit_Tuple(self, node: ast.Tuple) -> ast.AST:
        self.generic_visit(node)
        return ast.List(node.elts, ast.Load())

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        node.value = self.visit(node.value)
        if isinstance(node.slice, (ast.Tuple, ast.List)):  # template arguments: K[T, B]
            node.slice = ast.Tuple([self.visit(e) for e in node.slice.elts], ast.Load())
        else:
            node.slice = self.visit(node.slice)
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str) and "%" in node.value:
            return ast.Constant(_FORMAT.sub(lambda m: "%" + m.group(1) + (
                "d" if m.group(2) in "diu" else m.group(2)), node.value))
        return node


def canonical(node: ast.AST, strip: frozenset[str] = frozenset()) -> ast.AST:
    """node in the common form, transformed in place (callers pass nodes they own).
    strip: names that are namespaces (Python side)."""
    out = _Canon(strip).visit(node)
    for n in ast.walk(out):
        if "ctx" in n._fields:
            n.ctx = ast.Load()  # C++ has no Store/Load distinction
    return out


# ---- items ---------------------------------------------------------------------------------

_STMT_KINDS = {"stmt", "raw"}


@dataclass
class Item:
    """One statement-level element of a file: kind is "def", "class", "field", "stmt", "if",
    "elif", "else", "for", "while", "end" or "raw" (C++ the checker cannot read)."""

    kind: str
    key: object                  # str for def/class/field/else/end/raw, else an ast node
    path: str
    line: int
    lines: tuple[int, int]
    alts: tuple = ()             # other accepted forms (documented conventions)
    dumps: tuple[str, ...] = field(default=(), repr=False)
    fuzzy: bool = False
    head: str = ""
    group: str = ""

    @property
    def text(self) -> str:
        """The statement as source-like text (for reports)."""
        if self.kind == "elif":
            return "el" + render(self.key)
        if self.kind == "else":
            return "else:"
        if self.kind == "end":
            return f"end of {self.key}"
        return render(self.key)


def _dump(key: object) -> str:
    if isinstance(key, ast.AST):
        return ast.dump(key, annotate_fields=False, include_attributes=False)
    return str(key)


def _is_fuzzy(key: object) -> bool:
    if not isinstance(key, ast.AST):
        return False
    for n in ast.walk(key):
        if isinstance(n, (AnyDiv, Braced)) or (isinstance(n, ast.Name) and n.id == UNINIT):
            return True
    return False


def _head(kind: str, key: object) -> str:
    if isinstance(key, str):
        return key.split("(", 1)[0].split(":", 1)[0].split("[", 1)[0]
    if kind != "stmt":
        return kind
    if isinstance(key, ast.Expr) and isinstance(key.value, ast.Call):
        return "call " + _callee(key.value.func)
    if isinstance(key, ast.Assign):
        return "assign " + render(key.targets[0])
    if isinstance(key, ast.AugAssign):
        return "aug " + render(key.target)
    return type(key).__name__.lower()


def render(node: object) -> str:
    """Source-like text of a key (AnyDiv shown as `/`)."""
    if not isinstance(node, ast.AST):
        return str(node)
    shown = ast.fix_missing_locations(copy.deepcopy(node))
    for n in ast.walk(shown):
        for name, value in ast.iter_fields(n):
            if isinstance(value, AnyDiv):
                setattr(n, name, ast.Div())
            elif isinstance(value, list):
                setattr(n, name, [ast.List(v.elts, ast.Load()) if isinstance(v, Braced) else v
                                  for v in value])
    if isinstance(shown, ast.If):
        return f"if {ast.unparse(shown.test)}:"
    if isinstance(shown, ast.While):
        return f"while {ast.unparse(shown.test)}:"
    if isinstance(shown, ast.For):
        return f"for {ast.unparse(shown.target)} in {ast.unparse(shown.iter)}:"
    return ast.unparse(shown)


def make_item(kind: str, key: object, path: str, line: int,
              lines: tuple[int, int] | None = None, alts: tuple = ()) -> Item:
    item = Item(kind, key, path, line, lines or (line, line), tuple(alts))
    item.dumps = tuple(_dump(k) for k in (key, *alts))
    item.fuzzy = any(_is_fuzzy(k) for k in (key, *alts))
    item.head = _head(kind, key)
    item.group = "stmt" if kind in _STMT_KINDS else kind
    return item


def _same_node(a: object, b: object) -> bool:
    if isinstance(a, AnyDiv) and isinstance(b, (ast.Div, ast.FloorDiv)):
        return True
    if isinstance(a, ast.Name) and a.id == UNINIT:
        return isinstance(b, ast.Constant) or (isinstance(b, ast.Call) and not b.args)
    if isinstance(a, Braced):
        if isinstance(b, ast.List):
            return _same_node(a.elts, b.elts)
        return isinstance(b, ast.Call) and not b.keywords and _same_node(a.elts, b.args)
    if isinstance(a, ast.AST):
        if type(a) is not type(b):
            return False
        for name in a._fields:
            if name in ("ctx", "kind", "type_comment"):
                continue
            if not _same_node(getattr(a, name, None), getattr(b, name, None)):
                return False
        return True
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(
            _same_node(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def same(cpp: Item, py: Item) -> bool:
    """Whether a C++ item and a Python item are the same statement."""
    if cpp.kind != py.kind:
        return False
    if py.dumps[0] in cpp.dumps:
        return True
    if cpp.fuzzy:
        return any(_same_node(k, py.key) for k in (cpp.key, *cpp.alts))
    return False
