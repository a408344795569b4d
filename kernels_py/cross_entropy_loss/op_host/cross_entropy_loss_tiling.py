"""CrossEntropyLoss tiling (Tiling4CrossEntropyLoss, the A2 non-regbase path).

Steps: GetTilingAttr (tiling key from the input dtype: bf16 1, fp16 2, fp32 3, set before the
dtype check; reduction "none" / "mean" / "sum" -> 0 / 1 / 2, batch schedule mode unless none;
ignore_index; label_smoothing in [0, 1]), CheckInputDtype (input bf16 / fp16 / fp32, target
int64, weight fp32), CheckInputShape (target dim 0 = N, weight dim 0 = C), GetTilingData:
- CoresSplitTiling: rows over K = the AIV cores; N < K: N cores of one row; else the first
  frontCoreNum = (N mod K or K) cores take F = ceil(N / K) rows, the others floor(N / K);
- UbSplitTiling: a reserve of 3 per-row vectors (ceil(4F / 32) * 32 bytes each), 32 + 32 bytes
  of reduce results and 4096 bytes of reduce work; the rest of the UB is shared by the input
  chunk and, for half / bf16, its fp32 copy (2x) and the narrowed log_prob (1x), plus the
  weight chunk for smoothing with a weight (1x fp32 / 2x half), in 512-byte steps, capped at
  one row;
- VecCalcTiling: a row is ubLoopNum chunks of inputUbSize and a tail of ubTailNum, each cut
  into 8192-element sub-blocks (vecLoopNum / vecTailNum and tailVecLoopNum / tailVecTailNum);
- workspace: 16 MiB + 3 slots of 64 floats (ln sums, weight sums, smoothing sums, by core).
Each check that fails makes the tiling fail (aclnn 561002).

ascsim additions (documented deviations): the chunk buffers hold whole 256-byte repeats (the
kernel's masked reductions of a chunk's last partial repeat address the whole repeat), so
castTmpBufByte is rounded up to 256 bytes (and the kernel rounds its input buffer so); this
changes the numbers only when the chunk is capped at a short row; probOutBufByte sizes probOutBuf for the per-row loss
vector of `none` too (max with F * sizeof(T)); the tiling refuses what the kernel cannot reduce
instead of computing garbage: more than MAX_BATCH_PER_CORE (8192) rows per core (the per-core
reduction handles at most 8192 values, i.e. N <= 8192 * K), more than WS_SLOT_NUM (64) cores
(the workspace slots) and a UB that cannot hold the buffers.
"""

from ascsim.dtypes import float, int64_t
from ascsim.host import *
from ascsim.opdev import strcmp

from ..op_kernel.cross_entropy_loss_tiling_data import CrossEntropyLossTilingData

TILING_KEY_BF16 = 1
TILING_KEY_FP16 = 2
TILING_KEY_FP32 = 3
REDUCTION_NONE = 0
REDUCTION_MEAN = 1
REDUCTION_SUM = 2
REDUCTION_ATTR_IDX = 0
IGNORE_INDEX_ATTR_IDX = 1
LABEL_SMOOTHING_ATTR_IDX = 2
INPUT_IDX = 0
TARGET_IDX = 1
WEIGHT_IDX = 2
BLOCK_BYTES = 32
UB_ALIGN_BYTES = 512
REPEAT_BYTES = 256
REDUCE_CALC_BYTES = 32
REDUCE_RES_BYTES = 32
WORK_BYTES = 8192 // 8 * 4
VEC_MAX_LEN = 8192
FLOAT_BYTES = 4
HALF_BYTES = 2
WS_SLOT_NUM = 64
WS_SLOTS = 3
SYS_WORKSPACE_BYTES = 16 * 1024 * 1024
MAX_BATCH_PER_CORE = 8192


class CrossEntropyLossTiling:
    def __init__(self, context):
        self.context = context
        self.tiling = None
        self.tilingKey = 0
        self.reduction = REDUCTION_MEAN
        self.ignoreIndex = -100
        self.labelSmoothing = float(0.0)
        self.hasWeight = False
        self.isHalf = False
        self.batchNum = 0
        self.targetNum = 0
        self.coreNum = 0
        self.blockDim = 0
        self.inputUbByte = 0

    def GetTilingAttr(self):
        dtype = self.context.GetInputDesc(INPUT_IDX).GetDataType()
        if dtype == ge.DT_BF16:
            self.tilingKey = TILING_KEY_BF16
        elif dtype == ge.DT_FLOAT16:
            self.tilingKey = TILING_KEY_FP16
        else:
            self.tilingKey = TILING_KEY_FP32
        self.context.SetTilingKey(self.tilingKey)
        attrs = self.context.GetAttrs()
        reductionAttr = attrs.GetStr(REDUCTION_ATTR_IDX)
        if reductionAttr is None:
            OP_LOGE(self.context.GetNodeName(), "reduction is nullptr.")
            return ge.GRAPH_FAILED
        if strcmp(reductionAttr, "none") == 0:
            self.reduction = REDUCTION_NONE
        elif strcmp(reductionAttr, "mean") == 0:
            self.reduction = REDUCTION_MEAN
        elif strcmp(reductionAttr, "sum") == 0:
            self.reduction = REDUCTION_SUM
        else:
            OP_LOGE(self.context.GetNodeName(), "reduction %s should be mean, sum or none.", reductionAttr)
            return ge.GRAPH_FAILED
        if self.reduction != REDUCTION_NONE:
            self.context.SetScheduleMode(1)
        ignoreIndexAttr = attrs.GetAttrPointer[int64_t](IGNORE_INDEX_ATTR_IDX)
        if ignoreIndexAttr is not None:
            self.ignoreIndex = ignoreIndexAttr
        labelSmoothingAttr = attrs.GetAttrPointer[float](LABEL_SMOOTHING_ATTR_IDX)
        if labelSmoothingAttr is not None:
            self.labelSmoothing = labelSmoothingAttr
        if self.labelSmoothing < float(0.0) or self.labelSmoothing > float(1.0):
            OP_LOGE(self.context.GetNodeName(), "label_smoothing %f should be in [0, 1].", self.labelSmoothing)
            return ge.GRAPH_FAILED
        return ge.GRAPH_SUCCESS

    def CheckInputDtype(self):
        dtype = self.context.GetInputDesc(INPUT_IDX).GetDataType()
        if dtype != ge.DT_BF16 and dtype != ge.DT_FLOAT16 and dtype != ge.DT_FLOAT:
            OP_LOGE(self.context.GetNodeName(), "input dtype should be bfloat16, float16 or float.")
            return ge.GRAPH_FAILED
        self.isHalf = dtype != ge.DT_FLOAT
        if self.context.GetInputDesc(TARGET_IDX).GetDataType() != ge.DT_INT64:
            OP_LOGE(self.context.GetNodeName(), "target dtype should be int64.")
            return ge.GRAPH_FAILED
        weightDesc = self.context.GetOptionalInputDesc(WEIGHT_IDX)
        self.hasWeight = weightDesc is not None
        if self.hasWeight and weightDesc.GetDataType() != ge.DT_FLOAT:
            OP_LOGE(self.context.GetNodeName(), "weight dtype should be float.")
            return ge.GRAPH_FAILED
        return ge.GRAPH_SUCCESS

    def CheckInputShape(self):
        inputShape = self.context.GetInputShape(INPUT_IDX).GetStorageShape()
        targetShape = self.context.GetInputShape(TARGET_IDX).GetStorageShape()
        if inputShape.GetDimNum() != 2 or targetShape.GetDimNum() != 1:
            OP_LOGE(self.context.GetNodeName(), "input should be (N, C) and target (N).")
            return ge.GRAPH_FAILED
        self.batchNum = inputShape.GetDim(0)
        self.targetNum = inputShape.GetDim(1)
        if self.targetNum == 0:
            OP_LOGE(self.context.GetNodeName(), "input has no classes (C = 0).")
            return ge.GRAPH_FAILED
        if targetShape.GetDim(0) != self.batchNum:
            OP_LOGE(self.context.GetNodeName(), "target dim 0 %d should be input dim 0 %d.", targetShape.GetDim(0), self.batchNum)
            return ge.GRAPH_FAILED
        if self.hasWeight:
            weightShape = self.context.GetOptionalInputShape(WEIGHT_IDX).GetStorageShape()
            if weightShape.GetDimNum() != 1 or weightShape.GetDim(0) != self.targetNum:
                OP_LOGE(self.context.GetNodeName(), "weight dim 0 %d should be input dim 1 %d.", weightShape.GetDim(0), self.targetNum)
                return ge.GRAPH_FAILED
        return ge.GRAPH_SUCCESS

    def CoresSplitTiling(self):
        t = self.tiling
        if self.batchNum < self.coreNum:
            t.frontCoreNum = self.batchNum
            t.frontBatchNum = 1
            t.tailCoreNum = 0
            t.tailBatchNum = 0
            self.blockDim = self.batchNum
        else:
            remainder = self.batchNum % self.coreNum
            t.frontCoreNum = self.coreNum if remainder == 0 else remainder
            t.frontBatchNum = (self.batchNum + self.coreNum - 1) // self.coreNum
            t.tailCoreNum = self.coreNum - t.frontCoreNum
            t.tailBatchNum = 0 if remainder == 0 else self.batchNum // self.coreNum
            self.blockDim = self.coreNum

    def UbSplitTiling(self, ubSize):
        t = self.tiling
        lnBytes = (FLOAT_BYTES * t.frontBatchNum + BLOCK_BYTES - 1) // BLOCK_BYTES * BLOCK_BYTES
        reserve = 3 * lnBytes + REDUCE_CALC_BYTES + REDUCE_RES_BYTES + WORK_BYTES
        needW = 1 if self.labelSmoothing > float(0.0) and self.hasWeight else 0
        if reserve >= ubSize:
            OP_LOGE(self.context.GetNodeName(), "%d rows per core leave no UB for the input.", t.frontBatchNum)
            return ge.GRAPH_FAILED
        probOutBufByte = 0
        weight4SmoothingByte = 0
        if not self.isHalf:
            rowBytes = (FLOAT_BYTES * self.targetNum + BLOCK_BYTES - 1) // BLOCK_BYTES * BLOCK_BYTES
            self.inputUbByte = (ubSize - reserve) // (1 + needW) // UB_ALIGN_BYTES * UB_ALIGN_BYTES
            self.inputUbByte = min(self.inputUbByte, rowBytes)
            t.castTmpBufByte = 0
            weight4SmoothingByte = self.inputUbByte if needW == 1 else 0
            t.inputUbSize = self.inputUbByte // FLOAT_BYTES
        else:
            rowBytes = (HALF_BYTES * self.targetNum + BLOCK_BYTES - 1) // BLOCK_BYTES * BLOCK_BYTES
            self.inputUbByte = (ubSize - reserve) // (4 + 2 * needW) // UB_ALIGN_BYTES * UB_ALIGN_BYTES
            self.inputUbByte = min(self.inputUbByte, rowBytes)
            t.castTmpBufByte = (2 * self.inputUbByte + REPEAT_BYTES - 1) // REPEAT_BYTES * REPEAT_BYTES
            lossBytes = (HALF_BYTES * t.frontBatchNum + BLOCK_BYTES - 1) // BLOCK_BYTES * BLOCK_BYTES
            probOutBufByte = max(self.inputUbByte, lossBytes)
            weight4SmoothingByte = 2 * self.inputUbByte if needW == 1 else 0
            t.inputUbSize = self.inputUbByte // HALF_BYTES
        if t.inputUbSize == 0:
            OP_LOGE(self.context.GetNodeName(), "%d rows per core leave no UB for the input.", t.frontBatchNum)
            return ge.GRAPH_FAILED
        t.probOutBufByte = probOutBufByte
        t.totalTmpBufByte = reserve + t.castTmpBufByte + probOutBufByte + weight4SmoothingByte
        t.lnTmpBufSize = lnBytes // FLOAT_BYTES
        t.weightTmpBufSize = lnBytes // FLOAT_BYTES
        t.weight4SmoothingBufSize = weight4SmoothingByte // FLOAT_BYTES
        inQueueByte = (self.inputUbByte + REPEAT_BYTES - 1) // REPEAT_BYTES * REPEAT_BYTES
        if t.totalTmpBufByte + inQueueByte > ubSize:
            OP_LOGE(self.context.GetNodeName(), "the buffers need %d bytes of UB, which has %d.", t.totalTmpBufByte + inQueueByte, ubSize)
            return ge.GRAPH_FAILED
        return ge.GRAPH_SUCCESS

    def VecCalcTiling(self):
        t = self.tiling
        if self.targetNum > t.inputUbSize:
            t.ubLoopNum = self.targetNum // t.inputUbSize
            t.ubTailNum = self.targetNum % t.inputUbSize
        else:
            t.ubLoopNum = 0
            t.ubTailNum = self.targetNum
        # SplitByRepeat: (len / 8192, len % 8192), which is (0, len) below 8192
        t.vecLoopNum = t.inputUbSize // VEC_MAX_LEN
        t.vecTailNum = t.inputUbSize % VEC_MAX_LEN
        t.tailVecLoopNum = t.ubTailNum // VEC_MAX_LEN
        t.tailVecTailNum = t.ubTailNum % VEC_MAX_LEN
        t.defaultWeight = 0 if self.hasWeight else 1

    def GetTilingData(self):
        t = self.tiling
        ascendcPlatform = platform_ascendc.PlatformAscendC(self.context.GetPlatformInfo())
        self.coreNum = ascendcPlatform.GetCoreNumAiv()
        ubSize = 0
        ubSize = ascendcPlatform.GetCoreMemSize(platform_ascendc.CoreMemType.UB)
        t.targetNum = self.targetNum
        t.reduction = self.reduction
        t.ignoreIndex = self.ignoreIndex
        t.labelSmoothing = self.labelSmoothing
        self.CoresSplitTiling()
        if self.blockDim > WS_SLOT_NUM:
            OP_LOGE(self.context.GetNodeName(), "%d cores exceed the %d workspace slots.", self.blockDim, WS_SLOT_NUM)
            return ge.GRAPH_FAILED
        if t.frontBatchNum > MAX_BATCH_PER_CORE:
            OP_LOGE(self.context.GetNodeName(), "%d rows per core exceed the %d the reduction handles (N <= %d).", t.frontBatchNum, MAX_BATCH_PER_CORE, MAX_BATCH_PER_CORE * self.coreNum)
            return ge.GRAPH_FAILED
        if self.UbSplitTiling(ubSize) != ge.GRAPH_SUCCESS:
            return ge.GRAPH_FAILED
        self.VecCalcTiling()
        self.context.SetBlockDim(self.blockDim)
        workspaces = self.context.GetWorkspaceSizes(1)
        workspaces[0] = SYS_WORKSPACE_BYTES + FLOAT_BYTES * WS_SLOTS * WS_SLOT_NUM
        return ge.GRAPH_SUCCESS

    def RunTiling(self):
        self.tiling = self.context.GetTilingData[CrossEntropyLossTilingData]()
        if self.GetTilingAttr() != ge.GRAPH_SUCCESS:
            return ge.GRAPH_FAILED
        if self.CheckInputDtype() != ge.GRAPH_SUCCESS:
            return ge.GRAPH_FAILED
        if self.CheckInputShape() != ge.GRAPH_SUCCESS:
            return ge.GRAPH_FAILED
        return self.GetTilingData()


def Tiling4CrossEntropyLoss(context):
    tiling = CrossEntropyLossTiling(context)
    return tiling.RunTiling()


IMPL_OP_OPTILING("CrossEntropyLoss").Tiling(Tiling4CrossEntropyLoss)
