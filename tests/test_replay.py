"""The records are a complete program: replaying each core's rows through the registry's work
functions, on fresh memory, gives the eager run's bytes bit for bit.

A replay (`ascsim.replay.replay`) starts every core from a fresh Unified Buffer (the profile's
dummy fill, as a launch does) and the GM buffers from fresh copies: the kernel's inputs as the
caller passed them, every buffer the kernel writes filled with FILL. Then it runs the cores one
after another, each core's rows in record order, each row through the entry and literals its
instruction's `Work.bind` picks (control instructions, which have no work, are skipped). The
final GM buffers and every core's UB must equal the eager run's byte for byte; the test kernels
pass their output arrays filled with FILL too, so that an unwritten byte compares as well.

Kernels: the shipped LogitGrad (fp32, bf16) and SigmoidCrossEntropyWithLogitsGradV2 (fp32,
fp16) on a profile with few AIV cores, so that every core runs several tiles; and test kernels
that run every work form of every instruction (both forms of each element-wise op, masks
continuous and bitwise, strided repeats, in place), every Cast pair and mode, every Compare mode,
the three Select modes, DataCopy in its three directions, DataCopyPad with and without padding,
Duplicate and SetValue, on three profiles (the profile's saturation and dummy fill are work
literals), and in check mode copies reaching past their memory (run clipped).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from conftest import custom_profile, gtensor, tensor

import ascsim
import ascsim.ascendc as A
from ascsim import records as rec
from ascsim.ascendc import (
    CMPMODE,
    SELMODE,
    BinaryRepeatParams,
    DataCopyExtParams,
    DataCopyPadExtParams,
    DataCopyParams,
    HardEvent,
    QuePosition,
    TBuf,
    TPipe,
    TQue,
    UnaryRepeatParams,
)
from ascsim.core import MEM_UB, PIPE_MTE3, new_ubs
from ascsim.dtypes import (
    DType,
    bfloat16_t,
    half,
    int16_t,
    int32_t,
    uint8_t,
    uint16_t,
    uint32_t,
)
from ascsim.dtypes import float as f32
from ascsim.instructions.cast import CAST_RULES
from ascsim.instructions.elementwise import OPS
from ascsim.registry import REGISTRY
from ascsim.replay import replay

FILL = 0xA5            # the bytes every written GM buffer starts from, eagerly and replayed
BF16 = np.dtype(ml_dtypes.bfloat16)

# ---- the replay --------------------------------------------------------------------------------


def _accesses(run: ascsim.Run):
    for core in run.cores:
        for row in core.records:
            yield from rec.accesses_of(row)


def replay_run(run: ascsim.Run) -> tuple[list[np.ndarray | None], list[np.ndarray], int]:
    """(GM bytes by memory id, UB bytes per core, rows executed) of a replay on fresh memory."""
    written = {mem for flags, mem, _, _ in _accesses(run) if flags & rec.W and mem != MEM_UB}
    gm: list[np.ndarray | None] = [None]
    for b in run.gm:
        if b is None:
            gm.append(None)
        else:
            assert b.mem_id == len(gm)
            gm.append(np.full(b.nbytes, FILL, np.uint8) if b.mem_id in written
                      else b.data.copy())
    # phase by phase: every core's records up to its k-th SyncAll before any core's after it
    # (a cross-core combine reads in phase k + 1 what the other cores wrote in phase k)
    phases = [_sync_phases(core.records) for core in run.cores]
    ubs = [new_ubs(run.profile, 1)[0] for _ in run.cores]
    executed = 0
    for k in range(max(len(p) for p in phases)):
        for c, ub in enumerate(ubs):
            if k < len(phases[c]):
                executed += replay(phases[c][k], ub, gm, run.profile)
    return gm, ubs, executed


def _sync_phases(records: list) -> list[list]:
    """A core's records cut after each hard SyncAll."""
    phases: list[list] = [[]]
    for row in records:
        phases[-1].append(row)
        if REGISTRY[row[rec.OP]].name == "SyncAll":
            phases.append([])
    return phases


def _first_difference(got: np.ndarray, want: np.ndarray) -> str:
    idx = np.flatnonzero(got != want)
    return (f"{idx.size} byte(s) differ, first at {int(idx[0])}: replay {int(got[idx[0]]):#04x}, "
            f"eager {int(want[idx[0]]):#04x}")


def assert_replay_matches(run: ascsim.Run) -> int:
    """Replay `run` and compare every GM buffer and UB with the eager bytes; returns the number
    of rows replayed."""
    gm, ubs, executed = replay_run(run)
    assert executed > 0
    # bytes of a written buffer that no record wrote (a workspace's system part, say) keep the
    # replay's fill: only the written ones are compared
    written = {}
    for flags, mem, lo, hi in _accesses(run):
        if flags & rec.W and mem != MEM_UB:
            written.setdefault(mem, np.zeros(run.gm[mem - 1].nbytes, bool))[lo:hi] = True
    for b in run.gm:
        if b is not None:
            mask = written.get(b.mem_id)
            got, want = (gm[b.mem_id], b.data) if mask is None else \
                (gm[b.mem_id][mask], b.data[mask])
            assert np.array_equal(got, want), (f"GM {b.name!r}: " + _first_difference(got, want))
    for core, ub in zip(run.cores, ubs, strict=True):
        assert np.array_equal(ub, core.ub), f"core {core.block_idx} UB: " + _first_difference(
            ub, core.ub)
    return executed


def work_forms(run: ascsim.Run) -> set[tuple[str, str]]:
    """(instruction, work form) of every row of `run` that has work."""
    out = set()
    for core in run.cores:
        for row in core.records:
            ins = REGISTRY[row[rec.OP]]
            if ins.work is not None:
                out.add((ins.name, ins.work.bind(row, run.profile)[0]))
    return out


def tiles_per_core(run: ascsim.Run) -> list[int]:
    """Output stores (MTE3 copies) of each core: one per tile for the shipped kernels."""
    return [sum(1 for r in c.records if r[rec.PIPE] == PIPE_MTE3
                and REGISTRY[r[rec.OP]].family == "copy") for c in run.cores]


@pytest.fixture(scope="module")
def few_cores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return custom_profile(tmp_path_factory.mktemp("profiles"), "aiv_cores", "3")


# ---- the shipped kernels -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, BF16], ids=["fp32", "bf16"])
@pytest.mark.parametrize("eps", [-1.0, 0.05])
def test_logit_grad(few_cores: Path, dtype: np.dtype, eps: float) -> None:
    from kernels_py.logit_grad import logit_grad

    rng = np.random.default_rng(7)
    n = 7 * 8192 + 300                       # 8 tiles over 3 cores, the last one partial
    x = rng.uniform(-0.1, 1.1, n).astype(dtype)
    dy = rng.standard_normal(n).astype(dtype)
    out, run = logit_grad(x, dy, eps, return_run=True, profile=str(few_cores))
    assert run.block_dim == 3 and min(tiles_per_core(run)) >= 2
    assert_replay_matches(run)
    want = {"Select", "CompareScalar", "And", "Div", "DataCopyPad"} | (
        set() if dtype is np.float32 else {"Cast"})
    assert want <= {name for name, _ in work_forms(run)}


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["fp32", "fp16"])
@pytest.mark.parametrize("weights", [False, True], ids=["plain", "weights"])
def test_sigmoid_cross_entropy_grad(few_cores: Path, dtype: np.dtype, weights: bool) -> None:
    from kernels_py.sigmoid_cross_entropy_with_logits_grad_v2 import (
        binary_cross_entropy_with_logits_backward,
    )

    rng = np.random.default_rng(11)
    shape = (6, 9000)                        # several tiles per core on 3 cores
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    y = rng.uniform(0, 1, shape).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    w = rng.uniform(0.5, 2, shape).astype(dtype) if weights else None
    pw = rng.uniform(0.5, 2, shape).astype(dtype) if weights else None
    out, run = binary_cross_entropy_with_logits_backward(
        g, x, y, w, pw, "mean", return_run=True, profile=str(few_cores))
    assert run.block_dim == 3 and min(tiles_per_core(run)) >= 2
    assert_replay_matches(run)


@pytest.mark.parametrize("dtype", [np.float32, BF16], ids=["fp32", "bf16"])
@pytest.mark.parametrize("reduction", ["none", "sum"])
def test_mse_loss(few_cores: Path, dtype: np.dtype, reduction: str) -> None:
    from kernels_py.mse_loss_v2 import mse_loss

    rng = np.random.default_rng(13)
    n = 3 * 2 * 20000 * 8 // np.dtype(dtype).itemsize + 5  # 3 cores, two tiles each, a tail
    x, y = (rng.uniform(-1, 1, n).astype(dtype) for _ in range(2))
    out, run = mse_loss(x, y, reduction, return_run=True, profile=str(few_cores))
    assert run.block_dim == 3
    assert_replay_matches(run)
    want = {"Sub", "Mul"} | ({"Add", "Muls", "ReduceSum", "Duplicate"} if reduction == "sum"
                             else set()) | (set() if dtype is np.float32 else {"Cast"})
    assert want <= {name for name, _ in work_forms(run)}


# ---- test kernels: every work form -------------------------------------------------------------
# UB layout (bytes): two 8 KB inputs, a 16 KB destination (a Cast to a wider type doubles),
# a mask region, a second destination; everything below the library temp area (Select).

XA, XB, DST, MASK, DST2 = 0, 8192, 16384, 32768, 40960
UB_USED = 65536
N32 = 2048                 # fp32 elements of an input region
COUNT = 1000               # count-form calls: not a whole number of repeats
EMIT = 8192                # bytes stored to GM after each call
OUT_BYTES = 4 << 20
SCALARS = {f32: 0.75, half: -1.5, int16_t: -3, int32_t: 7, uint16_t: 0x5A5A, bfloat16_t: 2.5,
           uint32_t: 0xDEADBEEF}


class Kernel:
    """What the test kernels share: the UB views, the inputs loaded by DataCopy, and `emit`,
    which stores a UB region to the next EMIT bytes of the output."""

    def __init__(self, x: object, y: object, out: object) -> None:
        self.pipe = TPipe()
        buf = TBuf[QuePosition.VECCALC]()
        self.pipe.InitBuffer(buf, UB_USED)
        self.ub = buf.Get[uint8_t]()
        self.x, self.y = gtensor(x, f32), gtensor(y, f32)
        self.out = gtensor(out, uint8_t)
        self.off = 0
        A.DataCopy(self.t(XA, f32), self.x, N32)
        A.DataCopy(self.t(XB, f32), self.y, N32)

    def t(self, addr: int, dtype: DType) -> object:
        return tensor(self.ub, addr, dtype)

    def emit(self, addr: int = DST, nbytes: int = EMIT) -> None:
        A.DataCopy(self.out[self.off], self.t(addr, uint8_t), nbytes)
        self.off += nbytes


def _masks(dtype: DType) -> list[object]:
    """A continuous mask and a bit mask for `dtype`'s repeat."""
    per_repeat = 256 // dtype.size
    if per_repeat > 64:
        return [per_repeat - 3, [0xF0F0_F0F0_0F0F_0F0F, 0x8000_0000_0000_0001]]
    return [per_repeat // 2 + 1, [0x8000_0000_FFFF_0001 & ((1 << per_repeat) - 1) | 1, 0]]


def _elementwise_dtypes(op: object) -> list[DType]:
    """One 4-byte and one 2-byte type of each op (both forms), and int32 / int16 for a few."""
    dtypes = [t for t in (f32, half) if t in op.dtypes] or list(op.dtypes)
    if op.name in ("Add", "Muls", "Max"):
        dtypes += [int32_t, int16_t]
    return dtypes


def zoo_elementwise(x: object, y: object, out: object) -> None:
    k = Kernel(x, y, out)
    for op in OPS:
        fn = getattr(A, op.name)
        for dt in _elementwise_dtypes(op):
            dst, a, b = k.t(DST, dt), k.t(XA, dt), k.t(XB, dt)
            srcs = (a, b) if op.form == "binary" else (a,)
            value = 3 if op.name.startswith("Shift") else SCALARS[dt]  # shifts: 0..width
            scalar = (value,) if op.form == "scalar" else ()
            fn(dst, *srcs, *scalar, COUNT)
            k.emit()
            params = (BinaryRepeatParams(1, 1, 2, 8, 8, 16) if op.form == "binary"
                      else UnaryRepeatParams(2, 1, 16, 8))
            for mask in _masks(dt):
                fn(dst, *srcs, *scalar, mask, 3, params)
                k.emit()
            # in place, default strides
            fn(a, *srcs, *scalar, _masks(dt)[1], 2, type(params)())
            k.emit(XA)
    for dt in (f32, half, bfloat16_t, int16_t, uint16_t, int32_t, uint32_t):
        A.Duplicate(k.t(DST, dt), SCALARS[dt], COUNT)
        k.emit()
    for dt in (f32, half):
        for mask in _masks(dt):
            A.Duplicate(k.t(DST, dt), SCALARS[dt], mask, 4, 2, 16)
            k.emit()


def zoo_convert(x: object, y: object, out: object) -> None:
    k = Kernel(x, y, out)
    A.SetDeqScale(0.0625)   # int32_t -> half multiplies by it
    for (src, dst), (modes, _, _) in CAST_RULES.items():
        for mode in sorted(modes):
            A.Cast(k.t(DST, dst), k.t(XA, src), mode, COUNT)
            k.emit(nbytes=2 * EMIT)
    A.SetDeqScale(-3.0)     # each Cast row holds the scale it ran with
    A.Cast(k.t(DST, half), k.t(XA, int32_t), A.RoundMode.CAST_NONE, COUNT)
    k.emit()
    # compare and select
    for dt, modes in ((f32, list(CMPMODE)), (half, [CMPMODE.LT, CMPMODE.NE]),
                      (int32_t, [CMPMODE.EQ])):
        for mode in modes:
            A.Compare(k.t(MASK, uint8_t), k.t(XA, dt), k.t(XB, dt), mode, 1024)
            k.emit(MASK, 256)
            A.CompareScalar(k.t(MASK, uint8_t), k.t(XA, dt), SCALARS[dt], mode, COUNT)
            k.emit(MASK, 256)
    A.Compare(k.t(MASK, uint8_t), k.t(XA, f32), k.t(XB, f32), CMPMODE.GT, N32)
    for dt in (f32, half):
        for mode in SELMODE:
            src1 = SCALARS[dt] if mode == SELMODE.VSEL_TENSOR_SCALAR_MODE else k.t(XB, dt)
            A.Select(k.t(DST, dt), k.t(MASK, uint8_t), k.t(XA, dt), src1, mode, COUNT)
            k.emit()
    # SetValue into the UB and into GM (GetValue: control, no work)
    for i, dt in enumerate((f32, half, int32_t, int16_t, bfloat16_t)):
        k.t(DST2, dt).SetValue(3 * i + 1, SCALARS[dt])
        gtensor(k.out.buf, dt).SetValue(OUT_BYTES // dt.size - 1 - i, SCALARS[dt])
        k.t(DST2, dt).GetValue(3 * i + 1)
    k.emit(DST2, 256)


def zoo_copy(x: object, y: object, out: object) -> None:
    k = Kernel(x, y, out)
    u8 = uint8_t
    # DataCopy in its three directions, contiguous and strided (units: 32-byte blocks)
    A.DataCopy(k.t(DST, f32), k.x[5 * 8], DataCopyParams(4, 3, 2, 1))
    k.emit()
    A.DataCopy(k.t(DST2, u8), k.t(XB, u8), DataCopyParams(5, 2, 1, 3))
    A.DataCopy(k.t(DST2 + 4096, half), k.t(XA, half), 1000)
    k.emit(DST2)
    A.DataCopy(k.out[k.off + 64], k.t(XA, u8), DataCopyParams(6, 1, 2, 3))
    k.off += EMIT
    # DataCopyPad GM->UB: unaligned blocks, gaps, with and without padding values
    pads = (None, DataCopyPadExtParams[half](False, 0, 0, 0),
            DataCopyPadExtParams[half](True, 3, 5, -2.5), DataCopyPadExtParams[half](True, 0, 7, 1))
    for i, pad in enumerate(pads):
        params = DataCopyExtParams(3, 2 * (37 + 8 * i), 6 + 2 * i, i, 0)
        if pad is None:
            A.DataCopyPad(k.t(DST, half), gtensor(k.x.buf, half)[3 + i], params)
        else:
            A.DataCopyPad(k.t(DST, half), gtensor(k.x.buf, half)[3 + i], params, pad)
        k.emit()
    # DataCopyPad UB->GM: exact block lengths at byte gaps
    for i in range(3):
        A.DataCopyPad(gtensor(k.out.buf, half)[k.off // 2 + 1 + i], k.t(XA, half),
                      DataCopyExtParams(4, 2 * (19 + 5 * i), i, 10 + 2 * i, 0))
        k.off += EMIT


def zoo_queue(x: object, y: object, out: object) -> None:
    """TQue buffers (a fresh AllocTensor reads as the dummy fill, which is work too), their
    implicit flags, explicit flags and barriers, in a double-buffered pipeline."""
    tile = 512
    pipe = TPipe()
    qin, qout = TQue[QuePosition.VECIN, 1](), TQue[QuePosition.VECOUT, 1]()
    pipe.InitBuffer(qin, 2, tile * 4)
    pipe.InitBuffer(qout, 2, tile * 4)
    xg, og = gtensor(x, f32), gtensor(out, f32)
    for i in range(4):
        a = qin.AllocTensor[f32]()
        A.DataCopy(a, xg[i * tile], tile)
        qin.EnQue(a)
        a = qin.DeQue[f32]()
        b = qout.AllocTensor[f32]()
        A.Muls(b, a, 2.0, tile // 2 - 8 * i)     # the rest of b reads as the dummy fill
        A.PipeBarrier[A.PIPE_V]()
        A.Adds(b, b, 1.0, tile // 4)
        qout.EnQue(b)
        qin.FreeTensor(a)
        b = qout.DeQue[f32]()
        A.DataCopy(og[i * tile], b, tile)
        qout.FreeTensor(b)
    A.SetFlag[HardEvent.MTE3_S](A.EVENT_ID0)
    A.WaitFlag[HardEvent.MTE3_S](A.EVENT_ID0)
    og.SetValue(4 * tile, og.GetValue(3))


def zoo_atomic(x: object, y: object, out: object) -> None:
    """UB->GM copies under the DMA atomic mode: DataCopy and DataCopyPad, add/max/min."""
    k = Kernel(x, y, out)
    for setter, dt in ((A.SetAtomicAdd, f32), (A.SetAtomicMax, half), (A.SetAtomicMin, int16_t),
                       (A.SetAtomicAdd, bfloat16_t)):
        setter[dt]()
        base = gtensor(k.out.buf, dt)[k.off // dt.size]
        A.DataCopy(base, k.t(XA, dt), 512 // dt.size)
        A.DataCopy(base, k.t(XB, dt), 512 // dt.size)  # onto what the first one left
        A.DataCopyPad(gtensor(k.out.buf, dt)[k.off // dt.size + 3], k.t(XB + 1024, dt),
                      DataCopyExtParams(3, 10 * dt.size, 1, 6, 0))
        k.off += EMIT
    A.SetAtomicNone()
    A.DataCopy(k.out[k.off], k.t(XA, uint8_t), 256)  # plain again


def zoo_level0_convert(x: object, y: object, out: object) -> None:
    """The level-0 forms of Cast, Compare, CompareScalar and Select: masks, strides, template
    arguments, Counter mode."""
    k = Kernel(x, y, out)
    u8 = uint8_t
    A.SetDeqScale(0.25)
    for (src, dst), (modes, _, _) in CAST_RULES.items():
        wide = src if src.size >= dst.size else dst
        for mode in sorted(modes)[:2]:
            A.Cast(k.t(DST, dst), k.t(XA, src), mode, _masks(wide)[1], 3,
                   UnaryRepeatParams(1, 2, 8 * dst.size // wide.size + 1, 16))
            k.emit(nbytes=2 * EMIT)
    A.SetMaskCount()
    A.SetVectorMask[f32](0, 150)
    A.Cast[half, f32, False](k.t(DST, half), k.t(XA, f32), A.RoundMode.CAST_ODD,
                             A.MASK_PLACEHOLDER, 1, UnaryRepeatParams(1, 1, 4, 8))
    A.SetMaskNorm()
    A.ResetMask()
    k.emit()
    for dt, modes in ((f32, list(CMPMODE)), (half, [CMPMODE.GE, CMPMODE.NE]),
                      (int32_t, [CMPMODE.EQ])):
        for mode in modes:
            A.Compare(k.t(MASK, u8), k.t(XA, dt), k.t(XB, dt), mode, 0, 3,
                      BinaryRepeatParams(1, 1, 0, 8, 8, 4))
            k.emit(MASK, 256)
            A.CompareScalar[dt, u8](k.t(MASK, u8), k.t(XA, dt), SCALARS[dt], mode, [1, 0], 2,
                                    UnaryRepeatParams(1, 2, 8, 16))
            k.emit(MASK, 256)
    for dt in (f32, half):
        for mode in SELMODE:
            src1 = SCALARS[dt] if mode == SELMODE.VSEL_TENSOR_SCALAR_MODE else k.t(XB, dt)
            A.Select(k.t(DST, dt), k.t(MASK, u8), k.t(XA, dt), src1, mode, _masks(dt)[0], 3,
                     BinaryRepeatParams(1, 2, 1, 8, 16, 8))
            k.emit()


def zoo_next_vector(x: object, y: object, out: object) -> None:
    """Copy, Brcb, Gather (both forms), GatherMask (built-in and user patterns): masks,
    strides, Counter mode."""
    k = Kernel(x, y, out)
    for dt in (f32, half):
        A.Copy(k.t(DST, dt), k.t(XA, dt), _masks(dt)[1], 3, A.CopyRepeatParams(1, 2, 8, 16))
        k.emit()
        A.Brcb(k.t(DST, dt), k.t(XA, dt), 5, A.BrcbRepeatParams(2, 16))
        k.emit()
    A.SetMaskCount()
    A.SetVectorMask[half, A.MaskMode.COUNTER](0, 77)
    A.Copy[half, False](k.t(DST, half), k.t(XB, half), A.MASK_PLACEHOLDER, 2,
                        A.CopyRepeatParams())
    A.SetMaskNorm()
    k.emit()
    # byte offsets in [0, 8192), 4-byte aligned: x's bits & 0x1FFC
    u16, u32 = A.uint16_t, A.uint32_t
    A.Duplicate(k.t(DST2, u32), 0x1FFC, 2048)
    A.And(k.t(MASK, u16), k.t(XA, u16), k.t(DST2, u16), 2048)
    A.Gather(k.t(DST, f32), k.t(XB, f32), k.t(MASK, u32), 0, 500)
    k.emit()
    A.Gather(k.t(DST, half), k.t(XB, half), k.t(MASK, u32), 0, _masks(half)[1], 2, 10)
    k.emit()
    A.GatherMask(k.t(DST, f32), k.t(XA, f32), 3, False, 0, A.GatherMaskParams(1, 4, 8, 0), None)
    k.emit()
    cnt = [0]
    A.GatherMask(k.t(DST, half), k.t(XA, half), k.t(XB, u16), True, 100,
                 A.GatherMaskParams(2, 3, 16, 1), cnt)
    k.emit()
    for dt, st in ((f32, f32), (half, half), (f32, half)):
        A.Axpy(k.t(DST, dt), k.t(XA, st), SCALARS[st], COUNT)
        k.emit()
    for dt in (f32, half):
        A.Axpy(k.t(DST, dt), k.t(XB, dt), SCALARS[dt], _masks(dt)[1], 3,
               UnaryRepeatParams(2, 1, 16, 8))
        k.emit()


def zoo_clipped(x: object, y: object, out: object) -> None:
    """Check mode: copies reaching past their GM buffer run clipped (reported, not raised)."""
    k = Kernel(x, y, out)
    A.DataCopy(k.t(DST, f32), k.x[N32 - 24], 64)            # reads 160 bytes past x
    k.emit()
    A.DataCopyPad(k.t(DST2, half), gtensor(k.x.buf, half)[2 * N32 - 10],
                  DataCopyExtParams(1, 100, 0, 0, 0), DataCopyPadExtParams[half](True, 1, 2, 0))
    k.emit(DST2)
    tail = gtensor(k.out.buf, f32)[OUT_BYTES // 4 - 20]
    A.DataCopyPad(tail, k.t(XA, f32), DataCopyExtParams(1, 160, 0, 0, 0))  # 80 bytes past out


def zoo_reduce(x: object, y: object, out: object) -> None:
    """Every reduction form: per repeat (both masks, every ReduceOrder, strides) and level 2
    (count and mask forms, with and without calIndex)."""
    k = Kernel(x, y, out)
    for dt in (f32, half):
        dst, src, tmp = k.t(DST, dt), k.t(XA, dt), k.t(DST2, dt)
        for mask in _masks(dt):
            A.WholeReduceSum(dst, src, mask, 4, 2, 1, 8)
            for order in A.ReduceOrder:
                A.WholeReduceMax(dst[64], src, mask, 3, 1, 2, 9, order)
                A.WholeReduceMin(dst[128], src, mask, 3, 1, 1, 8, order)
            A.BlockReduceSum(dst[256], src, 3, mask, 1, 1, 8)
            A.BlockReduceMax(dst[512], src, 2, mask, 2, 2, 16)
            A.BlockReduceMin(dst[768], src, 2, mask, 1, 1, 8)
            A.PairReduceSum(dst[1024], src, 3, mask, 1, 1, 8)
            k.emit()
        A.RepeatReduceSum(dst, src, 4, 37, 1, 1, 1, 8)
        A.ReduceSum(dst[16], src, tmp, COUNT)
        A.ReduceSum(dst[32], src, tmp, _masks(dt)[1], 5, 8)
        A.ReduceMax(dst[48], src, tmp, COUNT, True)
        A.ReduceMin(dst[64], src, tmp, COUNT)
        A.ReduceMax(dst[80], src, tmp, _masks(dt)[0], 4, 8)
        A.ReduceMin(dst[96], src, tmp, _masks(dt)[1], 4, 4, True)
        k.emit()
        k.emit(DST2)


def zoo_power_shift(x: object, y: object, out: object) -> None:
    """Power in its three operand forms (with sharedTmpBuffer and with the free UB as tmp),
    float and half; ShiftRight with roundEn=true for every shift type (strides, a bit mask)."""
    k = Kernel(x, y, out)
    for dt in (f32, half):
        A.Power(k.t(DST, dt), k.t(XA, dt), k.t(XB, dt), k.t(MASK, uint8_t), COUNT)
        k.emit()
        A.Power(k.t(DST, dt), k.t(XA, dt), SCALARS[dt], COUNT)
        k.emit()
        A.Power(k.t(DST, dt), SCALARS[dt], k.t(XB, dt), k.t(MASK, uint8_t), COUNT)
        k.emit()
    for dt in (int16_t, uint16_t, int32_t, uint32_t):
        A.ShiftRight(k.t(DST, dt), k.t(XA, dt), 3, _masks(dt)[1], 2,
                     UnaryRepeatParams(1, 2, 8, 16), True)
        k.emit()


KERNELS: dict[str, Callable[..., None]] = {
    "elementwise": zoo_elementwise, "convert": zoo_convert, "copy": zoo_copy,
    "queue": zoo_queue, "atomic": zoo_atomic, "level0_convert": zoo_level0_convert,
    "next_vector": zoo_next_vector, "reduce": zoo_reduce, "power_shift": zoo_power_shift}
PROFILES = {"default": None, "saturating": ("saturation", "true"),
            "first-element-dummy": ("dummy_fill", '"first_element"'),
            "narrow-wrap": ("int_narrow", '"wrap"')}
# the kernels each profile runs (its literal only reaches some work)
_KERNELS_OF = {"default": set(KERNELS), "narrow-wrap": {"convert", "level0_convert"}}


def _runs(kname: str, pname: str) -> bool:
    return kname in _KERNELS_OF.get(pname, set(KERNELS) - {"elementwise"})


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    """Two 8 KB inputs: random bit patterns (every float class, in every dtype's view) and
    moderate values, so that comparisons, casts and arithmetic see both."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2**32, N32, dtype=np.uint64).astype(np.uint32).view(np.float32)
    y = rng.integers(0, 2**32, N32, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x[N32 // 2:] = rng.standard_normal(N32 // 2) * 100
    y[N32 // 4:] = np.where(rng.random(N32 - N32 // 4) < 0.2, x[N32 // 4:],
                            rng.standard_normal(N32 - N32 // 4) * 100)
    return x, y


def launch_zoo(kernel: Callable[..., None], profile: object = None,
               sanitize: str = "off") -> ascsim.Run:
    x, y = _inputs()
    out = np.full(OUT_BYTES, FILL, np.uint8)
    return ascsim.launch(kernel, 1, x, y, out, profile=profile, sanitize=sanitize)


@pytest.fixture(scope="module")
def zoo_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], ascsim.Run]:
    directory = tmp_path_factory.mktemp("zoo_profiles")
    runs = {}
    for pname, change in PROFILES.items():
        profile = custom_profile(directory, *change) if change else None
        for kname, kernel in KERNELS.items():
            if not _runs(kname, pname):
                continue
            runs[kname, pname] = launch_zoo(kernel, profile)
    return runs


@pytest.mark.parametrize("case", [(k, p) for p in PROFILES for k in KERNELS if _runs(k, p)],
                         ids=lambda c: f"{c[0]}-{c[1]}")
def test_zoo_replays(zoo_runs: dict, case: tuple[str, str]) -> None:
    run = zoo_runs[case]
    assert not run.findings
    assert_replay_matches(run)


def test_zoo_runs_every_work_form(zoo_runs: dict) -> None:
    seen = set().union(*(work_forms(r) for r in zoo_runs.values()))
    every = {(ins.name, form) for ins in REGISTRY if ins.work is not None
             for form in ins.work.kernels}
    assert not every - seen, f"work forms no replay test runs: {sorted(every - seen)}"


def test_clipped_copies_replay() -> None:
    run = launch_zoo(zoo_clipped, sanitize="check")
    assert len(run.errors) >= 3     # each copy reported
    assert_replay_matches(run)


def test_replay_skips_control_rows_and_reports_its_work(zoo_runs: dict) -> None:
    run = zoo_runs["convert", "default"]
    rows = run.cores[0].records
    with_work = sum(REGISTRY[r[rec.OP]].work is not None for r in rows)
    ub = new_ubs(run.profile, 1)[0]
    gm = [None] + [b.data.copy() for b in run.gm]
    assert replay(rows, ub, gm, run.profile) == with_work
    assert with_work < len(rows)        # the GetValue rows are skipped
