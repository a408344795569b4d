"""matplotlib pictures of a timeline: a Gantt chart (a lane per pipe per core, coloured by
instruction class) and a per-pipe occupancy chart. Figures are drawn on the Agg canvas
directly, so nothing here touches pyplot's global state or opens a window.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..timing.cost import K_BAR_ALL, K_XSYNC
from ..timing.schedule import LANE_NAMES
from .chrome_trace import core_pid
from .segments import HEADER, ISSUE, REC, record_class, segments

if TYPE_CHECKING:
    from ..timing.timeline import Timeline

__all__ = ["plot_gantt", "plot_occupancy", "GANTT_LANES"]

# top to bottom within a core, as msprof's simulator view orders them
GANTT_LANES = (0, 2, 1, 3)  # SCALAR, MTE2, VECTOR, MTE3
_FIXED_COLOURS = {
    "copy in (MTE2)": "tab:blue", "copy out (MTE3)": "tab:green", "flag": "0.15",
    "barrier": "tab:red", "scalar": "0.55", "issue": "0.78", "header": "0.9",
}
_PALETTE = ("tab:orange", "tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan",
            "#ffbb78", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5", "gold", "navy",
            "teal", "salmon", "yellowgreen", "slateblue")
_PIPE_COLOURS = {0: "0.45", 1: "tab:orange", 2: "tab:blue", 3: "tab:green"}


def _save(fig: Figure, path: str | Path, dpi: int) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=dpi)
    return path


def _classes(tl: Timeline, seg_what: np.ndarray, seg_record: np.ndarray) -> list[str]:
    per_record = record_class(tl)
    return [per_record[r] if w == REC else ("issue" if w == ISSUE else "header")
            for w, r in zip(seg_what.tolist(), seg_record.tolist(), strict=True)]


def _colours(classes: Iterable[str]) -> dict[str, str]:
    out = dict(_FIXED_COLOURS)
    for i, name in enumerate(sorted(set(classes) - set(out))):
        out[name] = _PALETTE[i % len(_PALETTE)]
    return out


def plot_gantt(tl: Timeline, path: str | Path, window_us: tuple[float, float] | None = None,
               cores: Sequence[int] | None = None, title: str | None = None,
               width_in: float = 14.0, dpi: int = 150) -> Path:
    """A Gantt chart: per core, lanes SCALAR, MTE2, VECTOR, MTE3 (and FLOWCTRL when the kernel
    uses PipeBarrier<PIPE_ALL>), one colour per instruction class. `window_us=(t0, t1)` zooms
    to that time range (microseconds from launch); `cores` picks blocks (default all)."""
    cores = list(range(tl.block_dim)) if cores is None else [int(c) for c in cores]
    flow = ((tl.kind == K_BAR_ALL) | (tl.kind == K_XSYNC)).any()  # barriers, SyncAll waits
    lanes = list(GANTT_LANES) + ([4] if flow else [])
    seg = segments(tl, launch=False)
    keep = np.isin(seg.core, cores) & np.isin(seg.lane, lanes)
    t0, t1 = (0.0, tl.total_us) if window_us is None else map(float, window_us)
    start_us, end_us = seg.start / tl.clock_mhz, seg.end / tl.clock_mhz
    keep &= (end_us >= t0) & (start_us <= t1)
    idx = np.flatnonzero(keep)
    row_of_core = {c: i for i, c in enumerate(cores)}
    row_of_lane = {lane: i for i, lane in enumerate(lanes)}
    per_core = len(lanes) + 1  # a blank row between cores
    n_rows = len(cores) * per_core
    row = np.array([row_of_core[c] * per_core + row_of_lane[lane]
                    for c, lane in zip(seg.core[idx].tolist(), seg.lane[idx].tolist(),
                                       strict=True)], dtype=float)
    classes = _classes(tl, seg.what[idx], seg.record[idx])
    colours = _colours(classes)
    x0 = np.clip(start_us[idx], t0, t1)
    x1 = np.clip(end_us[idx], t0, t1)
    verts = np.empty((len(idx), 4, 2))
    verts[:, 0, 0] = verts[:, 1, 0] = x0
    verts[:, 2, 0] = verts[:, 3, 0] = x1
    verts[:, 0, 1] = verts[:, 3, 1] = row - 0.42
    verts[:, 1, 1] = verts[:, 2, 1] = row + 0.42

    row_in = max(0.07, min(0.3, 12.0 / max(n_rows, 1)))
    fig = Figure(figsize=(width_in, n_rows * row_in + 2.2))
    ax = fig.add_subplot()
    ax.add_collection(PolyCollection(verts, facecolors=[colours[c] for c in classes],
                                     edgecolors="face", linewidths=0.2))
    ax.set_xlim(t0, t1 if t1 > t0 else t0 + 1e-3)
    ax.set_ylim(n_rows - 0.5, -0.8)
    names = [LANE_NAMES[lane] for lane in lanes]
    if len(cores) <= 8:
        ax.set_yticks([row_of_core[c] * per_core + i for c in cores for i in range(len(lanes))])
        ax.set_yticklabels([f"{core_pid(c)} {n}" for c in cores for n in names], fontsize=7)
    else:
        ax.set_yticks([row_of_core[c] * per_core + (len(lanes) - 1) / 2 for c in cores])
        ax.set_yticklabels([core_pid(c) for c in cores], fontsize=6)
        ax.text(1.0, 1.0, "lanes per core, top to bottom: " + ", ".join(names),
                transform=ax.transAxes, ha="right", va="bottom", fontsize=7)
    for c in cores[1:]:
        ax.axhline(row_of_core[c] * per_core - 1, color="0.92", lw=0.5)
    ax.set_xlabel(f"time (us from launch, {tl.profile.name} at {tl.clock_mhz:g} MHz)")
    ax.set_title(title or f"{tl.run.kernel_name}: {tl.total_us:.2f} us, {tl.block_dim} cores",
                 fontsize=10, loc="left")
    present = [c for c in colours if c in set(classes)]
    ax.legend(handles=[Patch(color=colours[c], label=c) for c in present], fontsize=7,
              ncol=min(8, max(1, len(present))), loc="upper left", bbox_to_anchor=(0, -0.02 -
              0.5 / (n_rows * row_in + 2.2)), frameon=False)
    fig.tight_layout()
    return _save(fig, path, dpi)


def _busy_curve(starts: np.ndarray, ends: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Busy time of a set of intervals inside each [edges[k], edges[k+1])."""
    s, e = np.sort(starts), np.sort(ends)
    cs = np.r_[0.0, np.cumsum(s)]
    ce = np.r_[0.0, np.cumsum(e)]
    ks = np.searchsorted(s, edges, side="right")
    ke = np.searchsorted(e, edges, side="right")
    cum = (ks * edges - cs[ks]) - (ke * edges - ce[ke])  # total busy time before each edge
    return np.diff(cum)


def plot_occupancy(tl: Timeline, path: str | Path, bins: int = 200, dpi: int = 150) -> Path:
    """Two panels: each pipe's busy ratio per core, and the share of cores whose pipe is busy
    over time."""
    ratios = tl.ratios()
    fig = Figure(figsize=(12, 7))
    top, bottom = fig.subplots(2, 1)
    x = np.arange(tl.block_dim)
    width = 0.2
    for k, lane in enumerate((1, 2, 3, 0)):
        top.bar(x + (k - 1.5) * width, ratios[:, lane], width, color=_PIPE_COLOURS[lane],
                label=LANE_NAMES[lane])
    top.set_ylim(0, 1.05)
    top.set_ylabel("busy / aiv time")
    top.set_xlabel("block")
    top.set_title(f"{tl.run.kernel_name} on {tl.profile.name}: busy ratio per core (mean "
                  + ", ".join(f"{LANE_NAMES[lane]} {ratios[:, lane].mean():.0%}"
                              for lane in (1, 2, 3, 0)) + ")", fontsize=9, loc="left")
    top.legend(fontsize=8, ncol=4, loc="lower right", bbox_to_anchor=(1.0, 1.0), frameon=False)
    seg = segments(tl, launch=False)
    edges = np.linspace(0.0, tl.total_cycles, bins + 1)
    centres = (edges[:-1] + edges[1:]) / 2 / tl.clock_mhz
    for lane in (1, 2, 3, 0):
        on = (seg.lane == lane) & ((seg.what == REC) | (seg.what == ISSUE)
                                   | (seg.what == HEADER))
        busy = _busy_curve(seg.start[on], seg.end[on], edges)
        bottom.plot(centres, busy / np.diff(edges) / max(tl.block_dim, 1),
                    color=_PIPE_COLOURS[lane], label=LANE_NAMES[lane], lw=1.2)
    bottom.set_ylim(0, 1.05)
    bottom.set_xlim(0, tl.total_us)
    bottom.set_ylabel("share of cores busy")
    bottom.set_xlabel("time (us from launch)")
    bottom.legend(fontsize=8, ncol=4, loc="lower right", bbox_to_anchor=(1.0, 1.0),
                  frameon=False)
    fig.tight_layout()
    return _save(fig, path, dpi)
