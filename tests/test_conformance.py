"""docs/conformance.md is what tools/conformance.py generates now (kernel and PyTorch results
included), its verdicts follow from the values, and --check fails on a stale report."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import conformance  # noqa: E402


@pytest.fixture(scope="module")
def report() -> str:
    return conformance.build()


def test_committed_report_is_current(report: str) -> None:
    committed = conformance.REPORT.read_text()
    if committed != report:
        old, new = committed.splitlines(), report.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
                     min(len(old), len(new)))
        pytest.fail(f"docs/conformance.md is stale (first difference at line {first + 1}: "
                    f"{old[first] if first < len(old) else '<end>'!r} vs "
                    f"{new[first] if first < len(new) else '<end>'!r}); run "
                    "`python tools/conformance.py`")


def test_check_mode(report: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr(conformance, "build", lambda: report)
    monkeypatch.setattr(conformance, "REPORT", tmp_path / "conformance.md")
    assert conformance.main(["--check"]) == 1          # missing
    (tmp_path / "conformance.md").write_text(report.replace("| 4 |", "| 4.0 |", 1))
    assert conformance.main(["--check"]) == 1          # edited
    assert "stale" in capsys.readouterr().out
    assert conformance.main([]) == 0
    assert conformance.main(["--check"]) == 0
    assert (tmp_path / "conformance.md").read_text() == report


def test_every_operator_has_a_section(report: str) -> None:
    from golden.cases import OPERATORS
    sections = [make() for make in conformance.SECTIONS]
    assert len(sections) == len(OPERATORS)
    for s in sections:
        assert f"## {s.title}" in report
        assert all(r.why for r in s.rows), f"{s.title}: a cell without its mechanism"


def test_verdicts_follow_from_the_values() -> None:
    j = conformance.judge
    assert j(math.nan, math.nan).kind == "agrees"
    assert j(-0.0, 0.0).kind == "differs"                  # the sign of zero is behaviour
    assert j(0.0, -2.06e-9, bound=1.8e-7, exact=-2.06e-9).kind == "rounding"
    assert j(0.0, 3.8e-44, bound=1e-44, exact=3.7e-44).kind == "differs"
    assert j(math.nan, -math.inf, bound=1.0, exact=-math.inf).kind == "differs"
    v = j(float(np.nextafter(np.float32(1), np.float32(2))), 1.0, bound=1e-6, exact=1.0)
    assert (v.kind, v.ulp) == ("rounding", 1)


def test_sce_kernel_cells_are_the_kernel_model() -> None:
    """The ascsim columns are the kernel's float32 chain: equal to the op's numpy models."""
    from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2.reference import (
        direct_model,
        numpy_model,
    )
    for c in conformance.SCE_CELLS:
        api, direct = conformance.sce_kernel(c)

        def full(v: float | None, n: int = c.n) -> np.ndarray | None:
            return None if v is None else np.full(n, v, np.float32)

        grad = np.full(c.n if c.reduction == "none" else 1, c.dout, np.float32)
        with np.errstate(all="ignore"):
            want_api = numpy_model(grad, full(c.x), full(c.y), full(c.weight),
                                   full(c.pos_weight), c.reduction)[0]
            want_direct = direct_model(full(c.x), full(c.y), full(c.dout), full(c.weight),
                                       full(c.pos_weight), c.reduction)[0]
        assert conformance.same(api, float(want_api)), c
        assert conformance.same(direct, float(want_direct)), c
