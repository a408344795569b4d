"""Determinism: each operator gives identical output bits (NaN payloads included) on a repeated
run, with its cores on two host threads, and with its cores run last to first.

The op runs through its public aclnn path; `core_order="reverse"` is injected at the one place
the aclnn layer launches kernels (ascsim.aclnn.launch), and a spy checks that every run really
was a multi-core launch in the order asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from golden.cases import OPERATORS

import ascsim
import ascsim.aclnn
from ascsim.ascendc import GetBlockIdx
from ascsim.testing.bitcompare import bit_mismatch, format_mismatch


class LaunchSpy:
    """Stands in for ascsim.aclnn.launch: forwards to ascsim.launch with `core_order`, and
    remembers (block_dim, threads, core_order) of each launch."""

    def __init__(self) -> None:
        self.core_order = "forward"
        self.launches: list[tuple[int, int, str]] = []

    def __call__(self, kernel: Callable[..., Any], block_dim: int, *args: Any,
                 **kwargs: Any) -> ascsim.Run:
        kwargs["core_order"] = self.core_order
        self.launches.append((block_dim, kwargs.get("threads", 1), self.core_order))
        return ascsim.launch(kernel, block_dim, *args, **kwargs)


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> LaunchSpy:
    s = LaunchSpy()
    monkeypatch.setattr(ascsim.aclnn, "launch", s)
    return s


def raw_bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


@pytest.mark.parametrize("op_name", sorted(OPERATORS))
def test_same_bits_across_runs_threads_and_core_order(spy: LaunchSpy, op_name: str) -> None:
    op = OPERATORS[op_name]
    case = op.case(op.determinism_case)
    inputs = op.make_inputs(case)
    first = op.run(case, inputs, 1)
    m = bit_mismatch(first, op.model(case, inputs))
    assert m is None, f"{case.id} is not even right: {format_mismatch(m)}"
    variants = {"repeated": op.run(case, inputs, 1), "threads=2": op.run(case, inputs, 2)}
    spy.core_order = "reverse"
    variants["reversed cores"] = op.run(case, inputs, 1)
    variants["reversed cores, threads=2"] = op.run(case, inputs, 2)
    block_dims = {b for b, _, _ in spy.launches}
    assert len(spy.launches) == 5 and min(block_dims) > 1, spy.launches
    assert [(t, o) for _, t, o in spy.launches] == [
        (1, "forward"), (1, "forward"), (2, "forward"), (1, "reverse"), (2, "reverse")]
    for name, out in variants.items():
        if raw_bits(out) != raw_bits(first):
            m = bit_mismatch(out, first)
            detail = format_mismatch(m) if m else "only NaN payloads differ"
            pytest.fail(f"{op.name} {case.id}, {name}: {detail}")


def test_reversed_order_reaches_the_aclnn_launch(spy: LaunchSpy) -> None:
    """The injection point is live: a kernel whose result depends on which core runs last
    sees the order change (so a kernel with a cross-core race would fail the test above)."""
    def last_core_wins(out: Any) -> None:
        out.array[0] = GetBlockIdx()   # every core writes the same element: a race

    out = np.zeros(1, np.int32)
    ascsim.aclnn.launch(last_core_wins, 4, out)
    assert out[0] == 3
    spy.core_order = "reverse"
    ascsim.aclnn.launch(last_core_wins, 4, out)
    assert out[0] == 0
