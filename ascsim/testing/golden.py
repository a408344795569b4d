"""pytest plugin for golden files: `-p ascsim.testing.golden` (ascsim's pyproject.toml adds it).

    def test_my_kernel(golden):
        out = my_op(x, y)
        golden.check("my_op", "float16/n=1000", out, reference=lambda: my_model(x, y))

`golden.check(store, case_id, output, reference=None)` compares the output bit for bit (NaN
payloads aside, see bitcompare) with the entry `case_id` of `<golden_dir>/<store>.json` and
fails the test with a report on a mismatch: how many elements differ, the first index, both
values and their ULP distance. `reference` is called only then, to rebuild the expected array of
outputs the store keeps as hash + sample (see goldenstore).

`golden.check(..., reference=model, exact_reference=True)` is for a reference that is a
bit-exact model of the kernel: it is evaluated on every run and the test fails when the output
differs from it, whether or not the output matches the store (a golden pinned from a wrong
kernel would otherwise hide the disagreement until the next --update-golden); with
--update-golden such an output is not pinned.

`pytest --update-golden` pins every output checked in the session instead (writing the stores
at the end of the session); `golden.prune(store, ids)` drops entries whose case no longer
exists. `golden_dir` is an ini option (default `tests/golden`, relative to the rootdir).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pytest

from .bitcompare import bit_mismatch, format_mismatch
from .goldenstore import GoldenStore, Reference, off_reference

__all__ = ["GoldenSession", "GoldenWarning", "golden"]

_SESSION = pytest.StashKey["GoldenSession"]()


class GoldenWarning(UserWarning):
    """--update-golden pinned an output that its reference model disagrees with."""


class GoldenSession:
    """The stores of one pytest session, loaded on first use."""

    def __init__(self, directory: Path, update: bool) -> None:
        self.directory = Path(directory)
        self.update = update
        self._stores: dict[str, GoldenStore] = {}
        self.updated: dict[str, set[str]] = {}

    def store(self, name: str) -> GoldenStore:
        if name not in self._stores:
            self._stores[name] = GoldenStore.load(self.directory / f"{name}.json")
        return self._stores[name]

    def check(self, store: str, case_id: str, output: np.ndarray,
              reference: Reference | None = None, *, exact_reference: bool = False) -> None:
        """Pass if `output` is the pinned one, else fail the test with the mismatch report;
        with --update-golden, pin it (warning when `reference` disagrees with it).
        `exact_reference=True`: `reference` is evaluated on every run and must equal `output`
        bit for bit too (with --update-golden, an output that does not is not pinned)."""
        s = self.store(store)
        off_model = None
        if exact_reference:
            if reference is None:
                raise ValueError("golden.check: exact_reference=True needs a reference")
            expected = np.asarray(reference())
            off_model = off_reference(store, case_id, output, expected)
            reference = expected.copy  # the model ran once: the reports reuse its output
        if self.update:
            if off_model is not None:
                pytest.fail(off_model + "\n  (not pinned)", pytrace=False)
            before = s.entries.get(case_id)
            s.record(case_id, output)
            if s.entries[case_id] != before:
                self.updated.setdefault(store, set()).add(case_id)
                self._warn_if_off_reference(store, case_id, output, reference)
            return
        reports = [r for r in (s.check(case_id, output, reference), off_model) if r is not None]
        if reports:
            pytest.fail("\n".join(reports), pytrace=False)

    @staticmethod
    def _warn_if_off_reference(store: str, case_id: str, output: np.ndarray,
                               reference: Reference | None) -> None:
        if reference is None:
            return
        expected = np.asarray(reference())
        if expected.dtype != np.asarray(output).dtype or expected.shape != np.shape(output):
            return
        m = bit_mismatch(output, expected)
        if m is not None:
            warnings.warn(GoldenWarning(f"{store}.json, case {case_id!r}: pinned an output the "
                                        f"reference disagrees with: {format_mismatch(m)}"),
                          stacklevel=3)

    def prune(self, store: str, keep: Iterable[str]) -> list[str]:
        """With --update-golden, drop the entries of `store` not in `keep` (returns them)."""
        if not self.update:
            return []
        stale = self.store(store).prune(keep)
        if stale:
            self.updated.setdefault(store, set()).update(f"-{k}" for k in stale)
        return stale

    def write(self) -> list[Path]:
        written = []
        for s in self._stores.values():
            if s.dirty:
                s.save()
                written.append(s.path)
        return written


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("golden", "golden files (ascsim.testing.golden)")
    group.addoption("--update-golden", action="store_true", default=False,
                    help="pin the outputs checked by the `golden` fixture in the golden stores "
                         "instead of comparing them")
    parser.addini("golden_dir", "directory of the golden stores, relative to the rootdir",
                  default="tests/golden")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("update_golden") and (
            getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput")):
        # each pytest-xdist worker would rewrite the stores with its own share of the cases
        raise pytest.UsageError("--update-golden rewrites the golden stores: run it without "
                                "pytest-xdist's -n")
    directory = Path(config.rootpath) / config.getini("golden_dir")
    config.stash[_SESSION] = GoldenSession(directory, config.getoption("update_golden"))


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> GoldenSession:
    """The session's golden stores: `golden.check(store, case_id, output, reference=None)`."""
    return request.config.stash[_SESSION]


def pytest_sessionfinish(session: pytest.Session) -> None:
    gs = session.config.stash.get(_SESSION, None)
    if gs is not None and gs.update:
        gs.write()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    gs = terminalreporter.config.stash.get(_SESSION, None)
    if gs is None or not gs.update:
        return
    if not gs.updated:
        terminalreporter.write_line("golden: every checked output already matched its store")
    for name, ids in sorted(gs.updated.items()):
        dropped = sum(1 for i in ids if i.startswith("-"))
        terminalreporter.write_line(f"golden: {name}.json: {len(ids) - dropped} entries pinned "
                                    f"or changed, {dropped} stale entries dropped")
