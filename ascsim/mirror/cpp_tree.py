"""The tree the C++ parser builds, and the C++ vocabulary it needs.

Expressions are Python `ast` nodes, so that the two sides of the mirror check compare as one
language; the few C++ expressions Python lacks (`x = y` and `x++` inside expressions, braced
lists) have node classes here. Declarations and statements are small dataclasses.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..errors import ParseError

__all__ = ["ParseError", "CAssign", "CIncr", "InitList", "CType", "Param", "Func", "VarDecl",
           "ClassDef", "ExprStmt", "If", "For", "While", "Return", "Jump", "Raw", "Define",
           "EnumDef", "Namespace", "SCALAR_NAMES"]


# ---- expression nodes that Python's ast lacks --------------------------------------------------

class CAssign(ast.expr):
    """`target op= value` used as an expression (op is None for plain `=`)."""

    _fields = ("target", "op", "value")


class CIncr(ast.expr):
    """`x++` / `--x`: delta is +1 or -1."""

    _fields = ("target", "delta")


class InitList(ast.expr):
    """A braced list `{a, b}`."""

    _fields = ("elts",)


# ---- the tree ----------------------------------------------------------------------------------

@dataclass
class CType:
    expr: ast.expr | None      # the type as an expression (None for void)
    name: str                  # the last identifier or the canonical scalar name
    const: bool = False
    pointer: int = 0
    ref: bool = False
    builtin: bool = False      # spelled with C++ keywords (int, unsigned, float, ...)
    qualified: bool = False    # qualifiers, templates or `::` make it unmistakably a type
    dims: list[ast.expr] = field(default_factory=list)

    @property
    def is_out_capable(self) -> bool:
        """A non-const pointer or reference: a parameter through which a callee can write."""
        return (self.pointer > 0 or self.ref) and not self.const


@dataclass
class Param:
    ctype: CType
    name: str
    line: int


@dataclass
class Func:
    name_parts: list[str]
    params: list[Param]
    body: list | None
    line: int
    end_line: int
    ret: CType | None
    is_ctor: bool = False
    mem_inits: list[tuple[str, list[ast.expr], int]] = field(default_factory=list)
    template_params: list[str] = field(default_factory=list)
    is_dtor: bool = False


@dataclass
class VarDecl:
    ctype: CType
    name: str
    init_kind: str | None        # "=", "{}", "()" or None
    init: object                 # ast.expr for "=", list[ast.expr] for "{}" / "()"
    line: int
    end_line: int
    static: bool = False
    constexpr: bool = False


@dataclass
class ClassDef:
    name: str
    template_params: list[str]
    bases: list[ast.expr]
    members: list
    line: int
    end_line: int


@dataclass
class ExprStmt:
    expr: ast.expr
    line: int
    end_line: int


@dataclass
class If:
    cond: ast.expr
    then: list
    orelse: list | None
    line: int
    else_line: int
    end_line: int


@dataclass
class For:
    init: list
    cond: ast.expr | None
    step: list[ast.expr]
    body: list
    line: int
    end_line: int
    range_target: str | None = None
    range_iter: ast.expr | None = None


@dataclass
class While:
    cond: ast.expr
    body: list
    line: int
    end_line: int


@dataclass
class Return:
    value: ast.expr | None
    line: int
    end_line: int


@dataclass
class Jump:
    kind: str   # "break" or "continue"
    line: int


@dataclass
class Raw:
    text: str
    line: int
    end_line: int


@dataclass
class Define:
    name: str
    value: ast.expr
    line: int


@dataclass
class EnumDef:
    name: str
    scoped: bool                                   # enum class
    values: list[tuple[str, ast.expr | None, int]]  # (enumerator, value, line)
    line: int
    end_line: int


@dataclass
class Namespace:
    name: str
    body: list
    line: int


# ---- vocabulary --------------------------------------------------------------------------------

_QUALIFIERS = {"const", "volatile", "constexpr", "static", "inline", "extern", "mutable",
               "explicit", "virtual", "friend", "thread_local", "register", "__aicore__",
               "__gm__", "__global__", "__inline__", "__forceinline__", "typename", "consteval",
               "constinit", "__ubuf__"}
_BUILTIN_WORDS = {"void", "bool", "char", "short", "int", "long", "float", "double", "signed",
                  "unsigned", "wchar_t", "char16_t", "char32_t", "auto"}
_KEYWORDS = {"return", "if", "else", "for", "while", "do", "switch", "case", "default", "break",
             "continue", "goto", "try", "catch", "throw", "new", "delete", "using", "typedef",
             "template", "namespace", "public", "private", "protected", "static_assert",
             "sizeof", "this", "true", "false", "nullptr", "operator", "static_cast",
             "reinterpret_cast", "const_cast", "dynamic_cast", "class", "struct", "union",
             "enum", "alignof", "decltype", "noexcept", "co_return", "co_await", "co_yield"}
_CASTS = {"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"}
# Templates that are recognised in expressions even when no `(` follows their arguments.
_VALUE_TEMPLATES = {"is_same_v", "is_same", "is_integral_v", "is_floating_point_v",
                    "is_signed_v", "is_unsigned_v", "numeric_limits", "conditional_t",
                    "enable_if_t", "is_arithmetic_v"}

# Canonical names of the C++ scalar spellings.
_BUILTIN_CANON = {
    ("void",): "void", ("bool",): "bool", ("char",): "int8_t", ("signed", "char"): "int8_t",
    ("unsigned", "char"): "uint8_t", ("short",): "int16_t", ("short", "int"): "int16_t",
    ("unsigned", "short"): "uint16_t", ("unsigned", "short", "int"): "uint16_t",
    ("int",): "int32_t", ("signed",): "int32_t", ("signed", "int"): "int32_t",
    ("unsigned",): "uint32_t", ("unsigned", "int"): "uint32_t", ("long",): "int64_t",
    ("long", "int"): "int64_t", ("long", "long"): "int64_t", ("long", "long", "int"): "int64_t",
    ("unsigned", "long"): "uint64_t", ("unsigned", "long", "int"): "uint64_t",
    ("unsigned", "long", "long"): "uint64_t", ("unsigned", "long", "long", "int"): "uint64_t",
    ("float",): "float", ("double",): "double", ("long", "double"): "double", ("auto",): "auto",
}
SCALAR_NAMES = {"bool", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t",
                "int64_t", "uint64_t", "size_t", "float", "double", "half", "bfloat16_t",
                "event_t", "pipe_t", "ssize_t", "ptrdiff_t", "uintptr_t", "intptr_t"}

_ASSIGN_OPS = {"=": None, "+=": ast.Add, "-=": ast.Sub, "*=": ast.Mult, "/=": ast.Div,
               "%=": ast.Mod, "&=": ast.BitAnd, "|=": ast.BitOr, "^=": ast.BitXor,
               "<<=": ast.LShift, ">>=": ast.RShift}
_BINARY = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7, "<=": 7,
           ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}
_BINOP = {"|": ast.BitOr, "^": ast.BitXor, "&": ast.BitAnd, "<<": ast.LShift, ">>": ast.RShift,
          "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "%": ast.Mod}
_CMPOP = {"==": ast.Eq, "!=": ast.NotEq, "<": ast.Lt, ">": ast.Gt, "<=": ast.LtE, ">=": ast.GtE}
_TEMPLATE_ARG_MIN_PREC = 9  # constant template arguments: additive and tighter only
_EXPR_START_OPS = {"(", "!", "~", "-", "+", "*", "&", "++", "--", "::", "{"}


def _scoped(value: ast.expr, attr: str) -> ast.Attribute:
    node = ast.Attribute(value=value, attr=attr, ctx=ast.Load())
    node.scoped = True  # written `value::attr`
    return node


def _number(text: str) -> ast.Constant:
    t = text.replace("'", "")
    low = t.lower()
    if low.startswith("0x"):
        return ast.Constant(int(low.rstrip("ul"), 16))
    if low.startswith("0b"):
        return ast.Constant(int(low[2:].rstrip("ul"), 2))
    is_float = any(c in low for c in ".e") or (low.endswith("f") and not low.startswith("0x"))
    if is_float:
        return ast.Constant(float(low.rstrip("fl")))
    digits = low.rstrip("ul")
    if len(digits) > 1 and digits.startswith("0"):
        return ast.Constant(int(digits, 8))
    return ast.Constant(int(digits))


def _string(text: str) -> str:
    body = text[text.index(text[-1]):]
    try:
        return ast.literal_eval(body if body[0] == '"' else '"' + body[1:-1] + '"')
    except (ValueError, SyntaxError):
        return body[1:-1]
