"""`Cast(dst, src, roundMode, count)`: type conversion with an explicit RoundMode.

Which (source, destination, mode) triples A2/A3 accept is the table below (Cast.md); anything
else raises `CastRuleError` quoting the rule. The conversions themselves are convert.py's
bit-exact numba loops; saturation follows the hardware profile.
"""

from __future__ import annotations

import sys
from enum import IntEnum

from .. import convert
from ..core import MEM_UB, PIPE_V
from ..dtypes import DType, bfloat16_t, float, half, int32_t
from ..errors import CastRuleError
from ..memory import LocalTensor
from ..registry import W, register
from ..sanitizer.online import fault
from ..sync import run_on_pipe
from .common import (
    as_count,
    check_overlap,
    core_of,
    operand_error,
    recover_count,
    run_snapshotted,
)
from .jitcall import entry_point

__all__ = ["Cast", "RoundMode", "CAST_RULES"]


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

_CAST = register("Cast", PIPE_V, "vector", "Cast",
                 tuple({t for pair in CAST_RULES for t in pair}),
                 doc="type conversion with a RoundMode")
_entries: dict[tuple[int, int], object] = {}


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
    core.records.append((_CAST.id, PIPE_V, f.f_code, f.f_lasti, ddt.code, count,
                         (count * wide + 255) >> 8, int(roundMode), W, MEM_UB, d, d + dn, 0,
                         MEM_UB, s, s + sn))
    if not count:
        return
    so, snaps = s // sdt.size, ()
    if s < d + dn and d < s + sn and not (s == d and sn == dn):
        so, snaps = 0, ((2, s),)  # partial overlap: the loop reads a snapshot of src
        # a repeat covers 256 bytes of the wider type
        check_overlap(core, f, "Cast", -(-count * wide // 256), d, 256 * ddt.size // wide,
                      256 * ddt.size // wide, d + dn, s, 256 * sdt.size // wide,
                      256 * sdt.size // wide, s + sn)
    args = (core.views[ddt.code], d // ddt.size, core.views[sdt.code], so, count,
            int(roundMode), core.profile.saturation)
    key = (sdt.code, ddt.code)
    ep = _entries.get(key)
    if ep is None:
        ep = _entries[key] = entry_point(rule[1], ("Cast",) + key, args, 0)
    if core.stalled or snaps:
        run_on_pipe(core, PIPE_V, run_snapshotted, (core, ep, args, snaps, sn, sdt))
    else:
        ep(*args)
