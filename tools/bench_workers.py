"""Benchmark: `launch(workers=N)` (ascsim/forked.py) against one process, side by side in one run.

    python tools/bench_workers.py [--repeat 3] [--workers 1,2] [--shapes 24,22]

For LogitGrad fp32 (2**24 elements by default) and SCE grad fp32 (2**22, both weights) it
times each worker count in interleaved rounds (best of --repeat) next to whole-array numpy, and
splits a workers=2 launch into its parts:
- host: what the op does outside the cores' run (tiling, allocations, the aclnn layer);
- share: each child's time on its share of the cores (wall, and its capture thread's CPU);
- pack: a child putting its GM writes in the staging copy and serialising its records and logs;
- merge: the parent reading the children's results, checking the shares' independence,
  mapping code ids and copying the written GM bytes from the staging copy.
- fork: the parent's os.fork (start: until the last child ran).
From those it prints the time the model `host + D fork + share/N + pack/N + merge` gives for 16
and 64 host cores (N capped at the launch's 48 cores; D the forks one after another before the
last child starts: the children are forked as a tree, forked._fork_tree, so D is about log2(N)
+ 1): the children's capture is the part that divides; merge and host do not. Machines are
shared: compare numbers of one run.
"""

from __future__ import annotations

import argparse
import os
import pickle
import time

import numpy as np
from benchutil import best_of

import ascsim.forked as forked
from ascsim.runtime import worker_processes
from kernels_py.logit_grad import logit_grad
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    binary_cross_entropy_with_logits_backward as sce_grad,
)


def _cases(shapes: list[int]):
    rng = np.random.default_rng(0)
    n = 1 << shapes[0]
    x = rng.uniform(0.01, 0.99, n).astype(np.float32)
    dy = rng.uniform(-2, 2, n).astype(np.float32)
    yield (f"LogitGrad fp32 2^{shapes[0]}", lambda: logit_grad(x, dy, -1.0, return_run=True),
           lambda: _numpy_logit_grad(x, dy))
    m = 1 << shapes[1]
    s, t = rng.uniform(-4, 4, m).astype(np.float32), rng.uniform(0, 1, m).astype(np.float32)
    g, w = rng.uniform(-1, 1, m).astype(np.float32), rng.uniform(0, 2, m).astype(np.float32)
    yield (f"SCE grad fp32 2^{shapes[1]}",
           lambda: sce_grad(g, s, t, w, w, reduction="none", return_run=True),
           lambda: _numpy_sce(g, s, t, w))


def _numpy_logit_grad(x, dy):
    with np.errstate(all="ignore"):
        return np.where((x >= 0) & (x <= 1), dy / (x * (np.float32(1) - x)), np.float32(np.nan))


def _numpy_sce(g, s, t, w):
    sig = np.float32(1) / (np.float32(1) + np.exp(-s))
    return g * w * ((w * t + np.float32(1) - t) * sig - w * t)


class _Split:
    """Times the parts of forked launches (wraps forked.run_shares and forked._child)."""

    def __init__(self) -> None:
        self.parts: list[dict[str, float]] = []
        self._run_shares, self._child = forked.run_shares, forked._child
        forked.run_shares, forked._child = self.run_shares, self.child

    def close(self) -> None:
        forked.run_shares, forked._child = self._run_shares, self._child

    def run_shares(self, run_share, shares, cores, gm, finish):
        start = time.perf_counter()
        pipes = [os.pipe() for _ in shares]  # each child's timings
        self.current = {"start": start, "shares": shares, "pipes": pipes, "forks": []}
        fork = os.fork

        def timed_fork():
            t = time.perf_counter()
            pid = fork()
            if pid:
                self.current["forks"].append(time.perf_counter() - t)
            return pid
        os.fork = timed_fork
        try:
            stands = self._run_shares(run_share, shares, cores, gm, finish)
        finally:
            os.fork = fork
        self.current["run_shares"] = time.perf_counter() - start
        for _, w in pipes:
            os.close(w)
        self.current["children"] = [r for r, _ in pipes]
        self.parts.append(self.current)
        return stands

    def child(self, run_share, share, cores, finish, inherited, stage, write, kids=()):
        stats_w = self.current["pipes"][self.current["shares"].index(share)][1]
        t0, c0 = time.perf_counter(), time.thread_time()
        marks = {}

        def timed_share(s):
            run_share(s)

        def timed_finish():
            finish()
            marks["share"] = time.perf_counter() - t0
            marks["share_cpu"] = time.thread_time() - c0
            marks["fork"] = t0 - self.current["start"]

        dumps = pickle.dumps

        def timed_dumps(obj, protocol=None):
            out = dumps(obj, protocol=protocol)
            marks["pack"] = time.perf_counter() - t0 - marks["share"]
            marks["done"] = time.perf_counter() - self.current["start"]
            os.write(stats_w, dumps(marks))
            return out
        forked.pickle.dumps = timed_dumps
        self._child(timed_share, share, cores, timed_finish, inherited, stage, write, kids)

    def read_children(self) -> list[dict[str, float]]:
        part = self.parts[-1]
        out = []
        for fd in part["children"]:
            with os.fdopen(fd, "rb") as f:
                data = f.read()
            out.append(pickle.loads(data) if data else {})
        part["children"] = []
        return out


def fork_depth(n: int) -> int:
    """The forks made one after another before the last of n tree-forked children starts
    (forked._fork_tree's order)."""
    def deepest(lo: int, hi: int, after: int) -> int:
        out = after
        while hi > lo:
            mid = (lo + hi) // 2
            after += 1
            out = max(out, deepest(mid + 1, hi, after))
            hi = mid
        return out
    return deepest(0, n, 0)


def _split_once(split: _Split, call) -> dict[str, float]:
    """One workers=2 launch's parts (seconds)."""
    with worker_processes(2):
        start = time.perf_counter()
        call()
        total = time.perf_counter() - start
    part = split.parts[-1]
    kids = split.read_children()
    done = max(k["done"] for k in kids)
    return {"total": total, "run_shares": part["run_shares"],
            "host": total - part["run_shares"], "fork": np.mean(part["forks"]),
            "start": max(k["fork"] for k in kids),
            "share": max(k["share"] for k in kids), "share_cpu": sum(k["share_cpu"] for k in kids),
            "pack": sum(k["pack"] for k in kids), "merge": part["run_shares"] - done}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", default="1,2", help="worker counts to time")
    parser.add_argument("--shapes", default="24,22", help="log2 sizes: LogitGrad, SCE")
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    shapes = [int(s) for s in args.shapes.split(",")]
    print(f"host: {os.cpu_count()} cores; best of {args.repeat}; seconds")
    for name, call, numpy_call in _cases(shapes):
        for w in counts:  # warm: compile, and load the batch kinds in this process
            with worker_processes(w):
                call()
        times = {w: float("inf") for w in counts}
        for _ in range(args.repeat):
            for w in counts:
                with worker_processes(w):
                    times[w] = min(times[w], best_of(1, call)[0])
        numpy_time = best_of(args.repeat, numpy_call)[0]
        cells = "  ".join(f"workers={w} {t:.3f} ({times[counts[0]] / t:.2f}x)"
                          for w, t in times.items())
        print(f"{name}: numpy {numpy_time:.3f}  {cells}")
        split = _Split()
        try:
            parts = min((_split_once(split, call) for _ in range(args.repeat)),
                        key=lambda p: p["total"])
        finally:
            split.close()
        print("  workers=2 split: " + ", ".join(f"{k} {v:.3f}" for k, v in parts.items()))
        capture = parts["share"] * 2  # one process's share time for all cores (wall)
        for cores in (16, 64):
            n = min(cores, 48)
            depth = fork_depth(n)
            model = (parts["host"] + depth * parts["fork"] + capture / n + parts["pack"] / n
                     + parts["merge"])
            print(f"  model, {cores} host cores (workers={n}, {depth} forks deep): "
                  f"{model:.3f} s, numpy/ascsim {numpy_time / model:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
