"""Running recorded rows through their instructions' numba work: a core's records as a program.

`bind(row, profile)` is the entry point and the compile-time literals that execute a row (its
registry entry's `Work.bind` picks the form and literals from the row and the hardware
profile), `execute` runs one row on given memories and `replay` a core's rows in record order.
The eager simulator uses the same path for the calls it runs from their rows (the vector repeat
forms; copies some of whose bytes lie outside their memory, through `run_clipped`); a batched
executor can run recorded rows through it directly.

Instructions without work change no memory (flags, barriers, queue calls, GetValue) and are
skipped. Record order is one valid serialisation of a correctly synchronised kernel (program
order within a pipe, the flags order every cross-pipe dependency), so a replay gives the eager
run's bits; a kernel with a race may differ, since the eager run executes a stalled pipe's work
only when its flag is set.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .core import MEM_UB, dummy_byte
from .records import OP, W, accesses_of, gm_memory, program_row, shifted_program_row
from .registry import REGISTRY
from .workcall import NO_GM

if TYPE_CHECKING:
    from .profile import HardwareProfile

__all__ = ["bind", "execute", "replay", "run_clipped"]


def bind(row: tuple, profile: HardwareProfile) -> tuple[Callable, tuple[int, int, int]] | None:
    """(compiled entry point, literals) that execute `row`, or None for an instruction without
    work. Call the entry point as `ep(*literals, ub, gm, program_row(row))`."""
    work = REGISTRY[row[OP]].work
    if work is None:
        return None
    form, literals = work.bind(row, profile)
    return work.entry(form, literals, len(row)), literals


def _outside(row: tuple, ub_size: int, gm_size: int) -> bool:
    """Whether some access of `row` reaches past its memory (check mode runs such calls)."""
    return any(start < 0 or end > (ub_size if mem == MEM_UB else gm_size)
               for _, mem, start, end in accesses_of(row))


def execute(row: tuple, ub: np.ndarray, gm: Sequence[np.ndarray | None],
            profile: HardwareProfile) -> bool:
    """Run one row on the UB bytes `ub` and the GM buffers' bytes `gm` (indexed by memory id;
    entry 0 unused). False when the row has no work (nothing to do)."""
    bound = bind(row, profile)
    if bound is None:
        return False
    ep, literals = bound
    mem = gm_memory(row)
    data = gm[mem] if mem else NO_GM
    if _outside(row, ub.size, data.size):
        run_clipped(ep, literals, ub, data, row, dummy_byte(profile))
    else:
        ep(*literals, ub, data, program_row(row))
    return True


def replay(rows: Sequence[tuple], ub: np.ndarray, gm: Sequence[np.ndarray | None],
           profile: HardwareProfile) -> int:
    """Run a core's rows in record order on `ub` and `gm` (see `execute`); returns how many
    rows had work."""
    return sum(execute(row, ub, gm, profile) for row in rows)


def run_clipped(ep: Callable, literals: tuple[int, int, int], ub: np.ndarray, gm: np.ndarray,
                row: tuple, dummy: int) -> None:
    """Run a row some of whose bytes lie outside their memory (check mode: reported by then)
    through its work. Each memory is extended with dummy bytes to cover the row's ranges (the
    accesses' starts shifted to match); the missing source bytes read as the dummy pattern, and
    only the written bytes that lie inside the real memory go back to it."""
    accesses = accesses_of(row)
    arrays = {"ub": ub, "gm": gm}
    which = ["ub" if mem == MEM_UB else "gm" for _, mem, _, _ in accesses]
    lo = {"ub": 0, "gm": 0}
    hi = {"ub": ub.size, "gm": gm.size}
    for key, (_, _, start, end) in zip(which, accesses, strict=True):
        lo[key] = min(lo[key], start)
        hi[key] = max(hi[key], end)
    ext = {}
    for key, data in arrays.items():
        buf = np.full(hi[key] - lo[key], dummy, np.uint8)
        buf[-lo[key]:-lo[key] + data.size] = data
        ext[key] = buf
    ep(*literals, ext["ub"], ext["gm"], shifted_program_row(row, [lo[key] for key in which]))
    for key, (flags, _, start, end) in zip(which, accesses, strict=True):
        if flags & W:  # the written memory: its bytes inside go back
            data = arrays[key]
            s, e = max(start, 0), min(end, data.size)
            if e > s:
                data[s:e] = ext[key][s - lo[key]:e - lo[key]]
