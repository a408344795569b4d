#!/usr/bin/env python3
"""Check that kernels_py mirrors kernels_cpp statement by statement: the same as `ascsim mirror`
(arguments and exit status included), runnable from a checkout without installing ascsim.

    python tools/mirror_check.py                 # every operator
    python tools/mirror_check.py logit_grad      # one operator
    python tools/mirror_check.py kernels_py/logit_grad/op_kernel/logit_grad_kernel.py --map
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ascsim.cli import main  # noqa: E402 - after the path set-up above

if __name__ == "__main__":
    sys.exit(main(["mirror", "--root", str(ROOT), *sys.argv[1:]]))
