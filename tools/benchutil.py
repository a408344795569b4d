"""What the benchmark scripts in tools/ share: best-of-N wall-clock timing."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

R = TypeVar("R")


def best_of(repeat: int, fn: Callable[[], R]) -> tuple[float, R]:
    """(the shortest of `repeat` wall-clock times of fn(), the result of the last call)."""
    best, result = float("inf"), None
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result
