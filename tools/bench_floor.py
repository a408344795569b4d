"""Where a simulated run's time goes, and the best ratio to numpy that ascsim's design allows.

    python tools/bench_floor.py [--repeat 3]

ascsim executes a kernel the way DESIGN.md asks: the Python transcription runs line by line,
and every AscendC call is checked, recorded and then does its numba work. For each benchmark
case of tools/bench_logit_grad.py and tools/bench_sce_grad.py this prints, measured in one run:

- numpy:   the whole-array numpy computation of the same formula (the benchmarks' reference);
- ascsim:  the op call as the benchmarks time it (48 simulated cores, records on, the numba
           work deferred to a worker thread: ascsim/batch.py);
- eager:   the same call with `execution="eager"` (each call runs its numba work at once);
- work:    the time spent inside the numba work functions during the eager call (every
           compiled entry point is timed; the wrappers cost about 0.1 us per call);
- floor:   the same op call with every AscendC instruction in the kernel module replaced by a
           no-op, and the queue calls (TQue AllocTensor/EnQue/DeQue/FreeTensor) by stand-ins
           that only hand out the tensors the kernel uses (no check, record, flag or fill):
           what is left is the kernel's own Python (loops, tensor views, parameter structs),
           the launch (per-core UB and state) and the op API;
- queues:  how much of the floor the real queue calls would add (the floor measured again
           with them real, minus the floor): per-call cost, like the instructions';
- kernel:  the part of the floor spent running the kernel function on the cores, that is the
           transcription's own Python;
- serial:  numpy / (kernel + work), the ratio ascsim would reach if checking, recording and
           dispatching every instruction, the launch and the op API all cost nothing, and the
           work ran on the kernel's thread (the eager executor);
- overlap: numpy / max(kernel, work), the same with the work on the worker thread beside the
           kernel's Python (the deferred executor, on a host with two free cores).

A bound below 1 means that no per-instruction implementation, however lean, brings that case
to numpy's speed; only executing less Python per element (not running the transcription line
by line) could. The no-ops and the queue stand-ins are a measurement device of this script
only.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import ml_dtypes
import numpy as np
from bench_logit_grad import numpy_logit_grad
from bench_sce_grad import numpy_sce_grad
from benchutil import best_of

import ascsim.instructions as instructions
import ascsim.runtime as runtime
import ascsim.workcall as workcall
from ascsim.memory import LocalTensor
from ascsim.pipe import TQueBind
from ascsim.registry import REGISTRY
from ascsim.runtime import execution_mode

# Every compiled numba entry point is created through `compile_loop` (the eager loops, looked
# up as a module global of each instruction module at call time) or `compile_work` (the
# registry's row works, looked up in ascsim.workcall), so wrapping both before the first
# compile times every call of the numba work.
_WORK = [0.0]
_INSTRUCTION_MODULES = ("elementwise", "cast", "cmpsel", "datacopy")


def _timed(ep: Callable[..., Any]) -> Callable[..., Any]:
    clock = time.perf_counter

    def call(*args: Any) -> Any:
        start = clock()
        try:
            return ep(*args)
        finally:
            _WORK[0] += clock() - start
    return call


def _time_numba_work() -> None:
    for name in _INSTRUCTION_MODULES:
        module = importlib.import_module(f"{instructions.__name__}.{name}")
        original = module.compile_loop
        module.compile_loop = lambda *a, _original=original, **k: _timed(_original(*a, **k))
    original_work = workcall.compile_work
    workcall.compile_work = lambda *a, **k: _timed(original_work(*a, **k))


def _time_cores(acc: list[float]) -> None:
    """Add the time of every per-core kernel run to acc[0]."""
    run_core, clock = runtime._run_core, time.perf_counter

    def timed(*args: Any) -> Any:
        start = clock()
        try:
            return run_core(*args)
        finally:
            acc[0] += clock() - start
    runtime._run_core = timed


def _noop(*args: Any) -> None:
    return None


class _NoopTemplate:
    """`SetFlag[E]`, `PipeBarrier[P]`, `Muls[T]`: any template argument gives the no-op, and
    an instruction callable both ways (`Muls(...)`, `Muls[T](...)`) is the no-op itself."""

    def __getitem__(self, key: Any) -> Callable[..., None]:
        return _noop

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        return None


@contextlib.contextmanager
def instructions_free(kernel_module: Any) -> Iterator[None]:
    """Within the block, every registered AscendC instruction the kernel module calls by name
    is a no-op."""
    names = {ins.name for ins in REGISTRY} & set(vars(kernel_module))
    saved = {name: getattr(kernel_module, name) for name in names}
    try:
        for name in names:
            template = not callable(saved[name]) or hasattr(saved[name], "__getitem__")
            setattr(kernel_module, name, _NoopTemplate() if template else _noop)
        yield
    finally:
        for name, value in saved.items():
            setattr(kernel_module, name, value)


def _lean_alloc(self: TQueBind, dtype: Any) -> LocalTensor:
    i = self.next
    self.next = (i + 1) % len(self.buffers)
    b = self.buffers[i]
    return LocalTensor(dtype, self.core, b.start, (b.end - b.start) // dtype.size, b)


def _lean_enque(self: TQueBind, tensor: LocalTensor) -> bool:
    self.fifo.append(tensor.origin.index)
    return True


def _lean_deque(self: TQueBind, dtype: Any) -> LocalTensor:
    b = self.buffers[self.fifo.pop(0)]
    return LocalTensor(dtype, self.core, b.start, (b.end - b.start) // dtype.size, b)


def _lean_free(self: TQueBind, tensor: LocalTensor) -> None:
    return None


@contextlib.contextmanager
def lean_queues() -> Iterator[None]:
    """Within the block, queues created (their calls are bound at creation) hand out their
    buffers round robin and do nothing else."""
    lean = {"_alloc": _lean_alloc, "EnQue": _lean_enque, "_deque": _lean_deque,
            "FreeTensor": _lean_free}
    saved = {name: getattr(TQueBind, name) for name in lean}
    try:
        for name, fn in lean.items():
            setattr(TQueBind, name, fn)
        yield
    finally:
        for name, fn in saved.items():
            setattr(TQueBind, name, fn)


def _floor(simulate: Callable[[], Any], repeat: int, in_cores: list[float]
           ) -> tuple[float, float]:
    """(best wall time, its time in the cores' kernel functions) of `simulate`."""
    best = (float("inf"), 0.0)
    for _ in range(max(1, repeat)):
        in_cores[0] = 0.0
        t, _ = best_of(1, simulate)
        best = min(best, (t, in_cores[0]))
    return best


def _cases(rng: np.random.Generator) -> Iterator[tuple[str, Any, Callable[[], Any],
                                                        Callable[[], Any], Callable[[], Any]]]:
    """(label, kernel module, ascsim call, numpy call, small warm-up call) per case."""
    from kernels_py.logit_grad import logit_grad
    from kernels_py.logit_grad.op_kernel import logit_grad_kernel
    from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
        binary_cross_entropy_with_logits_backward as sce_grad,
    )
    from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2.op_kernel import (
        sigmoid_cross_entropy_with_logits_grad_v2_kernel as sce_kernel,
    )

    for name, dtype, n in (("float32", np.float32, 1 << 24),
                           ("bfloat16", ml_dtypes.bfloat16, 1 << 22)):
        x = rng.uniform(0, 1, n).astype(np.float32).astype(dtype)
        dy = rng.uniform(-100, 100, n).astype(np.float32).astype(dtype)
        yield (f"LogitGrad {name} 2^{n.bit_length() - 1}", logit_grad_kernel,
               partial(logit_grad, x, dy, -1.0), partial(numpy_logit_grad, x, dy, -1.0),
               partial(logit_grad, x[:100_000], dy[:100_000], -1.0))
    n = 1 << 22
    for name, dtype in (("float32", np.float32), ("float16", np.float16)):
        grad, x, y, w, pw = (rng.uniform(lo, hi, n).astype(np.float32).astype(dtype)
                             for lo, hi in ((-1, 1), (-1, 1), (0, 1), (-1, 1), (-1, 1)))
        small = tuple(a[:100_000] for a in (grad, x, y, w, pw))
        yield (f"SCE grad {name} 2^22", sce_kernel,
               partial(sce_grad, grad, x, y, w, pw, reduction="none"),
               partial(numpy_sce_grad, grad, x, y, w, pw),
               partial(sce_grad, *small, reduction="none"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    _time_numba_work()
    in_cores = [0.0]
    _time_cores(in_cores)
    print(f"{'case':<26}{'numpy ms':>10}{'ascsim ms':>11}{'ratio':>7}{'eager ms':>10}"
          f"{'work ms':>9}{'floor ms':>10}{'queues':>9}{'kernel ms':>11}{'serial':>8}"
          f"{'overlap':>9}")
    for label, module, simulate, reference, warm in _cases(np.random.default_rng(0)):
        warm()
        reference()
        t_np, _ = best_of(args.repeat, reference)
        with execution_mode("eager"):
            warm()
        t_sim = t_eager = work = float("inf")
        for _ in range(max(1, args.repeat)):
            t_sim = min(t_sim, best_of(1, simulate)[0])
            _WORK[0] = 0.0
            with execution_mode("eager"):
                t, _ = best_of(1, simulate)
            if t < t_eager:
                t_eager, work = t, _WORK[0]
        with instructions_free(module):
            t_real_queues, _ = _floor(simulate, args.repeat, in_cores)
            with lean_queues():
                t_floor, kernel = _floor(simulate, args.repeat, in_cores)
        print(f"{label:<26}{t_np * 1e3:>10.1f}{t_sim * 1e3:>11.1f}{t_np / t_sim:>7.2f}"
              f"{t_eager * 1e3:>10.1f}{work * 1e3:>9.1f}{t_floor * 1e3:>10.1f}"
              f"{(t_real_queues - t_floor) * 1e3:>9.1f}{kernel * 1e3:>11.1f}"
              f"{t_np / (kernel + work):>8.2f}{t_np / max(kernel, work):>9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
