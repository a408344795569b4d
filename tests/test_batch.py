"""Deferred execution (ascsim/batch.py) against eager execution.

Every shipped operator (each dtype, reduction and option that changes its instruction sequence)
and every kernel of the sanitizer corpus (tests/bugs: the planted bugs and their fixed twins, in
the fast mode, where the bugs raise, and in check mode, where they are findings) run both ways
through `launch_both_ways`, which compares GM bytes, each core's records, the kernel log, the
findings and the error. `pytest --both-ways` does the same
for every launch of every test: test_every_instruction_test_kernel_both_ways runs it on the
tests of the deferred front ends, and with ASCSIM_BOTH_WAYS=all on every instruction test. The
rest pins the mechanisms: flushes before Python reads memory, stalled pipes, threads, errors,
the kind table, and that the comparison can fail.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ascsim
import ascsim.batch as batch
import tests.bugs as bugs
from ascsim import records as rec
from ascsim.ascendc import (
    EVENT_ID0,
    Adds,
    DataCopy,
    GlobalTensor,
    HardEvent,
    Muls,
    QuePosition,
    SetFlag,
    TBuf,
    TPipe,
    WaitFlag,
)
from ascsim.ascendc import float as f32
from ascsim.core import current_core
from ascsim.errors import SimulationError
from ascsim.runtime import execution_mode
from ascsim.testing.bothways import BothWaysMismatch, launch_both_ways
from kernels_py.cross_entropy_loss import cross_entropy_loss
from kernels_py.logit_grad import logit_grad
from kernels_py.mse_loss_v2 import mse_loss
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    binary_cross_entropy_with_logits_backward,
    run_kernel,
)

ROOT = Path(__file__).resolve().parents[1]
BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(7)


def _uniform(shape, lo, hi, dtype):
    return RNG.uniform(lo, hi, shape).astype(np.float32).astype(dtype)


# ---- every shipped operator ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
@pytest.mark.parametrize("eps", [-1.0, 0.1])
def test_logit_grad_both_ways(both_ways, dtype, eps):
    n = 48 * 4096 + 1000  # every core, several tiles, a tail
    x, dy = _uniform(n, -0.2, 1.2, dtype), _uniform(n, -5, 5, dtype)
    logit_grad(x, dy, eps)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_sce_grad_both_ways(both_ways, dtype, reduction):
    shape = (37, 1531)
    x, y = _uniform(shape, -4, 4, dtype), _uniform(shape, 0, 1, dtype)
    g = _uniform((1,) if reduction != "none" else shape, -1, 1, dtype)
    w, pw = _uniform(shape, 0, 2, dtype), _uniform(shape[-1:], 0, 2, dtype)
    binary_cross_entropy_with_logits_backward(g, x, y, w, pw, reduction)


@pytest.mark.parametrize("weights", [(False, False), (True, False), (False, True)])
def test_sce_kernel_variants_both_ways(both_ways, weights):
    shape = (64, 777)
    x, y, g = (_uniform(shape, -4, 4, np.float16) for _ in range(3))
    w = _uniform(shape, 0, 2, np.float16) if weights[0] else None
    pw = _uniform(shape, 0, 2, np.float16) if weights[1] else None
    run_kernel(x, y, g, weight=w, pos_weight=pw, reduction="none")


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_mse_loss_both_ways(both_ways, dtype, reduction):
    a, b = _uniform(300_001, -1, 1, dtype), _uniform(300_001, -1, 1, dtype)
    mse_loss(a, b, reduction)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cross_entropy_loss_both_ways(both_ways, dtype, reduction):
    logits = _uniform((70, 5000), -3, 3, dtype)
    target = RNG.integers(0, 5000, 70).astype(np.int64)
    target[3] = -100
    weight = _uniform(5000, 0.5, 2, np.float32)  # weight is always float32
    cross_entropy_loss(logits, target, weight, reduction, label_smoothing=0.1)


@pytest.mark.parametrize("buffer_num", [1, 2])
def test_double_buffer_example_both_ways(both_ways, buffer_num):
    folder = str(ROOT / "tools" / "examples" / "double_buffer")
    sys.path.insert(0, folder)
    try:
        add_custom = importlib.import_module("add_custom")
    finally:
        sys.path.remove(folder)
    n = 8 * 4 * 2048
    x, bias = _uniform(n, -1, 1, np.float16), _uniform(n, -1, 1, np.float16)
    tiling = add_custom.AddCustomTilingData(totalLength=n, tileNum=4)
    ascsim.launch(add_custom.add_custom, 8, x, bias, np.zeros_like(x), None, tiling=tiling,
                  tiling_key=buffer_num)


# ---- every corpus kernel ----------------------------------------------------------------------

CORPUS = sorted(m.name for m in pkgutil.iter_modules(bugs.__path__) if not m.name.startswith("_"))


@pytest.mark.parametrize("sanitize", ["off", "check"])
@pytest.mark.parametrize("name", CORPUS)
def test_corpus_kernel_both_ways(both_ways, name, sanitize):
    module = importlib.import_module(f"tests.bugs.{name}")
    for runner in (module.run, getattr(module, "run_fixed", None)):
        if runner is None:
            continue
        try:
            runner(sanitize=sanitize)
        except BothWaysMismatch:
            raise
        except SimulationError:
            pass  # the bug raises in the fast mode: both ways alike (compared)


# ---- every test kernel ----------------------------------------------------------------------

# Every instruction, memory, queue and sync test with --both-ways (1742 tests; each launch forks
# its eager twin) takes about 2 minutes on a 2-core machine with a warm numba cache, several
# times that cold: the suite runs the files of the deferred call forms' front ends, and
# ASCSIM_BOTH_WAYS=all runs them all.
_ALL_KERNEL_TESTS = (
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_instr_*.py")),
    "tests/test_memory.py", "tests/test_pipe_queue.py", "tests/test_pipe_events.py",
    "tests/test_sync.py", "tests/test_crosscore.py", "tests/test_atomics.py",
    "tests/test_pad_value.py", "tests/test_workspace.py")
_FRONT_END_TESTS = ("tests/test_instr_elementwise.py", "tests/test_instr_datacopy.py",
                    "tests/test_instr_cmpsel.py", "tests/test_pipe_queue.py",
                    "tests/test_sync.py", "tests/test_crosscore.py")


def test_every_instruction_test_kernel_both_ways():
    """The instruction, memory, queue and sync tests with --both-ways: each of their launches
    (hundreds of small kernels over every call form) runs both ways."""
    every = os.environ.get("ASCSIM_BOTH_WAYS") == "all"
    files = list(_ALL_KERNEL_TESTS if every else _FRONT_END_TESTS)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--both-ways", "-x", *files], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


# ---- the mechanisms ---------------------------------------------------------------------------

def _gm(addr, dtype):
    g = GlobalTensor[dtype]()
    g.SetGlobalBuffer(addr)
    return g


def _pipe_buf(nbytes=8192):
    pipe = TPipe()
    buf = TBuf[QuePosition.VECCALC]()
    pipe.InitBuffer(buf, nbytes)
    return pipe, buf


def _tile_in(x):
    """(the pipe, a tile of 256 floats copied in from x and synced for the vector pipe)."""
    pipe, buf = _pipe_buf()
    t = buf.Get[f32]()
    DataCopy(t, _gm(x, f32), 256)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    return pipe, t


def _tile_out(out, t):
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(_gm(out, f32), t, 256)


def _scaling_kernel(n_muls=1, add_first=True):
    def kernel(x, out):
        """Copy in, `n_muls` Muls, GetValue (Python reads the UB: a sync), then add the value
        read (`add_first`), copy out."""
        pipe, t = _tile_in(x)
        for _ in range(n_muls):
            Muls(t, t, 2.0, 256)
        first = t.GetValue(0)  # the deferred Muls have run
        if add_first:
            Adds(t, t, float(first), 256)
        _tile_out(out, t)
    return kernel


_scale_kernel = _scaling_kernel()


def test_getvalue_reads_what_deferred_work_wrote():
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    run = ascsim.launch(_scale_kernel, 1, x, out)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, x * np.float32(2) + np.float32(0))
    x[0] = 3
    ascsim.launch(_scale_kernel, 1, x, out)
    np.testing.assert_array_equal(out, x * np.float32(2) + np.float32(6))
    assert all(type(v) is int for row in run.cores[0].records for v in row)


@pytest.mark.parametrize("n_muls", [1, batch._INLINE_ROWS + 3])
def test_a_sync_runs_the_rows_on_the_kernels_thread(monkeypatch, n_muls):
    """GetValue's flush runs the core's pending rows itself (after the batches before them):
    handing a row or two to the worker and waiting would cost two thread hand-overs. A few
    rows run through their work's entry points, more as one batch."""
    import threading
    kernel = _scaling_kernel(n_muls, add_first=False)
    x = np.arange(256, dtype=np.float32)
    ascsim.launch(kernel, 1, x, np.zeros(256, np.float32))  # makes the kinds
    ran = []  # (thread, how)
    original = batch.run_batch

    def recording(*args):
        ran.append((threading.current_thread(), "batch"))
        return original(*args)

    def entry_recording(entry):
        def call(*args):
            ran.append((threading.current_thread(), "entry"))
            return entry(*args)
        return call
    monkeypatch.setattr(batch, "run_batch", recording)
    monkeypatch.setattr(batch._KINDS, "calls", [(entry_recording(e), lits)
                                                 for e, lits in batch._KINDS.calls])
    on_worker = _count_worker_batches(monkeypatch)
    out = np.zeros(256, np.float32)
    ascsim.launch(kernel, 1, x, out)
    np.testing.assert_array_equal(out, x * np.float32(2) ** n_muls)
    here = threading.current_thread()
    # the copy and the Muls at GetValue, on this thread; the copy out at the core's end, on
    # the worker (which runs its batches in one native loop, not through run_batch's Python
    # entry)
    if n_muls + 1 <= batch._INLINE_ROWS:
        assert ran == [(here, "entry")] * (n_muls + 1)
    else:
        assert ran == [(here, "batch")]
    assert on_worker == [1]


def _count_worker_batches(monkeypatch) -> list[int]:
    """The number of batches the worker ran, one entry per launch (read when it closes)."""
    counts: list[int] = []
    close = batch.Executor.close

    def counting(self):
        close(self)
        counts.append(int(self._control[batch._RAN]))
    monkeypatch.setattr(batch.Executor, "close", counting)
    return counts


def test_a_cross_core_point_hands_the_rows_to_the_worker(monkeypatch):
    """A SyncAll submits its core's rows instead of running them on the core's thread: the
    worker runs them while the core waits (MSELoss mean ends every core's pass with one)."""
    import threading

    from tests.test_crosscore import _rotate_want, rotate_kernel
    names = []
    original = batch.run_batch

    def recording(*args):
        names.append(threading.current_thread().name)
        return original(*args)
    monkeypatch.setattr(batch, "run_batch", recording)
    monkeypatch.setattr(batch, "_INLINE_ROWS", -1)  # a row run here would go through run_batch
    on_worker = _count_worker_batches(monkeypatch)
    x = np.random.default_rng(2).standard_normal(4 * 64).astype(np.float32)
    ws, out = np.zeros_like(x), np.zeros_like(x)
    ascsim.launch(rotate_kernel(), 4, x, ws, out)
    want, _ = _rotate_want(x, 4)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
    assert names == [] and on_worker[0] >= 4  # every core's rows, none on the kernel's thread


@pytest.mark.parametrize("missing", [None, "_POLL", "_READ"])
def test_a_napping_worker_finds_each_batch_and_close(monkeypatch, missing):
    """The worker naps (batch.serve: a wait of _NAP_MS for a byte on its wake-up pipe) once
    the ring has been empty a while, and publishing a batch writes no byte: a core whose Python
    pauses between batches (longer than the worker polls) still gets every batch run, in order,
    without waiting for them, and close ends the launch. Where the C library's poll is not
    found the worker polls instead, and where its read is not found a byte once written ends
    every later nap at once: the same holds."""
    import time as _time
    monkeypatch.setattr(batch, "BATCH_ROWS", 2)  # a batch every two rows
    if missing:
        monkeypatch.setattr(batch, missing, 0)

    def kernel(x, out):
        pipe, t = _tile_in(x)
        deferring = current_core().batch  # None in pytest --both-ways's eager twin
        executor = deferring and deferring.executor
        for i in range(6):
            Muls(t, t, 2.0, 256)
            _time.sleep(0.003)  # the worker runs out of work and naps
            if executor and i % 2 == 0:  # the copy and this Muls were published: found
                deadline = _time.monotonic() + 5
                while executor._control[batch._RAN] < executor._published:
                    assert _time.monotonic() < deadline, "the worker did not wake"
                    _time.sleep(0.001)
        _tile_out(out, t)

    on_worker = _count_worker_batches(monkeypatch)
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    ascsim.launch(kernel, 1, x, out)
    np.testing.assert_array_equal(out, x * np.float32(64))
    assert on_worker == [4]  # 8 rows in batches of two


def test_waiting_wakes_a_napping_worker(monkeypatch):
    """What ends a nap early is the byte a wait writes: with naps of 20 s, a launch whose
    kernel waits for the worker three times (two GetValue syncs with batches pending, then
    the launch's close) still ends in moments. Without the byte each wait would last a nap."""
    import time as _time
    monkeypatch.setattr(batch, "BATCH_ROWS", 2)
    monkeypatch.setattr(batch, "_NAP_MS", 20_000)
    seen = []

    def kernel(x, out):
        pipe, t = _tile_in(x)
        for _ in range(2):
            _time.sleep(0.003)  # the worker runs out of work and naps
            Muls(t, t, 2.0, 256)  # a full batch (with the row before): published
            Muls(t, t, 2.0, 256)
            seen.append(float(t.GetValue(1)))  # waits for that batch
        _tile_out(out, t)

    x = np.arange(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    start = _time.monotonic()
    with execution_mode("deferred"):
        ascsim.launch(kernel, 1, x, out)
    assert _time.monotonic() - start < 10, "a wait sat out a nap"
    assert seen == [4.0, 16.0]
    np.testing.assert_array_equal(out, x * np.float32(16))


def test_a_batch_that_raises_is_reported_once_and_close_returns():
    """What the worker's failed batch leaves in the control words: the first wait raises it,
    naming the row and its header; later waits (the launch's close) return."""
    import threading
    executor = batch.Executor([])
    gate = threading.Event()
    executor._thread = threading.Thread(target=gate.wait)  # a worker that has stopped short
    executor._thread.start()
    executor._wake_read, executor._wake_write = os.pipe()
    try:
        executor._published = 2
        control = executor._control
        control[batch._RAN] = 1
        control[batch._FAILED_ROW], control[batch._FAILED_HEAD] = 7, 0x305
        control[batch._FAILED] = 1
        with pytest.raises(RuntimeError, match="raised on row 7 of a batch .header 0x305"):
            executor.wait()
        executor.wait()
    finally:
        gate.set()
        executor._thread.join()
        os.close(executor._wake_read)
        os.close(executor._wake_write)
    executor._thread = None


def _stalled_kernel(x, out):
    """The vector pipe waits before MTE2's SetFlag is issued: its work is held in the backlog
    and added to the batch when the flag is set, after the copy."""
    pipe, buf = _pipe_buf()
    t = buf.Get[f32]()
    WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
    Muls(t, t, 3.0, 256)
    SetFlag[HardEvent.V_MTE3](EVENT_ID0)
    WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
    DataCopy(_gm(out, f32), t, 256)
    DataCopy(t, _gm(x, f32), 256)
    SetFlag[HardEvent.MTE2_V](EVENT_ID0)


def test_work_held_on_a_stalled_pipe_runs_in_eager_order(both_ways):
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    ascsim.launch(_stalled_kernel, 1, x, out)
    np.testing.assert_array_equal(out, x * np.float32(3))


def test_threads_give_the_eager_bits():
    n = 48 * 4096 + 77
    x, dy = _uniform(n, 0, 1, np.float32), _uniform(n, -5, 5, np.float32)
    with execution_mode("eager"):
        want = logit_grad(x, dy, -1.0)
    for threads in (1, 2, 4):
        got = logit_grad(x, dy, -1.0, threads=threads)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), threads


def _faulting_kernel(x, out):
    pipe, t = _tile_in(x)
    Muls(t, t, 5.0, 256)
    _tile_out(out, t)
    Muls(t, t, 5.0, 1 << 20)  # past the tensor: raises in the fast mode


def test_an_error_leaves_the_work_before_it_done(both_ways):
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    with pytest.raises(SimulationError, match="Muls"):
        ascsim.launch(_faulting_kernel, 1, x, out)
    np.testing.assert_array_equal(out, x * np.float32(5))


def test_both_ways_finds_a_deferred_difference(monkeypatch):
    """The comparison can fail: a batch that loses a row is caught."""
    original = batch.Batch.add
    seen = [0]

    def lossy(self, header, row):
        seen[0] += 1
        if seen[0] != 2:  # the Muls
            original(self, header, row)
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    monkeypatch.setattr(batch.Batch, "add", lossy)
    with pytest.raises(BothWaysMismatch, match="GM argument"):
        launch_both_ways(ascsim.runtime.launch, _scale_kernel, 1, x, out)


def test_both_ways_finds_a_finding_only_one_way(monkeypatch):
    """Check mode runs deferred too, and its findings are compared: a finding that the deferred
    run loses is caught."""
    from ascsim.faults import CoreChecker
    original = CoreChecker.add

    def add_when_eager(self, finding):
        if self.core.batch is None:
            original(self, finding)
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    monkeypatch.setattr(CoreChecker, "add", add_when_eager)
    with pytest.raises(BothWaysMismatch,
                       match="(?s)findings differ: .*WAR.*against eager.*out of range"):
        launch_both_ways(ascsim.runtime.launch, _faulting_kernel, 1, x, out, sanitize="check")


def test_the_kind_table_grows_without_losing_kinds():
    kinds = batch._Kinds(capacity=1)
    from ascsim.instructions.elementwise import binary_count, scalar_count
    a = kinds.kind(scalar_count, (1, 2, 0), 18)
    b = kinds.kind(binary_count, (2, 2, 0), 22)
    table = kinds.table
    assert (a, b) == (0, 1)
    assert table[:2, 1:].tolist() == [[18, 1, 2, 0], [22, 2, 2, 0]]  # length, literals
    shared = batch._KINDS.table
    assert table[0, 0] == shared[batch._KINDS.kind(scalar_count, (1, 2, 0), 18), 0] != 0
    assert table[1, 0] == shared[batch._KINDS.kind(binary_count, (2, 2, 0), 22), 0] != 0
    assert kinds.kind(scalar_count, (1, 2, 0), 18) == a


def test_a_kind_needs_a_row_the_batch_call_can_pass():
    from ascsim.instructions.elementwise import scalar_count
    with pytest.raises(ValueError, match="1 to 64 ints"):
        batch._Kinds().kind(scalar_count, (1, 2, 0), batch.MAX_ROW + 1)


def test_the_run_forgets_its_batches():
    x, dy = _uniform(4096, 0, 1, np.float32), _uniform(4096, -5, 5, np.float32)
    _, run = logit_grad(x, dy, -1.0, return_run=True)
    assert all(core.batch is None for core in run.cores)
    assert rec.code_of(run.cores[0].records[0]) is not None


def test_execution_must_be_named():
    with pytest.raises(ascsim.errors.ParameterError, match="execution"):
        ascsim.launch(_scale_kernel, 1, np.zeros(256, np.float32), np.zeros(256, np.float32),
                      execution="lazy")


# ---- kinds compiled in the background (the `ascsim` command) ----------------------------------

_MIXED = """
import numpy as np
import ascsim.batch as batch
from ascsim.runtime import execution_mode
from kernels_py.logit_grad import logit_grad
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    binary_cross_entropy_with_logits_backward as sce)


class EveryOther(batch._Background):
    '''Every other kind met is "not compiled yet"; no worker.'''
    def ready(self, kernel, literals, row_len):
        key = (kernel, literals, row_len)
        if key not in self.known:
            self.known[key] = len(self.known) % 2 == 0
        return self.known[key]

    def _ask(self, *kind):
        raise AssertionError("asked")


batch._background = EveryOther()
rng = np.random.default_rng(3)
for dtype in (np.float32, np.float16):
    x = rng.uniform(0.01, 0.99, 70000).astype(dtype)
    y = rng.uniform(-2, 2, 70000).astype(dtype)
    with execution_mode("eager"):
        want = [logit_grad(x, y, -1.0, return_run=True),
                sce(y, y, x, reduction="none", return_run=True)]
    got = [logit_grad(x, y, -1.0, return_run=True),
           sce(y, y, x, reduction="none", return_run=True)]
    for (w, wrun), (g, grun) in zip(want, got):
        assert w.tobytes() == g.tobytes()
        assert [c.records for c in wrun.cores] == [c.records for c in grun.cores]
known = batch._background.known.values()
assert any(known) and not all(known), batch._background.known
print("ok", sum(known), "deferred kinds,", len(known) - sum(known), "eager")
"""


def test_kinds_not_compiled_yet_run_eagerly_with_the_same_bits():
    """compile_in_background: a kind whose work is not cached runs eagerly in a deferring core
    (after the work deferred before it). Every other kind eager, in a fresh process (the call
    sites keep the headers of the process's kinds)."""
    done = subprocess.run([sys.executable, "-c", _MIXED], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert done.stdout.startswith("ok")


_FIRST_RUN = """
import sys
import numpy as np
import ascsim.batch as batch
from kernels_py.logit_grad import logit_grad

batch.compile_in_background()
x = np.linspace(0.01, 0.99, 4096, dtype=np.float32)
out, run = logit_grad(x, x, -1.0, return_run=True)
x64 = x.astype(np.float64)
assert np.allclose(out, x64 / (x64 * (1 - x64)), rtol=1e-5)
bg = batch._background
print(sum(bg.known.values()), len(bg.known))
if bg.worker is not None:
    bg.close()
    assert bg.worker.wait(timeout=600) == 0
"""


def test_the_first_run_compiles_in_the_background(tmp_path):
    """With a fresh cache, every kind runs eagerly and a worker process compiles them; the
    next process finds them cached and defers them all."""
    env = {**os.environ, "ASCSIM_CACHE_DIR": str(tmp_path)}
    first, second = (subprocess.run([sys.executable, "-c", _FIRST_RUN], cwd=ROOT, env=env,
                                    capture_output=True, text=True) for _ in range(2))
    assert first.returncode == 0, first.stderr[-3000:]
    ready, kinds = map(int, first.stdout.split())
    assert kinds > 0 and ready == 0
    assert second.returncode == 0, second.stderr[-3000:]
    assert second.stdout.split() == [str(kinds), str(kinds)]
