"""memcheck: the public LogitGrad layout takes all 192 KB of UB, and the library's temp write
of Select (at TMP_UB_OFFSET 188416 on A2) lands in pong's scratch (cann_ops.md §7a.7.1). ascsim's
own LogitGrad keeps its buffers below 163840."""

import numpy as np

from ._corpus import Expect
from ._public_logit_grad import launch_public

EXPECT = [Expect("memcheck", "reserved UB", path="tests/bugs/_public_logit_grad.py",
                 snippet="# BUG(select)")]
STRICT = "OutOfRangeError"
NO_TWIN = "the fix is ascsim's own LogitGrad, clean in tests/test_sanitizer_shipped.py"


def run(sanitize="check"):
    rng = np.random.default_rng(1)
    n = 3 * 8192 + 100
    x = rng.uniform(0.01, 0.99, n).astype(np.float32)
    dy = rng.uniform(-1, 1, n).astype(np.float32)
    return launch_public(x, dy, 2, 2, sanitize)[1]
