"""Element-wise vector instructions: unary (`Exp`, `Abs`, ...), tensor-scalar (`Adds`, `Muls`,
...), binary (`Add`, `Div`, `And`, ...) and `Duplicate`, in both call forms.

Each instruction is one `Op` line in the tables below: its AscendC name, its element function
(a numba function on the compute type) and the dtypes A2/A3 accept. The numba loop kernels are
shared: they pick the element function from the table by index, so the compiled code stays in
this one file (numba's disk cache tracks only the file a function is defined in).

Numerics: fp32 in IEEE float32. half is widened exactly to fp32, computed, and rounded back to
nearest-even: for +, -, *, / and sqrt that equals a correctly rounded fp16 operation (fp32 has
more than 2*11+2 bits). `Exp` and `Ln` evaluate in float64 and round once to float32 (correctly
rounded but for rare double-rounding cases); hardware may differ by a few ULP (its algorithm
is unpublished). `Reciprocal` is IEEE 1/x here; the hardware one is documented as a
low-precision approximation. `Max`/`Min` return NaN when either input is NaN. Integer
arithmetic wraps modulo 2**bits.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np
from numba import literally, njit, types
from numba.extending import overload

from ..convert import f16_bits_to_f32, f32_to_f16_rne
from ..core import MEM_UB, PIPE_V
from ..dtypes import DType, bfloat16_t, float, half, int16_t, int32_t, uint16_t, uint32_t
from ..errors import ParameterError
from ..memory import LocalTensor
from ..registry import STRIDED, W, register
from ..sanitizer.online import fault
from ..sync import run_on_pipe
from .common import (
    K_F16,
    K_NATIVE,
    MAX_REPEAT_TIMES,
    BinaryRepeatParams,
    UnaryRepeatParams,
    as_count,
    check_overlap,
    core_of,
    expand_mask,
    kind_of,
    operand_error,
    recover_count,
    run_snapshotted,
    scalar_as_float64,
)
from .jitcall import entry_point

JIT = dict(cache=True, nogil=True, error_model="numpy")

# How the loop kernels load and store a dtype: fp32 as is, half through fp32, others natively.


# ---- element functions (one per instruction) -------------------------------------------------

@njit(cache=True, nogil=True, error_model="numpy")
def _exp(x):
    return np.float32(math.exp(np.float64(x)))


@njit(cache=True, nogil=True, error_model="numpy")
def _ln(x):
    return np.float32(math.log(np.float64(x))) if x >= 0 or x != x else np.float32(np.nan)


@njit(cache=True, nogil=True, error_model="numpy")
def _abs(x):
    return abs(x)


@njit(cache=True, nogil=True, error_model="numpy")
def _sqrt(x):
    return np.sqrt(x)


@njit(cache=True, nogil=True, error_model="numpy")
def _reciprocal(x):
    return np.float32(1.0) / x


@njit(cache=True, nogil=True, error_model="numpy")
def _not(x):
    return ~x


@njit(cache=True, nogil=True, error_model="numpy")
def _add(a, b):
    return a + b


@njit(cache=True, nogil=True, error_model="numpy")
def _sub(a, b):
    return a - b


@njit(cache=True, nogil=True, error_model="numpy")
def _mul(a, b):
    return a * b


@njit(cache=True, nogil=True, error_model="numpy")
def _div(a, b):
    return a / b


@njit(cache=True, nogil=True, error_model="numpy")
def _max(a, b):
    if a != a:
        return a
    if b != b:
        return b
    return a if a > b else b


@njit(cache=True, nogil=True, error_model="numpy")
def _min(a, b):
    if a != a:
        return a
    if b != b:
        return b
    return a if a < b else b


@njit(cache=True, nogil=True, error_model="numpy")
def _and(a, b):
    return a & b


@njit(cache=True, nogil=True, error_model="numpy")
def _or(a, b):
    return a | b


# ---- the instruction tables ------------------------------------------------------------------

ARITH = (half, float, int16_t, int32_t)
FLOAT_ONLY = (half, float)
LOGIC = (int16_t, uint16_t)


@dataclass(frozen=True)
class Op:
    name: str
    form: str           # "unary" (dst, src), "scalar" (dst, src, s), "binary" (dst, s0, s1)
    fn: object
    dtypes: tuple[DType, ...]
    cost_class: str


OPS: tuple[Op, ...] = (
    Op("Exp", "unary", _exp, FLOAT_ONLY, "Exp"),
    Op("Ln", "unary", _ln, FLOAT_ONLY, "Ln"),
    Op("Abs", "unary", _abs, FLOAT_ONLY, "Abs"),
    Op("Sqrt", "unary", _sqrt, FLOAT_ONLY, "Sqrt"),
    Op("Reciprocal", "unary", _reciprocal, FLOAT_ONLY, "Reciprocal"),
    Op("Not", "unary", _not, LOGIC, "Not"),
    Op("Adds", "scalar", _add, ARITH, "Adds"),
    Op("Muls", "scalar", _mul, ARITH, "Muls"),
    Op("Maxs", "scalar", _max, ARITH, "Maxs"),
    Op("Mins", "scalar", _min, ARITH, "Mins"),
    Op("Add", "binary", _add, ARITH, "Add"),
    Op("Sub", "binary", _sub, ARITH, "Sub"),
    Op("Mul", "binary", _mul, ARITH, "Mul"),
    Op("Div", "binary", _div, FLOAT_ONLY, "Div"),
    Op("Max", "binary", _max, ARITH, "Max"),
    Op("Min", "binary", _min, ARITH, "Min"),
    Op("And", "binary", _and, LOGIC, "And"),
    Op("Or", "binary", _or, LOGIC, "Or"),
)

# ---- compile-time dispatch: the operation and the dtype handling are literal arguments --------

_FNS = {form: tuple(op.fn for op in OPS if op.form == form)
        for form in ("unary", "scalar", "binary")}
_UNARY_FNS, _SCALAR_FNS, _BINARY_FNS = _FNS["unary"], _FNS["scalar"], _FNS["binary"]


def _apply1(op, x):  # stubs given meaning by the overloads below
    pass


def _apply2(op, x, y):
    pass


def _load(kind, x):
    pass


def _store(kind, v):
    pass


def _const(kind, s):
    pass


@overload(_apply1, jit_options=JIT)
def _ov_apply1(op, x):
    if isinstance(op, types.IntegerLiteral):
        fn = _UNARY_FNS[op.literal_value]
        return lambda op, x: fn(x)


@overload(_apply2, jit_options=JIT)
def _ov_apply2(op, x, y):
    # op < 0 selects the tensor-scalar table (index -1 - op), op >= 0 the binary one
    if isinstance(op, types.IntegerLiteral):
        v = op.literal_value
        fn = _SCALAR_FNS[-1 - v] if v < 0 else _BINARY_FNS[v]
        return lambda op, x, y: fn(x, y)


@overload(_load, jit_options=JIT)
def _ov_load(kind, x):
    if isinstance(kind, types.IntegerLiteral):
        if kind.literal_value == K_F16:
            return lambda kind, x: f16_bits_to_f32(x)
        return lambda kind, x: x


@overload(_store, jit_options=JIT)
def _ov_store(kind, v):
    if isinstance(kind, types.IntegerLiteral):
        if kind.literal_value == K_F16:
            return lambda kind, v: f32_to_f16_rne(v)
        return lambda kind, v: v


@overload(_const, jit_options=JIT)
def _ov_const(kind, s):
    # the tensor-scalar operand, carried exactly as float64 from Python
    if isinstance(kind, types.IntegerLiteral):
        if kind.literal_value == K_NATIVE:
            return lambda kind, s: np.int64(s)
        return lambda kind, s: np.float32(s)


# ---- count-form kernels: elements [0, n), contiguous ------------------------------------------

@njit(cache=True, nogil=True, error_model="numpy")
def unary_count(op, kind, dst, doff, src, soff, n):
    literally(op)
    literally(kind)
    d = dst[doff:doff + n]
    s = src[soff:soff + n]
    for i in range(n):
        d[i] = _store(kind, _apply1(op, _load(kind, s[i])))


@njit(cache=True, nogil=True, error_model="numpy")
def scalar_count(op, kind, dst, doff, src, soff, n, scalar):
    literally(op)
    literally(kind)
    d = dst[doff:doff + n]
    s = src[soff:soff + n]
    c = _const(kind, scalar)
    for i in range(n):
        d[i] = _store(kind, _apply2(op, _load(kind, s[i]), c))


@njit(cache=True, nogil=True, error_model="numpy")
def binary_count(op, kind, dst, doff, a, aoff, b, boff, n):
    literally(op)
    literally(kind)
    d = dst[doff:doff + n]
    x = a[aoff:aoff + n]
    y = b[boff:boff + n]
    for i in range(n):
        d[i] = _store(kind, _apply2(op, _load(kind, x[i]), _load(kind, y[i])))


@njit(cache=True, nogil=True, error_model="numpy")
def fill_count(dst, doff, n, value):
    d = dst[doff:doff + n]
    for i in range(n):
        d[i] = value


# ---- high-dimension kernels: repeats x 8 blocks, strides in blocks, per-element mask --------

@njit(cache=True, nogil=True, error_model="numpy")
def _element_offset(j, epb, blk, rep_base):
    # element j of a repeat lives in block j // epb, at position j % epb of that block
    return rep_base + (j // epb) * blk * epb + j % epb


@njit(cache=True, nogil=True, error_model="numpy")
def _enabled(j, mask_lo, mask_hi):
    return (mask_lo >> j) & 1 if j < 64 else (mask_hi >> (j - 64)) & 1


@njit(cache=True, nogil=True, error_model="numpy")
def unary_strided(op, kind, dst, doff, a, aoff, repeat, mask_lo, mask_hi, epb, dblk, ablk,
                  drep, arep):
    literally(op)
    literally(kind)
    per_repeat = 8 * epb
    out = np.empty(per_repeat, dtype=dst.dtype)
    for r in range(repeat):
        # every enabled element of a repeat is read before any is written, as on hardware
        for j in range(per_repeat):
            if _enabled(j, mask_lo, mask_hi):
                x = a[_element_offset(j, epb, ablk, aoff + r * arep * epb)]
                out[j] = _store(kind, _apply1(op, _load(kind, x)))
        for j in range(per_repeat):
            if _enabled(j, mask_lo, mask_hi):
                dst[_element_offset(j, epb, dblk, doff + r * drep * epb)] = out[j]


@njit(cache=True, nogil=True, error_model="numpy")
def binary_strided(op, kind, dst, doff, a, aoff, b, boff, scalar, repeat, mask_lo, mask_hi, epb,
                   dblk, ablk, bblk, drep, arep, brep):
    """op < 0: tensor-scalar (b unused, `scalar` is the second operand); op >= 0: binary."""
    literally(op)
    literally(kind)
    per_repeat = 8 * epb
    out = np.empty(per_repeat, dtype=dst.dtype)
    c = _const(kind, scalar)
    for r in range(repeat):
        for j in range(per_repeat):
            if _enabled(j, mask_lo, mask_hi):
                x = _load(kind, a[_element_offset(j, epb, ablk, aoff + r * arep * epb)])
                if op < 0:
                    out[j] = _store(kind, _apply2(op, x, c))
                else:
                    y = _load(kind, b[_element_offset(j, epb, bblk, boff + r * brep * epb)])
                    out[j] = _store(kind, _apply2(op, x, y))
        for j in range(per_repeat):
            if _enabled(j, mask_lo, mask_hi):
                dst[_element_offset(j, epb, dblk, doff + r * drep * epb)] = out[j]


# ---- Python entry points ---------------------------------------------------------------------

def _dtype_error(name: str, allowed: tuple[DType, ...], *tensors: LocalTensor) -> ParameterError:
    got = ", ".join(str(getattr(t, "dtype", t)) for t in tensors)
    return ParameterError(f"{name}: operands must share one dtype from "
                          f"{{{', '.join(map(str, allowed))}}} on A2/A3, got ({got})")


def _strided_extent(repeat: int, epb: int, blk: int, rep: int, size: int) -> int:
    """Bytes from the first to one past the last byte a strided operand can touch."""
    if repeat == 0:
        return 0
    last = (repeat - 1) * rep * epb + 7 * blk * epb + epb
    return last * size


def _make(op: Op, index: int):
    """The kernel-facing function of one table line (both call forms)."""
    ins = register(op.name, PIPE_V, "vector", op.cost_class, op.dtypes,
                   doc=f"element-wise {op.form} vector instruction")
    iid = ins.id
    kinds = {t: kind_of(t) for t in op.dtypes}
    form = op.form
    n_src = 2 if form == "binary" else 1
    lit = index if form != "scalar" else -1 - index  # the kernels' literal op number
    count_kernel = {"unary": unary_count, "scalar": scalar_count, "binary": binary_count}[form]
    entries: dict[int, object] = {}  # dtype code -> compiled entry point
    getframe = sys._getframe

    def fail(count: int, dst: LocalTensor, *srcs: LocalTensor) -> Exception:
        dt = dst.dtype
        if dt not in kinds or any(getattr(s, "dtype", None) is not dt for s in srcs):
            return _dtype_error(op.name, op.dtypes, dst, *srcs)
        names = ("src",) if len(srcs) == 1 else ("src0", "src1")
        return operand_error(op.name, count, (("dst", dst), *zip(names, srcs, strict=True)))

    def compiled(dt: DType, kargs: tuple):
        ep = entries[dt.code] = entry_point(count_kernel, (iid, dt.code), kargs, 2)
        return ep

    # The count forms below are the simulator's hottest code: checks are plain integer tests,
    # the record is one flat tuple, and the numba entry point is called directly.
    if form == "binary":
        def call(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *rest):
            f = getframe(1)
            if len(rest) != 1:
                return high_dim(dst, (src0, src1), 0, rest, f)
            count = rest[0]
            if type(count) is not int:
                count = as_count(count)
            dt = dst.dtype
            nb = count * dt.size
            d, a, b = dst.addr, src0.addr, src1.addr
            if (dt not in kinds or src0.dtype is not dt or src1.dtype is not dt
                    or (d | a | b) & 31 or count < 0 or nb > dst.size * dt.size
                    or nb > src0.size * dt.size or nb > src1.size * dt.size):
                count = recover_count(core_of(dst, src0, src1), fail(count, dst, src0, src1),
                                      f, count, ((d, dt.size, 1), (a, dt.size, 1),
                                                 (b, dt.size, 1)), op.name)
                if count is None:
                    return
                nb = count * dt.size
            core = dst.core
            core.records.append((iid, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                                 (nb + 255) >> 8, None, W, MEM_UB, d, d + nb, 0, MEM_UB, a,
                                 a + nb, 0, MEM_UB, b, b + nb))
            if count:
                view = core.views[dt.code]
                sh = dt.size.bit_length() - 1
                ao, bo = a >> sh, b >> sh
                snaps = ()  # (argument index, UB address) of sources partially overlapping dst
                if a != d and a < d + nb and d < a + nb:
                    snaps, ao = ((4, a),), 0
                    check_overlap(core, f, op.name, (nb + 255) >> 8, d, 256, 256, d + nb, a,
                                  256, 256, a + nb, "src0")
                if b != d and b < d + nb and d < b + nb:
                    snaps, bo = snaps + ((6, b),), 0
                    check_overlap(core, f, op.name, (nb + 255) >> 8, d, 256, 256, d + nb, b,
                                  256, 256, b + nb, "src1")
                kargs = (lit, kinds[dt], view, d >> sh, view, ao, view, bo, count)
                ep = entries.get(dt.code) or compiled(dt, kargs)
                if core.stalled or snaps:
                    _run(core, run_snapshotted, (core, ep, kargs, snaps, nb, dt))
                else:
                    ep(*kargs)
    else:
        has_scalar = form == "scalar"

        def call(dst: LocalTensor, src: LocalTensor, *rest):
            f = getframe(1)
            if has_scalar:
                scalar, rest = rest[0], rest[1:]
            if len(rest) != 1:
                return high_dim(dst, (src,), scalar if has_scalar else 0, rest, f)
            count = rest[0]
            if type(count) is not int:
                count = as_count(count)
            dt = dst.dtype
            nb = count * dt.size
            d, s = dst.addr, src.addr
            if (dt not in kinds or src.dtype is not dt or (d | s) & 31 or count < 0
                    or nb > dst.size * dt.size or nb > src.size * dt.size):
                count = recover_count(core_of(dst, src), fail(count, dst, src), f, count,
                                      ((d, dt.size, 1), (s, dt.size, 1)), op.name)
                if count is None:
                    return
                nb = count * dt.size
            core = dst.core
            core.records.append((iid, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                                 (nb + 255) >> 8, None, W, MEM_UB, d, d + nb, 0, MEM_UB, s,
                                 s + nb))
            if count:
                view = core.views[dt.code]
                sh = dt.size.bit_length() - 1
                so, snaps = s >> sh, ()
                if s != d and s < d + nb and d < s + nb:
                    so, snaps = 0, ((4, s),)  # partial overlap: read a snapshot of src
                    check_overlap(core, f, op.name, (nb + 255) >> 8, d, 256, 256, d + nb, s,
                                  256, 256, s + nb)
                if has_scalar:
                    kargs = (lit, kinds[dt], view, d >> sh, view, so, count,
                             scalar_as_float64(dt, scalar))
                else:
                    kargs = (lit, kinds[dt], view, d >> sh, view, so, count)
                ep = entries.get(dt.code) or compiled(dt, kargs)
                if core.stalled or snaps:
                    _run(core, run_snapshotted, (core, ep, kargs, snaps, nb, dt))
                else:
                    ep(*kargs)

    def high_dim(dst, srcs, scalar, rest, f):
        core = core_of(dst, *srcs)
        if len(rest) != 3:
            return fault(core, ParameterError(
                f"{op.name}: expected (..., count) or (..., mask, repeatTime, repeatParams), got "
                f"{len(rest)} trailing argument(s)"), f, instruction=op.name)
        mask, repeat, params = rest
        dt = dst.dtype
        kind = kinds.get(dt)
        if kind is None or any(s.dtype is not dt for s in srcs):
            return fault(core, _dtype_error(op.name, op.dtypes, dst, *srcs), f,
                         instruction=op.name)
        repeat = as_count(repeat, "repeatTime")
        if not 0 <= repeat <= MAX_REPEAT_TIMES:
            return fault(core, ParameterError(f"{op.name}: repeatTime {repeat} is out of range "
                                              f"[0, {MAX_REPEAT_TIMES}]"), f,
                         instruction=op.name)
        try:
            lo, hi = expand_mask(op.name, mask, dt)
        except ParameterError as e:
            return fault(core, e, f, instruction=op.name)
        if n_src == 2:
            if not isinstance(params, BinaryRepeatParams):
                return fault(core, ParameterError(f"{op.name}: the high-dimension form takes "
                                                  f"BinaryRepeatParams, got {params!r}"), f,
                             instruction=op.name)
            blk = (params.dstBlkStride, params.src0BlkStride, params.src1BlkStride)
            rep = (params.dstRepStride, params.src0RepStride, params.src1RepStride)
        else:
            if not isinstance(params, UnaryRepeatParams):
                return fault(core, ParameterError(f"{op.name}: the high-dimension form takes "
                                                  f"UnaryRepeatParams, got {params!r}"), f,
                             instruction=op.name)
            blk = (params.dstBlkStride, params.srcBlkStride)
            rep = (params.dstRepStride, params.srcRepStride)
        if blk[0] == 0:
            return fault(core, ParameterError(f"{op.name}: dstBlkStride 0 is undefined on "
                                              "hardware"), f, instruction=op.name)
        epb = 32 // dt.size
        operands = (dst, *srcs)
        for i, t in enumerate(operands):
            extent = _strided_extent(repeat, epb, blk[i], rep[i], dt.size)
            role = "dst" if i == 0 else f"src{i - 1}"
            if t.addr & 31 or extent > t.size * dt.size:
                err = operand_error(op.name, extent // dt.size, ((role, t),))
                if recover_count(core, err, f, 0, (), op.name) is None:
                    return
                # check mode: fewer repeats, so that every operand stays inside the UB
                while repeat and any(
                        x.addr + _strided_extent(repeat, epb, blk[k], rep[k], dt.size)
                        > core.ub.size for k, x in enumerate(operands)):
                    repeat -= 1
                break
        accesses: list[int] = []
        for i, t in enumerate(operands):
            extent = _strided_extent(repeat, epb, blk[i], rep[i], dt.size)
            accesses += [(W if i == 0 else 0) | STRIDED, MEM_UB, t.addr, t.addr + extent]
        core = dst.core
        core.records.append((iid, PIPE_V, f.f_code, f.f_lasti, dt.code, repeat * 8 * epb,
                             repeat, (lo, hi, blk, rep), *accesses))
        if repeat == 0:
            return
        if core.sanitizer is not None:
            _check_strided_overlap(core, f, op.name, repeat, dt.size, operands, blk, rep, lo,
                                   hi)
        shift = dt.size.bit_length() - 1
        view = core.views[dt.code]
        a = srcs[0].addr >> shift
        common = (repeat, np.uint64(lo), np.uint64(hi), epb)
        if n_src == 1 and form == "unary":
            kargs = (lit, kind, view, dst.addr >> shift, view, a, *common, blk[0], blk[1],
                     rep[0], rep[1])
            kernel = unary_strided
        else:
            b = srcs[1].addr >> shift if n_src == 2 else a
            sblk = blk if n_src == 2 else (blk[0], blk[1], blk[1])
            srep = rep if n_src == 2 else (rep[0], rep[1], rep[1])
            kargs = (lit, kind, view, dst.addr >> shift, view, a, view, b,
                     scalar_as_float64(dt, scalar), *common, *sblk, *srep)
            kernel = binary_strided
        _run(core, entry_point(kernel, (iid, dt.code, "strided"), kargs, 2), kargs)

    call.__name__ = call.__qualname__ = op.name
    call.__doc__ = f"AscendC `{op.name}` ({op.form}); dtypes: {', '.join(map(str, op.dtypes))}."
    return call


def _run(core, kernel, args) -> None:
    run_on_pipe(core, PIPE_V, kernel, args)


# Add/Sub/Mul/Max/Min on half/int32/float may write src1's bytes when src1RepStride or
# dstRepStride is 0 (通用地址重叠约束, the documented exception).
_SRC1_OVERLAP_OK = frozenset({"Add", "Sub", "Mul", "Max", "Min"})


def _check_strided_overlap(core, f, name: str, repeat: int, size: int, operands: tuple,
                           blk: tuple, rep: tuple, lo: int, hi: int) -> None:
    """The overlap rules for the high-dimension form (sanitizer only), over the DataBlocks the
    mask enables."""
    epb = 32 // size
    bits = lo | (hi << 64)
    on = [b for b in range(8) if (bits >> (b * epb)) & ((1 << epb) - 1)]
    if not on:
        return
    first, last = on[0], on[-1]
    d = operands[0].addr + first * blk[0] * 32
    width = lambda k: ((last - first) * blk[k] + 1) * 32  # noqa: E731 - bytes a repeat spans
    d_end = d + (repeat - 1) * rep[0] * 32 + width(0)
    for k in range(1, len(operands)):
        s = operands[k].addr + first * blk[k] * 32
        s_end = s + (repeat - 1) * rep[k] * 32 + width(k)
        if not (s < d_end and d < s_end):
            continue
        if (k == 2 and name in _SRC1_OVERLAP_OK and operands[0].dtype in (half, int32_t, float)
                and (rep[2] == 0 or rep[0] == 0)):
            continue
        check_overlap(core, f, name, repeat, d, rep[0] * 32, width(0), d_end, s, rep[k] * 32,
                      width(k), s_end, f"src{k - 1}" if len(operands) > 2 else "src")


# One kernel-facing function per table line, published under its AscendC name.
_index_in_form: dict[str, int] = {}
for _op in OPS:
    _i = _index_in_form.get(_op.form, 0)
    _index_in_form[_op.form] = _i + 1
    globals()[_op.name] = _make(_op, _i)
__all__ = [op.name for op in OPS] + ["Duplicate", "OPS"]

# ---- Duplicate ---------------------------------------------------------------------------------

DUPLICATE_DTYPES = (int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float)
_DUP = register("Duplicate", PIPE_V, "vector", "Duplicate", DUPLICATE_DTYPES,
                doc="fill count elements with a scalar")


def Duplicate(dst: LocalTensor, scalar: object, *rest) -> None:
    """`Duplicate(dst, scalar, count)` (or the high-dimension form with a mask)."""
    f = sys._getframe(1)
    dt = dst.dtype
    if dt not in DUPLICATE_DTYPES:
        return fault(core_of(dst), _dtype_error("Duplicate", DUPLICATE_DTYPES, dst), f,
                     instruction="Duplicate")
    if len(rest) == 1:
        count = as_count(rest[0])
        nb = count * dt.size
        if dst.addr & 31 or count < 0 or nb > dst.size * dt.size:
            count = recover_count(core_of(dst), operand_error("Duplicate", count,
                                                              (("dst", dst),)),
                                  f, count, ((dst.addr, dt.size, 1),), "Duplicate")
            if count is None:
                return
            nb = count * dt.size
        core = dst.core
        core.records.append((_DUP.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                             (nb + 255) >> 8, None, W, MEM_UB, dst.addr, dst.addr + nb))
        if count:
            shift = dt.size.bit_length() - 1
            _run(core, fill_count, (core.views[dt.code], dst.addr >> shift, count,
                                    dt.bits(scalar)))
        return
    core = core_of(dst)
    if len(rest) != 4:
        return fault(core, ParameterError(
            "Duplicate: expected (dst, scalar, count) or (dst, scalar, mask, repeatTime, "
            "dstBlockStride, dstRepeatStride)"), f, instruction="Duplicate")
    mask, repeat, dst_blk, dst_rep = rest
    repeat = as_count(repeat, "repeatTime")
    if not 0 <= repeat <= MAX_REPEAT_TIMES:
        return fault(core, ParameterError(f"Duplicate: repeatTime {repeat} is out of range "
                                          "[0, 255]"), f, instruction="Duplicate")
    if int(dst_blk) == 0:
        return fault(core, ParameterError("Duplicate: dstBlockStride 0 is undefined on "
                                          "hardware"), f, instruction="Duplicate")
    try:
        lo, hi = expand_mask("Duplicate", mask, dt)
    except ParameterError as e:
        return fault(core, e, f, instruction="Duplicate")
    epb = 32 // dt.size
    extent = _strided_extent(repeat, epb, int(dst_blk), int(dst_rep), dt.size)
    if dst.addr & 31 or extent > dst.size * dt.size:
        if recover_count(core, operand_error("Duplicate", extent // dt.size, (("dst", dst),)),
                         f, 0, (), "Duplicate") is None:
            return
        while repeat and dst.addr + _strided_extent(repeat, epb, int(dst_blk), int(dst_rep),
                                                     dt.size) > core.ub.size:
            repeat -= 1
        extent = _strided_extent(repeat, epb, int(dst_blk), int(dst_rep), dt.size)
    core = dst.core
    core.records.append((_DUP.id, PIPE_V, f.f_code, f.f_lasti, dt.code, repeat * 8 * epb,
                         repeat, (lo, hi, (int(dst_blk), int(dst_rep))), W | STRIDED, MEM_UB,
                         dst.addr, dst.addr + extent))
    if repeat:
        _run(core, _fill_strided, (core.views[dt.code], dst.addr // dt.size,
                                   dt.bits(scalar), repeat, np.uint64(lo),
                                   np.uint64(hi), epb, int(dst_blk), int(dst_rep)))


@njit(cache=True, nogil=True, error_model="numpy")
def _fill_strided(dst, doff, value, repeat, mask_lo, mask_hi, epb, blk, rep):
    for r in range(repeat):
        base = doff + r * rep * epb
        for j in range(8 * epb):
            if _enabled(j, mask_lo, mask_hi):
                dst[_element_offset(j, epb, blk, base)] = value

