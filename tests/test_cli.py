"""The command line: every subcommand runs, writes what it says and exits with the right code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ascsim.cli import main


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for command in ("run", "profile", "profiles", "mirror", "sweep", "sanitize", "trace"):
        assert command in out


def test_run_checks_against_the_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "logit_grad", "--shape", "3,8200", "--dtype", "float16",
                 "--eps", "0.25"]) == 0
    out = capsys.readouterr().out
    assert "cores        4 (block_dim)" in out  # 24600 elements: 4 tiles of 8192
    assert "tiles        4" in out
    assert "max ULP difference 0" in out


def test_profile_writes_every_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = {k: tmp_path / name for k, name in
             (("timeline", "t.png"), ("trace", "t.json"), ("csv", "p.csv"),
              ("occupancy", "o.png"))}
    argv = ["profile", "logit_grad", "--shape", "20000", "--dtype", "bfloat16"]
    for key, path in paths.items():
        argv += [f"--{key}", str(path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "busy/aiv" in out and "max ULP difference 0" in out
    for path in paths.values():
        assert path.stat().st_size > 0
    trace = json.loads(paths["trace"].read_text())
    assert trace["profilingType"] == "op"
    assert paths["csv"].read_text().splitlines()[0].count("aiv_vec_ratio") == 1
    assert paths["timeline"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unknown_operator_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "no_such_op"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ascsim run: unknown operator 'no_such_op'") and err.count("\n") == 1


def test_debug_shows_the_traceback() -> None:
    from ascsim.errors import UsageError
    with pytest.raises(UsageError, match="unknown operator"):
        main(["--debug", "run", "no_such_op"])


def test_op_options_follow_the_op(capsys: pytest.CaptureFixture[str]) -> None:
    """Each op's options come from its Operator: --eps for logit_grad, not for the other."""
    assert main(["run", "sigmoid_cross_entropy_with_logits_grad_v2", "--shape", "100",
                 "--reduction", "sum", "--weight", "--dtype", "float16"]) == 0
    assert "max ULP difference 0" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main(["run", "sigmoid_cross_entropy_with_logits_grad_v2", "--eps", "1"])
    assert e.value.code == 2
    assert "unrecognized arguments: --eps" in capsys.readouterr().err


def test_trace_core_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trace", "logit_grad", "--shape", "100", "--core", "3"]) == 2
    assert capsys.readouterr().err == \
        "ascsim trace: --core 3 is outside the launch's 1 core(s)\n"


def test_console_script_entry_point() -> None:
    done = subprocess.run([sys.executable, "-m", "ascsim.cli", "profiles"], capture_output=True,
                          text=True, check=True)
    assert "Ascend910B2" in done.stdout and "Ascend910_93" in done.stdout


@pytest.mark.parametrize("op", ["logit_grad", "sigmoid_cross_entropy_with_logits_grad_v2",
                                "mse_loss_v2", "cross_entropy_loss"])
def test_a_float32_run_imports_neither_ml_dtypes_nor_dask(op: str) -> None:
    """Importing ml_dtypes registers its numpy loops (about 0.8 s here) and Dask takes 0.3 s:
    a command that needs neither (no bf16, no sweep) must not pay for them."""
    code = ("import sys; from ascsim.cli import main; "
            f"assert main(['run', '{op}', '--shape', '64,1024']) == 0; "
            "print(sorted(m for m in ('ml_dtypes', 'dask', 'distributed') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.splitlines()[-1] == "[]", done.stdout


@pytest.mark.parametrize("argv, message", [
    (["run", "logit_grad", "--threads", "0"], "argument --threads: 0 is not a positive count"),
    (["run", "logit_grad", "--threads", "-3"], "argument --threads: -3 is not a positive count"),
    (["run", "logit_grad", "--threads", "abc"], "argument --threads: 'abc' is not an integer"),
    (["profile", "logit_grad", "--window", "8,4"], "0 <= START < END"),
    (["profile", "logit_grad", "--window", "8"], "takes START,END"),
    (["profile", "logit_grad", "--cores", "3-1"], "'3-1' is not a range of core numbers"),
    (["profile", "logit_grad", "--cores", "a"], "use core numbers and ranges"),
])
def test_a_bad_argument_is_one_line(argv: list[str], message: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith(f"ascsim {argv[0]}: ")


def test_a_zoom_outside_the_run_is_refused(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    png = str(tmp_path / "t.png")
    base = ["profile", "logit_grad", "--shape", "100", "--timeline", png]
    assert main([*base, "--cores", "0,99"]) == 2
    assert capsys.readouterr().err == "ascsim profile: --cores 99: this run used cores 0..0\n"
    assert main([*base, "--window", "1e6,2e6"]) == 2
    assert "after the run ended" in capsys.readouterr().err
    assert not Path(png).exists()


def test_a_shape_too_big_for_memory_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "logit_grad", "--shape", "100000000000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ascsim run: --shape 100000000000: its random inputs need 745 GiB")
    assert err.count("\n") == 1


def test_cross_entropy_loss_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """run, sanitize and profile on CrossEntropyLoss: bit-exact, clean, and a trace with the
    cores' SyncAll (the cross-core phase of mean / sum)."""
    assert main(["run", "cross_entropy_loss", "--shape", "50,700", "--dtype", "bfloat16",
                 "--weight", "--label-smoothing", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "cores        48 (block_dim)" in out and "max ULP difference 0" in out
    assert main(["sanitize", "cross_entropy_loss", "--shape", "9,100", "--reduction",
                 "sum"]) == 0
    assert "0 error(s), 0 warning(s)" in capsys.readouterr().out
    trace = tmp_path / "t.json"
    assert main(["profile", "cross_entropy_loss", "--shape", "6,300", "--trace",
                 str(trace)]) == 0
    events = json.loads(trace.read_text())["traceEvents"]
    assert sum(1 for e in events if e.get("name") == "SyncAll") == 6


def test_mse_run_sanitize_and_profile_show_the_syncall(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """mse_loss_v2 through the commands: run (sanitizer on) is bit-exact; sanitize is clean;
    the profile's trace has one SyncAll per core, all released together (a barrier), each
    pointing at the kernel line and its C++ twin."""
    assert main(["run", "mse_loss_v2", "--shape", "20011", "--dtype", "bfloat16",
                 "--reduction", "mean", "--sanitize", "check"]) == 0
    out = capsys.readouterr().out
    assert "cores        10 (block_dim)" in out and "max ULP difference 0" in out  # 1250 blocks
    assert out.count("====== SUMMARY") == 1  # the warm-up run reports nothing
    assert main(["sanitize", "mse_loss_v2", "--shape", "1031", "--reduction", "sum"]) == 0
    trace_path = tmp_path / "t.json"
    assert main(["profile", "mse_loss_v2", "--shape", "40000", "--reduction", "sum",
                 "--trace", str(trace_path), "--timeline", str(tmp_path / "t.png")]) == 0
    events = [e for e in json.loads(trace_path.read_text())["traceEvents"]
              if e.get("name") == "SyncAll"]
    assert len({e["pid"] for e in events}) == len(events) == 40  # 5000 blocks: 40 cores
    assert len({e["args"]["cycles"][1] for e in events}) == 1    # all released at once
    assert all(e["args"]["code"].endswith("mse_loss_v2_sum.py:83") and
               e["args"]["cpp"].startswith("kernels_cpp/mse_loss_v2/op_kernel/mse_loss_v2_sum.h")
               for e in events)
