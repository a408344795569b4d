"""Tiling knobs: named choices an op's tiling makes (core count, tile size, BUFFER_NUM, ...) that
a profiling sweep may force, without touching the transcribed tiling code.

An op package registers its knobs (`register_knob`): how to read the value its own tiling chose
from a finished `Run`, and how to force a value on a `TilingContext` after the tiling function
ran (updating the tiling data and the block dim consistently). `tiling_overrides(cores=8)`
makes every aclnn launch inside the block apply those overrides.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .errors import ParameterError

__all__ = ["TilingKnob", "register_knob", "knobs_of", "tiling_overrides", "apply_overrides"]


@dataclass(frozen=True)
class TilingKnob:
    name: str
    doc: str
    read: Callable[[Any], Any]            # Run -> the value the op's own tiling chose
    apply: Callable[[Any, Any], None]     # (TilingContext, value) -> None; raise if invalid
    parse: Callable[[str], Any] = int     # command-line text -> value


_KNOBS: dict[str, dict[str, TilingKnob]] = {}
_local = threading.local()


def register_knob(op_type: str, knob: TilingKnob) -> TilingKnob:
    _KNOBS.setdefault(op_type, {})[knob.name] = knob
    return knob


def knobs_of(op_type: str) -> dict[str, TilingKnob]:
    return dict(_KNOBS.get(op_type, {}))


@contextlib.contextmanager
def tiling_overrides(**values: Any) -> Iterator[dict[str, Any]]:
    """Force knob values for the aclnn launches made inside the block (this thread only)."""
    old = getattr(_local, "values", {})
    _local.values = {**old, **values}
    try:
        yield _local.values
    finally:
        _local.values = old


def apply_overrides(op_type: str, context: Any) -> None:
    """Called right after an op's tiling function: apply the active overrides it knows."""
    values = getattr(_local, "values", None)
    if not values:
        return
    knobs = _KNOBS.get(op_type, {})
    unknown = set(values) - set(knobs)
    if unknown:
        raise ParameterError(f"{op_type} has no tiling knob {', '.join(sorted(unknown))}; it has "
                             f"{', '.join(sorted(knobs)) or 'none'}")
    for name, knob in knobs.items():  # registration order: knobs that re-tile come first
        if name in values:
            knob.apply(context, values[name])
