"""The vector mask state of a core and the calls that set it: `SetMaskNorm`, `SetMaskCount`,
`ResetMask`, `SetVectorMask`, `MASK_PLACEHOLDER`, and the rule every level-0 (mask/repeat
form) instruction uses to find its mask (`level0_mask`).

State (ascendc_more.md §2.1): a mode bit (Normal or Counter) and a 128-bit MASK register.
Normal mode: bit k enables lane k of every repeat. Counter mode: the low word is a total
element count spread over repeats of E = 256 / sizeof(T) lanes (the last one partial), the
high word is ignored and repeatTime is ignored. The reset state (kernel start, `TPipe()`) is
Normal with a full mask: `CoreState.vmask is None`.

Who changes it (§2.2): the setters below; a level-0 call with isSetMask=true leaves its own
mask in the register; a count-form call (which the library runs in Counter mode) leaves Normal
mode with a full mask (`count_form_done`). A level-0 call with isSetMask=false
(`Add[float, False](..., MASK_PLACEHOLDER, ...)`) uses the register as it is.

The setters run on the scalar pipe and the hardware orders them with the vector pipe, so they
take effect in program order; they are recorded (the timeline shows them) and change no memory.
"""

from __future__ import annotations

import sys
from enum import IntEnum

from .. import records as rec
from ..core import PIPE_S, CoreState, _tls, current_core
from ..dtypes import ALL_DTYPES, DType
from ..errors import ParameterError
from ..faults import fault
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
from .common import REPEAT_BYTES, core_of, expand_mask

__all__ = ["MaskMode", "MASK_PLACEHOLDER", "SetMaskNorm", "SetMaskCount", "ResetMask",
           "SetVectorMask", "level0_mask", "count_form_done", "mask_state", "FULL",
           "template_dtype", "TemplatedCall", "templated", "count_form_refusal",
           "counter_repeats", "lane_count", "strided_extent"]

KERNEL_SURFACE = ("MaskMode", "MASK_PLACEHOLDER", "SetMaskNorm", "SetMaskCount", "ResetMask",
                  "SetVectorMask")

FULL = 2**64 - 1
MASK_PLACEHOLDER = 0  # impl/basic_api/kernel_reg.h: passed with isSetMask=false, ignored


class MaskMode(IntEnum):
    """`enum class MaskMode { NORMAL = 0, COUNTER }`."""

    NORMAL = 0
    COUNTER = 1


def mask_state(core: CoreState) -> tuple[bool, int, int]:
    """(counter mode?, low word, high word) of the core's mask register."""
    return (False, FULL, FULL) if core.vmask is None else core.vmask


def count_form_done(core: CoreState) -> None:
    """A count-form call ends with `ResetMask(); SetMaskNorm()`: the reset state."""
    core.vmask = None


def set_mask_bits(length: int, dtype: DType) -> tuple[int, int]:
    """`SetMask<T>(len)` (kernel_utils_base.h): the register words a continuous length gives."""
    if length == 64:
        return FULL, 0
    if length == REPEAT_BYTES // dtype.size or length >= 128:
        return FULL, FULL
    if length < 64:
        return (1 << length) - 1, 0
    return FULL, (1 << (length - 64)) - 1


def level0_mask(core: CoreState, name: str, dtype: DType, mask: object,
                is_set_mask: bool) -> tuple[int, int, int]:
    """The mask a level-0 call runs with, as (low, high, counter count or -1 in Normal mode);
    with isSetMask=true the call's own mask is written to the register first. Raises
    ParameterError for a mask the call cannot take."""
    counter, lo, hi = mask_state(core)
    if is_set_mask:
        if counter:
            # The library writes the mask with the Normal-mode conversion whatever the mode:
            # a uint64_t[2] mask {n, 0} gives the count n; an integer length gives SetMask's
            # low word (2^len - 1, all ones from 64 up), almost never what was meant.
            if isinstance(mask, (list, tuple)):
                lo, hi = expand_mask(name, mask, dtype)
            else:
                length = int(mask)
                if length < 0:
                    raise ParameterError(f"{name}: mask {length} is negative")
                lo, hi = set_mask_bits(length, dtype)
        else:
            lo, hi = expand_mask(name, mask, dtype)
        core.vmask = (counter, lo, hi)
    return (FULL, FULL, lo) if counter else (lo, hi, -1)


def counter_repeats(core: CoreState, f, name: str, dt: DType, counted: int,
                    repeat: int) -> int:
    """The repeats a level-0 call runs: repeatTime in Normal mode (`counted` < 0); in Counter
    mode as many as the element count in the mask register needs (repeatTime is ignored). A
    count larger than the UB is the Counter-mode trap of an integer mask with isSetMask=true
    (SetMask's bits read as a count): reported, and nothing runs."""
    if counted < 0:
        return repeat
    if counted * dt.size > core.ub.size:
        fault(core, ParameterError(
            f"{name}: Counter mode with {counted} elements in the mask register, more than "
            "the UB holds (an integer mask with isSetMask=true writes SetMask<T>(len)'s bits, "
            "not a count: pass uint64_t mask[2] = {n, 0}, or isSetMask=false after "
            "SetVectorMask)"), f, instruction=name)
        return 0
    return -(-counted // (REPEAT_BYTES // dt.size))


def lane_count(counted: int, repeat: int, epb: int) -> int:
    """A level-0 row's element count: every lane of every repeat (Normal mode), or the
    Counter-mode count."""
    return repeat * 8 * epb if counted < 0 else min(counted, repeat * 8 * epb)


def strided_extent(repeat: int, epb: int, blk: int, rep: int, size: int,
                   total: int = -1) -> int:
    """Bytes from the first to one past the last byte a strided operand of a level-0 call can
    touch: `repeat` repeats of 8 DataBlocks of `epb` elements; with `total` lanes (Counter
    mode) the last repeat only reaches the DataBlocks its lanes use."""
    if repeat == 0:
        return 0
    per_repeat = 8 * epb
    full = (repeat - 1) * rep * epb + 7 * blk * epb + epb
    if total < 0 or total >= repeat * per_repeat:
        return full * size
    tail = total - (repeat - 1) * per_repeat  # lanes of the last repeat, 1..per_repeat
    # lane-exact, as the count form: lanes past the count are neither read nor written
    last = (repeat - 1) * rep * epb + ((tail - 1) // epb) * blk * epb + (tail - 1) % epb + 1
    if repeat > 1:
        last = max(last, (repeat - 2) * rep * epb + 7 * blk * epb + epb)
    return last * size


def template_dtype(name: str, arg: object) -> DType:
    """The dtype template argument of `Name[T, ...]`."""
    if isinstance(arg, DType):
        return arg
    raise ParameterError(f"{name}[...]: the first template argument is a dtype (half, float, "
                         f"...), got {arg!r}")


# ---- the setters -----------------------------------------------------------------------------

def _setter(name: str, registers: tuple[str, ...], cpp: tuple[str, ...], doc: str,
            signatures: tuple[Signature, ...] = (Signature((None,)),)):
    """A mask setter's entry; its operands are the register fields it writes (no memory)."""
    return register(name, family="scalar", pipe=PIPE_S,
                    operands=tuple(Operand(r, AccessPattern.NONE) for r in registers),
                    dataflow=Dataflow.STATE, cost=Cost(CostKind.SCALAR),
                    signatures=signatures, work=None,
                    cpp=tuple(CppDecl(c) for c in cpp), doc=doc)


_NORM = _setter("SetMaskNorm", ("mode",), ("__aicore__ inline void SetMaskNorm();",),
                "vector mask state: Normal mode (the mask register is a lane bit mask)")
_COUNT = _setter("SetMaskCount", ("mode",), ("__aicore__ inline void SetMaskCount();",),
                 "vector mask state: Counter mode (the mask register is an element count)")
_RESET = _setter("ResetMask", ("mask",), ("__aicore__ inline void ResetMask();",),
                 "vector mask state: a full mask (the mode is kept)")
_SET = _setter("SetVectorMask", ("maskHigh", "maskLow"),
               ("template <typename T, MaskMode mode = MaskMode::NORMAL>\n"
                "__aicore__ static inline void SetVectorMask(const uint64_t maskHigh, "
                "const uint64_t maskLow);",
                "template <typename T, MaskMode mode = MaskMode::NORMAL>\n"
                "__aicore__ static inline void SetVectorMask(int32_t len);"),
               "vector mask state: write the mask register (T decides the lanes of a length)",
               tuple(Signature((t, t)) for t in ALL_DTYPES if t.size in (2, 4)))


def _record(core: CoreState, ins, f, dtype: int = 0) -> None:
    counter, lo, hi = mask_state(core)
    core.records.append(rec.row(ins.id, PIPE_S, f.f_code, f.f_lasti, dtype, 0, 0, int(counter),
                                0, (rec.signed64(lo), rec.signed64(hi)), ()))


def _core() -> CoreState:
    return getattr(_tls, "core", None) or current_core()


def SetMaskNorm() -> None:
    core = _core()
    _, lo, hi = mask_state(core)
    core.vmask = None if lo == hi == FULL else (False, lo, hi)
    _record(core, _NORM, sys._getframe(1))


def SetMaskCount() -> None:
    core = _core()
    _, lo, hi = mask_state(core)
    core.vmask = (True, lo, hi)
    _record(core, _COUNT, sys._getframe(1))


def ResetMask() -> None:
    core = _core()
    counter, _, _ = mask_state(core)
    core.vmask = (True, FULL, FULL) if counter else None
    _record(core, _RESET, sys._getframe(1))


class _SetVectorMask:
    """`SetVectorMask[T]` / `SetVectorMask[T, MaskMode.COUNTER]` then `(maskHigh, maskLow)` or
    `(len)`. The mode template argument only decides how `len` is converted; the register's
    mode bit is what SetMaskNorm/SetMaskCount set."""

    def __getitem__(self, args: object):
        args = args if isinstance(args, tuple) else (args,)
        if not 1 <= len(args) <= 2:
            raise ParameterError("SetVectorMask[T, mode]: one or two template arguments")
        dtype = template_dtype("SetVectorMask", args[0])
        mode = MaskMode(int(args[1])) if len(args) == 2 else MaskMode.NORMAL

        def call(*words: int) -> None:
            f = sys._getframe(1)
            core = _core()
            if len(words) == 2:
                hi, lo = int(words[0]) & FULL, int(words[1]) & FULL
            elif len(words) == 1:
                length = int(words[0])
                if length < 0:
                    return fault(core, ParameterError(
                        f"SetVectorMask: len {length} is negative"), f,
                        instruction="SetVectorMask")
                lo, hi = (length, 0) if mode is MaskMode.COUNTER else set_mask_bits(length,
                                                                                    dtype)
            else:
                return fault(core, ParameterError(
                    "SetVectorMask: takes (maskHigh, maskLow) or (len)"), f,
                    instruction="SetVectorMask")
            counter, _, _ = mask_state(core)
            core.vmask = None if not counter and lo == hi == FULL else (counter, lo, hi)
            _record(core, _SET, f, dtype.code)
        call.__name__ = f"SetVectorMask<{dtype}, {mode.name}>"
        return call

    def __call__(self, *args: object) -> None:
        raise ParameterError("SetVectorMask needs its dtype: SetVectorMask[T](maskHigh, "
                             "maskLow) or SetVectorMask[T](len)")


SetVectorMask = _SetVectorMask()


# ---- template arguments of the vector calls ------------------------------------------------

class TemplatedCall:
    """A kernel-facing call that also takes its C++ template arguments, as the transcription
    of `Add<float, false>(...)` is `Add[float, False](...)`. The dtype template arguments are
    checked against the tensor operands they describe (`dtype_args`: each one's operand as
    (position in the call, name), in template order), a trailing bool is isSetMask (where the
    instruction has it), and `run(frame, is_set_mask, *args)` does the call. Plain `Add(...)`
    is the front end itself (`__call__`), so an untemplated call costs one slot lookup."""

    __slots__ = ("_variants", "_run", "_dtype_args", "_set_mask")

    def __init__(self, run, dtype_args: tuple[tuple[int, str], ...], set_mask: bool) -> None:
        self._variants: dict = {}
        self._run = run
        self._dtype_args = dtype_args
        self._set_mask = set_mask

    def __getitem__(self, args: object):
        variant = self._variants.get(args)
        if variant is None:
            variant = self._variants[args] = self._variant(args)
        return variant

    def _variant(self, args: object):
        name = type(self).__name__
        key = args if isinstance(args, tuple) else (args,)
        is_set_mask = True
        if self._set_mask and len(key) > 1 and isinstance(key[-1], bool):
            is_set_mask, key = key[-1], key[:-1]
        if not 1 <= len(key) <= len(self._dtype_args) or \
                not all(isinstance(t, DType) for t in key):
            letters = ", ".join("TUVW"[:len(self._dtype_args)])
            raise ParameterError(f"{name}[...] takes up to {len(self._dtype_args)} dtype(s) "
                                 f"({letters})" + (", then isSetMask" if self._set_mask else "")
                                 + f", got {args!r}")
        checks = tuple((i, t, role) for (i, role), t in zip(self._dtype_args, key,
                                                             strict=False))
        spelled = f"{name}<{', '.join(map(str, key))}>"
        run = self._run

        def variant(*a, **kw):
            f = sys._getframe(1)
            for i, t, role in checks:
                got = getattr(a[i], "dtype", None) if i < len(a) else None
                if got is not t:
                    return fault(core_of(*a), ParameterError(
                        f"{spelled}: {role} must be a {t} tensor, got "
                        f"{got if got is not None else (a[i] if i < len(a) else 'nothing')}"),
                        f, instruction=name)
            return run(f, is_set_mask, *a, **kw)
        variant.__name__ = (f"{name}<{', '.join(map(str, key))}"
                            + (f", {str(is_set_mask).lower()}>" if self._set_mask else ">"))
        return variant

    def __repr__(self) -> str:
        return f"<AscendC {type(self).__name__}>"


def templated(call, run, dtype_args: tuple[tuple[int, str], ...] = ((0, "dst"),),
              set_mask: bool = True) -> TemplatedCall:
    """`call` (the untemplated front end) as a `TemplatedCall` whose `Name[T, ...]` variants
    check the dtypes and then call `run(frame, is_set_mask, *args)`."""
    cls = type(call.__name__, (TemplatedCall,), {
        "__slots__": (), "__call__": staticmethod(call), "__doc__": call.__doc__,
        "__name__": call.__name__, "__qualname__": call.__name__,
        "__wrapped__": staticmethod(call)})
    return cls(run, dtype_args, set_mask)


def count_form_refusal(name: str, core: CoreState | None, f) -> None:
    """`Name<T, false>(..., count)`: the count form has no isSetMask template argument."""
    fault(core, ParameterError(f"{name}<T, false>: the count form has no isSetMask template "
                               "argument"), f, instruction=name)
