"""The golden machinery itself (ascsim.testing): canonical bits, the store, its mismatch
reports for every way an entry can be stored, and the pytest plugin end to end in a scratch
project (--update-golden pins, a clean run passes, a changed output fails with the report)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from ascsim.testing import goldenstore
from ascsim.testing.bitcompare import bit_mismatch, canonical_bits, describe, output_sha256
from ascsim.testing.golden import GoldenSession
from ascsim.testing.goldenstore import GoldenEntry, GoldenStore

BF16 = np.dtype(ml_dtypes.bfloat16)


def test_canonical_bits_fold_nan_payloads_only() -> None:
    a = np.array([0x7FC00001, 0xFFC00000, 0x7F800000, 0x80000000, 0x00000001],
                 np.uint32).view(np.float32)
    assert list(canonical_bits(a)) == [0x7FC00000, 0x7FC00000, 0x7F800000, 0x80000000, 1]
    h = np.array([0xFE01, 0x7C00, 0x8000], np.uint16)
    assert list(canonical_bits(h.view(np.float16))) == [0x7E00, 0x7C00, 0x8000]
    b = np.array([0xFF81, 0x7F80, 0x7C00], np.uint16)   # bf16: NaN, +Inf, a finite number
    assert list(canonical_bits(b.view(BF16))) == [0x7FC0, 0x7F80, 0x7C00]
    nan_a, nan_b = (np.array([b], np.uint32).view(np.float32) for b in (0x7FC00001, 0xFFC00000))
    assert output_sha256(nan_a) == output_sha256(nan_b)
    assert bit_mismatch(nan_a, nan_b) is None


def test_bit_mismatch_reports_zero_sign_and_position() -> None:
    want = np.zeros((2, 3), np.float16)
    got = want.copy()
    got[1, 2] = -0.0
    got[1, 1] = np.float16(2.0 ** -24)
    m = bit_mismatch(got, want)
    assert (m.count, m.total, m.index, m.ulp) == (2, 6, (1, 1), 1)
    assert describe(np.float16(-0.0)) == "-0.0 (0x8000)"


def _store(tmp_path: Path, case: str, golden: np.ndarray) -> GoldenStore:
    s = GoldenStore(tmp_path / "op.json")
    s.record(case, golden)
    s.save()
    return GoldenStore.load(tmp_path / "op.json")


def test_small_output_is_stored_whole_and_diffed_exactly(tmp_path: Path) -> None:
    golden = np.arange(16, dtype=np.float32)
    store = _store(tmp_path, "c", golden)
    assert store.entries["c"].data is not None
    assert store.check("c", golden.copy()) is None
    bad = golden.copy()
    bad[[5, 9]] = [np.nextafter(np.float32(5), np.float32(9)), np.nan]
    report = store.check("c", bad)
    assert "2 of 16 elements differ bit for bit; first at index (5,)" in report
    assert "got 5.0000005 (0x40a00001), expected 5.0 (0x40a00000), 1 ULP apart" in report
    assert "full golden output kept in the store" in report


def test_big_output_is_hashed_and_rebuilt_from_the_reference(tmp_path: Path) -> None:
    golden = np.linspace(-1, 1, 4096).astype(np.float16)
    store = _store(tmp_path, "big", golden)
    entry = store.entries["big"]
    assert entry.data is None and len(entry.sample) == goldenstore.SAMPLE_SIZE
    bad = golden.copy()
    bad[1000] = np.inf
    report = store.check("big", bad, reference=lambda: golden.copy())
    assert "1 of 4096 elements differ bit for bit; first at index (1000,)" in report
    assert "got inf (0x7c00)" in report and "reproduces the golden SHA-256" in report
    # no reference: only the sample can speak, and it says the change is not in it
    report = store.check("big", bad)
    assert "sampled elements all match; the differences are elsewhere" in report
    assert "pass reference=" in report


def test_reference_that_no_longer_reproduces_the_golden(tmp_path: Path) -> None:
    golden = np.linspace(0, 1, 4096).astype(np.float32)
    store = _store(tmp_path, "big", golden)
    moved = golden + np.float32(1)           # kernel and model changed together
    report = store.check("big", moved, reference=lambda: moved.copy())
    assert "does not reproduce the golden hash either" in report
    assert "against the golden sample: 8 of 8 sampled elements differ; first at index (0,)" \
        in report
    assert "got 1.0 (0x3f800000), expected 0.0 (0x00000000)" in report
    assert "against the reference model: equal bit for bit" in report
    half = moved.copy()
    half[7] = np.float32(-5)                 # the model moved, the kernel moved differently
    report = store.check("big", half, reference=lambda: moved.copy())
    assert "against the reference model: 1 of 4096 elements differ bit for bit; first at " \
           "index (7,)" in report


def test_missing_case_and_wrong_shape_or_dtype(tmp_path: Path) -> None:
    store = _store(tmp_path, "c", np.zeros(4, np.float32))
    assert "no golden entry" in store.check("other", np.zeros(4, np.float32))
    assert "the output is float32[5], the golden is float32[4]" in \
        store.check("c", np.zeros(5, np.float32))
    assert "bfloat16[4]" in store.check("c", np.zeros(4, BF16))


def test_store_file_is_one_sorted_entry_per_line(tmp_path: Path) -> None:
    s = GoldenStore(tmp_path / "op.json")
    for k in ("b", "a", "c"):
        s.record(k, np.full(3, ord(k), np.float32))
    s.save()
    lines = (tmp_path / "op.json").read_text().splitlines()
    assert [json.loads("{" + line.rstrip(",") + "}").popitem()[0] for line in lines[3:6]] == \
        ["a", "b", "c"]
    again = GoldenStore.load(tmp_path / "op.json")
    assert again.entries == s.entries
    assert again.prune(["a"]) == ["b", "c"] and again.dirty


def test_entry_roundtrip_keeps_the_exact_bits() -> None:
    a = np.array([[np.nan, -0.0], [1e-40, -np.inf]], np.float32)
    e = GoldenEntry.from_array(a)
    assert e == GoldenEntry.from_json(json.loads(json.dumps(e.to_json())))
    np.testing.assert_array_equal(canonical_bits(e.stored_array()), canonical_bits(a))


def test_exact_reference_is_checked_on_every_run(tmp_path: Path) -> None:
    """exact_reference=True: the model must equal the output whether or not the output matches
    the store, and --update-golden refuses to pin an output the model disagrees with."""
    good = np.linspace(0, 1, 4096).astype(np.float32)
    off = good.copy()
    off[9] = np.float32(2)
    calls: list[int] = []

    def model(a: np.ndarray) -> Callable[[], np.ndarray]:
        def ref() -> np.ndarray:
            calls.append(1)
            return a.copy()
        return ref

    update = GoldenSession(tmp_path, update=True)
    with pytest.raises(pytest.fail.Exception, match=r"(?s)differs from its exact reference model: "
                       r"1 of 4096 elements differ bit for bit; first at index \(9,\).*"
                       r"not pinned"):
        update.check("op", "c", good, reference=model(off), exact_reference=True)
    assert "c" not in update.store("op").ids()
    update.check("op", "c", good, reference=model(good), exact_reference=True)
    update.write()

    session = GoldenSession(tmp_path, update=False)
    calls.clear()
    session.check("op", "c", good, reference=model(good), exact_reference=True)
    assert calls == [1]                     # evaluated although the store matched
    session.check("op", "c", good, reference=model(off))
    assert calls == [1]                     # the default: a reference only explains mismatches
    # the output matches its store, the model does not: that fails now
    with pytest.raises(pytest.fail.Exception,
                       match=r"got 0\.0021978023 \(0x3b100901\), expected 2\.0"):
        session.check("op", "c", good, reference=model(off), exact_reference=True)
    assert calls == [1, 1]                  # once, although the report may use it twice
    # both differ: both reports
    with pytest.raises(pytest.fail.Exception) as info:
        session.check("op", "c", off, reference=model(good), exact_reference=True)
    assert "golden mismatch in op.json" in str(info.value)
    assert "differs from its exact reference model" in str(info.value)
    with pytest.raises(pytest.fail.Exception, match="model returned float16"):
        session.check("op", "c", good, reference=model(good.astype(np.float16)),
                      exact_reference=True)
    with pytest.raises(ValueError, match="needs a reference"):
        session.check("op", "c", good, exact_reference=True)


PROJECT_TEST = '''
import os
import numpy as np
import pytest

@pytest.mark.parametrize("case", ["intact", "changed"])
def test_kernel(golden, case):
    out = np.linspace(0, 1, {n}).astype(np.float16)
    if case == "changed" and os.environ.get("BREAK"):
        out[3] = -out[3]
    golden.check("my_kernel", case, out, reference=lambda: np.linspace(0, 1, {n})
                 .astype(np.float16))
'''


def test_plugin_end_to_end(tmp_path: Path) -> None:
    """A user's project: --update-golden pins hash-only entries; then the unchanged case
    passes and a changed element fails with its index and values (rebuilt from the
    reference)."""
    n = 4096
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -p ascsim.testing.golden\n"
                                         "golden_dir = goldens\n")
    (tmp_path / "test_mine.py").write_text(PROJECT_TEST.format(n=n))

    def pytest_run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
                              cwd=tmp_path, capture_output=True, text=True,
                              env={**os.environ, **(env or {})}, timeout=300)

    r = pytest_run("--update-golden", "-n", "2")  # workers would each rewrite the stores
    assert r.returncode == 4 and "without pytest-xdist's -n" in r.stderr, r.stdout + r.stderr
    assert not (tmp_path / "goldens").exists()
    r = pytest_run("--update-golden")
    assert r.returncode == 0 and "2 entries pinned" in r.stdout, r.stdout + r.stderr
    assert GoldenStore.load(tmp_path / "goldens" / "my_kernel.json").ids() == {"intact",
                                                                              "changed"}
    r = pytest_run(env={"BREAK": "1"})
    assert r.returncode == 1 and "1 failed, 1 passed" in r.stdout, r.stdout
    assert "case 'changed'" in r.stdout and "case 'intact'" not in r.stdout
    assert f"1 of {n} elements differ bit for bit; first at index (3,)" in r.stdout, r.stdout
    assert "got -0.0007324 (0x9200), expected 0.0007324 (0x1200)" in r.stdout, r.stdout


def test_a_zero_d_output_keeps_its_shape():
    """A reduction's 0-D output is pinned as 0-D (np.ascontiguousarray alone makes it [1])."""
    from ascsim.testing.bitcompare import canonical_bits
    from ascsim.testing.goldenstore import GoldenEntry
    a = np.array(np.nan, np.float32)
    assert canonical_bits(a).shape == ()
    entry = GoldenEntry.from_array(np.array(1.5, np.float32))
    assert entry.shape == () and entry.stored_array().shape == ()
