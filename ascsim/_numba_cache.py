"""Point numba's disk cache at a directory keyed by a hash of ascsim's own sources.

numba re-validates a cached function only against the file that defines it, not against the
files it calls into (a kernel in elementwise.py calls the conversions in convert.py). Keying the
cache directory by the sources makes an edited or upgraded ascsim start from a fresh cache.
This module must be imported before any module that defines a numba function.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numba

_KEEP = 3  # cache directories of other source versions to keep


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


configure()
