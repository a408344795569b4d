"""C++ tree (cpp_parse) -> statement items in the common form (canon).

The C++ -> Python spellings resolved here, because they need declarations:

- a class member `x_` (or `this->x_`) -> `self.x_`; a class template parameter `T` -> `self.T`;
- `a::b` -> `a.b`, with the namespaces of the op and of CANN (`AscendC::`, `std::`, `ge::`, ...)
  dropped; `std::is_same_v<T, float>` -> `self.T is float`;
- declarations `Type x = e;` -> `x = e`, `Type x{a, b};` / `Type x(a, b);` -> `x = Type(a, b)`,
  `Type x;` -> `x = Type()` (a scalar without a value matches any constant);
- class fields, with their initialisers and the constructor's member initialisers, become the
  first statements of `__init__`, after the base constructor call (`super().__init__(...)`);
  a struct of fields only (a tiling struct) is a list of `field name: type` items;
- `/` between integers -> `//` (types from declarations; unknown types match either);
- `for (T i = a; i < b; i++)` -> `for i in range(a, b)`; other for loops become while loops;
- containers: `FVector<T> v;` -> `v = []`, `v.push_back(x)` -> `v.append(x)`,
  `v.size()` -> `len(v)`, `v.data()` -> `v`;
- a braced argument `f(a, {1, 8})` (an implicit construction) matches `f(a, Type(1, 8))`;
- `i++` -> `i += 1`, `*p = v` -> `p = v`, `GET_TILING_DATA(d, t)` -> `d = GET_TILING_DATA(t)`;
- `enum E { A = 0, B };` -> `class E: A = 0; B = 1`, and for an unscoped enum the enumerators
  exported to the enclosing scope, `A, B = E.A, E.B`;
- a function template's arguments become leading arguments: `F<half>(x)` may be `F(half, x)`
  and `template <typename T> void F(x)` may be `def F(T, x)`;
- out-parameters (documented in ascsim/host.py and aclnn.py): a call `f(a, &out)` or
  `f(a, outParam)` may be written `out = f(a)`, and a function whose trailing pointer parameters
  it writes may drop them and `return` them instead (a function without a final `return` then
  ends with `return out`).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from . import cpp_tree as cp
from .canon import UNINIT, AnyDiv, Braced, Item, canonical, make_item

__all__ = ["CppContext", "collect", "convert_cpp", "FIXED_NAMESPACES"]

FIXED_NAMESPACES = frozenset({"AscendC", "std", "ge", "gert", "op", "l0op", "optiling", "ops",
                              "platform_ascendc", "fe"})
_INT_NAMES = {"bool", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t",
              "int64_t", "uint64_t", "size_t", "event_t", "pipe_t", "ssize_t", "ptrdiff_t",
              "uintptr_t", "intptr_t", "int", "aclnnStatus", "graphStatus"}
_FLOAT_NAMES = {"float", "double", "half", "bfloat16_t"}
_INT_CALLS = {"sizeof", "GetBlockIdx", "GetBlockNum", "GetSize", "GetDimNum", "GetDim",
              "GetShapeSize", "GetCoreNumAiv", "GetCoreNum", "GetCoreNumAic",
              "GetLibApiWorkSpaceSize", "GetWorkspaceSize", "GetTilingKey", "GetBlockDim",
              "Numel"}
_CONTAINERS = {"initializer_list", "vector", "array", "FVector", "SmallVector", "list", "set"}
_SEQUENCES = _CONTAINERS | {"string"}  # v.push_back(x) -> v.append(x), v.size() -> len(v)
# macro -> index of the argument that names the declared variable
_TILING_MACROS = {"GET_TILING_DATA": 0, "GET_TILING_DATA_WITH_STRUCT": 1,
                  "GET_TILING_DATA_PTR_WITH_STRUCT": 1}
# CANN calls whose last argument is an out-parameter taken by reference
_OUT_CALLS = {"GetCoreMemSize"}
_VALUE_TRAITS = {"is_same_v", "is_same"}


@dataclass
class ClassInfo:
    name: str
    template_params: list[str]
    bases: list[str]
    fields: dict[str, cp.CType] = field(default_factory=dict)
    field_decls: list[cp.VarDecl] = field(default_factory=list)
    statics: dict[str, cp.CType] = field(default_factory=dict)
    methods: set[str] = field(default_factory=set)
    has_ctor: bool = False


@dataclass
class CppContext:
    """What the conversion of one file needs to know about the op's other C++ files."""

    namespaces: set[str] = field(default_factory=lambda: set(FIXED_NAMESPACES))
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    globals: dict[str, cp.CType] = field(default_factory=dict)
    function_templates: set[str] = field(default_factory=set)
    parse_errors: dict = field(default_factory=dict)  # path -> message


def _base_name(expr: ast.expr) -> str:
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return expr.id if isinstance(expr, ast.Name) else ast.unparse(expr)


def collect(trees: list[list], ctx: CppContext | None = None) -> CppContext:
    """Namespaces, classes (fields, methods) and global variables of the op's C++ files."""
    ctx = ctx or CppContext()

    def walk(decls: list, owner: ClassInfo | None) -> None:
        for d in decls:
            if isinstance(d, cp.Namespace):
                if d.name:
                    ctx.namespaces.add(d.name)
                walk(d.body, None)
            elif isinstance(d, cp.ClassDef):
                info = ctx.classes.setdefault(d.name, ClassInfo(
                    d.name, d.template_params, [_base_name(b) for b in d.bases]))
                walk(d.members, info)
            elif isinstance(d, cp.VarDecl):
                if owner is None:
                    ctx.globals[d.name] = d.ctype
                elif d.static:
                    owner.statics[d.name] = d.ctype
                else:
                    owner.fields[d.name] = d.ctype
                    owner.field_decls.append(d)
            elif isinstance(d, cp.EnumDef):
                for name, _, _ in d.values:
                    key = name if not d.scoped else f"{d.name}.{name}"
                    ctx.globals[key] = cp.CType(None, "int64_t")
            elif isinstance(d, cp.Func):
                cls = owner
                if cls is None and len(d.name_parts) >= 2:
                    cls = ctx.classes.get(d.name_parts[-2])
                if cls is None and d.template_params:
                    ctx.function_templates.add(d.name_parts[-1])
                if cls is not None:
                    if d.is_ctor:
                        cls.has_ctor = True
                    else:
                        cls.methods.add(d.name_parts[-1])

    for tree in trees:
        walk(tree, None)
    return ctx


class _Scope:
    def __init__(self, ctx: CppContext, cls: ClassInfo | None,
                 params: dict[str, cp.CType], outs: list[str]) -> None:
        self.ctx = ctx
        self.cls = cls
        self.params = params
        self.locals: dict[str, cp.CType] = {}
        self.outs = outs

    def local_type(self, name: str) -> cp.CType | None:
        return self.locals.get(name) or self.params.get(name)

    def member(self, name: str) -> cp.CType | bool | None:
        """The member's type (True for a method or template parameter), or None."""
        seen: set[str] = set()
        cls = self.cls
        while cls is not None and cls.name not in seen:
            seen.add(cls.name)
            if name in cls.fields:
                return cls.fields[name]
            if name in cls.statics:
                return cls.statics[name]
            if name in cls.methods or name in cls.template_params:
                return True
            cls = next((self.ctx.classes[b] for b in cls.bases if b in self.ctx.classes), None)
        return None


def _numeric(type_name: str | None) -> str | None:
    if type_name in _INT_NAMES:
        return "int"
    if type_name in _FLOAT_NAMES:
        return "float"
    return None


class _Expr(ast.NodeTransformer):
    """Resolve a stage-1 C++ expression in a scope (members, namespaces, traits, division)."""

    def __init__(self, scope: _Scope) -> None:
        self.s = scope

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if getattr(node, "this", False):
            return ast.Name("self", ast.Load())
        if self.s.local_type(node.id) is None and self.s.member(node.id) is not None:
            return ast.Attribute(ast.Name("self", ast.Load()), node.id, ast.Load())
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if getattr(node, "scoped", False):
            if isinstance(node.value, ast.Name):
                if node.value.id in self.s.ctx.namespaces:
                    return self.visit(ast.Name(node.attr, ast.Load()))
                return node  # Enum::VALUE, Class::member: kept, not a member access
            node.value = self.visit(node.value)
            if isinstance(node.value, ast.Compare) and node.attr == "value":
                return node.value  # std::is_same<A, B>::value
            return node
        self.generic_visit(node)
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id in _VALUE_TRAITS and \
                isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2:
            a, b = node.slice.elts
            return ast.Compare(a, [ast.Is()], [b])
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node.args = [Braced([self.visit(e) for e in a.elts], ast.Load())
                     if isinstance(a, cp.InitList) else a for a in node.args]
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and self.type_of(f.value) in _SEQUENCES:
            if f.attr in ("push_back", "emplace_back"):
                node.func = ast.Attribute(f.value, "append", ast.Load())
            elif f.attr in ("size", "length") and not node.args:
                return ast.Call(ast.Name("len", ast.Load()), [f.value], [])
            elif f.attr == "data" and not node.args:
                return f.value
        return node

    def visit_InitList(self, node: cp.InitList) -> ast.AST:
        return ast.List([self.visit(e) for e in node.elts], ast.Load())

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if type(node.op) is ast.Div:
            kinds = {_numeric(self.type_of(node.left)), _numeric(self.type_of(node.right))}
            if kinds == {"int"}:
                node.op = ast.FloorDiv()
            elif "float" not in kinds:
                node.op = AnyDiv()
        return node

    def type_of(self, node: ast.expr) -> str | None:
        """The C++ type name of a resolved expression, where declarations tell it."""
        s = self.s
        if isinstance(node, ast.Constant):
            v = node.value
            return "bool" if isinstance(v, bool) else "int64_t" if isinstance(v, int) else \
                "float" if isinstance(v, float) else None
        if isinstance(node, ast.Name):
            t = s.local_type(node.id) or s.ctx.globals.get(node.id)
            return t.name if t else None
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                t = s.member(node.attr)
                return t.name if isinstance(t, cp.CType) else None
            owner = self.type_of(node.value)
            info = s.ctx.classes.get(owner) if owner else None
            t = info.fields.get(node.attr) if info else None
            return t.name if t else None
        if isinstance(node, ast.Call):
            callee = node.func
            while isinstance(callee, ast.Subscript):
                callee = callee.value
            name = callee.attr if isinstance(callee, ast.Attribute) else \
                callee.id if isinstance(callee, ast.Name) else ""
            if name in _INT_CALLS:
                return "int64_t"
            if name in ("min", "max") and node.args:
                return self._combine([self.type_of(a) for a in node.args])
            return None
        if isinstance(node, ast.BinOp):
            return self._combine([self.type_of(node.left), self.type_of(node.right)])
        if isinstance(node, ast.UnaryOp):
            return "bool" if isinstance(node.op, ast.Not) else self.type_of(node.operand)
        if isinstance(node, ast.IfExp):
            return self._combine([self.type_of(node.body), self.type_of(node.orelse)])
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            return "bool"
        return None

    @staticmethod
    def _combine(types: list[str | None]) -> str | None:
        kinds = [_numeric(t) for t in types]
        if "float" in kinds:
            return "float"
        if kinds and all(k == "int" for k in kinds):
            return "int64_t"
        return None


def _lvalue(node: ast.expr) -> bool:
    return isinstance(node, (ast.Name, ast.Attribute, ast.Subscript))


def _written_names(stmts: list) -> set[str]:
    """Names assigned to (`x = ...`, `*x = ...`) or passed last to a call statement."""
    out: set[str] = set()
    for st in stmts:
        if isinstance(st, cp.ExprStmt):
            e = st.expr
            if isinstance(e, (cp.CAssign, cp.CIncr)) and isinstance(e.target, ast.Name):
                out.add(e.target.id)
            elif isinstance(e, ast.Call) and e.args and isinstance(e.args[-1], ast.Name):
                out.add(e.args[-1].id)
        elif isinstance(st, cp.If):
            out |= _written_names(st.then) | _written_names(st.orelse or [])
        elif isinstance(st, (cp.For, cp.While)):
            out |= _written_names(st.body)
    return out


def out_params(func: cp.Func) -> list[str]:
    """The trailing parameters the function writes through (pointer or reference)."""
    written = _written_names(func.body or [])
    outs: list[str] = []
    for p in reversed(func.params):
        if p.ctype.is_out_capable and p.name in written:
            outs.insert(0, p.name)
        else:
            break
    return outs


class _TemplateArgsFirst(ast.NodeTransformer):
    """`F<A, B>(x)` -> `F(A, B, x)` for the op's own function templates (Python has none)."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.changed = False

    def apply(self, node: ast.AST) -> ast.AST | None:
        self.changed = False
        out = self.visit(copy.deepcopy(node))
        return out if self.changed else None

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node.args = [Braced([self.visit(e) for e in a.elts], ast.Load())
                     if isinstance(a, cp.InitList) else a for a in node.args]
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Subscript) and isinstance(f.value, ast.Name) and \
                f.value.id in self.names:
            targs = f.slice.elts if isinstance(f.slice, (ast.Tuple, ast.List)) else [f.slice]
            self.changed = True
            return ast.Call(f.value, [*targs, *node.args], node.keywords)
        return node


class _Converter:
    def __init__(self, ctx: CppContext, path: str) -> None:
        self.ctx = ctx
        self.path = path
        self.items: list[Item] = []

    def add(self, kind: str, key: object, line: int, end: int | None = None,
            alts: tuple = ()) -> None:
        if isinstance(key, ast.AST):
            key = canonical(key)
            alts = tuple(canonical(copy.deepcopy(a)) for a in alts)
            if self.ctx.function_templates:
                rewrite = _TemplateArgsFirst(self.ctx.function_templates)
                alts += tuple(r for r in (rewrite.apply(k) for k in (key, *alts)) if r is not None)
        self.items.append(make_item(kind, key, self.path, line, (line, end or line), alts))

    # ---- declarations ----
    def decls(self, decls: list, scope: _Scope) -> None:
        for d in decls:
            if isinstance(d, cp.Namespace):
                self.decls(d.body, scope)
            elif isinstance(d, cp.ClassDef):
                self.class_def(d)
            elif isinstance(d, cp.Func):
                self.function(d, None)
            elif isinstance(d, cp.Define):
                value = copy.deepcopy(d.value)  # the parse tree is cached: never mutate it
                self.add("stmt", ast.Assign([ast.Name(d.name, ast.Store())], value), d.line)
            elif isinstance(d, cp.EnumDef):
                self.enum(d)
            else:
                self.statement(d, scope)

    def enum(self, e: cp.EnumDef) -> None:
        """`enum E { A = 0, B };` is `class E: A = 0; B = 1`; the enumerators of an unscoped
        enum are also names of the enclosing scope: `A, B = E.A, E.B`."""
        self.add("class", f"class {e.name}", e.line)
        prev: ast.expr | None = None
        for name, value, line in e.values:
            if value is None:
                if prev is None:
                    value = ast.Constant(0)
                elif isinstance(prev, ast.Constant) and isinstance(prev.value, int):
                    value = ast.Constant(prev.value + 1)
                else:
                    value = ast.BinOp(prev, ast.Add(), ast.Constant(1))
            else:
                value = self.expr(value, _Scope(self.ctx, None, {}, []))
            self.add("stmt", ast.Assign([ast.Name(name, ast.Store())], value), line)
            prev = value
        if not e.scoped and e.name:
            names = [ast.Name(n, ast.Load()) for n, _, _ in e.values]
            values = [ast.Attribute(ast.Name(e.name, ast.Load()), n, ast.Load())
                      for n, _, _ in e.values]
            self.add("stmt", ast.Assign([ast.List(names, ast.Store())],
                                        ast.List(values, ast.Load())), e.end_line)

    def class_def(self, c: cp.ClassDef) -> None:
        info = self.ctx.classes[c.name]
        funcs = [m for m in c.members if isinstance(m, cp.Func)]
        scope = _Scope(self.ctx, info, {}, [])
        if not funcs and not info.methods and not info.has_ctor:
            # a plain struct (a tiling struct): its fields, in order
            self.add("class", f"class {c.name}", c.line)
            for d in info.field_decls:
                dims = "".join(f"[{ast.unparse(canonical(copy.deepcopy(x)))}]"
                               for x in d.ctype.dims)
                t = ast.unparse(canonical(copy.deepcopy(d.ctype.expr))) if d.ctype.expr \
                    else "void"
                self.add("field", f"field {d.name}: {t}{dims}", d.line)
            return
        key = f"class {c.name}"
        if c.template_params:
            key += f"[{', '.join(c.template_params)}]"
        if c.bases:
            key += f"({', '.join(_base_name(b) for b in c.bases)})"
        self.add("class", key, c.line)
        if not info.has_ctor and info.field_decls:  # the implicit constructor sets the fields
            first = info.field_decls[0].line if info.field_decls else c.line
            self.add("def", f"def {c.name}.__init__()", first)
            self.fields_init(info, {}, scope)
        for m in c.members:
            if isinstance(m, cp.Func):
                self.function(m, info)
            elif isinstance(m, cp.VarDecl) and m.static:
                self.statement(m, scope)
            elif isinstance(m, cp.Raw):
                self.add("raw", m.text, m.line, m.end_line)
            elif isinstance(m, cp.ClassDef):
                self.class_def(m)

    def fields_init(self, info: ClassInfo, inits: dict[str, tuple[list[ast.expr], int]],
                    scope: _Scope) -> None:
        for d in info.field_decls:
            target = ast.Attribute(ast.Name("self", ast.Load()), d.name, ast.Store())
            if d.name in inits:
                args, line = inits[d.name]
                decl = cp.VarDecl(d.ctype, d.name, "()" if len(args) != 1 else "=",
                                  args if len(args) != 1 else args[0], line, line)
            else:
                decl, line = d, d.line
            value = self.decl_value(decl, scope)
            self.add("stmt", ast.Assign([target], value), line, decl.end_line)

    def function(self, f: cp.Func, owner: ClassInfo | None) -> None:
        if f.body is None or f.is_dtor:
            return
        cls = owner
        if cls is None and len(f.name_parts) >= 2:
            cls = self.ctx.classes.get(f.name_parts[-2])
        name = f.name_parts[-1]
        qual = f"{cls.name}.{name}" if cls else name
        outs = out_params(f)
        params = {p.name: p.ctype for p in f.params}
        scope = _Scope(self.ctx, cls, params, outs)
        names = [p.name for p in f.params if p.name != "..."]
        # out-parameters may become return values; a function template's parameters may
        # become leading parameters
        prefixes = [[], f.template_params] if f.template_params and cls is None else [[]]
        forms = [f"def {qual}({', '.join(pre + names[:len(names) - k])})"
                 for pre in prefixes for k in range(len(outs) + 1)]
        self.add("def", forms[0], f.line, alts=tuple(forms[1:]))
        if f.is_ctor and cls is not None:
            inits: dict[str, tuple[list[ast.expr], int]] = {}
            for mname, args, line in f.mem_inits:
                if mname in cls.fields:
                    inits[mname] = (args, line)
                else:  # the base class constructor
                    ex = _Expr(scope)
                    call = ast.Call(ast.Name(mname, ast.Load()), [ex.visit(a) for a in args], [])
                    self.add("stmt", ast.Expr(call), line)
            self.fields_init(cls, inits, scope)
        for st in f.body:
            self.statement(st, scope)
        if outs and not (f.body and isinstance(f.body[-1], cp.Return)):
            # the out-parameters' values leave a Python function by its return
            names_out = [ast.Name(n, ast.Load()) for n in outs]
            value = names_out[0] if len(names_out) == 1 else ast.List(names_out, ast.Load())
            self.add("stmt", ast.Return(value), f.end_line)

    # ---- statements ----
    def expr(self, node: ast.expr, scope: _Scope) -> ast.expr:
        return _Expr(scope).visit(copy.deepcopy(node))

    def decl_value(self, d: cp.VarDecl, scope: _Scope) -> ast.expr:
        ct = d.ctype
        type_expr = self.expr(ct.expr, scope) if ct.expr is not None else None
        container = ct.name in _CONTAINERS or bool(ct.dims)
        if d.init_kind is None:
            if ct.name in _CONTAINERS and not ct.dims:
                return ast.List([], ast.Load())
            if ct.dims or ct.pointer or ct.name in cp.SCALAR_NAMES or type_expr is None:
                return ast.Name(UNINIT, ast.Load())
            return ast.Call(type_expr, [], [])
        if d.init_kind == "=" and not isinstance(d.init, cp.InitList):
            return self.expr(d.init, scope)
        args = d.init.elts if isinstance(d.init, cp.InitList) else d.init
        args = [self.expr(a, scope) for a in args]
        if container or (d.init_kind == "=" and ct.name == "auto"):
            return ast.List(args, ast.Load())
        if ct.name == "auto" and len(args) == 1:
            return args[0]
        if type_expr is None or (ct.name in cp.SCALAR_NAMES and len(args) == 1):
            return args[0] if args else ast.Name(UNINIT, ast.Load())
        return ast.Call(type_expr, args, [])

    def statement(self, st: object, scope: _Scope) -> None:
        if isinstance(st, cp.VarDecl):
            value = self.decl_value(st, scope)
            ct = st.ctype
            if ct.name == "auto" and st.init_kind == "=" and not isinstance(st.init, cp.InitList):
                inferred = _Expr(scope).type_of(value)
                ct = cp.CType(ct.expr, inferred or "auto")
            target = ast.Name(st.name, ast.Store())
            scope.locals[st.name] = ct
            self.add("stmt", ast.Assign([target], value), st.line, st.end_line)
        elif isinstance(st, cp.ExprStmt):
            self.expr_statement(st, scope)
        elif isinstance(st, cp.Return):
            value = self.expr(st.value, scope) if st.value is not None else None
            alts: tuple = ()
            if scope.outs:
                outs = [ast.Name(n, ast.Load()) for n in scope.outs]
                alts = (ast.Return(outs[0] if len(outs) == 1 else ast.List(outs, ast.Load())),)
            self.add("stmt", ast.Return(value), st.line, st.end_line, alts)
        elif isinstance(st, cp.Jump):
            self.add("stmt", ast.Break() if st.kind == "break" else ast.Continue(), st.line)
        elif isinstance(st, cp.If):
            self.if_chain(st, scope)
        elif isinstance(st, cp.For):
            self.for_loop(st, scope)
        elif isinstance(st, cp.While):
            self.add("while", ast.While(self.expr(st.cond, scope), [], []), st.line)
            for s in st.body:
                self.statement(s, scope)
            self.add("end", "while", st.end_line)
        elif isinstance(st, cp.Raw):
            self.add("raw", st.text, st.line, st.end_line)
        elif isinstance(st, cp.Define):
            value = copy.deepcopy(st.value)
            self.add("stmt", ast.Assign([ast.Name(st.name, ast.Store())], value), st.line)
        elif isinstance(st, (cp.Func, cp.ClassDef, cp.Namespace)):
            self.decls([st], scope)

    def expr_statement(self, st: cp.ExprStmt, scope: _Scope) -> None:
        e = st.expr
        line, end = st.line, st.end_line
        if isinstance(e, cp.CAssign):
            target = self.expr(e.target, scope)
            value = self.expr(e.value, scope)
            node = ast.Assign([target], value) if e.op is None else \
                ast.AugAssign(target, e.op, value)
            self.add("stmt", node, line, end)
            return
        if isinstance(e, cp.CIncr):
            target = self.expr(e.target, scope)
            op = ast.Add() if e.delta > 0 else ast.Sub()
            self.add("stmt", ast.AugAssign(target, op, ast.Constant(1)), line, end)
            return
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
                e.func.id in _TILING_MACROS:
            k = _TILING_MACROS[e.func.id]
            if len(e.args) > k and isinstance(e.args[k], ast.Name):
                rest = [self.expr(a, scope) for i, a in enumerate(e.args) if i != k]
                call = ast.Call(ast.Name(e.func.id, ast.Load()), rest, [])
                scope.locals[e.args[k].id] = cp.CType(None, "tiling")
                self.add("stmt", ast.Assign([ast.Name(e.args[k].id, ast.Store())], call),
                         line, end)
                return
        call = self.expr(e, scope)
        alts: list[ast.AST] = []
        if isinstance(call, ast.Call) and call.args:
            callee = call.func.attr if isinstance(call.func, ast.Attribute) else \
                call.func.id if isinstance(call.func, ast.Name) else ""
            for k in (1, 2):
                if k > len(call.args):
                    break
                tail = e.args[-k:]
                if all(self._is_out_arg(a, scope, callee, k) for a in tail):
                    targets = list(call.args[-k:])
                    tgt = targets[0] if k == 1 else ast.List(targets, ast.Store())
                    shorter = ast.Call(call.func, call.args[:-k], [])
                    alts.append(ast.Assign([tgt], shorter))
        self.add("stmt", ast.Expr(call), line, end, tuple(alts))

    def _is_out_arg(self, arg: ast.expr, scope: _Scope, callee: str, k: int) -> bool:
        if getattr(arg, "addr", False) and _lvalue(arg):
            return True
        if k == 1 and callee in _OUT_CALLS and _lvalue(arg):
            return True
        if isinstance(arg, ast.Name):
            t = scope.params.get(arg.id)
            return t is not None and t.is_out_capable and arg.id in scope.outs
        return False

    def if_chain(self, st: cp.If, scope: _Scope) -> None:
        kind = "if"
        cur: cp.If | None = st
        while cur is not None:
            self.add(kind, ast.If(self.expr(cur.cond, scope), [], []), cur.line)
            for s in cur.then:
                self.statement(s, scope)
            orelse, else_line = cur.orelse, cur.else_line
            cur = None
            if orelse:
                if len(orelse) == 1 and isinstance(orelse[0], cp.If):
                    cur, kind = orelse[0], "elif"
                else:
                    self.add("else", "else", else_line)
                    for s in orelse:
                        self.statement(s, scope)
        self.add("end", "if", st.end_line)

    def for_loop(self, st: cp.For, scope: _Scope) -> None:
        if st.range_target is not None:
            scope.locals[st.range_target] = cp.CType(None, "auto")
            node = ast.For(ast.Name(st.range_target, ast.Store()),
                           self.expr(st.range_iter, scope), [], [])
            self.add("for", node, st.line)
        else:
            rng = self.as_range(st, scope)
            if rng is None:
                for s in st.init:
                    self.statement(s, scope)
                cond = self.expr(st.cond, scope) if st.cond is not None else ast.Constant(True)
                self.add("while", ast.While(cond, [], []), st.line)
                for s in st.body:
                    self.statement(s, scope)
                for e in st.step:
                    self.expr_statement(cp.ExprStmt(e, st.line, st.line), scope)
                self.add("end", "while", st.end_line)
                return
            self.add("for", rng, st.line)
        for s in st.body:
            self.statement(s, scope)
        self.add("end", "for", st.end_line)

    def as_range(self, st: cp.For, scope: _Scope) -> ast.For | None:
        """`for (T i = a; i < b; i++)` as `for i in range(a, b)`, or None."""
        if len(st.init) != 1 or st.cond is None or len(st.step) != 1:
            return None
        init = st.init[0]
        if isinstance(init, cp.VarDecl) and init.init_kind == "=":
            var, start, ct = init.name, init.init, init.ctype
        elif isinstance(init, cp.ExprStmt) and isinstance(init.expr, cp.CAssign) and \
                init.expr.op is None and isinstance(init.expr.target, ast.Name):
            var, start, ct = init.expr.target.id, init.expr.value, None
        else:
            return None
        cond, step = st.cond, st.step[0]
        if not (isinstance(cond, ast.Compare) and isinstance(cond.left, ast.Name)
                and cond.left.id == var and len(cond.ops) == 1):
            return None
        if isinstance(step, cp.CIncr) and isinstance(step.target, ast.Name) and \
                step.target.id == var:
            delta: ast.expr = ast.Constant(step.delta)
            sign = step.delta
        elif isinstance(step, cp.CAssign) and isinstance(step.target, ast.Name) and \
                step.target.id == var and isinstance(step.op, (ast.Add, ast.Sub)):
            delta = step.value if isinstance(step.op, ast.Add) else \
                ast.UnaryOp(ast.USub(), step.value)
            sign = -1 if isinstance(step.op, ast.Sub) else 1
        else:
            return None
        if ct is not None:
            scope.locals[var] = ct
        start_e = self.expr(start, scope)
        bound = self.expr(cond.comparators[0], scope)
        op = cond.ops[0]
        if isinstance(op, ast.Lt) and sign > 0 or isinstance(op, ast.Gt) and sign < 0:
            stop = bound
        elif isinstance(op, ast.LtE) and sign > 0:
            stop = _plus(bound, 1)
        elif isinstance(op, ast.GtE) and sign < 0:
            stop = _plus(bound, -1)
        else:
            return None
        args = [start_e, stop]
        if not (isinstance(delta, ast.Constant) and delta.value == 1):
            args.append(delta if not isinstance(delta, ast.Constant) else
                        (ast.Constant(delta.value) if delta.value >= 0 else
                         ast.UnaryOp(ast.USub(), ast.Constant(-delta.value))))
        call = ast.Call(ast.Name("range", ast.Load()), args, [])
        return ast.For(ast.Name(var, ast.Store()), call, [], [])


def _plus(node: ast.expr, k: int) -> ast.expr:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        v = node.value + k
        return ast.Constant(v) if v >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-v))
    return ast.BinOp(node, ast.Add() if k > 0 else ast.Sub(), ast.Constant(abs(k)))


def convert_cpp(tree: list, path: str, ctx: CppContext) -> list[Item]:
    """The statement items of one parsed C++ file."""
    conv = _Converter(ctx, path)
    conv.decls(tree, _Scope(ctx, None, {}, []))
    return conv.items
