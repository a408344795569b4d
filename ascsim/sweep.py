"""Tiling sweeps: run an operator once per combination of tiling knob values (and hardware
profiles), schedule each run on the timing model, and tabulate estimated time and pipe ratios.

    from ascsim.sweep import sweep
    table = sweep("logit_grad", (64, 8192), "float32", {"cores": [8, 16, 24, 48]})

Combinations run in worker processes (each one imports ascsim and warms its own jit), a
progress line counts them, and every row says whether the output stayed bit-exact against the
op's numpy model and whether it is the op's default choice.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .compare import first_mismatch
from .oprunner import get_runner, parse_dtype

__all__ = ["sweep", "SweepTable", "METRICS"]

METRICS = ("time_us", "vec_ratio", "mte2_ratio", "mte3_ratio", "scalar_ratio")


@dataclass
class SweepTable:
    """One row per combination: the knob values, `block_dim`, the timing metrics, `bit_exact`,
    `default` (the op's own tiling), and `error` when the combination could not run."""

    op: str
    shape: tuple[int, ...]
    dtype: str
    keys: list[str]
    rows: list[dict[str, Any]] = field(default_factory=list)
    defaults: dict[str, Any] = field(default_factory=dict)

    def best(self) -> dict[str, Any] | None:
        ok = [r for r in self.rows if r.get("error") is None]
        return min(ok, key=lambda r: r["time_us"]) if ok else None

    def write_csv(self, path: str | Path) -> Path:
        path = Path(path)
        columns = self.keys + ["block_dim", *METRICS, "bit_exact", "default", "error"]
        with path.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
            w.writeheader()
            for row in self.rows:
                w.writerow(row)
        return path

    def plot(self, path: str | Path) -> Path:
        """Estimated time per choice (bars, the default hatched, failures marked) and the pipe
        ratios (lines) on a second axis."""
        from matplotlib.figure import Figure
        rows = self.rows
        labels = [", ".join(f"{k}={r[k]}" for k in self.keys) for r in rows]
        x = np.arange(len(rows))
        fig = Figure(figsize=(max(6.0, 0.6 * len(rows) + 3), 5.5))
        ax = fig.subplots()
        times = [r["time_us"] if r.get("error") is None else 0.0 for r in rows]
        bars = ax.bar(x, times, color="#4c78a8", label="estimated time (us)")
        for bar, r in zip(bars, rows, strict=True):
            if r.get("default"):
                bar.set_hatch("//")
                bar.set_edgecolor("black")
            if r.get("error") is not None:
                ax.annotate("failed", (bar.get_x() + bar.get_width() / 2, 0), ha="center",
                            va="bottom", color="red", fontsize=8)
            elif not r.get("bit_exact", True):
                ax.annotate("wrong result", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                            ha="center", va="bottom", color="red", fontsize=8)
        ax.set_ylabel("estimated kernel time (us)")
        ax.set_xticks(x, labels, rotation=45, ha="right", fontsize=8)
        ax2 = ax.twinx()
        for metric, colour in zip(METRICS[1:], ("#e45756", "#54a24b", "#b279a2", "#9d755d"),
                                  strict=True):
            ax2.plot(x, [r.get(metric, np.nan) if r.get("error") is None else np.nan
                         for r in rows], marker="o", color=colour, label=metric)
        ax2.set_ylim(0, 1.05)
        ax2.set_ylabel("pipe busy ratio (mean over cores)")
        handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
        ax.legend(handles, [h.get_label() for h in handles], fontsize=8, loc="lower left",
                  bbox_to_anchor=(0.0, 1.01), ncol=5, frameon=False)
        fig.suptitle(f"{self.op} {list(self.shape)} {self.dtype}: tiling sweep "
                     "(hatched = the op's default)", fontsize=10)
        fig.tight_layout()
        fig.savefig(path, dpi=130)
        return Path(path)

    def __str__(self) -> str:
        head = self.keys + ["block_dim", "time_us", "vec", "mte2", "mte3", "scalar", "exact", ""]
        lines = ["  ".join(f"{h:>10}" for h in head)]
        for r in self.rows:
            if r.get("error") is not None:
                cells = [str(r[k]) for k in self.keys] + [f"failed: {r['error']}"]
                lines.append("  ".join(f"{c:>10}" for c in cells))
                continue
            cells = [str(r[k]) for k in self.keys] + [
                str(r["block_dim"]), f"{r['time_us']:.2f}", *(f"{r[m]:.1%}" for m in METRICS[1:]),
                "yes" if r["bit_exact"] else "NO", "default" if r["default"] else ""]
            lines.append("  ".join(f"{c:>10}" for c in cells))
        return "\n".join(lines)


def _run_one(op: str, shape: tuple[int, ...], dtype: str, seed: int, op_args: dict[str, Any],
             combo: dict[str, Any]) -> dict[str, Any]:
    """One combination, in a worker process: returns its table row."""
    from .aclnn import device
    from .tuning import tiling_overrides
    runner = get_runner(op)
    args = argparse.Namespace(**op_args)
    inputs = runner.make_inputs(shape, parse_dtype(dtype), np.random.default_rng(seed), args)
    knobs = {k: v for k, v in combo.items() if k != "profile"}
    row: dict[str, Any] = dict(combo)
    try:
        with device(combo.get("profile")), tiling_overrides(**knobs):
            out, run = runner.run(inputs, args)
        if run is None:
            raise ValueError("empty input: nothing launched")
        metrics = run.timeline().metrics()
        row.update({m: metrics[m] for m in METRICS})
        row["block_dim"] = run.block_dim
        row["bit_exact"] = first_mismatch(np.asarray(out), runner.model(inputs, args)) is None
        row["error"] = None
    except Exception as e:  # a combination the op cannot run is a row, not a crash
        row["error"] = f"{type(e).__name__}: {e}".splitlines()[0]
    return row


def _defaults(op: str, shape: tuple[int, ...], dtype: str, seed: int, op_args: dict[str, Any],
              keys: Sequence[str], profile: str | None) -> dict[str, Any]:
    """The values the op's own tiling picks for the swept knobs."""
    from .aclnn import device
    from .host import op_registration  # noqa: F401  (ensures registrations are importable)
    from .tuning import knobs_of
    runner = get_runner(op)
    args = argparse.Namespace(**op_args)
    inputs = runner.make_inputs(shape, parse_dtype(dtype), np.random.default_rng(seed), args)
    with device(profile):
        _, run = runner.run(inputs, args)
    knobs = knobs_of(runner.OP_TYPE)
    out = {k: knobs[k].read(run) for k in keys if k in knobs}
    if "profile" in keys:
        out["profile"] = run.profile.name
    return out


def sweep(op: str, shape: Sequence[int], dtype: str, grid: dict[str, Sequence[Any]],
          op_args: dict[str, Any] | None = None, seed: int = 0, workers: int | None = None,
          progress: bool = True) -> SweepTable:
    """Run every combination of `grid` (knob name -> values; the key "profile" sweeps hardware
    profiles) for `op` on random inputs of `shape` and `dtype`; returns the table."""
    from .tuning import knobs_of
    runner = get_runner(op)
    known = knobs_of(runner.OP_TYPE)
    unknown = [k for k in grid if k != "profile" and k not in known]
    if unknown:
        raise ValueError(f"{op} has no tiling knob {', '.join(unknown)}; its knobs are "
                         f"{', '.join(f'{k} ({v.doc})' for k, v in known.items()) or 'none'}")
    op_args = dict(op_args or {})
    parser = argparse.ArgumentParser(add_help=False)
    runner.add_arguments(parser)
    op_args = {**vars(parser.parse_args([])), **op_args}
    shape = tuple(int(d) for d in shape)
    keys = list(grid)
    combos = [dict(zip(keys, values, strict=True))
              for values in itertools.product(*(grid[k] for k in keys))]
    table = SweepTable(op, shape, dtype, keys)
    base_profile = grid["profile"][0] if "profile" in grid else None
    table.defaults = _defaults(op, shape, dtype, seed, op_args, keys, base_profile)
    workers = max(1, min(workers or os.cpu_count() or 1, len(combos)))
    rows: list[dict[str, Any] | None] = [None] * len(combos)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(_run_one, op, shape, dtype, seed, op_args, c): i
                   for i, c in enumerate(combos)}
        for done, future in enumerate(as_completed(futures), 1):
            rows[futures[future]] = future.result()
            if progress:
                _progress(done, len(combos), time.perf_counter() - start)
    if progress:
        print(file=sys.stderr)
    for row in rows:
        assert row is not None
        row["default"] = all(row.get(k) == v for k, v in table.defaults.items()
                             if k != "profile") and (
            "profile" not in keys or row["profile"] == table.defaults.get("profile"))
    table.rows = [r for r in rows if r is not None]
    return table


def _progress(done: int, total: int, seconds: float) -> None:
    width = 30
    filled = width * done // total
    eta = seconds / done * (total - done)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
                     f"combinations, {seconds:.0f} s, about {eta:.0f} s left ")
    sys.stderr.flush()
