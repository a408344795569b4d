"""`Cast(dst, src, roundMode, count)`: type conversion with an explicit RoundMode.

Which (source, destination, mode) triples A2/A3 accept is the table below (Cast.md); anything
else raises `CastRuleError` quoting the rule. The conversions themselves are convert.py's
bit-exact numba loops; saturation follows the hardware profile.
"""

from __future__ import annotations

import sys
from enum import IntEnum

from numba import literally, njit, types
from numba.extending import overload

from .. import convert
from .. import records as rec
from ..core import PIPE_V
from ..dtypes import DType, bfloat16_t, float, half, int32_t
from ..errors import CastRuleError
from ..faults import fault
from ..memory import LocalTensor
from ..records import COUNT, DTYPE, MODE, params_of, start_fields
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
from ..workcall import compile_loop
from .common import as_count, check_overlap, core_of, operand_error, recover_count
from .worklib import JIT, shift, view

__all__ = ["Cast", "RoundMode", "CAST_RULES"]
KERNEL_SURFACE = ("Cast", "RoundMode")


class RoundMode(IntEnum):
    """AscendC `RoundMode`, in enum order."""

    CAST_NONE = convert.CAST_NONE
    CAST_RINT = convert.CAST_RINT
    CAST_FLOOR = convert.CAST_FLOOR
    CAST_CEIL = convert.CAST_CEIL
    CAST_ROUND = convert.CAST_ROUND
    CAST_TRUNC = convert.CAST_TRUNC
    CAST_ODD = convert.CAST_ODD


_R = RoundMode
_DIRECTED = frozenset({_R.CAST_RINT, _R.CAST_FLOOR, _R.CAST_CEIL, _R.CAST_ROUND, _R.CAST_TRUNC})

# (src, dst) -> (allowed modes, numba loop, the rule as documented)
CAST_RULES: dict[tuple[DType, DType], tuple[frozenset[RoundMode], object, str]] = {
    (half, float): (frozenset({_R.CAST_NONE}), convert.cast_f16_to_f32,
                    "half -> float is exact and takes only CAST_NONE"),
    (bfloat16_t, float): (frozenset({_R.CAST_NONE}), convert.cast_bf16_to_f32,
                          "bfloat16_t -> float is exact and takes only CAST_NONE"),
    (float, half): (_DIRECTED | {_R.CAST_ODD, _R.CAST_NONE}, convert.cast_f32_to_f16,
                    "float -> half takes CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, "
                    "CAST_TRUNC, CAST_ODD or CAST_NONE (= CAST_RINT)"),
    (float, bfloat16_t): (_DIRECTED, convert.cast_f32_to_bf16,
                          "float -> bfloat16_t takes CAST_RINT, CAST_FLOOR, CAST_CEIL, "
                          "CAST_ROUND or CAST_TRUNC (no CAST_NONE, no CAST_ODD on A2/A3)"),
    (float, float): (_DIRECTED, convert.cast_f32_to_f32,
                     "float -> float rounds to an integral value and takes CAST_RINT, "
                     "CAST_FLOOR, CAST_CEIL, CAST_ROUND or CAST_TRUNC"),
    # The fact sheet has no int32 rows; these follow the float -> float pattern [assumed].
    (float, int32_t): (_DIRECTED, convert.cast_f32_to_i32,
                       "float -> int32_t takes CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND or "
                       "CAST_TRUNC [assumed]"),
    (int32_t, float): (_DIRECTED | {_R.CAST_NONE}, convert.cast_i32_to_f32,
                       "int32_t -> float takes CAST_NONE (= CAST_RINT), CAST_RINT, CAST_FLOOR, "
                       "CAST_CEIL, CAST_ROUND or CAST_TRUNC [assumed]"),
}
_LOOPS = {(s.code, d.code): loop for (s, d), (_, loop, _) in CAST_RULES.items()}


def _cast_loop(scode, dcode, dst, doff, src, soff, n, mode, saturate):  # stub (see overload)
    pass


@overload(_cast_loop, jit_options=JIT)
def _ov_cast_loop(scode, dcode, dst, doff, src, soff, n, mode, saturate):
    if isinstance(scode, types.IntegerLiteral) and isinstance(dcode, types.IntegerLiteral):
        loop = _LOOPS[(scode.literal_value, dcode.literal_value)]
        return lambda scode, dcode, dst, doff, src, soff, n, mode, saturate: loop(
            dst, doff, src, soff, n, mode, saturate)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_loop(scode, dcode, saturate, dv, d, sv, s, n, mode):
    """Convert elements [s, s + n) of sv into [d, d + n) of dv (views of one UB) with `mode`;
    a source that partially overlaps the destination is read as a snapshot."""
    literally(scode)
    literally(dcode)
    literally(saturate)
    db, dn = d << shift(dcode), n << shift(dcode)
    sb, sn = s << shift(scode), n << shift(scode)
    if sb < db + dn and db < sb + sn and not (sb == db and sn == dn):
        _cast_loop(scode, dcode, dv, d, sv[s:s + n].copy(), 0, n, mode, saturate == 1)
    else:
        _cast_loop(scode, dcode, dv, d, sv, s, n, mode, saturate == 1)


# Row layout: params (source dtype code,), then the dst and src accesses.
_DST, _SRC = start_fields(1, 2)


@njit(cache=True, nogil=True, error_model="numpy")
def cast_count(scode, dcode, saturate, ub, gm, row):
    cast_loop(scode, dcode, saturate, view(dcode, ub), row[_DST] >> shift(dcode),
              view(scode, ub), row[_SRC] >> shift(scode), row[COUNT], row[MODE])


def _bind(row: tuple, profile: object) -> tuple[str, tuple[int, int, int]]:
    """Literals: the source dtype (the row's param), the destination dtype and the profile's
    saturation."""
    return "count", (params_of(row)[0], row[DTYPE], int(profile.saturation))


_CAST = register(
    "Cast", family="vector", pipe=PIPE_V,
    operands=(Operand("dst", AccessPattern.ELEMENTWISE, True),
              Operand("src", AccessPattern.ELEMENTWISE, dtype_param=0)),
    dataflow=Dataflow.ELEMENTWISE, cost=Cost(CostKind.VECTOR, "Cast"),
    signatures=tuple(Signature((d, s), frozenset(int(m) for m in modes), rule)
                     for (s, d), (modes, _, rule) in CAST_RULES.items()),
    work=Work({"count": cast_count}, bind=_bind),
    cpp=(CppDecl("template <typename T, typename U>\n__aicore__ void Cast(const LocalTensor<T> "
                 "&dst, const LocalTensor<U> &src, const RoundMode &roundMode, "
                 "const uint32_t count);"),),
    doc="type conversion with a RoundMode")
_entries: dict[tuple[int, int, int], object] = {}


def _rule_error(src: DType, dst: DType, mode: object) -> CastRuleError:
    rule = CAST_RULES.get((src, dst))
    if rule is None:
        pairs = ", ".join(f"{s} -> {d}" for s, d in CAST_RULES)
        return CastRuleError(f"Cast {src} -> {dst} does not exist on A2/A3 (Cast.md); the "
                             f"conversions are: {pairs}")
    try:
        name = RoundMode(int(mode)).name
    except ValueError:
        name = repr(mode)
    return CastRuleError(f"Cast {src} -> {dst} with {name} is illegal on A2/A3: {rule[2]} "
                         "(Cast.md)")


def Cast(dst: LocalTensor, src: LocalTensor, roundMode: RoundMode, count: int) -> None:
    """`Cast(dst, src, roundMode, count)`: convert `count` elements of src into dst."""
    f = sys._getframe(1)
    if type(count) is not int:
        count = as_count(count)
    sdt, ddt = src.dtype, dst.dtype
    rule = CAST_RULES.get((sdt, ddt))
    if rule is None or roundMode not in rule[0]:
        return fault(core_of(dst, src), _rule_error(sdt, ddt, roundMode), f, instruction="Cast")
    dn, sn = count * ddt.size, count * sdt.size
    d, s = dst.addr, src.addr
    if (d | s) & 31 or count < 0 or dn > dst.size * ddt.size or sn > src.size * sdt.size:
        count = recover_count(core_of(dst, src),
                              operand_error("Cast", count, (("dst", dst), ("src", src))), f,
                              count, ((d, ddt.size, 1), (s, sdt.size, 1)), "Cast")
        if count is None:
            return
        dn, sn = count * ddt.size, count * sdt.size
    core = dst.core
    wide = max(ddt.size, sdt.size)
    row = rec.vector_row2p(_CAST.id, PIPE_V, f.f_code, f.f_lasti, ddt.code, count,
                           (count * wide + 255) >> 8, int(roundMode), 0, sdt.code, d, d + dn, s,
                           s + sn)
    core.records.append(row)
    if not count:
        return
    if core.sanitizer is not None and s < d + dn and d < s + sn and not (s == d and sn == dn):
        # a repeat covers 256 bytes of the wider type
        check_overlap(core, f, "Cast", -(-count * wide // 256), d, 256 * ddt.size // wide,
                      256 * ddt.size // wide, d + dn, s, 256 * sdt.size // wide,
                      256 * sdt.size // wide, s + sn)
    sat = core.profile.saturation
    args = (sdt.code, ddt.code, int(sat), core.views[ddt.code], d >> ddt.shift,
            core.views[sdt.code], s >> sdt.shift, count, int(roundMode))
    key = (sdt.code, ddt.code, sat)
    ep = _entries.get(key)
    if ep is None:
        ep = _entries[key] = compile_loop(cast_loop, args, 3)
    if core.stalled:
        run_on_pipe(core, PIPE_V, ep, args)
    else:
        ep(*args)
