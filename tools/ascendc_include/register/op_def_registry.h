/**
 * ascsim's declaration of the operator definition builder (`ops::OpDef`, `OP_ADD`), for the C++
 * syntax check only. It also brings in the implementation registry, as the CANN header does.
 */
#ifndef ASCSIM_REGISTER_OP_DEF_REGISTRY_H
#define ASCSIM_REGISTER_OP_DEF_REGISTRY_H

#include <vector>

#include "graph/types.h"
#include "register/op_impl_registry.h"

namespace ops {
enum Option { REQUIRED = 0, OPTIONAL = 1, DYNAMIC = 2 };

class OpParamDef {
public:
    OpParamDef &ParamType(Option paramType);
    OpParamDef &DataType(std::vector<ge::DataType> types);
    OpParamDef &Format(std::vector<ge::Format> formats);
    OpParamDef &UnknownShapeFormat(std::vector<ge::Format> formats);
    OpParamDef &AutoContiguous();
};

class OpAttrDef {
public:
    OpAttrDef &AttrType(Option attrType);
    OpAttrDef &Float(float value);
    OpAttrDef &Int(int64_t value);
    OpAttrDef &String(const char *value);
    OpAttrDef &Bool(bool value);
};

class OpAICoreConfig {
public:
    OpAICoreConfig();
};

class OpAICoreDef {
public:
    OpAICoreDef &AddConfig(const char *soc);
    OpAICoreDef &AddConfig(const char *soc, OpAICoreConfig &config);
};

class OpDef {
public:
    explicit OpDef(const char *type);
    OpParamDef &Input(const char *name);
    OpParamDef &Output(const char *name);
    OpAttrDef &Attr(const char *name);
    OpAICoreDef &AICore();
};
}  // namespace ops

// `OP_ADD(LogitGrad);` registers the OpDef subclass LogitGrad under its own name.
#define OP_ADD(OP_TYPE) static OP_TYPE ASCSIM_CONCAT(g_ascsimOpDef_, __COUNTER__)(#OP_TYPE)

#endif  // ASCSIM_REGISTER_OP_DEF_REGISTRY_H
