"""The record schema: one row per executed AscendC call. This module owns the layout; every
producer builds rows with its constructors and every consumer reads them through its names.

A row is a flat tuple of Python ints: it is the argument the instruction's numba work takes
(`work(a, b, c, ub, gm, row)`, see registry.Work), so a core's rows are a program the batched
executor (batch.py) runs, and their columns (`Columns`) its encoded form. Fields:

    OP       registry id of the instruction
    PIPE     the pipe that executes it (PIPE_ALL for PipeBarrier<PIPE_ALL>)
    CODE     the id of the code object of the kernel line that made the call (`code_of`;
             0 inside ascsim): rows are all ints, so a batch of them is one int64 array
    LASTI    the bytecode offset of the call in that code object
    DTYPE    dtype code of the element type (0: none)
    COUNT    elements of the call (copies: elements moved; GetValue/SetValue: 1; else 0)
    REPEATS  256-byte vector repeats, or copy blocks (else 0)
    MODE     RoundMode (Cast), CMPMODE (Compare), SELMODE (Select), the flag index
             event * 8 + id (SetFlag, WaitFlag), the pipe (PipeBarrier), the buffer id in the
             core's buffer table (queue calls); 1 for ShiftRight's roundEn=true, the
             operand form of Power; else 0
    SCALAR   the scalar operand as the bits of its value in T, two's complement (else 0)
    NPARAM   how many parameters follow
    params   the call form's parameters: see the PARAM_* layouts below
    accesses (flags, memory, start, end) per memory operand, in the instruction's operand
             order: flags W (written) and STRIDED (only parts of [start, end) are touched, as
             the params tell); memory 0 is the core's UB, k >= 1 the launch's GM buffer k;
             start/end are byte offsets

Parameter layouts (by instruction family and form):

    vector repeat form  (mask_lo, mask_hi, blk_0, ..., blk_k, rep_0, ..., rep_k): the 128-bit
                        element mask as two int64 and each operand's block and repeat stride
                        in 32-byte DataBlocks, operands in access order
    Cast                (source dtype code,); its level-0 form: the source dtype code, then
                        the vector repeat form's params
    level-0 Compare,    the vector repeat form's params over the STRIDED operands only
    CompareScalar,      (Compare's dense dst, Select's temp area and selMask have no strides)
    Select
    DataCopy and        (block_len, src_pitch, dst_pitch): bytes per block and the byte
    DataCopyPad UB->GM  distance between block starts on each side
    DataCopyPad GM->UB  (block_len, src_pitch, dst_pitch, left, right, padded, is_pad,
                        pad_bits): paddings in bytes, the padded block length on the UB side,
                        whether isPad was set, and the bits of MOV_PAD_VAL (the pad value
                        register, as the call set or found it)
    SetFlag, WaitFlag   (implicit,): 1 when a TQue call made the flag

Records never hold element data. A running core appends its rows to a list; when the launch
ends, each core's list is packed into a `recordstore.RecordStore` (the same rows, read-only,
in about half the memory), from whose arrays `Columns` reads.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from types import CodeType
from typing import Any

import numpy as np
from numba import njit

from .core import MEM_UB, PIPE_NAMES
from .dtypes import BY_CODE, DType
from .recordstore import RecordStore
from .registry import REGISTRY, AccessPattern, Instruction

__all__ = [
    "OP", "PIPE", "CODE", "LASTI", "DTYPE", "COUNT", "REPEATS", "MODE", "SCALAR", "NPARAM",
    "HEADER", "R", "W", "STRIDED",
    "row", "vector_row1", "vector_row2", "vector_row2p", "vector_row3", "select_row",
    "copy_row", "pad_row", "sync_row", "access_row",
    "params_of", "accesses_of", "gm_memory", "shifted_program_row", "is_implicit",
    "copy_geometry", "repeat_geometry",
    "position_of", "program_row", "signed64", "code_id", "code_of",
    "param_fields", "access_fields", "start_fields", "repeat_fields",
    "Access", "Record", "decode", "Columns",
]

OP, PIPE, CODE, LASTI, DTYPE, COUNT, REPEATS, MODE, SCALAR, NPARAM = range(10)
HEADER = 10                    # fields before the params
R, W, STRIDED = 0, 1, 2        # access flags
_ACCESS = 4                    # ints per access

# ---- positions ---------------------------------------------------------------------------------
# A row holds a small int for its kernel line's code object: rows stay all-int (a batch is one
# int64 array, a record pickles) and an id below 256 is a shared int object, not a new one.

_CODES: list[CodeType | None] = [None]          # code id -> code object (0: inside ascsim)
_CODE_IDS: dict[CodeType | None, int] = {None: 0}
_CODE_LOCK = threading.Lock()
# The constructors look a code object up by its address: hashing a code object hashes its
# bytecode and constants on every lookup (0.15-0.3 us for a kernel method, once per row). Every
# code object entered here stays referenced by _SEEN, so no other object can take its address.
_IDS_BY_ADDRESS: dict[int, int] = {}            # id(code object) -> code id
_SEEN: list[CodeType] = []
_ids_get = _IDS_BY_ADDRESS.get


def code_id(code: CodeType | int | None) -> int:
    """The id a row stores for `code` (an id is returned as it is). Equal code objects (same
    bytecode and constants) share one id."""
    found = _CODE_IDS.get(code)
    if found is not None and (type(code) is not CodeType or id(code) in _IDS_BY_ADDRESS):
        return found
    if type(code) is int:
        return code
    with _CODE_LOCK:  # cores may run on threads
        found = _CODE_IDS.get(code)
        if found is None:
            found = _CODE_IDS[code] = len(_CODES)
            _CODES.append(code)
        if type(code) is CodeType and id(code) not in _IDS_BY_ADDRESS:
            _SEEN.append(code)
            _IDS_BY_ADDRESS[id(code)] = found
        return found


def code_of(rec: tuple) -> CodeType | None:
    """The code object of a row's kernel line (None: inside ascsim)."""
    return _CODES[rec[CODE]]


def position_of(rec: tuple) -> tuple[str, str | None]:
    """("kernels_py/...:line", "kernels_cpp/...:line" | None) of a row's kernel call."""
    from .source import describe_position
    code = code_of(rec)
    if code is None:
        return "<ascsim>", None
    return describe_position(code, rec[LASTI])


def program_row(rec: tuple) -> tuple[int, ...]:
    """The row as a work function takes it: rows are all-int already; CODE is zeroed so that
    the same call from two lines gives one argument value."""
    return rec[:CODE] + (0,) + rec[CODE + 1:]


def signed64(value: int) -> int:
    """An unsigned 64-bit field (a mask half, uint64 bits) as the int64 a row holds."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >> 63 else value


# ---- constructors ------------------------------------------------------------------------------
# Each takes the kernel line's code object (`frame.f_code`) and `f_lasti`, and stores the code's
# id. The fixed-shape ones build the same rows as `row` does, without its tuple concatenations:
# they are the simulator's hottest code.

def row(op: int, pipe: int, code: CodeType, lasti: int, dtype: int, count: int, repeats: int,
        mode: int, scalar: int, params: tuple[int, ...], accesses: tuple[int, ...]) -> tuple:
    """A row; `accesses` is the flat (flags, memory, start, end) sequence."""
    code = _ids_get(id(code)) or code_id(code)
    return (op, pipe, code, lasti, dtype, count, repeats, mode, scalar, len(params)) + \
        params + accesses


def vector_row1(op: int, pipe: int, code: CodeType, lasti: int, dtype: int, count: int,
                repeats: int, mode: int, scalar: int, dst: int, dst_end: int) -> tuple:
    """The count form of a vector instruction with one UB operand (written)."""
    code = _ids_get(id(code)) or code_id(code)
    return (op, pipe, code, lasti, dtype, count, repeats, mode, scalar, 0,
            W, MEM_UB, dst, dst_end)


def vector_row2(op: int, pipe: int, code: CodeType, lasti: int, dtype: int, count: int,
                repeats: int, mode: int, scalar: int, dst: int, dst_end: int, src: int,
                src_end: int) -> tuple:
    """The count form of a vector instruction with two UB operands, the first written."""
    code = _ids_get(id(code)) or code_id(code)
    return (op, pipe, code, lasti, dtype, count, repeats, mode, scalar, 0,
            W, MEM_UB, dst, dst_end, R, MEM_UB, src, src_end)


def vector_row2p(op: int, pipe: int, code: CodeType, lasti: int, dtype: int, count: int,
                 repeats: int, mode: int, scalar: int, param: int, dst: int, dst_end: int,
                 src: int, src_end: int) -> tuple:
    """As vector_row2, with one param (Cast: the source dtype)."""
    code = _ids_get(id(code)) or code_id(code)
    return (op, pipe, code, lasti, dtype, count, repeats, mode, scalar, 1, param,
            W, MEM_UB, dst, dst_end, R, MEM_UB, src, src_end)


def vector_row3(op: int, pipe: int, code: CodeType, lasti: int, dtype: int, count: int,
                repeats: int, mode: int, scalar: int, dst: int, dst_end: int, src0: int,
                src0_end: int, src1: int, src1_end: int) -> tuple:
    """The count form of a vector instruction with three UB operands, the first written."""
    code = _ids_get(id(code)) or code_id(code)
    return (op, pipe, code, lasti, dtype, count, repeats, mode, scalar, 0,
            W, MEM_UB, dst, dst_end, R, MEM_UB, src0, src0_end, R, MEM_UB, src1, src1_end)


def select_row(op: int, pipe: int, code: CodeType, lasti: int, dtype: int, count: int,
               repeats: int, mode: int, scalar: int, dst: int, dst_end: int, tmp: int,
               tmp_end: int, mask: int, mask_end: int, src0: int, src0_end: int,
               src1: int | None = None, src1_end: int = 0) -> tuple:
    """Select: dst and the library temp area written, the mask and the source(s) read (no
    src1 access with a scalar src1)."""
    code = _ids_get(id(code)) or code_id(code)
    head = (op, pipe, code, lasti, dtype, count, repeats, mode, scalar, 0, W, MEM_UB, dst,
            dst_end, W, MEM_UB, tmp, tmp_end, R, MEM_UB, mask, mask_end, R, MEM_UB, src0,
            src0_end)
    return head if src1 is None else head + (R, MEM_UB, src1, src1_end)


def copy_row(op: int, pipe: int, code: CodeType, lasti: int, dtype: int, count: int,
             blocks: int, block_len: int, src_pitch: int, dst_pitch: int, dst_flags: int,
             dst_mem: int, dst: int, dst_end: int, src_flags: int, src_mem: int, src: int,
             src_end: int) -> tuple:
    """A DataCopy, or a DataCopyPad UB->GM: three params, then the dst and src accesses."""
    code = _ids_get(id(code)) or code_id(code)
    return (op, pipe, code, lasti, dtype, count, blocks, 0, 0, 3, block_len, src_pitch,
            dst_pitch, dst_flags, dst_mem, dst, dst_end, src_flags, src_mem, src, src_end)


def pad_row(op: int, pipe: int, code: CodeType, lasti: int, dtype: int, count: int, blocks: int,
            block_len: int, src_pitch: int, dst_pitch: int, left: int, right: int, padded: int,
            is_pad: int, pad_bits: int, dst_flags: int, dst_mem: int, dst: int, dst_end: int,
            src_flags: int, src_mem: int, src: int, src_end: int) -> tuple:
    """A DataCopyPad GM->UB: eight params, then the dst and src accesses."""
    code = _ids_get(id(code)) or code_id(code)
    return (op, pipe, code, lasti, dtype, count, blocks, 0, 0, 8, block_len, src_pitch,
            dst_pitch, left, right, padded, is_pad, pad_bits, dst_flags, dst_mem, dst, dst_end,
            src_flags, src_mem, src, src_end)


def sync_row(op: int, pipe: int, code: CodeType, lasti: int, flag: int, implicit: int) -> tuple:
    """SetFlag / WaitFlag (MODE is the flag index) and PipeBarrier (MODE is the pipe)."""
    code = _ids_get(id(code)) or code_id(code)
    return (op, pipe, code, lasti, 0, 0, 0, flag, 0, 1, implicit)


def access_row(op: int, pipe: int, code: CodeType, lasti: int, dtype: int, count: int,
               mode: int, scalar: int, flags: int, mem: int, start: int, end: int) -> tuple:
    """A call with one memory operand and no params: queue calls, GetValue/SetValue."""
    code = _ids_get(id(code)) or code_id(code)
    return (op, pipe, code, lasti, dtype, count, 0, mode, scalar, 0, flags, mem, start, end)


# ---- field indices for numba work ---------------------------------------------------------------
# Work functions read rows inside numba, where the readers below cannot run; they index rows
# with module-level constants taken from these, so the layout is still only written here.

def param_fields(nparam: int) -> tuple[int, ...]:
    """Row indices of the params of a row with `nparam` params."""
    return tuple(range(HEADER, HEADER + nparam))


def access_fields(nparam: int, k: int) -> tuple[int, int, int, int]:
    """Row indices of access k's (flags, memory, start, end) in a row with `nparam` params."""
    i = HEADER + nparam + _ACCESS * k
    return i, i + 1, i + 2, i + 3


def start_fields(nparam: int, naccess: int) -> tuple[int, ...]:
    """Row indices of the start of each of `naccess` accesses (`nparam` params)."""
    return tuple(access_fields(nparam, k)[2] for k in range(naccess))


def repeat_fields(noperand: int) -> tuple[int, int, tuple[int, ...], tuple[int, ...],
                                          tuple[int, ...]]:
    """(mask_lo, mask_hi, block strides, repeat strides, access starts) of a vector repeat-form
    row of `noperand` operands."""
    nparam = 2 + 2 * noperand
    p = param_fields(nparam)
    return (p[0], p[1], p[2:2 + noperand], p[2 + noperand:], start_fields(nparam, noperand))


# ---- reading one row ---------------------------------------------------------------------------

def params_of(rec: tuple) -> tuple[int, ...]:
    return rec[HEADER:HEADER + rec[NPARAM]]


def accesses_of(rec: tuple) -> list[tuple[int, int, int, int]]:
    """[(flags, memory, start, end)] in operand order."""
    base = HEADER + rec[NPARAM]
    return [rec[i:i + _ACCESS] for i in range(base, len(rec), _ACCESS)]


def gm_memory(rec: tuple) -> int:
    """The memory id of the GM buffer the row touches (0: none; a call touches at most one)."""
    for i in range(HEADER + rec[NPARAM], len(rec), _ACCESS):
        if rec[i + 1] != MEM_UB:
            return rec[i + 1]
    return 0


def shifted_program_row(rec: tuple, shifts: list[int]) -> tuple[int, ...]:
    """`program_row(rec)` with access k's start and end moved down by shifts[k] (the row as it
    runs on memories extended below their first byte)."""
    out = list(program_row(rec))
    for k, i in enumerate(range(HEADER + rec[NPARAM], len(rec), _ACCESS)):
        out[i + 2] -= shifts[k]
        out[i + 3] -= shifts[k]
    return tuple(out)


def is_implicit(rec: tuple) -> bool:
    """A SetFlag/WaitFlag made by a TQue call (not written in the kernel)."""
    return bool(rec[NPARAM] and rec[HEADER])


def copy_geometry(rec: tuple) -> tuple[int, int, int, int, int, int, int, int]:
    """(blocks, block_len, src_pitch, dst_pitch, left, right, padded, is_pad) of a copy row;
    a copy without padding has left = right = 0 and padded = block_len."""
    p = params_of(rec)
    if len(p) >= 7:
        return rec[REPEATS], p[0], p[1], p[2], p[3], p[4], p[5], p[6]
    return rec[REPEATS], p[0], p[1], p[2], 0, 0, p[0], 0


def repeat_geometry(rec: tuple) -> tuple[int, int, tuple[int, ...], tuple[int, ...]]:
    """(mask_lo, mask_hi, block strides, repeat strides) of a vector repeat-form row: the
    last 2 + 2k params, k the row's STRIDED accesses (params before them are the form's own:
    Cast's source dtype)."""
    p = params_of(rec)
    k = sum(1 for a in accesses_of(rec) if a[0] & STRIDED)
    lead = len(p) - 2 - 2 * k
    if lead < 0:
        lead, k = 0, (len(p) - 2) // 2
    return p[lead], p[lead + 1], p[lead + 2:lead + 2 + k], p[lead + 2 + k:lead + 2 + 2 * k]


# ---- decoded view ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Access:
    write: bool
    mem: int        # 0 = UB, k >= 1 = GM buffer k
    start: int      # byte range [start, end)
    end: int
    strided: bool   # only parts of the range are touched
    role: str       # the operand's role in the instruction ("dst", "src0", "tmp", ...)
    pattern: AccessPattern

    @property
    def nbytes(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Record:
    """A row with names: what analysis code, tests and people read."""

    index: int
    instruction: Instruction
    pipe: int
    code: CodeType | None
    lasti: int
    dtype: DType | None
    count: int
    repeats: int
    mode: int
    scalar: int
    params: tuple[int, ...]
    accesses: tuple[Access, ...]

    @property
    def name(self) -> str:
        return self.instruction.name

    @property
    def pipe_name(self) -> str:
        return PIPE_NAMES[self.pipe]

    @property
    def reads(self) -> tuple[Access, ...]:
        return tuple(a for a in self.accesses if not a.write)

    @property
    def writes(self) -> tuple[Access, ...]:
        return tuple(a for a in self.accesses if a.write)

    @property
    def bytes(self) -> int:
        """Bytes moved by a copy (its write size), or bytes written by a vector op."""
        return sum(a.nbytes for a in self.accesses if a.write)

    @property
    def implicit(self) -> bool:
        return self.instruction.family == "sync" and bool(self.params and self.params[0])

    def position(self) -> tuple[str, str | None]:
        """("kernels_py/...:line", "kernels_cpp/...:line" | None)."""
        if self.code is None:
            return "<ascsim>", None
        from .source import describe_position
        return describe_position(self.code, self.lasti)


def decode(rec: tuple, index: int = -1) -> Record:
    ins = REGISTRY[rec[OP]]
    operands = ins.memory_operands
    accesses = tuple(
        Access(bool(f & W), mem, start, end, bool(f & STRIDED), operands[k].role,
               operands[k].pattern)
        for k, (f, mem, start, end) in enumerate(accesses_of(rec)))
    return Record(index, ins, rec[PIPE], code_of(rec), rec[LASTI],
                  BY_CODE.get(rec[DTYPE]), rec[COUNT], rec[REPEATS], rec[MODE], rec[SCALAR],
                  params_of(rec), accesses)


# ---- columns ----------------------------------------------------------------------------------

@njit(cache=True, nogil=True, error_model="numpy")
def _decode(flat: np.ndarray, off: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Columns' arrays in one pass over the packed rows: the header fields (HEADER x rows,
    a contiguous row per field), each row's first access (rows + 1 offsets) and the accesses'
    flags, memory, start, end, row and index among their row's (6 x accesses)."""
    m = off.size - 1
    head = np.empty((HEADER, m), np.int64)
    acc_off = np.empty(m + 1, np.int64)
    acc_off[0] = 0
    for i in range(m):
        base = off[i]
        for k in range(HEADER):
            head[k, i] = flat[base + k]
        acc_off[i + 1] = acc_off[i] + (off[i + 1] - base - HEADER - head[NPARAM, i]) // _ACCESS
    acc = np.empty((6, acc_off[m]), np.int64)
    for i in range(m):
        p = off[i] + HEADER + head[NPARAM, i]
        for k in range(acc_off[i + 1] - acc_off[i]):
            j = acc_off[i] + k
            for c in range(_ACCESS):
                acc[c, j] = flat[p + c]
            acc[4, j] = i
            acc[5, j] = k
            p += _ACCESS
    return head, acc_off, acc


class Columns:
    """One core's rows as numpy columns (each built on first use), read straight from the
    packed rows (`recordstore.RecordStore`; a list of rows is packed first): the header fields
    by their lower-case names, the params flattened (`param_off[i]:param_off[i + 1]` are row
    i's) and the accesses flattened (`acc_off[i]:acc_off[i + 1]`; `acc_flags`, `acc_mem`,
    `acc_start`, `acc_end`, and `acc_index`: the access's position among its row's)."""

    def __init__(self, rows: Sequence[tuple]) -> None:
        self.store = rows if isinstance(rows, RecordStore) else RecordStore.pack(rows)
        self.size = len(self.store)

    @cached_property
    def _decoded(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return _decode(self.store.flat, self.store.off)

    op = cached_property(lambda self: self._decoded[0][OP])
    pipe = cached_property(lambda self: self._decoded[0][PIPE])
    code = cached_property(lambda self: self._decoded[0][CODE])
    dtype = cached_property(lambda self: self._decoded[0][DTYPE])
    count = cached_property(lambda self: self._decoded[0][COUNT])
    repeats = cached_property(lambda self: self._decoded[0][REPEATS])
    mode = cached_property(lambda self: self._decoded[0][MODE])
    scalar = cached_property(lambda self: self._decoded[0][SCALAR])
    nparam = cached_property(lambda self: self._decoded[0][NPARAM])

    @cached_property
    def params(self) -> np.ndarray:
        row = np.repeat(np.arange(self.size, dtype=np.int64), self.nparam)
        index = np.arange(row.size, dtype=np.int64) - self.param_off[row]  # within its row
        return self.store.flat[self.store.off[row] + HEADER + index]

    @cached_property
    def param_off(self) -> np.ndarray:
        off = np.zeros(self.size + 1, np.int64)
        np.cumsum(self.nparam, out=off[1:])
        return off

    acc_off = cached_property(lambda self: self._decoded[1])
    acc_flags = cached_property(lambda self: self._decoded[2][0])
    acc_mem = cached_property(lambda self: self._decoded[2][1])
    acc_start = cached_property(lambda self: self._decoded[2][2])
    acc_end = cached_property(lambda self: self._decoded[2][3])
    # the row of each access, and its position among its row's (its memory operand index)
    acc_row = cached_property(lambda self: self._decoded[2][4])
    acc_index = cached_property(lambda self: self._decoded[2][5])

    def param(self, k: int, default: int = 0) -> np.ndarray:
        """Param k of every row (`default` where a row has fewer)."""
        out = np.full(self.size, default, np.int64)
        has = self.nparam > k
        out[has] = self.store.flat[self.store.off[:-1][has] + (HEADER + k)]
        return out

    def copy_geometry(self, index: np.ndarray) -> np.ndarray:
        """`copy_geometry` of the copy rows `index`, one row of its eight fields each."""
        start, nparam = self.store.off[index] + HEADER, self.nparam[index]
        flat = self.store.flat
        out = np.empty((index.size, 8), np.int64)
        out[:, 0] = self.repeats[index]
        out[:, 1:4] = flat[start[:, None] + np.arange(3)]
        out[:, 4:8] = 0  # no padding: left = right = 0, padded = block_len, not is_pad
        out[:, 6] = out[:, 1]
        padded = nparam >= 7
        out[padded, 4:8] = flat[start[padded, None] + np.arange(3, 7)]
        return out

    def copy_gm_start(self, index: np.ndarray) -> np.ndarray:
        """The GM-side start of the copy rows `index` (two accesses, dst then src, exactly one
        on GM)."""
        first = self.acc_off[index]
        on_gm = self.acc_mem[first] != MEM_UB
        return np.where(on_gm, self.acc_start[first], self.acc_start[first + 1])

    def instruction_table(self, facet: Any, dtype: Any = np.int64) -> np.ndarray:
        """`facet(instruction)` for every row, through a table over the registry."""
        table = np.array([facet(ins) for ins in REGISTRY], dtype=dtype)
        return table[self.op] if self.size else np.zeros(0, dtype)
