"""The bug corpus (tests/bugs/): every broken kernel is reported with the right kind, check,
severity and kernel line, its fixed twin is reported clean, and strict mode raises the right
SimulationError subclass."""

from __future__ import annotations

import importlib
import pkgutil

import bugs as corpus
import pytest

import ascsim.errors as errors
from ascsim.sanitizer import Finding
from ascsim.sanitizer.report import sort_key

MODULES = sorted(m.name for m in pkgutil.iter_modules(corpus.__path__)
                 if not m.name.startswith("_"))


def _module(name: str):
    return importlib.import_module(f"bugs.{name}")


def _describe(findings: list[Finding]) -> str:
    return "\n".join(f"  {f.severity} {f.kind}: {f.check} at {f.py} ({f.instruction})"
                     for f in findings) or "  (no findings)"


def test_the_corpus_is_large_enough():
    expectations = sum(len(_module(name).EXPECT) for name in MODULES)
    assert len(MODULES) >= 20 and expectations >= 25
    kinds = {e.kind for name in MODULES for e in _module(name).EXPECT}
    assert kinds >= {"memcheck", "racecheck", "synccheck", "initcheck", "multicore", "assert"}


@pytest.mark.parametrize("name", MODULES)
def test_bug_is_found_at_its_line(name):
    mod = _module(name)
    run = mod.run("check")
    report = run.report()
    assert mod.EXPECT, f"{name}: a corpus module expects at least one finding"
    for exp in mod.EXPECT:
        assert exp.check, f"{name}: an empty check name would match any finding"
        where = exp.position(mod.__file__)
        hits = [f for f in run.findings if f.kind == exp.kind and exp.check in f.check
                and f.severity == exp.severity and f.py == where]
        assert hits, (f"{name}: no {exp.severity} {exp.kind} '{exp.check}' at {where}; "
                      f"found:\n{_describe(run.findings)}")
        # the report shows each group of alike findings by its first one, in full
        group = [f for f in run.findings if f.group_key() == hits[0].group_key()]
        assert min(group, key=sort_key).format() in report
    assert "SUMMARY" in report
    for runner, kinds in getattr(mod, "QUIET", ()):
        quiet = runner("check")
        noisy = [f for f in quiet.findings if f.kind in kinds]
        assert not noisy, f"{name}: {runner.__name__} should be clean:\n{_describe(noisy)}"


def test_every_bug_has_a_clean_twin_or_says_why():
    missing = [n for n in MODULES
               if not hasattr(_module(n), "run_fixed") and not getattr(_module(n), "NO_TWIN", "")]
    assert not missing, f"corpus modules without run_fixed or a NO_TWIN reason: {missing}"


@pytest.mark.parametrize("name", [n for n in MODULES if hasattr(_module(n), "run_fixed")])
def test_fixed_twin_is_clean(name):
    """The bug's kernel with the bug fixed: no finding of any kind or severity."""
    run = _module(name).run_fixed("check")
    assert not run.findings, f"{name}: the fixed twin should be clean:\n{_describe(run.findings)}"


@pytest.mark.parametrize("name", [n for n in MODULES if getattr(_module(n), "STRICT", None)])
def test_strict_mode_raises_the_right_error(name, capsys):
    mod = _module(name)
    cls = getattr(errors, mod.STRICT)
    with pytest.raises(cls) as info:
        mod.run("strict")
    # exactly the declared class: pytest.raises alone would accept any subclass of it
    assert type(info.value) is cls, f"{name}: raised {type(info.value).__name__}"


def test_off_mode_raises_plain_faults_as_before():
    mod = _module("mc_ub_count_past_buffer")
    with pytest.raises(errors.OutOfRangeError, match="count is larger than the tensor size"):
        mod.run("off")


def test_off_mode_does_not_analyse():
    mod = _module("rc_missing_mte2_v")
    assert mod.run("check").findings       # the contrast: there is a race to find
    assert mod.run("off").findings == []
