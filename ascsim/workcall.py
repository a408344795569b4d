"""Calling numba work cheaply.

A registry work function has the argument shape `kernel(a, b, c, ub, gm, row)` (registry.Work):
three integer compile-time constants, then the Unified Buffer and a GM buffer as byte arrays
and the call's record row, a tuple of int64. It decodes the row and calls a *loop*: the same
numba code with its operands unpacked, which is what the kernel-facing functions call directly
(a numba call pays about 6 ns for every int it unboxes, and a row has 14 to 30).

The constants are numba *literals*, so that every (operation, dtype, mode) combination compiles
to its own tight loop and only the combinations a kernel uses are ever compiled (and then
cached on disk). numba's dispatcher re-resolves literal signatures on every call, which costs
milliseconds; `compile_work` and `compile_loop` compile one specialisation and return its entry
point, which costs a few hundred nanoseconds per call. `compile_specialisation` is where they
(and batch.py) compile: one process at a time per specialisation (see _numba_cache).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba.core import types

from ._numba_cache import compile_lock

__all__ = ["compile_work", "compile_loop", "compile_specialisation", "NO_GM", "work_signature"]

_BYTES = types.Array(types.uint8, 1, "C")

# the `gm` argument of work that touches no GM buffer
NO_GM = np.zeros(0, np.uint8)


def work_signature(literals: tuple[int, int, int], row_len: int) -> tuple:
    """The numba signature of a work function specialised on `literals` for rows of
    `row_len` ints."""
    return (*(types.literal(int(v)) for v in literals), _BYTES, _BYTES,
            types.UniTuple(types.int64, row_len))


def compile_work(kernel: Any, literals: tuple[int, int, int], row_len: int) -> Callable:
    """The entry point of `kernel` for these literals and row length. It takes the whole
    argument list, `(a, b, c, ub, gm, row)`, the literals included (their values must be the
    ones it was compiled for)."""
    sig = work_signature(literals, row_len)
    compile_specialisation(kernel, sig)
    return kernel.overloads[sig].entry_point


def compile_loop(kernel: Any, args: tuple, n_literal: int) -> Callable:
    """The entry point of `kernel` for `args`, whose first `n_literal` values are compile-time
    constants; the others give the argument types. Call it with the whole argument list."""
    sig = tuple(types.literal(a) if i < n_literal else numba.typeof(a)
                for i, a in enumerate(args))
    compile_specialisation(kernel, sig)
    return kernel.overloads[sig].entry_point


def compile_specialisation(kernel: Any, sig: tuple) -> None:
    """`kernel.compile(sig)`, unless this process has it, under the specialisation's lock: a
    process that finds another compiling the same one waits and then loads it from the disk
    cache, rather than compile it a second time side by side."""
    if sig in kernel.overloads:
        return
    py = kernel.py_func
    with compile_lock(f"{py.__module__}.{py.__qualname__}{sig}"):
        kernel.compile(sig)
