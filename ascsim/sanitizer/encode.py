"""One core's records as flat numpy arrays for the numba pass (passes.py).

Record fields come out column by column with `np.fromiter` and the accesses as one flat array,
so encoding costs a few C-level passes over the record list; only copies, high-dimension vector
forms and queue calls (whose `extra` is an object) are looked at one by one.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from operator import itemgetter

import numpy as np

from ..core import PIPE_MTE2, PIPE_V, CoreState
from ..dtypes import ALL_DTYPES, BY_CODE
from ..registry import PREFIX, REGISTRY
from . import passes as ps

__all__ = ["Encoded", "encode_core", "class_table"]

_DTYPE_SIZE = np.ones(max(t.code for t in ALL_DTYPES) + 1, np.int64)
for _t in ALL_DTYPES:
    _DTYPE_SIZE[_t.code] = _t.size

_BY_NAME = {
    "SetFlag": ps.C_SET, "WaitFlag": ps.C_WAIT, "PipeBarrier": ps.C_BARRIER,
    "AllocTensor": ps.C_QALLOC, "EnQue": ps.C_QENQUE, "DeQue": ps.C_QDEQUE,
    "FreeTensor": ps.C_QFREE, "GetValue": ps.C_GET, "SetValue": ps.C_PUT,
    "And": ps.C_BITWISE, "Or": ps.C_BITWISE, "Not": ps.C_BITWISE, "Cast": ps.C_CAST,
    "Compare": ps.C_COMPARE, "CompareScalar": ps.C_COMPARE, "Select": ps.C_SELECT,
    "DataCopy": ps.C_COPY, "DataCopyPad": ps.C_COPY,
}
_TABLE: list[np.ndarray] = []


def class_table() -> np.ndarray:
    """Analysis class of every registered instruction (rebuilt when the registry grows)."""
    if not _TABLE or len(_TABLE[0]) != len(REGISTRY):
        table = np.full(len(REGISTRY), ps.C_GENERIC, np.int64)
        for ins in REGISTRY:
            cls = _BY_NAME.get(ins.name)
            if cls is None and ins.family == "vector":
                cls = ps.C_ELEM
            table[ins.id] = ps.C_GENERIC if cls is None else cls
        _TABLE[:] = [table]
    return _TABLE[0]


@dataclass
class Encoded:
    """Arrays of one core (m records, n accesses); see passes.analyse_core."""

    order: np.ndarray
    cls: np.ndarray
    pipe: np.ndarray       # the pipe each record runs on in the pass
    count: np.ndarray
    dsz: np.ndarray
    par: np.ndarray
    aoff: np.ndarray
    af: np.ndarray
    am: np.ndarray
    ast: np.ndarray
    aen: np.ndarray
    P: np.ndarray
    bstart: np.ndarray
    bend: np.ndarray
    bque: np.ndarray
    buffers: list          # BufferInfo per buffer id
    subranges: int         # extra segment boundaries strided accesses may create

    @property
    def size(self) -> int:
        return len(self.cls)


def _fill_pipe(que: object) -> int:
    # the pipe that fills a freshly allocated buffer (pipe.py _FILL_PIPE)
    return PIPE_MTE2 if getattr(que.position, "name", "") == "VECIN" else PIPE_V


def encode_core(core: CoreState) -> Encoded:
    recs = core.records
    m = len(recs)
    iid = np.fromiter(map(itemgetter(0), recs), np.int64, m)
    cls = class_table()[iid] if m else np.zeros(0, np.int64)
    pipe = np.fromiter(map(itemgetter(1), recs), np.int64, m)
    count = np.fromiter(map(itemgetter(5), recs), np.int64, m)
    dsz = _DTYPE_SIZE[np.fromiter(map(itemgetter(4), recs), np.int64, m)]
    tails = [r[PREFIX:] for r in recs]
    lens = np.fromiter(map(len, tails), np.int64, m) // 4
    aoff = np.zeros(m + 1, np.int64)
    np.cumsum(lens, out=aoff[1:])
    flat = np.fromiter(chain.from_iterable(tails), np.int64, int(aoff[-1]) * 4).reshape(-1, 4)
    af, am, ast, aen = (np.ascontiguousarray(flat[:, k]) for k in range(4))
    par = np.zeros(m, np.int64)
    P = np.zeros((m, ps.P_COLS), np.int64)
    order = np.arange(m, dtype=np.int64)

    simple = np.flatnonzero((cls == ps.C_SET) | (cls == ps.C_WAIT) | (cls == ps.C_BARRIER)
                            | (cls == ps.C_SELECT))
    if simple.size:
        par[simple] = [int(recs[i][7]) for i in simple.tolist()]

    # buffers of the core's TPipe, for queue records and the use-after-free check
    infos = list(core.pipe.buffers) if core.pipe is not None else []
    buf_id = {id(b): k for k, b in enumerate(infos)}
    for i in np.flatnonzero((cls >= ps.C_QALLOC) & (cls <= ps.C_QFREE)).tolist():
        r = recs[i]
        que, index = r[7], r[5]
        info = que.buffers[index]
        k = buf_id.get(id(info))
        if k is None:
            k = buf_id[id(info)] = len(infos)
            infos.append(info)
        par[i] = k
        if cls[i] == ps.C_QALLOC:
            pipe[i] = _fill_pipe(que)
            # the fill runs after the allocation's implicit wait (it may stall its pipe)
            nxt = i + 1
            if nxt < m and cls[nxt] == ps.C_WAIT and recs[nxt][5] and \
                    order[i] == i and order[nxt] == nxt:
                order[i], order[nxt] = nxt, i
    bstart = np.array([b.start for b in infos], np.int64)
    bend = np.array([b.end for b in infos], np.int64)
    bque = np.array([b.index >= 0 for b in infos], np.bool_)

    subranges = 0
    for i in np.flatnonzero(cls == ps.C_COPY).tolist():
        subranges += _copy_params(recs[i], P[i], ast, aen, af, int(aoff[i]))
    vec = (cls == ps.C_ELEM) | (cls == ps.C_BITWISE)
    if m:
        strided = np.zeros(m, np.bool_)
        has_acc = lens > 0
        strided[has_acc] = (af[aoff[:-1][has_acc]] & ps.STRIDED_FLAG) != 0
        for i in np.flatnonzero(vec & strided).tolist():
            r = recs[i]
            subranges += _vector_params(r, P[i])
    return Encoded(order, cls, pipe, count, dsz, par, aoff, af, am, ast, aen, P, bstart, bend,
                   bque, infos, subranges)


def _copy_params(rec: tuple, p: np.ndarray, ast: np.ndarray, aen: np.ndarray, af: np.ndarray,
                 a0: int) -> int:
    """Fill P for a DataCopy/DataCopyPad record; returns its block count."""
    extra = rec[7]
    if extra is None:  # DataCopy count form: one contiguous block
        wa = a0 if af[a0] & 1 else a0 + 1
        blen = int(aen[wa] - ast[wa])
        p[:8] = (1, blen, blen, blen, 0, 0, blen, 0)
        return 1
    if type(extra) is tuple:  # DataCopyPad GM -> UB: (params, pad); paddings in elements
        params, pad = extra
        dt = BY_CODE.get(rec[4])
        esize = dt.size if dt is not None else 1
        blen = params.blockLen
        left, right = pad.leftPadding * esize, pad.rightPadding * esize
        padded = (left + blen + right + 31) // 32 * 32
        p[:8] = (params.blockCount, blen, blen + params.srcStride,
                 padded + params.dstStride * 32, left, right, padded, int(pad.isPad))
        return params.blockCount
    params = extra
    if REGISTRY[rec[0]].name == "DataCopyPad":  # UB -> GM: UB gaps in blocks, GM gaps in bytes
        blen = params.blockLen
        p[:8] = (params.blockCount, blen, (blen + 31) // 32 * 32 + params.srcStride * 32,
                 blen + params.dstStride, 0, 0, blen, 0)
        return params.blockCount
    # DataCopy with DataCopyParams: lengths and gaps in 32-byte blocks
    blen = params.blockLen * 32
    p[:8] = (params.blockCount, blen, blen + params.srcStride * 32,
             blen + params.dstStride * 32, 0, 0, blen, 0)
    return params.blockCount


def _vector_params(rec: tuple, p: np.ndarray) -> int:
    """Fill P for a high-dimension vector record (mask, strides, repeats); returns how many
    sub-ranges its accesses may split into."""
    extra = rec[7]
    if len(extra) == 3:  # Duplicate: (lo, hi, (dstBlkStride, dstRepStride))
        lo, hi, (b, r) = extra
        blk, rep = (b,), (r,)
    else:
        lo, hi, blk, rep = extra
    blk = tuple(blk) + (blk[-1],) * (3 - len(blk))
    rep = tuple(rep) + (rep[-1],) * (3 - len(rep))
    p[0] = int(np.uint64(lo).view(np.int64))
    p[1] = int(np.uint64(hi).view(np.int64))
    p[2:5] = blk
    p[5:8] = rep
    p[8] = rec[6]
    return int(rec[6]) * 8 * (len(rec) - PREFIX) // 4
