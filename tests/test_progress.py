"""Progress shows only when asked for (`progress.enabled()`, which the CLI uses) and only on a
terminal: the compile notice counts the functions numba compiles, bars count work."""

from __future__ import annotations

import io

import numba
import pytest

from ascsim import progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _terminal(monkeypatch: pytest.MonkeyPatch) -> _Terminal:
    """A terminal as stderr (set inside the test: pytest's capture resets sys.stderr after
    fixtures run)."""
    fake = _Terminal()
    monkeypatch.setattr("sys.stderr", fake)
    return fake


def _fresh_function():
    @numba.njit(cache=False, nogil=True, error_model="numpy")
    def twice(x):
        return x * 2.0
    return twice


def test_the_compile_notice_counts_what_numba_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _terminal(monkeypatch)
    monkeypatch.setattr(progress, "COMPILE_NOTICE_DELAY", 0.0)
    with progress.enabled():
        assert _fresh_function()(1.5) == 3.0
    text = terminal.getvalue()  # (redraws after the first are rate-limited)
    assert "ascsim: compiling numba kernels (first run after an install" in text
    assert " functions [" in text


def test_nothing_shows_unless_enabled(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _terminal(monkeypatch)
    assert not progress.is_enabled()
    _fresh_function()(1.0)
    with progress.bar(3, "work") as b:
        b.update(3)
    assert terminal.getvalue() == ""


def test_nothing_shows_when_stderr_is_not_a_terminal(monkeypatch, capsys) -> None:
    with progress.enabled():
        assert not progress.is_enabled()
        _fresh_function()(1.0)
    assert capsys.readouterr().err == ""


def test_a_tick_bar_counts_across_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    terminal = _terminal(monkeypatch)
    with progress.enabled(), progress.tick_bar(8, "cores", " cores", delay=0.0) as tick:
        threads = [threading.Thread(target=tick) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert tick.bar.n == 8
    assert "0/8" in terminal.getvalue()  # drawn (later redraws are rate-limited)
    assert not progress.is_enabled()
