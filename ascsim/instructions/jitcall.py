"""Calling numba kernels specialised on compile-time constants, cheaply.

The loop kernels take their operation and dtype handling as *literal* arguments (numba's
`literally`), so that every (operation, dtype) pair compiles to its own tight, vectorisable loop
and only the pairs a kernel uses are ever compiled (and then cached on disk). numba's dispatcher
re-resolves literal signatures on every call, which costs milliseconds; this module compiles
each specialisation once and then calls its entry point directly (a few hundred nanoseconds).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numba
from numba.core import types

__all__ = ["entry_point"]

_ENTRY: dict[Hashable, Callable[..., Any]] = {}


def _signature(args: tuple, n_literal: int) -> tuple:
    return tuple(types.literal(a) if i < n_literal else numba.typeof(a)
                 for i, a in enumerate(args))


def entry_point(kernel: Any, key: Hashable, args: tuple, n_literal: int) -> Callable[..., Any]:
    """The compiled entry point of `kernel` for `args`, whose first `n_literal` values are
    compile-time constants. `key` must identify the literal values and the argument types."""
    ep = _ENTRY.get(key)
    if ep is None:
        sig = _signature(args, n_literal)
        kernel.compile(sig)
        ep = kernel.overloads[sig].entry_point
        _ENTRY[key] = ep
    return ep
