"""The C library calls and the opdev platform query that op_host and op_api transcriptions make
under their C++ names and that ascsim.host / ascsim.aclnn do not otherwise provide (imports are
outside the mirror check, so the transcribed statements stay identical to the C++ ones):

- `strcmp` (<cstring>) and `strcasecmp` (POSIX <strings.h>), for string attributes;
- `GetCurrentPlatformInfo()` with `GetCurNpuArch()` / `GetSocVersion()` and `NpuArch`
  (opdev/platform.h), answered from the current aclnn device's hardware profile: DAV_2201
  (A2/A3) where the profile supports bf16, as those SoCs do; DAV_RESV for one that does not.
"""

from __future__ import annotations

from enum import IntEnum

from .aclnn import GetCurrentPlatformInfo as _current_profile
from .profile import HardwareProfile

__all__ = ["strcmp", "strcasecmp", "NpuArch", "PlatformInfo", "GetCurrentPlatformInfo"]

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def strcmp(a: str, b: str) -> int:
    """0 when a and b are equal; otherwise negative or positive as a sorts before or after b."""
    return (a > b) - (a < b)


def strcasecmp(a: str, b: str) -> int:
    """0 when a and b are equal ignoring ASCII case; otherwise negative or positive as the
    first differing lower-cased character of a is smaller or larger."""
    la, lb = a.translate(_ASCII_LOWER), b.translate(_ASCII_LOWER)
    return (la > lb) - (la < lb)


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

    def GetSocVersion(self) -> str:  # noqa: N802 - CANN name
        return self.profile.name


def GetCurrentPlatformInfo() -> PlatformInfo:  # noqa: N802 - CANN name
    return PlatformInfo(_current_profile())
