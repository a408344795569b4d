"""SigmoidCrossEntropyWithLogitsGradV2 operator definition: inputs predict, target, dout and the
optional weight and pos_weight, output gradient (fp16, fp32 or bf16, ND); attribute reduction
(string, optional, default "mean").

ascsim addition: the optional int attribute buffer_num (default 1, the public kernel's
BUFFER_NUM; 2 double-buffers every queue), so that the buffering can be profiled.
"""

from ascsim.host import *


class SigmoidCrossEntropyWithLogitsGradV2(OpDef):
    def __init__(self, name):
        super().__init__(name)
        self.Input("predict") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_FLOAT16, ge.DT_FLOAT, ge.DT_BF16]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND])
        self.Input("target") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_FLOAT16, ge.DT_FLOAT, ge.DT_BF16]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND])
        self.Input("dout") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_FLOAT16, ge.DT_FLOAT, ge.DT_BF16]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND])
        self.Input("weight") \
            .ParamType(OPTIONAL) \
            .DataType([ge.DT_FLOAT16, ge.DT_FLOAT, ge.DT_BF16]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND])
        self.Input("pos_weight") \
            .ParamType(OPTIONAL) \
            .DataType([ge.DT_FLOAT16, ge.DT_FLOAT, ge.DT_BF16]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND])
        self.Output("gradient") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_FLOAT16, ge.DT_FLOAT, ge.DT_BF16]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND])
        self.Attr("reduction").AttrType(OPTIONAL).String("mean")
        self.Attr("buffer_num").AttrType(OPTIONAL).Int(1)
        self.AICore().AddConfig("ascend910b")


OP_ADD(SigmoidCrossEntropyWithLogitsGradV2)
