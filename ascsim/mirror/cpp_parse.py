"""A parser for the C++ that AscendC kernels, op_host and op_api sources are written in.

It reads the subset those files use (namespaces, class templates, functions, declarations,
enums, if/for/while, expressions with templates and casts) into the tree of cpp_tree; the
expressions are read by cpp_expr. What it does not understand becomes a `Raw` node (reported by
the checker, never silently dropped). Resolving names (members, namespaces, template
parameters) and integer division needs the whole file pair and happens in cpp_convert.
"""

from __future__ import annotations

import ast

from .cpp_expr import ExprParser
from .cpp_lex import Token, tokenize
from .cpp_tree import (
    _KEYWORDS,
    _QUALIFIERS,
    ClassDef,
    CType,
    Define,
    EnumDef,
    ExprStmt,
    For,
    Func,
    If,
    Jump,
    Namespace,
    Param,
    ParseError,
    Raw,
    Return,
    VarDecl,
    While,
)

__all__ = ["parse_cpp"]


class _Parser(ExprParser):
    # ---- declarations ----
    def parse_template_header(self) -> list[str]:
        """`template <typename T, bool B = true>` -> ["T", "B"]."""
        self.expect("template")
        self.expect("<")
        names: list[str] = []
        while not self.at(">"):
            depth_start = self.i
            last_id = None
            while True:
                t = self.peek()
                if t.kind == "op" and t.text in (",", ">") :
                    break
                if t.kind == "op" and t.text == "=":
                    # default argument: skip to the next top-level , or >
                    self.next()
                    depth = 0
                    while True:
                        u = self.peek()
                        if u.kind == "op" and u.text in ("(", "<", "[", "{"):
                            depth += 1
                        elif u.kind == "op" and u.text in (")", "]", "}"):
                            depth -= 1
                        elif u.kind == "op" and u.text == ">":
                            if depth == 0:
                                break
                            depth -= 1
                        elif u.kind == "op" and u.text == "," and depth == 0:
                            break
                        self.next()
                    break
                if t.kind == "id":
                    last_id = t.text
                self.next()
            if last_id is not None and self.i > depth_start:
                names.append(last_id)
            if not self.accept(","):
                break
        self.split_shift()
        self.expect(">")
        self.known_types.update(names)
        return names

    def parse_params(self) -> list[Param] | None:
        """A parameter list at `(`, or None if it is not one (position unchanged)."""
        start = self.i
        self.expect("(")
        params: list[Param] = []
        if self.at("void") and self.at(")", 1):
            self.next()
        while not self.at(")"):
            if self.at("..."):
                self.next()
                params.append(Param(CType(None, "..."), "...", self.peek().line))
                continue
            line = self.peek().line
            ct = self.parse_type()
            if ct is None:
                self.i = start
                return None
            name = "_"
            if self.peek().kind == "id" and self.peek().text not in _KEYWORDS:
                name = self.next().text
            while self.at("["):
                self.skip_balanced()
                ct.pointer += 1
            if self.accept("="):
                depth = 0
                while True:
                    u = self.peek()
                    if u.kind == "eof":
                        self.i = start
                        return None
                    if u.kind == "op" and u.text in ("(", "[", "{", "<"):
                        depth += 1
                    elif u.kind == "op" and u.text in (")", "]", "}", ">"):
                        if depth == 0:
                            break
                        depth -= 1
                    elif u.kind == "op" and u.text == "," and depth == 0:
                        break
                    self.next()
            params.append(Param(ct, name, line))
            if not self.accept(","):
                break
        if not self.at(")"):
            self.i = start
            return None
        self.next()
        return params

    def parse_declarator_name(self) -> list[str] | None:
        """`name`, `K<T>::name`, `~K`, `operator==`: the qualified parts (template args of the
        qualifiers dropped)."""
        parts: list[str] = []
        while True:
            if self.at("~"):
                self.next()
                t = self.next()
                parts.append("~" + t.text)
                return parts
            t = self.peek()
            if t.kind != "id" or (t.text in _KEYWORDS and t.text != "operator"):
                return parts or None
            self.next()
            if t.text == "operator":
                op = ""
                while not self.at("("):
                    op += self.next().text
                parts.append("operator" + op)
                return parts
            parts.append(t.text)
            if self.at("<") and self.at("::", self._template_end_offset()):
                args = self.parse_template_args(strict=False)
                if args is None:
                    return None
            if self.at("::") and (self.peek(1).kind == "id" or self.peek(1).text == "~"):
                self.next()
                continue
            return parts

    def _template_end_offset(self) -> int:
        """Offset of the token after the `<...>` starting here (0 if unbalanced)."""
        depth = 0
        k = 0
        while True:
            t = self.peek(k)
            if t.kind == "eof":
                return 0
            if t.text == "<":
                depth += 1
            elif t.text == ">":
                depth -= 1
                if depth == 0:
                    return k + 1
            elif t.text == ">>":
                depth -= 2
                if depth <= 0:
                    return k + 1
            elif t.text in (";", "{", "}"):
                return 0
            k += 1

    def try_declaration(self, scope: str, class_name: str | None = None,
                        template_params: list[str] | None = None) -> list | None:
        """A declaration (function, constructor, variables) at the current position, or None
        (position unchanged). scope is "top", "class" or "body"."""
        start = self.i
        line = self.peek().line
        # constructors and destructors: [qualifiers] Name ( ... )
        k = 0
        while self.peek(k).kind == "id" and self.peek(k).text in _QUALIFIERS:
            k += 1
        head = self.peek(k)
        if scope == "class" and class_name and head.text == class_name and \
                self.peek(k + 1).text == "(":
            self.i += k + 1
            return [self.parse_function([class_name, "__init__"], None, line, True,
                                        template_params or [])]
        if scope == "class" and head.text == "~":
            self.i += k
            name = self.parse_declarator_name() or ["~"]
            return [self.parse_function(name, None, line, False, [], dtor=True)]
        static = constexpr = False
        for j in range(k):
            static |= self.peek(j).text == "static"
            constexpr |= self.peek(j).text == "constexpr"
        ct = self.parse_type()
        if ct is None:
            return None
        # out-of-class constructor: K<T>::K(...)
        if scope == "top" and isinstance(ct.expr, ast.Attribute) and self.at("(") and \
                ct.expr.attr == _last_name(ct.expr.value):
            parts = [_last_name(ct.expr.value), "__init__"]
            return [self.parse_function(parts, None, line, True, template_params or [])]
        t = self.peek()
        if t.kind != "id" or (t.text in _KEYWORDS and t.text != "operator"):
            if scope == "top" and self.at("~"):
                name = self.parse_declarator_name()
                if name:
                    return [self.parse_function(name, None, line, False, [], dtor=True)]
            self.i = start
            return None
        name_start = self.i
        parts = self.parse_declarator_name()
        if not parts:
            self.i = start
            return None
        if self.at("(") and scope != "body":
            params_start = self.i
            params = self.parse_params()
            if params is not None and self._function_follows():
                self.i = params_start
                is_ctor = len(parts) >= 2 and parts[-1] == parts[-2]
                if is_ctor:
                    parts = parts[:-1] + ["__init__"]
                return [self.parse_function(parts, ct, line, is_ctor, template_params or [])]
            self.i = params_start
        if len(parts) != 1:
            self.i = start
            return None
        self.i = name_start
        return self.parse_variables(ct, line, static, constexpr)

    def _function_follows(self) -> bool:
        t = self.peek()
        return (t.kind == "op" and t.text in ("{", ";", ":", "->", "=")) or \
            (t.kind == "id" and t.text in ("const", "noexcept", "override", "final",
                                           "__attribute__", "volatile"))

    def parse_variables(self, ct: CType, line: int, static: bool, constexpr: bool) -> list | None:
        decls = []
        while True:
            t = self.peek()
            if t.kind != "id":
                return None
            name = self.next().text
            vct = CType(ct.expr, ct.name, ct.const, ct.pointer, ct.ref, ct.builtin, ct.qualified)
            while self.at("["):
                self.next()
                vct.dims.append(ast.Constant(None) if self.at("]") else self.parse_expression())
                self.expect("]")
            kind, init = None, None
            if self.accept("="):
                kind, init = "=", self.parse_assignment()
            elif self.at("{"):
                kind, init = "{}", self.parse_braced()
            elif self.at("("):
                kind, init = "()", self.parse_args()
            elif self.at(":"):  # bit-field width
                self.next()
                self.parse_conditional()
            end = self.peek().line
            decls.append(VarDecl(vct, name, kind, init, line, end, static, constexpr))
            if self.accept(","):
                while self.peek().kind == "op" and self.peek().text in ("*", "&"):
                    self.next()
                continue
            if not self.at(";"):
                return None
            end_tok = self.next()
            for d in decls:
                d.end_line = end_tok.line
            return decls

    def parse_function(self, parts: list[str], ret: CType | None, line: int, is_ctor: bool,
                       template_params: list[str], dtor: bool = False) -> Func:
        params = self.parse_params()
        if params is None:
            raise ParseError(f"line {line}: cannot read the parameters of {'::'.join(parts)}")
        while self.peek().kind == "id" and self.peek().text in (
                "const", "noexcept", "override", "final", "volatile", "__attribute__"):
            if self.next().text == "__attribute__" or (self.at("(") and
                                                      self.toks[self.i - 1].text == "noexcept"):
                self.skip_balanced()
        if self.accept("->"):
            self.parse_type()
        mem_inits: list[tuple[str, list[ast.expr], int]] = []
        if self.accept("="):  # = default / = delete / = 0
            self.next()
            end = self.expect(";").line
            return Func(parts, params, None, line, end, ret, is_ctor, [], template_params, dtor)
        if self.accept(":"):
            while True:
                t = self.peek()
                got = self.parse_qualified_name(in_type=True)
                if got is None:
                    raise ParseError(f"line {t.line}: bad member initialiser")
                args = self.parse_braced() if self.at("{") else self.parse_args()
                mem_inits.append((got[1], args, t.line))
                if not self.accept(","):
                    break
        if self.accept(";"):
            return Func(parts, params, None, line, self.toks[self.i - 1].line, ret, is_ctor,
                        mem_inits, template_params, dtor)
        body, end = self.parse_block()
        return Func(parts, params, body, line, end, ret, is_ctor, mem_inits, template_params,
                    dtor)

    # ---- statements ----
    def parse_block(self) -> tuple[list, int]:
        self.expect("{")
        stmts: list = []
        while not self.at("}"):
            if self.peek().kind == "eof":
                raise ParseError("unexpected end of file in a block")
            stmts.extend(self.parse_statement())
        end = self.next().line
        return stmts, end

    def parse_body(self) -> tuple[list, int]:
        """The statement of an if/for/while: a block or a single statement."""
        if self.at("{"):
            return self.parse_block()
        stmts = self.parse_statement()
        return stmts, self.toks[self.i - 1].line

    def parse_statement(self) -> list:
        t = self.peek()
        line = t.line
        if t.kind == "pp":
            self.next()
            return self.directive(t)
        if t.kind == "op" and t.text == "{":
            body, _ = self.parse_block()
            return body
        if t.kind == "op" and t.text == ";":
            self.next()
            return []
        if t.kind == "id":
            word = t.text
            if word == "if":
                return [self.parse_if()]
            if word == "for":
                return [self.parse_for()]
            if word == "while":
                self.next()
                self.expect("(")
                cond = self.parse_expression()
                self.expect(")")
                body, end = self.parse_body()
                return [While(cond, body, line, end)]
            if word == "return":
                self.next()
                value = None if self.at(";") else self.parse_expression()
                end = self.expect(";").line
                return [Return(value, line, end)]
            if word in ("break", "continue"):
                self.next()
                self.expect(";")
                return [Jump(word, line)]
            if word in ("using", "typedef", "static_assert"):
                self.skip_to_semicolon()
                return []
            if word in ("do", "switch", "try", "goto", "throw", "case", "default", "asm",
                        "__asm__"):
                return [self.raw_statement()]
        decl = self.try_declaration("body")
        if decl is not None:
            return decl
        expr = self.parse_expression()
        end = self.expect(";").line
        return [ExprStmt(expr, line, end)]

    def raw_statement(self) -> Raw:
        start = self.i
        line = self.peek().line
        while True:
            t = self.peek()
            if t.kind == "eof":
                break
            if t.kind == "op" and t.text in "([":
                self.skip_balanced()
                continue
            if t.kind == "op" and t.text == "{":
                self.skip_balanced()
                if self.at("while"):  # do { } while (...);
                    continue
                if not self.at(";"):
                    break
            self.next()
            if t.kind == "op" and t.text == ";":
                break
        text = " ".join(tok.text for tok in self.toks[start:self.i])
        return Raw(text, line, self.toks[self.i - 1].line)

    def parse_if(self) -> If:
        line = self.expect("if").line
        self.accept("constexpr")
        self.expect("(")
        cond = self.parse_expression()
        self.expect(")")
        then, end = self.parse_body()
        orelse = None
        else_line = end
        if self.at("else"):
            else_line = self.next().line
            if self.at("if"):
                inner = self.parse_if()
                orelse, end = [inner], inner.end_line
            else:
                orelse, end = self.parse_body()
        return If(cond, then, orelse, line, else_line, end)

    def parse_for(self) -> For:
        line = self.expect("for").line
        self.expect("(")
        # range for: for (auto &x : xs)
        start = self.i
        ct = self.parse_type()
        if ct is not None and self.peek().kind == "id" and self.at(":", 1):
            name = self.next().text
            self.next()
            it = self.parse_expression()
            self.expect(")")
            body, end = self.parse_body()
            return For([], None, [], body, line, end, name, it)
        self.i = start
        init: list = []
        if not self.at(";"):
            decl = self.try_declaration("body")
            if decl is None:
                init = [ExprStmt(self.parse_expression(), line, line)]
                self.expect(";")
            else:
                init = decl
        else:
            self.next()
        cond = None if self.at(";") else self.parse_expression()
        self.expect(";")
        step: list[ast.expr] = []
        while not self.at(")"):
            step.append(self.parse_assignment())
            if not self.accept(","):
                break
        self.expect(")")
        body, end = self.parse_body()
        return For(init, cond, step, body, line, end)

    def directive(self, tok: Token) -> list:
        words = tok.text[1:].split(None, 2)
        if len(words) >= 2 and words[0] == "define":
            head = words[1]
            if "(" in head:  # function-like macro: not mirrored
                return [Raw(tok.text, tok.line, tok.line)]
            if len(words) == 3:
                sub = _Parser(tokenize(words[2]), self.known_types)
                try:
                    value = sub.parse_expression()
                    if sub.peek().kind == "eof":
                        return [Define(head, value, tok.line)]
                except ParseError:
                    pass
                return [Raw(tok.text, tok.line, tok.line)]
        return []  # includes, guards, conditionals, pragmas

    # ---- top level ----
    def parse_decls(self, scope: str, class_name: str | None = None,
                    until_brace: bool = False) -> list:
        out: list = []
        template_params: list[str] = []
        while True:
            t = self.peek()
            if t.kind == "eof":
                if until_brace:
                    raise ParseError("unexpected end of file: missing '}'")
                return out
            if until_brace and t.kind == "op" and t.text == "}":
                return out
            if t.kind == "pp":
                self.next()
                out.extend(self.directive(t))
                continue
            if t.kind == "op" and t.text == ";":
                self.next()
                continue
            self.skip_attributes()
            t = self.peek()
            word = t.text if t.kind == "id" else None
            if word == "template":
                template_params = self.parse_template_header()
                continue
            if word in ("public", "private", "protected") and self.at(":", 1):
                self.next()
                self.next()
                continue
            if word == "namespace":
                self.next()
                name = self.next().text if self.peek().kind == "id" else ""
                while self.accept("::"):
                    name = self.next().text
                if self.accept("="):  # namespace alias
                    self.skip_to_semicolon()
                    continue
                self.expect("{")
                body = self.parse_decls("top", until_brace=True)
                self.expect("}")
                out.append(Namespace(name, body, t.line))
                continue
            if word == "extern" and self.peek(1).kind == "str" and self.at("{", 2):
                self.next()
                self.next()
                self.next()
                out.extend(self.parse_decls(scope, class_name, until_brace=True))
                self.expect("}")
                continue
            if word in ("using", "typedef", "static_assert", "friend"):
                self.skip_to_semicolon()
                template_params = []
                continue
            if word in ("class", "struct", "union") and self._class_definition_ahead():
                out.append(self.parse_class(template_params))
                template_params = []
                continue
            if word == "enum":
                enum = self.parse_enum()
                if enum is not None:
                    out.append(enum)
                template_params = []
                continue
            if word in ("class", "struct", "union"):
                self.skip_to_semicolon()  # a forward declaration
                template_params = []
                continue
            decl = self.try_declaration(scope, class_name, template_params)
            template_params = []
            if decl is not None:
                out.extend(decl)
                continue
            line = t.line
            try:
                expr = self.parse_expression()
                end = self.expect(";").line
                out.append(ExprStmt(expr, line, end))
            except ParseError:
                out.append(self.raw_statement())

    def parse_enum(self) -> EnumDef | None:
        line = self.expect("enum").line
        scoped = self.accept("class") or self.accept("struct")
        name = self.next().text if self.peek().kind == "id" else ""
        if self.accept(":"):
            self.parse_type()
        if not self.at("{"):
            self.skip_to_semicolon()  # a forward declaration
            return None
        self.next()
        values: list[tuple[str, ast.expr | None, int]] = []
        while not self.at("}"):
            t = self.next()
            if t.kind != "id":
                raise ParseError(f"line {t.line}: expected an enumerator, found {t.text!r}")
            value = self.parse_conditional() if self.accept("=") else None
            values.append((t.text, value, t.line))
            if not self.accept(","):
                break
        end = self.expect("}").line
        self.accept(";")
        return EnumDef(name, scoped, values, line, end)

    def _class_definition_ahead(self) -> bool:
        k = 1
        while True:
            t = self.peek(k)
            if t.kind == "eof" or t.text == ";":
                return False
            if t.text == "{":
                return True
            if t.text == "(" or t.text == "=":
                return False
            k += 1

    def parse_class(self, template_params: list[str]) -> ClassDef:
        line = self.next().line  # class / struct
        self.skip_attributes()
        name = self.next().text
        if template_params:
            self.template_names.add(name)
        if self.at("<"):  # specialisation
            self.parse_template_args(strict=False)
        self.accept("final")
        bases: list[ast.expr] = []
        if self.accept(":"):
            while True:
                while self.peek().text in ("public", "private", "protected", "virtual"):
                    self.next()
                got = self.parse_qualified_name(in_type=True)
                if got is None:
                    raise ParseError(f"line {line}: bad base class of {name}")
                bases.append(got[0])
                if not self.accept(","):
                    break
        self.expect("{")
        members = self.parse_decls("class", name, until_brace=True)
        end = self.expect("}").line
        self.accept(";")
        return ClassDef(name, template_params, bases, members, line, end)


def _last_name(expr: ast.expr) -> str:
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Name):
        return expr.id
    return ""


def parse_cpp(src: str, known_types: set[str] | None = None) -> list:
    """The declarations of one C++ source."""
    parser = _Parser(tokenize(src), set(known_types or ()))
    return parser.parse_decls("top")

