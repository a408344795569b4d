"""Data movement: `DataCopy` (GM->UB on MTE2, UB->GM on MTE3, UB->UB on V) and `DataCopyPad`.

DataCopy moves floor(count * sizeof(T) / 32) * 32 bytes: a tail that is not a whole 32-byte
block is silently not moved, as on hardware (the sanitizer reports it). The strided form takes
`DataCopyParams{blockCount, blockLen, srcStride, dstStride}` in 32-byte blocks.

DataCopyPad takes `DataCopyExtParams{blockCount, blockLen, srcStride, dstStride, rsv}` with
blockLen in bytes. GM->UB: srcStride is a byte gap on the GM side, dstStride a gap in 32-byte
blocks on the UB side; each block lands 32-byte aligned as [left pad][data][right pad][dummy up
to the next 32 bytes]. UB->GM mirrors the units (srcStride in blocks, dstStride in bytes) and
writes exactly blockLen bytes per block.

Pad values (ascendc_more.md §5 and §6(b)). The left/right pad bytes come from MOV_PAD_VAL, one
per-core register (`core.pad_reg`): `SetPadValue<T>(v)` (PIPE_S) writes it, and so does every
DataCopyPad GM->UB with isPad=true (with paddingValue's bits: `DataCopyPadExtParams<T>` converts
the value to T, the legacy `DataCopyPadParams` takes raw uint64 bits). With isPad=false the pads
use whatever the register holds; TPipe does not reset it; its value at kernel start is UNKNOWN,
the profile's `pad_reg_init` (default 0). A block's pad pattern is the register's low sizeof(T)
bytes (64-bit types copy as b32: the low 4 bytes, so their paddingValue must be 0). The dummy
bytes up to the next 32 bytes hold the pad value too when left or right padding is non-zero
[DOC]; without padding it is UNKNOWN on A2 (the doc says the block's first element, the 950
example the pad value), so the profile's `dummy_fill` decides: "pad_if_isPad_else_first_elem"
(default: the pad value with isPad, else the first element), "first_element", or "nan"/"zero"
(the unspecified byte 0xFF/0x00, which fresh AllocTensor buffers read as in every mode). The
register is read when the copy is issued (its record holds the bits).
The legacy `DataCopyPad(dst, src, DataCopyParams, DataCopyPadParams)` takes blockLen in bytes
too (its fields are uint16).
"""

from __future__ import annotations

import sys
from functools import partial

import numpy as np
from numba import literally, njit

from .. import records as rec
from ..convert import (
    CAST_RINT,
    bf16_bits_to_f32,
    f16_bits_to_f32,
    f32_to_bf16_bits,
    f32_to_f16_rne,
)
from ..core import (
    MEM_UB,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_S,
    PIPE_V,
    CoreState,
    append_gm_writer,
    current_core,
    dummy_byte,
    first_element_dummy,
)
from ..dtypes import ALL_DTYPES, BY_CODE, DType, bfloat16_t, half, int16_t, int32_t
from ..dtypes import float as _f32
from ..errors import AlignmentError, OutOfRangeError, ParameterError
from ..faults import abort, fault, note
from ..memory import GlobalTensor, LocalTensor
from ..pipe import QuePosition
from ..records import (
    DTYPE,
    MODE,
    PIPE,
    REPEATS,
    STRIDED,
    W,
    param_fields,
    signed64,
    start_fields,
)
from ..registry import (
    AccessPattern,
    Cost,
    CostKind,
    CppDecl,
    Dataflow,
    Operand,
    PipeRule,
    Signature,
    Work,
    register,
)
from ..replay import run_clipped
from ..sync import defer_row, run_on_pipe
from ..workcall import NO_GM, compile_loop
from .common import BLOCK_BYTES, as_count, core_of

__all__ = ["DataCopy", "DataCopyPad", "DataCopyParams", "DataCopyExtParams",
           "DataCopyPadExtParams", "DataCopyPadParams", "SetPadValue"]
KERNEL_SURFACE = tuple(__all__)


MAX_BLOCK_COUNT = 4095
MAX_PAD_BLOCK_LEN = 2097151
MAX_BLOCK_LEN_BLOCKS = 65535
MAX_PAD_BYTES = 32
MAX_UINT16 = 65535
_U64 = (1 << 64) - 1


class DataCopyParams:
    """`DataCopyParams{blockCount, blockLen, srcStride, dstStride}`: for DataCopy all in 32-byte
    blocks (blockLen and the gaps between blocks); for DataCopyPad blockLen is in bytes."""

    __slots__ = ("blockCount", "blockLen", "srcStride", "dstStride")

    def __init__(self, blockCount: int = 1, blockLen: int = 0, srcStride: int = 0,
                 dstStride: int = 0) -> None:
        self.blockCount = int(blockCount)
        self.blockLen = int(blockLen)
        self.srcStride = int(srcStride)
        self.dstStride = int(dstStride)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.blockCount}, {self.blockLen}, {self.srcStride}, "
                f"{self.dstStride})")


class DataCopyExtParams(DataCopyParams):
    """`DataCopyExtParams{blockCount, blockLen (bytes), srcStride, dstStride, rsv}`."""

    __slots__ = ("rsv",)

    def __init__(self, blockCount: int = 1, blockLen: int = 0, srcStride: int = 0,
                 dstStride: int = 0, rsv: int = 0) -> None:
        # the base class's fields, set here directly: one struct per copy call, so it is hot
        # (and an int needs no int() call)
        self.blockCount = blockCount if type(blockCount) is int else int(blockCount)
        self.blockLen = blockLen if type(blockLen) is int else int(blockLen)
        self.srcStride = srcStride if type(srcStride) is int else int(srcStride)
        self.dstStride = dstStride if type(dstStride) is int else int(dstStride)
        self.rsv = rsv if type(rsv) is int else int(rsv)


class DataCopyPadExtParams:
    """`DataCopyPadExtParams<T>{isPad, leftPadding, rightPadding, paddingValue}`, written
    `DataCopyPadExtParams[T](False, 0, 0, 0)`; paddings count elements of T."""

    __slots__ = ("dtype", "isPad", "leftPadding", "rightPadding", "paddingValue")

    def __class_getitem__(cls, dtype: DType):
        maker = _PAD_PARAMS.get(dtype)
        if maker is None:
            maker = _PAD_PARAMS[dtype] = partial(cls, dtype)
        return maker

    def __init__(self, dtype: DType | None = None, isPad: bool = False, leftPadding: int = 0,
                 rightPadding: int = 0, paddingValue: object = 0) -> None:
        self.dtype = dtype
        self.isPad = isPad if type(isPad) is bool else bool(isPad)
        self.leftPadding = leftPadding if type(leftPadding) is int else int(leftPadding)
        self.rightPadding = rightPadding if type(rightPadding) is int else int(rightPadding)
        self.paddingValue = paddingValue

    def __repr__(self) -> str:
        return (f"DataCopyPadExtParams<{self.dtype}>({self.isPad}, {self.leftPadding}, "
                f"{self.rightPadding}, {self.paddingValue!r})")


_PAD_PARAMS: dict[DType, partial] = {}  # dtype -> DataCopyPadExtParams[dtype]

class DataCopyPadParams:
    """The legacy `DataCopyPadParams{isPad, leftPadding, rightPadding, paddingValue}` (no
    template): paddingValue is a raw uint64 that goes into MOV_PAD_VAL unconverted (its low
    sizeof(T) bytes are T's bits, ascendc_more.md §6(b))."""

    __slots__ = ("isPad", "leftPadding", "rightPadding", "paddingValue")

    def __init__(self, isPad: bool = False, leftPadding: int = 0, rightPadding: int = 0,
                 paddingValue: int = 0) -> None:
        self.isPad = bool(isPad)
        self.leftPadding = int(leftPadding)
        self.rightPadding = int(rightPadding)
        self.paddingValue = int(paddingValue) & _U64

    def __repr__(self) -> str:
        return (f"DataCopyPadParams({self.isPad}, {self.leftPadding}, {self.rightPadding}, "
                f"{self.paddingValue:#x})")


_NO_PAD = DataCopyPadExtParams()

@njit(cache=True, nogil=True, error_model="numpy")
def copy_blocks(dst, doff, dpitch, src, soff, spitch, nbytes, count):
    """count blocks of nbytes; block k from src[soff + k*spitch] to dst[doff + k*dpitch]."""
    for k in range(count):
        d = dst[doff + k * dpitch:doff + k * dpitch + nbytes]
        s = src[soff + k * spitch:soff + k * spitch + nbytes]
        for i in range(nbytes):
            d[i] = s[i]


_SIZES = tuple(max((t.size for t in ALL_DTYPES if t.code == c), default=1)
               for c in range(max(t.code for t in ALL_DTYPES) + 1))


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _pad_fill(d, lo, hi, pad_end, pad_bits, reg_dummy, dummy, first, s, w):
    # bytes [lo, hi) of one block that are padding or dummy, not data: the pads (below
    # pad_end) and a dummy next to a pad hold the register's pattern, other dummy bytes the
    # first element or the dummy byte
    for i in range(lo, hi):
        if i < pad_end or reg_dummy:
            d[i] = (pad_bits >> (8 * (i % w))) & 0xFF
        elif first:
            d[i] = s[i % w]  # the documented "first element of the block" dummy
        else:
            d[i] = dummy


@njit(cache=True, nogil=True, error_model="numpy")
def copy_pad_loop(dummy, first_element, ub, doff, dpitch, gm, soff, spitch, nbytes, count,
                  left, right, padded, is_pad, pad_bits, esize):
    """DataCopyPad GM->UB: per block [left pad][data][right pad][dummy to `padded` bytes];
    pad_bits is MOV_PAD_VAL, first_element the profile's dummy mode (first_element_dummy)."""
    literally(dummy)
    literally(first_element)
    w = min(esize, 4)  # 64-bit types copy as b32
    reg_dummy = left != 0 or right != 0 or (first_element == 2 and is_pad)
    first = not reg_dummy and first_element != 0 and nbytes >= w
    for k in range(count if nbytes else 0):
        base = doff + k * dpitch
        d = ub[base:base + padded]
        s = gm[soff + k * spitch:soff + k * spitch + nbytes]
        data = d[left:left + nbytes]
        for i in range(nbytes):
            data[i] = s[i]
        _pad_fill(d, 0, left, left, pad_bits, reg_dummy, dummy, first, s, w)
        _pad_fill(d, left + nbytes, padded, left + nbytes + right, pad_bits, reg_dummy, dummy,
                  first, s, w)


# Work on rows (records.py): params (block_len, src_pitch, dst_pitch), then the dst and src
# accesses; DataCopyPad GM->UB adds (left, right, padded, is_pad, pad_bits) to the params.
_P = param_fields(1)[0]                         # the params, in records.py's copy layouts
_D3, _S3 = start_fields(3, 2)                   # dst and src starts after three params
_D8, _S8 = start_fields(8, 2)                   # ... after eight


@njit(cache=True, nogil=True, error_model="numpy")
def copy_gm_to_ub(_a, _b, _c, ub, gm, row):
    copy_blocks(ub, row[_D3], row[_P + 2], gm, row[_S3], row[_P + 1], row[_P], row[REPEATS])


@njit(cache=True, nogil=True, error_model="numpy")
def copy_ub_to_gm(_a, _b, _c, ub, gm, row):
    copy_blocks(gm, row[_D3], row[_P + 2], ub, row[_S3], row[_P + 1], row[_P], row[REPEATS])


@njit(cache=True, nogil=True, error_model="numpy")
def copy_ub_to_ub(_a, _b, _c, ub, gm, row):
    copy_blocks(ub, row[_D3], row[_P + 2], ub, row[_S3], row[_P + 1], row[_P], row[REPEATS])


# ---- UB->GM under the atomic mode register (crosscore.py sets it) ------------------------------
# GM[i] = GM[i] op data[i] computed in T: ints wrap (two's complement; saturation is not
# documented), floats are computed in float32 and rounded once to T with RNE (exact for half
# and bf16: float32 has more than 2p+2 bits, so the double rounding is innocuous); a NaN
# operand propagates (GM's first, quietened); max/min order -0 below +0.
_ATOMIC_ADD, _ATOMIC_MAX = 1, 2
_F32_CODE, _F16_CODE, _BF16_CODE = _f32.code, half.code, bfloat16_t.code
_I32_CODE, _I16_CODE = int32_t.code, int16_t.code


@njit(cache=True, nogil=True, error_model="numpy")
def _atomic_float(op, a, b):
    if op == _ATOMIC_ADD:
        return a + b
    if op == _ATOMIC_MAX:
        return a if a > b else b
    return a if a < b else b


@njit(cache=True, nogil=True, error_model="numpy")
def _atomic_f32(op, d, s):
    du = d.view(np.uint32)
    su = s.view(np.uint32)
    df = d.view(np.float32)
    sf = s.view(np.float32)
    for i in range(du.size):
        a, b = df[i], sf[i]
        if a != a:
            du[i] = du[i] | np.uint32(0x400000)
        elif b != b:
            du[i] = su[i] | np.uint32(0x400000)
        elif a == b and a == 0 and op != _ATOMIC_ADD:
            du[i] = (du[i] & su[i]) if op == _ATOMIC_MAX else (du[i] | su[i])
        else:
            df[i] = _atomic_float(op, a, b)


@njit(cache=True, nogil=True, error_model="numpy")
def _atomic_16(op, d, s, is_bf16):
    du = d.view(np.uint16)
    su = s.view(np.uint16)
    quiet = np.uint16(0x40) if is_bf16 else np.uint16(0x200)
    for i in range(du.size):
        if is_bf16:
            a = bf16_bits_to_f32(du[i])
            b = bf16_bits_to_f32(su[i])
        else:
            a = f16_bits_to_f32(du[i])
            b = f16_bits_to_f32(su[i])
        if a != a:
            du[i] = du[i] | quiet
        elif b != b:
            du[i] = su[i] | quiet
        elif a == b and a == 0 and op != _ATOMIC_ADD:
            du[i] = (du[i] & su[i]) if op == _ATOMIC_MAX else (du[i] | su[i])
        else:
            r = _atomic_float(op, a, b)
            du[i] = f32_to_bf16_bits(r, CAST_RINT, False) if is_bf16 else f32_to_f16_rne(r)


@njit(cache=True, nogil=True, error_model="numpy")
def _atomic_int(op, d, s):
    for i in range(d.size):
        a, b = d[i], s[i]
        if op == _ATOMIC_ADD:
            d[i] = a + b
        elif op == _ATOMIC_MAX:
            d[i] = a if a > b else b
        else:
            d[i] = a if a < b else b


@njit(cache=True, nogil=True, error_model="numpy")
def atomic_blocks(op, code, dst, doff, dpitch, src, soff, spitch, nbytes, count):
    """count blocks of nbytes from src (UB) into dst (GM), GM = GM op data in dtype `code`."""
    for k in range(count):
        d = dst[doff + k * dpitch:doff + k * dpitch + nbytes]
        s = src[soff + k * spitch:soff + k * spitch + nbytes]
        if code == _F32_CODE:
            _atomic_f32(op, d, s)
        elif code == _F16_CODE or code == _BF16_CODE:
            _atomic_16(op, d, s, code == _BF16_CODE)
        elif code == _I32_CODE:
            _atomic_int(op, d.view(np.int32), s.view(np.int32))
        elif code == _I16_CODE:
            _atomic_int(op, d.view(np.int16), s.view(np.int16))
        else:
            _atomic_int(op, d.view(np.int8), s.view(np.int8))


@njit(cache=True, nogil=True, error_model="numpy")
def copy_ub_to_gm_atomic(_a, _b, _c, ub, gm, row):
    atomic_blocks(row[MODE], row[DTYPE], gm, row[_D3], row[_P + 2], ub, row[_S3], row[_P + 1],
                  row[_P], row[REPEATS])


@njit(cache=True, nogil=True, error_model="numpy")
def copy_pad_gm_to_ub(dummy, first_element, _c, ub, gm, row):
    copy_pad_loop(dummy, first_element, ub, row[_D8], row[_P + 2], gm, row[_S8], row[_P + 1],
                  row[_P], row[REPEATS], row[_P + 3], row[_P + 4], row[_P + 5], row[_P + 6] != 0,
                  row[_P + 7], _SIZES[row[DTYPE]])


_FORM = {PIPE_MTE2: "gm_to_ub", PIPE_MTE3: "ub_to_gm", PIPE_V: "ub_to_ub"}


def _bind_copy(row: tuple, profile: object) -> tuple[str, tuple[int, int, int]]:
    if row[PIPE] == PIPE_MTE3 and row[MODE]:
        return "ub_to_gm_atomic", (0, 0, 0)
    return _FORM[row[PIPE]], (0, 0, 0)


def _bind_pad(row: tuple, profile: object) -> tuple[str, tuple[int, int, int]]:
    """GM->UB fills pads and dummy bytes as the profile says; UB->GM is a plain block copy."""
    if row[PIPE] == PIPE_MTE2:
        return "gm_to_ub", (dummy_byte(profile), first_element_dummy(profile), 0)
    return ("ub_to_gm_atomic" if row[MODE] else "ub_to_gm"), (0, 0, 0)


_COPY = AccessPattern.COPY_BLOCKS
_ANY = tuple(Signature((t, t)) for t in ALL_DTYPES)
COPY = register(
    "DataCopy", family="copy", pipe=PipeRule.COPY_DIRECTION,
    operands=(Operand("dst", _COPY, True), Operand("src", _COPY)),
    dataflow=Dataflow.COPY, cost=Cost(CostKind.COPY, "DataCopy"), signatures=_ANY,
    work=Work({"gm_to_ub": copy_gm_to_ub, "ub_to_gm": copy_ub_to_gm,
               "ub_to_ub": copy_ub_to_ub, "ub_to_gm_atomic": copy_ub_to_gm_atomic},
              bind=_bind_copy),
    cpp=tuple(CppDecl(f"template <typename T>\n__aicore__ void DataCopy({d}, {s}, {last});")
              for last in ("const uint32_t count", "const DataCopyParams &repeatParams")
              for d, s in (("const LocalTensor<T> &dst", "const GlobalTensor<T> &src"),
                           ("const GlobalTensor<T> &dst", "const LocalTensor<T> &src"),
                           ("const LocalTensor<T> &dst", "const LocalTensor<T> &src"))),
    doc="contiguous or block-strided copy GM->UB (MTE2), UB->GM (MTE3), UB->UB (V)")
COPY_PAD = register(
    "DataCopyPad", family="copy", pipe=PipeRule.COPY_DIRECTION,
    operands=(Operand("dst", _COPY, True), Operand("src", _COPY)),
    dataflow=Dataflow.COPY, cost=Cost(CostKind.COPY, "DataCopyPad"), signatures=_ANY,
    work=Work({"gm_to_ub": copy_pad_gm_to_ub, "ub_to_gm": copy_ub_to_gm,
               "ub_to_gm_atomic": copy_ub_to_gm_atomic}, bind=_bind_pad),
    cpp=(CppDecl("template <typename T>\n__aicore__ void DataCopyPad(const LocalTensor<T> &dst, "
                 "const GlobalTensor<T> &src, const DataCopyExtParams &dataCopyParams, "
                 "const DataCopyPadExtParams<T> &padParams);"),
         CppDecl("template <typename T>\n__aicore__ void DataCopyPad(const GlobalTensor<T> &dst, "
                 "const LocalTensor<T> &src, const DataCopyExtParams &dataCopyParams);"),
         CppDecl("template <typename T>\n__aicore__ void DataCopyPad(const LocalTensor<T> &dst, "
                 "const GlobalTensor<T> &src, const DataCopyParams &dataCopyParams, "
                 "const DataCopyPadParams &padParams);"),
         CppDecl("template <typename T>\n__aicore__ void DataCopyPad(const GlobalTensor<T> &dst, "
                 "const LocalTensor<T> &src, const DataCopyParams &dataCopyParams);")),
    doc="copy with byte-granular blocks and padding, GM->UB (MTE2) or UB->GM (MTE3)")


def _check_gm(name: str, g: GlobalTensor, start: int, end: int, write: bool, f=None,
              core: CoreState | None = None) -> bool:
    """Whether [start, end) lies inside g's buffer (check mode reports it when not; the copy
    then runs clipped to the buffer)."""
    buf = g.buf
    if buf is None:
        abort(core, ParameterError(f"{name}: GlobalTensor used before SetGlobalBuffer"), f)
    if start < 0 or end > buf.nbytes:
        verb = "writes" if write else "reads"
        past = (f"{end - buf.nbytes} byte(s) past its end" if end > buf.nbytes
                else f"{-start} byte(s) before its start")
        fault(core, OutOfRangeError(
            f"{name} {verb} GM bytes [{start}, {end}) of buffer {buf.name!r}, which has "
            f"{buf.nbytes} bytes ({past})",
            buffer=f"GM {buf.name}", byte_range=f"[{start}, {end})"), f, instruction=name,
            memory=f"GM {buf.name}", start=max(start, buf.nbytes if start >= 0 else start),
            end=end if end > buf.nbytes else min(end, 0), write=write)
        return False
    return True


def _check_ub(name: str, t: LocalTensor, nbytes: int, role: str, f=None, write: bool = False
              ) -> bool:
    """Whether the UB operand is fine (check mode reports it when not; a copy past the UB end
    then runs clipped to the UB)."""
    if t.core is None:
        abort(None, ParameterError(f"{name}: {role} LocalTensor is not allocated"), f)
    ok = True
    if t.addr & 31:
        fault(t.core, AlignmentError(f"{name}: {role} starts at UB address {t.addr}, which is "
                                     "not 32-byte aligned (every UB operand must be)",
                                     buffer=t.origin), f, instruction=name)
        ok = False
    if nbytes > t.size * t.dtype.size:
        fault(t.core, OutOfRangeError(
            f"{name}: touches {nbytes} bytes of {role} but the tensor has "
            f"{t.size * t.dtype.size}", buffer=t.origin,
            byte_range=f"UB [{t.addr}, {t.addr + nbytes})"), f, instruction=name,
            start=t.addr + t.size * t.dtype.size, end=t.addr + nbytes, write=write)
        ok = False
    return ok


def _outside(size: int, start: int, span: int) -> bool:
    return start < 0 or start + span > size


_GM_TO_UB, _UB_TO_GM = (LocalTensor, GlobalTensor), (GlobalTensor, LocalTensor)


def _direction(name: str, dst: object, src: object, f) -> int:
    if isinstance(dst, LocalTensor) and isinstance(src, GlobalTensor):
        return PIPE_MTE2
    if isinstance(dst, GlobalTensor) and isinstance(src, LocalTensor):
        return PIPE_MTE3
    if isinstance(dst, LocalTensor) and isinstance(src, LocalTensor) and name == "DataCopy":
        return PIPE_V
    fault(core_of(dst, src), ParameterError(f"{name}({type(dst).__name__}, "
                                            f"{type(src).__name__}): no such copy direction"),
          f, instruction=name)
    return -1


def _execute(core: CoreState, ins, pipe: int, gm: np.ndarray, row: tuple, clipped: bool, ep,
             args: tuple) -> None:
    """Append a copy's row and run it on `pipe`: the compiled loop `ep` on `args`, or the row
    work through `run_clipped` when some of its bytes lie outside their memory; in the fast
    mode, deferred (batch.py)."""
    append_gm_writer(core, row)
    if core.batch is not None and not clipped and _defer(core, ins, pipe, row):
        return
    if clipped:
        form, literals = ins.work.bind(row, core.profile)
        work = ins.work.entry(form, literals, len(row))
        run_on_pipe(core, pipe, run_clipped, (work, literals, core.ub, gm, row, core.dummy))
    elif core.stalled:
        run_on_pipe(core, pipe, ep, args)
    else:
        ep(*args)


def _defer(core: CoreState, ins, pipe: int, row: tuple) -> bool:
    """A copy row into the core's batch, with the GM buffer it touches (a copy row has two
    accesses, dst then src; the UB's memory id is 0, so their sum is the GM buffer's id); False
    when its kind runs eagerly (`defer_row`). The copies' `Work.bind` reads only PIPE, MODE and
    the profile's dummy fill (core.dummy, core.first_element_dummy): the header's key."""
    k = rec.HEADER + row[rec.NPARAM]
    return defer_row(core, pipe, ins, row, row[k + 1] + row[k + 5],
                     key=(pipe, row[MODE], len(row), core.dummy, core.first_element_dummy))


def _defer_appended(core: CoreState, ins, pipe: int, row: tuple) -> bool:
    """`_defer`, then append the row, for a copy that may write GM; False, with nothing
    appended, when its kind runs eagerly. In check mode, the launch snapshot's hook
    (append_gm_writer) sees the row first: once deferred, the row may run at any moment (a
    full batch is handed to the worker at once). The hook may defer its own copy of the
    buffer to the batch, ahead of the row (`deferred=True`): whatever runs the row later runs
    the batch first. Only a UB->GM copy (MTE3) writes GM: the hook is not called for the
    others."""
    if pipe == PIPE_MTE3 and core.gm_watch is not None:
        core.gm_watch(row, deferred=True)
    if _defer(core, ins, pipe, row):
        core.records.append(row)
        return True
    return False


_COPY_EP: list = []                 # the compiled copy_blocks (one signature serves all)
_PAD_EP: dict[tuple, object] = {}   # (dummy, first_element) -> the compiled copy_pad_loop


def _copy_entry(args: tuple):
    if not _COPY_EP:
        _COPY_EP.append(compile_loop(copy_blocks, args, 0))
    return _COPY_EP[0]


_ATOMIC_EP: list = []  # the compiled atomic_blocks


def _atomic_store(core: CoreState, ins, gm: np.ndarray, row: tuple, clipped: bool,
                  args: tuple, f) -> None:
    """A UB->GM copy while the core's atomic mode is on (crosscore.py): the row carries the
    operation in MODE; the data type must be the atomic T (profile option
    `atomic_type_mismatch = "error"`)."""
    op, t = core.xcore.atomic
    dt = BY_CODE[row[DTYPE]]
    if dt is not t:
        fault(core, ParameterError(
            f"{ins.name}: the atomic mode is SetAtomic{('', 'Add', 'Max', 'Min')[op]}<{t}> but "
            f"the copy moves {dt} (the hardware behaviour of a mismatch is not public; profile "
            "option atomic_type_mismatch = 'error')"), f, instruction=ins.name)
        _execute(core, ins, PIPE_MTE3, gm, row, clipped,
                 _COPY_EP[0] if _COPY_EP else _copy_entry(args), args)
        return
    sched = core.xcore.sched
    if sched is not None:
        sched.atomic_turn(core)  # float sums accumulate in the launch's core order
    row = rec.row(row[rec.OP], row[PIPE], row[rec.CODE], row[rec.LASTI], row[DTYPE],
                  row[rec.COUNT], row[REPEATS], op, 0, rec.params_of(row),
                  tuple(v for acc in rec.accesses_of(row) for v in acc))
    append_gm_writer(core, row)
    if clipped or core.stalled:
        work = ins.work.entry("ub_to_gm_atomic", (0, 0, 0), len(row))
        run_on_pipe(core, PIPE_MTE3, run_clipped, (work, (0, 0, 0), core.ub, gm, row,
                                                   core.dummy))
        return
    # batches run in capture order: the atomic order is kept
    if core.batch is not None and _defer(core, ins, PIPE_MTE3, row):
        return
    aargs = (op, dt.code) + args
    if not _ATOMIC_EP:
        _ATOMIC_EP.append(compile_loop(atomic_blocks, aargs, 0))
    _ATOMIC_EP[0](*aargs)


def DataCopy(dst: LocalTensor | GlobalTensor, src: LocalTensor | GlobalTensor,
             countOrParams: int | DataCopyParams) -> None:
    """`DataCopy(dst, src, count)` or `DataCopy(dst, src, DataCopyParams)`."""
    f = sys._getframe(1)
    # A kernel makes this call per tile and operand: the plain tensor types and a count are
    # tested first, and the operand checks run only when a plain test fails (they then report
    # exactly what _check_ub / _check_gm report).
    tdst, tsrc = type(dst), type(src)
    if tdst is LocalTensor and tsrc is GlobalTensor:
        pipe = PIPE_MTE2
    elif tdst is GlobalTensor and tsrc is LocalTensor:
        pipe = PIPE_MTE3
    else:
        pipe = _direction("DataCopy", dst, src, f)
        if pipe < 0:
            return
    dt = src.dtype
    if type(countOrParams) is not int and isinstance(countOrParams, DataCopyParams):
        p = countOrParams
        count, blen = p.blockCount, p.blockLen * BLOCK_BYTES
        spitch = blen + p.srcStride * BLOCK_BYTES
        dpitch = blen + p.dstStride * BLOCK_BYTES
        if not (0 <= count <= MAX_BLOCK_COUNT and 0 <= p.blockLen <= MAX_BLOCK_LEN_BLOCKS
                and 0 <= p.srcStride <= 65535 and 0 <= p.dstStride <= 65535):
            return fault(core_of(dst, src), ParameterError(
                f"DataCopy: {p!r} out of range (blockCount 0..4095, blockLen and strides "
                "0..65535 blocks)"), f, instruction="DataCopy")
        strided = STRIDED if count > 1 and (p.srcStride or p.dstStride) else 0
    else:
        n = countOrParams if type(countOrParams) is int else as_count(countOrParams)
        if n < 0:
            return fault(core_of(dst, src), ParameterError(f"DataCopy: count {n} is negative"),
                         f, instruction="DataCopy")
        # The hardware moves whole 32-byte blocks only: the tail is dropped.
        count, blen = 1, n * dt.size // BLOCK_BYTES * BLOCK_BYTES
        if blen != n * dt.size:
            note(core_of(dst, src), ParameterError(
                f"DataCopy of {n} x sizeof({dt}) = {n * dt.size} bytes is not a multiple of "
                f"32 bytes: the hardware moves {blen} bytes and silently drops the last "
                f"{n * dt.size - blen} (use DataCopyPad for a partial block)"), f,
                instruction="DataCopy", check="DataCopy length not a multiple of 32 bytes")
        spitch = dpitch = blen
        strided = 0
    span_s = (count - 1) * spitch + blen if count else 0
    span_d = (count - 1) * dpitch + blen if count else 0
    core = dst.core if pipe != PIPE_MTE3 else src.core
    ub_size = core.ub.size
    clipped = False
    if pipe == PIPE_MTE2:
        buf, s = src.buf, src.byte_off
        if (dst.addr & 31 or span_d > dst.size * dst.dtype.size or buf is None or s < 0
                or s + span_s > buf.nbytes):
            ok = _check_ub("DataCopy", dst, span_d, "dst", f, True)
            if not (_check_gm("DataCopy", src, s, s + span_s, False, f, dst.core) and ok):
                clipped = (_outside(ub_size, dst.addr, span_d)
                           or _outside(buf.nbytes, s, span_s))
        gm, dmem, d, smem = buf.data, MEM_UB, dst.addr, buf.mem_id
    elif pipe == PIPE_MTE3:
        buf, d = dst.buf, dst.byte_off
        if (src.addr & 31 or span_s > src.size * src.dtype.size or buf is None or d < 0
                or d + span_d > buf.nbytes):
            ok = _check_ub("DataCopy", src, span_s, "src", f)
            if not (_check_gm("DataCopy", dst, d, d + span_d, True, f, src.core) and ok):
                clipped = (_outside(buf.nbytes, d, span_d)
                           or _outside(ub_size, src.addr, span_s))
        gm, dmem, smem, s = buf.data, buf.mem_id, MEM_UB, src.addr
    else:
        ok = _check_ub("DataCopy", dst, span_d, "dst", f, True)
        if not (_check_ub("DataCopy", src, span_s, "src", f) and ok):
            clipped = _outside(ub_size, dst.addr, span_d) or _outside(ub_size, src.addr, span_s)
        gm, dmem, d, smem, s = NO_GM, MEM_UB, dst.addr, MEM_UB, src.addr
    row = rec.copy_row(COPY.id, pipe, f.f_code, f.f_lasti, dt.code,
                       count * blen // dt.size, count, blen, spitch, dpitch, W | strided, dmem,
                       d, d + span_d, strided, smem, s, s + span_s)
    atomic = pipe == PIPE_MTE3 and core.xcore is not None and core.xcore.atomic is not None
    if core.batch is not None and not clipped and not atomic and \
            _defer_appended(core, COPY, pipe, row):  # deferred (batch.py)
        return  # else _execute or _atomic_store appends the row
    if pipe == PIPE_MTE2:
        args = (core.ub, d, dpitch, gm, s, spitch, blen, count)
    elif pipe == PIPE_MTE3:
        args = (gm, d, dpitch, core.ub, s, spitch, blen, count)
    else:
        args = (core.ub, d, dpitch, core.ub, s, spitch, blen, count)
    if atomic:
        return _atomic_store(core, COPY, gm, row, clipped, args, f)
    _execute(core, COPY, pipe, gm, row, clipped,
             _COPY_EP[0] if _COPY_EP else _copy_entry(args), args)


def DataCopyPad(dst: LocalTensor | GlobalTensor, src: LocalTensor | GlobalTensor,
                params: DataCopyParams, padParams: DataCopyPadExtParams | None = None) -> None:
    """`DataCopyPad(dstLocal, srcGlobal, DataCopyExtParams, DataCopyPadExtParams<T>)` (GM->UB)
    or `DataCopyPad(dstGlobal, srcLocal, DataCopyExtParams)` (UB->GM)."""
    f = sys._getframe(1)
    kinds = (type(dst), type(src))
    if kinds == _GM_TO_UB:
        pipe, core = PIPE_MTE2, dst.core or core_of(src)
    elif kinds == _UB_TO_GM:
        pipe, core = PIPE_MTE3, src.core or core_of(dst)
    else:
        pipe = _direction("DataCopyPad", dst, src, f)
        if pipe < 0:
            return
        core = core_of(dst, src)
    dt = src.dtype
    count, blen = params.blockCount, params.blockLen
    if not (0 <= count <= MAX_BLOCK_COUNT and 0 <= blen <= MAX_PAD_BLOCK_LEN):
        return fault(core, ParameterError(
            f"DataCopyPad: {params!r}: blockCount must be in [0, 4095] and blockLen (bytes) in "
            f"[0, {MAX_PAD_BLOCK_LEN}]"), f, instruction="DataCopyPad")
    if blen % dt.size:
        return fault(core, ParameterError(f"DataCopyPad: blockLen {blen} bytes is not a multiple "
                                          f"of sizeof({dt}) = {dt.size}"), f,
                     instruction="DataCopyPad")
    if params.srcStride < 0 or params.dstStride < 0:
        return fault(core, ParameterError(f"DataCopyPad: negative stride in {params!r}"), f,
                     instruction="DataCopyPad")
    if type(params) is DataCopyParams and max(blen, params.srcStride,
                                             params.dstStride) > MAX_UINT16:
        return fault(core, ParameterError(
            f"DataCopyPad: {params!r}: the legacy DataCopyParams fields are uint16 (blockLen "
            "in bytes, strides at most 65535)"), f, instruction="DataCopyPad")
    strided = STRIDED if count > 1 else 0
    if pipe == PIPE_MTE2:
        pad = padParams or _NO_PAD
        left, right = pad.leftPadding * dt.size, pad.rightPadding * dt.size
        if left > MAX_PAD_BYTES or right > MAX_PAD_BYTES or left < 0 or right < 0:
            return fault(core, ParameterError(
                f"DataCopyPad: padding of {pad.leftPadding} / {pad.rightPadding} elements "
                "exceeds 32 bytes"), f, instruction="DataCopyPad")
        if getattr(pad, "dtype", None) not in (None, dt):
            return fault(core, ParameterError(
                f"DataCopyPad: DataCopyPadExtParams<{pad.dtype}> with tensors of {dt}"), f,
                instruction="DataCopyPad")
        if pad.isPad:
            if type(pad) is DataCopyPadParams:
                bits = pad.paddingValue               # raw bits, unconverted
            else:
                bits = dt.scalar_bits(pad.paddingValue) & ((1 << 8 * dt.size) - 1)
            if dt.size == 8 and bits:
                return fault(core, ParameterError(
                    f"DataCopyPad: paddingValue must be 0 for {dt} (64-bit types are copied "
                    "as 32-bit ones)"), f, instruction="DataCopyPad")
        padded = (left + blen + right + 31) // 32 * 32
        spitch = blen + params.srcStride                  # GM side: byte gap
        dpitch = padded + params.dstStride * BLOCK_BYTES  # UB side: gap in blocks
        span_s = (count - 1) * spitch + blen if count else 0
        span_d = (count - 1) * dpitch + padded if count and blen else 0
        s = src.byte_off
        buf = src.buf
        clipped = False
        if dst.addr & 31 or span_d > dst.size * dst.dtype.size or buf is None or s < 0 or \
                s + span_s > buf.nbytes:
            ok = _check_ub("DataCopyPad", dst, span_d, "dst", f, True)
            if not _check_gm("DataCopyPad", src, s, s + span_s, False, f, core) or not ok:
                clipped = (_outside(core.ub.size, dst.addr, span_d)
                           or _outside(buf.nbytes, s, span_s))
        core = dst.core
        d = dst.addr
        if pad.isPad:
            core.pad_reg = bits  # MOV_PAD_VAL, as SetPadValue writes it
        pad_bits = core.pad_reg  # the row holds int64: only 64-bit patterns need the wrap
        if pad_bits >> 63:
            pad_bits = signed64(pad_bits)
        row = rec.pad_row(COPY_PAD.id, PIPE_MTE2, f.f_code, f.f_lasti, dt.code,
                          count * blen // dt.size, count, blen, spitch, dpitch, left, right,
                          padded, int(pad.isPad), pad_bits, W | strided, MEM_UB, d, d + span_d,
                          strided, buf.mem_id, s, s + span_s)
        if core.batch is not None and not clipped and _defer(core, COPY_PAD, PIPE_MTE2, row):
            core.records.append(row)  # else _execute appends it (GM -> UB)
            return
        first = core.first_element_dummy
        args = (core.dummy, first, core.ub, d, dpitch, buf.data, s, spitch, blen, count,
                left, right, padded, pad.isPad, pad_bits, dt.size)
        ep = _PAD_EP.get((core.dummy, first))
        if ep is None:
            ep = _PAD_EP[(core.dummy, first)] = compile_loop(copy_pad_loop, args, 2)
        _execute(core, COPY_PAD, PIPE_MTE2, buf.data, row, clipped, ep, args)
        return
    if padParams is not None:
        return fault(core, ParameterError("DataCopyPad UB->GM takes no DataCopyPadExtParams"), f,
                     instruction="DataCopyPad")
    spitch = (blen + 31) // 32 * 32 + params.srcStride * BLOCK_BYTES  # UB side: blocks
    dpitch = blen + params.dstStride                                  # GM side: bytes
    span_s = (count - 1) * spitch + blen if count else 0
    span_d = (count - 1) * dpitch + blen if count else 0
    d = dst.byte_off
    buf = dst.buf
    clipped = False
    if src.addr & 31 or span_s > src.size * src.dtype.size or buf is None or d < 0 or \
            d + span_d > buf.nbytes:
        ok = _check_ub("DataCopyPad", src, span_s, "src", f)
        if not _check_gm("DataCopyPad", dst, d, d + span_d, True, f, core) or not ok:
            clipped = _outside(buf.nbytes, d, span_d) or _outside(core.ub.size, src.addr, span_s)
    core = src.core
    a = src.addr
    row = rec.copy_row(COPY_PAD.id, PIPE_MTE3, f.f_code, f.f_lasti, dt.code,
                       count * blen // dt.size, count, blen, spitch, dpitch, W | strided,
                       buf.mem_id, d, d + span_d, strided, MEM_UB, a, a + span_s)
    atomic = core.xcore is not None and core.xcore.atomic is not None
    if core.batch is not None and not clipped and not atomic and \
            _defer_appended(core, COPY_PAD, PIPE_MTE3, row):
        return  # else _execute or _atomic_store appends the row
    args = (buf.data, d, dpitch, core.ub, a, spitch, blen, count)
    if atomic:
        return _atomic_store(core, COPY_PAD, buf.data, row, clipped, args, f)
    _execute(core, COPY_PAD, PIPE_MTE3, buf.data, row, clipped,
             _COPY_EP[0] if _COPY_EP else _copy_entry(args), args)


# ---- SetPadValue --------------------------------------------------------------------------

PAD_VALUE = register(
    "SetPadValue", family="scalar", pipe=PIPE_S,
    operands=(Operand("paddingValue", AccessPattern.NONE),),
    dataflow=Dataflow.STATE, cost=Cost(CostKind.SCALAR),
    signatures=tuple(Signature((t,)) for t in ALL_DTYPES), work=None,
    cpp=(CppDecl("template <typename T, TPosition pos = TPosition::MAX>\n"
                 "__aicore__ void SetPadValue(T paddingValue);"),),
    doc="write MOV_PAD_VAL, the pad value DataCopyPad GM->UB uses without isPad")


def _set_pad_value(dtype: DType, position: int, paddingValue: object) -> None:
    f = sys._getframe(1)
    core = current_core()
    bits = dtype.scalar_bits(paddingValue)
    core.records.append(rec.row(PAD_VALUE.id, PIPE_S, f.f_code, f.f_lasti, dtype.code, 0, 0,
                                position, bits, (), ()))
    core.pad_reg = bits & ((1 << 8 * dtype.size) - 1)


class _SetPadValue(dict):
    """`SetPadValue[T](v)` or `SetPadValue[T, pos](v)`: one bound call per template argument
    list (the position does not change what A2 does; it is recorded as MODE)."""

    def __missing__(self, key: object):
        dtype, position = key if isinstance(key, tuple) else (key, QuePosition.MAX)
        if not isinstance(dtype, DType):
            raise ParameterError(f"SetPadValue[T] or SetPadValue[T, pos] takes a dtype, got "
                                 f"{dtype!r}")
        call = self[key] = partial(_set_pad_value, dtype, int(QuePosition(position)))
        return call


SetPadValue = _SetPadValue()
