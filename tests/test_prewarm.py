"""Compiling ahead (ascsim.prewarm): a worker process compiles the scheduler for the argument
types the timeline passes, so the command that waits for it loads numba's disk cache instead of
compiling; those types must stay the ones profile_run really uses. And compiling once across
processes (_numba_cache.compile_lock): a prewarm group, or a specialisation, that two processes
need at once is compiled by one of them and loaded by the other."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import numba
import numpy as np
import pytest

import ascsim
from ascsim import _numba_cache, prewarm, progress
from ascsim.ascendc import Adds, DataCopy, GlobalTensor, QuePosition, TPipe, TQue
from ascsim.ascendc import float as f32
from ascsim.sanitizer import passes
from ascsim.timing import schedule

N = 256
ROOT = Path(__file__).resolve().parents[1]


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


def test_processes_that_need_a_group_at_once_compile_it_once(monkeypatch, tmp_path) -> None:
    """While one process compiles a group (holding its lock file), another that needs it waits,
    says why, and then loads the cache instead of compiling it a second time. (Two threads
    stand in for the processes: flock locks of two opened files exclude each other within a
    process as well.)"""
    compiling, other_waits = threading.Event(), threading.Event()
    compiles = []

    def compile_group() -> None:
        compiles.append(threading.current_thread().name)
        compiling.set()
        other_waits.wait(10)  # compile until the other one is seen waiting for the lock

    group = types.ModuleType("fake_group")
    group.prewarm = compile_group
    monkeypatch.setitem(sys.modules, "fake_group", group)
    monkeypatch.setitem(prewarm.GROUPS, "fake", "fake_group")
    monkeypatch.setattr(prewarm, "_ready", set())
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(progress, "announce_compile", other_waits.set)
    first = threading.Thread(target=prewarm.ready, args=("fake",), name="first")
    second = threading.Thread(target=prewarm.ready, args=("fake",), name="second")
    first.start()
    assert compiling.wait(10)
    second.start()
    first.join(20)
    second.join(20)
    assert not first.is_alive() and not second.is_alive(), "a thread never got the lock"
    assert compiles == ["first"]
    assert other_waits.is_set(), "the second did not find the group being compiled"
    assert prewarm.marker("fake").exists()
    prewarm.ready("fake")  # known ready: nothing more
    assert compiles == ["first"]


def test_a_serving_group_has_nothing_to_be_ready() -> None:
    with pytest.raises(ValueError, match="serves requests"):
        prewarm.ready("batch")


_COMPILE_ONE = """
import pathlib, sys, time
import numpy as np
from numba.core import event
from ascsim.dtypes import float as f32
from ascsim.instructions.elementwise import unary_loop
from ascsim.workcall import compile_loop

compiled = []

class Listener(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)

    def on_end(self, ev):
        pass

event.register("numba:compile", Listener())
folder = pathlib.Path(sys.argv[1])
(folder / sys.argv[2]).touch()  # imported: ready to go
while not (folder / "go").exists():
    time.sleep(0.005)
compile_loop(unary_loop, (0, f32.code, np.zeros(8, np.float32), 0, 0, 8), 2)
print("compiled" if "unary_loop" in compiled else "loaded")
"""


def test_two_processes_compile_a_specialisation_once(tmp_path) -> None:
    """Two processes that need the same loop at the same moment on a fresh cache: one compiles
    it, the other waits for its lock and loads it from the cache."""
    env = {**os.environ, "ASCSIM_CACHE_DIR": str(tmp_path / "cache")}
    procs = [subprocess.Popen([sys.executable, "-c", _COMPILE_ONE, str(tmp_path), f"ready{k}"],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for k in range(2)]
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"ready{k}").exists() for k in range(2)):
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs), \
            [p.communicate() for p in procs if p.poll() is not None]
        time.sleep(0.01)
    (tmp_path / "go").touch()
    said = sorted(p.communicate(timeout=120)[0].strip() for p in procs)
    assert said == ["compiled", "loaded"]


def test_a_process_waits_for_a_held_compile_lock_only_so_long(monkeypatch, tmp_path) -> None:
    """A holder that never lets go (stopped in a debugger, say) delays the others by
    _LOCK_WAIT, then they compile without the lock."""
    import fcntl

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_numba_cache, "_LOCK_WAIT", 0.3)
    announced = []
    monkeypatch.setattr(progress, "announce_compile", lambda: announced.append(1))
    with _numba_cache.compile_lock("held"):  # makes the lock file
        pass
    (lock,) = (tmp_path / "locks").iterdir()
    waited = []

    def take() -> None:
        start = time.monotonic()
        with _numba_cache.compile_lock("held"):
            waited.append(time.monotonic() - start)

    with open(lock, "ab") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        waiter = threading.Thread(target=take)
        waiter.start()
        waiter.join(10)  # (without the bound it would wait for the holder for ever)
        assert not waiter.is_alive(), "the waiter did not give up"
    assert announced == [1]
    assert 0.3 <= waited[0] < 5
