"""Compile numba functions that a command needs only later in a worker process, while the
command does other work (runs the kernel): the worker fills numba's disk cache and the command
then loads from it instead of compiling.

numba compiles under one global lock, so threads cannot overlap two compiles; processes can.
`start(group)` launches `python -m ascsim.prewarm <group>` unless a marker in the cache
directory says the group is cached already; `wait(group)` blocks until that worker has ended.
`serve(group)` launches a worker that also reads requests on its standard input (the batch
kinds of batch.compile_in_background). A worker that fails, or cannot start, costs nothing but
time: the command compiles in-process as it would without one.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import numba

from . import _numba_cache  # noqa: F401  (the cache directory, before any compile)

__all__ = ["GROUPS", "start", "serve", "wait", "marker"]

# group -> the module whose `prewarm()` compiles it (with the signatures its callers use)
GROUPS = {"timing": "ascsim.timing.schedule", "batch": "ascsim.batch",
          "sanitizer": "ascsim.sanitizer.passes"}

_workers: dict[str, subprocess.Popen] = {}


def marker(group: str) -> Path:
    """The file a worker writes once `group` is in this cache directory."""
    return Path(numba.config.CACHE_DIR) / f"prewarm-{group}.done"


def start(group: str) -> None:
    """Compile `group` in a worker process, unless it is cached or a worker already runs."""
    if group in _workers or not numba.config.CACHE_DIR or marker(group).exists():
        return
    worker = _spawn(group, subprocess.DEVNULL)
    if worker is not None:
        _workers[group] = worker


def serve(group: str) -> subprocess.Popen | None:
    """A worker for `group` that reads its requests from its standard input (a text pipe: the
    caller writes lines and closes it when done), or None if it cannot start."""
    return _spawn(group, subprocess.PIPE)


def _spawn(group: str, stdin: int) -> subprocess.Popen | None:
    root = str(Path(__file__).resolve().parent.parent)  # the worker imports this same ascsim
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    try:
        return subprocess.Popen([sys.executable, "-m", "ascsim.prewarm", group], env=env,
                                cwd=root, stdin=stdin, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return None


def wait(group: str) -> None:
    """Block until the worker compiling `group` (if any) has ended."""
    worker = _workers.pop(group, None)
    if worker is None:
        return
    if worker.poll() is None:
        from . import progress
        progress.announce_compile()
        worker.wait()


def _compile(group: str) -> None:
    importlib.import_module(GROUPS[group]).prewarm()
    marker(group).touch()


if __name__ == "__main__":
    _compile(sys.argv[1])
