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
from numba import njit

from .. import records as rec
from ..core import PIPE_MTE2, PIPE_V, CoreState
from ..dtypes import ALL_DTYPES
from ..instructions.crosscore import atomic_stores
from ..recordstore import RecordStore
from ..registry import REGISTRY, CostKind
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
    """Arrays of one core (m records, n accesses): its slices of the EncodedRun's columns (what
    passes.analyse_cores reads of each core), its access offsets rebased to 0."""

    order: np.ndarray
    cls: np.ndarray        # the record's Dataflow class
    pipe: np.ndarray       # the pipe each record runs on in the pass
    count: np.ndarray
    dsz: np.ndarray
    par: np.ndarray        # flag index, barrier pipe, select mode or buffer id (MODE)
    implicit: np.ndarray   # bool: a SetFlag/WaitFlag made by a queue call
    aoff: np.ndarray
    af: np.ndarray
    am: np.ndarray
    ast: np.ndarray
    aen: np.ndarray
    apat: np.ndarray       # access pattern code of each access (AccessPattern order)
    P: np.ndarray
    bstart: np.ndarray
    bend: np.ndarray
    bque: np.ndarray
    blive: np.ndarray      # [since, until): the records during which a buffer exists
    buffers: list          # BufferInfo per buffer id
    subranges: int         # extra segment boundaries strided accesses may create
    atomic: np.ndarray     # bool: a UB->GM copy made under the DMA atomic mode
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


_STRIDED = rec.STRIDED
_HEADER = rec.HEADER


@njit(cache=True, nogil=True, error_model="numpy")
def _row_columns(op, dtype, nparam, repeats, acc_off, af, acc_index, flat, off, dataflow,
                 patterns, dtype_size):
    """The pass's per-record and per-access columns, in one loop over the decoded records
    (what numpy calls over the columns did, 5 ms of SCE grad's 54k records): each record's
    dataflow class, whether it is a queue's implicit flag (a sync with param 0 == 1), its
    element size and, for a copy (its first access COPY_BLOCKS), its geometry in P's first
    eight columns and its blocks as extra segment boundaries; each access's pattern; and
    which records are a vector repeat form (a STRIDED element-wise first operand, or a dense
    bit mask first and a STRIDED element-wise operand after it: level-0 Compare)."""
    m = op.shape[0]
    cls = np.empty(m, np.int64)
    implicit = np.zeros(m, np.bool_)
    dsz = np.empty(m, np.int64)
    apat = np.empty(af.shape[0], np.int64)
    P = np.zeros((m, ps.P_COLS), np.int64)
    splits = np.zeros(m, np.int64)
    repeat_form = np.zeros(m, np.bool_)
    for i in range(m):
        o = op[i]
        c = dataflow[o]
        cls[i] = c
        dsz[i] = dtype_size[dtype[i]]
        base = off[i] + _HEADER  # the first param
        if (c == ps.C_SET or c == ps.C_WAIT) and nparam[i] > 0 and flat[base] == 1:
            implicit[i] = True
        a0, a1 = acc_off[i], acc_off[i + 1]
        if a1 == a0:
            continue
        dense_strided = False
        for a in range(a0, a1):
            pat = patterns[o, acc_index[a]]
            apat[a] = pat
            if af[a] & _STRIDED and pat == ps.PAT_ELEMENT:
                dense_strided = True
        first = apat[a0]
        if first == ps.PAT_COPY:
            # copy_geometry: (blocks, block_len, src_pitch, dst_pitch, left, right, padded,
            # is_pad); without padding params left = right = is_pad = 0, padded = block_len
            P[i, ps.P_BLOCKS] = repeats[i]
            for k in range(3):
                P[i, ps.P_BLEN + k] = flat[base + k]
            if nparam[i] >= 7:
                for k in range(4):
                    P[i, ps.P_LEFT + k] = flat[base + 3 + k]
            else:
                P[i, ps.P_PADDED] = P[i, ps.P_BLEN]
            splits[i] = P[i, ps.P_BLOCKS]
        if (af[a0] & _STRIDED and first == ps.PAT_ELEMENT) or \
                (dense_strided and first == ps.PAT_BIT):
            repeat_form[i] = True
    return cls, implicit, dsz, apat, P, splits, repeat_form


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
    cls, implicit, dsz, apat, P, splits, repeat_form = _row_columns(
        cols.op, cols.dtype, cols.nparam, cols.repeats, cols.acc_off, cols.acc_flags,
        cols.acc_index, cols.store.flat, cols.store.off, _dataflow_table(), pattern_table(),
        _DTYPE_SIZE)
    pipe = cols.pipe.copy()
    par = cols.mode
    aoff = cols.acc_off
    af, am, ast, aen = cols.acc_flags, cols.acc_mem, cols.acc_start, cols.acc_end
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
        a0, a1 = int(aoff[r0]), int(aoff[r1])
        b0, b1 = int(buf_at[c]), int(buf_at[c + 1])
        out.append(Encoded(order[r0:r1], cls[r0:r1], pipe[r0:r1], cols.count[r0:r1],
                           dsz[r0:r1], par[r0:r1], implicit[r0:r1], aoff[r0:r1 + 1] - a0,
                           af[a0:a1], am[a0:a1], ast[a0:a1], aen[a0:a1], apat[a0:a1],
                           P[r0:r1], bstart[b0:b1], bend[b0:b1], bque[b0:b1], blive[b0:b1],
                           infos[c], int(subranges[c]), atomic[r0:r1], cross[r0:r1]))
    return EncodedRun(out, rows_at, core_of, cls, pipe, par, implicit, aoff, cols.acc_row, af,
                      am, ast, aen, apat, atomic, order, cols.count, dsz, P, subranges,
                      buf_at.astype(np.int64), bstart, bend, bque, blive)
