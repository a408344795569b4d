# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""DMA atomics (instructions/crosscore.py sets the mode, instructions/datacopy.py does the
arithmetic): GM[i] = GM[i] op data[i] in T for every UB->GM copy while the mode is on, bit for
bit against numpy / ml_dtypes, specials included; the order of float atomics across cores
(core order by default, `atomic_order` to change it, the same for any thread count); the
sanitizer's order-sensitivity check."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ascsim
from ascsim.ascendc import *
from ascsim.ascendc import kernel_sync
from ascsim.dtypes import float as f32

BYTES = 512  # per copy

SPECIAL_F = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-40, -1e-40, 3.4e38, -3.4e38,
             0.1, 65504.0, 6e-8, 1e-45]
NP = {f32: np.float32, half: np.float16, bfloat16_t: ml_dtypes.bfloat16, int32_t: np.int32,
      int16_t: np.int16, int8_t: np.int8}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}
OPS = {"Add": (SetAtomicAdd, np.add), "Max": (SetAtomicMax, np.maximum),
       "Min": (SetAtomicMin, np.minimum)}


def _gm(addr, dtype):
    g = GlobalTensor[dtype]()
    g.SetGlobalBuffer(addr)
    return g


def atomic_kernel(dtype, setter, n, pad=False, reset=True):
    @kernel_sync("manual")
    def kernel(x, out):
        pipe = TPipe()
        buf = TBuf[TPosition.VECCALC]()
        pipe.InitBuffer(buf, BYTES)
        t = buf.Get[dtype]()
        DataCopy(t, _gm(x, dtype), n)
        SetFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
        setter[dtype]()
        if pad:
            DataCopyPad(_gm(out, dtype), t, DataCopyExtParams(1, n * dtype.size, 0, 0, 0))
        else:
            DataCopy(_gm(out, dtype), t, n)
        if reset:
            SetAtomicNone()
    return kernel


def _values(dtype, n, rng):
    npt = NP[dtype]
    if dtype in (int32_t, int16_t, int8_t):
        info = np.iinfo(npt)
        v = rng.integers(info.min, info.max, n, endpoint=True).astype(npt)
        v[:4] = [info.max, info.min, -1, 0]
        return v
    v = rng.standard_normal(n).astype(np.float32) * np.float32(100)
    k = len(SPECIAL_F)
    v[:k] = SPECIAL_F
    return v.astype(npt)


def _expected(op, dtype, g, d):
    """The independent model: numpy / ml_dtypes arithmetic in T, NaNs and zeros by the rule."""
    npt = NP[dtype]
    u = UINT[np.dtype(npt).itemsize]
    if dtype in (int32_t, int16_t, int8_t):
        with np.errstate(over="ignore"):
            return OPS[op][1](g, d).astype(npt).view(u)
    want = OPS[op][1](g, d).astype(npt).view(u).copy()
    gb, db = g.view(u), d.view(u)
    quiet = {f32: 0x400000, half: 0x200, bfloat16_t: 0x40}[dtype]
    gnan = np.isnan(g.astype(np.float32))
    dnan = np.isnan(d.astype(np.float32))
    want[dnan] = db[dnan] | quiet
    want[gnan] = gb[gnan] | quiet
    if op != "Add":
        zero = (g.astype(np.float32) == 0) & (d.astype(np.float32) == 0)
        want[zero] = (gb & db)[zero] if op == "Max" else (gb | db)[zero]
    return want


@pytest.mark.instruction("SetAtomicAdd")
@pytest.mark.instruction("SetAtomicMax")
@pytest.mark.instruction("SetAtomicMin")
@pytest.mark.instruction("SetAtomicNone")
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", [f32, half, bfloat16_t, int32_t, int16_t, int8_t],
                         ids=str)
@pytest.mark.parametrize("pad", [False, True], ids=["DataCopy", "DataCopyPad"])
def test_atomic_bits(op, dtype, pad):
    rng = np.random.default_rng(hash((op, str(dtype), pad)) % 2**32)
    n = BYTES // dtype.size
    npt = NP[dtype]
    u = UINT[dtype.size]
    g = _values(dtype, n, rng)
    d = _values(dtype, n, rng)
    rng.shuffle(d)
    # every special against every special, for floats
    if dtype not in (int32_t, int16_t, int8_t):
        k = len(SPECIAL_F)
        pairs = np.array([(a, b) for a in SPECIAL_F for b in SPECIAL_F], np.float32)
        m = min(n, len(pairs))
        g[:m] = pairs[:m, 0].astype(npt)
        d[:m] = pairs[:m, 1].astype(npt)
        assert m >= k
    out = g.copy()
    ascsim.launch(atomic_kernel(dtype, OPS[op][0], n, pad), 1, d.copy(), out)
    want = _expected(op, dtype, g, d)
    got = out.view(u)
    bad = np.flatnonzero(got != want)
    assert not bad.size, (f"{op}<{dtype}> at {bad[:5]}: gm {g[bad[:5]]} data {d[bad[:5]]} "
                          f"got {got[bad[:5]]} want {want[bad[:5]]}")


def test_half_add_rounds_to_nearest_even_in_half():
    # 2048 + 1 in half: exactly halfway between 2048 and 2050 -> even mantissa (2048);
    # 2050 + 1 -> 2052 (ties to even); 65504 + 15 -> 65504 (below the tie); 65504 + 16 is
    # the tie between 65504 (odd) and 65536 (even, past the largest half): inf
    g = np.array([2048, 2050, 65504, 65504] + [0] * 252, np.float16)
    d = np.array([1, 1, 15, 16] + [0] * 252, np.float16)
    out = g.copy()
    ascsim.launch(atomic_kernel(half, SetAtomicAdd, 256), 1, d, out)
    assert list(out[:4]) == [2048, 2052, 65504, np.inf]


@pytest.mark.instruction("DisableDmaAtomic")
@pytest.mark.instruction("SetAtomicNone")
def test_mode_persists_until_none_and_tpipe_resets_it():
    n = 128

    def kernel(x, out):
        pipe = TPipe()
        buf = TBuf[TPosition.VECCALC]()
        pipe.InitBuffer(buf, BYTES)
        t = buf.Get[float]()
        DataCopy(t, _gm(x, f32), n)
        SetFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
        SetAtomicAdd[float]()
        DataCopy(_gm(out, f32), t, n)          # out = 1 + 2
        DataCopy(_gm(out, f32), t, n)          # out = 3 + 2 (the mode persists)
        TPipe()                                 # resets the mode
        DataCopy(_gm(out, f32)[n], t, n)       # plain store
        SetAtomicMax[float]()
        DisableDmaAtomic()
        DataCopy(_gm(out, f32)[2 * n], t, n)   # plain store again
    x = np.full(n, 2, np.float32)
    out = np.ones(3 * n, np.float32)
    ascsim.launch(kernel, 1, x, out)
    assert list(np.unique(out[:n])) == [5.0]
    assert list(np.unique(out[n:])) == [2.0]


def test_datacopypad_adds_exactly_blocklen_bytes():
    n = 5  # 20 bytes, not a whole block

    def kernel(x, out):
        pipe = TPipe()
        buf = TBuf[TPosition.VECCALC]()
        pipe.InitBuffer(buf, BYTES)
        t = buf.Get[float]()
        DataCopy(t, _gm(x, f32), 64)
        SetFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
        SetAtomicAdd[float]()
        DataCopyPad(_gm(out, f32), t, DataCopyExtParams(2, n * 4, 0, 4, 0))
    x = np.arange(64, dtype=np.float32)
    out = np.full(16, 100, np.float32)
    ascsim.launch(kernel, 1, x, out)
    want = np.full(16, 100, np.float32)
    want[0:5] += x[0:5]
    want[6:11] += x[8:13]  # the second block: UB 32-byte aligned, GM after a 4-byte gap
    assert np.array_equal(out, want)


def test_type_mismatch_is_an_error():
    with pytest.raises(ascsim.errors.ParameterError, match="atomic_type_mismatch"):
        ascsim.launch(atomic_kernel(f32, {f32: SetAtomicAdd[half]}, 64), 1,
                      np.zeros(64, np.float32), np.zeros(64, np.float32))


def test_setter_rejects_a_type_a2_lacks():
    with pytest.raises(ascsim.errors.ParameterError, match="T must be"):
        SetAtomicAdd[uint32_t]


# ---- many cores ---------------------------------------------------------------------------------

def reduce_kernel(n):
    """Every core adds its row into out[0:n] (an atomic sum over cores)."""
    @kernel_sync("manual")
    def kernel(x, out):
        b = GetBlockIdx()
        pipe = TPipe()
        buf = TBuf[TPosition.VECCALC]()
        pipe.InitBuffer(buf, n * 4)
        t = buf.Get[float]()
        DataCopy(t, _gm(x, f32)[b * n], n)
        SetFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
        SetAtomicAdd[float]()
        DataCopy(_gm(out, f32), t, n)
        SetAtomicNone()
    return kernel


def _sum_in(order, x):
    acc = np.zeros(x.shape[1], np.float32)
    for c in order:
        acc = (acc + x[c]).astype(np.float32)
    return acc


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_float_atomics_accumulate_in_core_order_for_any_thread_count(threads):
    cores, n = 8, 64
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((cores, n)) * 10.0 ** rng.integers(-4, 5, (cores, n))).astype(
        np.float32)
    for order, want_order in (("core", range(cores)), ("reverse", range(cores - 1, -1, -1))):
        out = np.zeros(n, np.float32)
        ascsim.launch(reduce_kernel(n), cores, x.reshape(-1).copy(), out, threads=threads,
                      atomic_order=order)
        assert np.array_equal(out.view(np.uint32), _sum_in(want_order, x).view(np.uint32))
    shuffled = [int(i) for i in np.random.default_rng(3).permutation(cores)]
    out = np.zeros(n, np.float32)
    ascsim.launch(reduce_kernel(n), cores, x.reshape(-1).copy(), out, threads=threads,
                  atomic_order="shuffle:3")
    assert np.array_equal(out.view(np.uint32), _sum_in(shuffled, x).view(np.uint32))
    # the sum really is order-sensitive for this data
    assert not np.array_equal(_sum_in(range(cores), x), _sum_in(shuffled, x))


def test_atomic_order_is_validated():
    with pytest.raises(ascsim.errors.ParameterError, match="atomic_order"):
        ascsim.launch(reduce_kernel(64), 2, np.zeros(128, np.float32), np.zeros(64, np.float32),
                      atomic_order="random")


@pytest.mark.parametrize("execution,threads", [("eager", 1), ("deferred", 1), ("deferred", 3)])
def test_order_check_reruns_from_the_launch_time_bytes(execution, threads):
    """The atomic-order re-run starts from GM as it was at launch, although the snapshot of a
    buffer is taken only when its first write comes (sanitizer/snapshot.py; deferred, by the
    worker thread, in order with the work): out starts non-zero, and only the bytes whose
    float sum depends on the core order differ."""
    cores, n = 8, 64
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((cores, n)) * 10.0 ** rng.integers(-4, 5, (cores, n))).astype(
        np.float32)
    start = rng.standard_normal(n).astype(np.float32)
    out = start.copy()
    run = ascsim.launch(reduce_kernel(n), cores, x.reshape(-1).copy(), out, sanitize="check",
                        execution=execution, threads=threads)

    def total(order):
        acc = start.copy()
        for c in order:
            acc = (acc + x[c]).astype(np.float32)
        return acc.view(np.uint8)

    assert np.array_equal(out.view(np.uint8), total(range(cores)))
    differ = int((total(range(cores)) != total(range(cores - 1, -1, -1))).sum())
    order = [f for f in run.findings if f.check == "atomic order sensitivity"]
    assert differ and order and order[0].message.startswith(f"{differ} byte(s) of GM out ")


def test_snapshot_copies_only_written_buffers_and_their_aliases():
    from ascsim import records as rec
    from ascsim.memory import GmBuffer
    from ascsim.registry import by_name
    from ascsim.sanitizer.snapshot import LaunchSnapshot

    base = np.arange(1, 65, dtype=np.uint8)
    x, out, other = base[:32], base[16:48], np.zeros(8, np.uint8)  # out overlaps x
    gm = [GmBuffer(x, "x", 1), GmBuffer(out, "out", 2), GmBuffer(other, "other", 3)]
    snap = LaunchSnapshot(gm)
    copy = by_name("DataCopy").id
    read = rec.copy_row(copy, 2, None, 0, 0, 8, 1, 8, 8, 8, rec.W, 0, 0, 8, 0, 3, 0, 8)
    write = rec.copy_row(copy, 3, None, 0, 0, 8, 1, 8, 8, 8, rec.W, 2, 0, 8, 0, 0, 0, 8)
    snap.before_write(read)
    assert snap.copies == {}
    snap.before_write(write)
    assert set(snap.copies) == {1, 2}
    out[:] = 0
    kept = snap.originals()
    assert np.array_equal(kept[0], np.arange(1, 33)) and np.array_equal(kept[1], np.arange(17, 49))
    assert kept[2] is gm[2].data  # never written: the buffer itself
    snap.before_write(rec.copy_row(copy, 3, None, 0, 0, 8, 1, 8, 8, 8, rec.W, 3, 0, 8, 0, 0, 0,
                                   8))
    assert not snap.copies[3].kept.any()  # all zero: nothing kept
    other[:] = 5
    assert np.array_equal(snap.originals()[2], np.zeros(8, np.uint8))


def test_snapshot_copies_live_in_pooled_memory_that_the_next_launch_reuses():
    """The launch-time copies go back to the UB pool when the snapshot dies (a freshly
    allocated copy of a large output could wait tens of ms for its page faults); only the
    chunks that are not all zero are copied."""
    import gc

    from ascsim.core import pooled_bytes
    from ascsim.sanitizer.snapshot import _CHUNK, _MADVISE, _Copy, _sparse_copy_into

    data = np.zeros(2 * _CHUNK + 5, np.uint8)
    data[3], data[-1] = 7, 9  # the first and the short last chunk hold bytes, the middle none
    copy = _Copy(data.size)
    _sparse_copy_into(data, copy.data, copy.kept, _MADVISE)
    assert copy.kept.tolist() == [1, 0, 1]
    kept = copy.bytes()
    assert np.array_equal(kept, data)
    memory = copy.data.base.obj  # the mapping under the copy
    data[3] = 1
    assert copy.bytes()[3] == 7  # a copy, not a view
    del copy, kept
    gc.collect()
    assert pooled_bytes(data.size).base.obj is memory


@pytest.mark.parametrize("where", [0, 4095, 4096, 8191, (1 << 20) - 1])
def test_snapshot_finds_a_single_byte_anywhere_in_a_chunk(where):
    """The zero test reads 8-byte words a page at a time, then the bytes of a short tail: a
    lone non-zero byte at a page's or a word's edge, or in the tail, marks its chunk (also in
    a buffer that does not start at an 8-byte boundary)."""
    from ascsim.sanitizer.snapshot import _CHUNK, _MADVISE, _Copy, _sparse_copy_into

    for size, skew in ((_CHUNK, 0), (_CHUNK + 3, 0), (4101, 0), (_CHUNK + 3, 3)):
        data = np.zeros(size + skew, np.uint8)[skew:]
        at = min(where, size - 1)
        data[at] = 0x80
        copy = _Copy(size)
        _sparse_copy_into(data, copy.data, copy.kept, _MADVISE)
        assert copy.kept[at // _CHUNK] == 1 and np.array_equal(copy.bytes(), data)


def copy_kernel(per_core, tile):
    """Every core copies its `per_core` floats of x to out, a tile at a time."""
    @kernel_sync("manual")
    def kernel(x, out):
        base = GetBlockIdx() * per_core
        pipe = TPipe()
        buf = TBuf[TPosition.VECCALC]()
        pipe.InitBuffer(buf, tile * 4)
        t = buf.Get[float]()
        for i in range(per_core // tile):
            DataCopy(t, _gm(x, f32)[base + i * tile], tile)
            SetFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
            WaitFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
            DataCopy(_gm(out, f32)[base + i * tile], t, tile)
            SetFlag[HardEvent.MTE3_MTE2](EVENT_ID0)
            WaitFlag[HardEvent.MTE3_MTE2](EVENT_ID0)
    return kernel


@pytest.mark.parametrize("execution,threads", [("eager", 1), ("deferred", 1), ("deferred", 2)])
def test_snapshot_of_a_large_output_holds_its_bytes_before_the_launch(monkeypatch, execution,
                                                                      threads):
    """A 4 MB output whose chunks hold garbage, zeros and one stray byte: the launch-time copy
    (taken by the worker thread when deferred, ahead of the first write) is those bytes, and
    the output ends as the kernel wrote it."""
    from ascsim.sanitizer.snapshot import _CHUNK, LaunchSnapshot
    seen = []
    attach = LaunchSnapshot.attach
    monkeypatch.setattr(LaunchSnapshot, "attach",
                        lambda self, cores: (seen.append(self), attach(self, cores)))
    cores, tile = 8, 4096
    n = 4 * _CHUNK // 4
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    raw = out.view(np.uint8)
    raw[:_CHUNK] = np.random.default_rng(2).integers(0, 256, _CHUNK, dtype=np.uint8)
    raw[3 * _CHUNK + 12345] = 1
    before = raw.copy()
    ascsim.launch(copy_kernel(n // cores, tile), cores, x, out, sanitize="check",
                  execution=execution, threads=threads)
    assert np.array_equal(out, x)
    copies = seen[0].copies
    assert list(copies) == [2] and copies[2].kept.tolist() == [1, 0, 0, 1]
    assert np.array_equal(seen[0].originals()[1], before)


@pytest.mark.parametrize("threads", [1, 2])
def test_snapshot_of_a_buffer_first_written_by_a_library_copy(monkeypatch, threads):
    """A soft SyncAll's counters are the first write of its GM workspace, by a copy the library
    makes and runs at once from Python (crosscore._internal_copy), in a deferring launch too:
    the snapshot holds the workspace's bytes before the launch, not the incremented counters."""
    from ascsim.sanitizer.snapshot import LaunchSnapshot
    from tests.test_crosscore import N, soft_kernel
    seen = []
    attach = LaunchSnapshot.attach
    monkeypatch.setattr(LaunchSnapshot, "attach",
                        lambda self, cores: (seen.append(self), attach(self, cores)))
    n = 4
    x = np.random.default_rng(2).standard_normal(n * N).astype(np.float32)
    ws = np.zeros(n * 8 + 4096, np.int32)
    ws[n * 8:] = np.random.default_rng(3).integers(-9, 9, 4096)  # past the counters
    before = ws.copy()
    ascsim.launch(soft_kernel(rounds=2), n, x, ws, np.zeros_like(x), sanitize="check",
                  execution="deferred", threads=threads)
    assert list(ws[:n * 8:8]) == [4] * n
    assert np.array_equal(seen[0].originals()[1].view(np.int32), before)


def test_a_write_from_python_waits_for_a_copy_queued_on_the_worker():
    """A core's deferred first write queues the buffer's copy on the worker; a later write that
    Python makes itself (a soft SyncAll's counters, SetValue: a core on another thread, say)
    returns from the hook only once the worker has made it, and waits once."""
    from ascsim import records as rec
    from ascsim.memory import GmBuffer
    from ascsim.registry import by_name
    from ascsim.sanitizer.snapshot import LaunchSnapshot

    class Executor:
        waits = 0

        def wait(self):
            self.waits += 1

    class Batch:
        executor = Executor()
        rows: list = []

        def add(self, header, row):
            self.rows.append(row)

        def submit(self):
            pass

    class Core:
        batch = Batch()

    out = np.arange(64, dtype=np.uint8)
    snap = LaunchSnapshot([GmBuffer(out, "out", 1)])
    write = rec.copy_row(by_name("DataCopy").id, 3, None, 0, 0, 8, 1, 8, 8, 8, rec.W, 1, 0, 8,
                         0, 0, 0, 8)
    core = Core()
    snap.before_write(write, core, deferred=True)
    assert len(core.batch.rows) == 1 and core.batch.executor.waits == 0  # queued, not made
    snap.before_write(write, core, deferred=True)  # a deferred write queues after it
    assert core.batch.executor.waits == 0
    snap.before_write(write, core)
    snap.before_write(write, core)
    assert core.batch.executor.waits == 1


def _assert_hooked(snapshot, row, when):
    """`row` may write GM only into buffers `snapshot` has copied already."""
    from ascsim import records as rec
    from ascsim.sanitizer.snapshot import may_write_gm
    written = [mem for flags, mem, _, _ in rec.accesses_of(row)
               if flags & rec.W and mem != rec.MEM_UB]
    assert not written or may_write_gm(row[rec.OP]), row  # the registry knows it too
    missing = [mem for mem in written if mem not in snapshot.copies]
    assert not missing, (f"{rec.REGISTRY[row[rec.OP]].name} writes GM {missing} unhooked "
                         f"{when}")


class _HookCheckingRecords(list):
    """A record list that fails when a record that writes GM arrives before the snapshot has
    its launch-time bytes: a GM write appended around `core.append_gm_writer`."""

    def __init__(self, snapshot):
        super().__init__()
        self.snapshot = snapshot

    def append(self, row):
        _assert_hooked(self.snapshot, row, "when appended")
        list.append(self, row)


def _corpus_and_ops():
    import importlib
    import pkgutil

    import tests.bugs as bugs
    from kernels_py.cross_entropy_loss import cross_entropy_loss
    from kernels_py.mse_loss_v2 import mse_loss
    rng = np.random.default_rng(3)
    calls = {"mse_mean": lambda: mse_loss(rng.standard_normal(70_001).astype(np.float32),
                                         rng.standard_normal(70_001).astype(np.float32),
                                         "mean", sanitize="check"),
             "ce_mean": lambda: cross_entropy_loss(
                 rng.standard_normal((40, 300)).astype(np.float32),
                 rng.integers(0, 300, 40).astype(np.int64), sanitize="check")}
    for m in pkgutil.iter_modules(bugs.__path__):
        if not m.name.startswith("_"):
            module = importlib.import_module(f"tests.bugs.{m.name}")
            calls[m.name] = module.run
            if hasattr(module, "run_fixed"):
                calls[m.name + "_fixed"] = module.run_fixed
    return calls


_CALLS = _corpus_and_ops()


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_every_gm_write_reaches_the_snapshot_first(monkeypatch, name):
    """The snapshot sees GM writes through `append_gm_writer` only (a hook on every append
    cost check runs a few percent): in check mode, the first record to write a GM buffer finds
    it copied already, for every corpus kernel (and its fixed twin) and the cross-core ops.
    Check mode defers its work, so a deferred row must find it copied when it enters its
    batch, too: a full batch may run at once."""
    import ascsim.batch
    from ascsim.sanitizer import snapshot
    from ascsim.sanitizer.snapshot import LaunchSnapshot
    attach = LaunchSnapshot.attach
    add = ascsim.batch.Batch.add
    watched = []

    def attach_checking(self, cores):
        attach(self, cores)
        for core in cores:
            core.records = _HookCheckingRecords(self)
        watched.append(self)

    copy_kind = snapshot._copy_kind()

    def add_checking(self, header, row):
        if watched and header & ~ascsim.batch._GM_MASK != copy_kind:  # (not the copy's row)
            _assert_hooked(watched[-1], row, "when deferred")
        add(self, header, row)
    monkeypatch.setattr(LaunchSnapshot, "attach", attach_checking)
    monkeypatch.setattr(ascsim.batch.Batch, "add", add_checking)
    try:
        _CALLS[name]()
    except ascsim.errors.SimulationError:
        pass  # strict-mode corpus entries raise their finding: the appends before it count
    if name in ("mse_mean", "ce_mean"):
        assert watched and watched[0].copies  # the ops write their outputs under the watch
