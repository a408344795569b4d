"""Element-wise vector instructions: unary (`Exp`, `Abs`, ...), tensor-scalar (`Adds`, `Muls`,
...), binary (`Add`, `Div`, `And`, ...) and `Duplicate`, in both call forms.

Each instruction is one `Op` line in the table below: its AscendC name, its form, its element
function (a numba function on the compute type), the dtypes A2/A3 accept and how initcheck
propagates through it. `_register` turns a line into its registry entry (operands, signatures,
work functions, C++ declarations) and `_front_end` into the kernel-facing function. The numba
work is shared per form: the element function is a compile-time constant of the loop.

Numerics: fp32 in IEEE float32. half is widened exactly to fp32, computed, and rounded back to
nearest-even: for +, -, *, / and sqrt that equals a correctly rounded fp16 operation (fp32 has
more than 2*11+2 bits). `Exp` and `Ln` evaluate in float64 and round once to float32 (correctly
rounded but for rare double-rounding cases); hardware may differ by a few ULP (its algorithm
is unpublished). `Reciprocal` is IEEE 1/x here; the hardware one is documented as a
low-precision approximation. These are the defaults of the profile options `exp_impl`,
`ln_impl`, `sqrt_impl`, `reciprocal_impl` and `div_impl`; their alternatives (numerics.py) are
extra element functions of the form's table, and the op's literal is the one the profile names
(the count form looks it up per call, the row work in `_bind`). `Max`/`Min` return NaN when
either input is NaN. Integer arithmetic wraps modulo 2**bits. ShiftRight's level-0
`roundEn=true` (recorded as MODE 1, so replay rounds too) adds 2**(n-1) in the element's own
width, wrapping, then shifts: the rounding is not public (ascendc_more.md §5 UNKNOWN),
profile option `shift_round = add_half_then_shift`, its only value.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from functools import partial

import numpy as np
from numba import literally, njit, types
from numba.extending import overload
from numba.np.numpy_support import as_dtype

from .. import records as rec
from ..batch import kind_of
from ..core import MEM_UB, PIPE_V
from ..dtypes import DType, bfloat16_t, float, half, int16_t, int32_t, uint16_t, uint32_t
from ..errors import ParameterError
from ..faults import fault
from ..memory import LocalTensor
from ..records import (
    COUNT,
    DTYPE,
    MODE,
    NPARAM,
    REPEATS,
    SCALAR,
    STRIDED,
    W,
    repeat_fields,
    start_fields,
)
from ..registry import (
    AccessPattern,
    Cost,
    CostKind,
    CppDecl,
    Dataflow,
    Instruction,
    Operand,
    Signature,
    Work,
    register,
)
from ..sync import defer_on_pipe, defer_row, eager_instead, run_on_pipe
from ..workcall import NO_GM, compile_loop
from . import numerics
from .common import (
    MAX_REPEAT_TIMES,
    BinaryRepeatParams,
    UnaryRepeatParams,
    as_count,
    check_overlap,
    core_of,
    operand_error,
    recover_count,
)
from .vmask import (
    count_form_refusal,
    counter_repeats,
    lane_count,
    level0_mask,
    strided_extent,
    templated,
)
from .worklib import (
    JIT,
    element_offset,
    enabled,
    lanes,
    load,
    scalar,
    shift,
    source,
    store,
    uview,
    view,
)

# ---- element functions (one per instruction) -------------------------------------------------

@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _exp(x):
    return np.float32(math.exp(np.float64(x)))


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _ln(x):
    return np.float32(math.log(np.float64(x))) if x >= 0 or x != x else np.float32(np.nan)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _abs(x):
    return abs(x)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _sqrt(x):
    return np.sqrt(x)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _reciprocal(x):
    return np.float32(1.0) / x


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _rsqrt(x):
    # float64, rounded once: correctly rounded for every float32 input (rsqrt(4x) is exactly
    # rsqrt(x) / 2, and an exhaustive search over [1, 4) finds no double rounding)
    return np.float32(1.0 / math.sqrt(np.float64(x)))


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _not(x):
    return ~x


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _add(a, b):
    return a + b


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _sub(a, b):
    return a - b


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _mul(a, b):
    return a * b


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _div(a, b):
    return a / b


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _max(a, b):
    if a != a:
        return a
    if b != b:
        return b
    return a if a > b else b


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _min(a, b):
    if a != a:
        return a
    if b != b:
        return b
    return a if a < b else b


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _and(a, b):
    return a & b


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _or(a, b):
    return a | b


def _zero_like(x):  # a stub given meaning by the overload below
    pass


@overload(_zero_like, jit_options=JIT)
def _ov_zero_like(x):
    if isinstance(x, (types.Float, types.Integer)):
        zero = as_dtype(x).type(0)  # a constant of x's own type
        return lambda x: zero


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _relu(x):
    return _max(x, _zero_like(x))


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _leaky_relu(x, alpha):
    return x if x >= 0 else x * alpha


def _int_width(x):  # a stub given meaning by the overload below
    pass


@overload(_int_width, jit_options=JIT)
def _ov_int_width(x):
    if isinstance(x, types.Integer):
        w, signed = x.bitwidth, x.signed
        return lambda x: (w, signed)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _shift_left(x, n):
    """x << n in x's width; a signed x keeps its sign bit (the doc: int16 0xAAAA << 1 =
    0xD554). n is in [0, width]: by the width, 0 (or the sign bit alone), profile option
    shift_full = zero_or_sign."""
    w, signed = _int_width(x)
    v = np.int64(x) << np.int64(n)
    if signed:
        top = np.int64(1) << (w - 1)
        return (v & (top - 1)) | (np.int64(x) & top)
    return v & ((np.int64(1) << w) - 1)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _shift_right(x, n):
    """x >> n: arithmetic for signed x, logical for unsigned; by the width, 0 or all sign bits
    (shift_full = zero_or_sign)."""
    return np.int64(x) >> np.int64(n)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _shift_right_round(x, n):
    """ShiftRight with roundEn=true (profile option shift_round = add_half_then_shift, the
    fact sheet's UNKNOWN default): x + 2**(n-1) in x's own width, wrapping, then the shift of
    `_shift_right`; n = 0 leaves x as it is."""
    if n == 0:
        return np.int64(x)
    w, signed = _int_width(x)
    v = (np.int64(x) + (np.int64(1) << np.int64(n - 1))) & ((np.int64(1) << w) - 1)
    if signed and v >= (np.int64(1) << (w - 1)):
        v -= np.int64(1) << w
    return v >> np.int64(n)


def _shift_check(dtype: DType, value: object) -> str | None:
    """The shift amount a ShiftLeft/ShiftRight accepts: [0, width of T]."""
    try:
        n = int(value)
    except (TypeError, ValueError):
        return f"the shift must be an integer, got {value!r}"
    width = 8 * dtype.size
    if not 0 <= n <= width:
        return f"shift {n} is out of range [0, {width}] for {dtype}"
    return None


# ---- the instruction table -------------------------------------------------------------------

ARITH = (half, float, int16_t, int32_t)
FLOAT_ONLY = (half, float)
LOGIC = (int16_t, uint16_t)
SHIFT = (int16_t, uint16_t, int32_t, uint32_t)
E, B = Dataflow.ELEMENTWISE, Dataflow.BITWISE


@dataclass(frozen=True)
class Op:
    name: str
    form: str           # "unary" (dst, src), "scalar" (dst, src, s), "binary" (dst, s0, s1)
    fn: object
    dtypes: tuple[DType, ...]
    dataflow: Dataflow
    doc: str
    check: object = None  # (dtype, scalar) -> why the scalar is refused, or None
    level0_flag: str = ""  # a trailing bool of the level-0 form that ascsim models as false
    option: str = ""  # the profile option choosing the element function (numerics.py)


OPS: tuple[Op, ...] = (
    Op("Exp", "unary", _exp, FLOAT_ONLY, E, "dst = e ** src",
       option="exp_impl"),
    Op("Ln", "unary", _ln, FLOAT_ONLY, E, "dst = natural logarithm of src",
       option="ln_impl"),
    Op("Abs", "unary", _abs, FLOAT_ONLY, E, "dst = |src|"),
    Op("Sqrt", "unary", _sqrt, FLOAT_ONLY, E, "dst = square root of src",
       option="sqrt_impl"),
    Op("Reciprocal", "unary", _reciprocal, FLOAT_ONLY, E, "dst = 1 / src",
       option="reciprocal_impl"),
    Op("Not", "unary", _not, LOGIC, B, "dst = bitwise not of src"),
    Op("Relu", "unary", _relu, (half, float, int32_t), E,
       "dst = max(src, 0), NaN if src is, +0 for -0 (the Max rule)"),
    Op("Rsqrt", "unary", _rsqrt, FLOAT_ONLY, E, "dst = 1 / square root of src"),
    Op("Adds", "scalar", _add, ARITH, E, "dst = src + scalar"),
    Op("Muls", "scalar", _mul, ARITH, E, "dst = src * scalar"),
    Op("Maxs", "scalar", _max, ARITH, E, "dst = max(src, scalar), NaN if either is"),
    Op("Mins", "scalar", _min, ARITH, E, "dst = min(src, scalar), NaN if either is"),
    Op("LeakyRelu", "scalar", _leaky_relu, FLOAT_ONLY, E,
       "dst = src if src >= 0 else src * scalar (alpha)"),
    Op("ShiftLeft", "scalar", _shift_left, SHIFT, E,
       "dst = src << scalar (0..width; a signed src keeps its sign bit)", _shift_check),
    Op("ShiftRight", "scalar", _shift_right, SHIFT, E,
       "dst = src >> scalar (0..width; arithmetic for signed types)", _shift_check, "roundEn"),
    Op("Add", "binary", _add, ARITH, E, "dst = src0 + src1"),
    Op("Sub", "binary", _sub, ARITH, E, "dst = src0 - src1"),
    Op("Mul", "binary", _mul, ARITH, E, "dst = src0 * src1"),
    Op("Div", "binary", _div, FLOAT_ONLY, E, "dst = src0 / src1",
       option="div_impl"),
    Op("Max", "binary", _max, ARITH, E, "dst = max(src0, src1), NaN if either is"),
    Op("Min", "binary", _min, ARITH, E, "dst = min(src0, src1), NaN if either is"),
    Op("And", "binary", _and, LOGIC, B, "dst = src0 & src1 (bitwise)"),
    Op("Or", "binary", _or, LOGIC, B, "dst = src0 | src1 (bitwise)"),
)

# the element functions of each form, indexed by the loops' literal `op`
_FNS = {form: tuple(op.fn for op in OPS if op.form == form)
        for form in ("unary", "scalar", "binary")}
_UNARY_FNS, _SCALAR_FNS, _BINARY_FNS = _FNS["unary"], _FNS["scalar"], _FNS["binary"]
# ShiftRight's roundEn=true (a row with MODE 1): the element function per shift_round value
_SHIFT_ROUND = {"add_half_then_shift": len(_SCALAR_FNS)}
_SCALAR_FNS += (_shift_right_round,)


def _variant_lits() -> dict[tuple[str, int], tuple[str, dict[str, int]]]:
    """(form, op index) -> (profile option, {option value: the loops' literal}) for the ops
    whose algorithm a profile option chooses: the default value keeps the op's own index, the
    alternatives are appended to the form's table."""
    global _UNARY_FNS, _BINARY_FNS
    out: dict[tuple[str, int], tuple[str, dict[str, int]]] = {}
    index: dict[str, int] = {}
    for op in OPS:
        i = index.get(op.form, 0)
        index[op.form] = i + 1
        if not op.option:
            continue
        lits = {numerics.DEFAULTS[op.option]: i}
        for value, fn in numerics.ALTERNATIVES[op.option].items():
            if op.form == "unary":
                lits[value] = len(_UNARY_FNS)
                _UNARY_FNS += (fn,)
            else:
                lits[value] = len(_BINARY_FNS)
                _BINARY_FNS += (fn,)
        out[(op.form, i)] = (op.option, lits)
    return out


_VARIANTS = _variant_lits()


def _apply1(op, x):  # stubs given meaning by the overloads below
    pass


def _apply_scalar(op, x, y):
    pass


def _apply2(op, x, y):
    pass


@overload(_apply1, jit_options=JIT)
def _ov_apply1(op, x):
    if isinstance(op, types.IntegerLiteral):
        fn = _UNARY_FNS[op.literal_value]
        return lambda op, x: fn(x)


@overload(_apply_scalar, jit_options=JIT)
def _ov_apply_scalar(op, x, y):
    if isinstance(op, types.IntegerLiteral):
        fn = _SCALAR_FNS[op.literal_value]
        return lambda op, x, y: fn(x, y)


@overload(_apply2, jit_options=JIT)
def _ov_apply2(op, x, y):
    if isinstance(op, types.IntegerLiteral):
        fn = _BINARY_FNS[op.literal_value]
        return lambda op, x, y: fn(x, y)


# ---- count form: elements [0, n) of each operand ---------------------------------------------
# The loops take their operands unpacked (the front ends call them: a numba call pays for every
# argument it unboxes); the work functions decode a record row (records.py: no params, then the
# accesses) and call the same loops.

# A source that is the destination itself (Mul(a, a, b), Adds(x, x, s): most kernels compute in
# place) is read through the destination's own slice. The loop vectoriser then sees one array
# where it would otherwise see two that may overlap, whose run-time overlap test fails for an
# exact alias and sends the loop to its scalar version: 2x slower for Add, 4x for Div. The
# unary form does not do it: Exp and Ln call the C library per element, and vectorised around
# those calls their in-place loops ran 10-20% slower (CrossEntropyLoss's Exp rows).

@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _scalar_into(op, code, out, x, c, n):
    for i in range(n):
        out[i] = store(code, _apply_scalar(op, load(code, x[i]), c))


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _binary_into(op, code, out, x, y, n):
    for i in range(n):
        out[i] = store(code, _apply2(op, load(code, x[i]), load(code, y[i])))


@njit(cache=True, nogil=True, error_model="numpy")
def unary_loop(op, code, v, d, s, n):
    literally(op)
    literally(code)
    x = source(v, s, d, n)
    out = v[d:d + n]
    for i in range(n):
        out[i] = store(code, _apply1(op, load(code, x[i])))


@njit(cache=True, nogil=True, error_model="numpy")
def scalar_loop(op, code, v, d, s, n, bits):
    literally(op)
    literally(code)
    c = scalar(code, bits)
    out = v[d:d + n]
    if s == d:
        _scalar_into(op, code, out, out, c, n)
    else:
        _scalar_into(op, code, out, source(v, s, d, n), c, n)


@njit(cache=True, nogil=True, error_model="numpy")
def binary_loop(op, code, v, d, a, b, n):
    literally(op)
    literally(code)
    out = v[d:d + n]
    if a == d and b == d:
        _binary_into(op, code, out, out, out, n)
    elif a == d:
        _binary_into(op, code, out, out, source(v, b, d, n), n)
    elif b == d:
        _binary_into(op, code, out, source(v, a, d, n), out, n)
    else:
        _binary_into(op, code, out, source(v, a, d, n), source(v, b, d, n), n)


@njit(cache=True, nogil=True, error_model="numpy")
def fill_loop(code, v, d, n, bits):
    """Duplicate: the scalar's bits into elements [0, n) of an unsigned view (bit-exact)."""
    literally(code)
    out = v[d:d + n]
    for i in range(n):
        out[i] = bits


_A0, _A1, _A2 = start_fields(0, 3)  # count form: no params; the start of access 0, 1, 2


@njit(cache=True, nogil=True, error_model="numpy")
def unary_count(op, code, _c, ub, gm, row):
    unary_loop(op, code, view(code, ub), row[_A0] >> shift(code), row[_A1] >> shift(code),
               row[COUNT])


@njit(cache=True, nogil=True, error_model="numpy")
def scalar_count(op, code, _c, ub, gm, row):
    scalar_loop(op, code, view(code, ub), row[_A0] >> shift(code), row[_A1] >> shift(code),
                row[COUNT], row[SCALAR])


@njit(cache=True, nogil=True, error_model="numpy")
def binary_count(op, code, _c, ub, gm, row):
    binary_loop(op, code, view(code, ub), row[_A0] >> shift(code), row[_A1] >> shift(code),
                row[_A2] >> shift(code), row[COUNT])


@njit(cache=True, nogil=True, error_model="numpy")
def fill_count(code, _b, _c, ub, gm, row):
    fill_loop(code, uview(code, ub), row[_A0] >> shift(code), row[COUNT], row[SCALAR])


# ---- work: repeat form, repeats x 8 DataBlocks at strides, per-element mask --------------------
# Row layout: params (mask_lo, mask_hi, blk per operand, rep per operand), then the accesses.
_LO, _HI, (_B1,), (_R1,), (_S1,) = repeat_fields(1)                          # Duplicate
_, _, (_B2D, _B2A), (_R2D, _R2A), (_S2D, _S2A) = repeat_fields(2)            # unary, scalar
_, _, (_B3D, _B3A, _B3B), (_R3D, _R3A, _R3B), (_S3D, _S3A, _S3B) = repeat_fields(3)  # binary

@njit(cache=True, nogil=True, error_model="numpy")
def unary_repeat(op, code, _c, ub, gm, row):
    literally(op)
    literally(code)
    v = view(code, ub)
    epb = 32 >> shift(code)
    lo, hi = row[_LO], row[_HI]
    dblk, ablk, drep, arep = row[_B2D], row[_B2A], row[_R2D], row[_R2A]
    doff = row[_S2D] >> shift(code)
    aoff = row[_S2A] >> shift(code)
    per_repeat = 8 * epb
    out = np.empty(per_repeat, dtype=v.dtype)
    for r in range(row[REPEATS]):
        # every enabled element of a repeat is read before any is written, as on hardware
        for j in range(lanes(r, per_repeat, row[COUNT])):
            if enabled(j, lo, hi):
                x = v[element_offset(j, epb, ablk, aoff + r * arep * epb)]
                out[j] = store(code, _apply1(op, load(code, x)))
        for j in range(lanes(r, per_repeat, row[COUNT])):
            if enabled(j, lo, hi):
                v[element_offset(j, epb, dblk, doff + r * drep * epb)] = out[j]


@njit(cache=True, nogil=True, error_model="numpy")
def scalar_repeat(op, code, _c, ub, gm, row):
    literally(op)
    literally(code)
    v = view(code, ub)
    epb = 32 >> shift(code)
    lo, hi = row[_LO], row[_HI]
    dblk, ablk, drep, arep = row[_B2D], row[_B2A], row[_R2D], row[_R2A]
    doff = row[_S2D] >> shift(code)
    aoff = row[_S2A] >> shift(code)
    c = scalar(code, row[SCALAR])
    per_repeat = 8 * epb
    out = np.empty(per_repeat, dtype=v.dtype)
    for r in range(row[REPEATS]):
        for j in range(lanes(r, per_repeat, row[COUNT])):
            if enabled(j, lo, hi):
                x = v[element_offset(j, epb, ablk, aoff + r * arep * epb)]
                out[j] = store(code, _apply_scalar(op, load(code, x), c))
        for j in range(lanes(r, per_repeat, row[COUNT])):
            if enabled(j, lo, hi):
                v[element_offset(j, epb, dblk, doff + r * drep * epb)] = out[j]


@njit(cache=True, nogil=True, error_model="numpy")
def binary_repeat(op, code, _c, ub, gm, row):
    literally(op)
    literally(code)
    v = view(code, ub)
    epb = 32 >> shift(code)
    lo, hi = row[_LO], row[_HI]
    dblk, ablk, bblk = row[_B3D], row[_B3A], row[_B3B]
    drep, arep, brep = row[_R3D], row[_R3A], row[_R3B]
    doff = row[_S3D] >> shift(code)
    aoff = row[_S3A] >> shift(code)
    boff = row[_S3B] >> shift(code)
    per_repeat = 8 * epb
    out = np.empty(per_repeat, dtype=v.dtype)
    for r in range(row[REPEATS]):
        for j in range(lanes(r, per_repeat, row[COUNT])):
            if enabled(j, lo, hi):
                x = load(code, v[element_offset(j, epb, ablk, aoff + r * arep * epb)])
                y = load(code, v[element_offset(j, epb, bblk, boff + r * brep * epb)])
                out[j] = store(code, _apply2(op, x, y))
        for j in range(lanes(r, per_repeat, row[COUNT])):
            if enabled(j, lo, hi):
                v[element_offset(j, epb, dblk, doff + r * drep * epb)] = out[j]


@njit(cache=True, nogil=True, error_model="numpy")
def fill_repeat(code, _b, _c, ub, gm, row):
    literally(code)
    v = uview(code, ub)
    epb = 32 >> shift(code)
    lo, hi = row[_LO], row[_HI]
    blk, rep = row[_B1], row[_R1]
    doff = row[_S1] >> shift(code)
    bits = row[SCALAR]
    for r in range(row[REPEATS]):
        base = doff + r * rep * epb
        for j in range(lanes(r, 8 * epb, row[COUNT])):
            if enabled(j, lo, hi):
                v[element_offset(j, epb, blk, base)] = bits


# ---- registry entries ------------------------------------------------------------------------

_WORK = {"unary": (unary_count, unary_repeat), "scalar": (scalar_count, scalar_repeat),
         "binary": (binary_count, binary_repeat)}
_ELEMENT = AccessPattern.ELEMENTWISE
_OPERANDS = {
    "unary": (Operand("dst", _ELEMENT, True), Operand("src", _ELEMENT)),
    "scalar": (Operand("dst", _ELEMENT, True), Operand("src", _ELEMENT),
               Operand("scalarValue", AccessPattern.NONE)),
    "binary": (Operand("dst", _ELEMENT, True), Operand("src0", _ELEMENT),
               Operand("src1", _ELEMENT)),
}
# C++ parameters of each form before the count / mask arguments
_CPP_TENSORS = {
    "unary": ("const LocalTensor<T> &dst, const LocalTensor<T> &src", "UnaryRepeatParams"),
    "scalar": ("const LocalTensor<T> &dst, const LocalTensor<T> &src, "
               "const ScalarT<T> &scalarValue", "UnaryRepeatParams"),
    "binary": ("const LocalTensor<T> &dst, const LocalTensor<T> &src0, "
               "const LocalTensor<T> &src1", "BinaryRepeatParams"),
}


def _cpp(name: str, form: str, flag: str = "") -> tuple[CppDecl, ...]:
    """The count form and the two mask forms (continuous and bit mask) of a vector call (with
    a trailing `bool flag = false` in the mask forms when given)."""
    tensors, params = _CPP_TENSORS[form]
    extra = f", bool {flag} = false" if flag else ""
    return (
        CppDecl(f"template <typename T>\n__aicore__ void {name}({tensors}, "
                "const int32_t &count);"),
        CppDecl(f"template <typename T, bool isSetMask = true>\n__aicore__ void {name}("
                f"{tensors}, uint64_t mask, const uint8_t repeatTime, "
                f"const {params} &repeatParams{extra});"),
        CppDecl(f"template <typename T, bool isSetMask = true>\n__aicore__ void {name}("
                f"{tensors}, const uint64_t mask[], const uint8_t repeatTime, "
                f"const {params} &repeatParams{extra});"),
    )


def _bind(index: int, row: tuple, profile: object, variant: tuple | None = None
          ) -> tuple[str, tuple[int, int, int]]:
    """The work of a recorded call: the repeat form's rows have params, the count form's none;
    literals (the op's index in its form's table, the dtype code). MODE 1 is ShiftRight's
    roundEn=true: the rounding shift the profile's `shift_round` names; an op with a
    `variant` (option, {value: index}) runs the element function its profile option names."""
    if row[MODE]:
        index = _SHIFT_ROUND[profile.shift_round]
    elif variant is not None:
        index = variant[1][getattr(profile, variant[0])]
    return ("repeat" if row[NPARAM] else "count"), (index, row[DTYPE], 0)


def _register(op: Op, index: int) -> Instruction:
    width = 3 if op.form == "binary" or op.form == "scalar" else 2
    count, repeat = _WORK[op.form]
    return register(
        op.name, family="vector", pipe=PIPE_V, operands=_OPERANDS[op.form],
        dataflow=op.dataflow, cost=Cost(CostKind.VECTOR, op.name),
        signatures=tuple(Signature((t,) * width) for t in op.dtypes),
        work=Work({"count": count, "repeat": repeat},
                  partial(_bind, index, variant=_VARIANTS.get((op.form, index)))),
        cpp=_cpp(op.name, op.form, op.level0_flag),
        doc=f"{op.doc} (element-wise, {op.form})")


# ---- Python entry points ---------------------------------------------------------------------

def _dtype_error(name: str, allowed: frozenset[DType], *tensors: LocalTensor) -> ParameterError:
    got = ", ".join(str(getattr(t, "dtype", t)) for t in tensors)
    names = ", ".join(sorted(map(str, allowed)))
    return ParameterError(f"{name}: operands must share one dtype from {{{names}}} on A2/A3, "
                          f"got ({got})")


def _run_row(core, work: Work, form: str, literals: tuple[int, int, int], row: tuple) -> None:
    """Execute a recorded vector call through its row work (`form` with `literals`): now, or
    after the vector pipe's stall; deferred (batch.py). The repeat forms go
    this way: their rarity does not pay for an unpacked loop."""
    if core.batch is not None:
        header = kind_of(work.kernels[form], literals, len(row))
        if header >= 0:
            return defer_on_pipe(core, PIPE_V, header, row)
    run_on_pipe(core, PIPE_V, work.entry(form, literals, len(row)),
                (*literals, core.ub, NO_GM, rec.program_row(row)))


_LOOPS = {"unary": unary_loop, "scalar": scalar_loop, "binary": binary_loop}


def _front_end(ins: Instruction, form: str, lit: int, op: Op | None = None):
    """The kernel-facing function of one table line (both call forms); `lit` is the op's index
    in its form's table (the loops' first literal)."""
    check = op.check if op is not None else None
    level0_flag = op.level0_flag if op is not None else ""
    name, iid, work = ins.name, ins.id, ins.work
    allowed = ins.dtypes
    loop = _LOOPS[form]
    n_src = 2 if form == "binary" else 1
    has_scalar = form == "scalar"
    entries: dict[int, object] = {}  # op literal << 8 | dtype code -> the compiled loop
    # (profile option, {value: op literal}) when a profile option picks the element function;
    # `memo` (profile, its op literal) of the last call makes that one identity test per call
    variant = _VARIANTS.get((form, lit))
    memo = (None, lit)

    def pick(profile) -> int:
        nonlocal memo
        memo = (profile, variant[1][getattr(profile, variant[0])])
        return memo[1]
    getframe = sys._getframe
    vector_row2, vector_row3 = rec.vector_row2, rec.vector_row3
    pipe_v = PIPE_V

    def fail(count: int, dst: LocalTensor, *srcs: LocalTensor) -> Exception:
        dt = dst.dtype
        if dt not in allowed or any(getattr(s, "dtype", None) is not dt for s in srcs):
            return _dtype_error(name, allowed, dst, *srcs)
        names = ("src",) if len(srcs) == 1 else ("src0", "src1")
        return operand_error(name, count, (("dst", dst), *zip(names, srcs, strict=True)))

    def compiled(dt: DType, args: tuple):
        ep = entries[args[0] << 8 | dt.code] = compile_loop(loop, args, 2)
        return ep

    # the deferred count form (batch.py): op literal << 8 | dtype code -> the batch header of
    # the count work with the literals `_bind` gives
    headers: dict[int, int] = {}
    count_work = work.kernels["count"]

    def defer(core, op: int, dt: DType, row: tuple) -> bool:
        """The deferred count form's other cases: a kind not met yet, a stalled pipe, or a
        kind that runs eagerly (batch.EAGER, asked again each call: compile_in_background may
        be switched off); False when the caller runs the work itself."""
        h = headers.get(op << 8 | dt.code)
        if h is None:
            h = kind_of(count_work, (op, dt.code, 0), len(row))
            if h < 0:
                return eager_instead(core, pipe_v)
            headers[op << 8 | dt.code] = h
        defer_on_pipe(core, pipe_v, h, row)
        return True

    # The count forms below are the simulator's hottest code: checks are plain integer tests,
    # the record is one flat tuple, and the compiled loop is called directly.
    if form == "binary":
        def call(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *rest, _f=None):
            f = _f or getframe(1)
            if len(rest) != 1:
                return repeat_form(dst, (src0, src1), 0, rest, f)
            count = rest[0]
            if type(count) is not int:
                count = as_count(count)
            dt = dst.dtype
            nb = count * dt.size
            d, a, b = dst.addr, src0.addr, src1.addr
            if (dt not in allowed or src0.dtype is not dt or src1.dtype is not dt
                    or (d | a | b) & 31 or count < 0 or nb > dst.size * dt.size
                    or nb > src0.size * dt.size or nb > src1.size * dt.size):
                count = recover_count(core_of(dst, src0, src1), fail(count, dst, src0, src1),
                                      f, count, ((d, dt.size, 1), (a, dt.size, 1),
                                                 (b, dt.size, 1)), name)
                if count is None:
                    return
                nb = count * dt.size
            core = dst.core
            if core.vmask is not None:
                core.vmask = None  # the count form ends in Normal mode with a full mask
            row = vector_row3(iid, pipe_v, f.f_code, f.f_lasti, dt.code, count, (nb + 255) >> 8,
                              0, 0, d, d + nb, a, a + nb, b, b + nb)
            core.records.append(row)
            if count:
                if core.sanitizer is not None:
                    if a != d and a < d + nb and d < a + nb:
                        check_overlap(core, f, name, (nb + 255) >> 8, d, 256, 256, d + nb, a,
                                      256, 256, a + nb, "src0")
                    if b != d and b < d + nb and d < b + nb:
                        check_overlap(core, f, name, (nb + 255) >> 8, d, 256, 256, d + nb, b,
                                      256, 256, b + nb, "src1")
                sh = dt.shift
                if variant is None:
                    op = lit
                else:
                    m = memo
                    op = m[1] if m[0] is core.profile else pick(core.profile)
                if core.batch is not None:  # deferred: a known kind on a free pipe, inline
                    h = headers.get(op << 8 | dt.code)
                    if h is not None and not core.stalled:
                        core.batch.add(h, row)
                        return
                    if defer(core, op, dt, row):
                        return
                args = (op, dt.code, core.views[dt.code], d >> sh, a >> sh, b >> sh, count)
                ep = entries.get(op << 8 | dt.code) or compiled(dt, args)
                if core.stalled:
                    run_on_pipe(core, pipe_v, ep, args)
                else:
                    ep(*args)
    else:
        def call(dst: LocalTensor, src: LocalTensor, *rest, _f=None):
            f = _f or getframe(1)
            if len(rest) != 1 + has_scalar:  # (scalar,) count, or the repeat form
                return repeat_form(dst, (src,), rest[0] if has_scalar and rest else 0,
                                   rest[has_scalar:], f)
            count = rest[has_scalar]
            if type(count) is not int:
                count = as_count(count)
            dt = dst.dtype
            nb = count * dt.size
            d, s = dst.addr, src.addr
            if (dt not in allowed or src.dtype is not dt or (d | s) & 31 or count < 0
                    or nb > dst.size * dt.size or nb > src.size * dt.size):
                count = recover_count(core_of(dst, src), fail(count, dst, src), f, count,
                                      ((d, dt.size, 1), (s, dt.size, 1)), name)
                if count is None:
                    return
                nb = count * dt.size
            if check is not None and (why := check(dt, rest[0])) is not None:
                return fault(core_of(dst, src), ParameterError(f"{name}: {why}"), f,
                             instruction=name)
            core = dst.core
            if core.vmask is not None:
                core.vmask = None  # the count form ends in Normal mode with a full mask
            bits = dt.scalar_bits(rest[0]) if has_scalar else 0
            row = vector_row2(iid, pipe_v, f.f_code, f.f_lasti, dt.code, count, (nb + 255) >> 8,
                              0, bits, d, d + nb, s, s + nb)
            core.records.append(row)
            if count:
                if core.sanitizer is not None and s != d and s < d + nb and d < s + nb:
                    check_overlap(core, f, name, (nb + 255) >> 8, d, 256, 256, d + nb, s,
                                  256, 256, s + nb)
                sh = dt.shift
                if variant is None:
                    op = lit
                else:
                    m = memo
                    op = m[1] if m[0] is core.profile else pick(core.profile)
                if core.batch is not None:  # deferred: a known kind on a free pipe, inline
                    h = headers.get(op << 8 | dt.code)
                    if h is not None and not core.stalled:
                        core.batch.add(h, row)
                        return
                    if defer(core, op, dt, row):
                        return
                if has_scalar:
                    args = (op, dt.code, core.views[dt.code], d >> sh, s >> sh, count, bits)
                else:
                    args = (op, dt.code, core.views[dt.code], d >> sh, s >> sh, count)
                ep = entries.get(op << 8 | dt.code) or compiled(dt, args)
                if core.stalled:
                    run_on_pipe(core, pipe_v, ep, args)
                else:
                    ep(*args)

    def repeat_form(dst, srcs, value, rest, f, is_set_mask=True):
        core = core_of(dst, *srcs)
        mode = 0
        if level0_flag and len(rest) == 4:  # ShiftRight's roundEn: recorded as MODE 1
            mode = 1 if rest[3] else 0
            rest = rest[:3]
        if len(rest) != 3:
            return fault(core, ParameterError(
                f"{name}: expected (..., count) or (..., mask, repeatTime, repeatParams), got "
                f"{len(rest)} trailing argument(s)"), f, instruction=name)
        mask, repeat, params = rest
        dt = dst.dtype
        if dt not in allowed or any(s.dtype is not dt for s in srcs):
            return fault(core, _dtype_error(name, allowed, dst, *srcs), f, instruction=name)
        if check is not None and (why := check(dt, value)) is not None:
            return fault(core, ParameterError(f"{name}: {why}"), f, instruction=name)
        repeat = as_count(repeat, "repeatTime")
        if not 0 <= repeat <= MAX_REPEAT_TIMES:
            return fault(core, ParameterError(f"{name}: repeatTime {repeat} is out of range "
                                              f"[0, {MAX_REPEAT_TIMES}]"), f, instruction=name)
        try:
            lo, hi, counted = level0_mask(core, name, dt, mask, is_set_mask)
        except ParameterError as e:
            return fault(core, e, f, instruction=name)
        if n_src == 2:
            if not isinstance(params, BinaryRepeatParams):
                return fault(core, ParameterError(f"{name}: the high-dimension form takes "
                                                  f"BinaryRepeatParams, got {params!r}"), f,
                             instruction=name)
            blk = (params.dstBlkStride, params.src0BlkStride, params.src1BlkStride)
            rep = (params.dstRepStride, params.src0RepStride, params.src1RepStride)
        else:
            if not isinstance(params, UnaryRepeatParams):
                return fault(core, ParameterError(f"{name}: the high-dimension form takes "
                                                  f"UnaryRepeatParams, got {params!r}"), f,
                             instruction=name)
            blk = (params.dstBlkStride, params.srcBlkStride)
            rep = (params.dstRepStride, params.srcRepStride)
        if blk[0] == 0:
            return fault(core, ParameterError(f"{name}: dstBlkStride 0 is undefined on "
                                              "hardware"), f, instruction=name)
        epb = 32 // dt.size
        operands = (dst, *srcs)
        repeat = counter_repeats(core, f, name, dt, counted, repeat)
        repeat = _fit_repeats(core, f, name, dt, epb, operands, blk, rep, repeat, counted)
        if repeat is None:
            return
        total = lane_count(counted, repeat, epb)
        accesses: list[int] = []
        for i, t in enumerate(operands):
            extent = strided_extent(repeat, epb, blk[i], rep[i], dt.size, total)
            accesses += [(W if i == 0 else 0) | STRIDED, MEM_UB, t.addr, t.addr + extent]
        core = dst.core
        row = rec.row(iid, PIPE_V, f.f_code, f.f_lasti, dt.code,
                      total, repeat, mode,
                      dt.scalar_bits(value) if has_scalar else 0,
                      (rec.signed64(lo), rec.signed64(hi), *blk, *rep), tuple(accesses))
        core.records.append(row)
        if repeat == 0:
            return
        if core.sanitizer is not None:
            _check_strided_overlap(core, f, name, repeat, dt.size, operands, blk, rep, lo, hi)
        form, lits = work.bind(row, core.profile)
        _run_row(core, work, form, lits, row)

    n_lead = n_src + has_scalar

    def run(f, is_set_mask: bool, dst: LocalTensor, *args):
        """`Name[T]` / `Name[T, isSetMask]`: the count form takes no isSetMask."""
        rest = args[n_lead:]
        if not is_set_mask and (len(rest) == 3 or level0_flag and len(rest) == 4):
            return repeat_form(dst, args[:n_src], args[n_src] if has_scalar else 0, rest, f,
                               is_set_mask=False)
        if not is_set_mask and len(rest) == 1:
            return count_form_refusal(name, core_of(dst), f)
        return call(dst, *args, _f=f)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = (f"AscendC `{name}` ({form}): {ins.doc}; dtypes: "
                    f"{', '.join(sorted(map(str, allowed)))}.")
    return templated(call, run)


def _fit_repeats(core, f, name: str, dt: DType, epb: int, operands: tuple, blk: tuple,
                 rep: tuple, repeat: int, counted: int = -1) -> int | None:
    """The repeats to execute: all of them, or (check mode, an operand larger than its tensor
    or misaligned: reported) fewer, so that every operand stays inside the UB; None: skip."""
    for i, t in enumerate(operands):
        extent = strided_extent(repeat, epb, blk[i], rep[i], dt.size,
                                lane_count(counted, repeat, epb))
        role = "dst" if i == 0 else f"src{i - 1}"
        if t.addr & 31 or extent > t.size * dt.size:
            err = operand_error(name, extent // dt.size, ((role, t),))
            if recover_count(core, err, f, 0, (), name) is None:
                return None
            while repeat and any(
                    x.addr + strided_extent(repeat, epb, blk[k], rep[k], dt.size,
                                            lane_count(counted, repeat, epb))
                    > core.ub.size for k, x in enumerate(operands)):
                repeat -= 1
            break
    return repeat


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


# One registry entry and one kernel-facing function per table line, under its AscendC name.
_index_in_form: dict[str, int] = {}
for _op in OPS:
    _i = _index_in_form.get(_op.form, 0)
    _index_in_form[_op.form] = _i + 1
    globals()[_op.name] = _front_end(_register(_op, _i), _op.form, _i, _op)
__all__ = [op.name for op in OPS] + ["Duplicate", "OPS"]
KERNEL_SURFACE = (*(op.name for op in OPS), "Duplicate")

# ---- Duplicate ---------------------------------------------------------------------------------

DUPLICATE_DTYPES = (int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float)
_DUP = register(
    "Duplicate", family="vector", pipe=PIPE_V,
    operands=(Operand("dst", _ELEMENT, True), Operand("scalarValue", AccessPattern.NONE)),
    dataflow=Dataflow.FILL, cost=Cost(CostKind.VECTOR, "Duplicate"),
    signatures=tuple(Signature((t, t)) for t in DUPLICATE_DTYPES),
    work=Work({"count": fill_count, "repeat": fill_repeat}, bind=lambda row, profile: (
        "repeat" if row[NPARAM] else "count", (row[DTYPE], 0, 0))),
    cpp=(CppDecl("template <typename T>\n__aicore__ void Duplicate(const LocalTensor<T> &dst, "
                 "const ScalarT<T> &scalarValue, const int32_t &count);"),
         CppDecl("template <typename T, bool isSetMask = true>\n__aicore__ void Duplicate("
                 "const LocalTensor<T> &dst, const ScalarT<T> &scalarValue, uint64_t mask, "
                 "const uint8_t repeatTime, const uint16_t dstBlockStride, "
                 "const uint8_t dstRepeatStride);"),
         CppDecl("template <typename T, bool isSetMask = true>\n__aicore__ void Duplicate("
                 "const LocalTensor<T> &dst, const ScalarT<T> &scalarValue, "
                 "const uint64_t mask[], const uint8_t repeatTime, "
                 "const uint16_t dstBlockStride, const uint8_t dstRepeatStride);")),
    doc="fill elements with a scalar")


_FILL: dict[int, object] = {}  # dtype code -> the compiled fill loop


def _duplicate(dst: LocalTensor, scalarValue: object, *rest, _f=None,
               is_set_mask: bool = True) -> None:
    """`Duplicate(dst, scalar, count)` (or the high-dimension form with a mask)."""
    f = _f or sys._getframe(1)
    dt = dst.dtype
    allowed = _DUP.dtypes
    if dt not in allowed:
        return fault(core_of(dst), _dtype_error("Duplicate", allowed, dst), f,
                     instruction="Duplicate")
    if len(rest) == 1:
        count = rest[0]
        if type(count) is not int:
            count = as_count(count)
        nb = count * dt.size
        if dst.addr & 31 or count < 0 or nb > dst.size * dt.size:
            count = recover_count(core_of(dst), operand_error("Duplicate", count,
                                                              (("dst", dst),)),
                                  f, count, ((dst.addr, dt.size, 1),), "Duplicate")
            if count is None:
                return
            nb = count * dt.size
        if not is_set_mask:
            return count_form_refusal("Duplicate", core_of(dst), f)
        core = dst.core
        core.vmask = None  # the count form ends in Normal mode with a full mask
        bits = dt.scalar_bits(scalarValue)
        row = rec.vector_row1(_DUP.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count,
                              (nb + 255) >> 8, 0, bits, dst.addr, dst.addr + nb)
        core.records.append(row)
        # Duplicate's bind reads NPARAM (0) and DTYPE
        if count and not (core.batch is not None and
                          defer_row(core, PIPE_V, _DUP, row, key=(dt.code, len(row)))):
            args = (dt.code, core.uviews[dt.code], dst.addr >> dt.shift, count, bits)
            ep = _FILL.get(dt.code)
            if ep is None:
                ep = _FILL[dt.code] = compile_loop(fill_loop, args, 1)
            run_on_pipe(core, PIPE_V, ep, args)
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
    blk, rep = int(dst_blk), int(dst_rep)
    if blk == 0:
        return fault(core, ParameterError("Duplicate: dstBlockStride 0 is undefined on "
                                          "hardware"), f, instruction="Duplicate")
    try:
        lo, hi, counted = level0_mask(core, "Duplicate", dt, mask, is_set_mask)
    except ParameterError as e:
        return fault(core, e, f, instruction="Duplicate")
    epb = 32 // dt.size
    repeat = counter_repeats(core, f, "Duplicate", dt, counted, repeat)
    repeat = _fit_repeats(core, f, "Duplicate", dt, epb, (dst,), (blk,), (rep,), repeat,
                          counted)
    if repeat is None:
        return
    total = lane_count(counted, repeat, epb)
    extent = strided_extent(repeat, epb, blk, rep, dt.size, total)
    core = dst.core
    row = rec.row(_DUP.id, PIPE_V, f.f_code, f.f_lasti, dt.code, total,
                  repeat, 0, dt.scalar_bits(scalarValue),
                  (rec.signed64(lo), rec.signed64(hi), blk, rep),
                  (W | STRIDED, MEM_UB, dst.addr, dst.addr + extent))
    core.records.append(row)
    if repeat:
        form, lits = _DUP.work.bind(row, core.profile)
        _run_row(core, _DUP.work, form, lits, row)


_duplicate.__name__ = _duplicate.__qualname__ = "Duplicate"
Duplicate = templated(_duplicate, lambda f, is_set_mask, *args: _duplicate(
    *args, _f=f, is_set_mask=is_set_mask))
