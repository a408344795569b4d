"""Operators of your own: `ascsim.Operator`, the four ways to name one (file, entry point,
shipped name, module), every op-level command on the SiluGrad example, and the one-line errors.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import ascsim
from ascsim import oprunner
from ascsim.cli import main
from ascsim.errors import UsageError
from ascsim.sweep import sweep

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "tools" / "examples" / "silu_grad.py"


@pytest.fixture
def dotted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The example as a module of a package on sys.path: `byo_ops.silu_grad`."""
    pkg = tmp_path / "byo_ops"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    shutil.copy(EXAMPLE, pkg / "silu_grad.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "byo_ops.silu_grad"


@pytest.fixture(params=["path", "module"])
def spec(request: pytest.FixtureRequest) -> str:
    if request.param == "path":
        return str(EXAMPLE.relative_to(ROOT)) if Path.cwd() == ROOT else str(EXAMPLE)
    return request.getfixturevalue("dotted")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- the example through every command ------------------------------------------------------

def test_run_is_bit_exact(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    for dtype in ("float32", "float16", "bfloat16"):
        code, out, err = run_cli(capsys, "run", spec, "--shape", "3,1001", "--dtype", dtype,
                                 "--x-range", "20")
        assert code == 0, out + err
        assert "silu_grad: shape [3, 1001]" in out
        assert "max ULP difference 0 (bit-exact)" in out


def test_profile_writes_the_trace(spec: str, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "silu.json"
    code, out, err = run_cli(capsys, "profile", spec, "--shape", "10000", "--trace", str(trace))
    assert code == 0, out + err
    assert "bit-exact" in out
    assert json.loads(trace.read_text())["traceEvents"]


def test_sweep_runs_every_choice(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "sweep", spec, "--shape", "8192", "--set", "cores=1,2",
                             "--set", "tile=1024,4096", "--workers", "1", "--scheduler", "none")
    assert code == 0, out + err
    rows = [line.split() for line in out.splitlines()[1:5]]
    assert [(r[0], r[1]) for r in rows] == [("1", "1024"), ("1", "4096"), ("2", "1024"),
                                            ("2", "4096")]
    assert all(r[-2:] == ["yes", "default"] or r[-1] == "yes" for r in rows)
    assert rows[3][-1] == "default"  # 8192 elements: 2 tiles of 4096 on 2 cores


def test_sanitizer_is_clean(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    for dtype in ("float32", "bfloat16"):
        code, out, err = run_cli(capsys, "sanitize", spec, "--shape", "3,5001", "--dtype", dtype)
        assert code == 0, out + err
        assert "0 error(s), 0 warning(s) on 4 core(s)" in out


def test_trace_prints_a_core(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "trace", spec, "--shape", "100", "--core", "0",
                             "--values", "2")
    assert code == 0, out + err
    assert "Duplicate" in out and "DataCopyPad" in out and "silu_grad.py:" in out


def test_the_op_help_lists_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["run", str(EXAMPLE), "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "silu_grad options" in out and "--x-range" in out and "--eps" not in out


# ---- one-line errors -------------------------------------------------------------------------

def assert_one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str],
                          text: str) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and text in lines[0], err
    assert lines[0].startswith(f"ascsim {argv[0]}: ")


def test_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_line_error(capsys, ["run", "logit_grd"],
                          "unknown operator 'logit_grd' (did you mean logit_grad?)")


def test_file_without_an_operator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "not_an_op.py"
    path.write_text("X = 1\n")
    assert_one_line_error(capsys, ["sanitize", str(path)], "defines no ascsim.Operator")


def test_file_with_two_operators(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "two_ops.py"
    path.write_text(f"import runpy\nA = runpy.run_path({str(EXAMPLE)!r})['OPERATOR']\n"
                    "import dataclasses\nB = dataclasses.replace(A, name='other')\n")
    assert_one_line_error(capsys, ["trace", str(path)], "defines 2 Operators (A, B)")


def test_file_that_does_not_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken.py"
    path.write_text("import no_such_module_here\n")
    assert_one_line_error(capsys, ["profile", str(path)],
                          "ModuleNotFoundError: No module named 'no_such_module_here'")
    assert_one_line_error(capsys, ["run", str(tmp_path / "missing.py")], "not found")


def test_bad_shape_dtype_and_knob(capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_line_error(capsys, ["run", "logit_grad", "--shape", "4,a"], "bad --shape '4,a'")
    assert_one_line_error(capsys, ["run", str(EXAMPLE), "--dtype", "int8"], "unknown --dtype")
    assert_one_line_error(capsys, ["sweep", "logit_grad", "--shape", "100", "--set", "tile=1"],
                          "logit_grad has no tiling knob tile")


# ---- discovery in the library ---------------------------------------------------------------

def test_every_form_loads_the_same_operator(dotted: str, monkeypatch: pytest.MonkeyPatch) -> None:
    by_path = ascsim.load_operator(str(EXAMPLE))
    by_module = ascsim.load_operator(dotted)
    by_attr = ascsim.load_operator(dotted + ":OPERATOR")
    assert by_path.name == by_module.name == "silu_grad"
    assert by_module is by_attr
    assert ascsim.load_operator(by_path) is by_path
    entry = importlib.metadata.EntryPoint("silu", dotted + ":OPERATOR", oprunner.ENTRY_POINT_GROUP)
    monkeypatch.setattr(oprunner, "_entry_points", lambda: {"silu": entry})
    monkeypatch.setattr(oprunner, "_cache", {})
    assert ascsim.load_operator("silu") is by_module
    assert "silu" in oprunner.operator_names()


def test_shipped_names_without_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    """A source checkout that was never installed still finds the shipped operators."""
    monkeypatch.setattr(oprunner, "_entry_points", dict)
    monkeypatch.setattr(oprunner, "_cache", {})
    op = ascsim.load_operator("logit_grad")
    assert op.op_type == "LogitGrad" and set(op.tiling_knobs()) == {"cores"}
    sce = ascsim.load_operator("sigmoid_cross_entropy_with_logits_grad_v2")
    assert [o.name for o in sce.options] == ["reduction", "weight", "pos_weight", "direct"]


def test_the_shipped_entry_points_are_registered() -> None:
    names = {ep.name for ep in importlib.metadata.entry_points(group="ascsim.ops")}
    if not names:
        pytest.skip("ascsim is not pip-installed here (a source checkout)")
    assert {"logit_grad", "sigmoid_cross_entropy_with_logits_grad_v2"} <= names
    assert ascsim.load_operator("logit_grad") is oprunner._operator_in(
        importlib.import_module("kernels_py.logit_grad.runner"), "logit_grad")


def test_a_broken_entry_point_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = importlib.metadata.EntryPoint("bad", "no_such_pkg_xyz:OP", oprunner.ENTRY_POINT_GROUP)
    monkeypatch.setattr(oprunner, "_entry_points", lambda: {"bad": entry})
    monkeypatch.setattr(oprunner, "_cache", {})
    with pytest.raises(UsageError, match="entry point bad .* does not load"):
        ascsim.load_operator("bad")


def test_sweep_raises_instead_of_exiting() -> None:
    with pytest.raises(UsageError, match="unknown operator 'logit_grd'"):
        sweep("logit_grd", (100,), "float32", {"cores": [1]})
    with pytest.raises(UsageError, match="silu_grad takes dtype"):
        sweep(str(EXAMPLE), (100,), np.int32, {"cores": [1]})


def test_sweep_takes_operator_objects() -> None:
    """A loaded Operator reaches the workers through its spec; one built in Python that does
    not pickle (a lambda) runs its combinations in this process."""
    op = ascsim.load_operator(str(EXAMPLE))
    assert oprunner.spec_of(op) == str(EXAMPLE)
    local = dataclasses.replace(op, name="silu_local", tiles=lambda inputs, options: 0)
    assert oprunner.spec_of(local) is None
    for candidate in (op, local):
        table = sweep(candidate, (9000,), None, {"cores": [1, 3]}, workers=2)
        assert [(r["block_dim"], r["bit_exact"]) for r in table.rows] == [(1, True), (3, True)]
        assert table.op == candidate.name


def test_the_operator_api() -> None:
    op = ascsim.load_operator(str(EXAMPLE))
    assert op.dtypes == ("float32", "float16", "bfloat16") and op.op_type == "SiluGrad"
    assert set(op.tiling_knobs()) == {"cores", "tile"}
    inputs, options = op.prepare("2,300", "bf16", seed=3)
    assert options == {"x_range": 8.0} and inputs["x"].shape == (2, 300)
    out, run = op.run(inputs, options, sanitize="check")
    assert run.block_dim == 1 and not run.findings
    assert np.array_equal(out.view(np.uint16), op.model(inputs, options).view(np.uint16))
    with pytest.raises(UsageError, match="silu_grad has no option eps"):
        op.option_values({"eps": 1.0})
    with pytest.raises(UsageError, match="unknown --dtype"):
        ascsim.Operator("x", op.run, op.make_inputs, op.model, dtypes=("float8",))
    empty, run = op.run(*op.prepare((0,)))
    assert empty.shape == (0,) and run is None


# ---- the README shows the example as it is ---------------------------------------------------

def test_readme_shows_the_example_file() -> None:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("<!-- silu-grad-example -->\n```python\n")
    start = readme.index("```python\n", start) + len("```python\n")
    end = readme.index("```\n<!-- /silu-grad-example -->", start)
    assert readme[start:end] == EXAMPLE.read_text(), \
        "README's 'Write your own operator' must show tools/examples/silu_grad.py verbatim"


@pytest.mark.parametrize("weights", [(), ("weight",), ("pos_weight",), ("weight", "pos_weight")])
@pytest.mark.parametrize("reduction", ["none", "sum"])
def test_sce_direct_runs_are_checked_against_their_variant(weights, reduction) -> None:
    """`--direct` launches the variant for exactly the weights given; the model it is checked
    against must be that variant's op order, not the aclnn path's (both weights, ones)."""
    op = oprunner.load_operator("sigmoid_cross_entropy_with_logits_grad_v2")
    options = {"reduction": reduction, "direct": True, **{w: True for w in weights}}
    inputs, options = op.prepare((4, 300), "float32", 3, options)
    out, _ = op.run(inputs, options)
    assert out.dtype == np.float32
    assert np.array_equal(out.view(np.uint32), op.model(inputs, options).view(np.uint32))


def test_snake_case_splits_acronyms_where_the_next_word_starts():
    from ascsim.host import snake_case
    assert snake_case("MSELossV2") == "mse_loss_v2"
    assert snake_case("SigmoidCrossEntropyWithLogitsGradV2") == \
        "sigmoid_cross_entropy_with_logits_grad_v2"
    assert snake_case("LogitGrad") == "logit_grad"
