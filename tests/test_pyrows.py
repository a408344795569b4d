"""Reading rows of Python ints from compiled code (ascsim/pyrows.py): the ints come back exactly
as struct packs them, and anything but a list of tuples of ints in the int64 range is handed
back untouched (None) for the slower way, with no exception left pending. Both readers are
held to it: the C API one and the in-line one this interpreter's layout allows."""

from __future__ import annotations

import struct
import sys
from functools import partial

import numpy as np
import pytest

from ascsim import pyrows
from ascsim.recordstore import RecordStore, _packed_ints, flat_ints

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
RNG = np.random.default_rng(11)


# the readers: through the C API (any build), and in line where the layout probe allows it
READERS = [pytest.param(pyrows.C_API, id="c-api"),
           pytest.param(pyrows.LAYOUT, id="in-line", marks=pytest.mark.skipif(
               pyrows.LAYOUT == pyrows.C_API, reason="this interpreter's layout is not known"))]


@pytest.fixture(params=READERS)
def flatten(request):
    return partial(pyrows.flatten_with, layout=request.param)


def _random_rows(n: int) -> list[tuple]:
    """Rows of 0 to 40 ints drawn across the whole int64 range, small ints and the edges."""
    edges = [0, 1, -1, 255, 256, -257, 1 << 31, -(1 << 31), 1 << 62, I64_MIN, I64_MAX]
    rows = []
    for _ in range(n):
        k = int(RNG.integers(0, 41))
        wide = RNG.integers(I64_MIN, I64_MAX, k, dtype=np.int64, endpoint=True).tolist()
        rows.append(tuple(edges[int(RNG.integers(len(edges)))] if RNG.random() < 0.3 else v
                          for v in wide))
    return rows


def test_the_ints_and_offsets_are_the_rows(flatten) -> None:
    rows = _random_rows(3000)
    flat, off = flatten(rows)
    assert flat.dtype == np.int64 and off.dtype == np.int64
    assert flat.tolist() == [v for r in rows for v in r]
    assert off.tolist() == np.cumsum([0] + [len(r) for r in rows]).tolist()
    assert np.array_equal(flat, _packed_ints(rows, False))


def test_empty_lists_and_rows(flatten) -> None:
    flat, off = flatten([])
    assert flat.size == 0 and off.tolist() == [0]
    flat, off = flatten([(), (5,), ()])
    assert flat.tolist() == [5] and off.tolist() == [0, 0, 1, 1]


@pytest.mark.parametrize("bad", [
    [(1, 2), (3, 1 << 63)],             # past int64
    [(1, 2), (-(1 << 63) - 1,)],        # below int64
    [(1, 2), (3, True)],                # bool: an int subclass
    [(1, np.int64(2))],                 # a numpy integer
    [(1, 2.0)],                         # a float
    [(1, 2), [3, 4]],                   # a row that is a list
], ids=["over", "under", "bool", "numpy", "float", "list-row"])
def test_anything_else_is_left_to_the_slow_way(flatten, bad: list) -> None:
    assert flatten(bad) is None
    # no exception is left pending: a later C-level call would raise SystemError
    assert [int(x) for x in "123"] == [1, 2, 3]


def test_only_a_list_is_read(flatten) -> None:
    assert flatten(((1, 2),)) is None
    store = RecordStore.pack([(1, 2), (3,)])
    assert flatten(store) is None


def test_the_slow_way_takes_what_struct_takes_and_raises_what_it_raises() -> None:
    """flat_ints and RecordStore.pack go through struct when flatten declines."""
    rows = [(1, True), (np.int64(-7), 3)]
    assert flat_ints(rows).tolist() == [1, 1, -7, 3]
    store = RecordStore.pack(rows)
    assert list(store) == [(1, 1), (-7, 3)] and not store.flat.flags.writeable
    with pytest.raises(struct.error):
        flat_ints([(1 << 63,)])


def test_writability_is_the_callers_choice() -> None:
    rows = _random_rows(10)
    assert not flat_ints(rows).flags.writeable
    assert flat_ints(rows, writable=True).flags.writeable
    assert not RecordStore.pack(rows).flat.flags.writeable


def test_the_rows_are_not_changed(flatten) -> None:
    rows = _random_rows(50)
    copy = [tuple(r) for r in rows]
    flatten(rows)
    assert rows == copy


def test_the_probe_knows_this_interpreter() -> None:
    """CPython 3.11-3.13 on 64 bits with the GIL keep the layout the in-line reader reads."""
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()  # False on a free-threaded build
    if sys.maxsize == (1 << 63) - 1 and sys.implementation.name == "cpython" and gil:
        want = pyrows.TAGGED if sys.version_info >= (3, 12) else pyrows.SIZED
        assert pyrows.LAYOUT == want
    assert pyrows.flatten([(1, -(1 << 40))])[0].tolist() == [1, -(1 << 40)]


def test_a_layout_the_interpreter_lacks_is_refused() -> None:
    other = pyrows.TAGGED if pyrows.LAYOUT == pyrows.SIZED else pyrows.SIZED
    with pytest.raises(ValueError, match="layout"):
        pyrows.flatten_with([(1,)], other)
