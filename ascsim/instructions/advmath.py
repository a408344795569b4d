"""High-level math with a temporary buffer: `Sigmoid`, `Tanh`, `Log`, `Log2`, `Log10`
(ascendc_more.md §5, "High-level math"; ASC `impl/adv_api/detail/...`).

Each takes `(dst, src, sharedTmpBuffer, calCount)` with a uint8 LocalTensor as the tmp, or
`(dst, src, calCount)`: then the tmp is all free UB after the TPipe's buffers (from the end of
the last InitBuffer up to the library temp area at TMP_UB_OFFSET), which the call clobbers.
The minimum tmp sizes of the table are checked. The work is split into chunks that fit the
tmp and each chunk runs the composition of the table as ascsim's own instructions, recorded at
the kernel's line, so the bits are exactly those of the composition and the timeline shows
the sub-instructions:

- Sigmoid (half, float; tmp >= 256 B): Muls(dst, src, -1) -> Exp(dst) -> Adds(dst, 1) ->
  Duplicate(tmp, 1) -> Div(dst, tmp, dst); dst is the scratch.
- Tanh (half, float; tmp >= 256 B for float, 1024 B for half): in fp32 (half is Cast to fp32 in
  the tmp and back with CAST_RINT): Mins(8.8) -> Maxs(-8.8) -> Muls(2) -> Exp -> Adds(tmp, -1) ->
  Adds(1) -> Div(tmp / x).
- The profile option `advmath_impl = "reciprocal"` ends both in a Reciprocal of the denominator
  instead (Sigmoid: ... Adds(dst, 1) -> Reciprocal(dst); Tanh: ... Exp -> Adds(1) ->
  Reciprocal -> Muls(-2) -> Adds(1), i.e. 1 - 2/(e^2x + 1)); the default "div" is the above.
- Log (half, float; no tmp): Ln. Log2 / Log10: Ln, then Muls by 1/ln 2 or 1/ln 10 (the fp32
  constants); half goes through fp32 in the tmp (tmp >= max(4 * calCount, 256) B, chunked).

Being compositions, they follow the profile's numerics options of their parts (`exp_impl`,
`ln_impl`, `div_impl`; numerics.py). The library's own algorithms are not public; no option
replaces a whole composition (e.g. by one correctly rounded sigmoid); `advmath_impl` chooses
between the two quotient forms above.

The library runs the chunks in Counter mode with isSetMask=false level-0 calls; ascsim issues
the equivalent count-form calls (same lanes, same bits). Afterwards the core is in Normal mode
with a full mask (`SetMaskNorm(); ResetMask()`). Each call also leaves one record of its own
(on the scalar pipe: the API's chunk bookkeeping; no memory: its sub-instructions carry the
accesses). Power is in power.py (its A2 composition is unknown: one vector instruction of
its own, profile option `power_impl = powf`). Not modelled: Sin, Cos.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from .. import records as rec
from ..core import PIPE_S
from ..dtypes import DType, float, half, uint8_t
from ..errors import OutOfRangeError, ParameterError
from ..faults import fault
from ..memory import LocalTensor
from ..registry import (
    AccessPattern,
    Cost,
    CostKind,
    CppDecl,
    Dataflow,
    Operand,
    Signature,
    register,
)
from . import elementwise as ew
from .cast import RoundMode, _cast
from .common import as_count, core_of, operand_error

__all__ = ["Sigmoid", "Tanh", "Log", "Log2", "Log10", "ADV_OPS"]
KERNEL_SURFACE = ("Sigmoid", "Tanh", "Log", "Log2", "Log10")

TANH_CLIP = np.float32(8.8)
INV_LN2 = np.float32(1.0 / math.log(2.0))
INV_LN10 = np.float32(1.0 / math.log(10.0))


def _min_tmp(name: str, dt: DType, count: int) -> int:
    if name == "Sigmoid":
        return 256
    if name == "Tanh":
        return 256 if dt is float else 1024
    if name in ("Log2", "Log10") and dt is half:
        return max(4 * count, 256)
    return 0


def _cpp(name: str) -> tuple[CppDecl, ...]:
    return (CppDecl(f"template <typename T, bool isReuseSource = false>\n__aicore__ void {name}("
                    "const LocalTensor<T> &dst, const LocalTensor<T> &src, "
                    "const LocalTensor<uint8_t> &sharedTmpBuffer, const uint32_t calCount);"),
            CppDecl(f"template <typename T, bool isReuseSource = false>\n__aicore__ void {name}("
                    "const LocalTensor<T> &dst, const LocalTensor<T> &src, "
                    "const uint32_t calCount);"))


_DOCS = {
    "Sigmoid": "1 / (1 + e^-x) as Muls, Exp, Adds, Duplicate, Div over a tmp buffer",
    "Tanh": "tanh in fp32 as clip +-8.8, Exp(2x), (e - 1) / (e + 1) over a tmp buffer",
    "Log": "natural logarithm (Ln)",
    "Log2": "Ln then Muls by 1/ln 2 (half through fp32 in a tmp buffer)",
    "Log10": "Ln then Muls by 1/ln 10 (half through fp32 in a tmp buffer)",
}
ADV_OPS = {
    name: register(
        name, family="scalar", pipe=PIPE_S,
        operands=(Operand("dst", AccessPattern.NONE), Operand("src", AccessPattern.NONE),
                  Operand("sharedTmpBuffer", AccessPattern.NONE)),
        dataflow=Dataflow.STATE, cost=Cost(CostKind.SCALAR),
        signatures=(Signature((half, half, uint8_t)), Signature((float, float, uint8_t))),
        work=None, cpp=_cpp(name),
        doc=f"high-level API: {doc}; the record is its scalar bookkeeping, the vector work is "
            "its recorded sub-instructions")
    for name, doc in _DOCS.items()}


def _tmp_region(core, f, name: str, tmp: object, need: int) -> tuple[int, int] | None:
    """(UB address, bytes) of the tmp: the sharedTmpBuffer, or the free UB after the TPipe."""
    if tmp is not None:
        if not isinstance(tmp, LocalTensor) or tmp.dtype is not uint8_t:
            fault(core, ParameterError(f"{name}: sharedTmpBuffer must be a "
                                       f"LocalTensor<uint8_t>, got {tmp!r}"), f,
                  instruction=name)
            return None
        if tmp.addr & 31:
            fault(core, operand_error(name, 0, (("sharedTmpBuffer", tmp),)), f,
                  instruction=name)
            return None
        start, size = tmp.addr, tmp.size
    else:
        pipe = core.pipe
        if pipe is None:
            fault(core, ParameterError(f"{name} without sharedTmpBuffer uses the free UB after "
                                       "the TPipe's buffers: create a TPipe first"), f,
                  instruction=name)
            return None
        start = (int(pipe.cursor) + 31) // 32 * 32
        size = max(core.profile.tmp_ub_offset - start, 0) // 32 * 32
    if size < need:
        fault(core, OutOfRangeError(
            f"{name}: the tmp buffer has {size} bytes, the API needs at least {need}",
            byte_range=f"UB [{start}, {start + size})"), f, instruction=name)
        return None
    return start, size


def _run(name: str, dst: LocalTensor, src: LocalTensor, rest: tuple, f) -> None:
    core = core_of(dst, src)
    if len(rest) == 2:
        tmp, count = rest
    elif len(rest) == 1:
        tmp, count = None, rest[0]
    else:
        return fault(core, ParameterError(
            f"{name}: expected (dst, src, sharedTmpBuffer, calCount) or (dst, src, calCount)"),
            f, instruction=name)
    dt = getattr(dst, "dtype", None)
    if dt not in (half, float) or getattr(src, "dtype", None) is not dt:
        return fault(core, ParameterError(
            f"{name}: dst and src must share one dtype from {{half, float}}, got "
            f"({dt}, {getattr(src, 'dtype', src)})"), f, instruction=name)
    count = as_count(count, "calCount")
    for role, t in (("dst", dst), ("src", src)):
        if count < 0 or t.addr & 31 or count > t.size:
            return fault(core, operand_error(name, count, ((role, t),)), f, instruction=name)
    need = _min_tmp(name, dt, count)
    region = _tmp_region(core, f, name, tmp, need) if need or tmp is not None else (0, 0)
    if region is None:
        return
    start, size = region
    core = dst.core
    core.records.append(rec.row(ADV_OPS[name].id, PIPE_S, f.f_code, f.f_lasti, dt.code, count,
                                0, 0, 0, (), ()))
    epb = 32 // dt.size
    if name == "Log":
        if count:
            ew.Ln(dst, src, count, _f=f)
        return
    if name in ("Log2", "Log10") and dt is float:
        if count:
            ew.Ln(dst, src, count, _f=f)
            ew.Muls(dst, dst, INV_LN2 if name == "Log2" else INV_LN10, count, _f=f)
        return
    reciprocal = core.profile.advmath_impl == "reciprocal"
    # chunk size: elements of T the tmp holds (fp32 copies for half in Tanh/Log2/Log10)
    per_elem = {"Sigmoid": dt.size, "Tanh": 4 if dt is float else 8}.get(name, 4)
    chunk = size // per_elem // epb * epb
    off = 0
    while off < count:
        k = min(chunk, count - off)
        d, s = dst[off], src[off]
        if name == "Sigmoid":
            ew.Muls(d, s, -1.0, k, _f=f)
            ew.Exp(d, d, k, _f=f)
            ew.Adds(d, d, 1.0, k, _f=f)
            if reciprocal:
                ew.Reciprocal(d, d, k, _f=f)
            else:
                t = LocalTensor(dt, core, start, k)
                ew._duplicate(t, 1.0, k, _f=f)
                ew.Div(d, t, d, k, _f=f)
        elif name == "Tanh":
            if dt is float:
                x, t = d, LocalTensor(float, core, start, k)
                ew.Mins(x, s, TANH_CLIP, k, _f=f)
            else:
                x = LocalTensor(float, core, start, k)
                t = LocalTensor(float, core, start + (4 * k + 31) // 32 * 32, k)
                _cast(x, s, RoundMode.CAST_NONE, k, _f=f)
                ew.Mins(x, x, TANH_CLIP, k, _f=f)
            ew.Maxs(x, x, -TANH_CLIP, k, _f=f)
            ew.Muls(x, x, 2.0, k, _f=f)
            ew.Exp(x, x, k, _f=f)
            if reciprocal:  # 1 - 2 / (e + 1)
                ew.Adds(x, x, 1.0, k, _f=f)
                ew.Reciprocal(x, x, k, _f=f)
                ew.Muls(x, x, -2.0, k, _f=f)
                ew.Adds(x, x, 1.0, k, _f=f)
            else:  # (e - 1) / (e + 1)
                ew.Adds(t, x, -1.0, k, _f=f)
                ew.Adds(x, x, 1.0, k, _f=f)
                ew.Div(x, t, x, k, _f=f)
            if dt is half:
                _cast(d, x, RoundMode.CAST_RINT, k, _f=f)
        else:  # Log2 / Log10 on half: through fp32 in the tmp
            x = LocalTensor(float, core, start, k)
            _cast(x, s, RoundMode.CAST_NONE, k, _f=f)
            ew.Ln(x, x, k, _f=f)
            ew.Muls(x, x, INV_LN2 if name == "Log2" else INV_LN10, k, _f=f)
            _cast(d, x, RoundMode.CAST_RINT, k, _f=f)
        off += k
    core.vmask = None  # SetMaskNorm(); ResetMask()


class _AdvCall:
    """`Name(...)` or `Name[T]` / `Name[T, isReuseSource](...)` (isReuseSource: no effect)."""

    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __call__(self, dst: LocalTensor, src: LocalTensor, *rest) -> None:
        return _run(self.__name__, dst, src, rest, sys._getframe(1))

    def __getitem__(self, targs: object):
        key = targs if isinstance(targs, tuple) else (targs,)
        name = self.__name__
        if not 1 <= len(key) <= 2 or not isinstance(key[0], DType):
            raise ParameterError(f"{name}[T] or {name}[T, isReuseSource]: got {targs!r}")

        def variant(dst: LocalTensor, src: LocalTensor, *rest) -> None:
            f = sys._getframe(1)
            if getattr(dst, "dtype", None) is not key[0]:
                return fault(core_of(dst), ParameterError(
                    f"{name}<{key[0]}>: dst is {getattr(dst, 'dtype', dst)}"), f,
                    instruction=name)
            return _run(name, dst, src, rest, f)
        return variant

    def __repr__(self) -> str:
        return f"<AscendC {self.__name__}>"


Sigmoid = _AdvCall("Sigmoid")
Tanh = _AdvCall("Tanh")
Log = _AdvCall("Log")
Log2 = _AdvCall("Log2")
Log10 = _AdvCall("Log10")
