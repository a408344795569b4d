# ruff: noqa: F403, F405  (kernel code: the AscendC surface by star import)
"""`launch(workers=N)` (ascsim/forked.py): the cores traced in forked processes give the bits,
records and logs of one process, and a launch whose shares are not independent runs again in
one process (cross-core points, GM bytes two shares touch, errors)."""

from __future__ import annotations

import os
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ascsim
from ascsim import records as rec
from ascsim.ascendc import *
from ascsim.ascendc import kernel_sync
from ascsim.errors import SimulationError
from ascsim.registry import REGISTRY
from ascsim.runtime import worker_processes
from kernels_py.logit_grad import logit_grad
from kernels_py.mse_loss_v2 import mse_loss
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    binary_cross_entropy_with_logits_backward as sce_grad,
)
from tests.test_crosscore import N, _buf, _copy_in, _copy_out, _gm, rotate_kernel

pytestmark = pytest.mark.skipif(not ascsim.forked.available(), reason="needs os.fork")
RNG = np.random.default_rng(11)


def _same_run(a, b):
    assert [c.records for c in a.cores] == [c.records for c in b.cores]
    assert a.log() == b.log()


@pytest.mark.parametrize("workers", [2, 3, 64])
@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
def test_logit_grad_in_worker_processes_gives_the_bits_of_one(workers, dtype):
    x = RNG.uniform(0.01, 0.99, 50_000).astype(dtype)
    dy = RNG.uniform(-3, 3, 50_000).astype(dtype)
    want, one = logit_grad(x, dy, -1.0, return_run=True)
    with worker_processes(workers):
        got, many = logit_grad(x, dy, -1.0, return_run=True)
    assert got.tobytes() == want.tobytes()
    _same_run(one, many)
    assert one.processes == 1 and many.processes == min(workers, many.block_dim) > 1


def test_sce_grad_in_worker_processes_gives_the_bits_of_one():
    x = RNG.uniform(-4, 4, 40_000).astype(np.float16)
    y = RNG.uniform(0, 1, 40_000).astype(np.float16)
    g = RNG.uniform(-1, 1, 40_000).astype(np.float16)
    w = RNG.uniform(0, 2, 40_000).astype(np.float16)
    want, one = sce_grad(g, x, y, w, w, reduction="none", return_run=True)
    got, many = _with_workers(2, sce_grad, g, x, y, w, w, reduction="none", return_run=True)
    assert got.tobytes() == want.tobytes()
    _same_run(one, many)
    assert many.processes == 2


def _with_workers(n, fn, *args, **kwargs):
    with worker_processes(n):
        return fn(*args, **kwargs)


def test_a_launch_with_syncall_runs_in_one_process():
    """MSELoss's cross-core combine: SyncAll, then core 0 reads every core's partial sum."""
    x = RNG.standard_normal(300_000).astype(np.float32)
    y = RNG.standard_normal(300_000).astype(np.float32)
    want, one = mse_loss(x, y, return_run=True)
    got, many = _with_workers(2, mse_loss, x, y, return_run=True)
    assert got.tobytes() == want.tobytes()
    _same_run(one, many)
    assert many.processes == 1


def test_rotating_through_gm_after_syncall_runs_in_one_process():
    n = 6
    x = RNG.standard_normal(n * N).astype(np.float32)
    outs = []
    for workers in (1, 2):
        ws, out = np.zeros_like(x), np.zeros_like(x)
        run = ascsim.launch(rotate_kernel(), n, x, ws, out, workers=workers)
        outs.append((ws.tobytes(), out.tobytes(), run.processes))
    assert outs[0][:2] == outs[1][:2] and outs[1][2] == 1


def _racy_kernel():
    """Without any sync, core b reads the slice core b + 1 writes: the cores' order decides
    what it reads, so the shares are not independent."""
    @kernel_sync("manual")
    def kernel(x, out):
        b, n = GetBlockIdx(), GetBlockNum()
        pipe = TPipe()
        t = _buf(pipe).Get[float]()
        _copy_in(t, _gm(x)[b * N], N)
        Adds(t, t, 1.0, N)
        _copy_out(_gm(out)[b * N], t, N)
        PipeBarrier[PIPE_ALL]()
        _copy_in(t, _gm(out)[(b + 1) % n * N], N)
        Muls(t, t, 3.0, N)
        _copy_out(_gm(x)[b * N], t, N)
    return kernel


@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_gm_bytes_two_shares_touch_make_the_launch_run_in_one_process(order):
    n = 4
    base = RNG.standard_normal(n * N).astype(np.float32)
    results = []
    for workers in (1, 2):
        x, out = base.copy(), np.zeros_like(base)
        run = ascsim.launch(_racy_kernel(), n, x, out, workers=workers, core_order=order)
        results.append((x.tobytes(), out.tobytes(), run.processes,
                        [c.records for c in run.cores]))
    assert results[0][:2] == results[1][:2] and results[1][2] == 1
    assert results[0][3] == results[1][3]


def _scaling_kernel(log: bool = False, overrun: int = -1):
    """Core b halves its slice of x into out; with `log` it prints its first element first, and
    core `overrun` overruns its buffer."""
    @kernel_sync("manual")
    def kernel(x, out):
        b = GetBlockIdx()
        pipe = TPipe()
        t = _buf(pipe).Get[float]()
        _copy_in(t, _gm(x)[b * N], N)
        if log:
            printf("core %d first %f\n", b, float(t.GetValue(0)))
        Muls(t, t, 0.5, N * 100 if b == overrun else N)  # MULS_LINE
        _copy_out(_gm(out)[b * N], t, N)
    return kernel


def test_logs_and_records_of_a_kernel_new_to_this_process():
    """The children's code ids of kernel lines the parent has not seen are mapped to its own:
    the rows point at the kernel's lines, and a one-process run afterwards gives equal rows."""
    n = 5
    x = RNG.standard_normal(n * N).astype(np.float32)
    kernel = _scaling_kernel(log=True)
    out2 = np.zeros_like(x)
    many = ascsim.launch(kernel, n, x, out2, workers=2)
    out1 = np.zeros_like(x)
    one = ascsim.launch(kernel, n, x, out1)
    assert many.processes == 2 and out1.tobytes() == out2.tobytes()
    _same_run(one, many)
    muls = next(r for r in many.cores[4].records if REGISTRY[r[rec.OP]].name == "Muls")
    py, _ = rec.position_of(muls)
    lines = Path(__file__).read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "# MULS_LINE" in text)
    assert py.endswith(f"test_workers.py:{line}")
    assert len(many.log()) == n and many.log()[4].startswith("[core 4")


@pytest.mark.parametrize("overrun", [3, 1])  # share 1 of 4 forks share 2 and 3's processes
def test_an_error_in_a_share_is_raised_as_one_process_raises_it(overrun):
    n = 4
    x = RNG.standard_normal(n * N).astype(np.float32)
    errors = []
    for workers in (1, 2, 4):
        out = np.zeros_like(x)
        with pytest.raises(SimulationError) as e:
            ascsim.launch(_scaling_kernel(overrun=overrun), n, x, out, workers=workers)
        errors.append((str(e.value).replace("test_workers.py", ""), out.tobytes()))
    assert errors[0] == errors[1] == errors[2]


def test_a_fork_that_fails_makes_the_launch_run_in_one_process(monkeypatch):
    """The launching process forks only twice here (the tree has 4 shares): the shares never
    started send nothing, and the launch runs again in one process."""
    n = 4
    x = RNG.standard_normal(n * N).astype(np.float32)
    fork, parent, made = os.fork, os.getpid(), []

    def failing_fork():
        if os.getpid() == parent:
            if len(made) == 2:
                raise OSError("no more processes")
            made.append(1)
        return fork()
    monkeypatch.setattr(os, "fork", failing_fork)
    out = np.zeros_like(x)
    run = ascsim.launch(_scaling_kernel(), n, x, out, workers=4)
    monkeypatch.undo()
    want = np.zeros_like(x)
    one = ascsim.launch(_scaling_kernel(), n, x, want)
    assert len(made) == 2 and run.processes == 1 and out.tobytes() == want.tobytes()
    _same_run(one, run)


def test_check_mode_runs_in_one_process():
    x = RNG.uniform(0.01, 0.99, 20_000).astype(np.float32)
    _, run = _with_workers(2, logit_grad, x, x, -1.0, return_run=True, sanitize="check")
    assert run.processes == 1 and not run.errors


def test_the_shares_follow_the_core_order():
    assert ascsim.forked.split([5, 4, 3, 2, 1, 0], 4) == [[5], [4, 3], [2], [1, 0]]
    assert ascsim.forked.split([0, 1], 8) == [[0], [1]]


def test_the_command_line_takes_workers(capsys):
    from ascsim.cli import main
    assert main(["run", "logit_grad", "--shape", "64,2048", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "traced in 2 processes" in out and "(bit-exact)" in out
