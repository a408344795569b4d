"""Kernel debug aids, as AscendC has them: `printf`, `DumpTensor` and `assert` (spelled
`ascendc_assert` in Python, where `assert` is a statement; the mirror check pairs the two).

Output goes to the core's log, each line tagged `[core N, serialNo K]` where K is the record
index the next instruction will get (where the call sits in the instruction stream);
`Run.log()` returns the logs in core order, and when the launch ends they go, line by line, to
the `ascsim.kernel` logger at INFO level (the command line prints them). Kernels are plain
Python, so `breakpoint()` works inside them too.
"""

from __future__ import annotations

import linecache
import re
import sys
from typing import Any

import numpy as np

from .core import PIPE_V, current_core
from .errors import KernelAssertError
from .faults import abort
from .memory import GlobalTensor, LocalTensor
from .source import describe_position
from .sync import run_on_pipe

__all__ = ["printf", "DumpTensor", "ascendc_assert", "c_format"]

# %[flags][width][.precision][length]conversion
_SPEC = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(hh|h|ll|l|z|j|t|L)?([diouxXeEfFgGcsp%])")


def c_format(fmt: str, *args: Any) -> str:
    """A C printf format applied to `args` (length modifiers dropped, %u as %d, %p as hex)."""
    values = list(args)
    out: list[str] = []
    pos = 0
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags, width, prec, _, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = str(int(values.pop(0)))
        if prec == "*":
            prec = str(int(values.pop(0)))
        value = values.pop(0) if values else 0
        spec = "%" + (flags or "") + (width or "") + (f".{prec}" if prec is not None else "")
        if conv in "diu":
            out.append((spec + "d") % int(value))
        elif conv == "p":
            out.append((spec + "s") % hex(int(value)))
        elif conv in "oxX":
            out.append((spec + conv) % int(value))
        elif conv == "c":
            out.append((spec + "c") % (chr(value) if isinstance(value, int) else value))
        elif conv == "s":
            out.append((spec + "s") % value)
        else:
            out.append((spec + conv) % float(np.float64(value)))
    out.append(fmt[pos:])
    return "".join(out)


def _log(core: Any, text: str) -> None:
    tag = f"[core {core.block_idx}, serialNo {len(core.records)}]"
    for line in (text[:-1] if text.endswith("\n") else text).split("\n"):
        core.log.append(f"{tag} {line}")


def printf(fmt: str, *args: Any) -> None:
    """`printf(fmt, ...)` / `PRINTF`: C format string, output tagged with core and serialNo."""
    _log(current_core(), c_format(fmt, *args))


def _dump(core: Any, tensor: Any, desc: int, size: int) -> None:
    dt = tensor.dtype
    if isinstance(tensor, LocalTensor):
        raw, addr, position = core.ub, tensor.addr, "UB"
    else:
        raw, addr, position = tensor.buf.data, tensor.byte_off, "GM"
    n = max(0, min(int(size), (raw.size - addr) // dt.size))
    values = raw[addr:addr + n * dt.size].view(dt.numpy)
    shown = np.array2string(values.astype(np.float32) if dt.kind == "f" else values,
                            separator=", ", threshold=1 << 30, max_line_width=1 << 30)
    _log(core, f"DumpTensor: desc={int(desc)}, addr={addr}, "
               f"data_type={_DUMP_NAMES.get(dt.name, dt.name)}, "
               f"position={position}, dump_size={n}\n{shown}")


_DUMP_NAMES = {"half": "float16", "float": "float32", "bfloat16_t": "bfloat16"}


def DumpTensor(tensor: LocalTensor | GlobalTensor, desc: int, dumpSize: int,
               shapeInfo: Any = None) -> None:
    """`DumpTensor(tensor, desc, dumpSize)`: the first dumpSize elements of a UB or GM tensor,
    as the vector pipe sees them (after the vector work issued before it)."""
    core = current_core()
    run_on_pipe(core, PIPE_V, _dump, (core, tensor, desc, dumpSize))


def ascendc_assert(condition: Any, fmt: str | None = None, *args: Any) -> None:
    """C++ `assert(cond[, fmt, ...])`: on failure, log the message and stop the kernel
    (KernelAssertError; with sanitize="check" a finding, and this core stops)."""
    if condition:
        return
    core = current_core()
    f = sys._getframe(1)
    py, cpp = describe_position(f.f_code, f.f_lasti)
    source = linecache.getline(f.f_code.co_filename, f.f_lineno).strip()
    text = f"assert failed: {source}" + (f": {c_format(fmt, *args)}" if fmt else "")
    _log(core, text)
    abort(core, KernelAssertError(text, kernels_py=py, kernels_cpp=cpp), f)
