"""Run the double-buffer example with BUFFER_NUM 1 and 2 and print ascsim's timeline numbers
next to the ones msopprof published for the same sample (example/sample_double_buffer).

    python tools/examples/double_buffer/run.py [--tiles-per-core 512] [--profile NAME|FILE]
                                               [--hbm-gb-per-s X] [--out DIR]

The published run: y = x + bias on 8 cores, 512 tiles of 20480 halves per core (BUFFER_NUM 1)
or 1024 tiles of 10240 (BUFFER_NUM 2), on an Ascend910B4 at 1650 MHz (CANN 9.1.0-beta.3), the
default profile here. Under another profile the model's cycles are also shown at 1650 MHz.
--hbm-gb-per-s replaces the profile's HBM bandwidth (to see how much of the copy time is HBM
sharing between the 8 cores). With --out it also writes each variant's trace JSON, Gantt
chart, occupancy chart and PipeUtilization.csv. docs/timing.md discusses the comparison;
tests/test_timing_double_buffer.py holds the model to it.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
from pathlib import Path

import numpy as np

import ascsim
from ascsim import progress
from ascsim.profile import HardwareProfile, load_profile
from ascsim.timing import Timeline

_spec = importlib.util.spec_from_file_location("add_custom", Path(__file__).with_name(
    "add_custom.py"))
add_custom = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(add_custom)

CORES = 8
TILE_NUM = 512
TILE_ELEMENTS = 20480     # per tile with BUFFER_NUM 1 (half of it with BUFFER_NUM 2)
PUBLISHED_MHZ = 1650
PUBLISHED_PROFILE = "Ascend910B4"
# msopprof example/sample_double_buffer/README.md, means over the 8 cores (times in us, ratios
# as fractions); a (low, high) pair is the range the README gives
PUBLISHED = {
    1: {"time_us": 1378.0, "vec_time_us": 844.0, "mte2_time_us": 509.0, "mte3_time_us": 204.0,
        "vec_ratio": 0.616, "mte2_ratio": 0.37, "mte3_ratio": 0.15},
    2: {"time_us": 959.6, "vec_time_us": (887.90, 888.56), "mte2_time_us": (770.0, 817.0),
        "mte3_time_us": (235.0, 264.0), "vec_ratio": 0.94, "mte2_ratio": (0.83, 0.85),
        "mte3_ratio": (0.25, 0.275)},
}
COMPARED = ("time_us", "vec_time_us", "mte2_time_us", "mte3_time_us", "vec_ratio", "mte2_ratio",
            "mte3_ratio")


def published(buffer_num: int, key: str) -> float | None:
    """The published value, the midpoint of a published range."""
    value = PUBLISHED[buffer_num].get(key)
    return sum(value) / 2 if isinstance(value, tuple) else value


def run_sample(buffer_num: int, tiles_per_core: int = TILE_NUM,
               profile: str | HardwareProfile | None = PUBLISHED_PROFILE
               ) -> tuple[ascsim.Run, Timeline]:
    """Launch the example (outputs checked against numpy) and schedule it."""
    n = CORES * tiles_per_core * TILE_ELEMENTS
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, n).astype(np.float16)
    bias = rng.uniform(-1, 1, n).astype(np.float16)
    y = np.zeros_like(x)
    tiling = add_custom.AddCustomTilingData(totalLength=n, tileNum=tiles_per_core)
    run = ascsim.launch(add_custom.add_custom, CORES, x, bias, y, None, tiling=tiling,
                        tiling_key=buffer_num, profile=profile)
    want = (x.astype(np.float32) + bias.astype(np.float32)).astype(np.float16)
    if not np.array_equal(y, want):
        raise AssertionError("the example's output differs from x + bias")
    return run, run.timeline()


def model_numbers(tl: Timeline) -> dict[str, float]:
    """Mean over cores, in us at the profile clock and at the published board's clock."""
    busy = tl.busy.mean(axis=0)
    ratios = tl.pipe_ratios()
    out = {"time_us": tl.total_us, "vec_ratio": ratios["V"], "mte2_ratio": ratios["MTE2"],
           "mte3_ratio": ratios["MTE3"], "scalar_ratio": ratios["S"]}
    for key, lane in (("vec", 1), ("mte2", 2), ("mte3", 3)):
        out[f"{key}_time_us"] = float(busy[lane]) / tl.clock_mhz
    out["time_us_at_1650"] = tl.total_cycles / PUBLISHED_MHZ
    for key, lane in (("vec", 1), ("mte2", 2), ("mte3", 3)):
        out[f"{key}_time_us_at_1650"] = float(busy[lane]) / PUBLISHED_MHZ
    return out


def _fmt(value: float | tuple | None, ratio: bool) -> str:
    if value is None:
        return "-"
    if isinstance(value, tuple):
        return "-".join(_fmt(v, ratio) for v in value)
    return f"{value:.1%}" if ratio else f"{value:.1f}"


def _run_one(bn: int, args: argparse.Namespace, profile) -> tuple[dict, str, float]:
    """One BUFFER_NUM: its model numbers (and the pictures and traces asked for)."""
    run, tl = run_sample(bn, args.tiles_per_core, profile)
    if args.out:
        stem = args.out / f"buffer_num_{bn}"
        tl.write_trace(f"{stem}_trace.json")
        tl.plot_gantt(f"{stem}_gantt.png", cores=range(2))
        tl.plot_occupancy(f"{stem}_occupancy.png")
        tl.write_pipe_utilization(f"{stem}_PipeUtilization.csv")
    return model_numbers(tl), tl.profile.name, tl.clock_mhz


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiles-per-core", type=int, default=TILE_NUM)
    parser.add_argument("--profile", default=PUBLISHED_PROFILE)
    parser.add_argument("--hbm-gb-per-s", type=float, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    profile = load_profile(args.profile)
    if args.hbm_gb_per_s:
        profile = dataclasses.replace(profile, cost=dataclasses.replace(
            profile.cost, hbm_gb_per_s=args.hbm_gb_per_s))
    results = {}
    with progress.enabled(), progress.bar(2, "BUFFER_NUM 1 and 2", " runs", delay=0.0) as runs:
        for bn in (1, 2):
            results[bn], profile_name, clock = _run_one(bn, args, profile)
            runs.update(1)
    at = clock != PUBLISHED_MHZ
    print(f"y = x + bias, 8 cores, {args.tiles_per_core} tiles/core; model on {profile_name} "
          f"({clock:g} MHz, HBM {profile.cost.hbm_gb_per_s:g} GB/s)"
          + (f" and its cycles at {PUBLISHED_MHZ} MHz" if at else ""))
    heads = ("published", "model", f"@{PUBLISHED_MHZ}" if at else "model/pub")
    print(f"{'':16}" + "".join(f"{'BUFFER_NUM ' + str(bn):>42}" for bn in (1, 2)))
    print(f"{'':16}" + "".join(f"{h:>14}" for h in heads) * 2)
    for key in (*COMPARED, "scalar_ratio"):
        ratio = key.endswith("ratio")
        cells = ""
        for bn in (1, 2):
            model, pub = results[bn], published(bn, key)
            if at:
                last = "" if ratio else _fmt(model[f"{key}_at_1650"], False)
            else:
                last = "" if pub is None else f"{model[key] / pub - 1:+.1%}"
            cells += (f"{_fmt(PUBLISHED[bn].get(key), ratio):>14}{_fmt(model[key], ratio):>14}"
                      f"{last:>14}")
        print(f"{key:<16}{cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
