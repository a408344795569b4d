"""The AscendC instructions, one registry entry each (importing this package registers them)."""

from . import elementwise
from .cast import Cast, RoundMode
from .cmpsel import CMPMODE, SELMODE, Compare, Compares, CompareScalar, Select
from .common import BinaryRepeatParams, UnaryRepeatParams
from .datacopy import (
    DataCopy,
    DataCopyExtParams,
    DataCopyPad,
    DataCopyPadExtParams,
    DataCopyPadParams,
    DataCopyParams,
)
from .elementwise import Duplicate

__all__ = ["BinaryRepeatParams", "UnaryRepeatParams", "Duplicate", "Cast", "RoundMode",
           "CMPMODE", "SELMODE", "Compare", "Compares", "CompareScalar", "Select", "DataCopy",
           "DataCopyExtParams", "DataCopyPad", "DataCopyPadExtParams", "DataCopyPadParams",
           "DataCopyParams"]
for _op in elementwise.OPS:
    globals()[_op.name] = getattr(elementwise, _op.name)
    __all__.append(_op.name)
