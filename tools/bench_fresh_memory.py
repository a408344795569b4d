"""Benchmark: what a launch's Unified Buffers cost to create, from the pool and freshly allocated.

    python tools/bench_fresh_memory.py [--rounds 40] [--cores 48]

A launch cuts its cores' UBs from one block (`ascsim.core.new_ubs`). The block comes from a pool
of anonymous mappings that earlier launches gave back (`core._BlockPool`); before, it was a
fresh numpy array, which numpy asks the kernel to back with huge pages, and first-touch faults
of such an array sometimes wait for the kernel to compact memory. Each round here allocates a
few other large arrays (as a launch's inputs and outputs would), then creates the UBs both ways,
alternating which goes first, and keeps only the last round's UBs alive (as a benchmark loop
that drops its runs does). It prints the median and worst creation time of each way. Machines
are shared: compare the two columns of one run.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from ascsim.core import dummy_byte, new_ubs
from ascsim.profile import load_profile


def _fresh(profile: object, count: int) -> list[np.ndarray]:
    """The UBs as they were made before the pool: a fresh array filled with the dummy byte."""
    size = profile.ub_bytes
    block = np.full(count * size, dummy_byte(profile), dtype=np.uint8)
    return [block[i * size:(i + 1) * size] for i in range(count)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--cores", type=int, default=48)
    args = parser.parse_args()
    profile = load_profile()
    ways = {"pool": lambda: new_ubs(profile, args.cores), "fresh": lambda: _fresh(profile,
                                                                                  args.cores)}
    spent: dict[str, list[float]] = {name: [] for name in ways}
    kept: dict[str, object] = {}
    for r in range(max(args.rounds, 1)):
        others = [np.ones(1 << 22, np.float32) for _ in range(6)]  # a launch's other arrays
        for name in (list(ways) if r % 2 == 0 else list(ways)[::-1]):
            kept.pop(name, None)  # the previous round's UBs die here
            start = time.perf_counter()
            kept[name] = ways[name]()
            spent[name].append(time.perf_counter() - start)
        del others
    print(f"{args.cores} UBs of {profile.ub_bytes} bytes, {args.rounds} rounds")
    print(f"{'way':<8}{'median ms':>11}{'worst ms':>10}")
    for name, times in spent.items():
        print(f"{name:<8}{statistics.median(times) * 1e3:>11.2f}{max(times) * 1e3:>10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
