"""The packed record store (ascsim/recordstore.py): when a core ends, its list of rows
becomes a RecordStore that gives back the same rows, behaves as the list did wherever ascsim
reads records, and feeds records.Columns the same columns the list gave; the timeline, the
Chrome trace and the sanitizer's offline findings are the same whether a core's records are the
store or the list."""

from __future__ import annotations

import importlib
import pickle

import ml_dtypes
import numpy as np
import pytest

import ascsim
from ascsim import records as rec
from ascsim import runtime
from ascsim.ascendc import (
    EVENT_ID0,
    DataCopy,
    GlobalTensor,
    HardEvent,
    Muls,
    SetFlag,
    TBuf,
    TPipe,
    TPosition,
    WaitFlag,
)
from ascsim.ascendc import float as f32
from ascsim.core import PIPE_MTE2, PIPE_MTE3
from ascsim.export.chrome_trace import trace_dict
from ascsim.recordstore import RecordStore
from ascsim.runtime import execution_mode
from ascsim.sanitizer import analyse_run
from kernels_py.logit_grad import logit_grad
from kernels_py.mse_loss_v2 import mse_loss
from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
    binary_cross_entropy_with_logits_backward,
)

RNG = np.random.default_rng(3)


@pytest.fixture
def lists(monkeypatch: pytest.MonkeyPatch) -> dict[int, list[tuple]]:
    """id(core) -> the core's list of rows as the launch had it before packing (the cores of
    every launch of the test, an aclnn call's several launches or the sanitizer's re-run)."""
    seen: dict[int, list[tuple]] = {}
    pack = runtime._pack_core

    def keep(core):
        if type(core.records) is list:
            seen[id(core)] = list(core.records)
        pack(core)

    monkeypatch.setattr(runtime, "_pack_core", keep)
    return seen


def _uniform(shape, lo, hi, dtype=np.float32):
    return RNG.uniform(lo, hi, shape).astype(np.float32).astype(dtype)


def _logit_grad(**kw):
    n = 48 * 2048 + 777  # every core, several tiles, a tail
    return logit_grad(_uniform(n, -0.1, 1.1), _uniform(n, -5, 5), -1.0, return_run=True,
                      **kw)[1]


def _sce_bf16(**kw):
    shape = (9, 1531)
    x, y = _uniform(shape, -4, 4, ml_dtypes.bfloat16), _uniform(shape, 0, 1, ml_dtypes.bfloat16)
    return binary_cross_entropy_with_logits_backward(
        _uniform((1,), -1, 1, ml_dtypes.bfloat16), x, y, _uniform(shape, 0, 2, ml_dtypes.bfloat16),
        _uniform(shape[-1:], 0, 2, ml_dtypes.bfloat16), reduction="mean", return_run=True,
        **kw)[1]


def _mse_mean(**kw):  # cross-core: SyncAll and atomics
    return mse_loss(_uniform(100_001, -1, 1), _uniform(100_001, -1, 1), "mean",
                    return_run=True, **kw)[1]


RUNS = {"logit_grad": _logit_grad, "sce_bf16": _sce_bf16, "mse_mean": _mse_mean}
MODES = {"deferred": ("deferred", "off"), "eager": ("eager", "off"),
         "check": ("deferred", "check")}


def _run(op: str, mode: str = "deferred"):
    execution, sanitize = MODES[mode]
    with execution_mode(execution):
        return RUNS[op](sanitize=sanitize)


# ---- the rows of real runs ----------------------------------------------------------------------

@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("op", list(RUNS))
def test_every_row_of_a_run_comes_back_the_same(lists, op, mode):
    run = _run(op, mode)
    stores = [c.records for c in run.cores]
    assert all(type(s) is RecordStore for s in stores)
    for store, rows in zip(stores, [lists[id(c)] for c in run.cores], strict=True):
        assert len(store) == len(rows)
        assert list(store) == rows  # iteration
        assert [store[i] for i in range(len(rows))] == rows  # indexing
        assert [store[i] for i in range(-len(rows), 0)] == rows  # negative indices
        assert store == rows and rows == store and store[:] == rows
        assert all(type(v) is int for row in store for v in row)
    assert sum(s.nbytes for s in stores) == 8 * sum(len(s) + 1 + sum(map(len, s))
                                                    for s in stores)


def test_eager_deferred_and_check_mode_give_the_same_stores():
    stores = {}
    for mode in MODES:
        stores[mode] = [c.records for c in _run("logit_grad", mode).cores]
    assert stores["deferred"] == stores["eager"] == stores["check"]


# ---- the list interface -----------------------------------------------------------------------

ROWS = [(1, 0, 0, 4, 0, 0, 0, 9, 0, 1, 1),
        (5, 1, 3, 20, 2, 64, 1, 0, -(1 << 63), 0, 1, 0, 0, 256, 0, 0, 256, 512),
        (6, 2, 3, 22, 2, 64, 1, 0, 0, 3, 256, 256, 256, 1, 0, 0, 256, 0, 1, 1 << 40,
         (1 << 40) + 256)]


def test_indexing_slicing_and_iteration_behave_as_the_list_did():
    store = RecordStore.pack(ROWS)
    assert len(store) == 3 and bool(store) and store.flat.dtype == np.int64
    for i in range(-4, 4):
        if -3 <= i < 3:
            assert store[i] == ROWS[i]
        else:
            with pytest.raises(IndexError):
                store[i]
    for s in (slice(None), slice(1, None), slice(None, -1), slice(None, None, -1),
              slice(0, 3, 2), slice(5, 9), slice(-2, -1)):
        assert store[s] == ROWS[s]
    assert list(store) == ROWS and list(reversed(store)) == ROWS[::-1]
    assert ROWS[1] in store and (0,) not in store and store.index(ROWS[2]) == 2
    assert store == ROWS and store != tuple(ROWS) and store != ROWS[:2]
    assert store == RecordStore.pack(iter(ROWS)) and store != RecordStore.pack(ROWS[::-1])
    assert RecordStore.pack(store) is store


def test_an_empty_store_is_falsy_and_equals_the_empty_list():
    store = RecordStore.pack([])
    assert len(store) == 0 and not store and store == [] and list(store) == []
    with pytest.raises(IndexError):
        store[-1]
    cols = rec.Columns(store)
    assert cols.size == 0 and cols.op.size == 0 and cols.params.size == 0
    assert cols.acc_off.tolist() == [0]


def test_iteration_crosses_chunks():
    rows = [(i, 0, 0, 0, 0, 0, 0, 0, 0, i % 3, *range(i % 3)) for i in range(10_000)]
    store = RecordStore.pack(rows)
    assert list(store) == rows and store[4097] == rows[4097]


def test_a_store_pickles():
    store = RecordStore.pack(ROWS)
    again = pickle.loads(pickle.dumps(store))
    assert again == store and list(again) == ROWS


def test_a_row_appended_after_the_launch_is_kept():
    """A LocalTensor kept past its launch still issues instructions, recorded on its core."""
    kept = []

    def kernel(x, out):
        pipe = TPipe()
        buf = TBuf[TPosition.VECCALC]()
        pipe.InitBuffer(buf, 1024)
        t = buf.Get[f32]()
        g = GlobalTensor[f32]()
        g.SetGlobalBuffer(x)
        DataCopy(t, g, 64)
        kept.append(t)

    run = ascsim.launch(kernel, 1, np.ones(64, np.float32), np.zeros(64, np.float32),
                        execution="eager")
    store = run.cores[0].records
    before = list(store)
    Muls(kept[0], kept[0], 2.0, 64)
    assert len(store) == len(before) + 1 and list(store)[:-1] == before
    assert rec.REGISTRY[store[-1][rec.OP]].name == "Muls"


# ---- columns ----------------------------------------------------------------------------------

def _list_columns(rows: list[tuple]) -> dict[str, list]:
    """The columns as the list-based Columns built them, one row at a time."""
    fields = {"op": rec.OP, "pipe": rec.PIPE, "code": rec.CODE, "dtype": rec.DTYPE,
              "count": rec.COUNT, "repeats": rec.REPEATS, "mode": rec.MODE,
              "scalar": rec.SCALAR, "nparam": rec.NPARAM}
    out: dict[str, list] = {name: [r[f] for r in rows] for name, f in fields.items()}
    out["params"] = [p for r in rows for p in rec.params_of(r)]
    out["param_off"] = np.cumsum([0] + [len(rec.params_of(r)) for r in rows]).tolist()
    accesses = [(i, k, a) for i, r in enumerate(rows) for k, a in enumerate(rec.accesses_of(r))]
    out["acc_off"] = np.cumsum([0] + [len(rec.accesses_of(r)) for r in rows]).tolist()
    for j, name in enumerate(("acc_flags", "acc_mem", "acc_start", "acc_end")):
        out[name] = [a[j] for _, _, a in accesses]
    out["acc_row"] = [i for i, _, _ in accesses]
    out["acc_index"] = [k for _, k, _ in accesses]
    return out


@pytest.mark.parametrize("op", list(RUNS))
def test_columns_from_the_store_equal_the_list_columns(op):
    run = _run(op)
    for core in run.cores:
        rows = list(core.records)
        want = _list_columns(rows)
        for cols in (rec.Columns(core.records), rec.Columns(rows)):
            for name, values in want.items():
                got = getattr(cols, name)
                assert got.dtype == np.int64 and got.tolist() == values, name
            for k, default in ((0, 0), (2, -1), (7, 5)):
                assert cols.param(k, default).tolist() == [
                    rec.params_of(r)[k] if len(rec.params_of(r)) > k else default for r in rows]
            copies = np.array([i for i, r in enumerate(rows)  # GM copies, as cost.py picks them
                               if rec.REGISTRY[r[rec.OP]].family == "copy"
                               and r[rec.PIPE] in (PIPE_MTE2, PIPE_MTE3)], np.int64)
            assert cols.copy_gm_start(copies).tolist() == [
                next(a[2] for a in rec.accesses_of(rows[i]) if a[1] != 0) for i in copies]
            every_copy = np.array([i for i, r in enumerate(rows)
                                   if rec.REGISTRY[r[rec.OP]].family == "copy"], np.int64)
            assert cols.copy_geometry(every_copy).tolist() == [
                list(rec.copy_geometry(rows[i])) for i in every_copy]


# ---- analyses: the same with the store as with the list ---------------------------------------

def _as_lists(run):
    for core in run.cores:
        core.records = list(core.records)


@pytest.mark.parametrize("op", list(RUNS))
def test_the_timeline_and_trace_are_the_same_from_the_list(op):
    run = _run(op)
    tl = run.timeline()
    trace = trace_dict(tl)
    _as_lists(run)
    again = run.timeline()
    for name in ("off", "instr", "kind", "lane", "fixed", "work", "nbytes", "penalty", "pair",
                 "issue", "start", "end", "data_end", "first_issue", "core_end", "busy"):
        assert np.array_equal(getattr(tl, name), getattr(again, name)), name
    assert trace_dict(again) == trace


@pytest.mark.parametrize("name", ["rc_missing_mte2_v", "ic_blocklen_elements",
                                  "mse_missing_syncall", "sc_deadlock_chain"])
def test_sanitizer_findings_are_the_same_from_the_list(name):
    run = importlib.import_module(f"tests.bugs.{name}").run("check")
    assert run.findings
    session = run.cores[0].sanitizer.session
    findings = [f.format() for f in analyse_run(run, session)]
    _as_lists(run)
    assert [f.format() for f in analyse_run(run, session)] == findings


def _tile_kernel(seen: list):
    """Each core copies 64 floats in, scales them, copies them out, and notes, for every core
    that ran before it, whether that core's records were still a list."""
    from ascsim.core import current_core
    seen_cores: list = []

    def kernel(x, out):
        core = current_core()
        seen.append([type(c.records) is list for c in seen_cores])
        seen_cores.append(core)
        pipe, buf = TPipe(), TBuf[TPosition.VECCALC]()
        pipe.InitBuffer(buf, 256)
        t = buf.Get[f32]()
        gx, gout = GlobalTensor[f32](), GlobalTensor[f32]()
        gx.SetGlobalBuffer(x)
        gout.SetGlobalBuffer(out)
        DataCopy(t, gx[64 * core.block_idx], 64)
        SetFlag[HardEvent.MTE2_V](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
        Muls(t, t, 2.0, 64)
        SetFlag[HardEvent.V_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
        DataCopy(gout[64 * core.block_idx], t, 64)
    return kernel


def test_a_core_s_records_are_packed_when_it_ends():
    """A core's records become a RecordStore as soon as it ends, while the next cores run
    (their rows are still in the caches, and the launch never holds every core's tuples);
    under unread_records they stay the lists they were made in."""
    x = np.arange(3 * 64, dtype=np.float32)
    out = np.zeros_like(x)
    seen: list = []
    run = ascsim.launch(_tile_kernel(seen), 3, x, out)
    assert seen == [[], [False], [False, False]]
    assert all(type(c.records) is RecordStore for c in run.cores)
    np.testing.assert_array_equal(out, 2 * x)
    seen.clear()
    with runtime.unread_records():
        run = ascsim.launch(_tile_kernel(seen), 3, x, out)
    assert seen == [[], [True], [True, True]]
    assert all(type(c.records) is list for c in run.cores)


@pytest.mark.parametrize("op", ["logit_grad", "mse_loss", "sce", "cross_entropy_loss"])
def test_an_aclnn_call_packs_only_the_records_it_returns(monkeypatch, op):
    """An aclnn call that returns no Run leaves its records unpacked (nobody reads them:
    runtime.unread_records); with return_run=True its Run holds RecordStores, and its output
    is the same."""
    from kernels_py.cross_entropy_loss import cross_entropy_loss
    packed: list[bool] = []  # per packing: was the core's records a list
    pack = runtime._pack_core
    monkeypatch.setattr(runtime, "_pack_core",
                        lambda core: (packed.append(type(core.records) is list), pack(core)))
    x, y = _uniform(4096, 0.05, 0.95), _uniform(4096, -1, 1)
    call = {"logit_grad": lambda **kw: logit_grad(x, y, -1.0, **kw),
            "mse_loss": lambda **kw: mse_loss(x, y, "none", **kw),
            "sce": lambda **kw: binary_cross_entropy_with_logits_backward(y, x, x, **kw),
            "cross_entropy_loss": lambda **kw: cross_entropy_loss(
                y.reshape(64, 64), np.arange(64, dtype=np.int64), **kw)}[op]
    out = call()
    assert packed == []
    again, run = call(return_run=True)
    assert any(packed) and all(isinstance(c.records, RecordStore) for c in run.cores)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(again))
