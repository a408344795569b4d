"""What the exporters draw: one interval per lane per thing that happened, never overlapping.

Besides the records themselves, the scalar lane shows the kernel header and the issue slots of
the records it queued (merged into one "issue" segment per run of back-to-back issues), and the
FLOWCTRL lane shows the launch and PipeBarrier<PIPE_ALL>. When a profile lets instructions of
one pipe overlap, a segment is cut at the start of the next one on its lane (the record's true
end stays in the timeline).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..registry import REGISTRY
from ..timing.cost import (
    K_BAR,
    K_BAR_ALL,
    K_COPY,
    K_OP,
    K_SCALAR,
    K_SET,
    K_WAIT,
    K_XSYNC,
    K_XWAIT,
)
from ..timing.schedule import LANE_FLOWCTRL

if TYPE_CHECKING:
    from ..timing.timeline import Timeline

__all__ = ["Segments", "segments", "REC", "ISSUE", "HEADER", "LAUNCH", "record_class"]

# Segment types (Segments.what)
REC, ISSUE, HEADER, LAUNCH = 0, 1, 2, 3


@dataclass
class Segments:
    core: np.ndarray     # int64
    lane: np.ndarray     # int64
    start: np.ndarray    # float64 cycles
    end: np.ndarray      # float64 cycles, cut at the next segment of the lane
    what: np.ndarray     # int64 REC / ISSUE / HEADER / LAUNCH
    record: np.ndarray   # int64 global record index for REC, else -1
    count: np.ndarray    # int64 issues merged into an ISSUE segment, else 1

    def __len__(self) -> int:
        return len(self.core)


def record_class(tl: Timeline) -> list[str]:
    """A colour/legend class per record: the vector cost class, "copy in", "copy out",
    "flag", "barrier" or "scalar"."""
    cost_class = [ins.cost.table or ins.name for ins in REGISTRY]
    fixed = {K_SET: "flag", K_WAIT: "flag", K_BAR: "barrier", K_BAR_ALL: "barrier",
             K_SCALAR: "scalar", K_XSYNC: "cross-core wait", K_XWAIT: "cross-core wait"}
    out = []
    for i, k, lane in zip(tl.instr.tolist(), tl.kind.tolist(), tl.lane.tolist(), strict=True):
        if k == K_OP:
            out.append(cost_class[i])
        elif k == K_COPY:
            out.append("copy in (MTE2)" if lane == 2 else "copy out (MTE3)")
        else:
            out.append(fixed[k])
    return out


def _issue_runs(tl: Timeline) -> tuple[np.ndarray, ...]:
    ic = tl.cost.scalar_issue_cycles
    queued = (tl.lane != 0) & (tl.lane != LANE_FLOWCTRL)
    if ic <= 0 or not queued.any():
        empty = np.zeros(0, np.int64)
        return empty, np.zeros(0), np.zeros(0), empty
    idx = np.flatnonzero(queued)
    core = np.searchsorted(tl.off, idx, side="right") - 1
    t = tl.issue[idx]
    new = np.ones(len(idx), bool)
    new[1:] = (core[1:] != core[:-1]) | (t[1:] != t[:-1] + ic)
    first = np.flatnonzero(new)
    last = np.r_[first[1:], len(idx)] - 1
    return core[first], t[first] - ic, t[last], last - first + 1


def segments(tl: Timeline, launch: bool = True) -> Segments:
    """All segments of a timeline, sorted by (core, lane, start)."""
    n_rec = len(tl.kind)
    ncores = tl.block_dim
    rec_core = np.repeat(np.arange(ncores), np.diff(tl.off))
    icore, istart, iend, icount = _issue_runs(tl)
    cores = np.arange(ncores)
    parts = [
        (rec_core, tl.lane.astype(np.int64), tl.start, tl.end, REC, np.arange(n_rec), 1),
        (icore, np.zeros(len(icore), np.int64), istart, iend, ISSUE, -1, icount),
    ]
    if tl.cost.header_cycles > 0:
        parts.append((cores, np.zeros(ncores, np.int64), np.full(ncores, tl.launch_cycles),
                      tl.first_issue, HEADER, -1, 1))
    if launch and tl.launch_cycles > 0:
        parts.append((cores, np.full(ncores, LANE_FLOWCTRL, np.int64), np.zeros(ncores),
                      np.full(ncores, tl.launch_cycles), LAUNCH, -1, 1))
    cols = []
    for j in range(7):
        vals = []
        for part in parts:
            n = len(part[0])
            v = part[j]
            vals.append(np.broadcast_to(np.asarray(v), (n,)) if np.ndim(v) == 0 else v)
        cols.append(np.concatenate(vals))
    core, lane, start, end, what, record, count = cols
    order = np.lexsort((what != HEADER, start, lane, core))  # a header comes first
    core, lane, start, end = core[order], lane[order], start[order], end[order]
    what, record, count = what[order], record[order], count[order]
    same = (core[1:] == core[:-1]) & (lane[1:] == lane[:-1])
    cut = end.copy()
    cut[:-1] = np.where(same, np.minimum(end[:-1], start[1:]), end[:-1])
    return Segments(core.astype(np.int64), lane.astype(np.int64), start, np.maximum(cut, start),
                    what.astype(np.int64), record.astype(np.int64), count.astype(np.int64))
