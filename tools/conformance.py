"""Write docs/conformance.md: every operator's edge-case matrix, cell by cell, with the
documented behaviour, ascsim's kernel result and PyTorch's, disagreements marked and explained by
the kernel's mechanism.

    python tools/conformance.py           # rewrite docs/conformance.md
    python tools/conformance.py --check   # exit 1 if the committed report is stale

LogitGrad's cells, documented values and mechanisms are kernels_py/logit_grad/behaviour.py
(the README's table). SigmoidCrossEntropyWithLogitsGradV2's are below: its documentation
(cann_ops.md §7b.1, from aclnnBinaryCrossEntropyWithLogitsBackward.md and the op README) gives
only the formula, so a cell's documented value is that formula evaluated in float64 and rounded
once to float32, unless the cell states a limit. CrossEntropyLoss's likewise (its formula is
PyTorch's, cann_ops_more.md §2). A report for another operator is one more `Section` builder in
SECTIONS.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ascsim.compare import special_text, ulp_distance

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "docs" / "conformance.md"
F32 = np.float32


# ---- rendering -------------------------------------------------------------------------------

def fmt(v: float) -> str:
    """A float32 value in its shortest round-trip text: NaN, +Inf, -Inf, 0, -0, 0.7310586."""
    special = special_text(v)
    if special is not None:
        return special
    text = str(F32(v))
    return text[:-2] if text.endswith(".0") else text


def fmt_attr(v: float) -> str:
    """An attribute given as a double (eps): its own shortest text."""
    return fmt(v) if math.isnan(v) or math.isinf(v) or v == 0 else f"{v:g}"


def same(a: float, b: float) -> bool:
    """Equal as results: both NaN, or equal with the same sign of zero."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


@dataclass(frozen=True)
class Verdict:
    kind: str                # "agrees", "rounding" or "differs"
    ulp: int = 0
    error: float = 0.0       # rounding: |value - exact|
    bound: float = 0.0       # rounding: the bound it is within

    def mark(self, value: float) -> str:
        if self.kind == "agrees":
            return fmt(value)
        if self.kind == "rounding":
            how = (f"{self.ulp} ULP" if self.ulp <= 16 else
                   f"off by {self.error:.2g} <= bound {self.bound:.2g}")
            return f"*{fmt(value)}* ({how})"
        return f"**{fmt(value)}**"


def judge(value: float, documented: float, bound: float | None = None,
          exact: float | None = None) -> Verdict:
    """agrees: the documented value; rounding: within `bound` of the `exact` value (a float32
    evaluation's a-priori error bound); otherwise differs."""
    if same(value, documented):
        return Verdict("agrees")
    ulp = int(ulp_distance(np.array([value], F32), np.array([documented], F32))[0])
    if bound is not None and exact is not None and math.isfinite(value) and \
            math.isfinite(exact) and abs(value - exact) <= bound:
        return Verdict("rounding", ulp, abs(value - exact), bound)
    return Verdict("differs", ulp)


@dataclass(frozen=True)
class Row:
    inputs: tuple[str, ...]
    documented: float
    doc_source: str
    results: tuple[tuple[float, Verdict], ...]   # one per result column
    why: str


@dataclass(frozen=True)
class Section:
    title: str
    intro: str
    input_headers: tuple[str, ...]
    result_headers: tuple[str, ...]
    rows: tuple[Row, ...]


def render_section(s: Section) -> list[str]:
    heads = ["#", *s.input_headers, "documented", *s.result_headers, "kernel mechanism"]
    out = [f"## {s.title}", "", s.intro, "", "| " + " | ".join(heads) + " |",
           "|" + "---|" * len(heads)]
    for i, r in enumerate(s.rows, 1):
        cells = [str(i), *r.inputs, f"{fmt(r.documented)}: {r.doc_source}",
                 *(v.mark(value) for value, v in r.results), r.why]
        out.append("| " + " | ".join(cells) + " |")
    out += ["", summary(s), "", "Disagreements, and the mechanism behind each:", ""]
    out += _explained(s, "differs")
    rounding = _explained(s, "rounding")
    if rounding:
        out += ["", "Within the rounding-error bound (not behavioural differences), and why:",
                ""] + rounding
    return out


def _explained(s: Section, kind: str) -> list[str]:
    out = []
    for i, r in enumerate(s.rows, 1):
        if not any(v.kind == kind for _, v in r.results):
            continue
        who = ", ".join(f"{h} {fmt(value)}" for h, (value, v) in zip(s.result_headers, r.results,
                                                                     strict=True)
                        if v.kind == kind)
        inputs = ", ".join(f"{h} = {x}" for h, x in zip(s.input_headers, r.inputs, strict=True)
                           if x != "-")
        out.append(f"- **#{i}** ({inputs}): documented {fmt(r.documented)} "
                   f"({r.doc_source}), but {who}. Mechanism: {r.why}.")
    return out


def summary(s: Section) -> str:
    n = len(s.rows)
    parts = []
    for k, h in enumerate(s.result_headers):
        kinds = [r.results[k][1].kind for r in s.rows]
        parts.append(f"{h}: {kinds.count('agrees')} agree, {kinds.count('rounding')} within "
                     f"rounding, {kinds.count('differs')} differ")
    return f"{n} cells. " + "; ".join(parts) + "."


HEADER = """# Conformance report

Generated by `python tools/conformance.py` from the operators' edge-case matrices; do not edit
by hand (`tests/test_conformance.py` fails when this file is stale).

Each cell gives the documented behaviour (with the statement of the documentation it comes
from), what ascsim's kernel computes, and what PyTorch computes on CPU, all in float32 with
one-element inputs unless a cell says otherwise. A result that matches the documented value is
plain; *italic (n ULP)* marks a finite result within the a-priori rounding-error bound of the
float32 computation (not a behavioural difference); **bold** marks a disagreement. The last
column is the kernel's mechanism, which decides every cell.
"""


def render(sections: list[Section]) -> str:
    lines = [HEADER]
    for s in sections:
        lines += render_section(s) + [""]
    return "\n".join(lines).rstrip() + "\n"


# ---- LogitGrad: kernels_py/logit_grad/behaviour.py ------------------------------------------

def logit_grad_section() -> Section:
    from kernels_py.logit_grad.behaviour import evaluate

    rows = []
    for r in evaluate():
        c = r.case
        rows.append(Row((fmt_attr(c.eps), fmt(c.x), fmt(c.dy)), c.documented, c.doc_source,
                        ((r.kernel, judge(r.kernel, c.documented)),
                         (r.torch, judge(r.torch, c.documented))), c.why))
    intro = ("`aclnnLogitGrad` (fp32). Documented values: aclnnLogitGrad.md and the op README; "
             "cells and mechanisms from `kernels_py/logit_grad/behaviour.py`. The kernel "
             "computes q = dy / (x * (1 - x)) in float32 (x * -1, + 1, x *, dy /) and keeps q "
             "where x >= lo and x <= hi, else the fill: lo = eps, fill 0 when eps >= 0; lo = 0, "
             "fill NaN when eps < 0; hi = 1 - lo; eps is rounded to float first. PyTorch: "
             "`torch.ops.aten.logit_backward`.")
    return Section("LogitGrad", intro, ("eps", "x", "dy"), ("ascsim kernel", "PyTorch"),
                   tuple(rows))


# ---- SigmoidCrossEntropyWithLogitsGradV2 -----------------------------------------------------

@dataclass(frozen=True)
class SceCell:
    x: float
    y: float
    why: str                          # the kernel's mechanism (through the aclnn API)
    dout: float = 1.0
    weight: float | None = None
    pos_weight: float | None = None
    reduction: str = "none"
    n: int = 1                        # elements (all equal); mean divides by n
    limit: float | None = None        # documented value when the formula is a limit
    limit_note: str = ""


INF, NAN = math.inf, math.nan
SIGMA = "p = 1 / (1 + exp(-x))"

SCE_CELLS: tuple[SceCell, ...] = (
    SceCell(0.0, 0.0, f"{SIGMA} = 0.5; g = p - y"),
    SceCell(-0.0, 0.0, "exp(+0) = 1: p = 0.5"),
    SceCell(1.0, 0.0, "float32 exp, +1 and a true Div: one rounding each"),
    SceCell(-1.0, 1.0, "p - y cancels part of p: g = -(1 - p)"),
    SceCell(INF, 0.0, "exp(-Inf) = 0: p = 1 / 1 = 1"),
    SceCell(-INF, 1.0, "exp(+Inf) = Inf: p = 1 / Inf = 0; g = -1"),
    SceCell(NAN, 0.0, "NaN propagates through exp and Div"),
    SceCell(-88.0, 0.0, "exp(88) = 1.65e38 is finite: p = 1 / 1.65e38 is a float32 subnormal"),
    SceCell(-100.0, 0.0, "exp(100) overflows float32 to Inf (it does for every x < -88.72): "
                         "p = 1 / Inf = 0, while the true sigmoid is a float32 subnormal"),
    SceCell(16.0, 1.0, "1 + exp(-16) rounds to 1 + 2^-23: p = 1 - 2^-23, so g = p - 1 carries "
                       "the rounding of the sum (cancellation)"),
    SceCell(20.0, 1.0, "1 + exp(-20) rounds to 1 in float32: p = 1 and g = p - y = 0 "
                       "(cancellation); the true gradient is -2.06e-9"),
    SceCell(0.0, NAN, "NaN target propagates"),
    SceCell(0.0, 2.0, "no range check on the target: the formula applies"),
    SceCell(0.0, INF, "the aclnn API passes pos_weight = OnesLike(self), so the kernel runs "
                      "(pw*y + 1 - y)*p - pw*y: Inf + 1 - Inf = NaN; the kernel's no-pos_weight "
                      "variant computes p - y = -Inf"),
    SceCell(0.0, 0.5, "g = +0, and +0 * Inf = NaN in the formula as in the kernel", dout=INF),
    SceCell(0.0, 0.5, "(pw*y + 1 - y)*p - pw*y = 0.5 - 0.5 = +0; +0 * -1 = -0", dout=-1.0),
    SceCell(0.0, -1.0, "the kernel multiplies in the order ((g * dout) * w): g * dout = 4.5e38 "
                       "overflows to Inf before the weight 0.25 scales it down", dout=3e38,
            weight=0.25),
    SceCell(1.0, 1.0, "lw = pw*y, g = (lw + 1 - y)*p - lw: the float32 roundings of exp, + 1, "
                      "the Div, * p and - lw move it off the once-rounded value",
            pos_weight=2.0),
    SceCell(1.0, 1.0, "lw = 0: g = (0 + 1 - 1)*p - 0 = 0", pos_weight=0.0),
    SceCell(1.0, 1.0, "lw = Inf: (Inf + 1 - 1)*p - Inf = Inf - Inf = NaN", pos_weight=INF,
            limit=-INF, limit_note="limit pw -> Inf of pw*y*(p - 1) + (1 - y)*p"),
    SceCell(0.0, 0.0, "mean multiplies by globalScale = 1.0f/float(N) = 0.33333334 instead of "
                      "dividing by N: g * dout = 0.3 exactly, 0.3 * 0.33333334 rounds up to "
                      "0.10000001 where 0.3 / 3 rounds to 0.1 (PyTorch divides)", dout=0.6,
            reduction="mean", n=3),
    SceCell(0.3, 0.1, "mean: g * dout * globalScale, the same chain as sum scaled by 1/N",
            dout=0.7, reduction="mean", n=3),
    SceCell(0.3, 0.1, "sum: globalScale 1, the gradient of each element", dout=0.7,
            reduction="sum", n=3),
)


def sce_documented(c: SceCell) -> tuple[float, float]:
    """(the §7b.1 formula in float64 rounded once to float32, the float64 value)."""
    x, y, d = np.float64(c.x), np.float64(c.y), np.float64(c.dout)
    with np.errstate(all="ignore"):
        p = 1.0 / (1.0 + np.exp(-x))
        if c.pos_weight is None:
            g = p - y
        else:
            lw = np.float64(c.pos_weight) * y
            g = (lw + 1.0 - y) * p - lw
        out = g * d
        if c.weight is not None:
            out = out * np.float64(c.weight)
        if c.reduction == "mean":
            out = out / c.n
        return float(F32(out)), float(out)


def sce_kernel(c: SceCell) -> tuple[float, float]:
    """(through the aclnn API, the kernel variant of exactly the inputs given)."""
    from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
        binary_cross_entropy_with_logits_backward,
        run_kernel,
    )

    def full(v: float | None) -> np.ndarray | None:
        return None if v is None else np.full(c.n, v, F32)

    grad = np.full(c.n if c.reduction == "none" else 1, c.dout, F32)
    api = binary_cross_entropy_with_logits_backward(grad, full(c.x), full(c.y), full(c.weight),
                                                    full(c.pos_weight), c.reduction)
    direct, _ = run_kernel(full(c.x), full(c.y), full(c.dout), full(c.weight),
                           full(c.pos_weight), c.reduction)
    return float(api[0]), float(direct[0])


def sce_torch(c: SceCell) -> float:
    """d loss / d x by torch autograd in float32 on CPU."""
    import torch
    import torch.nn.functional as F

    def full(v: float | None) -> torch.Tensor | None:
        return None if v is None else torch.full((c.n,), v, dtype=torch.float32)

    x = full(c.x).requires_grad_()
    loss = F.binary_cross_entropy_with_logits(x, full(c.y), weight=full(c.weight),
                                              pos_weight=full(c.pos_weight),
                                              reduction=c.reduction)
    loss.backward(full(c.dout) if c.reduction == "none" else torch.tensor(c.dout))
    return float(x.grad[0])


def sce_bound(c: SceCell) -> float | None:
    """The a-priori bound on a float32 evaluation's error (reference.error_bound), where it
    applies (x > -88.7, finite inputs)."""
    from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2.reference import error_bound
    values = [c.x, c.y, c.dout, c.weight or 0.0, c.pos_weight or 0.0]
    if not all(math.isfinite(v) for v in values) or c.x <= -88.7:
        return None

    def full(v: float | None) -> np.ndarray | None:
        return None if v is None else np.full(c.n, v)

    grad = np.full(c.n if c.reduction == "none" else 1, c.dout)
    return float(error_bound(grad, full(c.x), full(c.y), full(c.weight), full(c.pos_weight),
                             c.reduction)[0])


def sce_section() -> Section:
    rows = []
    for c in SCE_CELLS:
        documented, exact = sce_documented(c)
        source = "formula"
        if c.limit is not None:
            documented, exact, source = c.limit, c.limit, c.limit_note
        bound = sce_bound(c)
        api, direct = sce_kernel(c)
        torch_value = sce_torch(c)
        results = tuple((v, judge(v, documented, bound, exact))
                        for v in (api, direct, torch_value))
        reduction = c.reduction if c.n == 1 else f"{c.reduction}, N={c.n}"
        inputs = (fmt(c.x), fmt(c.y), fmt(c.dout),
                  "-" if c.weight is None else fmt(c.weight),
                  "-" if c.pos_weight is None else fmt(c.pos_weight), reduction)
        rows.append(Row(inputs, documented, source, results, c.why))
    intro = ("`aclnnBinaryCrossEntropyWithLogitsBackward` (fp32). Documented: p = sigmoid(x) = "
             "1/(1+e^-x); g = p - y, or with pos_weight lw = pw*y, g = (lw + 1 - y)*p - lw; "
             "out = g*dout [*w] [*(1/N) for mean] (the op README and "
             "aclnnBinaryCrossEntropyWithLogitsBackward.md, cann_ops.md §7b.1); the documented "
             "value is that formula in float64, rounded once to float32, unless a limit is "
             "named. The kernel computes it in float32: exp(-x), + 1, a Div for p, then the "
             "pos_weight form, * dout, * w, * globalScale. Through the aclnn API a missing "
             "weight or pos_weight is `OnesLike(self)`, so the kernel always runs its "
             "both-weights variant; the *kernel variant* column launches the variant of "
             "exactly the inputs given (`run_kernel`). Mean/sum cells use a [1] grad_output "
             "as the operator's ST cases do. PyTorch: "
             "`binary_cross_entropy_with_logits` + autograd in float32. *Rounding* here is the "
             "error bound of `reference.error_bound`.")
    return Section("SigmoidCrossEntropyWithLogitsGradV2", intro,
                   ("x", "y", "dout", "weight", "pos_weight", "reduction"),
                   ("ascsim (aclnn)", "ascsim kernel variant", "PyTorch"), tuple(rows))


# ---- CrossEntropyLoss ------------------------------------------------------------------------

@dataclass(frozen=True)
class CeCell:
    rows: tuple[tuple[float, ...], ...]   # the logits, one tuple per row
    targets: tuple[int, ...]
    why: str
    reduction: str = "mean"
    weight: tuple[float, ...] | None = None
    ls: float = 0.0
    ignore: int = -100
    classes: int = 0                      # for an empty batch (no rows to count them from)


CE_CELLS = (
    CeCell(((1.0, 2.0, 3.0),), (2,), "lse = ln(sum e^(x - 3)) + 3, then x - lse: the float32 "
           "roundings of exp, the tree sum, Ln, + m and - lse"),
    CeCell(((1.0, 2.0, 3.0), (0.5, -1.0, 2.0)), (0, 2), "the mean of two rows: per-core tree "
           "sums of w*lp and w, one tree over the cores' partials, then a division",
           weight=(0.2, 1.0, 0.7)),
    CeCell(((1.0, 2.0, 3.0), (0.5, -1.0, 2.0)), (1, 1), "every row ignored: sum w = 0, "
           "0 / 0 = NaN", ignore=1),
    CeCell(((1.0, 2.0, 3.0), (0.5, -1.0, 2.0)), (1, 1), "every row ignored: the ln sum is "
           "+0 and the kernel's final -sum gives -0 (PyTorch +0)", reduction="sum", ignore=1),
    CeCell((), (), "N = 0: no launch; the aclnn layer fills the loss with NaN (0 / 0)",
           classes=3),
    CeCell((), (), "N = 0: no launch; the aclnn layer fills the loss with 0",
           reduction="sum", classes=3),
    CeCell(((1.0, math.nan, 3.0),), (0,), "the row max is NaN (the first NaN wins), so every "
           "log-prob of the row is NaN"),
    CeCell(((1.0, math.inf, 3.0),), (1,), "max = +Inf: x - max is Inf - Inf = NaN at the "
           "target, so lse and the loss are NaN (the limit would be 0)"),
    CeCell(((-math.inf, 1.0, 3.0),), (0,), "exp(-Inf - 3) = 0; lp = -Inf - lse = -Inf; "
           "loss = -1 * -Inf = +Inf"),
    CeCell(((0.0, 100.0, -100.0),), (2,), "lse rounds to 100 (ln S = 3.7e-44 underflows "
           "to 0 in float32); -100 - 100 = -200 exactly", reduction="none"),
    CeCell(((3.5,),), (0,), "one class: S = 1, ln 1 = 0, lp = x - x = +0; the "
           "kernel's final -sum / sum w gives -0 (PyTorch +0)"),
    CeCell(((1.0, 2.0, 3.0),), (0,), "label smoothing 1: only (ls / C) * sum_c -lp_c",
           ls=1.0),
    CeCell(((1.0, 2.0, 3.0), (2.0, 0.0, -1.0)), (0, 2), "smoothing with weights: "
           "(ls - 1) * w_t lp_t + (ls / C) * -sum_c w_c lp_c per row, summed, / sum w_t",
           weight=(0.5, 1.0, 0.0), ls=0.25),
    CeCell(((1.0, 2.0, 3.0), (2.0, 0.0, -1.0)), (0, 2), "weight 0 at the second row's "
           "target: its term and its weight drop out of the mean", weight=(0.5, 1.0, 0.0)),
    CeCell(((1.0, 2.0, 3.0), (2.0, 0.0, -1.0)), (0, 2), "ignore_index = 0 inside [0, C): "
           "row 0 ignored (w = 0, no smoothing term)", reduction="sum", ignore=0, ls=0.1),
)


def _ce_arrays(c: CeCell) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    classes = len(c.rows[0]) if c.rows else c.classes
    x = np.array(c.rows, F32).reshape(len(c.rows), classes)
    w = None if c.weight is None else np.array(c.weight, F32)
    return x, np.array(c.targets, np.int64), w


def ce_documented(c: CeCell) -> tuple[float, float]:
    """(PyTorch's formula, which the docs give (the label smoothing term is the kernel's and
    PyTorch's; the docs omit it), in float64 rounded once to float32, the float64 value)."""
    x, t, w = _ce_arrays(c)
    xf = x.astype(np.float64)
    n, classes = xf.shape
    wc = np.ones(classes) if w is None else w.astype(np.float64)
    with np.errstate(all="ignore"):
        m = xf.max(axis=1, keepdims=True) if n else np.zeros((0, 1))
        lp = xf - m - np.log(np.exp(xf - m).sum(axis=1, keepdims=True))
        keep = t != c.ignore
        tt = np.where(keep, t, 0)
        wt = np.where(keep, wc[tt], 0.0)
        nll = -wt * lp[np.arange(n), tt]
        smooth = np.where(keep, -(lp * wc).sum(axis=1), 0.0)
        per_row = (1 - c.ls) * nll + (c.ls / classes * smooth if c.ls > 0 else 0.0)
        value = per_row.sum() / wt.sum() if c.reduction == "mean" else (
            per_row.sum() if c.reduction == "sum" else per_row[0])
    return float(F32(value)), float(value)


def ce_kernel(c: CeCell) -> float:
    from kernels_py.cross_entropy_loss import cross_entropy_loss
    x, t, w = _ce_arrays(c)
    out = cross_entropy_loss(x, t, w, c.reduction, c.ignore, c.ls)
    return float(np.asarray(out).reshape(-1)[0])


def ce_torch(c: CeCell) -> float:
    from kernels_py.cross_entropy_loss.reference import torch_reference
    x, t, w = _ce_arrays(c)
    return float(np.asarray(torch_reference(x, t, w, c.reduction, c.ignore, c.ls)[0])
                 .reshape(-1)[0])


def ce_bound(c: CeCell) -> float | None:
    """reference.torch_tolerance: the derived distance between two float32 evaluations (the
    kernel's and PyTorch's), a bound on each one's error too."""
    from kernels_py.cross_entropy_loss.reference import torch_tolerance
    x, t, w = _ce_arrays(c)
    if not x.size or not np.isfinite(x).all():
        return None
    with np.errstate(all="ignore"):
        tol = np.asarray(torch_tolerance(x, t, w, c.reduction, c.ignore, c.ls)[0]).reshape(-1)
    return float(tol[0]) if math.isfinite(tol[0]) else None


def ce_section() -> Section:
    rows = []
    for c in CE_CELLS:
        documented, exact = ce_documented(c)
        bound = ce_bound(c)
        results = tuple((v, judge(v, documented, bound, exact))
                        for v in (ce_kernel(c), ce_torch(c)))
        logits = "; ".join("[" + ", ".join(fmt(v) for v in r) + "]" for r in c.rows) or \
            f"(0, {c.classes})"
        inputs = (logits, "[" + ", ".join(map(str, c.targets)) + "]",
                  "-" if c.weight is None else "[" + ", ".join(fmt(v) for v in c.weight) + "]",
                  c.reduction, fmt_attr(c.ls), str(c.ignore))
        rows.append(Row(inputs, documented, "formula", results, c.why))
    intro = ("`aclnnCrossEntropyLoss` (fp32). Documented (docs/aclnnCrossEntropyLoss.md, "
             "cann_ops_more.md §2): loss_r = -w[t_r] log_softmax(x_r)[t_r] with PyTorch's "
             "label smoothing (ls - 1) w_t lp_t + (ls / C) sum_c -w_c lp_c (the docs omit it; "
             "the kernel implements it); ignore_index rows count 0 with weight 0; mean divides "
             "by sum w[t]. The documented value is that formula in float64, rounded once to "
             "float32. The kernel: row max by reduce trees, S = sum exp(x - max) (trees of "
             "8192-element sub-blocks added in order), lse = ln S + max, lp = x - lse; then "
             "per-core tree sums, the workspace, SyncAll and core 0's tree over the cores. "
             "ascsim's column is the torch-shaped convenience call (the aclnn pair's loss is "
             "(1)). PyTorch: `cross_entropy` in float32. *Rounding* is the bound of "
             "`reference.torch_tolerance`. Targets outside [0, C) (neither ignore_index) are "
             "not cells: the docs require valid targets, PyTorch raises, ascsim gives NaN for "
             "the row and the public kernel reads out of bounds (README).")
    return Section("CrossEntropyLoss", intro,
                   ("logits (rows)", "target", "weight", "reduction", "ls", "ignore"),
                   ("ascsim", "PyTorch"), tuple(rows))




# ---- MSELossV2 (aclnnMseLoss) ----------------------------------------------------------------

@dataclass(frozen=True)
class MseCell:
    x: float | tuple[float, ...]      # self: one value repeated n times, or the elements
    y: float | tuple[float, ...]      # target, likewise
    reduction: str
    why: str                          # the kernel's mechanism
    n: int = 1
    dtype: str = "float32"
    seed: int | None = None           # random self / target in [-1, 1] of n elements instead
    documented: float | None = None   # a documented value other than the formula ...
    doc_source: str = ""              # ... and where it is stated


MSE_CELLS: tuple[MseCell, ...] = (
    MseCell(3.0, 1.0, "none", "d = x - y, q = d * d in float32: exact here"),
    MseCell(-0.0, 0.0, "none", "d = -0 - 0 = -0; (-0) * (-0) = +0"),
    MseCell(NAN, 0.0, "none", "NaN propagates through Sub and Mul"),
    MseCell(0.0, NAN, "none", "NaN in the target propagates the same way"),
    MseCell(INF, 0.0, "none", "Inf - 0 = Inf; Inf * Inf = Inf"),
    MseCell(INF, INF, "none", "Inf - Inf = NaN"),
    MseCell(-INF, INF, "none", "-Inf - Inf = -Inf; squared +Inf"),
    MseCell(1e20, 0.0, "none", "1e20 * 1e20 overflows float32 to Inf, as the formula rounded "
                               "to float32 does"),
    MseCell(1e-30, 0.0, "none", "1e-60 underflows to +0 in float32"),
    MseCell(300.0, 0.0, "none", "q = 90000 in float32, then CAST_RINT to half: past 65504, "
                                "round to nearest even gives Inf", dtype="float16"),
    MseCell(1.0078125, 0.0, "none", "q = 1.0156860... in float32, CAST_RINT to bfloat16 "
                                    "rounds to nearest even", dtype="bfloat16"),
    MseCell(3.0, 1.0, "mean", "one element: the tile partial 4 times fl32(1/1) = 1"),
    MseCell(0.1, 0.0, "mean", "each element's q times fl32(1/3) = 0.33333334 (the tile's "
                              "partials are scaled before they are added; the kernel never "
                              "divides by N), then the lanes summed by the vcadd tree", n=3),
    MseCell(0.0, 0.0, "mean", "random self and target in [-1, 1] (seed 2): the mean is the sum "
                              "over tiles of fl(partial * fl32(1/N)), not fl(sum / N), which "
                              "puts it 1.2 ULP below the exact mean (sum / N: 0.2 ULP)",
            n=100003, seed=2),
    MseCell(0.0, 0.0, "sum", "the same inputs summed: 48 cores' 8-lane accumulators, the "
                             "bisection folds per tile, the 64-lane vcadd tree", n=100003,
            seed=2),
    MseCell(NAN, 1.0, "sum", "a NaN anywhere makes its lane, then the total, NaN", n=17),
    MseCell(INF, 0.0, "mean", "Inf in a lane: the total is Inf; Inf * fl32(1/N) = Inf", n=17),
    MseCell(200.0, 0.0, "sum", "the float32 total 80000 rounds (CAST_RINT) to half Inf",
            n=2, dtype="float16"),
    MseCell((), (), "mean", "empty input: no kernel; the API fills out with NaN "
                            "(l0op::Fill + ViewCopy)", n=0),
    MseCell((), (), "sum", "empty input: no kernel; the API fills out with 0", n=0),
    MseCell((0.0, 1.0, 2.0, 3.0), (1.0, 1.0, 1.0, 1.0), "mean",
            "((-1)^2 + 0 + 1 + 2^2) / 4 = 1.5; the recorded 0.5 is mean(self - target), not "
            "the MSE (the expectation of the public example, as the fact sheet records it, "
            "does not match the formula)", n=4, documented=0.5,
            doc_source="examples/test_aclnn_mse_loss_v2.cpp expected value (fact sheet)"),
)

_MSE_DTYPES = {"float32": np.float32, "float16": np.float16}


def _mse_dtype(name: str) -> np.dtype:
    import ml_dtypes
    return np.dtype(_MSE_DTYPES.get(name, ml_dtypes.bfloat16))


def mse_inputs(c: MseCell) -> tuple[np.ndarray, np.ndarray]:
    dt = _mse_dtype(c.dtype)
    if c.seed is not None:
        rng = np.random.default_rng(c.seed)
        return tuple(rng.uniform(-1, 1, c.n).astype(F32).astype(dt) for _ in range(2))

    def arr(v: float | tuple[float, ...]) -> np.ndarray:
        vals = np.array(v, np.float64) if isinstance(v, tuple) else np.full(c.n, v)
        with np.errstate(over="ignore"):
            return vals.astype(F32).astype(dt)
    return arr(c.x), arr(c.y)


def mse_documented(c: MseCell, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(the formula in float64 rounded once to the dtype, the float64 value)."""
    with np.errstate(all="ignore"):
        d = x.astype(np.float64) - y.astype(np.float64)
        q = d * d
        v = q if c.reduction == "none" else (q.sum() / q.size if c.reduction == "mean"
                                              else q.sum())
        v = float(np.asarray(v).reshape(-1)[0]) if np.size(v) else float(np.sum(v))
        if c.reduction == "mean" and x.size == 0:
            v = math.nan
        rounded = float(np.asarray(v, np.float64).astype(F32).astype(x.dtype).astype(F32))
    return rounded, v


def mse_torch(x: np.ndarray, y: np.ndarray, reduction: str) -> float:
    """torch.nn.functional.mse_loss on CPU in the inputs' dtype."""
    import torch
    import torch.nn.functional as F
    tdt = {"float32": torch.float32, "float16": torch.float16}.get(x.dtype.name, torch.bfloat16)
    a = torch.tensor(x.astype(F32), dtype=tdt)
    b = torch.tensor(y.astype(F32), dtype=tdt)
    return float(F.mse_loss(a, b, reduction=reduction).reshape(-1)[0].float())


def mse_section() -> Section:
    from kernels_py.mse_loss_v2 import mse_loss
    from kernels_py.mse_loss_v2.reference import error_bound

    rows = []
    for c in MSE_CELLS:
        x, y = mse_inputs(c)
        documented, exact = mse_documented(c, x, y)
        source = "formula"
        bound = None
        if c.documented is not None:  # a stated value: no rounding allowance around it
            documented, exact, source = c.documented, c.documented, c.doc_source
        elif x.size and np.all(np.isfinite(x.astype(F32))) and np.all(np.isfinite(y.astype(F32))):
            bound = float(np.asarray(error_bound(x, y, c.reduction)).reshape(-1)[0])
        kernel = float(np.asarray(mse_loss(x, y, c.reduction)).reshape(-1)[0].astype(F32)) \
            if (x.size or c.reduction != "none") else math.nan
        torch_value = mse_torch(x, y, c.reduction)
        results = tuple((v, judge(v, documented, bound, exact)) for v in (kernel, torch_value))
        if c.seed is not None:
            xs, ys = f"random, seed {c.seed}", "random"
        elif isinstance(c.x, tuple):
            xs = "[" + ", ".join(fmt(v) for v in c.x) + "]" if c.x else "[]"
            ys = "[" + ", ".join(fmt(v) for v in c.y) + "]" if c.y else "[]"
        else:
            xs, ys = fmt(c.x), fmt(c.y)
        reduction = c.reduction if c.n == 1 else f"{c.reduction}, N={c.n}"
        rows.append(Row((c.dtype, xs, ys, reduction), documented, source, results, c.why))
    intro = ("`aclnnMseLoss` (MSELossV2). Documented: l = (self - target)^2; none gives l, "
             "mean sum(l) / N, sum sum(l), N the element count after broadcasting "
             "(aclnnMseLoss.md, cann_ops_more.md §1.2); the documented value is that formula in "
             "float64, rounded once to the dtype, unless a cell names another statement. A "
             "value repeated N times is N equal elements. The kernel computes d = x - y and "
             "q = d * d in float32, folds each tile into 8 lanes, scales the lanes by 1 (sum) "
             "or fl32(1/N) (mean), accumulates them per core and sums the cores' lanes with "
             "the count-form ReduceSum, then rounds to the dtype (CAST_RINT). PyTorch: "
             "`torch.nn.functional.mse_loss` on CPU in the same dtype. *Rounding* here is the "
             "error bound of `kernels_py/mse_loss_v2/reference.error_bound` (48 cores).")
    return Section("MSELossV2", intro, ("dtype", "self", "target", "reduction"),
                   ("ascsim kernel", "PyTorch"), tuple(rows))


SECTIONS: list[Callable[[], Section]] = [logit_grad_section, sce_section, mse_section,
                                          ce_section]


def build() -> str:
    return render([make() for make in SECTIONS])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if docs/conformance.md is stale")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    text = build()
    if args.check:
        current = REPORT.read_text() if REPORT.exists() else ""
        if current != text:
            print(f"{REPORT} is stale: run python tools/conformance.py")
            return 1
        print(f"{REPORT} is current")
        return 0
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(text)
    print(f"wrote {REPORT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
