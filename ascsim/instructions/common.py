"""What the kernel-facing functions of the vector instructions share: repeat parameters, masks,
operand checks and the overlap rules.

The checks here run on every call, so the common case is a few integer tests; the detailed
error text is only built when a check fails.
"""

from __future__ import annotations

from ..core import CoreState, _tls
from ..dtypes import DType
from ..errors import AlignmentError, OutOfRangeError, ParameterError
from ..faults import fault, note
from ..memory import LocalTensor

__all__ = ["RepeatParams", "UnaryRepeatParams", "BinaryRepeatParams", "expand_mask",
           "operand_error", "MAX_REPEAT_TIMES", "REPEAT_BYTES", "BLOCK_BYTES", "as_count",
           "recover_count", "check_overlap", "core_of"]

KERNEL_SURFACE = ("UnaryRepeatParams", "BinaryRepeatParams")

REPEAT_BYTES = 256   # one vector repeat: 8 DataBlocks
BLOCK_BYTES = 32     # one DataBlock
MAX_REPEAT_TIMES = 255


class RepeatParams:
    """The integer parameter structs of the vector calls (`UnaryRepeatParams`, ...): fields set
    positionally in C++ declaration order, the C++ defaults for the rest, `repr` as the
    constructor call. A subclass lists its fields in `__slots__` and their defaults in
    `_defaults`."""

    __slots__ = ()
    _defaults: tuple[int, ...] = ()

    def __init__(self, *values: int) -> None:
        names = self.__slots__
        if len(values) > len(names):
            raise ParameterError(f"{type(self).__name__} has {len(names)} fields "
                                 f"({', '.join(names)}), got {len(values)} values")
        for name, value in zip(names, values + self._defaults[len(values):], strict=True):
            setattr(self, name, int(value))

    def __repr__(self) -> str:
        return (f"{type(self).__name__}("
                f"{', '.join(str(getattr(self, n)) for n in self.__slots__)})")


class UnaryRepeatParams(RepeatParams):
    """`UnaryRepeatParams(dstBlkStride, srcBlkStride, dstRepStride, srcRepStride)`, strides in
    32-byte DataBlocks (block strides between the 8 blocks of a repeat; repeat strides between
    repeat starts)."""

    __slots__ = ("dstBlkStride", "srcBlkStride", "dstRepStride", "srcRepStride")
    _defaults = (1, 1, 8, 8)


class BinaryRepeatParams(RepeatParams):
    """`BinaryRepeatParams(dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride,
    src0RepStride, src1RepStride)`, strides in 32-byte DataBlocks."""

    __slots__ = ("dstBlkStride", "src0BlkStride", "src1BlkStride", "dstRepStride",
                 "src0RepStride", "src1RepStride")
    _defaults = (1, 1, 1, 8, 8, 8)


def as_count(value: object, what: str = "count") -> int:
    if type(value) is int:
        return value
    try:
        return int(value)  # numpy integers from tiling data
    except (TypeError, ValueError):
        raise ParameterError(f"{what} must be an integer, got {value!r}") from None


def operand_error(name: str, count: int, operands: tuple[tuple[str, LocalTensor], ...],
                  elem_size: int | None = None) -> Exception:
    """The precise error for a count-form call whose operands failed the quick checks."""
    if count < 0:
        return ParameterError(f"{name}: count {count} is negative")
    for role, t in operands:
        if not isinstance(t, LocalTensor) or t.core is None:
            return ParameterError(f"{name}: {role} is not an allocated LocalTensor: {t!r}")
        if t.addr & 31:
            return AlignmentError(
                f"{name}: {role} starts at UB address {t.addr}, which is not 32-byte aligned "
                f"(every UB operand must be)", buffer=t.origin, address=t.addr)
        need = count * (elem_size or t.dtype.size)
        have = t.size * t.dtype.size
        if need > have:
            return OutOfRangeError(
                f"{name}: count {count} needs {need} bytes of {role} but the tensor has "
                f"{t.size} elements ({have} bytes): count is larger than the tensor size",
                buffer=t.origin, byte_range=f"UB [{t.addr}, {t.addr + need})",
                tensor_range=f"UB [{t.addr}, {t.addr + have})")
    cores = {id(t.core) for _, t in operands}
    if len(cores) > 1:
        return ParameterError(f"{name}: operands live on different cores")
    return ParameterError(f"{name}: invalid operands")


def expand_mask(name: str, mask: object, dtype: DType) -> tuple[int, int]:
    """A continuous mask (int) or a bit mask (uint64_t mask[2] = {low, high} as in AscendC) as
    (low 64 bits, high 64 bits) of per-element enables within one repeat."""
    per_repeat = REPEAT_BYTES // dtype.size
    limit = min(per_repeat, 128)
    if isinstance(mask, (list, tuple)):
        if len(mask) != 2:
            raise ParameterError(f"{name}: a bit mask is uint64_t mask[2], got {mask!r}")
        lo, hi = int(mask[0]) & (2**64 - 1), int(mask[1]) & (2**64 - 1)
        if per_repeat <= 64 and hi:
            raise ParameterError(f"{name}: mask[1] = {hi:#x} must be 0 for {dtype} "
                                 f"(a repeat has {per_repeat} elements)")
        return lo, hi
    m = int(mask)
    if m < 0 or m > limit:
        raise ParameterError(f"{name}: continuous mask {m} is out of range [0, {limit}] for "
                             f"{dtype} ({per_repeat} elements per repeat)")
    bits = (1 << m) - 1
    return bits & (2**64 - 1), bits >> 64


def core_of(*tensors: object) -> CoreState | None:
    """The core of the first allocated tensor (else the running one)."""
    for t in tensors:
        core = getattr(t, "core", None)
        if core is not None:
            return core
    return getattr(_tls, "core", None)


def recover_count(core: CoreState | None, err: Exception, frame, count: int,
                  operands: tuple[tuple[int, int, int], ...], name: str = "") -> int | None:
    """A count-form call failed its operand checks: raise (sanitizer off or strict), or report
    and return what to execute. A bad dtype, mode or count skips the call (None); a misaligned
    operand or one larger than its tensor runs as the hardware would, with the count clipped
    so that every operand (UB address, bytes per element numerator, denominator) stays inside
    the UB."""
    fault(core, err, frame, instruction=name or None)
    if count < 0 or not isinstance(err, (AlignmentError, OutOfRangeError)):
        return None
    ub = core.ub.size if core is not None else 0
    for addr, num, den in operands:
        if addr < 0:
            return None
        fit = (ub - addr) * den // num if num else count
        count = min(count, max(fit, 0))
    return count


def check_overlap(core: CoreState | None, frame, name: str, repeats: int, dst: int,
                  dst_step: int, dst_width: int, dst_end: int, src: int, src_step: int,
                  src_width: int, src_end: int, role: str = "src") -> None:
    """Report the address overlaps the hardware does not support (通用地址重叠约束): within
    one repeat, dst and src must be the same bytes or disjoint; and the dst of a repeat must not
    be the src of a later repeat. Repeat r of an operand covers [base + r * step, + width),
    cut at its end. Called only when a source overlaps its destination; silent unless the
    sanitizer is on."""
    if core is None or core.sanitizer is None:
        return
    for r in range(repeats):
        d0 = dst + r * dst_step
        d1 = min(d0 + dst_width, dst_end)
        s0 = src + r * src_step
        s1 = min(s0 + src_width, src_end)
        if d0 < s1 and s0 < d1 and not (d0 == s0 and d1 == s1):
            note(core, ParameterError(
                f"{name}: dst UB [{d0}, {d1}) and {role} UB [{s0}, {s1}) of repeat {r} "
                "partially overlap; within a repeat they must be the same bytes or disjoint "
                "(the result relies on the whole repeat being read before it is written)"),
                frame, instruction=name, memory="UB", start=max(d0, s0), end=min(d1, s1),
                write=True, check="partial address overlap")
            return
        if 0 < src_step <= src_width:  # later sources form one range
            later = [(s0 + src_step, src_end)]
        else:
            later = [(src + k * src_step, min(src + k * src_step + src_width, src_end))
                     for k in range(r + 1, repeats)]
        for l0, l1 in later:
            lo, hi = max(d0, l0), min(d1, l1)
            if lo < hi:
                note(core, ParameterError(
                    f"{name}: dst of repeat {r}, UB [{d0}, {d1}), overlaps the {role} of a "
                    f"later repeat at UB [{lo}, {hi}): that repeat reads what this one writes"),
                    frame, instruction=name, memory="UB", start=lo, end=hi, write=True,
                    check="dst overlaps a later repeat's src")
                return
