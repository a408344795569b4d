"""A finished core's record rows, packed: one flat int64 array of every row's ints and the
offsets of the rows in it.

While a core runs, its records are a plain list (appending a tuple is the cheapest thing the
hot path can do). A list of tuples holds every int above 256 as its own Python object, about
twice the memory of the ints themselves, so when a core ends its list becomes a `RecordStore`
(runtime packs it then), with the list interface the analyses use (len, indexing with negative
indices and slices, iteration, equality with lists), rows coming back as the same tuples of
Python ints, and the arrays themselves for code that reads columns (records.Columns). Rows cannot be
replaced; `append` works but copies (only a kernel object used after its launch appends).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise
from typing import Any, overload

import numpy as np

from .pyrows import flatten

__all__ = ["RecordStore", "flat_ints"]

_CHUNK = 4096  # rows converted to Python ints at a time while iterating


class _Packers(dict):
    """Row length n -> the `pack` of a struct of n native int64s: packing row by row through
    these is about a third faster than np.fromiter over the chained rows (measured), and
    pyrows.flatten about twice as fast again."""

    def __missing__(self, n: int) -> Any:
        packer = self[n] = struct.Struct(f"={n}q").pack
        return packer


_PACKERS = _Packers()


def flat_ints(rows: Sequence[tuple], writable: bool = False) -> np.ndarray:
    """Every int of `rows` (tuples of ints in the int64 range), in order, as one int64 array,
    read-only unless `writable` (numba compiles another specialisation for a read-only
    array)."""
    read = flatten(rows)
    if read is not None:
        flat = read[0]
        flat.flags.writeable = writable
        return flat
    return _packed_ints(rows, writable)


def _packed_ints(rows: Sequence[tuple], writable: bool) -> np.ndarray:
    """flat_ints of any rows, through struct (what a row that is not a tuple of ints gets:
    struct's own error for a value past the int64 range, numpy integers converted)."""
    packers = _PACKERS
    joined = (bytearray() if writable else b"").join([packers[len(r)](*r) for r in rows])
    return np.frombuffer(joined, np.int64)


class RecordStore(Sequence[tuple]):
    """Rows `flat[off[i]:off[i + 1]]`, i < len(store), as tuples of Python ints."""

    __slots__ = ("flat", "off")

    def __init__(self, flat: np.ndarray, off: np.ndarray) -> None:
        self.flat = flat
        self.off = off

    @classmethod
    def pack(cls, rows: Iterable[tuple]) -> RecordStore:
        """The store of `rows` (tuples of ints in the int64 range)."""
        rows = rows if isinstance(rows, Sequence) else list(rows)
        if isinstance(rows, RecordStore):
            return rows
        read = flatten(rows)
        if read is not None:
            flat, off = read
            flat.flags.writeable = False
            return cls(flat, off)
        off = np.zeros(len(rows) + 1, np.int64)
        np.cumsum(np.fromiter(map(len, rows), np.int64, len(rows)), out=off[1:])
        return cls(_packed_ints(rows, False), off)

    def __len__(self) -> int:
        return self.off.size - 1

    @overload
    def __getitem__(self, index: int) -> tuple: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple]: ...

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):  # a list, as slicing the list did
            return [self[i] for i in range(*index.indices(len(self)))]
        n = self.off.size - 1
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError(f"record {index} out of range: the core has {n} records")
        return tuple(self.flat[self.off.item(i):self.off.item(i + 1)].tolist())

    def __iter__(self) -> Iterator[tuple]:
        flat, off = self.flat, self.off
        for lo in range(0, len(self), _CHUNK):
            bounds = off[lo:lo + _CHUNK + 1].tolist()
            base = bounds[0]
            ints = flat[base:bounds[-1]].tolist()
            for a, b in pairwise(bounds):
                yield tuple(ints[a - base:b - base])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RecordStore):
            return np.array_equal(self.off, other.off) and np.array_equal(self.flat, other.flat)
        if isinstance(other, list):  # what the records were (a list never equals a tuple)
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a list, which has none

    def append(self, row: tuple) -> None:
        """Add a row after the launch (a kernel object used once its run has ended): the
        arrays are rebuilt, which costs a copy of the store, but nothing on the hot path
        appends here (the running core's records are a list)."""
        self.flat = np.concatenate([self.flat, np.fromiter(row, np.int64, len(row))])
        self.off = np.append(self.off, self.flat.size)

    @property
    def nbytes(self) -> int:
        """The bytes of the two arrays."""
        return self.flat.nbytes + self.off.nbytes

    def __repr__(self) -> str:
        return f"<RecordStore of {len(self)} rows, {self.nbytes} bytes>"
