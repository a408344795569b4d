"""The AscendC instructions, one registry entry each. Importing this package registers them
and exports what each instruction module lists in its `KERNEL_SURFACE` (its kernel-facing
functions and their parameter types and enums), which `ascsim.ascendc` passes on to kernels."""

from __future__ import annotations

from . import cast, cmpsel, common, crosscore, datacopy, elementwise, vmask

__all__: list[str] = []
for _module in (common, vmask, elementwise, cast, cmpsel, datacopy, crosscore):
    for _name in _module.KERNEL_SURFACE:
        globals()[_name] = getattr(_module, _name)
        __all__.append(_name)

# the next vector ops of issue 11, each in its own module
from . import advmath, axpy, broadcast, gather, ubcopy  # noqa: E402

for _module in (advmath, axpy, broadcast, gather, ubcopy,):
    for _name in _module.KERNEL_SURFACE:
        globals()[_name] = getattr(_module, _name)
        __all__.append(_name)

# reductions (issue 11, deliverable 1)
from . import reduce  # noqa: E402

for _name in reduce.KERNEL_SURFACE:
    globals()[_name] = getattr(reduce, _name)
    __all__.append(_name)

# Power (issue 11, high-level math)
from . import power  # noqa: E402

for _name in power.KERNEL_SURFACE:
    globals()[_name] = getattr(power, _name)
    __all__.append(_name)
