"""The memory model (LocalTensor / GlobalTensor views, ReinterpretCast, GetValue / SetValue)
and the launch runtime (cores, GM buffers, threads, tiling structs).

Facts from ascendc_semantics.md §1.4 and §5: `[]` offsets count elements of the tensor's own
type (bytes on uint8_t), ReinterpretCast keeps address and byte size, SetGlobalBuffer takes a
size in elements (0 without one), GetBlockIdx is in [0, GetBlockNum()).
"""

from __future__ import annotations

import gc
import os

import ml_dtypes
import numpy as np
import pytest
from conftest import assert_same_bits, gtensor

import ascsim
import ascsim.ascendc as A
import ascsim.core
import ascsim.profile
from ascsim.ascendc import (
    GET_TILING_DATA,
    TILING_KEY_IS,
    GetBlockIdx,
    GetBlockNum,
    QuePosition,
    TBuf,
    TilingData,
    TPipe,
)
from ascsim.dtypes import (
    DType,
    bfloat16_t,
    half,
    int8_t,
    int16_t,
    int32_t,
    int64_t,
    sizeof,
    uint8_t,
    uint16_t,
    uint32_t,
    uint64_t,
)
from ascsim.dtypes import float as f32
from ascsim.errors import OutOfRangeError, ParameterError, SimulationError


def in_buffer(body, first: int = 64, length: int = 4096, gm: tuple = ()):
    """Run body(t8, *gm) where t8 is LocalTensor<uint8_t> over a TBuf at UB byte `first`."""
    def kernel(x=None, y=None):
        pipe = TPipe()
        pad, buf = TBuf[QuePosition.VECCALC](), TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(pad, first)
        pipe.InitBuffer(buf, length)
        body(buf.Get[uint8_t](), *(x, y)[:len(gm)])
    return ascsim.launch(kernel, 1, *gm)


# ---- LocalTensor ------------------------------------------------------------------------------

@pytest.mark.parametrize(("dtype", "offset"), [(uint8_t, 5), (int8_t, 33), (half, 7),
                                               (bfloat16_t, 16), (f32, 3), (int32_t, 1000),
                                               (int64_t, 1), (uint64_t, 511)], ids=str)
def test_local_offset_counts_elements_of_own_type(dtype: DType, offset: int) -> None:
    seen = {}

    def body(t8):
        t = t8.ReinterpretCast[dtype]()
        v = t[offset]
        seen.update(addr=v.GetPhyAddr(), size=v.GetSize(), dtype=v.dtype, chained=t[1][offset])

    in_buffer(body)
    assert seen["addr"] == 64 + offset * dtype.size
    assert seen["size"] == 4096 // dtype.size - offset
    assert seen["dtype"] is dtype
    assert seen["chained"].GetPhyAddr() == 64 + (offset + 1) * dtype.size


def test_local_views_past_the_end_raise() -> None:
    def body(t8):
        t = t8.ReinterpretCast[f32]()
        assert t[1024].GetSize() == 0          # one past the last element: an empty view
        with pytest.raises(OutOfRangeError, match=r"\[1025\].*1024 elements"):
            t[1025]
        with pytest.raises(OutOfRangeError):
            t[-1]
        with pytest.raises(OutOfRangeError):
            t[1000][25]
        t.SetSize(10)
        assert t.GetSize() == 10
        with pytest.raises(OutOfRangeError):
            t[11]
        t.SetSize(1024)                         # may grow back within its buffer
        with pytest.raises(OutOfRangeError, match="SetSize"):
            t.SetSize(1025)
        with pytest.raises(OutOfRangeError, match="SetSize"):
            t[4].SetSize(1021)

    in_buffer(body)


@pytest.mark.parametrize(("src", "dst", "src_size", "want"), [
    (f32, uint8_t, 1024, 4096), (f32, half, 1024, 2048), (f32, int64_t, 1024, 512),
    (uint8_t, f32, 4096, 1024), (uint8_t, f32, 4093, 1023), (half, uint16_t, 2048, 2048),
    (uint8_t, int64_t, 4095, 511)], ids=str)
def test_reinterpret_cast_keeps_address_and_bytes(src: DType, dst: DType, src_size: int,
                                                  want: int) -> None:
    seen = {}

    def body(t8):
        t = t8.ReinterpretCast[src]()
        t.SetSize(src_size)
        r = t[0].ReinterpretCast[dst]()
        seen.update(addr=r.GetPhyAddr(), size=r.GetSize(), dtype=r.dtype)

    in_buffer(body)
    assert seen == {"addr": 64, "size": want, "dtype": dst}


def test_reinterpret_cast_changes_no_data() -> None:
    seen = {}

    def body(t8):
        f = t8.ReinterpretCast[f32]()
        f.SetValue(1, 1.0)                           # 0x3F800000, little endian
        seen["bytes"] = [int(t8.GetValue(i)) for i in range(4, 8)]
        seen["halves"] = [int(f.ReinterpretCast[uint16_t]().GetValue(i)) for i in (2, 3)]

    in_buffer(body)
    assert seen == {"bytes": [0, 0, 0x80, 0x3F], "halves": [0x0000, 0x3F80]}


VALUES = [(f32, 0.1, np.float32, 0x3DCCCCCD), (half, 0.1, np.float16, 0x2E66),
          (bfloat16_t, 1.0, ml_dtypes.bfloat16, 0x3F80), (int16_t, 40000, np.int16, 0x9C40),
          (uint8_t, 300, np.uint8, 0x2C), (int32_t, -1, np.int32, 0xFFFFFFFF),
          (uint32_t, 2**32 + 5, np.uint32, 5), (int64_t, -2, np.int64, 2**64 - 2)]


@pytest.mark.parametrize(("dtype", "value", "np_type", "raw"), VALUES, ids=lambda v: str(v))
@pytest.mark.instruction("GetValue", "SetValue")
def test_get_set_value(dtype: DType, value: object, np_type: type, raw: int) -> None:
    """SetValue converts like a C++ assignment (round to nearest, integers wrap); GetValue reads
    the element back; both are PIPE_S instructions with their byte range."""
    seen = {}

    def body(t8):
        t = t8.ReinterpretCast[dtype]()
        t.SetValue(3, value)
        got = t.GetValue(3)
        seen.update(got=got, raw=bytes(t8[3 * dtype.size].numpy()[:dtype.size]))

    run = in_buffer(body)
    assert type(seen["got"]) is np.dtype(np_type).type
    assert int.from_bytes(seen["raw"], "little") == raw
    assert int(np.array(seen["got"]).view(f"u{dtype.size}")) == raw
    recs = [r for r in run.decoded(0) if r.name in ("SetValue", "GetValue")]
    assert [(r.name, r.pipe_name) for r in recs] == [("SetValue", "S"), ("GetValue", "S")]
    start = 64 + 3 * dtype.size
    for r, w in zip(recs, (True, False), strict=True):
        assert [(a.write, a.mem, a.start, a.end) for a in r.accesses] == [
            (w, 0, start, start + dtype.size)]


def test_get_set_value_out_of_range() -> None:
    def body(t8):
        t = t8.ReinterpretCast[half]()
        with pytest.raises(OutOfRangeError, match="element 2048"):
            t.GetValue(2048)
        with pytest.raises(OutOfRangeError, match="element -1"):
            t.SetValue(-1, 0)
        with pytest.raises(OutOfRangeError):
            t[2000].SetValue(48, 0)

    run = in_buffer(body)
    assert not [r for r in run.decoded(0) if r.name in ("GetValue", "SetValue")]


def test_unallocated_local_tensor() -> None:
    def body(t8):
        with pytest.raises(ParameterError, match="before it was allocated"):
            A.LocalTensor[f32]().GetValue(0)

    in_buffer(body)


def test_ub_starts_as_dummy_pattern() -> None:
    seen = {}

    def body(t8):
        seen["f"] = t8.ReinterpretCast[f32]().GetValue(0)
        seen["b"] = int(t8.GetValue(100))

    in_buffer(body)
    assert np.isnan(seen["f"]) and seen["b"] == 0xFF


def _scribble_kernel(gm: object) -> None:
    """Writes 0x5A over the first 256 bytes of its core's UB."""
    pipe = A.TPipe()
    buf = A.TBuf[A.TPosition.VECCALC]()
    pipe.InitBuffer(buf, 256)
    A.Duplicate(buf.Get[A.uint16_t](), 0x5A5A, 128)


def test_ub_memory_is_reused_once_its_run_is_gone_and_starts_as_dummy_again() -> None:
    gc.collect()  # blocks earlier tests left in cycles come back now, not in the middle
    gm = np.zeros(8, np.float32)
    first = ascsim.launch(_scribble_kernel, 4, gm)
    memory = first.cores[0].ub.base.base.obj  # the mapping under the launch's UB block
    assert first.cores[3].ub[:256].tolist() == [0x5A] * 256
    del first
    gc.collect()
    again = ascsim.launch(_scribble_kernel, 4, gm)
    assert again.cores[0].ub.base.base.obj is memory  # the pool gave the block back
    assert again.cores[3].ub[:256].tolist() == [0x5A] * 256
    assert (again.cores[3].ub[256:] == 0xFF).all()  # refilled with the dummy byte


def test_the_pool_keeps_what_recent_launches_use() -> None:
    """Blocks of another size filling the pool's budget (a check run's GM copies, say) do not
    keep a launch's UB block out: the longest waiting blocks make room for it."""
    pool = ascsim.core._POOL
    gc.collect()  # blocks earlier tests left in cycles come back now, not in the middle
    others = [ascsim.core.pooled_bytes(1 << 20) for _ in range(pool._KEEP_BYTES >> 20)]
    del others
    gc.collect()
    assert pool.waiting_bytes() == pool._KEEP_BYTES  # full of 1 MiB blocks
    gm = np.zeros(8, np.float32)
    first = ascsim.launch(_scribble_kernel, 4, gm)
    memory = first.cores[0].ub.base.base.obj
    del first
    gc.collect()
    assert ascsim.launch(_scribble_kernel, 4, gm).cores[0].ub.base.base.obj is memory
    assert pool.waiting_bytes() <= pool._KEEP_BYTES


def test_ub_memory_a_view_still_refers_to_is_not_reused() -> None:
    gm = np.zeros(8, np.float32)
    view = ascsim.launch(_scribble_kernel, 2, gm).cores[1].ub[4:12].view(np.uint32)
    gc.collect()
    before = view.copy()
    others = [ascsim.launch(_scribble_kernel, 2, gm) for _ in range(3)]
    assert all(o.cores[1].ub.base.base.obj is not view.base.base.obj for o in others)
    np.testing.assert_array_equal(view, before)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")
def test_ub_memory_is_not_shared_with_a_forked_process() -> None:
    """A sweep's worker processes are forked: a UB block (in use or waiting in the pool) must
    be the child's own copy, or two processes would run their launches in the same bytes."""
    gm = np.zeros(8, np.float32)
    gc.collect()
    pooled = ascsim.launch(_scribble_kernel, 4, gm).cores[0].ub.base.base.obj
    gc.collect()  # its block waits in the pool now
    ub = ascsim.core.new_ubs(ascsim.launch(_scribble_kernel, 1, gm).profile, 1)[0]
    pid = os.fork()
    if pid == 0:  # the child writes both and leaves at once
        try:
            ub[:] = 0x11
            for u in ascsim.core.new_ubs(ascsim.profile.load_profile(), 4):
                u[:] = 0x22
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert (ub == 0xFF).all()
    assert bytes(pooled[:256]) == b"\x5a" * 256  # what the launch left, not the child's 0x22
    again = ascsim.core.new_ubs(ascsim.profile.load_profile(), 4)
    assert again[0].base.base.obj is pooled and (again[3] == 0xFF).all()


# ---- GlobalTensor -----------------------------------------------------------------------------

def test_global_tensor_size_and_offsets() -> None:
    x = np.arange(100, dtype=np.float32)
    seen = {}

    def body(t8, xb):
        g = A.GlobalTensor[f32]()
        seen["unbound"] = g.GetSize()
        with pytest.raises(ParameterError, match="before SetGlobalBuffer"):
            g[1]
        g.SetGlobalBuffer(xb, 100)
        g2 = gtensor(xb, f32)                      # no size
        g3 = A.GlobalTensor[f32]()
        g3.SetGlobalBuffer(g[8], 4)                 # shares g[8]'s start
        g4 = gtensor(xb, half)
        seen.update(size=g.GetSize(), nosize=g2.GetSize(), sub=g[5].GetSize(),
                    addr=g[5].GetPhyAddr(), end=g[100].GetSize(), g3=(g3.GetPhyAddr(),
                    g3.GetSize(), float(g3.GetValue(0))), half_addr=g4[7].GetPhyAddr(),
                    big=gtensor(xb, f32, 1000).GetSize())
        with pytest.raises(OutOfRangeError, match=r"GlobalTensor<float>\[101\].*'x' of 400"):
            g[101]
        with pytest.raises(OutOfRangeError):
            g[-1]
        with pytest.raises(ParameterError, match="negative size"):
            A.GlobalTensor[f32]().SetGlobalBuffer(xb, -1)
        with pytest.raises(ParameterError, match="GM_ADDR"):
            A.GlobalTensor[f32]().SetGlobalBuffer(t8, 4)

    in_buffer(body, gm=(x,))
    assert seen == {"unbound": 0, "size": 100, "nosize": 0, "sub": 95, "addr": 20, "end": 0,
                    "g3": (32, 4, 8.0), "half_addr": 14, "big": 1000}


@pytest.mark.instruction("GetValue", "SetValue")
def test_global_get_set_value_reach_the_callers_array() -> None:
    x = np.arange(10, dtype=np.int32)
    seen = {}

    def body(t8, xb):
        g = gtensor(xb, int32_t, 10)
        seen["v"] = g.GetValue(7)
        g.SetValue(2, -5)
        with pytest.raises(OutOfRangeError, match=r"element 10 at GM bytes \[40, 44\)") as info:
            g.SetValue(10, 1)
        seen["ctx"] = info.value.context

    run = in_buffer(body, gm=(x,))
    assert seen["v"] == 7 and x[2] == -5
    assert seen["ctx"] == {"buffer": "GM x", "byte_range": "[40, 44)"}
    recs = [r for r in run.decoded(0) if r.name in ("GetValue", "SetValue")]
    assert [(r.name, r.pipe_name, r.accesses[0].mem, r.accesses[0].start) for r in recs] == [
        ("GetValue", "S", 1, 28), ("SetValue", "S", 1, 8)]


# ---- launch -----------------------------------------------------------------------------------

def test_multi_core_block_idx_and_num() -> None:
    out = np.full(16, -1, np.int64)

    def kernel(y):
        g = gtensor(y, int64_t)
        g.SetValue(2 * GetBlockIdx(), GetBlockIdx())
        g.SetValue(2 * GetBlockIdx() + 1, GetBlockNum())

    run = ascsim.launch(kernel, 5, out)
    assert list(out[:10]) == [0, 5, 1, 5, 2, 5, 3, 5, 4, 5] and (out[10:] == -1).all()
    assert run.block_dim == 5 and [c.block_idx for c in run.cores] == [0, 1, 2, 3, 4]
    assert all(len(c.records) == 2 for c in run.cores)


def tiled_exp_kernel(x, y):
    """Each core: 1000 floats of x (its slice) -> exp(x) / (1 + x) -> half (RINT) -> y."""
    n = 1000
    base = GetBlockIdx() * n
    pipe = TPipe()
    buf = TBuf[QuePosition.VECCALC]()
    pipe.InitBuffer(buf, 16384)
    ub = buf.Get[uint8_t]()
    a = ub[0].ReinterpretCast[f32]()
    b = ub[4096].ReinterpretCast[f32]()
    h = ub[8192].ReinterpretCast[half]()
    A.DataCopyPad(a, gtensor(x, f32)[base], A.DataCopyExtParams(1, n * 4, 0, 0))
    A.SetFlag[A.HardEvent.MTE2_V](0)
    A.WaitFlag[A.HardEvent.MTE2_V](0)
    A.Exp(b, a, n)
    A.Adds(a, a, 1.0, n)
    A.Div(b, b, a, n)
    A.Cast(h, b, A.RoundMode.CAST_RINT, n)
    A.SetFlag[A.HardEvent.V_MTE3](0)
    A.WaitFlag[A.HardEvent.V_MTE3](0)
    A.DataCopyPad(gtensor(y, half)[base], h, A.DataCopyExtParams(1, n * 2, 0, 0))


def test_threads_give_identical_bits_and_records() -> None:
    rng = np.random.default_rng(4)
    x = rng.standard_normal(6000).astype(np.float32)
    x_before = x.copy()
    outs, runs = [], []
    for threads in (1, 2, 3):
        y = np.zeros(6000, np.float16)
        runs.append(ascsim.launch(tiled_exp_kernel, 6, x, y, threads=threads))
        outs.append(y)
    assert (x.view(np.uint32) == x_before.view(np.uint32)).all()   # the input is not mutated
    for y, run in zip(outs[1:], runs[1:], strict=True):
        assert (y.view(np.uint16) == outs[0].view(np.uint16)).all()
        for c0, c in zip(runs[0].cores, run.cores, strict=True):
            assert c0.records == c.records
    # and the bits are the right ones: exp(x) / (1 + x) in float32, rounded to half
    with np.errstate(all="ignore"):
        ref = np.exp(x.astype(np.float64)).astype(np.float32) / (x + np.float32(1))
    assert_same_bits(outs[0], ref.astype(np.float16))


def test_fault_names_the_core_and_the_kernel_line() -> None:
    def kernel(x):
        if GetBlockIdx() >= 2:
            gtensor(x, f32).GetValue(1000)

    for threads in (1, 3):
        with pytest.raises(OutOfRangeError) as info:
            ascsim.launch(kernel, 4, np.zeros(8, np.float32), threads=threads)
        assert info.value.context["core"] == 2
        assert "test_memory.py" in info.value.context["kernels_py"]


def test_launch_argument_errors() -> None:
    def kernel(x):
        pass

    with pytest.raises(ParameterError, match="block_dim"):
        ascsim.launch(kernel, 0, np.zeros(4))
    with pytest.raises(ParameterError, match="numpy array or None"):
        ascsim.launch(kernel, 1, [1, 2, 3])
    with pytest.raises(ParameterError, match="C-contiguous"):
        ascsim.launch(kernel, 1, np.zeros((4, 4))[:, 1])
    with pytest.raises(ParameterError, match="sanitize"):
        ascsim.launch(kernel, 1, np.zeros(4), sanitize="loud")
    seen = []
    ascsim.launch(lambda x, y: seen.append(y), 1, np.zeros(4), None)
    assert seen == [None]
    with pytest.raises(SimulationError, match="running kernel"):
        GetBlockIdx()


class DemoTiling(TilingData):
    _fields_ = (
        ("total", uint32_t),
        ("eps", f32),
        ("count", int64_t),
        ("scale", half),
        ("flag", uint8_t),
    )


def test_tiling_struct_layout_and_round_trip() -> None:
    assert [(n, o) for n, _, o in DemoTiling._layout] == [("total", 0), ("eps", 4), ("count", 8),
                                                           ("scale", 16), ("flag", 18)]
    assert sizeof(DemoTiling) == 24
    t = DemoTiling(total=-1, eps=0.1, count=-(2**40), scale=70000.0 / 7, flag=257)
    assert t.total == 2**32 - 1 and t.flag == 1                      # integers wrap
    assert t.eps == np.float32(0.1) and t.scale == np.float16(10000.0)
    raw = t.to_bytes()
    assert raw.size == 24 and raw[:4].view(np.uint32)[0] == 2**32 - 1
    assert raw[4:8].view(np.uint32)[0] == 0x3DCCCCCD
    assert DemoTiling.from_bytes(raw) == t
    with pytest.raises(ParameterError, match="needs 24 bytes"):
        DemoTiling.from_bytes(raw[:20])


def test_each_read_of_the_tiling_is_its_own_struct() -> None:
    """from_bytes decodes a struct's bytes once (every core of a launch reads the same ones)
    but hands each reader its own object, as each core's GET_TILING_DATA copies the struct."""
    t = DemoTiling(total=5, eps=0.25, count=7, scale=1.5, flag=3)
    a, b = DemoTiling.from_bytes(t.to_bytes()), DemoTiling.from_bytes(t.to_bytes())
    assert a == b == t and a is not b
    a.total = 6  # a kernel changing its copy
    assert b.total == 5 and DemoTiling.from_bytes(t.to_bytes()).total == 5
    assert type(a.total) is int and type(b.eps) is np.float32
    t.count = -1
    assert DemoTiling.from_bytes(t.to_bytes()) == t  # other bytes, other values


def test_tiling_in_a_kernel() -> None:
    out = np.zeros(4, np.float64)

    def kernel(y, tiling):
        data = GET_TILING_DATA(tiling)
        g = gtensor(y, A.uint64_t)
        g.SetValue(0, data.total)
        g.SetValue(1, data.count & 0xFFFF)
        g.SetValue(2, int(TILING_KEY_IS(7)) * 10 + int(TILING_KEY_IS(8)))
        g.SetValue(3, np.array(data.eps, np.float32).view(np.uint32))

    t = DemoTiling(total=123, eps=0.1, count=65539, scale=1.5, flag=2)
    ascsim.launch(kernel, 2, out, tiling=t, tiling_key=7)
    assert list(out.view(np.uint64)) == [123, 3, 10, 0x3DCCCCCD]

    def no_struct(y):
        GET_TILING_DATA(y)

    with pytest.raises(ParameterError, match="tiling struct"):
        ascsim.launch(no_struct, 1, out)
