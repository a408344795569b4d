"""A finished run is freed as soon as nobody holds it: no reference cycle keeps a core (its UB
and its records) alive until the cycle collector happens to run."""

import gc

import numpy as np
import pytest

from ascsim.core import CoreState
from ascsim.dtypes import float as f32
from ascsim.errors import QueueStateError
from kernels_py.logit_grad import logit_grad
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    binary_cross_entropy_with_logits_backward,
)


def _live_cores() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is CoreState)


@pytest.mark.parametrize("sanitize", ["off", "check"])
@pytest.mark.parametrize("op", ["logit_grad", "sce_grad"])
def test_a_dropped_run_is_freed_without_the_cycle_collector(op, sanitize):
    """In check mode too: each core holds its checker, which must not hold the core (the
    next check launch then reuses the Unified Buffers instead of faulting in new ones)."""
    x = np.random.default_rng(0).uniform(0.1, 0.9, 20_000).astype(np.float32)
    # warm the jit first: on a cold cache numba compiles during the call, and its compile-time
    # exceptions (ForceLiteralArg) hold the caller's frames in cycles until the collector runs
    logit_grad(x, x, -1.0, sanitize=sanitize)
    binary_cross_entropy_with_logits_backward(x, x, x, x, x, reduction="mean",
                                              sanitize=sanitize)
    gc.collect()
    gc.disable()
    try:
        before = _live_cores()
        if op == "logit_grad":
            logit_grad(x, x, -1.0, sanitize=sanitize)  # TBuf and TPipe
        else:
            binary_cross_entropy_with_logits_backward(  # TQue
                x, x, x, x, x, reduction="mean", sanitize=sanitize)
        assert _live_cores() == before
        out, run = logit_grad(x, x, -1.0, return_run=True, sanitize=sanitize)
        assert _live_cores() == before + run.block_dim  # held while the caller holds the run
        del run
        assert _live_cores() == before
    finally:
        gc.enable()


def test_a_queue_used_after_its_kernel_ended_says_so():
    _, run = binary_cross_entropy_with_logits_backward(
        *(np.ones(64, np.float32),) * 3, reduction="none", return_run=True)
    queues = run.cores[0].queues
    assert queues
    for q in queues:
        with pytest.raises(QueueStateError, match="run that has ended"):
            q.AllocTensor[f32]()
    assert run.cores[0].pipe.core is None


def test_scalar_float_arithmetic_in_a_kernel_is_silent_ieee():
    """A kernel's np.float32 scalar 0/0 and x/0 give NaN and Inf as the scalar unit does,
    without numpy's RuntimeWarning (which the caller's warning filters would turn on)."""
    import warnings

    import numpy as np

    import ascsim
    got = []

    def kernel(out):
        zero = np.float32(0.0)
        got.extend([zero / zero, np.float32(1.0) / zero])

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ascsim.launch(kernel, 1, np.zeros(8, np.float32))
    assert np.isnan(got[0]) and got[1] == np.inf
