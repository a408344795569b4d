"""`Timeline`: the scheduled run (start/end cycle of every record on every core, per-pipe busy
time and ratios) and `profile_run(run)`, which builds it from a run's records.

Times are cycles of the profile clock from the kernel launch: the cores start after
`launch_us`, spend `header_cycles` on the scalar unit, then issue their first record. A core's
`aiv` time (msprof's `aiv_time`) runs from its start to its last instruction's end; the kernel
time is the latest core end, launch included (msprof's Task Duration).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import prewarm
from ..core import N_FLAGS, PIPE_NAMES
from ..profile import CostParams, HardwareProfile, load_profile
from ..records import decode
from ..registry import REGISTRY
from .cost import (
    K_BAR_ALL,
    K_COPY,
    K_SCALAR,
    K_XSYNC,
    K_XWAIT,
    PEN_SMALL,
    PEN_UNALIGNED,
    core_costs,
    cost_tables,
    cross_wait_partner,
    require_cost,
)
from .schedule import LANE_FLOWCTRL, LANE_NAMES, N_LANES, lane_busy, pair_flags, simulate

if TYPE_CHECKING:
    from ..runtime import Run

__all__ = ["Timeline", "profile_run", "LANE_NAMES", "N_LANES"]



@dataclass(eq=False)
class Timeline:
    """The schedule of one run under one hardware profile. Per-record arrays cover all cores;
    core c owns records `off[c]:off[c + 1]` (record i of core c is `off[c] + i`)."""

    run: Run
    profile: HardwareProfile
    cost: CostParams
    off: np.ndarray          # int64 [cores + 1]
    instr: np.ndarray        # int64 registry id of each record's instruction
    kind: np.ndarray         # int8 K_* (see cost.py)
    lane: np.ndarray         # int8 lane: 0 SCALAR, 1 VECTOR, 2 MTE2, 3 MTE3, 4 FLOWCTRL
    fixed: np.ndarray        # float64 cycles
    work: np.ndarray         # float64 cycles (vector) or effective bytes (copies)
    nbytes: np.ndarray       # int64 GM bytes of copies
    penalty: np.ndarray      # uint8 PEN_* bits of copies
    pair: np.ndarray         # int64 global index of the SetFlag a WaitFlag consumes, else -1
    issue: np.ndarray        # float64 cycle the record reached its pipe (end of its issue slot)
    start: np.ndarray        # float64 cycle the record started on its lane
    end: np.ndarray          # float64 cycle it ended
    data_end: np.ndarray     # float64 cycle a copy finished moving data, else -1
    launch_cycles: float     # cores start here
    first_issue: np.ndarray  # float64 [cores]: after the header
    core_end: np.ndarray     # float64 [cores]
    busy: np.ndarray         # float64 [cores, lanes] cycles
    notes: list[str] = field(default_factory=list)

    # ---- sizes and totals -------------------------------------------------------------------

    @property
    def clock_mhz(self) -> float:
        return float(self.profile.clock_mhz)

    @property
    def block_dim(self) -> int:
        return len(self.off) - 1

    @property
    def total_cycles(self) -> float:
        """Kernel cycles: launch to the end of the last core."""
        return float(self.core_end.max()) if len(self.core_end) else self.launch_cycles

    @property
    def total_us(self) -> float:
        return self.total_cycles / self.clock_mhz

    def us(self, cycles: float) -> float:
        return cycles / self.clock_mhz

    @property
    def aiv_cycles(self) -> np.ndarray:
        """Per core: cycles from its start to its end (msprof `aiv_total_cycles`)."""
        return self.core_end - self.launch_cycles

    def ratios(self) -> np.ndarray:
        """[cores, lanes] busy / aiv cycles (msprof `aiv_*_ratio`)."""
        cyc = np.maximum(self.aiv_cycles, 1e-9)
        return self.busy / cyc[:, None]

    def pipe_ratios(self) -> dict[str, float]:
        """Mean over cores of each pipe's ratio: {"S": .., "V": .., "MTE2": .., "MTE3": ..}."""
        r = self.ratios().mean(axis=0) if self.block_dim else np.zeros(N_LANES)
        return {PIPE_NAMES[p]: float(r[p]) for p in range(4)}

    def metrics(self) -> dict[str, float]:
        """The numbers a sweep compares (plain floats: cheap to send between processes)."""
        ratios = self.pipe_ratios()
        aiv = self.aiv_cycles
        return {
            "time_us": self.total_us,
            "cycles": self.total_cycles,
            "aiv_time_us_max": float(aiv.max()) / self.clock_mhz if len(aiv) else 0.0,
            "aiv_time_us_mean": float(aiv.mean()) / self.clock_mhz if len(aiv) else 0.0,
            "vec_ratio": ratios["V"],
            "scalar_ratio": ratios["S"],
            "mte2_ratio": ratios["MTE2"],
            "mte3_ratio": ratios["MTE3"],
            "gm_bytes": float(self.nbytes.sum()),
            "instructions": float(len(self.kind)),
        }

    # ---- per record -------------------------------------------------------------------------

    def core_slice(self, core: int) -> slice:
        return slice(int(self.off[core]), int(self.off[core + 1]))

    def record(self, index: int) -> tuple[int, tuple]:
        """(core, record row) of global record `index`."""
        core = int(np.searchsorted(self.off, index, side="right")) - 1
        return core, self.run.cores[core].records[index - int(self.off[core])]

    def describe(self, index: int) -> str:
        core, rec = self.record(index)
        d = decode(rec, index - int(self.off[core]))
        where = d.position()[0]
        return (f"core {core} record {d.index} {d.name} on {LANE_NAMES[self.lane[index]]} "
                f"({where}): cycles {self.start[index]:.0f}..{self.end[index]:.0f}")

    def instruction_names(self) -> list[str]:
        """Name of every record's instruction, in global order."""
        names = [ins.name for ins in REGISTRY]
        return [names[i] for i in self.instr.tolist()]

    # ---- outputs (thin delegations to ascsim.export) -----------------------------------------

    def summary(self) -> str:
        from ..export.summary import summary_text
        return summary_text(self)

    def write_trace(self, path: str | Path) -> Path:
        from ..export.chrome_trace import write_chrome_trace
        return write_chrome_trace(self, path)

    def write_pipe_utilization(self, path: str | Path) -> Path:
        from ..export.pipe_utilization import write_pipe_utilization
        return write_pipe_utilization(self, path)

    def plot_gantt(self, path: str | Path, **kw: Any) -> Path:
        from ..export.plots import plot_gantt
        return plot_gantt(self, path, **kw)

    def plot_occupancy(self, path: str | Path, **kw: Any) -> Path:
        from ..export.plots import plot_occupancy
        return plot_occupancy(self, path, **kw)

    def __repr__(self) -> str:
        r = self.pipe_ratios()
        return (f"<Timeline {self.run.kernel_name} on {self.profile.name}: {self.total_us:.2f} us"
                f" ({self.total_cycles:.0f} cycles), vec {r['V']:.1%}, mte2 {r['MTE2']:.1%}, "
                f"mte3 {r['MTE3']:.1%}, scalar {r['S']:.1%}>")


def _notes(tl: Timeline, default_costed: np.ndarray, gm_scalar_costed: int) -> list[str]:
    notes = []
    if default_costed.any():
        ids = sorted({REGISTRY[i].name for i in np.unique(tl.instr[default_costed]).tolist()})
        notes.append(f"{int(default_costed.sum())} vector instruction(s) costed with "
                     f"[cost.vector.default] (no table of their own): {', '.join(ids)}")
    copies = tl.kind == K_COPY
    small = int(np.count_nonzero(copies & (tl.penalty & PEN_SMALL).astype(bool)))
    unaligned = int(np.count_nonzero(copies & (tl.penalty & PEN_UNALIGNED).astype(bool)))
    if small:
        notes.append(f"{small} of {int(copies.sum())} copies move bursts under "
                     f"{tl.cost.small_transfer_bytes:.0f} bytes (small-transfer penalty)")
    if unaligned:
        notes.append(f"{unaligned} of {int(copies.sum())} copies start at a GM address that is "
                     f"not {tl.cost.gm_align_bytes}-byte aligned (bandwidth x "
                     f"{tl.cost.unaligned_bandwidth_factor})")
    if gm_scalar_costed:
        notes.append(f"{gm_scalar_costed} scalar GetValue/SetValue on GM "
                     f"({tl.cost.scalar_gm_access_cycles:.0f} cycles each)")
    return notes


def _cross_core_pairs(run: Run, kind: np.ndarray, pair: np.ndarray, off: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Cross-core waits (docs/timing.md): the k-th SyncAll of every core that has one form
    group k (pair[r] = k; members in CSR xoff/xmem); a CrossCoreWaitFlag's pair is the global
    index of the CrossCoreSetFlag that released it."""
    syncs = [np.flatnonzero(kind[off[c]:off[c + 1]] == K_XSYNC) + off[c]
             for c in range(off.size - 1)]
    groups = max((len(s) for s in syncs), default=0)
    xoff = np.zeros(groups + 1, np.int64)
    members: list[int] = []
    for k in range(groups):
        for s in syncs:
            if k < len(s):
                members.append(int(s[k]))
                pair[s[k]] = k
        xoff[k + 1] = len(members)
    for r in np.flatnonzero(kind == K_XWAIT).tolist():
        c = int(np.searchsorted(off, r, side="right")) - 1
        src = cross_wait_partner(run.cores[c].records[r - off[c]])
        pair[r] = off[src[0]] + src[1] if src is not None else -1
    if not members and not (kind == K_XWAIT).any():
        xoff = np.zeros(1, np.int64)
    elif not members:
        xoff = np.zeros(2, np.int64)  # no group, but the cross-core scheduling still runs
    return xoff, np.array(members, np.int64)


def profile_run(run: Run, profile: str | HardwareProfile | None = None) -> Timeline:
    """Schedule `run`'s records under `profile` (default: the profile the run used)."""
    prewarm.ready("timing")  # compiled once, by whichever process gets there first
    prof = run.profile if profile is None else load_profile(profile)
    cost = require_cost(prof)
    tables = cost_tables(cost)
    per_core = [core_costs(c.records, cost, tables) for c in run.cores]
    sizes = [len(c.records) for c in run.cores]
    off = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=off[1:])

    def cat(name: str, dtype: Any) -> np.ndarray:
        parts = [getattr(cc, name) for cc in per_core]
        return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)

    kind, pipe = cat("kind", np.int8), cat("pipe", np.int8)
    fixed, work, flag = cat("fixed", np.float64), cat("work", np.float64), cat("flag", np.int32)
    launch = cost.launch_us * prof.clock_mhz
    first_issue = np.full(len(sizes), launch + cost.header_cycles)
    pair = pair_flags(kind, flag, off, N_FLAGS)
    hbm = cost.hbm_gb_per_s * 1e3 / prof.clock_mhz  # bytes per cycle
    overlap = np.array([0.0, cost.vector_overlap_cycles, cost.mte2.overlap_cycles,
                        cost.mte3.overlap_cycles])
    xoff, xmem = _cross_core_pairs(run, kind, pair, off)
    issue, start, end, data_end, stuck = simulate(
        kind, pipe, fixed, work, pair, off, first_issue, float(cost.scalar_issue_cycles),
        overlap, float(cost.mte2.bytes_per_cycle), float(cost.mte3.bytes_per_cycle), hbm,
        xoff, xmem)
    lane = np.where((kind == K_SCALAR) | (pipe == 0), np.int8(0), pipe).astype(np.int8)
    lane[(kind == K_BAR_ALL) | (kind == K_XSYNC)] = LANE_FLOWCTRL
    busy = lane_busy(kind, pipe, start, end, off, float(cost.header_cycles),
                     float(cost.scalar_issue_cycles), N_LANES)
    core_end = first_issue.copy()
    for c in range(len(sizes)):
        if sizes[c]:
            core_end[c] = max(core_end[c], float(end[off[c]:off[c + 1]].max()))
    tl = Timeline(run, prof, cost, off, cat("instr", np.int64), kind, lane, fixed, work,
                  cat("nbytes", np.int64), cat("penalty", np.uint8), pair, issue, start, end,
                  data_end, launch, first_issue, core_end, busy)
    if stuck >= 0:  # the functional run finished, so this is a scheduler bug
        raise RuntimeError(f"timing: the scheduler could not place {tl.describe(stuck)}; "
                           "please report this with the kernel")
    gm_scalar = sum(cc.gm_scalar_count for cc in per_core)
    tl.notes = _notes(tl, cat("default_costed", np.bool_), gm_scalar)
    return tl
