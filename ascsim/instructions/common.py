"""What every vector instruction shares: operand checks, repeat parameters, masks, snapshots.

The checks here run on every call, so the common case is a few integer tests; the detailed
error text is only built when a check fails.
"""

from __future__ import annotations

import numpy as np

from ..core import CoreState
from ..dtypes import DType
from ..errors import AlignmentError, OutOfRangeError, ParameterError
from ..memory import LocalTensor

__all__ = ["UnaryRepeatParams", "BinaryRepeatParams", "check_count_operands", "expand_mask",
           "snapshot", "run_snapshotted", "operand_error", "MAX_REPEAT_TIMES", "REPEAT_BYTES",
           "BLOCK_BYTES", "as_count", "span_bytes"]

REPEAT_BYTES = 256   # one vector repeat: 8 DataBlocks
BLOCK_BYTES = 32     # one DataBlock
MAX_REPEAT_TIMES = 255


class UnaryRepeatParams:
    """`UnaryRepeatParams(dstBlkStride, srcBlkStride, dstRepStride, srcRepStride)`, strides in
    32-byte DataBlocks (block strides between the 8 blocks of a repeat; repeat strides between
    repeat starts)."""

    __slots__ = ("dstBlkStride", "srcBlkStride", "dstRepStride", "srcRepStride")

    def __init__(self, dstBlkStride: int = 1, srcBlkStride: int = 1, dstRepStride: int = 8,
                 srcRepStride: int = 8) -> None:
        self.dstBlkStride = int(dstBlkStride)
        self.srcBlkStride = int(srcBlkStride)
        self.dstRepStride = int(dstRepStride)
        self.srcRepStride = int(srcRepStride)

    def __repr__(self) -> str:
        return (f"UnaryRepeatParams({self.dstBlkStride}, {self.srcBlkStride}, "
                f"{self.dstRepStride}, {self.srcRepStride})")


class BinaryRepeatParams:
    """`BinaryRepeatParams(dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride,
    src0RepStride, src1RepStride)`, strides in 32-byte DataBlocks."""

    __slots__ = ("dstBlkStride", "src0BlkStride", "src1BlkStride", "dstRepStride",
                 "src0RepStride", "src1RepStride")

    def __init__(self, dstBlkStride: int = 1, src0BlkStride: int = 1, src1BlkStride: int = 1,
                 dstRepStride: int = 8, src0RepStride: int = 8, src1RepStride: int = 8) -> None:
        self.dstBlkStride = int(dstBlkStride)
        self.src0BlkStride = int(src0BlkStride)
        self.src1BlkStride = int(src1BlkStride)
        self.dstRepStride = int(dstRepStride)
        self.src0RepStride = int(src0RepStride)
        self.src1RepStride = int(src1RepStride)

    def __repr__(self) -> str:
        return (f"BinaryRepeatParams({self.dstBlkStride}, {self.src0BlkStride}, "
                f"{self.src1BlkStride}, {self.dstRepStride}, {self.src0RepStride}, "
                f"{self.src1RepStride})")


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


def check_count_operands(name: str, count: int,
                         operands: tuple[tuple[str, LocalTensor, int], ...]) -> None:
    """Raise if any operand (role, tensor, bytes needed) is misaligned or too small."""
    for _role, t, need in operands:
        if t.addr & 31 or need > t.size * t.dtype.size:
            raise operand_error(name, count, tuple((r, x) for r, x, _ in operands),
                                need // count if count else None)


def span_bytes(count: int, size: int) -> int:
    return count * size


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


def snapshot(core: CoreState, start: int, nbytes: int, dtype: DType) -> np.ndarray:
    """A copy of a source that partially overlaps its destination, typed for the kernels.

    Hardware reads a repeat's source before writing its result; the simulator's loops run
    element by element, so such a source is copied first to give the intended result (the
    sanitizer reports the overlap itself)."""
    return core.ub[start:start + nbytes].copy().view(dtype.storage)


def run_snapshotted(core: CoreState, kernel, args: tuple, snaps: tuple[tuple[int, int], ...],
                    nbytes: int, dtype: DType) -> None:
    """`kernel(*args)` with `args[i]` replaced by a snapshot of the `nbytes` at UB address `a`
    for each `(i, a)` in `snaps`. Run it on the pipe (not at issue): work queued behind a
    stalled pipe must read its sources when it executes."""
    if snaps:
        args = list(args)
        for i, start in snaps:
            args[i] = snapshot(core, start, nbytes, dtype)
    kernel(*args)
