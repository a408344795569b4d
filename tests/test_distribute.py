"""Sweeps and the golden regression on Dask distributed give what local worker processes (and a
serial run) give: one LocalCluster for the module, reached by its address as a remote scheduler
would be."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ascsim.distribute import open_pool
from ascsim.errors import UsageError
from ascsim.sweep import sweep

distributed = pytest.importorskip("distributed")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import golden_regression  # noqa: E402


@pytest.fixture(scope="module")
def scheduler():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def test_a_sweep_on_dask_equals_the_local_sweep(scheduler: str) -> None:
    grid = {"cores": [1, 3], "profile": ["Ascend910B2", "Ascend910B4"]}
    local = sweep("logit_grad", (20000,), "float16", grid, workers=2)
    remote = sweep("logit_grad", (20000,), "float16", grid, scheduler=scheduler)
    assert remote.rows == local.rows and len(remote.rows) == 4
    assert all(r["bit_exact"] and r["error"] is None for r in remote.rows)


def test_the_golden_regression_on_dask_equals_a_serial_run(scheduler: str, capsys) -> None:
    assert golden_regression.main(["--scheduler", scheduler, "-k", "/64", "--compare-serial"]) \
        == 0
    out = capsys.readouterr().out
    assert "golden cases pass" in out and "serial run: the same verdicts" in out
    count = int(out.split("/", 1)[0].split()[-1])
    assert count >= 4  # the filter kept cases of both shipped operators


def test_a_scheduler_that_is_not_there_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="cannot reach a Dask scheduler"), \
            open_pool("tcp://127.0.0.1:9", connect_timeout="1s"):
        pass
