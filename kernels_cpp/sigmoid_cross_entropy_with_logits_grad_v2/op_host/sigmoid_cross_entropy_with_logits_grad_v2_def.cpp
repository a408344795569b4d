/**
 * SigmoidCrossEntropyWithLogitsGradV2 operator definition: inputs predict, target, dout and the
 * optional weight and pos_weight, output gradient (fp16, fp32 or bf16, ND); attribute reduction
 * (string, optional, default "mean").
 *
 * ascsim addition: the optional int attribute buffer_num (default 1, the public kernel's
 * BUFFER_NUM; 2 double-buffers every queue), so that the buffering can be profiled.
 */
#include "register/op_def_registry.h"

namespace ops {
class SigmoidCrossEntropyWithLogitsGradV2 : public OpDef {
public:
    explicit SigmoidCrossEntropyWithLogitsGradV2(const char *name) : OpDef(name)
    {
        this->Input("predict")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("target")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("dout")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("weight")
            .ParamType(OPTIONAL)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("pos_weight")
            .ParamType(OPTIONAL)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("gradient")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("reduction").AttrType(OPTIONAL).String("mean");
        this->Attr("buffer_num").AttrType(OPTIONAL).Int(1);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(SigmoidCrossEntropyWithLogitsGradV2);
}  // namespace ops
