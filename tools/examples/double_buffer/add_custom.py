# ruff: noqa: F405
"""y = x + bias over fp16 tiles with BUFFER_NUM = 1 or 2: ascsim's twin of the msopprof
double-buffer sample (Ascend/msopprof example/sample_double_buffer).

As in the sample, each core takes `totalLength / blockDim` elements in `tileNum * BUFFER_NUM`
tiles; CopyIn moves a tile of x and a tile of bias (two MTE2 copies), Compute runs `Add` eight
times over the tile (the sample's way of giving the vector unit work) and CopyOut moves the sum
back. With BUFFER_NUM = 2 each queue holds two tiles of half the size, so the copy-in of the
next tile overlaps the Add of this one. docs/timing.md compares ascsim's numbers with the
published ones; run.py prints them.
"""

from ascsim.ascendc import *  # noqa: F403  (a kernel sees the whole AscendC surface)

ADD_TIMES = 8  # Compute repeats the Add, as the published sample does
BUFFER_NUM = TypeVar("BUFFER_NUM")


class AddCustomTilingData(TilingData):
    _fields_ = (
        ("totalLength", uint32_t),
        ("tileNum", uint32_t),
    )


class KernelAdd(Generic[BUFFER_NUM]):
    def __init__(self):
        self.pipe = TPipe()
        self.inQueueX = TQue[QuePosition.VECIN, self.BUFFER_NUM]()
        self.inQueueBias = TQue[QuePosition.VECIN, self.BUFFER_NUM]()
        self.outQueueY = TQue[QuePosition.VECOUT, self.BUFFER_NUM]()
        self.xGm = GlobalTensor[half]()
        self.biasGm = GlobalTensor[half]()
        self.yGm = GlobalTensor[half]()
        self.blockLength = 0
        self.tileNum = 0
        self.tileLength = 0

    def Init(self, x, bias, y, totalLength, tileNum):
        self.blockLength = totalLength // GetBlockNum()
        self.tileNum = tileNum
        self.tileLength = self.blockLength // tileNum // self.BUFFER_NUM
        offset = self.blockLength * GetBlockIdx()
        for gm, arg in ((self.xGm, x), (self.biasGm, bias), (self.yGm, y)):
            whole = GlobalTensor[half]()
            whole.SetGlobalBuffer(arg)
            gm.SetGlobalBuffer(whole[offset], self.blockLength)
        self.pipe.InitBuffer(self.inQueueX, self.BUFFER_NUM, self.tileLength * sizeof(half))
        self.pipe.InitBuffer(self.inQueueBias, self.BUFFER_NUM, self.tileLength * sizeof(half))
        self.pipe.InitBuffer(self.outQueueY, self.BUFFER_NUM, self.tileLength * sizeof(half))

    def Process(self):
        loopCount = self.tileNum * self.BUFFER_NUM
        for i in range(loopCount):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor[half]()
        biasLocal = self.inQueueBias.AllocTensor[half]()
        DataCopy(xLocal, self.xGm[progress * self.tileLength], self.tileLength)
        DataCopy(biasLocal, self.biasGm[progress * self.tileLength], self.tileLength)
        self.inQueueX.EnQue(xLocal)
        self.inQueueBias.EnQue(biasLocal)

    def Compute(self, progress):
        xLocal = self.inQueueX.DeQue[half]()
        biasLocal = self.inQueueBias.DeQue[half]()
        yLocal = self.outQueueY.AllocTensor[half]()
        for _ in range(ADD_TIMES):
            Add(yLocal, xLocal, biasLocal, self.tileLength)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.inQueueBias.FreeTensor(biasLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue[half]()
        DataCopy(self.yGm[progress * self.tileLength], yLocal, self.tileLength)
        self.outQueueY.FreeTensor(yLocal)


def add_custom(x, bias, y, workspace, tiling):
    tilingData = GET_TILING_DATA(tiling)
    if TILING_KEY_IS(1):
        op = KernelAdd[1]()
        op.Init(x, bias, y, tilingData.totalLength, tilingData.tileNum)
        op.Process()
    elif TILING_KEY_IS(2):
        op = KernelAdd[2]()
        op.Init(x, bias, y, tilingData.totalLength, tilingData.tileNum)
        op.Process()
