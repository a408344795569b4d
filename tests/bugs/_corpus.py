"""What a corpus module declares and how tests locate the line a finding must point at.

A corpus module defines `run(sanitize) -> Run` and `EXPECT`, a list of `Expect`: the finding's
kind, a substring of its check name, its severity, and its kernel line, given as a marker
comment `# BUG(tag)` in the module itself or as a unique snippet of another file (for bugs the
shipped kernels' own lines show, e.g. a DataCopy reading past the end of a GM tensor).
Optional: `STRICT` (the SimulationError subclass strict mode raises), `QUIET` (a list of
(sanitize-mode runner, kinds) that must report nothing of those kinds).

Every module also has a clean twin, `run_fixed(sanitize) -> Run`: the same kernel with the bug
fixed (its fix lines say `# FIXED`), which must report nothing at all. That the bug is found
and the twin is clean shows the finding is about the bug, not about the kernel around it.
A module without a cheap twin says why in `NO_TWIN`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import ascsim
from ascsim.ascendc import GlobalTensor, TBuf, TPipe, TPosition

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Expect:
    kind: str
    check: str
    severity: str = "ERROR"
    tag: str = ""                # `# BUG(tag)` marker in the corpus module
    path: str | None = None      # or: a repository-relative file ...
    snippet: str | None = None   # ... and a unique piece of one of its lines

    def position(self, module_file: str) -> str:
        """"path:line" the finding must carry."""
        if self.snippet is not None:
            path = ROOT / self.path
            needle = self.snippet
        else:
            path = Path(module_file)
            needle = f"# BUG({self.tag})" if self.tag else "# BUG"
        lines = path.read_text().splitlines()
        if self.snippet is None and not self.tag:
            hits = [i for i, t in enumerate(lines) if re.search(r"# BUG(?!\()", t)]
        else:
            hits = [i for i, t in enumerate(lines) if needle in t]
        assert len(hits) == 1, f"{path}: {len(hits)} lines match {needle!r}"
        return f"{path.relative_to(ROOT).as_posix()}:{hits[0] + 1}"


def launch(kernel, *gm, cores: int = 1, sanitize: str = "check", outputs=(), tiling=None,
           tiling_key=None) -> ascsim.Run:
    return ascsim.launch(kernel, cores, *gm, sanitize=sanitize, outputs=outputs, tiling=tiling,
                         tiling_key=tiling_key)


def calc_buffer(nbytes: int = 65536):
    """A TPipe with one TBuf of nbytes (from UB 0), and the TBuf."""
    pipe = TPipe()
    buf = TBuf[TPosition.VECCALC]()
    pipe.InitBuffer(buf, nbytes)
    return pipe, buf


def gm(addr, dtype) -> GlobalTensor:
    g = GlobalTensor[dtype]()
    g.SetGlobalBuffer(addr)
    return g


def f32(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.1, 0.9, n).astype(np.float32)
