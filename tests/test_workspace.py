# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""Workspaces and GM initialisation (instructions/crosscore.py): GetUserWorkspace /
GetSysWorkSpacePtr / SetSysWorkspace, the aclnn workspace argument, and InitGlobalMemory."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from conftest import custom_profile

import ascsim
from ascsim.ascendc import *
from ascsim.ascendc import kernel_sync
from ascsim.dtypes import float as f32
from ascsim.host import PlatformAscendC

MIB16 = 16 << 20
N = 64


def _gm(addr, dtype=float):
    g = GlobalTensor[dtype]()
    g.SetGlobalBuffer(addr)
    return g


def test_user_workspace_is_ws_plus_16_mib():
    got = {}

    def kernel(ws):
        got["sys0"] = GetSysWorkSpacePtr()
        user = GetUserWorkspace(ws)
        got["user"] = (user.buf.name, user.GetPhyAddr())
        got["sys"] = GetSysWorkSpacePtr().GetPhyAddr()
        got["null"] = GetUserWorkspace(None)
    ascsim.launch(kernel, 1, np.zeros(MIB16 + 1024, np.uint8))
    assert got == {"sys0": None, "user": ("ws", MIB16), "sys": 0, "null": None}


def test_user_ws_offset_is_a_profile_option(tmp_path):
    prof = custom_profile(tmp_path, "user_ws_offset", "0")
    got = []

    def kernel(ws):
        got.append(GetUserWorkspace(ws).GetPhyAddr())
    ascsim.launch(kernel, 1, np.zeros(1024, np.uint8), profile=prof)
    assert got == [0]
    assert PlatformAscendC(prof).GetLibApiWorkSpaceSize() == 0
    assert PlatformAscendC().GetLibApiWorkSpaceSize() == MIB16


def test_set_sys_workspace_sets_the_base_once():
    got = []

    def kernel(a, b):
        SetSysWorkspace(a)
        SetSysWorkspace(b)  # already set: ignored
        got.append(GetSysWorkSpacePtr().buf.name)
    ascsim.launch(kernel, 1, np.zeros(64, np.uint8), np.zeros(64, np.uint8))
    assert got == ["a"]


def test_a_workspace_smaller_than_the_system_part_is_an_error():
    def kernel(ws):
        GetUserWorkspace(ws)
    with pytest.raises(ascsim.errors.OutOfRangeError, match="system part"):
        ascsim.launch(kernel, 1, np.zeros(1024, np.uint8))


def partial_sums_kernel():
    """Each core writes its partial row into the user workspace; after a SyncAll core 0 adds
    them up (in core order) into out."""
    def kernel(x, out, ws):
        b, n = GetBlockIdx(), GetBlockNum()
        user = GetUserWorkspace(ws)
        part = GlobalTensor[float]()
        part.SetGlobalBuffer(user)
        pipe = TPipe()
        buf = TBuf[TPosition.VECCALC]()
        pipe.InitBuffer(buf, 2 * N * 4)
        t = buf.Get[float]()
        acc = t[N]
        DataCopy(t, _gm(x)[b * N], N)
        SetFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
        DataCopy(part[b * N], t, N)
        SyncAll()
        if b == 0:
            Duplicate(acc, 0.0, N)
            for c in range(n):
                DataCopy(t, part[c * N], N)
                SetFlag[HardEvent.MTE2_V](EVENT_ID0)
                WaitFlag[HardEvent.MTE2_V](EVENT_ID0)
                Add(acc, acc, t, N)
                SetFlag[HardEvent.V_MTE2](EVENT_ID0)
                WaitFlag[HardEvent.V_MTE2](EVENT_ID0)
            SetFlag[HardEvent.V_MTE3](EVENT_ID0)
            WaitFlag[HardEvent.V_MTE3](EVENT_ID0)
            DataCopy(_gm(out), acc, N)
    return kernel


@pytest.mark.parametrize("threads", [1, 2])
def test_workspace_carries_data_between_cores(threads):
    n = 4
    x = np.random.default_rng(4).standard_normal(n * N).astype(np.float32)
    out = np.zeros(N, np.float32)
    ws = np.zeros(MIB16 + n * N * 4, np.uint8)
    run = ascsim.launch(partial_sums_kernel(), n, x, out, ws, threads=threads,
                        sanitize="check", outputs=(1,), workspace=2)
    want = np.zeros(N, np.float32)
    for c in range(n):
        want = (want + x[c * N:(c + 1) * N]).astype(np.float32)
    assert np.array_equal(out, want)
    assert run.findings == [], run.report()
    # the system part was never written: calloc left those pages untouched (all zero)
    assert not ws[:MIB16].any()


def test_aclnn_passes_the_workspace_argument():
    """The shipped ops launch with inputs, outputs, workspace, tiling; their tiling asks for
    the 16 MiB system part."""
    from kernels_py.logit_grad.runner import OPERATOR
    opts = {"eps": -1.0}
    inputs = OPERATOR.make_inputs((4, 64), np.dtype(np.float32), np.random.default_rng(0), opts)
    _, run = OPERATOR.run(inputs, opts)
    names = [b.name if b is not None else None for b in run.gm]
    ws = run.gm[-2]
    assert ws is not None and ws.nbytes == MIB16, names


# ---- InitGlobalMemory -------------------------------------------------------------------------

def init_kernel(dtype, size, value, offset=0):
    def kernel(out):
        pipe = TPipe()
        q = TQue[QuePosition.VECIN, 1]()
        pipe.InitBuffer(q, 1, 1024)
        InitGlobalMemory[dtype](_gm(out, dtype)[offset], size, value)
    return kernel


@pytest.mark.parametrize("dtype,npt,value", [(f32, np.float32, -1.5), (half, np.float16, 3.25),
                                             (bfloat16_t, ml_dtypes.bfloat16, -0.0),
                                             (int32_t, np.int32, -7), (int16_t, np.int16, 300)],
                         ids=str)
def test_init_global_memory_fills_exactly_size_elements(dtype, npt, value):
    size = 40000  # more than one 65 280-byte chunk for 4-byte types
    out = np.full(size + 64, 0x5A, np.uint8).view(np.uint8)
    out = np.zeros(size + 100, npt)
    out[:] = npt(9)
    ascsim.launch(init_kernel(dtype, size, value, offset=10), 1, out)
    want = np.full(size + 100, npt(9))
    want[10:10 + size] = npt(value)
    assert np.array_equal(out.view(f"u{np.dtype(npt).itemsize}"),
                          want.view(f"u{np.dtype(npt).itemsize}"))


def test_init_global_memory_records_the_librarys_steps():
    size = 40000
    out = np.zeros(size, np.float32)
    run = ascsim.launch(init_kernel(f32, size, 1.0), 1, out)
    names = [r.instruction.name for r in run.decoded(0)]
    i = names.index("Duplicate")
    assert names[i:] == ["Duplicate", "SetFlag", "WaitFlag", "DataCopyPad", "DataCopyPad",
                         "DataCopyPad", "PipeBarrier"]
    dup = run.decoded(0)[i]
    assert dup.accesses[0].start == 1024  # the free UB right after the queue's buffer
    tl = run.timeline()
    assert tl.total_cycles > 0


def test_init_global_memory_needs_a_tpipe():
    def kernel(out):
        InitGlobalMemory[float](_gm(out), 8, 0.0)
    with pytest.raises(ascsim.errors.ParameterError, match="TPipe"):
        ascsim.launch(kernel, 1, np.zeros(8, np.float32))


def zero_then_accumulate_kernel():
    """The usual pattern: core 0 zeroes the output, SyncAll, every core adds its row."""
    @kernel_sync("manual")
    def kernel(x, out):
        b = GetBlockIdx()
        pipe = TPipe()
        buf = TBuf[TPosition.VECCALC]()
        pipe.InitBuffer(buf, N * 4)
        if b == 0:
            InitGlobalMemory[float](_gm(out), N, 0.0)
        SyncAll()
        t = buf.Get[float]()
        DataCopy(t, _gm(x)[b * N], N)
        SetFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
        WaitFlag[HardEvent.MTE2_MTE3](EVENT_ID0)
        SetAtomicAdd[float]()
        DataCopy(_gm(out), t, N)
        SetAtomicNone()
    return kernel


def test_zero_syncall_accumulate_is_clean_but_order_sensitive():
    n = 4
    x = np.random.default_rng(8).standard_normal(n * N).astype(np.float32) * 1000
    out = np.full(N, 123, np.float32)
    run = ascsim.launch(zero_then_accumulate_kernel(), n, x, out, sanitize="check",
                        outputs=(1,))
    want = np.zeros(N, np.float32)
    for c in range(n):
        want = (want + x[c * N:(c + 1) * N]).astype(np.float32)
    assert np.array_equal(out, want)
    checks = {f.check for f in run.findings}
    assert checks <= {"atomic order sensitivity"}, run.report()
