"""The record schema: records.py owns the row layout, its field-index helpers agree with its
readers, and no other module reads a row by a position it computed itself."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from ascsim import records as rec
from ascsim.core import MEM_UB

ROOT = Path(__file__).resolve().parents[1] / "ascsim"
ROW_NAMES = {"r", "row", "rec", "record"}


def _row(nparam: int, accesses: list[tuple[int, int, int, int]]) -> tuple:
    params = tuple(100 + k for k in range(nparam))
    return (7, 2, 0, 0, 3, 64, 1, 0, 0, nparam, *params, *(x for a in accesses for x in a))


@pytest.mark.parametrize("nparam", [0, 1, 3, 8])
def test_field_indices_agree_with_the_readers(nparam: int) -> None:
    accesses = [(rec.W, MEM_UB, 0, 256), (rec.R, 1, 512, 768), (rec.R | rec.STRIDED, MEM_UB,
                                                                  1024, 1280)]
    row = _row(nparam, accesses)
    assert tuple(row[i] for i in rec.param_fields(nparam)) == rec.params_of(row)
    for k, access in enumerate(rec.accesses_of(row)):
        assert tuple(row[i] for i in rec.access_fields(nparam, k)) == access
    assert tuple(row[i] for i in rec.start_fields(nparam, 3)) == (0, 512, 1024)
    assert rec.gm_memory(row) == 1 and rec.gm_memory(_row(nparam, accesses[::2])) == 0
    copies = [_row(nparam, accesses[:2]), _row(nparam, accesses[1::-1])]  # GM as src, as dst
    assert rec.Columns(copies).copy_gm_start(np.array([0, 1])).tolist() == [512, 512]
    shifted = rec.shifted_program_row(row, [-8, 16, 0])
    assert rec.accesses_of(shifted) == [(rec.W, MEM_UB, 8, 264), (rec.R, 1, 496, 752),
                                        accesses[2]]
    assert shifted[rec.CODE] == 0 and len(shifted) == len(row)


def test_repeat_fields_follow_the_documented_layout() -> None:
    # (mask_lo, mask_hi, blk per operand, rep per operand), then the accesses
    lo, hi, blk, rep, start = rec.repeat_fields(3)
    assert (lo, hi) == rec.param_fields(8)[:2]
    assert blk == rec.param_fields(8)[2:5] and rep == rec.param_fields(8)[5:8]
    assert start == rec.start_fields(8, 3)


def _positional_reads(path: Path, root: Path = ROOT) -> list[str]:
    """`row[<int>]` and `row[... HEADER ...]` subscripts (HEADER arithmetic, or a literal index
    of a variable named like a row) in one source file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Subscript):
            continue
        target = node.value.id if isinstance(node.value, ast.Name) else None
        index = node.slice
        names = {n.id for n in ast.walk(index) if isinstance(n, ast.Name)} | {
            n.attr for n in ast.walk(index) if isinstance(n, ast.Attribute)}
        literal = isinstance(index, ast.Constant) and isinstance(index.value, int)
        if "HEADER" in names or (target in ROW_NAMES and literal):
            found.append(f"{path.relative_to(root.parent)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_positional_row_reads_outside_records() -> None:
    reads = [hit for path in sorted(ROOT.rglob("*.py")) if path.name != "records.py"
             for hit in _positional_reads(path)]
    assert not reads, "read rows through records.py's names and field helpers:\n" + \
        "\n".join(reads)


def test_the_check_finds_a_positional_read(tmp_path: Path) -> None:
    source = tmp_path / "mod.py"
    source.write_text("def f(row, r):\n    return row[HEADER + 2] + r[10] + row[COUNT]\n")
    hits = _positional_reads(source, tmp_path / "ascsim")
    assert [h.split(": ", 1)[1] for h in hits] == ["row[HEADER + 2]", "r[10]"]
