"""ascsim: a Numba-accelerated CPU simulator of Huawei AscendC vector kernels.

Kernels import the AscendC surface with `from ascsim.ascendc import *`; callers use
`ascsim.launch(...)` or an operator package's aclnn-style API. Importing ascsim registers every
instruction (`ascsim.registry.REGISTRY`).
"""

from . import (
    _numba_cache,  # noqa: F401  (must precede every module that defines numba code)
    ascendc,  # noqa: F401  (the kernel surface: registers every instruction)
)
from .errors import (
    AclnnError,
    AscsimError,
    ParseError,
    ProfileError,
    SimulationError,
    UsageError,
)
from .operator import Operator, Option
from .oprunner import load_operator
from .profile import HardwareProfile, load_profile, profile_names
from .runtime import Run, launch

__all__ = ["launch", "Run", "AscsimError", "AclnnError", "SimulationError", "ProfileError",
           "ParseError", "UsageError", "HardwareProfile", "load_profile", "profile_names",
           "Operator", "Option", "load_operator", "__version__"]

__version__ = "0.1.0"
