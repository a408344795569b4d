"""CrossEntropyLoss operator definition (910B / 910_93 config): inputs input (fp16, fp32, bf16),
target (int64 only) and the optional weight (fp32); outputs loss, log_prob, zloss and
lse_for_zloss in the input's dtype (all required, zloss and lse_for_zloss never written on A2);
attributes reduction ("mean"), ignore_index (-100), label_smoothing (0),
lse_square_scale_for_zloss (0) and return_zloss (false). All ND; the inputs AutoContiguous.
"""

from ascsim.host import *


class CrossEntropyLoss(OpDef):
    def __init__(self, name):
        super().__init__(name)
        self.Input("input") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_BF16, ge.DT_FLOAT16, ge.DT_FLOAT]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND]) \
            .AutoContiguous()
        self.Input("target") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_INT64, ge.DT_INT64, ge.DT_INT64]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND]) \
            .AutoContiguous()
        self.Input("weight") \
            .ParamType(OPTIONAL) \
            .DataType([ge.DT_FLOAT, ge.DT_FLOAT, ge.DT_FLOAT]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND]) \
            .AutoContiguous()
        self.Output("loss") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_BF16, ge.DT_FLOAT16, ge.DT_FLOAT]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND])
        self.Output("log_prob") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_BF16, ge.DT_FLOAT16, ge.DT_FLOAT]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND])
        self.Output("zloss") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_BF16, ge.DT_FLOAT16, ge.DT_FLOAT]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND])
        self.Output("lse_for_zloss") \
            .ParamType(REQUIRED) \
            .DataType([ge.DT_BF16, ge.DT_FLOAT16, ge.DT_FLOAT]) \
            .Format([ge.FORMAT_ND, ge.FORMAT_ND, ge.FORMAT_ND])
        self.Attr("reduction").AttrType(OPTIONAL).String("mean")
        self.Attr("ignore_index").AttrType(OPTIONAL).Int(-100)
        self.Attr("label_smoothing").AttrType(OPTIONAL).Float(0.0)
        self.Attr("lse_square_scale_for_zloss").AttrType(OPTIONAL).Float(0.0)
        self.Attr("return_zloss").AttrType(OPTIONAL).Bool(False)
        self.AICore().AddConfig("ascend910b")
        self.AICore().AddConfig("ascend910_93")


OP_ADD(CrossEntropyLoss)
