"""`PipeUtilization.csv` with msprof's column names, one row per core, so that a simulated run
can be laid next to a measured one.

`block_id`/`sub_block_id` are the AI core and its vector core (block b -> b // 2, b % 2, as in
the trace's `core<b>.veccore<s>`); the last column, `block_idx`, is GetBlockIdx(). Ratios are
fractions (busy cycles of the pipe / aiv_total_cycles); `*_active_bw(GB/s)` divide the bytes a
copy engine moved by its busy time.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

from ..timing.cost import K_COPY

if TYPE_CHECKING:
    from ..timing.timeline import Timeline

__all__ = ["pipe_utilization_rows", "write_pipe_utilization", "COLUMNS"]

COLUMNS = ("block_id", "sub_block_id", "aiv_time(us)", "aiv_total_cycles", "aiv_vec_time(us)",
           "aiv_vec_ratio", "aiv_scalar_time(us)", "aiv_scalar_ratio", "aiv_mte2_time(us)",
           "aiv_mte2_ratio", "aiv_mte3_time(us)", "aiv_mte3_ratio",
           "aiv_mte2_active_bw(GB/s)", "aiv_mte3_active_bw(GB/s)", "block_idx")

# (column stem, lane) in the order of COLUMNS
_PIPES = (("vec", 1), ("scalar", 0), ("mte2", 2), ("mte3", 3))


def pipe_utilization_rows(tl: Timeline) -> list[dict[str, float | int]]:
    ratios = tl.ratios()
    clk = tl.clock_mhz
    copies = tl.kind == K_COPY
    rows = []
    for b in range(tl.block_dim):
        sl = tl.core_slice(b)
        cyc = float(tl.aiv_cycles[b])
        row: dict[str, float | int] = {"block_id": b // 2, "sub_block_id": b % 2,
                                       "aiv_time(us)": round(cyc / clk, 6),
                                       "aiv_total_cycles": round(cyc)}
        for stem, lane in _PIPES:
            row[f"aiv_{stem}_time(us)"] = round(float(tl.busy[b, lane]) / clk, 6)
            row[f"aiv_{stem}_ratio"] = round(float(ratios[b, lane]), 6)
        for stem, lane in (("mte2", 2), ("mte3", 3)):
            moved = float(tl.nbytes[sl][copies[sl] & (tl.lane[sl] == lane)].sum())
            busy = float(tl.busy[b, lane])
            row[f"aiv_{stem}_active_bw(GB/s)"] = round(moved * clk / busy / 1e3, 3) if busy else 0
        row["block_idx"] = b
        rows.append(row)
    return rows


def write_pipe_utilization(tl: Timeline, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(pipe_utilization_rows(tl))
    return path
