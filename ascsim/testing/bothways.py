"""Deferred execution against eager execution, launch by launch.

`launch_both_ways` runs a fast-mode launch twice, eagerly on copies of its GM arrays and
deferred (batch.py) on the arrays themselves, and asserts that both give the same GM bytes,
the same records on every core, the same kernel log and the same error (type and message).
tests/conftest.py's `--both-ways` option routes every launch of a pytest run through it, so
any test kernel checks the deferred executor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..runtime import Run

__all__ = ["launch_both_ways", "BothWaysMismatch"]


class BothWaysMismatch(AssertionError):
    """Deferred execution gave something eager execution did not."""


def _raw(a: Any) -> np.ndarray | None:
    return None if a is None else np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def _outcome(launch: Callable[..., Run], kernel: Any, block_dim: int, gm: tuple,
             kwargs: dict, execution: str) -> tuple[Run | None, BaseException | None]:
    try:
        return launch(kernel, block_dim, *gm, execution=execution, **kwargs), None
    except Exception as e:  # noqa: BLE001 - compared, then raised again
        return None, e


def launch_both_ways(launch: Callable[..., Run], kernel: Any, block_dim: int, *gm: Any,
                     **kwargs: Any) -> Run:
    """`launch(kernel, block_dim, *gm, **kwargs)`, checked against its eager twin (launches in
    check or strict mode, or with an explicit `execution`, are run once, as asked)."""
    if kwargs.get("sanitize", "off") != "off" or kwargs.get("execution") is not None:
        return launch(kernel, block_dim, *gm, **kwargs)
    twins = tuple(None if a is None else np.array(a, copy=True) for a in gm)
    eager, eager_err = _outcome(launch, kernel, block_dim, twins, kwargs, "eager")
    run, err = _outcome(launch, kernel, block_dim, gm, kwargs, "deferred")
    name = getattr(kernel, "__name__", str(kernel))
    if (type(err), str(err)) != (type(eager_err), str(eager_err)):
        raise BothWaysMismatch(f"{name}: eager raised {eager_err!r}, deferred {err!r}")
    for k, (a, b) in enumerate(zip(gm, twins, strict=True)):
        if a is not None and not np.array_equal(_raw(a), _raw(b)):
            raise BothWaysMismatch(f"{name}: GM argument {k} differs between eager and "
                                   "deferred execution")
    if run is not None:
        for core, twin in zip(run.cores, eager.cores, strict=True):
            if core.records != twin.records:
                first = next(i for i, (x, y) in enumerate(zip(core.records, twin.records))
                             if x != y) if len(core.records) == len(twin.records) else None
                raise BothWaysMismatch(f"{name}: core {core.block_idx}'s records differ "
                                       f"(first at {first}; {len(core.records)} vs "
                                       f"{len(twin.records)} rows)")
        if run.log() != eager.log():
            raise BothWaysMismatch(f"{name}: the kernel logs differ")
    if err is not None:
        raise err
    return run
