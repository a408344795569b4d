"""Compile numba functions that a command needs only later in a worker process, while the
command does other work (runs the kernel): the worker fills numba's disk cache and the command
then loads from it instead of compiling.

numba compiles under one global lock, so threads cannot overlap two compiles; processes can.
`start(group)` launches `python -m ascsim.prewarm <group>` unless a marker in the cache
directory says the group is cached already; `ready(group)`, where the command needs the group,
waits for that worker and otherwise compiles the group itself. `serve(group)` launches a worker
that also reads requests on its standard input (the batch kinds of
batch.compile_in_background). A worker that fails, or cannot start, costs nothing but time: the
command compiles in-process as it would without one.

A group compiles under its lock file in the cache directory (`_numba_cache.compile_lock`), by a
worker or in-process, so that processes that need it at once on a fresh cache compile it once:
the others wait for the lock and then load the cache. The sanitizer's offline pass alone takes
about 15 s to compile.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import numba

from . import _numba_cache  # (the cache directory, before any compile)

__all__ = ["GROUPS", "SERVED", "start", "serve", "wait", "ready", "marker"]

# group -> the module whose `prewarm()` compiles it (with the signatures its callers use)
GROUPS = {"timing": "ascsim.timing.schedule", "batch": "ascsim.batch",
          "sanitizer": "ascsim.sanitizer.passes"}
# the groups whose prewarm() serves requests read from standard input (`serve`), not a fixed set
SERVED = frozenset({"batch"})

_workers: dict[str, subprocess.Popen] = {}
_ready: set[str] = set()  # groups this process knows to be in the cache


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


def ready(group: str) -> None:
    """Return once `group` is in numba's disk cache: compiled by this process's worker
    (`start`), by another process, or here and now. A process that finds another compiling it
    waits for that (saying so, as compiling would) rather than compiling it at the same time."""
    if group in SERVED:
        raise ValueError(f"prewarm group {group!r} serves requests: there is no set to wait for")
    wait(group)
    if group in _ready or group not in GROUPS or not numba.config.CACHE_DIR:
        return
    _compile_once(group)
    _ready.add(group)


def _compile_once(group: str) -> None:
    """Compile `group` unless its marker says it is cached, holding its lock while compiling."""
    if marker(group).exists():
        return
    with _numba_cache.compile_lock(f"prewarm group {group}"):
        if not marker(group).exists():  # not compiled by the process we may have waited for
            importlib.import_module(GROUPS[group]).prewarm()
            marker(group).touch()


if __name__ == "__main__":
    if sys.argv[1] in SERVED:
        importlib.import_module(GROUPS[sys.argv[1]]).prewarm()
    else:
        _compile_once(sys.argv[1])
