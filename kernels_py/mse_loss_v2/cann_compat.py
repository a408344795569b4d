"""C library calls and a platform query that this op's op_host and op_api transcriptions make
under their C++ names, and that ascsim.host / ascsim.aclnn do not provide (imports are outside
the mirror check, so the transcribed statements stay identical to the C++ ones):

- `strcmp` (<cstring>), used for the reduction attribute;
- `GetCurrentPlatformInfo().GetCurNpuArch()` and `NpuArch` (opdev/platform.h), answered from
  the current hardware profile: DAV_2201 (A2/A3) where the profile supports bf16, as those SoCs
  do; DAV_RESV for a profile that does not.
"""

from __future__ import annotations

from enum import IntEnum

from ascsim.aclnn import GetCurrentPlatformInfo as _current_profile
from ascsim.profile import HardwareProfile

__all__ = ["strcmp", "NpuArch", "PlatformInfo", "GetCurrentPlatformInfo"]


def strcmp(a: str, b: str) -> int:
    """0 when a and b are equal; otherwise negative or positive as a sorts before or after b."""
    return (a > b) - (a < b)


class NpuArch(IntEnum):
    DAV_2201 = 2201
    DAV_3510 = 3510
    DAV_RESV = 3511


class PlatformInfo:
    """`op::PlatformInfo` of the current aclnn device settings."""

    def __init__(self, profile: HardwareProfile) -> None:
        self.profile = profile

    def GetCurNpuArch(self) -> NpuArch:  # noqa: N802 - CANN name
        return NpuArch.DAV_2201 if self.profile.bf16 else NpuArch.DAV_RESV


def GetCurrentPlatformInfo() -> PlatformInfo:  # noqa: N802 - CANN name
    return PlatformInfo(_current_profile())
