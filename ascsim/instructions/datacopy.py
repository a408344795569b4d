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
from functools import partial

import numpy as np
from numba import njit

from ..core import MEM_UB, PIPE_MTE2, PIPE_MTE3, PIPE_V, CoreState, dummy_byte
from ..dtypes import DType
from ..errors import AlignmentError, OutOfRangeError, ParameterError
from ..memory import GlobalTensor, LocalTensor
from ..registry import STRIDED, W, register
from ..sanitizer.online import abort, fault, note
from ..sync import run_on_pipe
from .common import BLOCK_BYTES, as_count, core_of
from .jitcall import entry_point

__all__ = ["DataCopy", "DataCopyPad", "DataCopyParams", "DataCopyExtParams",
           "DataCopyPadExtParams", "DataCopyPadParams"]


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
        # the base class's fields, set here directly: one struct per copy call, so it is hot
        self.blockCount = int(blockCount)
        self.blockLen = int(blockLen)
        self.srcStride = int(srcStride)
        self.dstStride = int(dstStride)
        self.rsv = int(rsv)


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
        self.isPad = bool(isPad)
        self.leftPadding = int(leftPadding)
        self.rightPadding = int(rightPadding)
        self.paddingValue = paddingValue

    def __repr__(self) -> str:
        return (f"DataCopyPadExtParams<{self.dtype}>({self.isPad}, {self.leftPadding}, "
                f"{self.rightPadding}, {self.paddingValue!r})")


_PAD_PARAMS: dict[DType, partial] = {}  # dtype -> DataCopyPadExtParams[dtype]

DataCopyPadParams = DataCopyPadExtParams  # the older spelling takes the same fields

_NO_PAD = DataCopyPadExtParams()

COPY = register("DataCopy", None, "copy", "DataCopy",
                doc="contiguous or block-strided copy GM->UB (MTE2), UB->GM (MTE3), UB->UB (V)")
COPY_PAD = register("DataCopyPad", None, "copy", "DataCopyPad",
                    doc="copy with byte-granular blocks and padding, GM->UB (MTE2) or UB->GM "
                        "(MTE3)")


@njit(cache=True, nogil=True, error_model="numpy")
def copy_blocks(dst, doff, dpitch, src, soff, spitch, nbytes, count):
    """count blocks of nbytes; block k from src[soff + k*spitch] to dst[doff + k*dpitch]."""
    for k in range(count):
        d = dst[doff + k * dpitch:doff + k * dpitch + nbytes]
        s = src[soff + k * spitch:soff + k * spitch + nbytes]
        for i in range(nbytes):
            d[i] = s[i]


@njit(cache=True, nogil=True, error_model="numpy")
def _pad_fill(d, lo, hi, left, data_end, pad_end, pad_value, is_pad, dummy, first, s, esize):
    # bytes [lo, hi) of one block that are padding or dummy, not data
    for i in range(lo, hi):
        if is_pad and (i < left or data_end <= i < pad_end):
            d[i] = pad_value[i % esize]
        elif first:
            d[i] = s[i % esize]  # the documented "first element of the block" dummy
        else:
            d[i] = dummy


@njit(cache=True, nogil=True, error_model="numpy")
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


def _windowed(ep, args: tuple, dst_win: tuple | None, src_win: tuple | None) -> None:
    """Run a copy kernel whose dst (args 0, 1) or src (args 3, 4) range [start, start + span)
    leaves its memory: the source is read through a copy with the missing bytes dummy, the
    destination written through a copy of which only the bytes inside go back."""
    args = list(args)
    if src_win is not None:
        data, start, span, dummy = src_win
        tmp = np.full(span, dummy, np.uint8)
        lo, hi = max(start, 0), min(start + span, data.size)
        if hi > lo:
            tmp[lo - start:hi - start] = data[lo:hi]
        args[3], args[4] = tmp, 0
    if dst_win is not None:
        data, start, span, dummy = dst_win
        out = np.full(span, dummy, np.uint8)
        lo, hi = max(start, 0), min(start + span, data.size)
        if hi > lo:
            out[lo - start:hi - start] = data[lo:hi]
        args[0], args[1] = out, 0
    ep(*args)
    if dst_win is not None and hi > lo:
        data[lo:hi] = out[lo - start:hi - start]


def _outside(data: np.ndarray, start: int, span: int) -> bool:
    return start < 0 or start + span > data.size


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


def _issue(core: CoreState, ins, pipe: int, f, dtype: DType, count: int, extra: object,
           write: tuple, read: tuple, work, args: tuple, windows: tuple = ()) -> None:
    core.records.append((ins.id, pipe, f.f_code, f.f_lasti, dtype.code, count, 0, extra,
                         *write, *read))
    if windows:
        run_on_pipe(core, pipe, _windowed, (_entry(work, args), args) + windows)
    else:
        _run(core, pipe, work, args)


def DataCopy(dst: LocalTensor | GlobalTensor, src: LocalTensor | GlobalTensor,
             countOrParams: int | DataCopyParams) -> None:
    """`DataCopy(dst, src, count)` or `DataCopy(dst, src, DataCopyParams)`."""
    f = sys._getframe(1)
    pipe = _direction("DataCopy", dst, src, f)
    if pipe < 0:
        return
    dt = src.dtype
    if isinstance(countOrParams, DataCopyParams):
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
        extra: object = p
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
        strided, extra = 0, None
    span_s = (count - 1) * spitch + blen if count else 0
    span_d = (count - 1) * dpitch + blen if count else 0
    core = dst.core if pipe != PIPE_MTE3 else src.core
    windows: tuple = ()
    if pipe == PIPE_MTE2:
        ok = _check_ub("DataCopy", dst, span_d, "dst", f, True)
        if not (_check_gm("DataCopy", src, src.byte_off, src.byte_off + span_s, False, f,
                          dst.core) and ok):
            windows = _windows(core, core.ub, dst.addr, span_d, src.buf.data, src.byte_off,
                               span_s)
        s = src.byte_off
        write, read = (W | strided, MEM_UB, dst.addr, dst.addr + span_d), (
            strided, src.buf.mem_id, s, s + span_s)
        args = (core.ub, dst.addr, dpitch, src.buf.data, s, spitch, blen, count)
    elif pipe == PIPE_MTE3:
        ok = _check_ub("DataCopy", src, span_s, "src", f)
        if not (_check_gm("DataCopy", dst, dst.byte_off, dst.byte_off + span_d, True, f,
                          src.core) and ok):
            windows = _windows(core, dst.buf.data, dst.byte_off, span_d, core.ub, src.addr,
                               span_s)
        d = dst.byte_off
        write, read = (W | strided, dst.buf.mem_id, d, d + span_d), (
            strided, MEM_UB, src.addr, src.addr + span_s)
        args = (dst.buf.data, d, dpitch, core.ub, src.addr, spitch, blen, count)
    else:
        ok = _check_ub("DataCopy", dst, span_d, "dst", f, True)
        if not (_check_ub("DataCopy", src, span_s, "src", f) and ok):
            windows = _windows(core, core.ub, dst.addr, span_d, core.ub, src.addr, span_s)
        write, read = (W | strided, MEM_UB, dst.addr, dst.addr + span_d), (
            strided, MEM_UB, src.addr, src.addr + span_s)
        args = (core.ub, dst.addr, dpitch, core.ub, src.addr, spitch, blen, count)
    _issue(core, COPY, pipe, f, dt, count * blen // dt.size, extra, write, read, copy_blocks,
           args, windows)


def _windows(core: CoreState, ddata: np.ndarray, d: int, dspan: int, sdata: np.ndarray,
             s: int, sspan: int) -> tuple:
    """The (dst, src) windows of a copy one of whose sides leaves its memory (else ())."""
    dummy = dummy_byte(core.profile)
    dwin = (ddata, d, dspan, dummy) if _outside(ddata, d, dspan) else None
    swin = (sdata, s, sspan, dummy) if _outside(sdata, s, sspan) else None
    return () if dwin is None and swin is None else (dwin, swin)


_NO_PAD_BYTES = np.zeros(8, dtype=np.uint8)
_ENTRY: dict[str, object] = {}


def _entry(kernel, args: tuple):
    ep = _ENTRY.get(kernel.__name__)
    if ep is None:
        ep = _ENTRY[kernel.__name__] = entry_point(kernel, ("datacopy", kernel.__name__), args, 0)
    return ep


def _run(core: CoreState, pipe: int, kernel, args: tuple) -> None:
    ep = _ENTRY.get(kernel.__name__) or _entry(kernel, args)
    if core.stalled:
        run_on_pipe(core, pipe, ep, args)
    else:
        ep(*args)


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
    strided = STRIDED if count > 1 else 0
    if pipe == PIPE_MTE2:
        pad = padParams or _NO_PAD
        left, right = pad.leftPadding * dt.size, pad.rightPadding * dt.size
        if left > MAX_PAD_BYTES or right > MAX_PAD_BYTES or left < 0 or right < 0:
            return fault(core, ParameterError(
                f"DataCopyPad: padding of {pad.leftPadding} / {pad.rightPadding} elements "
                "exceeds 32 bytes"), f, instruction="DataCopyPad")
        padded = (left + blen + right + 31) // 32 * 32
        spitch = blen + params.srcStride                  # GM side: byte gap
        dpitch = padded + params.dstStride * BLOCK_BYTES  # UB side: gap in blocks
        span_s = (count - 1) * spitch + blen if count else 0
        span_d = (count - 1) * dpitch + padded if count and blen else 0
        s = src.byte_off
        buf = src.buf
        windows: tuple = ()
        if dst.addr & 31 or span_d > dst.size * dst.dtype.size or buf is None or s < 0 or \
                s + span_s > buf.nbytes:
            ok = _check_ub("DataCopyPad", dst, span_d, "dst", f, True)
            if not _check_gm("DataCopyPad", src, s, s + span_s, False, f, core) or not ok:
                windows = _windows(core, core.ub, dst.addr, span_d, buf.data, s, span_s)
        core = dst.core
        d = dst.addr
        core.records.append((COPY_PAD.id, PIPE_MTE2, f.f_code, f.f_lasti, dt.code,
                             count * blen // dt.size, 0, (params, pad), W | strided, MEM_UB, d,
                             d + span_d, strided, buf.mem_id, s, s + span_s))
        pad_bytes = dt.encode(pad.paddingValue) if pad.isPad else _NO_PAD_BYTES
        first = core.profile.dummy_fill == "first_element" and not (left or right)
        args = (core.ub, d, dpitch, buf.data, s, spitch, blen, count if blen else 0, left, right,
                padded, pad_bytes, pad.isPad, core.dummy, first, dt.size)
        if windows:
            run_on_pipe(core, PIPE_MTE2, _windowed, (_entry(copy_pad_in, args), args) + windows)
        else:
            _run(core, PIPE_MTE2, copy_pad_in, args)
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
    windows = ()
    if src.addr & 31 or span_s > src.size * src.dtype.size or buf is None or d < 0 or \
            d + span_d > buf.nbytes:
        ok = _check_ub("DataCopyPad", src, span_s, "src", f)
        if not _check_gm("DataCopyPad", dst, d, d + span_d, True, f, core) or not ok:
            windows = _windows(core, buf.data, d, span_d, core.ub, src.addr, span_s)
    core = src.core
    a = src.addr
    core.records.append((COPY_PAD.id, PIPE_MTE3, f.f_code, f.f_lasti, dt.code,
                         count * blen // dt.size, 0, params, W | strided, buf.mem_id, d,
                         d + span_d, strided, MEM_UB, a, a + span_s))
    args = (buf.data, d, dpitch, core.ub, a, spitch, blen, count)
    if windows:
        run_on_pipe(core, PIPE_MTE3, _windowed, (_entry(copy_blocks, args), args) + windows)
    else:
        _run(core, PIPE_MTE3, copy_blocks, args)
