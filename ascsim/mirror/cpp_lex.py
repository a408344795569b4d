"""Tokens of a C++ source: identifiers, numbers, string and character literals, operators and
whole preprocessor directives, each with its line. Comments are dropped."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Token", "tokenize"]


@dataclass(slots=True)
class Token:
    kind: str   # "id", "num", "str", "chr", "op", "pp" (a preprocessor directive), "eof"
    text: str
    line: int


_OPERATORS = sorted(
    [">>=", "<<=", "...", "->*", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
     "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*",
     "{", "}", "[", "]", "(", ")", "<", ">", ";", ":", ",", ".", "?", "~", "!", "+", "-", "*",
     "/", "%", "^", "&", "|", "=", "#"], key=len, reverse=True)

_TOKEN = re.compile(
    r"(?P<ws>[ \t\r\f\v]+)"
    r"|(?P<nl>\n)"
    r"|(?P<lc>//[^\n]*)"
    r"|(?P<bc>/\*.*?\*/)"
    r"|(?P<str>(?:u8|u|U|L)?\"(?:\\.|[^\"\\\n])*\")"
    r"|(?P<chr>(?:u8|u|U|L)?'(?:\\.|[^'\\\n])+')"
    r"|(?P<num>(?:0[xX][0-9a-fA-F']+|0[bB][01']+"
    r"|(?:\d[\d']*\.?[\d']*|\.\d[\d']*)(?:[eE][+-]?\d+)?)[uUlLfF]*)"
    r"|(?P<id>[A-Za-z_]\w*)"
    r"|(?P<op>" + "|".join(re.escape(o) for o in _OPERATORS) + ")",
    re.S)


_DIRECTIVE_START = re.compile(r"[ \t]*#")


def _directive(src: str, pos: int) -> int:
    """End offset of the preprocessor directive starting at pos (backslash continues it)."""
    while True:
        end = src.find("\n", pos)
        if end < 0:
            return len(src)
        if src[end - 1:end] == "\\" or src[end - 2:end] == "\\\r":
            pos = end + 1
            continue
        return end


def tokenize(src: str) -> list[Token]:
    tokens: list[Token] = []
    pos, line, at_line_start = 0, 1, True
    n = len(src)
    while pos < n:
        if at_line_start:
            m = _DIRECTIVE_START.match(src, pos)
            if m:
                end = _directive(src, pos)
                text = src[pos:end]
                # comments inside a directive are not part of it
                text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
                tokens.append(Token("pp", " ".join(text.replace("\\\n", " ").split()), line))
                line += src.count("\n", pos, end)
                pos = end
                continue
        m = _TOKEN.match(src, pos)
        if m is None:
            raise SyntaxError(f"line {line}: unexpected character {src[pos]!r}")
        kind = m.lastgroup
        text = m.group()
        if kind == "nl":
            line += 1
            at_line_start = True
        elif kind in ("ws", "lc"):
            pass
        elif kind == "bc":
            line += text.count("\n")
        else:
            tokens.append(Token(kind, text, line))
            at_line_start = False
        pos = m.end()
    tokens.append(Token("eof", "", line))
    return tokens
