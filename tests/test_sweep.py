"""Tiling sweeps: every combination runs, the op's default is marked, results stay bit-exact,
and the table is written as CSV and as a picture."""

from __future__ import annotations

import csv
import logging
from pathlib import Path

import pytest

from ascsim.errors import UsageError
from ascsim.sweep import sweep
from ascsim.tuning import tiling_overrides
from kernels_py.logit_grad import logit_grad


def test_sweep_logit_grad_cores(tmp_path: Path) -> None:
    table = sweep("logit_grad", (5, 8192), "float32", {"cores": [1, 2, 5, 6]}, workers=2)
    rows = {r["cores"]: r for r in table.rows}
    assert list(rows) == [1, 2, 5, 6]
    assert table.defaults == {"cores": 5}
    assert [r["default"] for r in table.rows] == [False, False, True, False]
    for cores in (1, 2, 5, 6):
        assert rows[cores]["error"] is None and rows[cores]["bit_exact"]
        assert rows[cores]["block_dim"] == cores
    # five tiles: one core does them all in sequence; five cores do one each
    assert rows[1]["time_us"] > rows[2]["time_us"] > rows[5]["time_us"]
    assert table.best()["cores"] in (5, 6)
    path = table.write_csv(tmp_path / "sweep.csv")
    with path.open() as f:
        got = list(csv.DictReader(f))
    assert [int(r["cores"]) for r in got] == [1, 2, 5, 6]
    assert {"time_us", "vec_ratio", "mte2_ratio", "mte3_ratio", "scalar_ratio",
            "default"} <= set(got[0])
    png = table.plot(tmp_path / "sweep.png")
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_invalid_choice_is_a_failed_row_not_a_crash() -> None:
    table = sweep("logit_grad", (100,), "float16", {"cores": [1, 4096]}, workers=1)
    ok, bad = table.rows
    assert ok["error"] is None and ok["bit_exact"]
    assert "cores=4096" in bad["error"]


def test_unknown_knob_is_rejected() -> None:
    with pytest.raises(UsageError, match="no tiling knob tile"):
        sweep("logit_grad", (100,), "float32", {"tile": [1]})


def test_bad_requests_raise_usage_errors() -> None:
    """Library code raises; it never exits the interpreter or prints."""
    with pytest.raises(UsageError, match="unknown operator 'logit_grd'.*did you mean logit_grad"):
        sweep("logit_grd", (100,), "float32", {"cores": [1]})
    with pytest.raises(UsageError, match="bad --shape"):
        sweep("logit_grad", "4,a", "float32", {"cores": [1]})
    with pytest.raises(UsageError, match="logit_grad has no option reduction"):
        sweep("logit_grad", (100,), "float32", {"cores": [1]}, options={"reduction": "sum"})
    with pytest.raises(UsageError, match="no values to sweep for cores"):
        sweep("logit_grad", (100,), "float32", {"cores": []})


def test_progress_goes_to_the_callback_and_the_log(capsys: pytest.CaptureFixture[str],
                                                   caplog: pytest.LogCaptureFixture) -> None:
    calls: list[tuple[int, int]] = []
    with caplog.at_level(logging.DEBUG, logger="ascsim.sweep"):
        table = sweep("logit_grad", (100,), "float32", {"cores": [1, 2]}, workers=1,
                      options={"eps": 0.25}, progress=lambda d, n, s: calls.append((d, n)))
    assert calls == [(1, 2), (2, 2)]
    assert [r.name for r in caplog.records] == ["ascsim.sweep", "ascsim.sweep"]
    assert "combination 2/2" in caplog.records[-1].getMessage()
    assert capsys.readouterr() == ("", "")  # nothing printed
    assert all(r["bit_exact"] for r in table.rows)


def test_overrides_change_the_launch_in_process() -> None:
    import numpy as np
    x = np.full(3 * 8192, 0.5, np.float32)
    with tiling_overrides(cores=2):
        out, run = logit_grad(x, x, return_run=True)
    assert run.block_dim == 2 and (out == 2.0).all()
    _, run = logit_grad(x, x, return_run=True)
    assert run.block_dim == 3


def test_sce_knobs_keep_results_exact() -> None:
    """Forced BUFFER_NUM, tile size and core count re-split the work consistently: the output
    stays bit-exact against the numpy model and the kernel sees the forced choices."""
    import numpy as np

    from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import run_kernel
    from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2.reference import numpy_model
    rng = np.random.default_rng(1)
    x, y, g = (rng.uniform(-1, 1, 30001).astype(np.float16) for _ in range(3))
    expected = numpy_model(g, x, y, None, None, "sum")
    for overrides in ({"buffer_num": 2}, {"tile": 1024}, {"cores": 7},
                      {"buffer_num": 2, "tile": 512, "cores": 3}):
        with tiling_overrides(**overrides):
            out, run = run_kernel(x, y, g, reduction="sum")
        assert np.array_equal(out.view(np.uint16), expected.view(np.uint16)), overrides
        if "buffer_num" in overrides:
            assert run.tiling.bufferNum == 2
        if "tile" in overrides:
            assert run.tiling.tileDataNum == overrides["tile"]
        if "cores" in overrides:
            assert run.block_dim == overrides["cores"]


def test_sce_knob_limits_are_reported() -> None:
    import numpy as np

    from ascsim.errors import ParameterError
    from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import run_kernel
    x = np.zeros(5000, np.float32)
    with pytest.raises(ParameterError, match="multiple of 8"):
        with tiling_overrides(tile=100):
            run_kernel(x, x, x)
    with pytest.raises(ParameterError, match="buffer_num=2"):
        with tiling_overrides(buffer_num=2):
            run_kernel(x, x, x, x, x)  # both weights: 5 input queues x 2 > 8 event ids


def test_a_sweep_without_the_default_says_what_the_default_is(
        tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from ascsim.cli import main
    png = tmp_path / "s.png"
    assert main(["sweep", "logit_grad", "--shape", "20000", "--set", "cores=1",
                 "--workers", "1", "--scheduler", "none", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "default: cores=3 (the op's own choice is not among the values swept" in out
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_cross_entropy_loss_sweep_stays_exact() -> None:
    """cores and tile re-split rows and chunks; the runner's model follows the split the
    kernel ran with, so every row is bit-exact."""
    table = sweep("cross_entropy_loss", (9, 1000), "float32",
                  {"cores": [2, 9], "tile": [256, 1000]}, workers=1,
                  options={"reduction": "mean", "label_smoothing": 0.1})
    assert len(table.rows) == 4
    assert all(r["error"] is None and r["bit_exact"] for r in table.rows), table.rows
    assert {r["block_dim"] for r in table.rows} == {2, 9}


def test_mse_sweep_runs_every_combination_bit_exact() -> None:
    """MSELossV2's knobs through `ascsim sweep`'s machinery: the sum's bits depend on the
    split, and the runner's model follows the split each combination launched with."""
    from ascsim.sweep import sweep
    table = sweep("mse_loss_v2", (30011,), "float32", {"cores": [3, 20], "tile": [256, 2048]},
                  options={"reduction": "sum"}, workers=1)
    assert len(table.rows) == 4
    assert all(r["error"] is None and r["bit_exact"] for r in table.rows), table.format()
    assert sorted(r["block_dim"] for r in table.rows) == [3, 3, 20, 20]


def test_mse_knob_limits_are_reported() -> None:
    import numpy as np

    from ascsim.errors import ParameterError
    from kernels_py.mse_loss_v2 import run_kernel
    x = np.zeros(5000, np.float32)
    with pytest.raises(ParameterError, match="multiple of 8"):
        with tiling_overrides(tile=100):
            run_kernel(x, x, "sum")
    with pytest.raises(ParameterError, match="splits over 1..48 cores"):
        with tiling_overrides(cores=700):
            run_kernel(x, x, "sum")
    with pytest.raises(ParameterError, match="1 \\(single\\) or 2"):
        with tiling_overrides(buffer_num=3):
            run_kernel(x, x, "none")
