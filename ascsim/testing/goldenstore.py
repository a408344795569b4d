"""A golden store: the pinned outputs of one kernel (or operator) in one JSON file.

Each case id maps to an entry: dtype, shape, the SHA-256 of the output's canonical bits (see
bitcompare: NaN payloads folded, everything else exact) and a sample of a few elements (flat
index, bits, value) so a reader can see what is pinned. Outputs of at most FULL_DATA_BYTES are
stored whole (base64), so a mismatch is reported element by element without anything else;
for bigger ones the report rebuilds the expected array from a reference model when the model
reproduces the stored hash, and says plainly how much it can tell when it does not.

The JSON is written with sorted keys and one entry per line, so a change reviews as a diff of
the cases it touches.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..compare import ulp_distance
from .bitcompare import (
    bit_mismatch,
    canonical_bits,
    describe,
    dtype_from_name,
    dtype_name,
    format_mismatch,
    output_sha256,
    ulp_text,
)

__all__ = ["GoldenEntry", "GoldenStore", "FULL_DATA_BYTES", "SAMPLE_SIZE", "off_reference",
           "exact_reports"]

FORMAT = 1
FULL_DATA_BYTES = 1024
SAMPLE_SIZE = 8


def _sample_indices(n: int) -> list[int]:
    if n == 0:
        return []
    return sorted({int(i) for i in np.linspace(0, n - 1, min(n, SAMPLE_SIZE)).round()})


@dataclass(frozen=True)
class GoldenEntry:
    """One pinned output."""

    dtype: str
    shape: tuple[int, ...]
    sha256: str
    sample: tuple[tuple[int, str, str], ...]   # (flat index, canonical bits as hex, value)
    data: str | None = None                     # base64 of the canonical bits, small outputs

    @classmethod
    def from_array(cls, a: np.ndarray) -> GoldenEntry:
        a = np.ascontiguousarray(a).reshape(np.shape(a))  # ascontiguousarray makes a 0-D array 1-D
        bits = canonical_bits(a).reshape(-1)
        flat = a.reshape(-1)
        width = 2 * a.dtype.itemsize
        sample = tuple((i, f"0x{int(bits[i]):0{width}x}", describe(flat[i]).split(" (")[0])
                       for i in _sample_indices(flat.size))
        data = None
        if bits.nbytes <= FULL_DATA_BYTES:
            data = base64.b64encode(bits.astype(bits.dtype.newbyteorder("<")).tobytes()).decode()
        return cls(dtype_name(a.dtype), tuple(a.shape), output_sha256(a), sample, data)

    @classmethod
    def from_json(cls, d: dict) -> GoldenEntry:
        return cls(d["dtype"], tuple(d["shape"]), d["sha256"],
                   tuple((int(i), b, v) for i, b, v in d["sample"]), d.get("data"))

    def to_json(self) -> dict:
        d = {"dtype": self.dtype, "shape": list(self.shape), "sha256": self.sha256,
             "sample": [list(s) for s in self.sample]}
        if self.data is not None:
            d["data"] = self.data
        return d

    def stored_array(self) -> np.ndarray | None:
        """The whole golden output, when the store keeps it (canonical NaNs)."""
        if self.data is None:
            return None
        dt = dtype_from_name(self.dtype)
        raw = np.frombuffer(base64.b64decode(self.data), dtype=np.dtype(f"<u{dt.itemsize}"))
        return raw.astype(np.dtype(f"u{dt.itemsize}")).view(dt).reshape(self.shape)


Reference = Callable[[], np.ndarray]


class GoldenStore:
    """The entries of one JSON file; `check` compares, `record` pins, `save` writes."""

    def __init__(self, path: Path, entries: dict[str, GoldenEntry] | None = None) -> None:
        self.path = Path(path)
        self.entries: dict[str, GoldenEntry] = dict(entries or {})
        self.dirty = False

    @classmethod
    def load(cls, path: Path | str) -> GoldenStore:
        path = Path(path)
        if not path.exists():
            return cls(path)
        doc = json.loads(path.read_text())
        if doc.get("format") != FORMAT:
            raise ValueError(f"{path}: golden store format {doc.get('format')!r}, expected "
                             f"{FORMAT}")
        return cls(path, {k: GoldenEntry.from_json(v) for k, v in doc["cases"].items()})

    def save(self) -> None:
        """Write the store: sorted case ids, one entry per line."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(k) + ": " + json.dumps(self.entries[k].to_json(), sort_keys=True)
                 for k in sorted(self.entries)]
        cases = "{\n    " + ",\n    ".join(lines) + "\n  }" if lines else "{}"
        self.path.write_text(f'{{\n  "format": {FORMAT},\n  "cases": {cases}\n}}\n')
        self.dirty = False

    def ids(self) -> set[str]:
        return set(self.entries)

    def record(self, case_id: str, actual: np.ndarray) -> None:
        entry = GoldenEntry.from_array(np.asarray(actual))
        if self.entries.get(case_id) != entry:
            self.entries[case_id] = entry
            self.dirty = True

    def prune(self, keep: Iterable[str]) -> list[str]:
        """Drop the entries whose id is not in `keep`; returns the dropped ids."""
        keep = set(keep)
        stale = sorted(self.ids() - keep)
        for k in stale:
            del self.entries[k]
        self.dirty |= bool(stale)
        return stale

    def check(self, case_id: str, actual: np.ndarray, reference: Reference | None = None
              ) -> str | None:
        """None when `actual` matches the pinned output bit for bit (canonical NaNs), else a
        report: what differs, where, both values and their ULP distance, and where the
        expected values came from. `reference` (called only on a mismatch) computes the
        expected output, e.g. from a numpy model, for outputs stored as hash + sample."""
        actual = np.asarray(actual)
        head = f"golden mismatch in {self.path.name}, case {case_id!r}"
        entry = self.entries.get(case_id)
        if entry is None:
            return (f"{head}: no golden entry for this case in {self.path}; run "
                    "`pytest --update-golden` to pin it")
        got = f"{dtype_name(actual.dtype)}{list(actual.shape)}"
        want = f"{entry.dtype}{list(entry.shape)}"
        if got != want:
            return f"{head}: the output is {got}, the golden is {want}"
        digest = output_sha256(actual)
        if digest == entry.sha256:
            return None
        lines = [f"{head}: SHA-256 {digest[:16]}..., golden {entry.sha256[:16]}..."]
        lines += self._explain(entry, actual, reference)
        lines.append("If the change is intended, run `pytest --update-golden` and review the "
                     "diff of the store.")
        return "\n  ".join(lines)

    def _explain(self, entry: GoldenEntry, actual: np.ndarray,
                 reference: Reference | None) -> list[str]:
        stored = entry.stored_array()
        if stored is not None:
            return [_diff(actual, stored), "(expected: the full golden output kept in the "
                                           "store)"]
        model = None
        if reference is not None:
            model = np.asarray(reference())
            if model.dtype == actual.dtype and model.shape == actual.shape and \
                    output_sha256(model) == entry.sha256:
                return [_diff(actual, model), "(expected: the reference model, whose output "
                                              "reproduces the golden SHA-256 exactly)"]
        lines = ["the store keeps a hash and a sample for this case" +
                 (", and the reference model does not reproduce the golden hash either:"
                  if reference is not None else " (pass reference= for a full diff):"),
                 "against the golden sample: " + _sample_diff(entry, actual)]
        if model is not None:
            if model.dtype != actual.dtype or model.shape != actual.shape:
                lines.append(f"the reference model returned {dtype_name(model.dtype)}"
                             f"{list(model.shape)}")
            else:
                m = bit_mismatch(actual, model)
                lines.append("against the reference model: " +
                             ("equal bit for bit (kernel and model changed together)"
                              if m is None else format_mismatch(m)))
        return lines


def _diff(actual: np.ndarray, expected: np.ndarray) -> str:
    m = bit_mismatch(actual, expected)
    return "no element differs" if m is None else format_mismatch(m)


def _sample_diff(entry: GoldenEntry, actual: np.ndarray) -> str:
    flat_bits = canonical_bits(actual).reshape(-1)
    flat = actual.reshape(-1)
    bad = [(i, b, v) for i, b, v in entry.sample if int(flat_bits[i]) != int(b, 16)]
    if not bad:
        return (f"the {len(entry.sample)} sampled elements all match; the differences are "
                "elsewhere")
    i, b, v = bad[0]
    index = tuple(int(k) for k in np.unravel_index(i, actual.shape)) if actual.ndim else ()
    want = np.array([int(b, 16)], np.dtype(f"u{actual.dtype.itemsize}")).view(actual.dtype)
    one = np.asarray(flat[i]).reshape(1)
    ulp = int(ulp_distance(one, want)[0])
    return (f"{len(bad)} of {len(entry.sample)} sampled elements differ; first at index "
            f"{index}: got {describe(flat[i])}, expected {describe(want[0])}, {ulp_text(ulp)}")


def off_reference(store: str, case_id: str, output: np.ndarray,
                   expected: np.ndarray) -> str | None:
    """None when the exact reference equals the output bit for bit, else why not."""
    output = np.asarray(output)
    head = f"{store}.json, case {case_id!r}: the output differs from its exact reference model"
    if expected.dtype != output.dtype or expected.shape != output.shape:
        return (f"{head}: the model returned {dtype_name(expected.dtype)}"
                f"{list(expected.shape)}, the output is {dtype_name(output.dtype)}"
                f"{list(output.shape)}")
    m = bit_mismatch(output, expected)
    return None if m is None else f"{head}: {format_mismatch(m)}"


def exact_reports(store: GoldenStore, name: str, case_id: str, output: np.ndarray,
                  expected: np.ndarray) -> list[str]:
    """What is wrong with `output` of a case whose reference is a bit-exact model that gave
    `expected`: its mismatch with the pinned entry (the model rebuilds a hash-only entry for
    the report) and with the model; empty when both agree."""
    return [r for r in (store.check(case_id, output, expected.copy),
                        off_reference(name, case_id, output, expected)) if r is not None]
