"""The C library call this op's op_host and op_api transcriptions make under its C++ name, and
that ascsim.host / ascsim.aclnn do not provide (imports are outside the mirror check, so the
transcribed statements stay identical to the C++ ones): `strcmp` (<cstring>), for the
reduction attribute, a C string.
"""

from __future__ import annotations

__all__ = ["strcmp"]


def strcmp(a: str, b: str) -> int:
    """0 when a and b are equal; otherwise negative or positive as the first differing
    character of a is smaller or larger."""
    return (a > b) - (a < b)
