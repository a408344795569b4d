"""Compiling ahead (ascsim.prewarm): a worker process compiles the scheduler for the argument
types the timeline passes, so the command that waits for it loads numba's disk cache instead of
compiling; those types must stay the ones profile_run really uses."""

from __future__ import annotations

import importlib

import numpy as np

import ascsim
from ascsim import prewarm
from ascsim.ascendc import Adds, DataCopy, GlobalTensor, QuePosition, TPipe, TQue
from ascsim.ascendc import float as f32
from ascsim.sanitizer import passes
from ascsim.timing import schedule

N = 256


def kernel(x, y):
    pipe = TPipe()
    q = TQue[QuePosition.VECIN, 1]()
    pipe.InitBuffer(q, 1, N * 4)
    xg = GlobalTensor[f32]()
    xg.SetGlobalBuffer(x)
    yg = GlobalTensor[f32]()
    yg.SetGlobalBuffer(y)
    a = q.AllocTensor[f32]()
    DataCopy(a, xg, N)
    q.EnQue(a)
    a = q.DeQue[f32]()
    Adds(a, a, 1.0, N)
    DataCopy(yg, a, N)
    q.FreeTensor(a)


def test_the_worker_compiles_the_signatures_the_timeline_uses() -> None:
    x = np.ones(N, np.float32)
    ascsim.launch(kernel, 1, x, np.zeros_like(x)).timeline()
    ahead = {(fn, tuple(sig)) for fn, sig in schedule.SIGNATURES}
    for fn in (schedule.pair_flags, schedule.simulate, schedule.lane_busy):
        assert fn.signatures, f"{fn.__name__} did not run"
        for sig in fn.signatures:
            assert (fn, tuple(sig)) in ahead, f"{fn.__name__}{sig} is not compiled ahead"


def test_the_worker_compiles_the_signature_the_sanitizer_uses() -> None:
    x = np.ones(N, np.float32)
    ascsim.launch(kernel, 1, x, np.zeros_like(x), sanitize="check")  # (it finds a race)
    ahead = {(fn, tuple(sig)) for fn, sig in passes.SIGNATURES}
    assert passes.analyse_cores.signatures, "the offline pass did not run"
    for sig in passes.analyse_cores.signatures:
        assert (passes.analyse_cores, tuple(sig)) in ahead, f"analyse_cores{sig} is not ahead"


def test_every_group_names_a_module_with_prewarm() -> None:
    for group, module in prewarm.GROUPS.items():
        assert callable(importlib.import_module(module).prewarm), group


def test_waiting_without_a_worker_returns_at_once() -> None:
    prewarm.wait("timing")
    prewarm.wait("no such group")
