"""The double-buffer example (tools/examples/double_buffer, after msopprof's sample) against
the published measurement: on the Ascend910B4 profile at 1650 MHz the model's kernel, vector,
MTE2 and MTE3 times and ratios, BUFFER_NUM 1 and 2, are each within 15% of the published
value, and the effect has its published mechanism (the copy-in overlaps the Add). The runs
are the full-size sample (8 cores x 40 MiB in, a few seconds of functional run each); the
simulated times are deterministic, so this is no wall-clock threshold."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

RUN_PY = Path(__file__).parents[1] / "tools" / "examples" / "double_buffer" / "run.py"


# msopprof example/sample_double_buffer/README.md (Ascend910B4, CANN 9.1.0-beta.3, 1650 MHz),
# means over the 8 cores; the midpoint where the README gives a range. Kept here, not taken
# from run.py, so that a changed table there cannot move the target.
PUBLISHED = {
    1: {"time_us": 1378.0, "vec_time_us": 844.0, "mte2_time_us": 509.0, "mte3_time_us": 204.0,
        "vec_ratio": 0.616, "mte2_ratio": 0.37, "mte3_ratio": 0.15},
    2: {"time_us": 959.6, "vec_time_us": (887.90 + 888.56) / 2, "mte2_time_us": (770 + 817) / 2,
        "mte3_time_us": (235 + 264) / 2, "vec_ratio": 0.94, "mte2_ratio": (0.83 + 0.85) / 2,
        "mte3_ratio": (0.25 + 0.275) / 2},
}


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("double_buffer_run", RUN_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def timelines(example):
    """The full-size sample on the run's default profile, BUFFER_NUM 1 and 2."""
    return {bn: example.run_sample(bn)[1] for bn in (1, 2)}


def test_the_example_models_the_published_board(example, timelines):
    assert example.PUBLISHED_PROFILE == "Ascend910B4" and example.PUBLISHED_MHZ == 1650
    for tl in timelines.values():
        assert tl.profile.name == "Ascend910B4" and tl.clock_mhz == 1650
    for bn, values in PUBLISHED.items():
        for key, value in values.items():
            assert example.published(bn, key) == pytest.approx(value), (bn, key)


@pytest.mark.parametrize("bn", [1, 2])
@pytest.mark.parametrize("key", list(PUBLISHED[1]))
def test_model_is_within_15_percent_of_the_published_run(example, timelines, bn, key):
    model = example.model_numbers(timelines[bn])[key]
    published = PUBLISHED[bn][key]
    assert abs(model / published - 1) <= 0.15, (bn, key, model, published)


def _overlap(tl, core: int = 0) -> float:
    """Cycles during which a copy-in and a vector op (not flags) run at once on `core`."""
    sl = tl.core_slice(core)
    names = np.array(tl.instruction_names())[sl]
    start, end = tl.start[sl], tl.end[sl]
    a = [(s, e) for s, e, n, x in zip(start, end, names, tl.lane[sl], strict=True)
         if n == "DataCopy" and x == 2]
    b = [(s, e) for s, e, n in zip(start, end, names, strict=True) if n == "Add"]
    total, j = 0.0, 0
    for s0, e0 in a:  # both lists are in time order
        while j < len(b) and b[j][1] <= s0:
            j += 1
        k = j
        while k < len(b) and b[k][0] < e0:
            total += min(e0, b[k][1]) - max(s0, b[k][0])
            k += 1
    return total


def test_double_buffering_raises_the_vector_ratio(example, timelines):
    single, double = timelines[1], timelines[2]
    one, two = example.model_numbers(single), example.model_numbers(double)
    assert PUBLISHED[2]["vec_ratio"] - PUBLISHED[1]["vec_ratio"] > 0.3
    # the published direction: a clearly higher vector ratio and a shorter kernel
    assert two["vec_ratio"] - one["vec_ratio"] > 0.2
    assert two["mte2_ratio"] > one["mte2_ratio"]
    assert two["time_us"] < 0.8 * one["time_us"]
    # the mechanism: only the double-buffered run copies in while the vector unit adds
    vec_time = float(single.busy[0, 1])
    assert _overlap(single) == 0
    assert _overlap(double) > 0.5 * vec_time
    # same work either way: 8 Adds over the same elements, the same bytes copied
    assert single.nbytes.sum() == double.nbytes.sum()
    names = np.array(single.instruction_names())
    assert np.count_nonzero(names == "Add") * 2 == np.count_nonzero(
        np.array(double.instruction_names()) == "Add")
