"""Compare and select: `Compare`, `CompareScalar` (alias `Compares`) and `Select`.

Compare writes one bit per element, element i to byte i // 8, bit i % 8 (least significant bit
first). The count form needs count * sizeof(T) to be a multiple of 256 bytes: A2 runs
floor(count * sizeof(T) / 256) full repeats and silently skips the rest, and so does ascsim
(the sanitizer reports the skipped tail). NaN compares false except under NE (IEEE).

Select takes element i from src0 when its mask bit is 1, else from src1 (or the scalar).
VSEL_CMPMASK_SPR reuses the first 256 / sizeof(T) mask bits for every repeat;
VSEL_TENSOR_SCALAR_MODE and VSEL_TENSOR_TENSOR_MODE consume the bits continuously. On A2 the
library first writes into its temp area at TMP_UB_OFFSET (mode 1: the scalar splatted over 32
elements; modes 0 and 2: 32 bytes), which ascsim models and records as a write.
"""

from __future__ import annotations

import sys
from enum import IntEnum

import numpy as np
from numba import literally, njit, types
from numba.extending import overload

from ..convert import f16_bits_to_f32
from ..core import MEM_UB, PIPE_V
from ..dtypes import float, half, int32_t
from ..errors import ParameterError
from ..memory import LocalTensor
from ..registry import W, register
from ..sanitizer.online import fault, note
from ..sync import run_on_pipe
from .common import (
    K_F16,
    K_NATIVE,
    REPEAT_BYTES,
    as_count,
    check_overlap,
    core_of,
    kind_of,
    operand_error,
    recover_count,
    run_snapshotted,
    scalar_as_float64,
)
from .jitcall import entry_point

__all__ = ["Compare", "CompareScalar", "Compares", "Select", "CMPMODE", "SELMODE",
           "SELECT_TMP_ACCESS"]

# Select's record lists the library's own temp write second (after dst): not a user access
SELECT_TMP_ACCESS = 1

JIT = dict(cache=True, nogil=True, error_model="numpy")


class CMPMODE(IntEnum):
    """AscendC `CMPMODE`: src0 OP src1 (or the scalar)."""

    LT = 0
    GT = 1
    EQ = 2
    LE = 3
    GE = 4
    NE = 5


class SELMODE(IntEnum):
    VSEL_CMPMASK_SPR = 0
    VSEL_TENSOR_SCALAR_MODE = 1
    VSEL_TENSOR_TENSOR_MODE = 2


def _cmp(mode, x, y):  # stubs given meaning by the overloads below
    pass


def _load(kind, x):
    pass


@overload(_cmp, jit_options=JIT)
def _ov_cmp(mode, x, y):
    if isinstance(mode, types.IntegerLiteral):
        m = mode.literal_value
        if m == CMPMODE.LT:
            return lambda mode, x, y: x < y
        if m == CMPMODE.GT:
            return lambda mode, x, y: x > y
        if m == CMPMODE.EQ:
            return lambda mode, x, y: x == y
        if m == CMPMODE.LE:
            return lambda mode, x, y: x <= y
        if m == CMPMODE.GE:
            return lambda mode, x, y: x >= y
        return lambda mode, x, y: x != y


@overload(_load, jit_options=JIT)
def _ov_load(kind, x):
    if isinstance(kind, types.IntegerLiteral):
        if kind.literal_value == K_F16:
            return lambda kind, x: f16_bits_to_f32(x)
        return lambda kind, x: x


@njit(cache=True, nogil=True, error_model="numpy")
def _pack_bits(bits, dst, doff, n):
    # element i -> byte i // 8, bit i % 8 (least significant bit first)
    d = dst[doff:doff + n // 8]
    for k in range(n // 8):
        v = np.uint8(0)
        for j in range(8):
            v |= bits[8 * k + j] << j
        d[k] = v


@njit(cache=True, nogil=True, error_model="numpy")
def compare_count(mode, kind, use_scalar, dst, doff, a, aoff, b, boff, scalar, n):
    """Pack n (a multiple of 8) comparisons into n / 8 bytes of dst."""
    literally(mode)
    literally(kind)
    literally(use_scalar)
    x = a[aoff:aoff + n]
    y = b[boff:boff + n]
    bits = np.empty(n, np.uint8)
    if use_scalar:
        c = np.int64(scalar) if kind == K_NATIVE else np.float32(scalar)
        for i in range(n):
            bits[i] = _cmp(mode, _load(kind, x[i]), c)
    else:
        for i in range(n):
            bits[i] = _cmp(mode, _load(kind, x[i]), _load(kind, y[i]))
    _pack_bits(bits, dst, doff, n)


@njit(cache=True, nogil=True, error_model="numpy")
def _unpack_bits(mask, moff, n, per_repeat, reuse_first):
    """One byte per element: its mask bit (the first per_repeat bits again and again when
    reuse_first, as VSEL_CMPMASK_SPR does)."""
    bits = np.empty(n, np.bool_)
    width = per_repeat if reuse_first else n
    m = mask[moff:moff + (width + 7) // 8]
    for k in range(width >> 3):
        mk = m[k]
        for j in range(8):
            bits[8 * k + j] = (mk >> j) & 1
    for i in range((width >> 3) << 3, width):
        bits[i] = (m[i >> 3] >> (i & 7)) & 1
    if reuse_first:
        for i in range(width, n):
            bits[i] = bits[i % width]
    return bits


@njit(cache=True, nogil=True, error_model="numpy")
def select_count(mode, dst, doff, mask, moff, a, aoff, b, boff, scalar_bits, per_repeat, n,
                 tmp, dummy):
    """Element-wise select on storage bits (no arithmetic, so one loop serves every dtype),
    after the library's hidden write to its temp area at byte `tmp` of the UB (`mask` is the
    whole UB as bytes, `dst` the whole UB in the element type): mode 1 splats the scalar over 32
    elements, modes 0 and 2 write 32 bytes (their contents are unknown: the dummy fill)."""
    literally(mode)
    if mode == 1:
        t = tmp // (mask.size // dst.size)
        for i in range(32):
            dst[t + i] = scalar_bits
    else:
        for i in range(32):
            mask[tmp + i] = dummy
    if n == 0:
        return
    bits = _unpack_bits(mask, moff, n, min(per_repeat, n), mode == 0)
    d = dst[doff:doff + n]
    x = a[aoff:aoff + n]
    if mode == 1:
        for i in range(n):
            d[i] = x[i] if bits[i] else scalar_bits
    else:
        y = b[boff:boff + n]
        for i in range(n):
            d[i] = x[i] if bits[i] else y[i]


CMP_DTYPES = (half, float, int32_t)
_COMPARE = register("Compare", PIPE_V, "vector", "Compare", CMP_DTYPES,
                    doc="element-wise comparison of two tensors into a bit mask")
_COMPARES = register("CompareScalar", PIPE_V, "vector", "CompareScalar", CMP_DTYPES,
                     doc="element-wise comparison with a scalar into a bit mask")
SELECT_DTYPES = (half, float)
_SELECT = register("Select", PIPE_V, "vector", "Select", SELECT_DTYPES,
                   doc="per-element choice between two sources by a bit mask")
_entries: dict[tuple, object] = {}


def _compare(name: str, ins, dst: LocalTensor, src0: LocalTensor, other, cmpMode, count,
             f) -> None:
    if type(count) is not int:
        count = as_count(count)
    dt = src0.dtype
    use_scalar = not isinstance(other, LocalTensor)
    mode = cmpMode if type(cmpMode) is CMPMODE else CMPMODE(int(cmpMode))
    if dt not in CMP_DTYPES or (not use_scalar and other.dtype is not dt):
        return fault(core_of(dst, src0), ParameterError(
            f"{name}: sources must be half, float or int32_t (one dtype), got {dt}"
            + ("" if use_scalar else f" and {other.dtype}")), f, instruction=name)
    if dt is int32_t and mode != CMPMODE.EQ:
        return fault(core_of(dst, src0), ParameterError(
            f"{name}: int32_t supports only CMPMODE.EQ on A2/A3, got {mode.name}"), f,
            instruction=name)
    # Only whole 256-byte repeats are computed; the rest of count is silently skipped.
    n = count * dt.size // REPEAT_BYTES * (REPEAT_BYTES // dt.size)
    sn, mb = count * dt.size, n // 8
    d, a = dst.addr, src0.addr
    if ((d | a) & 31 or count < 0 or mb > dst.size * dst.dtype.size or sn > src0.size * dt.size
            or not use_scalar and (other.addr & 31 or sn > other.size * dt.size)):
        operands = [("dst", dst, mb), ("src0", src0, sn)] + (
            [] if use_scalar else [("src1", other, sn)])
        for role, t, need in operands:
            if t.addr & 31 or count < 0 or need > t.size * t.dtype.size:
                err = operand_error(name, count, ((role, t),), need // count if count else None)
                count = recover_count(core_of(dst, src0), err, f, count,
                                      ((d, dt.size, 8), (a, dt.size, 1)) + (
                                          () if use_scalar else ((other.addr, dt.size, 1),)),
                                      name)
                if count is None:
                    return
                break
        n = count * dt.size // REPEAT_BYTES * (REPEAT_BYTES // dt.size)
        sn, mb = count * dt.size, n // 8
    core = dst.core
    if n != count and core.sanitizer is not None:
        note(core, ParameterError(
            f"{name}: count {count} x sizeof({dt}) = {sn} bytes is not a multiple of 256: only "
            f"{n} element(s) (whole repeats) are compared, the last {count - n} are silently "
            "skipped and their mask bits not written"), f, instruction=name, memory="UB",
            start=d + mb, end=d + (count + 7) // 8, write=True,
            check="Compare count not whole repeats")
    if use_scalar:
        core.records.append((ins.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                             n * dt.size // REPEAT_BYTES, mode, W, MEM_UB, d, d + mb, 0, MEM_UB,
                             a, a + n * dt.size))
        b = a
    else:
        b = other.addr
        core.records.append((ins.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                             n * dt.size // REPEAT_BYTES, mode, W, MEM_UB, d, d + mb, 0, MEM_UB,
                             a, a + n * dt.size, 0, MEM_UB, b, b + n * dt.size))
    if not n:
        return
    view = core.views[dt.code]
    sh = dt.size.bit_length() - 1
    args = (int(mode), kind_of(dt), use_scalar, core.ub, d, view, a >> sh, view, b >> sh,
            scalar_as_float64(dt, other) if use_scalar else np.float64(0), n)
    key = (mode, dt.code, use_scalar)
    ep = _entries.get(key)
    if ep is None:
        ep = _entries[key] = entry_point(compare_count, ("cmp",) + key, args, 3)
    run_on_pipe(core, PIPE_V, ep, args)


def Compare(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, cmpMode: CMPMODE,
            count: int) -> None:
    """`Compare(dstMask, src0, src1, cmpMode, count)`."""
    _compare("Compare", _COMPARE, dst, src0, src1, cmpMode, count, sys._getframe(1))


def CompareScalar(dst: LocalTensor, src0: LocalTensor, scalar: object, cmpMode: CMPMODE,
                  count: int) -> None:
    """`CompareScalar(dstMask, src0, scalar, cmpMode, count)` (also spelled `Compares`)."""
    _compare("CompareScalar", _COMPARES, dst, src0, scalar, cmpMode, count, sys._getframe(1))


Compares = CompareScalar


def Select(dst: LocalTensor, selMask: LocalTensor, src0: LocalTensor, src1: object,
           selMode: SELMODE, count: int) -> None:
    """`Select(dst, selMask, src0, src1 | scalar, selMode, count)`."""
    f = sys._getframe(1)
    if type(count) is not int:
        count = as_count(count)
    dt = dst.dtype
    mode = selMode if type(selMode) is SELMODE else SELMODE(int(selMode))
    scalar_mode = mode == SELMODE.VSEL_TENSOR_SCALAR_MODE
    if scalar_mode == isinstance(src1, LocalTensor):
        return fault(core_of(dst, src0), ParameterError(
            f"Select: {mode.name} takes " + ("a scalar src1" if scalar_mode
                                             else "a tensor src1")), f, instruction="Select")
    if dt not in SELECT_DTYPES or src0.dtype is not dt or (
            not scalar_mode and src1.dtype is not dt):
        return fault(core_of(dst, src0), ParameterError(
            f"Select: dst and sources must share half or float, got {dt}, {src0.dtype}"
            + ("" if scalar_mode else f", {src1.dtype}")), f, instruction="Select")
    per_repeat = REPEAT_BYTES // dt.size
    nb = count * dt.size
    mask_bytes = per_repeat // 8 if mode == SELMODE.VSEL_CMPMASK_SPR else (count + 7) // 8
    d, m, a = dst.addr, selMask.addr, src0.addr
    if ((d | m | a) & 31 or count < 0 or nb > dst.size * dt.size or nb > src0.size * dt.size
            or mask_bytes > selMask.size * selMask.dtype.size
            or not scalar_mode and (src1.addr & 31 or nb > src1.size * dt.size)):
        operands = [("dst", dst, nb), ("selMask", selMask, mask_bytes), ("src0", src0, nb)]
        if not scalar_mode:
            operands.append(("src1", src1, nb))
        for role, t, need in operands:
            if t.addr & 31 or count < 0 or need > t.size * t.dtype.size:
                err = operand_error("Select", count, ((role, t),),
                                    need // count if count else None)
                count = recover_count(core_of(dst, src0), err, f, count,
                                      ((d, dt.size, 1), (m, 1, 8), (a, dt.size, 1)) + (
                                          () if scalar_mode else ((src1.addr, dt.size, 1),)),
                                      "Select")
                if count is None:
                    return
                break
        nb = count * dt.size
        mask_bytes = per_repeat // 8 if mode == SELMODE.VSEL_CMPMASK_SPR else (count + 7) // 8
    core = dst.core
    tmp = core.tmp_ub
    tmp_bytes = 32 * dt.size if scalar_mode else 32
    if scalar_mode:
        b = a
        core.records.append((_SELECT.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                             (nb + 255) >> 8, mode, W, MEM_UB, d, d + nb, W, MEM_UB, tmp,
                             tmp + tmp_bytes, 0, MEM_UB, m, m + mask_bytes, 0, MEM_UB, a, a + nb))
        bits = dt.bits(src1)
    else:
        b = src1.addr
        core.records.append((_SELECT.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                             (nb + 255) >> 8, mode, W, MEM_UB, d, d + nb, W, MEM_UB, tmp,
                             tmp + tmp_bytes, 0, MEM_UB, m, m + mask_bytes, 0, MEM_UB, a, a + nb,
                             0, MEM_UB, b, b + nb))
        bits = dt.storage.type(0)
    view = core.views[dt.code]
    sh = dt.size.bit_length() - 1
    ao, bo, snaps = a >> sh, b >> sh, ()
    if a != d and a < d + nb and d < a + nb:  # sources partially overlapping dst are read as
        ao, snaps = 0, ((5, a),)              # snapshots, as by the other vector instructions
        check_overlap(core, f, "Select", (nb + 255) >> 8, d, 256, 256, d + nb, a, 256, 256,
                      a + nb, "src0")
    if b != d and b < d + nb and d < b + nb and not scalar_mode:
        bo, snaps = 0, snaps + ((7, b),)
        check_overlap(core, f, "Select", (nb + 255) >> 8, d, 256, 256, d + nb, b, 256, 256,
                      b + nb, "src1")
    args = (int(mode), view, d >> sh, core.ub, m, view, ao, view, bo, bits,
            per_repeat, count, tmp, core.dummy)
    key = (mode, dt.code)
    ep = _entries.get(key)
    if ep is None:
        ep = _entries[key] = entry_point(select_count, ("sel",) + key, args, 1)
    if snaps:
        run_on_pipe(core, PIPE_V, run_snapshotted, (core, ep, args, snaps, nb, dt))
    else:
        run_on_pipe(core, PIPE_V, ep, args)
