"""Progress for people watching a terminal: a notice while numba compiles (the first run after
an install or an upgrade compiles for a few seconds; later runs load the disk cache), and bars
for long work (launches of many cores, sweeps, the long examples).

The library never prints on its own: progress shows only inside `enabled()` (the `ascsim`
command turns it on; a script may too), and only when stderr is a terminal. Bars come from
tqdm, which redraws in place, copes with threads and other writers, and shows a bar only once
the work has lasted `delay` seconds, so short work stays quiet.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from tqdm import tqdm

__all__ = ["enabled", "is_enabled", "bar", "tick_bar", "announce_compile", "COMPILE_MESSAGE"]

_on = False  # set by enabled(): every thread of a launch sees it
COMPILE_NOTICE_DELAY = 0.5  # seconds of compiling before the notice shows
COMPILE_MESSAGE = ("ascsim: compiling numba kernels (first run after an install or upgrade; "
                   "cached afterwards)...")
_announced = False


def is_enabled() -> bool:
    """Whether progress may be shown: inside `enabled()` and with stderr a terminal."""
    return _on and sys.stderr.isatty()


def bar(total: int | None, desc: str, unit: str = "it", delay: float = 1.0) -> tqdm:
    """A tqdm bar on stderr (disabled when progress is off); close it when done."""
    return tqdm(total=total, desc=desc, unit=unit, delay=delay, leave=False,
                file=sys.stderr, disable=not is_enabled())


@contextlib.contextmanager
def tick_bar(total: int, desc: str, unit: str = "it",
             delay: float = 1.0) -> Iterator[Callable[[], None]]:
    """A bar and a thread-safe function that advances it by one."""
    with bar(total, desc, unit, delay) as b:
        lock = threading.Lock()

        def tick() -> None:
            with lock:
                b.update(1)
        tick.bar = b  # type: ignore[attr-defined]
        yield tick


def announce_compile() -> None:
    """Say once, in one plain line on stderr, that numba is compiling (only where progress
    shows): the bar below it redraws in place and goes away when done."""
    global _announced
    if not _announced and is_enabled():
        _announced = True
        tqdm.write(COMPILE_MESSAGE, file=sys.stderr)  # above any bar, not through it


class _CompileNotice:
    """A numba event listener: says in one line why the run is slow once compiling has lasted
    COMPILE_NOTICE_DELAY, and counts the functions numba compiles on a bar (cache misses only;
    loads from the disk cache fire no event)."""

    def __init__(self) -> None:
        self.bar: tqdm | None = None
        self.depth = 0
        self.timer: threading.Timer | None = None
        self.started = 0.0
        self.spent = 0.0  # seconds of top-level compiles so far

    def on_start(self, event: Any) -> None:
        if self.depth == 0 and self.bar is None and is_enabled():
            self.bar = tqdm(total=None, unit=" functions", leave=False, file=sys.stderr,
                            delay=COMPILE_NOTICE_DELAY, desc="ascsim: compiling")
        if self.depth == 0 and not _announced and is_enabled():
            # the line once compiling has lasted the delay in all: a short compile stays quiet
            self.started = time.monotonic()
            self.timer = threading.Timer(max(0.0, COMPILE_NOTICE_DELAY - self.spent),
                                         announce_compile)
            self.timer.daemon = True
            self.timer.start()
        self.depth += 1

    def on_end(self, event: Any) -> None:
        self.depth -= 1
        if self.depth == 0 and self.timer is not None:
            self.timer.cancel()
            self.timer = None
            self.spent += time.monotonic() - self.started
            if self.spent >= COMPILE_NOTICE_DELAY:
                announce_compile()
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.bar is not None:
            self.bar.close()
            self.bar = None


@contextlib.contextmanager
def enabled() -> Iterator[None]:
    """Show progress (on a terminal) for what runs inside: compile notices and bars."""
    global _on, _announced
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev: Any) -> None:
            notice.on_start(ev)

        def on_end(self, ev: Any) -> None:
            notice.on_end(ev)

    notice = _CompileNotice()
    was, _on = _on, True
    announced, _announced = _announced, False  # the line once per enabled() scope
    listener = Listener()
    event.register("numba:compile", listener)
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)
        notice.close()
        _on, _announced = was, announced
