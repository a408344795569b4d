"""MSELossV2 operator definition: inputs input and target, output output (fp16, fp32 or bf16,
ND, AutoContiguous); attribute reduction (string, optional, default "mean").
"""

from ascsim.host import *


class MSELossV2(OpDef):
    def __init__(self, name):
        super().__init__(name)
        self.Input("input") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_FLOAT16, ge.DT_FLOAT, ge.DT_BF16]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND]) \
            .AutoContiguous()
        self.Input("target") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_FLOAT16, ge.DT_FLOAT, ge.DT_BF16]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND]) \
            .AutoContiguous()
        self.Output("output") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_FLOAT16, ge.DT_FLOAT, ge.DT_BF16]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND])
        self.Attr("reduction").AttrType(OPTIONAL).String("mean")
        self.AICore().AddConfig("ascend910b")
        self.AICore().AddConfig("ascend910_93")


OP_ADD(MSELossV2)
