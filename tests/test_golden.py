"""Every case of the golden matrix (tests/golden/cases.py) against its pinned output in
tests/golden/<op>.json and against the op's numpy model, both bit for bit on every run; and the
stores agree with the case lists.

`pytest --update-golden` rewrites the stores (and drops entries of cases that no longer exist).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from golden.cases import OPERATORS

from ascsim.testing.goldenstore import GoldenStore

GOLDEN_DIR = Path(__file__).parent / "golden"
CASES = [(op.name, c.id) for op in OPERATORS.values() for c in op.cases]


@pytest.mark.parametrize(("op_name", "case_id"), CASES, ids=[f"{o}:{c}" for o, c in CASES])
def test_golden_output(golden, op_name: str, case_id: str) -> None:
    op = OPERATORS[op_name]
    case = op.case(case_id)
    inputs = op.make_inputs(case)
    out = op.run(case, inputs, 1)
    # the numpy model is bit-exact by construction: it must agree on every run, not only when
    # --update-golden pins (a store pinned from a wrong kernel would hide the disagreement)
    golden.check(op.name, case.id, out, reference=lambda: op.model(case, inputs),
                 exact_reference=True)


@pytest.mark.parametrize("op_name", sorted(OPERATORS))
def test_store_agrees_with_case_list(golden, op_name: str) -> None:
    """No case without a pinned output, no pinned output without a case (runs after the
    cases, so under --update-golden it checks the store just written)."""
    op = OPERATORS[op_name]
    ids = [c.id for c in op.cases]
    assert len(set(ids)) == len(ids), "duplicate case ids"
    golden.prune(op.name, ids)
    store = golden.store(op.name)
    missing = sorted(set(ids) - store.ids())
    stale = sorted(store.ids() - set(ids))
    assert not missing and not stale, (
        f"{store.path.name}: {len(missing)} cases without a golden entry {missing[:5]}, "
        f"{len(stale)} entries without a case {stale[:5]}; run `pytest --update-golden`")


def test_no_store_without_an_operator() -> None:
    stores = {p.stem for p in GOLDEN_DIR.glob("*.json")}
    assert stores == set(OPERATORS), f"stores {sorted(stores)} vs operators {sorted(OPERATORS)}"


def test_committed_stores_parse_and_are_consistent() -> None:
    """Every stored sample and every stored full output agrees with its own SHA-256."""
    for name in OPERATORS:
        store = GoldenStore.load(GOLDEN_DIR / f"{name}.json")
        for case_id, entry in store.entries.items():
            full = entry.stored_array()
            if full is None:
                continue
            again = type(entry).from_array(full)
            assert again.sha256 == entry.sha256, case_id
            assert again.sample == entry.sample, case_id
            assert np.prod(entry.shape) == full.size
