"""Before/after: one benchmark script run on two source trees, alternately, in one session.

    git worktree add ../base HEAD~3           # the tree before the change
    python tools/bench_ab.py ../base . tools/bench_calls.py --rounds 5 -- --repeat 3

runs `python SCRIPT ARGS` with the current directory and PYTHONPATH set to tree A, then to tree
B, `--rounds` times (A B, B A, A B, ...: alternating the order so that a trend in the machine's
load does not favour one side), and prints every number the script printed as the median over
rounds for A and for B and the ratio B/A. Lines are matched by their text with the numbers
taken out, so the script's own table is the report's table. Machines are shared and noisy: a
ratio within the spread of the rounds (shown as min..max) is no difference; `--stat min`
compares the fastest round of each side instead, for per-call costs on a machine whose speed
drifts between runs (load only ever adds time), and `--stat max` the best round of numbers
where higher is better (elements/s, ratios to numpy): with `min` those would be the worst.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def run_once(tree: Path, script: str, args: list[str]) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    r = subprocess.run([sys.executable, script, *args], cwd=tree, env=env, capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise SystemExit(f"bench_ab: {script} failed in {tree}:\n{r.stderr.strip()}")
    return r.stdout


Line = tuple[int, str]  # (line number, the line with its numbers as '#' and spaces squeezed)


def numbers_by_line(text: str) -> dict[Line, tuple[str, list[float]]]:
    """{line key: (the line, its numbers)} for the lines of `text` holding a number. Keys
    include the line number: "float32 2^24" and "float16 2^22" must stay two lines."""
    table: dict[Line, tuple[str, list[float]]] = {}
    for i, line in enumerate(text.splitlines()):
        values = [float(v) for v in NUMBER.findall(line)]
        if values:
            table[(i, " ".join(NUMBER.sub("#", line).split()))] = (line, values)
    return table


def label_of(line: str, measured: set[int]) -> str:
    """`line` up to its first measured number, the constants (sizes, counts) kept."""
    for k, m in enumerate(NUMBER.finditer(line)):
        if k in measured:
            return " ".join(line[:m.start()].split()) or "(numbers)"
    return " ".join(line.split())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", type=Path, help="tree A (before)")
    p.add_argument("b", type=Path, help="tree B (after)")
    p.add_argument("script", help="the benchmark, relative to each tree (tools/bench_calls.py)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--stat", choices=("median", "min", "max"), default="median",
                   help="how the rounds of one side combine: the median, the minimum (for "
                        "costs on a machine whose speed drifts: noise only adds time) or the "
                        "maximum (for rates, where noise only lowers them)")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    ns = p.parse_args(argv[:cut])
    ns.args = argv[cut + 1:]  # the script's own arguments, after --
    trees = {"A": ns.a.resolve(), "B": ns.b.resolve()}
    for tree in trees.values():
        if not (tree / ns.script).is_file():
            p.error(f"{tree / ns.script} does not exist")
    for tree in trees.values():  # warm numba's caches of both trees outside the rounds
        run_once(tree, ns.script, ns.args)
    runs: dict[str, list[dict[Line, tuple[str, list[float]]]]] = {"A": [], "B": []}
    order: list[Line] = []
    for i in range(ns.rounds):
        for side in ("AB" if i % 2 == 0 else "BA"):
            table = numbers_by_line(run_once(trees[side], ns.script, ns.args))
            runs[side].append(table)
            order += [k for k in table if k not in order]
        print(f"round {i + 1}/{ns.rounds} done", file=sys.stderr)
    print(f"A = {trees['A']}\nB = {trees['B']}\n{ns.script} {' '.join(ns.args)}, "
          f"{ns.rounds} rounds; each number: {ns.stat} A -> {ns.stat} B (B/A, min..max of B/A "
          "per round)")
    combine = {"median": statistics.median, "min": min, "max": max}[ns.stat]
    for key in order:
        rows = [t.get(key) for side in runs.values() for t in side]
        if any(r is None for r in rows):
            print(f"{key[1][:40]:40s} (not printed by every run)")
            continue
        width = min(len(values) for _, values in rows)
        cols, measured = [], set()
        for k in range(width):
            a = [t[key][1][k] for t in runs["A"]]
            b = [t[key][1][k] for t in runs["B"]]
            if len(set(a + b)) == 1:
                continue  # a constant of the line (a size, a core count), not a measurement
            measured.add(k)
            ma, mb = combine(a), combine(b)
            ratios = [y / x for x, y in zip(a, b, strict=True) if x]
            spread = f"{min(ratios):.2f}..{max(ratios):.2f}" if ratios else "-"
            ratio = f"{mb / ma:.2f}" if ma else "-"
            cols.append(f"{ma:g} -> {mb:g} ({ratio}, {spread})")
        if cols:
            print(f"{label_of(rows[0][0], measured)[:40]:40s} " + " | ".join(cols))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
