"""memcheck: the public LogitGrad's in-place casts for fp16 (cann_ops.md §7a.7.2): the widening
Cast reads fp16 at +16384 and writes fp32 at +0, so for a full tile its last repeat reads part
of its own destination; the narrowing Cast overlaps at repeat 0."""

import numpy as np

from ._corpus import Expect
from ._public_logit_grad import launch_public

EXPECT = [Expect("memcheck", "overlap", path="tests/bugs/_public_logit_grad.py",
                 snippet="# BUG(widen)"),
          Expect("memcheck", "overlap", path="tests/bugs/_public_logit_grad.py",
                 snippet="# BUG(narrow)")]
STRICT = "ParameterError"
NO_TWIN = "the fix is ascsim's own LogitGrad, clean in tests/test_sanitizer_shipped.py"


def run(sanitize="check"):
    rng = np.random.default_rng(2)
    n = 2 * 8192
    x = rng.uniform(0.01, 0.99, n).astype(np.float16)
    dy = rng.uniform(-1, 1, n).astype(np.float16)
    return launch_public(x, dy, 1, 1, sanitize)[1]
