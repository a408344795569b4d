"""SiluGrad, a complete operator of your own in one file:
dx = dy * sigmoid(x) * (1 + x * (1 - sigmoid(x))).

    ascsim run tools/examples/silu_grad.py --shape 4096 --dtype float16
    ascsim sweep tools/examples/silu_grad.py --shape 65536 --set cores=1,4,8 --set tile=2048,4096

The kernel, in AscendC style: each core takes a run of whole tiles; per tile CopyIn (DataCopyPad
of x and dy into VECIN queues), Compute (widen fp16/bf16 to fp32, the formula, narrow), CopyOut.
The queues carry the MTE2 -> V -> MTE3 syncs, double-buffered.
"""

import math

import numpy as np

import ascsim
from ascsim.ascendc import *
from ascsim.profile import load_profile
from ascsim.tuning import TilingKnob, apply_overrides

# ---- the kernel ------------------------------------------------------------------------------

BUFFER_NUM = 2
ONE = float(1)  # float is AscendC's float (numpy float32) in a kernel file
MINUS_ONE = float(-1)


def calc_slots(T):  # fp32 work tiles: ones, s, t (+ x and dy widened for fp16/bf16)
    return 3 if T is float else 5


class SiluGradTilingData(TilingData):
    _fields_ = (("totalLength", uint32_t), ("tileLength", uint32_t))


class KernelSiluGrad(Generic[T]):
    def __init__(self):
        self.pipe = TPipe()
        self.xQue = TQue[QuePosition.VECIN, BUFFER_NUM]()
        self.dyQue = TQue[QuePosition.VECIN, BUFFER_NUM]()
        self.dxQue = TQue[QuePosition.VECOUT, BUFFER_NUM]()
        self.calcBuf = TBuf[TPosition.VECCALC]()
        self.xGm = GlobalTensor[self.T]()
        self.dyGm = GlobalTensor[self.T]()
        self.dxGm = GlobalTensor[self.T]()
        self.totalLength = 0
        self.tileLength = 0

    def Init(self, x, dy, dx, tiling):
        self.totalLength = tiling.totalLength
        self.tileLength = tiling.tileLength
        self.xGm.SetGlobalBuffer(x, self.totalLength)
        self.dyGm.SetGlobalBuffer(dy, self.totalLength)
        self.dxGm.SetGlobalBuffer(dx, self.totalLength)
        tileBytes = self.tileLength * sizeof(self.T)
        self.pipe.InitBuffer(self.xQue, BUFFER_NUM, tileBytes)
        self.pipe.InitBuffer(self.dyQue, BUFFER_NUM, tileBytes)
        self.pipe.InitBuffer(self.dxQue, BUFFER_NUM, tileBytes)
        self.pipe.InitBuffer(self.calcBuf, calc_slots(self.T) * self.tileLength * sizeof(float))

    def Process(self):
        tileNum = (self.totalLength + self.tileLength - 1) // self.tileLength
        first = tileNum * GetBlockIdx() // GetBlockNum()
        last = tileNum * (GetBlockIdx() + 1) // GetBlockNum()
        Duplicate(self.calcBuf.Get[float](), ONE, self.tileLength)  # the ones, once per core
        for i in range(first, last):
            offset = i * self.tileLength
            count = min(self.tileLength, self.totalLength - offset)
            self.CopyIn(offset, count)
            self.Compute(count)
            self.CopyOut(offset, count)

    def CopyIn(self, offset, count):
        params = DataCopyExtParams(1, count * sizeof(self.T), 0, 0, 0)
        pad = DataCopyPadExtParams[self.T](False, 0, 0, 0)
        xLocal = self.xQue.AllocTensor[self.T]()
        DataCopyPad(xLocal, self.xGm[offset], params, pad)
        self.xQue.EnQue(xLocal)
        dyLocal = self.dyQue.AllocTensor[self.T]()
        DataCopyPad(dyLocal, self.dyGm[offset], params, pad)
        self.dyQue.EnQue(dyLocal)

    def Compute(self, count):
        xLocal = self.xQue.DeQue[self.T]()
        dyLocal = self.dyQue.DeQue[self.T]()
        dxLocal = self.dxQue.AllocTensor[self.T]()
        calc = self.calcBuf.Get[float]()
        ones = calc
        s = calc[self.tileLength]
        t = calc[2 * self.tileLength]
        x, dy, dx = xLocal, dyLocal, dxLocal
        if self.T is not float:
            x = calc[3 * self.tileLength]
            dy = calc[4 * self.tileLength]
            dx = x
            Cast(x, xLocal, RoundMode.CAST_NONE, count)
            Cast(dy, dyLocal, RoundMode.CAST_NONE, count)
        Muls(s, x, MINUS_ONE, count)  # s = sigmoid(x) = 1 / (1 + exp(-x))
        Exp(s, s, count)
        Adds(s, s, ONE, count)
        Div(s, ones, s, count)
        Muls(t, s, MINUS_ONE, count)  # t = 1 + x * (1 - s)
        Adds(t, t, ONE, count)
        Mul(t, x, t, count)
        Adds(t, t, ONE, count)
        Mul(s, dy, s, count)          # dx = (dy * s) * t
        Mul(dx, s, t, count)
        if self.T is half:
            Cast(dxLocal, dx, RoundMode.CAST_NONE, count)
        elif self.T is bfloat16_t:
            Cast(dxLocal, dx, RoundMode.CAST_RINT, count)
        self.dxQue.EnQue(dxLocal)
        self.xQue.FreeTensor(xLocal)
        self.dyQue.FreeTensor(dyLocal)

    def CopyOut(self, offset, count):
        dxLocal = self.dxQue.DeQue[self.T]()
        params = DataCopyExtParams(1, count * sizeof(self.T), 0, 0, 0)
        DataCopyPad(self.dxGm[offset], dxLocal, params)
        self.dxQue.FreeTensor(dxLocal)


def silu_grad(x, dy, dx, tiling):
    REGISTER_TILING_DEFAULT(SiluGradTilingData)
    tilingData = GET_TILING_DATA(tiling)
    if TILING_KEY_IS(1):
        op = KernelSiluGrad[half]()
    elif TILING_KEY_IS(2):
        op = KernelSiluGrad[float]()
    else:
        op = KernelSiluGrad[bfloat16_t]()
    op.Init(x, dy, dx, tilingData)
    op.Process()


# ---- the host side: tiling, with two knobs a sweep may force --------------------------------

OP_TYPE = "SiluGrad"
TILE = 4096
TILING_KEYS = {"float16": 1, "float32": 2, "bfloat16": 3}
KERNEL_DTYPES = {"float16": half, "float32": float, "bfloat16": bfloat16_t}


class SiluGradTiling:
    """What the tiling decides (the struct and the core count), and what the knobs check."""

    def __init__(self, n, dtype, profile):
        self.profile = load_profile(profile)
        self.dtype = KERNEL_DTYPES[np.dtype(dtype).name]
        self.data = SiluGradTilingData(totalLength=n, tileLength=TILE)
        self.block_dim = max(1, min(-(-n // TILE), self.profile.aiv_cores))


def apply_cores(tiling, value):
    if not 1 <= value <= tiling.profile.aiv_cores:
        raise ValueError(f"cores={value}: 1..{tiling.profile.aiv_cores} on this profile")
    tiling.block_dim = value


def apply_tile(tiling, value):
    ub = (3 * BUFFER_NUM * sizeof(tiling.dtype) + calc_slots(tiling.dtype) * sizeof(float)) * value
    if value <= 0 or value % 16 or ub > tiling.profile.ub_bytes:
        raise ValueError(f"tile={value}: a positive multiple of 16 whose buffers "
                         f"({ub} bytes) fit the UB ({tiling.profile.ub_bytes})")
    tiling.data.tileLength = value


CORES = TilingKnob("cores", "cores the tiles are split over", lambda run: run.block_dim,
                   apply_cores)
TILE_KNOB = TilingKnob("tile", "elements per tile", lambda run: run.tiling.tileLength, apply_tile)


def run(inputs, options, profile=None, sanitize=None, threads=None):
    """Tile and launch; returns (dx, Run) (Run is None for empty inputs)."""
    x = np.ascontiguousarray(inputs["x"])
    dy = np.ascontiguousarray(inputs["dy"], dtype=x.dtype)
    dx = np.empty_like(x)
    if x.size == 0:
        return dx, None
    tiling = SiluGradTiling(x.size, x.dtype, profile)
    apply_overrides(OP_TYPE, tiling)  # a sweep's forced knob values, if any
    launched = ascsim.launch(silu_grad, tiling.block_dim, x, dy, dx, tiling=tiling.data,
                             tiling_key=TILING_KEYS[x.dtype.name], profile=tiling.profile,
                             sanitize=sanitize or "off", threads=threads or 1, outputs=(2,))
    return dx, launched


# ---- inputs and the numpy model (the kernel's operations, in its order, in float32) ----------

def make_inputs(shape, dtype, rng, options):
    r = options["x_range"]
    x = rng.uniform(-r, r, shape).astype(np.float32).astype(dtype)
    dy = rng.uniform(-1.0, 1.0, shape).astype(np.float32).astype(dtype)
    return {"x": x, "dy": dy}


# ascsim's Exp: e**x in float64 (the C library's exp), rounded once to float32
_exp = np.vectorize(lambda v: math.exp(min(v, 709.0)), otypes=[np.float64])


def model(inputs, options):
    f32 = np.float32
    x = inputs["x"].astype(f32)
    dy = inputs["dy"].astype(f32)
    with np.errstate(all="ignore"):
        s = x * f32(-1.0)
        s = _exp(s).astype(f32)
        s = s + f32(1.0)
        s = f32(1.0) / s
        t = s * f32(-1.0)
        t = t + f32(1.0)
        t = x * t
        t = t + f32(1.0)
        s = dy * s
        dx = s * t
    return dx.astype(inputs["x"].dtype)  # round to nearest even, as the kernel's casts


OPERATOR = ascsim.Operator(
    name="silu_grad", op_type=OP_TYPE, run=run, make_inputs=make_inputs, model=model,
    dtypes=("float32", "float16", "bfloat16"), knobs=(CORES, TILE_KNOB),
    options=(ascsim.Option("x_range", float, 8.0, "x is drawn from [-X_RANGE, X_RANGE]"),),
    tiles=lambda inputs, options: -(-inputs["x"].size // TILE),
    doc="dx = dy * sigmoid(x) * (1 + x * (1 - sigmoid(x)))")
