"""One core's records as flat numpy arrays for the numba pass (passes.py).

Everything per record comes from the record schema (records.Columns) and the registry: each
instruction's dataflow class (what initcheck and the clocks do with it) and the access pattern
of each of its memory operands (how the pass walks their bytes). No instruction is known here
by name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import records as rec
from ..core import PIPE_MTE2, PIPE_V, CoreState
from ..dtypes import ALL_DTYPES
from ..instructions.crosscore import atomic_stores
from ..registry import REGISTRY, AccessPattern
from . import passes as ps

__all__ = ["Encoded", "encode_core", "pattern_table"]

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


# registry tables, with the registry size they were built for (the registry only grows)
_TABLES: dict[str, tuple[int, np.ndarray]] = {}


@dataclass
class Encoded:
    """Arrays of one core (m records, n accesses); see passes.analyse_core."""

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

    @property
    def size(self) -> int:
        return len(self.cls)


def encode_core(core: CoreState) -> Encoded:
    cols = rec.Columns(core.records)
    m = cols.size
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
    order = np.arange(m, dtype=np.int64)

    infos = list(core.buffers)
    bstart = np.array([b.start for b in infos], np.int64)
    bend = np.array([b.end for b in infos], np.int64)
    bque = np.array([b.index >= 0 for b in infos], np.bool_)
    # the records during which each buffer exists (TPipe.Reset retires buffers)
    blive = np.array([(b.since, b.until if b.until >= 0 else m) for b in infos],
                     np.int64).reshape(-1, 2)
    for i in np.flatnonzero(cls == ps.C_QALLOC).tolist():
        # the fill of a fresh buffer runs on the pipe that fills its position
        pipe[i] = PIPE_MTE2 if infos[par[i]].position == "VECIN" else PIPE_V
        # ... after the allocation's implicit wait (which may stall that pipe)
        nxt = i + 1
        if nxt < m and cls[nxt] == ps.C_WAIT and implicit[nxt] and \
                order[i] == i and order[nxt] == nxt:
            order[i], order[nxt] = nxt, i

    subranges = 0
    strided = np.zeros(m, np.bool_)
    has_acc = np.diff(aoff) > 0
    strided[has_acc] = (af[aoff[:-1][has_acc]] & rec.STRIDED) != 0
    first_pat = np.full(m, -1, np.int64)
    first_pat[has_acc] = apat[aoff[:-1][has_acc]]
    copies = np.flatnonzero(first_pat == ps.PATTERN_CODE[AccessPattern.COPY_BLOCKS])
    if copies.size:
        P[copies, :8] = cols.copy_geometry(copies)  # the P_BLOCKS .. P_ISPAD columns
        subranges += int(P[copies, ps.P_BLOCKS].sum())
    repeat_form = strided & (first_pat == ps.PATTERN_CODE[AccessPattern.ELEMENTWISE])
    # a level-0 form whose first operand is a dense bit mask (Compare) has strided sources
    elem_strided = ((af & rec.STRIDED) != 0) & (apat == ps.PAT_ELEMENT)
    dense_first = np.zeros(m, np.bool_)
    dense_first[cols.acc_row[elem_strided]] = True
    repeat_form |= dense_first & (first_pat == ps.PAT_BIT)
    for i in np.flatnonzero(repeat_form).tolist():
        r = core.records[i]
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
        subranges += r[rec.REPEATS] * 8 * int(aoff[i + 1] - aoff[i])
    for i in np.flatnonzero(cls == ps.C_REDUCE).tolist():
        # reductions: the nine row params (instructions/reduce.py) and the repeats
        r = core.records[i]
        P[i, :7] = rec.params_of(r)[:7]
        P[i, ps.P_REPEAT] = r[rec.REPEATS]
    atomic = np.zeros(m, np.bool_)
    atomic[atomic_stores(cols)] = True
    return Encoded(order, cls, pipe, cols.count, dsz, par, implicit, aoff, af, am, ast, aen,
                   apat, P, bstart, bend, bque, blive, infos, subranges, atomic)

