"""Point numba's disk cache at a directory keyed by a hash of ascsim's own sources.

numba re-validates a cached function only against the file that defines it, not against the
files it calls into (a kernel in elementwise.py calls the conversions in convert.py). Keying the
cache directory by the sources makes an edited or upgraded ascsim start from a fresh cache.
This module must be imported before any module that defines a numba function.

`compile_lock(name)` is a lock file in that directory: processes that would compile the same
thing at once on a fresh cache (pytest-xdist workers, a sweep's Dask workers, a command and its
prewarm worker) take turns, and the later ones load what the first saved instead of compiling
it again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numba

_KEEP = 3  # cache directories of other source versions to keep
# compile_lock: how long a process waits for another's compile (the longest, the sanitizer's
# pass, takes about 15 s), and how often it looks
_LOCK_WAIT = 600.0
_LOCK_POLL = 0.05


def _source_hash() -> str:
    root = Path(__file__).parent
    h = hashlib.sha1(numba.__version__.encode())
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def configure() -> None:
    base = os.environ.get("ASCSIM_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        base = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                            "ascsim")
    target = Path(base) / f"numba-{_source_hash()}"
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # read-only home: numba falls back to __pycache__ next to the sources
    numba.config.CACHE_DIR = str(target)
    others = sorted((p for p in Path(base).glob("numba-*") if p != target),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    for old in others[_KEEP:]:
        shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def compile_lock(name: str) -> Iterator[None]:
    """Hold the cache directory's lock for `name` (flock). A process that finds it held says
    that it is compiling, as compiling would, and waits for it, but at most _LOCK_WAIT seconds
    (a holder stopped in a debugger must not hang the others). Without flock, or where the
    lock file cannot be made or locked, the caller goes on without a lock: it then only
    compiles what another process may be compiling too."""
    if not numba.config.CACHE_DIR:  # numba caches next to the sources: nothing shared here
        yield
        return
    try:
        import fcntl
        locks = Path(numba.config.CACHE_DIR) / "locks"
        locks.mkdir(exist_ok=True)
        digest = hashlib.sha1(name.encode()).hexdigest()[:20]
        handle = open(locks / f"{digest}.lock", "ab")  # noqa: SIM115 - closed below
    except (ImportError, OSError):  # (no fcntl on Windows; no cache directory)
        yield
        return
    with handle:
        _acquire(handle, fcntl)
        yield  # (closing the file releases the lock)


def _acquire(handle: Any, fcntl: Any) -> None:
    """Lock `handle`, or give up (see compile_lock)."""
    deadline = None
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:  # another process holds it
            pass
        except OSError:  # a file system without flock
            return
        if deadline is None:
            from . import progress
            progress.announce_compile()
            deadline = time.monotonic() + _LOCK_WAIT
        elif time.monotonic() >= deadline:
            return
        time.sleep(_LOCK_POLL)


configure()
