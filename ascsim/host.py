"""The host side of an operator, as CANN's op_host code sees it: `ge` and `gert` types, the
tiling and infer-shape contexts, `platform_ascendc.PlatformAscendC`, the `OpDef` builder, and
the registries that `IMPL_OP_OPTILING`, `IMPL_OP_INFERSHAPE` and `OP_ADD` fill.

Python transcriptions of op_host files import these names and keep the C++ shape:
`context->GetInputShape(0)->GetOriginShape().GetShapeSize()` is
`context.GetInputShape(0).GetOriginShape().GetShapeSize()`; out-parameters become return values
(`GetCoreMemSize(UB, ubSize)` is `ubSize = GetCoreMemSize(UB)`).
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from types import SimpleNamespace
from typing import Any

import numpy as np

from . import dtypes as _dt
from .profile import HardwareProfile, load_profile
from .tiling import TilingData

__all__ = ["ge", "gert", "platform_ascendc", "OpDef", "OP_ADD", "IMPL_OP_OPTILING",
           "IMPL_OP_INFERSHAPE", "REQUIRED", "OPTIONAL", "DYNAMIC", "op_registration",
           "dtype_to_ge", "ge_to_numpy", "ge_to_ascendc", "OpRegistration", "kernel_entry",
           "OP_LOGE", "take_tiling_error"]


class DataType(IntEnum):
    """`ge::DataType` (graph/types.h numbering)."""

    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_UINT64 = 10
    DT_DOUBLE = 11
    DT_BOOL = 12
    DT_COMPLEX64 = 16
    DT_COMPLEX128 = 17
    DT_BF16 = 27
    DT_UNDEFINED = 28


class Format(IntEnum):
    """`ge::Format` (the ones ascsim's operators meet)."""

    FORMAT_NCHW = 0
    FORMAT_NHWC = 1
    FORMAT_ND = 2
    FORMAT_NC1HWC0 = 3
    FORMAT_FRACTAL_Z = 4
    FORMAT_NCDHW = 30


GRAPH_SUCCESS = 0
GRAPH_FAILED = 0xFFFFFFFF

ge = SimpleNamespace(DataType=DataType, Format=Format, graphStatus=int,
                     GRAPH_SUCCESS=GRAPH_SUCCESS, GRAPH_FAILED=GRAPH_FAILED,
                     **{m.name: m for m in DataType}, **{m.name: m for m in Format})

_GE_NUMPY: dict[DataType, np.dtype] = {
    DataType.DT_FLOAT: np.dtype(np.float32), DataType.DT_FLOAT16: np.dtype(np.float16),
    DataType.DT_INT8: np.dtype(np.int8),
    DataType.DT_UINT8: np.dtype(np.uint8), DataType.DT_INT16: np.dtype(np.int16),
    DataType.DT_UINT16: np.dtype(np.uint16), DataType.DT_INT32: np.dtype(np.int32),
    DataType.DT_UINT32: np.dtype(np.uint32), DataType.DT_INT64: np.dtype(np.int64),
    DataType.DT_UINT64: np.dtype(np.uint64), DataType.DT_DOUBLE: np.dtype(np.float64),
    DataType.DT_BOOL: np.dtype(np.bool_), DataType.DT_COMPLEX64: np.dtype(np.complex64),
    DataType.DT_COMPLEX128: np.dtype(np.complex128),
}
_NUMPY_GE = {v: k for k, v in _GE_NUMPY.items()}  # DT_BF16 (ml_dtypes) is looked up apart


def dtype_to_ge(dt: np.dtype | type) -> DataType:
    """The ge::DataType of a numpy dtype (DT_UNDEFINED if it has none)."""
    if _dt.is_bfloat16(dt):
        return DataType.DT_BF16
    return _NUMPY_GE.get(np.dtype(dt), DataType.DT_UNDEFINED)


def ge_to_numpy(dt: DataType) -> np.dtype:
    dt = DataType(dt)
    return _dt.bfloat16_t.numpy if dt == DataType.DT_BF16 else _GE_NUMPY[dt]


def ge_to_ascendc(dt: DataType) -> _dt.DType:
    return _dt.dtype_from_numpy(ge_to_numpy(dt))


# ---- gert: shapes, descriptors, contexts ----------------------------------------------------

class Shape:
    """`gert::Shape`: a list of dims. A rank-0 shape holds one element."""

    def __init__(self, dims: Iterable[int] = ()) -> None:
        self.dims = [int(d) for d in dims]

    def GetDimNum(self) -> int:
        return len(self.dims)

    def GetDim(self, i: int) -> int:
        return self.dims[i]

    def SetDimNum(self, n: int) -> None:
        self.dims = (self.dims + [0] * n)[:n]

    def SetDim(self, i: int, v: int) -> None:
        self.dims[i] = int(v)

    def AppendDim(self, v: int) -> None:
        self.dims.append(int(v))

    def GetShapeSize(self) -> int:
        return int(np.prod(self.dims, dtype=np.int64)) if self.dims else 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Shape) and self.dims == other.dims

    def __repr__(self) -> str:
        return f"Shape({self.dims})"


class StorageShape:
    """`gert::StorageShape`: origin and storage shape (equal for ND tensors)."""

    def __init__(self, dims: Iterable[int]) -> None:
        self.origin = Shape(dims)
        self.storage = Shape(self.origin.dims)

    def GetOriginShape(self) -> Shape:
        return self.origin

    def GetStorageShape(self) -> Shape:
        return self.storage

    def MutableOriginShape(self) -> Shape:
        return self.origin

    def MutableStorageShape(self) -> Shape:
        return self.storage


@dataclass
class TensorDesc:
    """`gert::CompileTimeTensorDesc`."""

    dtype: DataType
    format: Format = Format.FORMAT_ND

    def GetDataType(self) -> DataType:
        return self.dtype

    def GetOriginFormat(self) -> Format:
        return self.format

    def GetStorageFormat(self) -> Format:
        return self.format


class _TypedGet:
    """`attrs->GetAttrPointer<float>(0)` is `attrs.GetAttrPointer[float](0)` (the value)."""

    def __init__(self, fn: Callable[[Any, int], Any]) -> None:
        self.fn = fn

    def __getitem__(self, dtype: Any) -> Callable[[int], Any]:
        return lambda index: self.fn(dtype, index)


class RuntimeAttrs:
    """`gert::RuntimeAttrs`: the op's attributes in OpDef order (absent ones are None)."""

    def __init__(self, values: list[Any]) -> None:
        self.values = values

    def _get(self, dtype: Any, index: int) -> Any:
        if index >= len(self.values) or self.values[index] is None:
            return None  # C++ returns nullptr
        v = self.values[index]
        return dtype(v) if isinstance(dtype, _dt.DType) else v

    @property
    def GetAttrPointer(self) -> _TypedGet:
        return _TypedGet(self._get)

    def GetStr(self, index: int) -> str | None:
        v = self._get(None, index)
        return v if isinstance(v, str) else None

    def GetInt(self, index: int) -> int | None:
        v = self._get(None, index)
        return int(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else None

    def GetFloat(self, index: int) -> float | None:
        v = self._get(None, index)
        return float(v) if isinstance(v, (float, np.floating)) else None

    def GetAttrNum(self) -> int:
        return len(self.values)


@dataclass
class TensorInfo:
    """What contexts know about one op input or output."""

    shape: StorageShape
    desc: TensorDesc


class _ContextBase:
    def __init__(self, node: str, inputs: list[TensorInfo | None],
                 outputs: list[TensorInfo], attrs: list[Any]) -> None:
        self.node = node
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = RuntimeAttrs(attrs)

    def GetNodeName(self) -> str:
        return self.node

    def GetNodeType(self) -> str:
        return self.node

    def GetInputShape(self, i: int) -> StorageShape | None:
        info = self.inputs[i] if i < len(self.inputs) else None
        return info.shape if info else None

    GetOptionalInputShape = GetInputShape

    def GetInputDesc(self, i: int) -> TensorDesc | None:
        info = self.inputs[i] if i < len(self.inputs) else None
        return info.desc if info else None

    GetOptionalInputDesc = GetInputDesc

    def GetInputTensor(self, i: int) -> TensorInfo | None:
        return self.inputs[i] if i < len(self.inputs) else None

    GetOptionalInputTensor = GetInputTensor

    def GetOutputShape(self, i: int) -> StorageShape | None:
        return self.outputs[i].shape if i < len(self.outputs) else None

    def GetOutputDesc(self, i: int) -> TensorDesc | None:
        return self.outputs[i].desc if i < len(self.outputs) else None

    def GetAttrs(self) -> RuntimeAttrs:
        return self.attrs


class TilingContext(_ContextBase):
    """`gert::TilingContext`: what a tiling function reads and sets."""

    def __init__(self, node: str, inputs: list[TensorInfo | None], outputs: list[TensorInfo],
                 attrs: list[Any], profile: HardwareProfile,
                 tiling_struct: type[TilingData] | None = None) -> None:
        super().__init__(node, inputs, outputs, attrs)
        self.profile = profile
        self.block_dim = 0
        self.tiling_key: int | None = None
        self.workspaces: list[int] = []
        self.tiling_struct = tiling_struct
        self.tiling_data: TilingData | None = None
        self.schedule_mode = 0

    def GetPlatformInfo(self) -> HardwareProfile:
        return self.profile

    def SetBlockDim(self, n: int) -> int:
        self.block_dim = int(n)
        return GRAPH_SUCCESS

    def GetBlockDim(self) -> int:
        return self.block_dim

    def SetTilingKey(self, key: int) -> int:
        self.tiling_key = int(key)
        return GRAPH_SUCCESS

    def GetTilingKey(self) -> int | None:
        return self.tiling_key

    def SetScheduleMode(self, mode: int) -> int:
        self.schedule_mode = int(mode)
        return GRAPH_SUCCESS

    def GetWorkspaceSizes(self, n: int) -> list[int]:
        if len(self.workspaces) < n:
            self.workspaces += [0] * (n - len(self.workspaces))
        return self.workspaces

    @property
    def GetTilingData(self) -> _StructGet:
        """`context->GetTilingData<T>()`: the op's tiling struct, created on first use."""
        return _StructGet(self)


class _StructGet:
    def __init__(self, context: TilingContext) -> None:
        self.context = context

    def __getitem__(self, struct: type[TilingData]) -> Callable[[], TilingData]:
        def get() -> TilingData:
            if self.context.tiling_data is None:
                self.context.tiling_data = struct()
            return self.context.tiling_data
        return get


class InferShapeContext(_ContextBase):
    """`gert::InferShapeContext`: shapes are plain `gert::Shape`s; outputs' shapes are written
    through GetOutputShape(i)."""

    def GetInputShape(self, i: int) -> Shape | None:  # type: ignore[override]
        info = self.inputs[i] if i < len(self.inputs) else None
        return info.shape.GetOriginShape() if info else None

    GetOptionalInputShape = GetInputShape

    def GetOutputShape(self, i: int) -> Shape | None:  # type: ignore[override]
        return self.outputs[i].shape.GetOriginShape() if i < len(self.outputs) else None


class InferDataTypeContext(_ContextBase):
    """`gert::InferDataTypeContext`."""

    def GetInputDataType(self, i: int) -> DataType | None:
        desc = self.GetInputDesc(i)
        return desc.GetDataType() if desc else None

    def GetOutputDataType(self, i: int) -> DataType:
        return self.outputs[i].desc.dtype

    def SetOutputDataType(self, i: int, dtype: DataType) -> int:
        self.outputs[i].desc.dtype = DataType(dtype)
        return GRAPH_SUCCESS


gert = SimpleNamespace(Shape=Shape, StorageShape=StorageShape, TilingContext=TilingContext,
                       InferShapeContext=InferShapeContext,
                       InferDataTypeContext=InferDataTypeContext)


# ---- platform_ascendc ------------------------------------------------------------------------

class CoreMemType(IntEnum):
    L0_A = 0
    L0_B = 1
    L0_C = 2
    L1 = 3
    L2 = 4
    UB = 5
    HBM = 6


LIB_API_WORKSPACE_BYTES = 16 * 1024 * 1024  # RESERVED_WORKSPACE on 2201 (the profiles' default)


class PlatformAscendC:
    """`platform_ascendc::PlatformAscendC`, answered from the hardware profile."""

    def __init__(self, platform_info: HardwareProfile | str | None = None) -> None:
        self.profile = load_profile(platform_info)

    def GetCoreNumAiv(self) -> int:
        return self.profile.aiv_cores

    def GetCoreNum(self) -> int:
        # separated-mode chips: the core count a vector kernel launches on
        return self.profile.aiv_cores

    def GetCoreNumAic(self) -> int:
        return self.profile.aiv_cores // 2

    def GetCoreMemSize(self, mem: CoreMemType) -> int:
        if mem != CoreMemType.UB:
            raise NotImplementedError(f"ascsim models only the UB, not {CoreMemType(mem).name}")
        return self.profile.ub_bytes

    def GetLibApiWorkSpaceSize(self) -> int:
        """The system workspace in front of the user's: the profile's `user_ws_offset` (16 MiB,
        RESERVED_WORKSPACE on 2201), where GetUserWorkspace puts the user part."""
        return self.profile.user_ws_offset

    def GetSocVersion(self) -> str:
        return self.profile.name


platform_ascendc = SimpleNamespace(PlatformAscendC=PlatformAscendC, CoreMemType=CoreMemType)


# ---- OpDef and the registries ----------------------------------------------------------------

REQUIRED, OPTIONAL, DYNAMIC = "REQUIRED", "OPTIONAL", "DYNAMIC"


@dataclass
class ParamDef:
    name: str
    param_type: str = REQUIRED
    dtypes: list[DataType] = field(default_factory=list)
    formats: list[Format] = field(default_factory=list)
    auto_contiguous: bool = False

    def ParamType(self, t: str) -> ParamDef:
        self.param_type = t
        return self

    def DataType(self, dts: Iterable[DataType]) -> ParamDef:
        self.dtypes = [DataType(d) for d in dts]
        return self

    def Format(self, fmts: Iterable[Format]) -> ParamDef:
        self.formats = [Format(f) for f in fmts]
        return self

    def UnknownShapeFormat(self, fmts: Iterable[Format]) -> ParamDef:
        return self

    def AutoContiguous(self) -> ParamDef:
        self.auto_contiguous = True
        return self


@dataclass
class AttrDef:
    name: str
    required: bool = False
    kind: str = ""
    default: Any = None

    def AttrType(self, t: str) -> AttrDef:
        self.required = t == REQUIRED
        return self

    def Float(self, v: float | None = None) -> AttrDef:
        self.kind, self.default = "float", v
        return self

    def Int(self, v: int | None = None) -> AttrDef:
        self.kind, self.default = "int", v
        return self

    def String(self, v: str | None = None) -> AttrDef:
        self.kind, self.default = "str", v
        return self

    def Bool(self, v: bool | None = None) -> AttrDef:
        self.kind, self.default = "bool", v
        return self


class _AICore:
    def __init__(self) -> None:
        self.configs: list[str] = []

    def AddConfig(self, soc: str, *_: Any) -> _AICore:
        self.configs.append(soc)
        return self


class OpDef:
    """`ops::OpDef`: inputs, outputs and attributes of an operator, in declaration order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.inputs: list[ParamDef] = []
        self.outputs: list[ParamDef] = []
        self.attrs: list[AttrDef] = []
        self.aicore = _AICore()

    def Input(self, name: str) -> ParamDef:
        p = ParamDef(name)
        self.inputs.append(p)
        return p

    def Output(self, name: str) -> ParamDef:
        p = ParamDef(name)
        self.outputs.append(p)
        return p

    def Attr(self, name: str) -> AttrDef:
        a = AttrDef(name)
        self.attrs.append(a)
        return a

    def AICore(self) -> _AICore:
        return self.aicore


@dataclass
class OpRegistration:
    """Everything ascsim knows about one op type."""

    op_type: str
    opdef: OpDef | None = None
    tiling: Callable[[TilingContext], int] | None = None
    tiling_struct: type[TilingData] | None = None
    infer_shape: Callable[[InferShapeContext], int] | None = None
    infer_dtype: Callable[[InferDataTypeContext], int] | None = None


_OPS: dict[str, OpRegistration] = {}


def op_registration(op_type: str) -> OpRegistration:
    if op_type not in _OPS:
        _OPS[op_type] = OpRegistration(op_type)
    return _OPS[op_type]


def OP_ADD(cls: type[OpDef]) -> None:
    """`OP_ADD(Name)`: register the op definition class."""
    op_registration(cls.__name__).opdef = cls(cls.__name__)


class _ImplTiling:
    def __init__(self, op_type: str) -> None:
        self.reg = op_registration(op_type)

    def Tiling(self, fn: Callable[[TilingContext], int],
               struct: type[TilingData] | None = None) -> _ImplTiling:
        self.reg.tiling = fn
        if struct is not None:
            self.reg.tiling_struct = struct
        return self

    def TilingParse(self, *_: Any) -> _ImplTiling:
        return self


class _ImplInfer:
    def __init__(self, op_type: str) -> None:
        self.reg = op_registration(op_type)

    def InferShape(self, fn: Callable[[InferShapeContext], int]) -> _ImplInfer:
        self.reg.infer_shape = fn
        return self

    def InferDataType(self, fn: Callable[[InferDataTypeContext], int]) -> _ImplInfer:
        self.reg.infer_dtype = fn
        return self


def IMPL_OP_OPTILING(op_type: str) -> _ImplTiling:
    return _ImplTiling(op_type)


def IMPL_OP_INFERSHAPE(op_type: str) -> _ImplInfer:
    return _ImplInfer(op_type)


def snake_case(op_type: str) -> str:
    """`SigmoidCrossEntropyWithLogitsGradV2` -> `sigmoid_cross_entropy_with_logits_grad_v2`;
    an acronym ends where its last capital starts a word: `MSELossV2` -> `mse_loss_v2`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", op_type).lower()


def kernel_entry(op_type: str) -> Callable[..., Any]:
    """The kernel entry of an op: `kernels_py.<snake>.op_kernel.<snake>.<snake>`, as CANN builds
    the kernel binary from op_kernel/<snake>.cpp."""
    name = snake_case(op_type)
    module = importlib.import_module(f"kernels_py.{name}.op_kernel.{name}")
    return getattr(module, name)


# ---- op_host logging -------------------------------------------------------------------------

_log = threading.local()


def OP_LOGE(node: str, message: str, *args: Any) -> None:
    """op_host's `OP_LOGE(context->GetNodeName(), fmt, ...)`: remember the message, so that the
    aclnn layer's tiling error (561002) says why the tiling failed."""
    text = message % args if args else message
    _log.message = f"{node}: {text}"


def take_tiling_error() -> str | None:
    """The last op_host OP_LOGE message of this thread (and forget it)."""
    message = getattr(_log, "message", None)
    _log.message = None
    return message
