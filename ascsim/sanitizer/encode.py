"""Each core's records as flat numpy arrays for the numba pass (passes.py).

Everything per record comes from the record schema (records.Columns) and the registry: each
instruction's dataflow class (what initcheck and the clocks do with it) and the access pattern
of each of its memory operands (how the pass walks their bytes). No instruction is known here
by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import records as rec
from ..core import PIPE_MTE2, PIPE_V, CoreState
from ..dtypes import ALL_DTYPES
from ..instructions.crosscore import atomic_stores
from ..recordstore import RecordStore
from ..registry import REGISTRY, AccessPattern, CostKind
from . import passes as ps

__all__ = ["Encoded", "EncodedRun", "encode_cores", "pattern_table"]

_DTYPE_SIZE = np.ones(max(t.code for t in ALL_DTYPES) + 1, np.int64)
for _t in ALL_DTYPES:
    _DTYPE_SIZE[_t.code] = _t.size

_MAX_OPERANDS = 8


def _source_size(row: tuple) -> int:
    """The element size of a repeat-form row's sources when a param names their dtype (Cast's
    level-0 form: registry Operand.dtype_param), else 0 (the row's dtype)."""
    for op in REGISTRY[row[rec.OP]].memory_operands:
        if op.dtype_param is not None:
            return int(_DTYPE_SIZE[rec.params_of(row)[op.dtype_param]])
    return 0


def pattern_table() -> np.ndarray:
    """[instruction, memory operand] -> access pattern code (passes.PATTERN_CODE; -1 past
    the last operand)."""
    if _TABLES.get("patterns", (-1,))[0] != len(REGISTRY):  # built again when entries come
        table = np.full((len(REGISTRY), _MAX_OPERANDS), -1, np.int64)
        for ins in REGISTRY:
            for k, op in enumerate(ins.memory_operands):
                table[ins.id, k] = ps.PATTERN_CODE[op.pattern]
        _TABLES["patterns"] = (len(REGISTRY), table)
    return _TABLES["patterns"][1]


def _dataflow_table() -> np.ndarray:
    """instruction id -> its Dataflow class."""
    if _TABLES.get("dataflow", (-1,))[0] != len(REGISTRY):
        _TABLES["dataflow"] = (len(REGISTRY), np.array([int(ins.dataflow) for ins in REGISTRY],
                                                       np.int64))
    return _TABLES["dataflow"][1]


def _cross_core_table() -> np.ndarray:
    """instruction id -> whether it is a cross-core point (its cost kind says the scalar unit
    waits for other cores)."""
    if _TABLES.get("cross", (-1,))[0] != len(REGISTRY):
        _TABLES["cross"] = (len(REGISTRY), np.array(
            [ins.cost.kind == CostKind.CROSS_CORE for ins in REGISTRY], np.bool_))
    return _TABLES["cross"][1]


# registry tables, with the registry size they were built for (the registry only grows)
_TABLES: dict[str, tuple[int, np.ndarray]] = {}


@dataclass
class Encoded:
    """What the per-core checks read of one core (m records): its slices of the EncodedRun's
    columns and its buffer table. The pass itself (passes.analyse_cores) reads the joined
    columns."""

    cls: np.ndarray        # the record's Dataflow class
    par: np.ndarray        # flag index, barrier pipe, select mode or buffer id (MODE)
    buffers: list          # BufferInfo per buffer id
    cross: np.ndarray      # bool: a cross-core record (SyncAll, CrossCoreSetFlag/WaitFlag)

    @property
    def size(self) -> int:
        return len(self.cls)


@dataclass
class EncodedRun:
    """Every core's arrays, joined (core c's records are rows_at[c]:rows_at[c + 1] of the
    record columns, and their accesses aoff[rows_at[c]]:aoff[rows_at[c + 1]] of the access
    columns), and each core's own `Encoded` (views into them). The checks that look at every
    core at once read the joined columns: per core, their numpy calls on a few hundred rows
    cost more than their work."""

    cores: list[Encoded]
    rows_at: np.ndarray
    core_of: np.ndarray    # the core index of each record
    cls: np.ndarray
    pipe: np.ndarray
    par: np.ndarray
    implicit: np.ndarray
    aoff: np.ndarray       # record -> its first access, in the joined access columns
    arow: np.ndarray       # access -> its record (joined)
    af: np.ndarray
    am: np.ndarray
    ast: np.ndarray
    aen: np.ndarray
    apat: np.ndarray
    atomic: np.ndarray
    # what the pass reads besides (passes.analyse_cores): per record, then per core, then the
    # buffer tables joined (core c's are buf_at[c]:buf_at[c + 1])
    order: np.ndarray
    count: np.ndarray
    dsz: np.ndarray
    P: np.ndarray
    subranges: np.ndarray
    buf_at: np.ndarray
    bstart: np.ndarray
    bend: np.ndarray
    bque: np.ndarray
    blive: np.ndarray

    @property
    def size(self) -> int:
        return len(self.cls)


def _joined_store(records: list[Sequence[tuple]]) -> RecordStore:
    """Every core's rows, in core order, as one store: lists (a launch whose Run nobody keeps
    leaves them unpacked) are packed in one call, stores are joined."""
    if all(type(r) is list for r in records):
        return RecordStore.pack([row for rows in records for row in rows])
    stores = [r if isinstance(r, RecordStore) else RecordStore.pack(r) for r in records]
    ints_at = np.cumsum([0] + [st.flat.size for st in stores])
    off = np.concatenate([st.off[:-1] + base for st, base in zip(stores, ints_at.tolist(),
                                                                  strict=False)]
                         + [ints_at[-1:]])
    return RecordStore(np.concatenate([st.flat for st in stores]), off)


def encode_cores(cores: Sequence[CoreState]) -> EncodedRun:
    """Every core's arrays. The columns are built once over all the cores' rows (LogitGrad at
    2^22: 48 cores of 270 rows); what is left per core is slicing."""
    ncores = len(cores)
    nrows = np.array([len(core.records) for core in cores], np.int64)
    rows_at = np.zeros(ncores + 1, np.int64)   # core c's rows: rows_at[c]:rows_at[c + 1]
    np.cumsum(nrows, out=rows_at[1:])
    cols = rec.Columns(_joined_store([core.records for core in cores]))
    m = cols.size
    core_of = np.repeat(np.arange(ncores, dtype=np.int64), nrows)
    local = np.arange(m, dtype=np.int64) - rows_at[core_of]  # the index in its core
    cls = _dataflow_table()[cols.op] if m else np.zeros(0, np.int64)
    pipe = cols.pipe.copy()
    par = cols.mode
    sync = (cls == ps.C_SET) | (cls == ps.C_WAIT)
    implicit = sync & (cols.param(0) == 1) if m else np.zeros(0, np.bool_)
    dsz = _DTYPE_SIZE[cols.dtype]
    aoff = cols.acc_off
    af, am, ast, aen = cols.acc_flags, cols.acc_mem, cols.acc_start, cols.acc_end
    apat = (pattern_table()[cols.op[cols.acc_row], cols.acc_index] if af.size
            else np.zeros(0, np.int64))
    P = np.zeros((m, ps.P_COLS), np.int64)
    # extra segment boundaries strided accesses may create, per row (summed per core)
    splits = np.zeros(m, np.int64)

    strided = np.zeros(m, np.bool_)
    has_acc = np.diff(aoff) > 0
    strided[has_acc] = (af[aoff[:-1][has_acc]] & rec.STRIDED) != 0
    first_pat = np.full(m, -1, np.int64)
    first_pat[has_acc] = apat[aoff[:-1][has_acc]]
    copies = np.flatnonzero(first_pat == ps.PATTERN_CODE[AccessPattern.COPY_BLOCKS])
    if copies.size:
        P[copies, :8] = cols.copy_geometry(copies)  # the P_BLOCKS .. P_ISPAD columns
        splits[copies] = P[copies, ps.P_BLOCKS]
    repeat_form = strided & (first_pat == ps.PATTERN_CODE[AccessPattern.ELEMENTWISE])
    # a level-0 form whose first operand is a dense bit mask (Compare) has strided sources
    elem_strided = ((af & rec.STRIDED) != 0) & (apat == ps.PAT_ELEMENT)
    dense_first = np.zeros(m, np.bool_)
    dense_first[cols.acc_row[elem_strided]] = True
    repeat_form |= dense_first & (first_pat == ps.PAT_BIT)
    atomic = np.zeros(m, np.bool_)
    atomic[atomic_stores(cols)] = True
    cross = _cross_core_table()[cols.op] if m else np.zeros(0, np.bool_)

    for i in np.flatnonzero(repeat_form).tolist():
        r = cols.store[i]
        lo, hi, blk, rep = rec.repeat_geometry(r)
        P[i, ps.P_SSZ] = _source_size(r)
        blk = tuple(blk) + (blk[-1],) * (3 - len(blk))
        rep = tuple(rep) + (rep[-1],) * (3 - len(rep))
        P[i, ps.P_MLO], P[i, ps.P_MHI] = lo, hi
        P[i, ps.P_BLK:ps.P_BLK + 3] = blk
        P[i, ps.P_REP:ps.P_REP + 3] = rep
        P[i, ps.P_REPEAT] = r[rec.REPEATS]
        # the lanes it runs: every lane of every repeat, or (Counter mode) the count
        full = r[rec.REPEATS] * 256 // max(int(dsz[i]), 1)
        P[i, ps.P_LANES] = r[rec.COUNT] if 0 < r[rec.COUNT] < full else full
        splits[i] += r[rec.REPEATS] * 8 * int(aoff[i + 1] - aoff[i])
    for i in np.flatnonzero(cls == ps.C_REDUCE).tolist():
        # reductions: the nine row params (instructions/reduce.py) and the repeats
        r = cols.store[i]
        P[i, :7] = rec.params_of(r)[:7]
        P[i, ps.P_REPEAT] = r[rec.REPEATS]
    subranges = np.diff(np.concatenate([[0], np.cumsum(splits)])[rows_at])

    # each core's buffer table, joined: core c's are buf_at[c]:buf_at[c + 1]
    infos = [list(core.buffers) for core in cores]
    buf_at = np.cumsum([0] + [len(b) for b in infos])
    joined = [b for bufs in infos for b in bufs]
    bstart = np.array([b.start for b in joined], np.int64)
    bend = np.array([b.end for b in joined], np.int64)
    bque = np.array([b.index >= 0 for b in joined], np.bool_)
    # the records during which each buffer exists (TPipe.Reset retires buffers)
    until = np.array([b.until for b in joined], np.int64)
    blive = np.stack([np.array([b.since for b in joined], np.int64),
                      np.where(until >= 0, until, np.repeat(nrows, np.diff(buf_at)))], axis=1)
    order = local.copy()
    alloc = np.flatnonzero(cls == ps.C_QALLOC)
    if alloc.size:
        # the fill of a fresh buffer runs on the pipe that fills its position
        vecin = np.array([b.position == "VECIN" for b in joined], np.bool_)
        pipe[alloc] = np.where(vecin[buf_at[core_of[alloc]] + par[alloc]], PIPE_MTE2, PIPE_V)
        # ... after the allocation's implicit wait (which may stall that pipe): the two
        # swap places (an allocation is no wait, so no two swaps share a record)
        alloc = alloc[local[alloc] + 1 < nrows[core_of[alloc]]]
        alloc = alloc[(cls[alloc + 1] == ps.C_WAIT) & implicit[alloc + 1]]
        order[alloc], order[alloc + 1] = local[alloc + 1], local[alloc]

    out = []
    for c in range(ncores):
        r0, r1 = int(rows_at[c]), int(rows_at[c + 1])
        out.append(Encoded(cls[r0:r1], par[r0:r1], infos[c], cross[r0:r1]))
    return EncodedRun(out, rows_at, core_of, cls, pipe, par, implicit, aoff, cols.acc_row, af,
                      am, ast, aen, apat, atomic, order, cols.count, dsz, P, subranges,
                      buf_at.astype(np.int64), bstart, bend, bque, blive)
