"""High-level `Power` (ascendc_more.md §5, "High-level math": "composition UNKNOWN -> model as
powf in fp32; min tmp: float 1024-1280 + 256 B; half 1792 + 256 B").

AscendC `Power<T, isReuseSource = false>` in three operand forms, each with or without a
`sharedTmpBuffer` (a LocalTensor<uint8_t>; without it the tmp is all free UB after the TPipe's
buffers, as in advmath.py):

    Power(dst, src0Tensor, src1Tensor[, sharedTmpBuffer], calCount)   dst[i] = src0[i] ** src1[i]
    Power(dst, src0Tensor, src1Scalar[, sharedTmpBuffer], calCount)   dst[i] = src0[i] ** s
    Power(dst, src0Scalar, src1Tensor[, sharedTmpBuffer], calCount)   dst[i] = s ** src1[i]

for T = half and float (int32 is not modelled). Since the A2 composition of the library is not
public, ascsim models the whole call as one vector instruction of its own (registry entry
`Power`, recorded on PIPE_V, cost table `[cost.vector.Power]`, whose numbers are assumed) that
computes each element as one fp32 powf: the profile option `power_impl = "powf"` (its only
value) names this model. powf is taken correctly rounded: the float64 C `pow` of the two fp32
values, rounded once to float32 (so the IEEE 754 / C99 special cases hold: pow(x, +-0) = 1 even
for a NaN x, pow(1, y) = 1 even for a NaN y, pow(-1, +-inf) = 1, a negative finite base with a
finite non-integer exponent gives NaN, pow(+-0, negative odd integer) = +-inf, overflow gives
+-inf, ...; float64 pow of fp32 inputs could differ from the correctly rounded fp32 result only
by double rounding, which the tests search for). half operands are widened exactly to fp32 and
the fp32 result is rounded to half (nearest-even).

Minimum tmp sizes (the sheet's upper numbers): float 1280 + 256 B, half 1792 + 256 B, checked.
The call clobbers its tmp: the record holds a write of the tmp bytes it uses, modelled as
256 B plus 1280 B (float) or 1792 B (half) per 256-byte repeat of elements, up to the tmp's
size (the library works in chunks the tmp holds); the bytes' values are left as they were
(the intermediates are unknown), the sanitizer sees them written. The call ends in Normal mode
with a full mask (the library's `SetMaskNorm(); ResetMask()`).
"""

from __future__ import annotations

import math
import sys

import numpy as np
from numba import literally, njit

from .. import records as rec
from ..core import MEM_UB, PIPE_V
from ..dtypes import DType, float, half, uint8_t
from ..errors import ParameterError
from ..faults import fault
from ..memory import LocalTensor
from ..records import COUNT, DTYPE, MODE, SCALAR, W, start_fields
from ..registry import (
    AccessPattern,
    Cost,
    CostKind,
    CppDecl,
    Dataflow,
    Operand,
    Signature,
    Work,
    register,
)
from ..sync import run_on_pipe
from ..workcall import NO_GM
from .advmath import _tmp_region
from .common import as_count, core_of, operand_error
from .worklib import load, scalar, shift, source, store, view

__all__ = ["Power", "POWER", "power_tmp_min", "power_tmp_used"]
KERNEL_SURFACE = ("Power",)

TENSORS, TENSOR_SCALAR, SCALAR_TENSOR = 0, 1, 2  # the operand form (the row's MODE)
_IMPL = {"powf": 0}  # profile option power_impl -> the work's literal c
_UNIT = {4: 1280, 2: 1792}  # tmp bytes per 256-byte repeat of elements, by element size
_FIXED = 256


def power_tmp_min(dtype: DType) -> int:
    """The minimum sharedTmpBuffer of Power<T> in bytes (ascendc_more.md §5, upper numbers)."""
    return _FIXED + _UNIT[dtype.size]


def power_tmp_used(dtype: DType, count: int, size: int) -> int:
    """The tmp bytes a call of `count` elements writes (ascsim's model; see the module doc)."""
    per = 256 // dtype.size
    return min(size, _FIXED + (count + per - 1) // per * _UNIT[dtype.size]) if count else 0


@njit(cache=True, nogil=True, error_model="numpy")
def _powf(x, y):
    """fp32 powf, correctly rounded but for double rounding: C pow in float64, rounded once."""
    return np.float32(math.pow(np.float64(x), np.float64(y)))


# rows: no params; accesses dst, sharedTmpBuffer, then the tensor source(s)
_D, _T, _S0, _S1 = start_fields(0, 4)


@njit(cache=True, nogil=True, error_model="numpy")
def power_tensors(_form, code, impl, ub, gm, row):
    """dst = src0 ** src1 (rows: dst, tmp, src0, src1)."""
    literally(code)
    n = row[COUNT]
    if n == 0:
        return
    v = view(code, ub)
    sh = shift(code)
    d = row[_D] >> sh
    out = v[d:d + n]
    x = source(v, row[_S0] >> sh, d, n)
    y = source(v, row[_S1] >> sh, d, n)
    for i in range(n):
        out[i] = store(code, _powf(load(code, x[i]), load(code, y[i])))


@njit(cache=True, nogil=True, error_model="numpy")
def power_scalar(form, code, impl, ub, gm, row):
    """dst = src0 ** s (form 1) or s ** src1 (form 2) (rows: dst, tmp, the tensor source)."""
    literally(form)
    literally(code)
    n = row[COUNT]
    if n == 0:
        return
    v = view(code, ub)
    sh = shift(code)
    d = row[_D] >> sh
    out = v[d:d + n]
    c = scalar(code, row[SCALAR])
    x = source(v, row[_S0] >> sh, d, n)
    if form == 1:
        for i in range(n):
            out[i] = store(code, _powf(load(code, x[i]), c))
    else:
        for i in range(n):
            out[i] = store(code, _powf(c, load(code, x[i])))


def _bind(row: tuple, profile: object) -> tuple[str, tuple[int, int, int]]:
    return ("tensors" if row[MODE] == TENSORS else "scalar"), \
        (row[MODE], row[DTYPE], _IMPL[profile.power_impl])


_ELEMENT = AccessPattern.ELEMENTWISE
_T_ARGS = "template <typename T, bool isReuseSource = false>\n__aicore__ void Power("
_FORMS = ("const LocalTensor<T> &src0Tensor, const LocalTensor<T> &src1Tensor",
          "const LocalTensor<T> &src0Tensor, const T &src1Scalar",
          "const T &src0Scalar, const LocalTensor<T> &src1Tensor")
POWER = register(
    "Power", family="vector", pipe=PIPE_V,
    operands=(Operand("dst", _ELEMENT, True),
              Operand("sharedTmpBuffer", AccessPattern.REDUCE_SCRATCH, True),
              Operand("src0", _ELEMENT), Operand("src1", _ELEMENT)),
    dataflow=Dataflow.ELEMENTWISE, cost=Cost(CostKind.VECTOR, "Power"),
    signatures=(Signature((half, uint8_t, half, half)), Signature((float, uint8_t, float, float))),
    work=Work({"tensors": power_tensors, "scalar": power_scalar}, _bind),
    cpp=tuple(CppDecl(f"{_T_ARGS}const LocalTensor<T> &dstTensor, {form}{tmp}, "
                      "const uint32_t calCount);")
              for form in _FORMS
              for tmp in (", const LocalTensor<uint8_t> &sharedTmpBuffer", "")),
    doc="high-level API: dst = src0 ** src1 per element as one fp32 powf (tensor or scalar "
        "base and exponent; the A2 composition is not public, profile power_impl = powf); "
        "clobbers its tmp")


def _run(dst: LocalTensor, a: object, b: object, rest: tuple, f) -> None:
    name = "Power"
    core = core_of(dst, a, b)
    if len(rest) == 2:
        tmp, count = rest
    elif len(rest) == 1:
        tmp, count = None, rest[0]
    else:
        return fault(core, ParameterError(
            "Power: expected (dst, src0, src1[, sharedTmpBuffer], calCount)"), f,
            instruction=name)
    dt = getattr(dst, "dtype", None)
    a_t, b_t = isinstance(a, LocalTensor), isinstance(b, LocalTensor)
    if not (a_t or b_t):
        return fault(core, ParameterError(
            "Power: src0 and src1 cannot both be scalars (one must be a LocalTensor)"), f,
            instruction=name)
    if dt not in (half, float) or any(t.dtype is not dt for t, is_t in ((a, a_t), (b, b_t))
                                      if is_t):
        got = ", ".join(str(getattr(t, "dtype", type(t).__name__)) for t in (dst, a, b))
        return fault(core, ParameterError(
            f"Power: the tensors must share one dtype from {{float, half}}, got ({got})"), f,
            instruction=name)
    form = TENSORS if a_t and b_t else TENSOR_SCALAR if a_t else SCALAR_TENSOR
    value = b if form == TENSOR_SCALAR else a if form == SCALAR_TENSOR else 0
    try:
        count = as_count(count, "calCount")
        bits = dt.scalar_bits(value) if form != TENSORS else 0
    except (ParameterError, TypeError, ValueError) as e:
        return fault(core, e if isinstance(e, ParameterError) else ParameterError(
            f"Power: the scalar must be a number, got {value!r}"), f, instruction=name)
    srcs = tuple((role, t) for role, t, is_t in (("src0", a, a_t), ("src1", b, b_t)) if is_t)
    for role, t in (("dst", dst), *srcs):
        if count < 0 or t.addr & 31 or count > t.size:
            return fault(core, operand_error(name, count, ((role, t),)), f, instruction=name)
    region = _tmp_region(core, f, name, tmp, power_tmp_min(dt))
    if region is None:
        return
    start, size = region
    core = dst.core
    nb = count * dt.size
    used = power_tmp_used(dt, count, size)
    accesses = [W, MEM_UB, dst.addr, dst.addr + nb, W, MEM_UB, start, start + used]
    for _, t in srcs:
        accesses += [0, MEM_UB, t.addr, t.addr + nb]
    row = rec.row(POWER.id, PIPE_V, f.f_code, f.f_lasti, dt.code, count, (nb + 255) >> 8,
                  form, bits, (), tuple(accesses))
    core.records.append(row)
    core.vmask = None  # SetMaskNorm(); ResetMask()
    if count:
        form_name, lits = POWER.work.bind(row, core.profile)
        ep = POWER.work.entry(form_name, lits, len(row))
        run_on_pipe(core, PIPE_V, ep, (*lits, core.ub, NO_GM, rec.program_row(row)))


class _PowerCall:
    """`Power(...)` or `Power[T]` / `Power[T, isReuseSource](...)` (isReuseSource: no effect)."""

    __name__ = "Power"

    def __call__(self, dst: LocalTensor, src0: object, src1: object, *rest) -> None:
        return _run(dst, src0, src1, rest, sys._getframe(1))

    def __getitem__(self, targs: object):
        key = targs if isinstance(targs, tuple) else (targs,)
        if not 1 <= len(key) <= 2 or not isinstance(key[0], DType) or \
                len(key) == 2 and not isinstance(key[1], bool):
            raise ParameterError(f"Power[T] or Power[T, isReuseSource]: got {targs!r}")

        def variant(dst: LocalTensor, src0: object, src1: object, *rest) -> None:
            f = sys._getframe(1)
            if getattr(dst, "dtype", None) is not key[0]:
                return fault(core_of(dst), ParameterError(
                    f"Power<{key[0]}>: dst is {getattr(dst, 'dtype', dst)}"), f,
                    instruction="Power")
            return _run(dst, src0, src1, rest, f)
        variant.__name__ = f"Power<{key[0]}>"
        return variant

    def __repr__(self) -> str:
        return "<AscendC Power>"


Power = _PowerCall()
