"""A terminal summary of a timeline: kernel time, per-pipe ratios, GM traffic, the instructions
that take the most pipe time, and the model's notes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..registry import REGISTRY
from ..timing.cost import K_COPY
from ..timing.schedule import LANE_NAMES

if TYPE_CHECKING:
    from ..timing.timeline import Timeline

__all__ = ["summary_text"]


def summary_text(tl: Timeline, top: int = 8) -> str:
    clk = tl.clock_mhz
    lines = [f"{tl.run.kernel_name} on {tl.profile.name} ({clk:g} MHz), {tl.block_dim} core(s): "
             f"{tl.total_us:.2f} us ({tl.total_cycles:,.0f} cycles)",
             f"  launch {tl.cost.launch_us:g} us, header {tl.cost.header_cycles / clk:.2f} us "
             f"per core; core time (aiv) mean {tl.aiv_cycles.mean() / clk:.2f} us, "
             f"max {tl.aiv_cycles.max() / clk:.2f} us" if tl.block_dim else ""]
    ratios = tl.ratios()
    lines.append("  pipe      busy/aiv (mean over cores)   min     max")
    for lane in (1, 2, 3, 0):
        r = ratios[:, lane]
        lines.append(f"  {LANE_NAMES[lane]:<8}  {r.mean():>8.1%} {'':19}{r.min():>6.1%}  "
                     f"{r.max():>6.1%}")
    moved = float(tl.nbytes.sum())
    if moved:
        bw = moved * clk / tl.total_cycles / 1e3 if tl.total_cycles else 0.0
        size = f"{moved / 2**20:,.1f} MiB" if moved >= 2**20 else f"{moved / 2**10:,.1f} KiB"
        lines.append(f"  GM traffic {size}: {bw:,.1f} GB/s over the kernel, HBM cap "
                     f"{tl.cost.hbm_gb_per_s:,.0f} GB/s")
    dur = tl.end - tl.start
    names = [ins.name for ins in REGISTRY]
    by_instr: dict[tuple[str, str], list[float]] = {}
    for i, lane, d in zip(tl.instr.tolist(), tl.lane.tolist(), dur.tolist(), strict=True):
        item = by_instr.setdefault((names[i], LANE_NAMES[lane]), [0, 0.0])
        item[0] += 1
        item[1] += d
    ranked = sorted(by_instr.items(), key=lambda kv: -kv[1][1])[:top]
    if ranked:
        total = float(np.maximum(tl.aiv_cycles, 1e-9).sum())
        lines.append("  instruction     lane      count   cycles (all cores)  share of core time")
        for (name, lane), (n, cyc) in ranked:
            lines.append(f"  {name:<15} {lane:<8} {n:>6}   {cyc:>18,.0f}  {cyc / total:>8.1%}")
    copies = int(np.count_nonzero(tl.kind == K_COPY))
    if copies:
        lines.append(f"  {copies} GM copies")
    lines += [f"  note: {n}" for n in tl.notes]
    return "\n".join(line for line in lines if line)
