"""LogitGrad tiling: one core per 8192-element tile, at most every AIV core, at least one.
Tiling keys: 1 fp16, 2 fp32, 3 bf16. The workspace is the 16 MiB the public operator asks for
(the kernel never uses it).
"""

from ascsim.dtypes import float
from ascsim.host import *

from ..op_kernel.logit_grad_tiling_data import LogitGradTilingData

MAX_ELEMENT_NUM_EACH_CORE = 8192
WORKSPACE_BYTES = 16 * 1024 * 1024
TILING_KEY_HALF = 1
TILING_KEY_FLOAT = 2
TILING_KEY_BFLOAT16 = 3


def LogitGradTilingFunc(context):
    tiling = context.GetTilingData[LogitGradTilingData]()
    elementNum = context.GetInputShape(0).GetOriginShape().GetShapeSize()
    dtype = context.GetInputDesc(0).GetDataType()
    tilingKey = 0
    if dtype == ge.DT_FLOAT16:
        tilingKey = TILING_KEY_HALF
    elif dtype == ge.DT_FLOAT:
        tilingKey = TILING_KEY_FLOAT
    elif dtype == ge.DT_BF16:
        tilingKey = TILING_KEY_BFLOAT16
    else:
        return ge.GRAPH_FAILED
    eps = context.GetAttrs().GetAttrPointer[float](0)
    if eps is None:
        return ge.GRAPH_FAILED
    ascendcPlatform = platform_ascendc.PlatformAscendC(context.GetPlatformInfo())
    aivNum = ascendcPlatform.GetCoreNumAiv()
    tileNum = (elementNum + MAX_ELEMENT_NUM_EACH_CORE - 1) // MAX_ELEMENT_NUM_EACH_CORE
    needCoreNum = max(min(tileNum, aivNum), 1)
    tiling.elementNum = elementNum
    tiling.eps = eps
    tiling.needCoreNum = needCoreNum
    context.SetBlockDim(needCoreNum)
    context.SetTilingKey(tilingKey)
    workspaces = context.GetWorkspaceSizes(1)
    workspaces[0] = WORKSPACE_BYTES
    return ge.GRAPH_SUCCESS


IMPL_OP_OPTILING("LogitGrad").Tiling(LogitGradTilingFunc)
