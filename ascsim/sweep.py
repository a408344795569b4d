"""Tiling sweeps: run an operator once per combination of tiling knob values (and hardware
profiles), schedule each run on the timing model, and tabulate estimated time and pipe ratios.

    from ascsim.sweep import sweep
    table = sweep("logit_grad", (64, 8192), "float32", {"cores": [8, 16, 24, 48]})

The operator is anything `ascsim.load_operator` takes (a name, path/to/op.py, pkg.module) or
an `ascsim.Operator`. Combinations run in worker processes, local or on a Dask cluster (each
one loads the operator again from its spec and warms its own jit); every row says whether the
output stayed bit-exact against the op's numpy model and whether it is the op's default choice.
Progress goes to the `progress` callback and to the `ascsim.sweep` logger (DEBUG), never to
the terminal.
"""

from __future__ import annotations

import csv
import itertools
import logging
import os
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .compare import first_mismatch
from .distribute import open_pool
from .errors import UsageError
from .operator import Operator, parse_shape
from .oprunner import load_operator, spec_of

__all__ = ["sweep", "SweepTable", "METRICS", "Progress"]

METRICS = ("time_us", "vec_ratio", "mte2_ratio", "mte3_ratio", "scalar_ratio")
# progress(done, total, seconds since the start): called after each finished combination
Progress = Callable[[int, int, float], None]
log = logging.getLogger("ascsim.sweep")


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
                  bbox_to_anchor=(0.0, 1.01), ncol=3, frameon=False)
        if any(r.get("default") for r in rows):
            note = "hatched = the op's default"
        else:
            note = "the op's default, " + ", ".join(
                f"{k}={v}" for k, v in self.defaults.items()) + ", was not swept"
        fig.suptitle(f"{self.op} {list(self.shape)} {self.dtype}: tiling sweep ({note})",
                     fontsize=10)
        fig.tight_layout()
        # the legend sits above the axes, outside what tight_layout makes room for
        fig.savefig(path, dpi=130, bbox_inches="tight", pad_inches=0.15)
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


def _run_one(spec: str | Operator, shape: tuple[int, ...], dtype: str, seed: int,
             options: dict[str, Any], combo: dict[str, Any]) -> dict[str, Any]:
    """One combination, in a worker process: returns its table row."""
    from .tuning import tiling_overrides
    op = load_operator(spec)
    inputs, options = op.prepare(shape, dtype, seed, options)
    knobs = {k: v for k, v in combo.items() if k != "profile"}
    row: dict[str, Any] = dict(combo)
    try:
        with tiling_overrides(**knobs):
            out, run = op.run(inputs, options, profile=combo.get("profile"))
        if run is None:
            raise ValueError("empty input: nothing launched")
        metrics = run.timeline().metrics()
        row.update({m: metrics[m] for m in METRICS})
        row["block_dim"] = run.block_dim
        row["bit_exact"] = first_mismatch(np.asarray(out), op.model(inputs, options)) is None
        row["error"] = None
    except Exception as e:  # a combination the op cannot run is a row, not a crash
        row["error"] = f"{type(e).__name__}: {e}".splitlines()[0]
    return row


def _defaults(op: Operator, shape: tuple[int, ...], dtype: str, seed: int,
              options: dict[str, Any], keys: Sequence[str], profile: str | None
              ) -> dict[str, Any]:
    """The values the op's own tiling picks for the swept knobs."""
    inputs, options = op.prepare(shape, dtype, seed, options)
    _, run = op.run(inputs, options, profile=profile)
    if run is None:
        raise UsageError(f"{op.name}: shape {list(shape)} is empty; nothing to sweep")
    knobs = op.tiling_knobs()
    out = {k: knobs[k].read(run) for k in keys if k in knobs}
    if "profile" in keys:
        out["profile"] = run.profile.name
    return out


def _portable(op: str | Operator, operator: Operator) -> str | Operator | None:
    """What a worker process can load the operator from: the spec, or the Operator itself
    when it pickles; None when neither works (e.g. lambdas in an Operator built in a script)."""
    if isinstance(op, str):
        return op
    spec = spec_of(operator)
    if spec is not None:
        return spec
    try:
        pickle.dumps(operator)
    except Exception:
        return None
    return operator


def sweep(op: str | Operator, shape: str | Sequence[int], dtype: str | None,
          grid: dict[str, Sequence[Any]], options: dict[str, Any] | None = None, seed: int = 0,
          workers: int | None = None, progress: Progress | None = None,
          scheduler: str | None = None) -> SweepTable:
    """Run every combination of `grid` (knob name -> values; the key "profile" sweeps hardware
    profiles) for `op` on random inputs of `shape` and `dtype` (None: the op's first);
    `options` are the op's options (defaults filled in). Returns the table. `scheduler`:
    where the combinations run (ascsim.distribute: None for local worker processes, "local"
    for a Dask LocalCluster, or a Dask scheduler's address); the table is the same.

    Raises UsageError for an unknown operator, knob, option, shape or dtype. The workers load
    the operator from its spec; an Operator that `load_operator` did not return goes to them
    pickled, or, if it does not pickle, the combinations run in this process, in turn."""
    operator = load_operator(op)
    known = operator.tiling_knobs()
    unknown = [k for k in grid if k != "profile" and k not in known]
    if unknown:
        raise UsageError(f"{operator.name} has no tiling knob {', '.join(unknown)}; its knobs "
                         f"are {', '.join(f'{k} ({v.doc})' for k, v in known.items()) or 'none'}")
    empty = [k for k, values in grid.items() if len(values) == 0]
    if empty:
        raise UsageError(f"no values to sweep for {', '.join(empty)}")
    options = operator.option_values(options)
    shape = parse_shape(shape)
    dtype = operator.dtype(dtype).name
    keys = list(grid)
    combos = [dict(zip(keys, values, strict=True))
              for values in itertools.product(*(grid[k] for k in keys))]
    table = SweepTable(operator.name, shape, dtype, keys)
    base_profile = grid["profile"][0] if "profile" in grid else None
    table.defaults = _defaults(operator, shape, dtype, seed, options, keys, base_profile)
    workers = max(1, min(workers or os.cpu_count() or 1, len(combos)))
    spec = _portable(op, operator)
    rows: list[dict[str, Any] | None] = [None] * len(combos)
    start = time.perf_counter()

    def finished(i: int, row: dict[str, Any], done: int) -> None:
        rows[i] = row
        seconds = time.perf_counter() - start
        log.debug("%s: combination %d/%d done after %.1f s: %s", operator.name, done,
                  len(combos), seconds, combos[i])
        if progress is not None:
            progress(done, len(combos), seconds)

    if spec is None:  # an Operator that cannot reach a worker process: run here, in turn
        for i, c in enumerate(combos):
            finished(i, _run_one(operator, shape, dtype, seed, options, c), i + 1)
    else:
        with open_pool(scheduler, workers) as pool:
            futures = {pool.submit(_run_one, spec, shape, dtype, seed, options, c): i
                       for i, c in enumerate(combos)}
            for done, future in enumerate(pool.as_completed(futures), 1):
                finished(futures[future], future.result(), done)
    for row in rows:
        assert row is not None
        row["default"] = all(row.get(k) == v for k, v in table.defaults.items()
                             if k != "profile") and (
            "profile" not in keys or row["profile"] == table.defaults.get("profile"))
    table.rows = [r for r in rows if r is not None]
    return table
