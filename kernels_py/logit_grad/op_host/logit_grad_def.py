"""LogitGrad operator definition: inputs x and dy, output dx (bf16, fp16 or fp32, ND), attribute
eps (float, optional, default -1.0).
"""

from ascsim.host import *


class LogitGrad(OpDef):
    def __init__(self, name):
        super().__init__(name)
        self.Input("x") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_FLOAT16, ge.DT_FLOAT, ge.DT_BF16]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND]) \
            .AutoContiguous()
        self.Input("dy") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_FLOAT16, ge.DT_FLOAT, ge.DT_BF16]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND]) \
            .AutoContiguous()
        self.Output("dx") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_FLOAT16, ge.DT_FLOAT, ge.DT_BF16]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND])
        self.Attr("eps").AttrType(OPTIONAL).Float(-1.0)
        self.AICore().AddConfig("ascend910b")
        self.AICore().AddConfig("ascend910_93")


OP_ADD(LogitGrad)
