"""Benchmark: what the pipeline timeline costs next to the functional run it times.

    python tools/bench_timing.py [--repeat 3] [--elements 16777216] [--cores 48]

Launches the LogitGrad fp32 kernel directly (2**24 elements on 48 cores by default) and prints,
each the best of --repeat runs after a warm-up:
- functional: `ascsim.launch` (records are always on, so this includes recording them);
- recording: rebuilding and appending every record tuple of that run, an estimate of the part
  of the functional time spent recording (the instructions build their tuples inline);
- timing: `run.timeline()`, i.e. costing every record and scheduling all cores;
- the ratio (recording + timing) / functional: the issue's budget is 0.30.
Machines are shared: compare ratios from one run, not absolute numbers across runs.
"""

from __future__ import annotations

import argparse

import numpy as np
from benchutil import best_of

import ascsim
from kernels_py.logit_grad.op_kernel.logit_grad import logit_grad
from kernels_py.logit_grad.op_kernel.logit_grad_tiling_data import LogitGradTilingData


def replay_records(rows: list[list[tuple]]) -> int:
    """Rebuild and append every record tuple, as the instructions do while running."""
    total = 0
    for core_rows in rows:
        out: list[tuple] = []
        append = out.append
        for r in core_rows:
            append((*r,))
        total += len(out)
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--elements", type=int, default=1 << 24)
    parser.add_argument("--cores", type=int, default=48)
    args = parser.parse_args()
    n, cores = args.elements, args.cores
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, n).astype(np.float32)
    dy = rng.uniform(-100, 100, n).astype(np.float32)
    out = np.empty_like(x)
    tiling = LogitGradTilingData(elementNum=n, eps=-1.0, needCoreNum=cores)

    def functional() -> ascsim.Run:
        return ascsim.launch(logit_grad, cores, x, dy, out, None, tiling=tiling, tiling_key=2)

    functional().timeline()  # warm the jit and numba's caches
    t_run, run = best_of(args.repeat, functional)
    rows = [list(c.records) for c in run.cores]  # the tuples, as the running cores hold them
    t_rec, _ = best_of(args.repeat, lambda: replay_records(rows))
    t_time, tl = best_of(args.repeat, run.timeline)
    share = (t_rec + t_time) / t_run
    print(f"LogitGrad fp32, {n} elements on {cores} cores: {run.instruction_count} records; "
          f"model: {tl.total_us:.1f} us on {tl.profile.name}")
    print(f"{'functional s':>13}{'recording s':>13}{'timing s':>10}{'(rec+timing)/functional':>25}")
    print(f"{t_run:>13.3f}{t_rec:>13.3f}{t_time:>10.3f}{share:>25.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
