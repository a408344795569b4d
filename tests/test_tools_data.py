"""tools/gen_data.py and tools/compare_data.py: the CANN-style workflow end to end (generate a
case, run the kernel, compare), per-dtype tolerances against --bit-exact, the failure reports
and exit statuses, the .bin format, and a user's own operator."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from ascsim.testing.datafiles import load_meta, read_array, read_inputs, write_output
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    binary_cross_entropy_with_logits_backward,
)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import compare_data  # noqa: E402
import gen_data  # noqa: E402

BF16 = np.dtype(ml_dtypes.bfloat16)


def tool(name: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "tools" / f"{name}.py"), *args],
                          capture_output=True, text=True, timeout=600)


def compare(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str]:
    code = compare_data.main(list(args))
    return code, capsys.readouterr().out


def corrupt(case: Path, index: int, change: object) -> None:
    """Apply `change(bits_array)` to the output file's bits in place."""
    path = case / "output" / "output.bin"
    meta = load_meta(case)
    width = np.dtype(BF16 if meta["output"]["dtype"] == "bfloat16"
                     else meta["output"]["dtype"]).itemsize
    bits = np.fromfile(path, dtype=f"<u{width}")
    bits[index] = change(bits[index])
    bits.tofile(path)


def test_end_to_end_from_the_command_line(tmp_path: Path) -> None:
    case = tmp_path / "lg"
    r = tool("gen_data", "logit_grad", "--shape", "3,1000", "--dtype", "float16", "--eps", "0.1",
             "--seed", "7", "--out", str(case), "--run")
    assert r.returncode == 0, r.stderr
    assert "output/output.bin (ascsim)" in r.stdout
    r = tool("compare_data", str(case), "--bit-exact")
    assert r.returncode == 0 and "PASS: all 3000 elements match" in r.stdout, r.stdout + r.stderr
    corrupt(case, 1234, lambda b: b ^ 0x4000)
    r = tool("compare_data", str(case))
    assert r.returncode == 1, r.stdout
    assert "FAIL: 1 of 3000 elements are outside rtol=0.001, atol=0.001; first at index " \
           "(1, 234)" in r.stdout
    assert "PASS" not in r.stdout


def test_case_directory_layout_and_meta(tmp_path: Path) -> None:
    case = tmp_path / "sce"
    assert gen_data.main(["sigmoid_cross_entropy_with_logits_grad_v2", "--shape", "5,7",
                          "--dtype", "bfloat16", "--reduction", "sum", "--weight",
                          "--out", str(case)]) == 0
    meta = load_meta(case)
    assert meta["op"] == "sigmoid_cross_entropy_with_logits_grad_v2"
    # every op option is recorded (the op's own defaults included)
    assert {"reduction": "sum", "weight": True, "pos_weight": False}.items() <= \
        meta["params"].items()
    assert meta["inputs"]["pos_weight"] is None and not (case / "input/pos_weight.bin").exists()
    assert meta["inputs"]["grad_output"]["shape"] == [1]
    # bf16 files hold 2-byte bit patterns (never float32), exactly the arrays' bits
    assert (case / "input/self.bin").stat().st_size == 35 * 2
    inputs = read_inputs(case)
    assert inputs["self"].dtype == BF16 and inputs["self"].shape == (5, 7)
    raw = np.fromfile(case / "input/self.bin", dtype="<u2")
    np.testing.assert_array_equal(raw, inputs["self"].reshape(-1).view(np.uint16))
    # the user's step: run the kernel on the files' inputs, write the output, compare
    out = binary_cross_entropy_with_logits_backward(
        inputs["grad_output"], inputs["self"], inputs["target"], inputs["weight"],
        inputs["pos_weight"], meta["params"]["reduction"])
    write_output(case, out)
    assert compare_data.main([str(case), "--bit-exact"]) == 0
    golden = read_array(case, meta["golden"])
    assert golden.dtype == BF16 and np.array_equal(golden.view(np.uint16), out.view(np.uint16))
    with pytest.raises(ValueError, match=r"output is float32\[5, 7\], the case expects "
                                         r"bfloat16\[5, 7\]"):
        write_output(case, out.astype(np.float32))


@pytest.fixture(scope="module")
def bf16_case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    case = tmp_path_factory.mktemp("bf16") / "case"
    assert gen_data.main(["logit_grad", "--shape", "300", "--dtype", "bf16", "--out", str(case),
                          "--run"]) == 0
    return case


def fresh_copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def test_one_ulp_passes_tolerance_but_not_bit_exact(bf16_case: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    case = fresh_copy(bf16_case, tmp_path / "c")
    golden = read_array(case, load_meta(case)["golden"])
    i = int(np.flatnonzero(np.isfinite(golden.astype(np.float32)) & (golden != 0))[0])
    corrupt(case, i, lambda b: b + 1)
    code, out = compare(capsys, str(case))
    assert code == 0 and "PASS: all 300 elements match (largest distance 1 ULP)" in out
    code, out = compare(capsys, str(case), "--bit-exact")
    assert code == 1 and "PASS" not in out
    assert f"FAIL: 1 of 300 elements differ bit for bit; first at index ({i},)" in out
    assert "1 ULP apart" in out
    code, out = compare(capsys, str(case), "--rtol", "0", "--atol", "0")
    assert code == 1 and "outside rtol=0, atol=0" in out


@pytest.mark.parametrize(("change", "message"), [
    (lambda b: 0x7FC0, "NaN against a number"),            # NaN where the golden is finite
    (lambda b: b ^ 0x8000, "ULP apart"),                    # sign flip
], ids=["nan", "sign"])
def test_failures_report_the_element(bf16_case: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture, change: object,
                                     message: str) -> None:
    case = fresh_copy(bf16_case, tmp_path / "c")
    golden = read_array(case, load_meta(case)["golden"]).astype(np.float32)
    i = int(np.flatnonzero(np.isfinite(golden) & (golden != 0))[-1])
    corrupt(case, i, change)
    code, out = compare(capsys, str(case))
    assert code == 1 and "PASS" not in out and f"first at index ({i},)" in out and message in out


def test_inf_must_match_exactly(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    golden = np.array([np.inf, 1.0, -np.inf], np.float32)
    out = np.array([np.inf, 1.0, np.finfo(np.float32).min], np.float32)
    golden.tofile(tmp_path / "g.bin")
    out.tofile(tmp_path / "o.bin")
    code, text = compare(capsys, "--output", str(tmp_path / "o.bin"), "--golden",
                         str(tmp_path / "g.bin"), "--dtype", "float32", "--rtol", "1")
    assert code == 1 and "first at index (2,)" in text and "PASS" not in text


def test_files_that_cannot_be_compared(bf16_case: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture) -> None:
    case = fresh_copy(bf16_case, tmp_path / "c")
    (case / "output" / "output.bin").write_bytes(b"\0" * 598)      # one element short
    code, out = compare(capsys, str(case))
    assert code == 2 and "598 bytes, but bfloat16[300] needs 600" in out
    assert "FAIL (nothing was compared)" in out and "PASS" not in out
    (case / "output" / "output.bin").unlink()
    code, out = compare(capsys, str(case))
    assert code == 2 and "No such file" in out and "PASS" not in out


def test_raw_files_mode(bf16_case: Path, capsys: pytest.CaptureFixture) -> None:
    code, out = compare(capsys, "--output", str(bf16_case / "output/output.bin"), "--golden",
                        str(bf16_case / "output/golden.bin"), "--dtype", "bf16", "--shape",
                        "3,100", "--bit-exact")
    assert code == 0 and "bfloat16[3, 100]" in out and "PASS" in out


OPERATOR = '''
import numpy as np
import ascsim

def make_inputs(shape, dtype, rng, options):
    return {"a": rng.uniform(-1, 1, shape).astype(dtype)}

def model(inputs, options):
    return (inputs["a"].astype(np.float32) * np.float32(options["scale"])).astype(
        inputs["a"].dtype)

def run(inputs, options, **device):
    raise NotImplementedError("the kernel is not written yet")

OPERATOR = ascsim.Operator(name="my_scale", run=run, make_inputs=make_inputs, model=model,
                           dtypes=("float16",), options=(ascsim.Option("scale", float, 2.0),))
'''


def test_a_users_operator_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "my_scale_op.py").write_text(OPERATOR)
    monkeypatch.syspath_prepend(str(tmp_path))
    case = tmp_path / "mine"
    # the op's first dtype is the default; its option is on the command line
    assert gen_data.main(["my_scale_op", "--shape", "10", "--scale", "3",
                          "--out", str(case)]) == 0
    meta = load_meta(case)
    assert meta["params"] == {"scale": 3.0}
    a = read_inputs(case)["a"]
    assert a.dtype == np.float16
    write_output(case, (a.astype(np.float32) * 3).astype(np.float16))
    code, out = compare(capsys, str(case), "--bit-exact")
    assert code == 0, out


def test_user_errors_are_one_line_and_status_2(tmp_path: Path,
                                               capsys: pytest.CaptureFixture) -> None:
    for argv, message in (
            (["no_such_operator_module", "--shape", "3"], "no_such_operator_module"),
            (["logit_grad", "--shape", "3,x"], "bad --shape '3,x'"),
            (["logit_grad", "--shape", "3", "--dtype", "int7"], "unknown --dtype 'int7'")):
        assert gen_data.main([*argv, "--out", str(tmp_path / "case")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("gen_data: ") and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "case").exists()


def test_a_users_operator_file_runs_on_ascsim(tmp_path: Path) -> None:
    case = tmp_path / "silu"
    r = tool("gen_data", str(ROOT / "tools/examples/silu_grad.py"), "--shape", "257",
             "--dtype", "bf16", "--out", str(case), "--run")
    assert r.returncode == 0, r.stderr
    r = tool("compare_data", str(case), "--bit-exact")
    assert r.returncode == 0 and "PASS: all 257 elements match" in r.stdout, r.stdout + r.stderr
