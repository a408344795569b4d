"""LogitGrad's edge-case behaviour: what the documentation says, what the kernel computes (and
why), and what PyTorch computes, cell by cell.

The kernel's answer follows from its mechanism: eps is rounded to float; lo = eps if eps >= 0
else 0, hi = 1 - lo, the fill is 0 if eps >= 0 else NaN; q = dy / (x * (1 - x)); the result is
q where x >= lo and x <= hi (both false for NaN), else the fill. The README prints this table
and a test keeps the two in step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ascsim.compare import special_text

INF, NAN = math.inf, math.nan


@dataclass(frozen=True)
class Case:
    eps: float
    x: float
    dy: float
    documented: float          # the value aclnnLogitGrad.md / the op README promise
    doc_source: str            # which statement of the docs gives it
    why: str                   # the kernel's mechanism for this cell


def _f(v: float) -> str:
    return special_text(v) or f"{v:g}"


CASES: tuple[Case, ...] = (
    Case(-1.0, 0.5, 1.0, 4.0, "formula", "x in [0, 1]: q = 1 / 0.25"),
    Case(-1.0, 0.0, 1.0, INF, "x = 0 or 1 gives Inf", "q = 1 / +0"),
    Case(-1.0, 1.0, -1.0, -INF, "x = 0 or 1 gives Inf", "q = -1 / +0"),
    Case(-1.0, 0.0, 0.0, INF, "x = 0 or 1 gives Inf", "q = 0 / 0 = NaN"),
    Case(-1.0, -0.0, 1.0, INF, "x = 0 or 1 gives Inf", "x * (1 - x) = -0: q = 1 / -0"),
    Case(-1.0, -0.5, 1.0, NAN, "eps < 0: NaN outside [0, 1]", "x < lo: fill NaN"),
    Case(-1.0, 1.5, 1.0, NAN, "eps < 0: NaN outside [0, 1]", "x > hi: fill NaN"),
    Case(-1.0, INF, 1.0, NAN, "eps < 0: NaN outside [0, 1]", "x > hi: fill NaN"),
    Case(-1.0, -INF, 1.0, NAN, "eps < 0: NaN outside [0, 1]", "x < lo: fill NaN"),
    Case(-1.0, NAN, 1.0, NAN, "formula", "compares false: fill NaN"),
    Case(-1.0, 0.5, INF, INF, "dy Inf gives Inf", "q = Inf / 0.25"),
    Case(-1.0, 0.5, -INF, -INF, "dy Inf gives Inf", "q = -Inf / 0.25"),
    Case(-1.0, 0.5, NAN, NAN, "dy NaN gives NaN", "q = NaN / 0.25"),
    Case(0.25, 0.1, 1.0, 0.0, "eps >= 0: 0 outside [eps, 1 - eps]", "x < lo: fill 0"),
    Case(0.25, 0.5, 1.0, 4.0, "formula", "x in [lo, hi]: q"),
    Case(0.25, 0.8, 1.0, 0.0, "eps >= 0: 0 outside [eps, 1 - eps]", "x > hi: fill 0"),
    Case(0.25, NAN, 1.0, NAN, "formula (NaN x is not outside the range)",
         "compares false: fill 0"),
    Case(0.25, INF, 1.0, 0.0, "eps >= 0: 0 outside [eps, 1 - eps]", "x > hi: fill 0"),
    Case(0.25, -INF, 1.0, 0.0, "eps >= 0: 0 outside [eps, 1 - eps]", "x < lo: fill 0"),
    Case(0.0, 0.0, 1.0, INF, "formula", "lo = 0, hi = 1: q = 1 / +0"),
    Case(0.0, -0.0, 1.0, -INF, "formula (-0 is not below eps = 0)", "-0 >= lo: q = 1 / -0"),
    Case(-0.0, 0.5, 1.0, 4.0, "formula (-0.0 >= 0)", "-0.0 >= 0: lo = -0, hi = 1: q"),
    Case(1.0, 0.5, 1.0, INF, "eps = 1 gives Inf", "lo = 1 > hi = 0: fill 0"),
    Case(2.0, 0.5, 1.0, NAN, "eps > 1 gives NaN", "lo = 2 > hi = -1: fill 0"),
    Case(INF, 0.5, 1.0, 0.0, "eps = Inf gives 0", "lo = Inf, hi = -Inf: fill 0"),
    Case(NAN, 0.5, 1.0, NAN, "eps NaN gives NaN", "eps >= 0 is false: lo = 0, hi = 1: q"),
    Case(1e-50, 0.0, 1.0, 0.0, "eps >= 0: 0 outside [eps, 1 - eps]",
         "eps rounds to float 0: lo = 0: q = 1 / +0"),
)


@dataclass(frozen=True)
class Row:
    case: Case
    kernel: float
    torch: float


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b and (
        a != 0 or math.copysign(1, a) == math.copysign(1, b))


def evaluate() -> list[Row]:
    """Run every cell through ascsim's kernel (fp32) and through PyTorch."""
    from . import logit_grad
    from .reference import torch_reference
    rows = []
    for c in CASES:
        x = np.array([c.x], np.float32)
        dy = np.array([c.dy], np.float32)
        kernel = float(logit_grad(x, dy, c.eps)[0])
        torch = float(torch_reference(x, dy, c.eps)[0])
        rows.append(Row(c, kernel, torch))
    return rows


def markdown_table(rows: list[Row]) -> str:
    """The README table: documented, kernel (ascsim) and PyTorch values side by side."""
    lines = ["| eps | x | dy | documented | ascsim kernel | PyTorch | kernel mechanism |",
             "|---|---|---|---|---|---|---|"]
    def mark(v: float, documented: float) -> str:
        return _f(v) if _same(v, documented) else f"**{_f(v)}**"

    for r in rows:
        c = r.case
        lines.append(f"| {_f(c.eps)} | {_f(c.x)} | {_f(c.dy)} | {_f(c.documented)} "
                     f"({c.doc_source}) | {mark(r.kernel, c.documented)} | "
                     f"{mark(r.torch, c.documented)} | {c.why} |")
    return "\n".join(lines)
