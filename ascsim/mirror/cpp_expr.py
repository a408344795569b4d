"""Expressions, types and template arguments of C++ (the first half of the C++ parser).

`a::b` becomes an `ast.Attribute` marked `scoped`; `*p` and `&x` drop the operator (marking
`&x` as `addr`); C casts and `static_cast<T>(x)` keep only the operand; `f<T>(x)` is
`f[T](x)`. A `<` after a name is read as template arguments only when what follows settles it
(`(`, `::` or `{`, or a known template), so `a < b` stays a comparison.
"""

from __future__ import annotations

import ast

from .cpp_lex import Token
from .cpp_tree import (
    _ASSIGN_OPS,
    _BINARY,
    _BINOP,
    _BUILTIN_CANON,
    _BUILTIN_WORDS,
    _CASTS,
    _CMPOP,
    _EXPR_START_OPS,
    _KEYWORDS,
    _QUALIFIERS,
    _TEMPLATE_ARG_MIN_PREC,
    _VALUE_TEMPLATES,
    CAssign,
    CIncr,
    CType,
    InitList,
    ParseError,
    _number,
    _scoped,
    _string,
)

__all__ = ["ExprParser"]


class ExprParser:
    """Token helpers, types and expressions; cpp_parse adds declarations and statements."""

    def __init__(self, tokens: list[Token], known_types: set[str]) -> None:
        self.toks = tokens
        self.i = 0
        self.known_types = known_types
        self.template_names: set[str] = set()

    # ---- token helpers ----
    def peek(self, k: int = 0) -> Token:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Token:
        t = self.toks[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def at(self, text: str, k: int = 0) -> bool:
        t = self.peek(k)
        return t.text == text and t.kind in ("op", "id")

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.i += 1
            return True
        return False

    def expect(self, text: str) -> Token:
        t = self.peek()
        if not (t.text == text and t.kind in ("op", "id")):
            raise ParseError(f"line {t.line}: expected {text!r}, found {t.text!r}")
        return self.next()

    def split_shift(self) -> None:
        """Turn a `>>` that closes two template lists into `>` `>`."""
        t = self.peek()
        if t.text == ">>":
            self.toks[self.i:self.i + 1] = [Token("op", ">", t.line), Token("op", ">", t.line)]

    def skip_balanced(self) -> int:
        """Skip a bracketed group starting at the current token; returns its last line."""
        opening = self.next()
        pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
        close = pairs[opening.text]
        depth = 1
        while depth:
            t = self.next()
            if t.kind == "eof":
                raise ParseError(f"line {opening.line}: unbalanced {opening.text!r}")
            if t.kind == "op" and t.text == opening.text:
                depth += 1
            elif t.kind == "op" and t.text == close:
                depth -= 1
        return t.line

    def skip_to_semicolon(self) -> int:
        while True:
            t = self.peek()
            if t.kind == "eof":
                return t.line
            if t.kind == "op" and t.text in "([{":
                self.skip_balanced()
                continue
            self.next()
            if t.kind == "op" and t.text == ";":
                return t.line

    def skip_attributes(self) -> None:
        while True:
            if self.at("[") and self.at("[", 1):
                self.skip_balanced()
            elif self.peek().text in ("__attribute__", "alignas", "__declspec"):
                self.next()
                self.skip_balanced()
            else:
                return

    # ---- types ----
    def parse_type(self) -> CType | None:
        """A type at the current position, or None (position unchanged)."""
        start = self.i
        const = qualified = False
        while True:
            self.skip_attributes()
            t = self.peek()
            if t.kind == "id" and t.text in _QUALIFIERS:
                const |= t.text == "const"
                qualified |= t.text not in ("static", "inline", "typename")
                self.next()
                if t.text == "extern" and self.peek().kind == "str":
                    self.next()
                continue
            break
        t = self.peek()
        builtin = False
        if t.kind == "id" and t.text in _BUILTIN_WORDS:
            words = []
            while self.peek().kind == "id" and self.peek().text in _BUILTIN_WORDS | {"const"}:
                w = self.next().text
                if w == "const":
                    const = True
                else:
                    words.append(w)
            name = _BUILTIN_CANON.get(tuple(words), " ".join(words))
            expr: ast.expr | None = None if name == "void" else ast.Name(name, ast.Load())
            builtin = qualified = True
        elif t.kind == "id" and t.text == "decltype":
            self.next()
            self.skip_balanced()
            name, expr, qualified = "auto", ast.Name("auto", ast.Load()), True
        elif (t.kind == "id" and t.text not in _KEYWORDS) or (t.text == "::" and t.kind == "op"):
            got = self.parse_qualified_name(in_type=True)
            if got is None:
                self.i = start
                return None
            expr, name, q = got
            qualified |= q
        else:
            self.i = start
            return None
        pointer, ref = 0, False
        while True:
            t = self.peek()
            if t.kind == "id" and t.text in ("const", "volatile", "__gm__", "__restrict__",
                                             "__restrict", "restrict"):
                const |= t.text == "const" and pointer == 0
                self.next()
            elif t.kind == "op" and t.text == "*":
                pointer += 1
                const = False  # `const T *p`: the pointer itself is writable, the pointee not
                self.next()
            elif t.kind == "op" and t.text in ("&", "&&"):
                ref = True
                self.next()
            else:
                break
        # `const T *p` is a pointer to const: record constness of the pointee for out-params
        if pointer:
            const = self._pointee_const(start)
        return CType(expr, name, const, pointer, ref, builtin,
                     qualified or pointer > 0 or ref or name in self.known_types)

    def _pointee_const(self, start: int) -> bool:
        # the first `*` after `start`; const anywhere before it qualifies the pointee
        for tok in self.toks[start:self.i]:
            if tok.text == "*":
                return False
            if tok.text == "const":
                return True
        return False

    def parse_qualified_name(self, in_type: bool) -> tuple[ast.expr, str, bool] | None:
        """`a::b<T>::c` as an expression; (expr, last identifier, had `::` or template args)."""
        qualified = False
        if self.at("::"):
            self.next()
            qualified = True
        t = self.peek()
        if t.kind != "id" or t.text in _KEYWORDS - {"operator"}:
            return None
        self.next()
        expr: ast.expr = ast.Name(t.text, ast.Load())
        name = t.text
        while True:
            if self.at("<"):
                args = self.parse_template_args(strict=not in_type)
                if args is None:
                    if in_type:
                        return None
                    break
                expr = ast.Subscript(expr, args[0] if len(args) == 1 else
                                     ast.Tuple(args, ast.Load()), ast.Load())
                qualified = True
            if self.at("::") and self.peek(1).kind == "id":
                self.next()
                name = self.next().text
                if name == "template" and self.peek().kind == "id":
                    name = self.next().text
                expr = _scoped(expr, name)
                qualified = True
                continue
            break
        return expr, name, qualified

    def parse_template_args(self, strict: bool) -> list[ast.expr] | None:
        """`<...>` at the current position, or None (position unchanged). In expressions
        (strict) the list must be followed by `(`, `::` or `{`, unless the name before it is a
        known template."""
        start = self.i
        name_before = self.toks[self.i - 1].text if self.i else ""
        self.expect("<")
        args: list[ast.expr] = []
        try:
            if self.at(">"):
                self.next()
            else:
                while True:
                    args.append(self.parse_template_arg())
                    self.split_shift()
                    if self.accept(","):
                        continue
                    self.expect(">")
                    break
        except ParseError:
            self.i = start
            return None
        if strict:
            follows = self.peek()
            ok = (follows.kind == "op" and follows.text in ("(", "::", "{")) or \
                name_before in _VALUE_TEMPLATES or name_before in self.template_names
            if not ok:
                self.i = start
                return None
        return args

    def parse_template_arg(self) -> ast.expr:
        start = self.i
        ct = self.parse_type()
        if ct is not None:
            self.split_shift()
            if self.peek().text in (",", ">") and self.peek().kind == "op":
                return ct.expr if ct.expr is not None else ast.Name("void", ast.Load())
        self.i = start
        return self.parse_binary(_TEMPLATE_ARG_MIN_PREC)

    # ---- expressions ----
    def parse_expression(self) -> ast.expr:
        return self.parse_assignment()

    def parse_assignment(self) -> ast.expr:
        left = self.parse_conditional()
        t = self.peek()
        if t.kind == "op" and t.text in _ASSIGN_OPS:
            self.next()
            op = _ASSIGN_OPS[t.text]
            return CAssign(target=left, op=op() if op else None, value=self.parse_assignment())
        return left

    def parse_conditional(self) -> ast.expr:
        cond = self.parse_binary(1)
        if self.accept("?"):
            body = self.parse_assignment()
            self.expect(":")
            orelse = self.parse_assignment()
            return ast.IfExp(test=cond, body=body, orelse=orelse)
        return cond

    def parse_binary(self, min_prec: int) -> ast.expr:
        left = self.parse_unary()
        while True:
            t = self.peek()
            prec = _BINARY.get(t.text) if t.kind == "op" else None
            if prec is None or prec < min_prec:
                return left
            if min_prec >= _TEMPLATE_ARG_MIN_PREC and t.text in (">", ">>"):
                return left
            self.next()
            right = self.parse_binary(prec + 1)
            if t.text in ("&&", "||"):
                left = ast.BoolOp(op=ast.And() if t.text == "&&" else ast.Or(),
                                  values=[left, right])
            elif t.text in _CMPOP:
                left = ast.Compare(left=left, ops=[_CMPOP[t.text]()], comparators=[right])
            else:
                left = ast.BinOp(left=left, op=_BINOP[t.text](), right=right)

    def parse_unary(self) -> ast.expr:
        t = self.peek()
        if t.kind == "op":
            if t.text in ("-", "+", "!", "~"):
                self.next()
                operand = self.parse_unary()
                op = {"-": ast.USub, "+": ast.UAdd, "!": ast.Not, "~": ast.Invert}[t.text]()
                return ast.UnaryOp(op=op, operand=operand)
            if t.text == "*":
                self.next()
                return self.parse_unary()  # dereference: Python has no pointers
            if t.text == "&":
                self.next()
                operand = self.parse_unary()
                operand.addr = True  # address-of: the callee may write through it
                return operand
            if t.text in ("++", "--"):
                self.next()
                return CIncr(target=self.parse_unary(), delta=1 if t.text == "++" else -1)
            if t.text == "(":
                cast = self.try_cast()
                if cast is not None:
                    return cast
        if t.kind == "id" and t.text in ("sizeof", "alignof"):
            self.next()
            if self.at("("):
                start = self.i
                self.next()
                ct = self.parse_type()
                if ct is not None and self.at(")"):
                    self.next()
                    arg = ct.expr if ct.expr is not None else ast.Name("void", ast.Load())
                else:
                    self.i = start
                    self.next()
                    arg = self.parse_expression()
                    self.expect(")")
            else:
                arg = self.parse_unary()
            return ast.Call(func=ast.Name(t.text, ast.Load()), args=[arg], keywords=[])
        return self.parse_postfix(self.parse_primary())

    def try_cast(self) -> ast.expr | None:
        """`(T)x` / `(__gm__ T *)x`: the operand (C casts are dropped), or None."""
        start = self.i
        self.next()
        ct = self.parse_type()
        if ct is None or not self.at(")") or not ct.qualified:
            self.i = start
            return None
        self.next()
        nxt = self.peek()
        starts_expr = nxt.kind in ("id", "num", "str", "chr") or (
            nxt.kind == "op" and nxt.text in _EXPR_START_OPS)
        if not starts_expr or (nxt.kind == "id" and nxt.text in ("else",)):
            self.i = start
            return None
        return self.parse_unary()

    def parse_primary(self) -> ast.expr:
        t = self.peek()
        if t.kind == "num":
            self.next()
            return _number(t.text)
        if t.kind == "str":
            text = ""
            while self.peek().kind == "str":
                text += _string(self.next().text)
            return ast.Constant(text)
        if t.kind == "chr":
            self.next()
            return ast.Constant(_string(t.text))
        if t.kind == "op":
            if t.text == "(":
                self.next()
                inner = self.parse_expression()
                self.expect(")")
                return inner
            if t.text == "{":
                return InitList(elts=self.parse_braced())
            if t.text == "[":  # a lambda: not mirrored, kept visible
                line = t.line
                self.skip_balanced()
                if self.at("("):
                    self.skip_balanced()
                while not self.at("{") and self.peek().kind != "eof":
                    self.next()
                self.skip_balanced()
                return ast.Name(f"__lambda_line_{line}__", ast.Load())
            if t.text == "::":
                got = self.parse_qualified_name(in_type=False)
                if got is not None:
                    return got[0]
        if t.kind == "id":
            if t.text in _CASTS:
                self.next()
                self.expect("<")
                if self.parse_type() is None:
                    raise ParseError(f"line {t.line}: expected a type in {t.text}")
                self.split_shift()
                self.expect(">")
                self.expect("(")
                inner = self.parse_expression()
                self.expect(")")
                return inner
            if t.text in ("true", "false"):
                self.next()
                return ast.Constant(t.text == "true")
            if t.text in ("nullptr", "NULL"):
                self.next()
                return ast.Constant(None)
            if t.text == "this":
                self.next()
                node = ast.Name("self", ast.Load())
                node.this = True
                return node
            if t.text in _BUILTIN_WORDS and self.peek(1).text == "(":
                self.next()
                return ast.Name(_BUILTIN_CANON.get((t.text,), t.text), ast.Load())
            if t.text not in _KEYWORDS:
                got = self.parse_qualified_name(in_type=False)
                if got is not None:
                    return got[0]
        raise ParseError(f"line {t.line}: unexpected {t.text!r} in an expression")

    def parse_braced(self) -> list[ast.expr]:
        self.expect("{")
        elts: list[ast.expr] = []
        while not self.at("}"):
            if self.at(".") and self.peek(1).kind == "id" and self.peek(2).text == "=":
                self.next()
                self.next()
                self.next()  # designated initialiser: keep the value only
            elts.append(self.parse_assignment())
            if not self.accept(","):
                break
        self.expect("}")
        return elts

    def parse_args(self) -> list[ast.expr]:
        self.expect("(")
        args: list[ast.expr] = []
        while not self.at(")"):
            args.append(self.parse_assignment())
            if not self.accept(","):
                break
        self.expect(")")
        return args

    def parse_postfix(self, node: ast.expr) -> ast.expr:
        while True:
            t = self.peek()
            if t.kind != "op":
                return node
            if t.text == "(":
                node = ast.Call(func=node, args=self.parse_args(), keywords=[])
            elif t.text == "[":
                self.next()
                index = self.parse_expression()
                self.expect("]")
                node = ast.Subscript(value=node, slice=index, ctx=ast.Load())
            elif t.text in (".", "->"):
                self.next()
                if self.at("template"):
                    self.next()
                name = self.next()
                if name.kind != "id":
                    raise ParseError(f"line {name.line}: expected a member name after {t.text}")
                node = ast.Attribute(value=node, attr=name.text, ctx=ast.Load())
                if self.at("<"):
                    args = self.parse_template_args(strict=True)
                    if args is not None:
                        node = ast.Subscript(node, args[0] if len(args) == 1 else
                                             ast.Tuple(args, ast.Load()), ast.Load())
            elif t.text in ("++", "--"):
                self.next()
                node = CIncr(target=node, delta=1 if t.text == "++" else -1)
            elif t.text == "{" and isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
                node = ast.Call(func=node, args=self.parse_braced(), keywords=[])
                node.braced = True
            else:
                return node
