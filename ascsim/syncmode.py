"""`@kernel_sync("manual" | "auto")`: how a kernel entry is compiled with respect to
synchronisation, which racecheck needs to judge same-pipe and scalar hazards.

"auto" is CANN's default (`--cce-auto-sync=on`): the compiler inserts the V->V barriers and the
S<->{V, MTE2, MTE3} syncs, so those hazards are not the kernel's to fix. "manual" is a kernel
built with auto_sync = false (LogitGrad): every PipeBarrier and every scalar sync must be in
the source. MTE2->MTE2 and MTE3->MTE3 overlapping writes need a PipeBarrier in both modes.

    @kernel_sync("manual")
    def logit_grad(x, dy, dx, workspace, tiling): ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["kernel_sync", "sync_mode_of", "SYNC_MODES", "DEFAULT_SYNC_MODE"]

SYNC_MODES = ("auto", "manual")
DEFAULT_SYNC_MODE = "auto"
_ATTR = "__ascsim_sync__"

F = TypeVar("F", bound=Callable[..., Any])


def kernel_sync(mode: str) -> Callable[[F], F]:
    """Declare a kernel entry's sync mode (the decorator returns the function itself)."""
    if mode not in SYNC_MODES:
        raise ValueError(f"kernel_sync: mode must be 'auto' or 'manual', got {mode!r}")

    def mark(fn: F) -> F:
        setattr(fn, _ATTR, mode)
        return fn
    return mark


def sync_mode_of(kernel: Callable[..., Any]) -> str:
    return getattr(kernel, _ATTR, DEFAULT_SYNC_MODE)
