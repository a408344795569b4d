"""Data movement: `DataCopy` (GM->UB on MTE2, UB->GM on MTE3, UB->UB on V) and `DataCopyPad`.

DataCopy moves floor(count * sizeof(T) / 32) * 32 bytes: a tail that is not a whole 32-byte
block is silently not moved, as on hardware (the sanitizer reports it). The strided form takes
`DataCopyParams{blockCount, blockLen, srcStride, dstStride}` in 32-byte blocks.

DataCopyPad takes `DataCopyExtParams{blockCount, blockLen, srcStride, dstStride, rsv}` with
blockLen in bytes. GM->UB: srcStride is a byte gap on the GM side, dstStride a gap in 32-byte
blocks on the UB side; each block lands 32-byte aligned as [left pad][data][right pad][dummy up
to the next 32 bytes]. UB->GM mirrors the units (srcStride in blocks, dstStride in bytes) and
writes exactly blockLen bytes per block. Pad values come from `DataCopyPadExtParams` when
isPad is set; otherwise pad and dummy bytes are unspecified and read as the hardware profile's
dummy fill (0xFF by default: NaN in every float type).
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from ..core import MEM_UB, PIPE_MTE2, PIPE_MTE3, PIPE_V, CoreState, dummy_byte
from ..dtypes import DType
from ..errors import AlignmentError, OutOfRangeError, ParameterError
from ..memory import GlobalTensor, LocalTensor
from ..registry import STRIDED, W, register
from ..sync import run_on_pipe
from .common import BLOCK_BYTES, as_count
from .jitcall import entry_point

__all__ = ["DataCopy", "DataCopyPad", "DataCopyParams", "DataCopyExtParams",
           "DataCopyPadExtParams", "DataCopyPadParams"]

JIT = dict(cache=True, nogil=True, error_model="numpy")

MAX_BLOCK_COUNT = 4095
MAX_PAD_BLOCK_LEN = 2097151
MAX_BLOCK_LEN_BLOCKS = 65535
MAX_PAD_BYTES = 32


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
        super().__init__(blockCount, blockLen, srcStride, dstStride)
        self.rsv = int(rsv)


class DataCopyPadExtParams:
    """`DataCopyPadExtParams<T>{isPad, leftPadding, rightPadding, paddingValue}`, written
    `DataCopyPadExtParams[T](False, 0, 0, 0)`; paddings count elements of T."""

    __slots__ = ("dtype", "isPad", "leftPadding", "rightPadding", "paddingValue")

    def __class_getitem__(cls, dtype: DType):
        return lambda *a: cls(dtype, *a)

    def __init__(self, dtype: DType | None = None, isPad: bool = False, leftPadding: int = 0,
                 rightPadding: int = 0, paddingValue: object = 0) -> None:
        self.dtype = dtype
        self.isPad = bool(isPad)
        self.leftPadding = int(leftPadding)
        self.rightPadding = int(rightPadding)
        self.paddingValue = paddingValue

    def __repr__(self) -> str:
        return (f"DataCopyPadExtParams<{self.dtype}>({self.isPad}, {self.leftPadding}, "
                f"{self.rightPadding}, {self.paddingValue!r})")


DataCopyPadParams = DataCopyPadExtParams  # the older spelling takes the same fields

_NO_PAD = DataCopyPadExtParams()

COPY = register("DataCopy", None, "copy", "DataCopy",
                doc="contiguous or block-strided copy GM->UB (MTE2), UB->GM (MTE3), UB->UB (V)")
COPY_PAD = register("DataCopyPad", None, "copy", "DataCopyPad",
                    doc="copy with byte-granular blocks and padding, GM->UB (MTE2) or UB->GM "
                        "(MTE3)")


@njit(**JIT)
def copy_blocks(dst, doff, dpitch, src, soff, spitch, nbytes, count):
    """count blocks of nbytes; block k from src[soff + k*spitch] to dst[doff + k*dpitch]."""
    for k in range(count):
        d = dst[doff + k * dpitch:doff + k * dpitch + nbytes]
        s = src[soff + k * spitch:soff + k * spitch + nbytes]
        for i in range(nbytes):
            d[i] = s[i]


@njit(**JIT)
def _pad_fill(d, lo, hi, left, data_end, pad_end, pad_value, is_pad, dummy, first, s, esize):
    # bytes [lo, hi) of one block that are padding or dummy, not data
    for i in range(lo, hi):
        if is_pad and (i < left or data_end <= i < pad_end):
            d[i] = pad_value[i % esize]
        elif first:
            d[i] = s[i % esize]  # the documented "first element of the block" dummy
        else:
            d[i] = dummy


@njit(**JIT)
def copy_pad_in(ub, doff, dpitch, gm, soff, spitch, nbytes, count, left, right, padded,
                pad_value, is_pad, dummy, first_element, esize):
    """DataCopyPad GM->UB: per block [left pad][data][right pad][dummy to `padded` bytes]."""
    for k in range(count):
        base = doff + k * dpitch
        d = ub[base:base + padded]
        s = gm[soff + k * spitch:soff + k * spitch + nbytes]
        data = d[left:left + nbytes]
        for i in range(nbytes):
            data[i] = s[i]
        first = first_element and nbytes >= esize
        _pad_fill(d, 0, left, left, left + nbytes, left + nbytes + right, pad_value, is_pad,
                  dummy, first, s, esize)
        _pad_fill(d, left + nbytes, padded, left, left + nbytes, left + nbytes + right,
                  pad_value, is_pad, dummy, first, s, esize)


def _check_gm(name: str, g: GlobalTensor, start: int, end: int, write: bool) -> None:
    buf = g.buf
    if buf is None:
        raise ParameterError(f"{name}: GlobalTensor used before SetGlobalBuffer")
    if start < 0 or end > buf.nbytes:
        verb = "writes" if write else "reads"
        raise OutOfRangeError(
            f"{name} {verb} GM bytes [{start}, {end}) of buffer {buf.name!r}, which has "
            f"{buf.nbytes} bytes ({end - buf.nbytes} byte(s) past its end)",
            buffer=f"GM {buf.name}", byte_range=f"[{start}, {end})")


def _check_ub(name: str, t: LocalTensor, nbytes: int, role: str) -> None:
    if t.core is None:
        raise ParameterError(f"{name}: {role} LocalTensor is not allocated")
    if t.addr & 31:
        raise AlignmentError(f"{name}: {role} starts at UB address {t.addr}, which is not "
                             "32-byte aligned (every UB operand must be)", buffer=t.origin)
    if nbytes > t.size * t.dtype.size:
        raise OutOfRangeError(
            f"{name}: touches {nbytes} bytes of {role} but the tensor has "
            f"{t.size * t.dtype.size}", buffer=t.origin,
            byte_range=f"UB [{t.addr}, {t.addr + nbytes})")


def _direction(name: str, dst: object, src: object) -> int:
    if isinstance(dst, LocalTensor) and isinstance(src, GlobalTensor):
        return PIPE_MTE2
    if isinstance(dst, GlobalTensor) and isinstance(src, LocalTensor):
        return PIPE_MTE3
    if isinstance(dst, LocalTensor) and isinstance(src, LocalTensor) and name == "DataCopy":
        return PIPE_V
    raise ParameterError(f"{name}({type(dst).__name__}, {type(src).__name__}): no such copy "
                         "direction")


def _issue(core: CoreState, ins, pipe: int, f, dtype: DType, count: int, extra: object,
           write: tuple, read: tuple, work, args: tuple) -> None:
    core.records.append((ins.id, pipe, f.f_code, f.f_lasti, dtype.code, count, 0, extra,
                         *write, *read))
    _run(core, pipe, work, args)


def DataCopy(dst: LocalTensor | GlobalTensor, src: LocalTensor | GlobalTensor,
             countOrParams: int | DataCopyParams) -> None:
    """`DataCopy(dst, src, count)` or `DataCopy(dst, src, DataCopyParams)`."""
    f = sys._getframe(1)
    pipe = _direction("DataCopy", dst, src)
    dt = src.dtype
    if isinstance(countOrParams, DataCopyParams):
        p = countOrParams
        count, blen = p.blockCount, p.blockLen * BLOCK_BYTES
        spitch = blen + p.srcStride * BLOCK_BYTES
        dpitch = blen + p.dstStride * BLOCK_BYTES
        if not (0 <= count <= MAX_BLOCK_COUNT and 0 <= p.blockLen <= MAX_BLOCK_LEN_BLOCKS
                and 0 <= p.srcStride <= 65535 and 0 <= p.dstStride <= 65535):
            raise ParameterError(f"DataCopy: {p!r} out of range (blockCount 0..4095, blockLen "
                                 "and strides 0..65535 blocks)")
        strided = STRIDED if count > 1 and (p.srcStride or p.dstStride) else 0
        extra: object = p
    else:
        n = countOrParams if type(countOrParams) is int else as_count(countOrParams)
        if n < 0:
            raise ParameterError(f"DataCopy: count {n} is negative")
        # The hardware moves whole 32-byte blocks only: the tail is dropped.
        count, blen = 1, n * dt.size // BLOCK_BYTES * BLOCK_BYTES
        spitch = dpitch = blen
        strided, extra = 0, None
    span_s = (count - 1) * spitch + blen if count else 0
    span_d = (count - 1) * dpitch + blen if count else 0
    core = dst.core if pipe != PIPE_MTE3 else src.core
    if pipe == PIPE_MTE2:
        _check_ub("DataCopy", dst, span_d, "dst")
        s = src.byte_off
        _check_gm("DataCopy", src, s, s + span_s, write=False)
        write, read = (W | strided, MEM_UB, dst.addr, dst.addr + span_d), (
            strided, src.buf.mem_id, s, s + span_s)
        args = (core.ub, dst.addr, dpitch, src.buf.data, s, spitch, blen, count)
    elif pipe == PIPE_MTE3:
        _check_ub("DataCopy", src, span_s, "src")
        d = dst.byte_off
        _check_gm("DataCopy", dst, d, d + span_d, write=True)
        write, read = (W | strided, dst.buf.mem_id, d, d + span_d), (
            strided, MEM_UB, src.addr, src.addr + span_s)
        args = (dst.buf.data, d, dpitch, core.ub, src.addr, spitch, blen, count)
    else:
        _check_ub("DataCopy", dst, span_d, "dst")
        _check_ub("DataCopy", src, span_s, "src")
        write, read = (W | strided, MEM_UB, dst.addr, dst.addr + span_d), (
            strided, MEM_UB, src.addr, src.addr + span_s)
        args = (core.ub, dst.addr, dpitch, core.ub, src.addr, spitch, blen, count)
    _issue(core, COPY, pipe, f, dt, count * blen // dt.size, extra, write, read, copy_blocks,
           args)


def _pad_bytes(dt: DType, value: object) -> np.ndarray:
    return np.array([dt(value)], dtype=dt.numpy).view(np.uint8)


_NO_PAD_BYTES = np.zeros(8, dtype=np.uint8)
_ENTRY: dict[str, object] = {}


def _run(core: CoreState, pipe: int, kernel, args: tuple) -> None:
    ep = _ENTRY.get(kernel.__name__)
    if ep is None:
        ep = _ENTRY[kernel.__name__] = entry_point(kernel, ("datacopy", kernel.__name__), args, 0)
    if core.stalled:
        run_on_pipe(core, pipe, ep, args)
    else:
        ep(*args)


def DataCopyPad(dst: LocalTensor | GlobalTensor, src: LocalTensor | GlobalTensor,
                params: DataCopyParams, padParams: DataCopyPadExtParams | None = None) -> None:
    """`DataCopyPad(dstLocal, srcGlobal, DataCopyExtParams, DataCopyPadExtParams<T>)` (GM->UB)
    or `DataCopyPad(dstGlobal, srcLocal, DataCopyExtParams)` (UB->GM)."""
    f = sys._getframe(1)
    pipe = _direction("DataCopyPad", dst, src)
    dt = src.dtype
    count, blen = params.blockCount, params.blockLen
    if not (0 <= count <= MAX_BLOCK_COUNT and 0 <= blen <= MAX_PAD_BLOCK_LEN):
        raise ParameterError(f"DataCopyPad: {params!r}: blockCount must be in [0, 4095] and "
                             f"blockLen (bytes) in [0, {MAX_PAD_BLOCK_LEN}]")
    if blen % dt.size:
        raise ParameterError(f"DataCopyPad: blockLen {blen} bytes is not a multiple of "
                             f"sizeof({dt}) = {dt.size}")
    if params.srcStride < 0 or params.dstStride < 0:
        raise ParameterError(f"DataCopyPad: negative stride in {params!r}")
    strided = STRIDED if count > 1 else 0
    if pipe == PIPE_MTE2:
        pad = padParams or _NO_PAD
        left, right = pad.leftPadding * dt.size, pad.rightPadding * dt.size
        if left > MAX_PAD_BYTES or right > MAX_PAD_BYTES or left < 0 or right < 0:
            raise ParameterError(f"DataCopyPad: padding of {pad.leftPadding} / "
                                 f"{pad.rightPadding} elements exceeds 32 bytes")
        padded = (left + blen + right + 31) // 32 * 32
        spitch = blen + params.srcStride                  # GM side: byte gap
        dpitch = padded + params.dstStride * BLOCK_BYTES  # UB side: gap in blocks
        span_s = (count - 1) * spitch + blen if count else 0
        span_d = (count - 1) * dpitch + padded if count and blen else 0
        s = src.byte_off
        buf = src.buf
        if dst.addr & 31 or span_d > dst.size * dst.dtype.size or buf is None or \
                s + span_s > buf.nbytes:
            _check_ub("DataCopyPad", dst, span_d, "dst")
            _check_gm("DataCopyPad", src, s, s + span_s, write=False)
        core = dst.core
        d = dst.addr
        core.records.append((COPY_PAD.id, PIPE_MTE2, f.f_code, f.f_lasti, dt.code,
                             count * blen // dt.size, 0, (params, pad), W | strided, MEM_UB, d,
                             d + span_d, strided, buf.mem_id, s, s + span_s))
        pad_bytes = _pad_bytes(dt, pad.paddingValue) if pad.isPad else _NO_PAD_BYTES
        first = core.profile.dummy_fill == "first_element" and not (left or right)
        _run(core, PIPE_MTE2, copy_pad_in,
             (core.ub, d, dpitch, buf.data, s, spitch, blen, count if blen else 0, left, right,
              padded, pad_bytes, pad.isPad, dummy_byte(core.profile), first, dt.size))
        return
    if padParams is not None:
        raise ParameterError("DataCopyPad UB->GM takes no DataCopyPadExtParams")
    spitch = (blen + 31) // 32 * 32 + params.srcStride * BLOCK_BYTES  # UB side: blocks
    dpitch = blen + params.dstStride                                  # GM side: bytes
    span_s = (count - 1) * spitch + blen if count else 0
    span_d = (count - 1) * dpitch + blen if count else 0
    d = dst.byte_off
    buf = dst.buf
    if src.addr & 31 or span_s > src.size * src.dtype.size or buf is None or \
            d + span_d > buf.nbytes:
        _check_ub("DataCopyPad", src, span_s, "src")
        _check_gm("DataCopyPad", dst, d, d + span_d, write=True)
    core = src.core
    a = src.addr
    core.records.append((COPY_PAD.id, PIPE_MTE3, f.f_code, f.f_lasti, dt.code,
                         count * blen // dt.size, 0, params, W | strided, buf.mem_id, d,
                         d + span_d, strided, MEM_UB, a, a + span_s))
    _run(core, PIPE_MTE3, copy_blocks, (buf.data, d, dpitch, core.ub, a, spitch, blen, count))
