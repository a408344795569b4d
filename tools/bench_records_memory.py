"""Benchmark: the memory a run's instruction records take, for LogitGrad.

    python tools/bench_records_memory.py [--elements 16777216] [--dtype float32] [--rounds 7]

Runs `logit_grad` once under tracemalloc and prints what the records of the returned Run hold:
- traced: the bytes tracemalloc sees freed when every core's records are dropped (everything
  the records own and nothing else: ints shared with other objects stay alive and are not
  counted, nor are CPython's cached small ints);
- deep size: the same by counting, `sys.getsizeof` of every distinct object the records
  reach (a list, its tuples and their ints; or a store's arrays), as a cross-check;
- rows and ints per row.
tracemalloc slows that run down, so the time is measured apart: --rounds interleaved launches
with the records packed (as launch does) and with packing switched off (the records stay
lists), in this one process; it prints the median launch time of each, of dropping the Run,
and of the packing step itself.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
import tracemalloc
from typing import Any

import ml_dtypes
import numpy as np

from ascsim import runtime
from kernels_py.logit_grad import logit_grad

_SMALL_INTS = range(-5, 257)  # CPython's cached ints: shared, owned by nobody


def deep_size(records: Any) -> int:
    """Bytes of `records` and every distinct object it reaches that it owns."""
    seen: set[int] = set()
    total = sys.getsizeof(records)
    if isinstance(records, list):
        for row in records:
            total += sys.getsizeof(row)
            for v in row:
                if not (type(v) is int and v in _SMALL_INTS) and id(v) not in seen:
                    seen.add(id(v))
                    total += sys.getsizeof(v)
        return total
    for name in getattr(type(records), "__slots__", ()):
        value = getattr(records, name, None)
        if isinstance(value, np.ndarray):
            total += sys.getsizeof(value) + (value.nbytes if value.base is not None else 0)
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elements", type=int, default=1 << 24)
    parser.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32")
    parser.add_argument("--rounds", type=int, default=7, help="timed launches of each kind")
    args = parser.parse_args()
    dtype = np.float32 if args.dtype == "float32" else ml_dtypes.bfloat16
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, args.elements).astype(np.float32).astype(dtype)
    dy = rng.uniform(-100, 100, args.elements).astype(np.float32).astype(dtype)
    logit_grad(x[:100_000], dy[:100_000], -1.0)  # warm the jit outside the trace
    gc.collect()
    tracemalloc.start()
    _, run = logit_grad(x, dy, -1.0, return_run=True)
    gc.collect()
    kind = type(run.cores[0].records).__name__
    rows = sum(len(c.records) for c in run.cores)
    ints = sum(len(r) for c in run.cores for r in c.records)
    deep = sum(deep_size(c.records) for c in run.cores)
    held = tracemalloc.get_traced_memory()[0]
    for core in run.cores:
        core.records = []
    gc.collect()
    traced = held - tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(f"LogitGrad {args.dtype} 2^{args.elements.bit_length() - 1}, {run.block_dim} cores: "
          f"records are {kind}s, {rows} rows, {ints / max(rows, 1):.1f} ints per row")
    print(f"records memory: traced {traced / 1e6:.2f} MB, deep size {deep / 1e6:.2f} MB, "
          f"as int64 {8 * (ints + rows + len(run.cores)) / 1e6:.2f} MB (ints + row offsets)")
    del run
    if args.rounds > 0:
        time_packing(x, dy, args.rounds)
    return 0


def time_packing(x: np.ndarray, dy: np.ndarray, rounds: int) -> None:
    """Launches with and without packing, interleaved (the order alternates every round). Each
    core is packed as it ends (runtime._pack_core): the packing step is their sum."""
    pack = runtime._pack_core
    packing: list[float] = []

    def timed_pack(core: Any) -> None:
        t = time.perf_counter()
        pack(core)
        packing[-1] += time.perf_counter() - t

    launch: dict[str, list[float]] = {"packed": [], "lists": []}
    drop: dict[str, list[float]] = {"packed": [], "lists": []}
    try:
        for r in range(rounds):
            for kind in ("packed", "lists") if r % 2 == 0 else ("lists", "packed"):
                runtime._pack_core = timed_pack if kind == "packed" else lambda core: None
                if kind == "packed":
                    packing.append(0.0)  # this launch's cores add to it
                gc.collect()
                t = time.perf_counter()
                _, run = logit_grad(x, dy, -1.0, return_run=True)
                launch[kind].append(time.perf_counter() - t)
                t = time.perf_counter()
                del run
                drop[kind].append(time.perf_counter() - t)
    finally:
        runtime._pack_core = pack
    med = statistics.median
    for kind in launch:
        print(f"{kind:>6}: launch {med(launch[kind]):.3f} s (min {min(launch[kind]):.3f}), "
              f"dropping the Run {med(drop[kind]) * 1e3:.1f} ms  (median of {rounds})")
    print(f"packing step: {med(packing) * 1e3:.1f} ms (min {min(packing) * 1e3:.1f})")


if __name__ == "__main__":
    raise SystemExit(main())
