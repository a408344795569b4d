"""Python source (a kernels_py transcription) -> statement items in the common form (canon).

Python-only machinery has no C++ counterpart and is skipped: docstrings, imports, `__all__`,
`X = TypeVar("X")`, `pass`, decorators (`@aclnn_api`, `@l0op.define` stand for C++ linkage and
namespaces).
The Python spellings of C++ constructs are read as follows:

- `class K(Generic[T, B])` is `template <typename T, bool B> class K`; the base `TilingData` is
  a plain struct, whose `_fields_ = (("name", type), ...)` are its `field` items;
- `super().__init__(args)` is the base constructor call `Base(args)`;
- `ns.name` where `ns` is a C++ namespace (`ge`, `gert`, `l0op`, `platform_ascendc`, ...) and
  not a local variable is `name`, as the C++ side drops namespaces;
- a method's `self` parameter is implicit, as in C++.
"""

from __future__ import annotations

import ast

from .canon import Item, canonical, make_item

__all__ = ["convert_py"]

# bases that are the Python spelling of a plain C++ struct or enum
_STRUCT_BASES = {"TilingData", "object", "IntEnum", "Enum", "IntFlag"}


def _stored_names(fn: ast.AST) -> set[str]:
    names: set[str] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
        elif isinstance(n, ast.arg):
            names.add(n.arg)
    return names


def _is_docstring(st: ast.stmt) -> bool:
    return isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and \
        isinstance(st.value.value, str)


class _Converter:
    def __init__(self, path: str, lines: list[str], namespaces: frozenset[str]) -> None:
        self.path = path
        self.src_lines = lines
        self.namespaces = namespaces
        self.items: list[Item] = []
        self.strip: frozenset[str] = namespaces

    def add(self, kind: str, key: object, line: int, end: int | None = None) -> None:
        if isinstance(key, ast.AST):
            key = canonical(key, self.strip)
        self.items.append(make_item(kind, key, self.path, line, (line, end or line)))

    def module(self, tree: ast.Module) -> None:
        self.strip = self.namespaces - _stored_names_module(tree)
        self.body(tree.body, cls=None, top=True)

    def body(self, stmts: list[ast.stmt], cls: ast.ClassDef | None, top: bool = False) -> None:
        for st in stmts:
            self.statement(st, cls, top)

    def statement(self, st: ast.stmt, cls: ast.ClassDef | None, top: bool = False) -> None:
        if _is_docstring(st) or isinstance(st, (ast.Import, ast.ImportFrom, ast.Pass)):
            return
        end = st.end_lineno
        if isinstance(st, ast.Assign) and top and len(st.targets) == 1 and \
                isinstance(st.targets[0], ast.Name) and (
                    st.targets[0].id == "__all__" or _is_typevar(st.value)):
            return  # the export list; TypeVar declarations of Generic parameters
        if isinstance(st, ast.ClassDef):
            self.class_def(st)
        elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(st, cls)
        elif isinstance(st, ast.If):
            self.if_chain(st, cls)
        elif isinstance(st, ast.For) and not st.orelse:
            self.add("for", ast.For(st.target, st.iter, [], []), st.lineno, st.iter.end_lineno)
            self.body(st.body, cls)
            self.add("end", "for", st.end_lineno)
        elif isinstance(st, ast.While) and not st.orelse:
            self.add("while", ast.While(st.test, [], []), st.lineno, st.test.end_lineno)
            self.body(st.body, cls)
            self.add("end", "while", st.end_lineno)
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            self.add("stmt", ast.Assign([st.target], st.value), st.lineno, end)
        elif isinstance(st, ast.Expr) and cls is not None and self._super_init(st.value):
            call = st.value
            base = self._first_base(cls)
            self.add("stmt", ast.Expr(ast.Call(ast.Name(base, ast.Load()), call.args, [])),
                     st.lineno, end)
        else:
            self.add("stmt", st, st.lineno, end)

    @staticmethod
    def _super_init(e: ast.expr) -> bool:
        return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
            e.func.attr == "__init__" and isinstance(e.func.value, ast.Call) and \
            isinstance(e.func.value.func, ast.Name) and e.func.value.func.id == "super"

    @staticmethod
    def _first_base(cls: ast.ClassDef) -> str:
        for b in cls.bases:
            if not (isinstance(b, ast.Subscript) and isinstance(b.value, ast.Name)
                    and b.value.id == "Generic"):
                return ast.unparse(b)
        return "object"

    def class_def(self, c: ast.ClassDef) -> None:
        params: list[str] = []
        bases: list[str] = []
        for b in c.bases:
            if isinstance(b, ast.Subscript) and isinstance(b.value, ast.Name) and \
                    b.value.id == "Generic":
                elts = b.slice.elts if isinstance(b.slice, ast.Tuple) else [b.slice]
                params = [ast.unparse(e) for e in elts]
            else:
                name = ast.unparse(canonical(b, self.strip))
                if name not in _STRUCT_BASES:
                    bases.append(name)
        fields = next((st for st in c.body if isinstance(st, ast.Assign)
                       and any(isinstance(t, ast.Name) and t.id == "_fields_"
                               for t in st.targets)), None)
        if fields is not None:
            self.add("class", f"class {c.name}", c.lineno)
            entries = fields.value.elts if isinstance(fields.value, (ast.Tuple, ast.List)) \
                else []
            for e in entries:
                if isinstance(e, (ast.Tuple, ast.List)) and len(e.elts) >= 2 and \
                        isinstance(e.elts[0], ast.Constant):
                    t = ast.unparse(canonical(e.elts[1], self.strip))
                    dims = "".join(f"[{ast.unparse(x)}]" for x in e.elts[2:])
                    self.add("field", f"field {e.elts[0].value}: {t}{dims}", e.lineno,
                             e.end_lineno)
                else:
                    self.add("stmt", ast.Expr(e), e.lineno, e.end_lineno)
            rest = [st for st in c.body if st is not fields]
            self.body(rest, c)
            return
        key = f"class {c.name}"
        if params:
            key += f"[{', '.join(params)}]"
        if bases:
            key += f"({', '.join(bases)})"
        self.add("class", key, c.lineno)
        self.body(c.body, c)

    def function(self, f: ast.FunctionDef | ast.AsyncFunctionDef,
                 cls: ast.ClassDef | None) -> None:
        args = [a.arg for a in f.args.posonlyargs + f.args.args]
        is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod"
                        for d in f.decorator_list)
        if cls is not None and args and not is_static:
            args = args[1:]  # self: implicit in C++
        if f.args.vararg:
            args.append("...")
        qual = f"{cls.name}.{f.name}" if cls is not None else f.name
        self.add("def", f"def {qual}({', '.join(args)})", f.lineno)
        saved = self.strip
        self.strip = saved - _stored_names(f)
        self.body(f.body, cls)
        self.strip = saved

    def if_chain(self, st: ast.If, cls: ast.ClassDef | None) -> None:
        kind = "if"
        cur: ast.If | None = st
        while cur is not None:
            self.add(kind, ast.If(cur.test, [], []), cur.lineno, cur.test.end_lineno)
            self.body(cur.body, cls)
            orelse = cur.orelse
            cur = None
            if orelse:
                if len(orelse) == 1 and isinstance(orelse[0], ast.If):
                    cur, kind = orelse[0], "elif"
                else:
                    self.add("else", "else", self._else_line(orelse[0].lineno))
                    self.body(orelse, cls)
        self.add("end", "if", st.end_lineno)

    def _else_line(self, first_body_line: int) -> int:
        """The line of the `else:` before a body starting at first_body_line."""
        for ln in range(first_body_line - 1, 0, -1):
            text = self.src_lines[ln - 1].strip()
            if text.startswith("else"):
                return ln
        return first_body_line


def _is_typevar(value: ast.expr) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
        value.func.id == "TypeVar"


def _stored_names_module(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for st in tree.body:
        for n in ast.walk(st) if not isinstance(st, (ast.FunctionDef, ast.ClassDef)) else ():
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.add(n.id)
        if isinstance(st, (ast.FunctionDef, ast.ClassDef)):
            names.add(st.name)
    return names


def convert_py(src: str, path: str, namespaces: frozenset[str]) -> list[Item]:
    """The statement items of one Python transcription."""
    tree = ast.parse(src, filename=path)
    conv = _Converter(path, src.splitlines(), frozenset(namespaces))
    conv.module(tree)
    return conv.items
