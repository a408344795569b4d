"""The aclnn side of an operator: tensors, executors, L0 building blocks and the two-phase run.

Phase one (`aclnnXxxGetWorkspaceSize`) checks the parameters and builds an executor: a list of
tasks (make contiguous, cast, infer shapes + tile + launch a kernel, copy into the output view)
whose tiling already ran, so the workspace size is known. Phase two (`aclnnXxx`) runs the tasks
once. Python transcriptions of op_api files use these names with the C++ shape; `OP_LOGE`
remembers the message and `CHECK_RET` raises `AclnnError` with it, where C++ would return the
code.

Caller arrays are numpy arrays (ml_dtypes.bfloat16 for bf16) or torch CPU tensors; they are
wrapped, never modified, and outputs are written through the caller's own view (strides kept).
"""

from __future__ import annotations

import contextlib
import mmap
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import convert
from .dtypes import bfloat16_t, dtype_from_numpy, half, is_bfloat16
from .errors import (
    ACLNN_ERR_INNER_NULLPTR,
    ACLNN_ERR_INNER_TILING_ERROR,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    ACLNN_SUCCESS,
    AclnnError,
)
from .host import (
    GRAPH_SUCCESS,
    DataType,
    Format,
    InferDataTypeContext,
    InferShapeContext,
    Shape,
    StorageShape,
    TensorDesc,
    TensorInfo,
    TilingContext,
    dtype_to_ge,
    ge_to_numpy,
    kernel_entry,
    op_registration,
    take_tiling_error,
)
from .profile import HardwareProfile, load_profile
from .runtime import Run, launch, unread_records
from .tuning import apply_overrides

__all__ = ["aclTensor", "aclOpExecutor", "CREATE_EXECUTOR", "CHECK_RET", "OP_LOGE", "l0op",
           "ADD_TO_LAUNCHER_LIST_AICORE", "INFER_SHAPE", "OP_INPUT", "OP_OUTPUT", "OP_ATTR",
           "OP_TYPE_REGISTER", "CommonOpExecutorRun", "device", "current_settings",
           "as_tensor", "to_caller", "ACLNN_SUCCESS", "ACLNN_ERR_PARAM_NULLPTR",
           "ACLNN_ERR_PARAM_INVALID", "ACLNN_ERR_INNER_NULLPTR", "aclnnStatus", "ToString",
           "CheckType", "GetCurrentPlatformInfo", "aclnn_api", "empty_like", "PromoteType",
           "CanCast", "BroadcastInferShape", "aclScalar"]

aclnnStatus = int


# ---- device settings: the profile, sanitizer mode and threads used by aclnn calls -----------

@dataclass(frozen=True)
class Settings:
    profile: HardwareProfile
    sanitize: str = "off"
    threads: int = 1


_local = threading.local()


def current_settings() -> Settings:
    s = getattr(_local, "settings", None)
    if s is None:
        s = _local.settings = Settings(load_profile(None))
    return s


@contextlib.contextmanager
def device(profile: str | HardwareProfile | None = None, sanitize: str | None = None,
           threads: int | None = None, keep_runs: bool = True) -> Iterator[Settings]:
    """Run the aclnn calls inside on a given hardware profile / sanitizer mode / thread count.
    `keep_runs=False`: the caller drops the executors' Runs unread, so their records are not
    packed (runtime.unread_records)."""
    old = current_settings()
    new = Settings(load_profile(profile) if profile is not None else old.profile,
                   old.sanitize if sanitize is None else sanitize,
                   old.threads if threads is None else int(threads))
    _local.settings = new
    try:
        with contextlib.nullcontext() if keep_runs else unread_records():
            yield new
    finally:
        _local.settings = old


def GetCurrentPlatformInfo() -> HardwareProfile:
    return current_settings().profile


# ---- tensors ---------------------------------------------------------------------------------

class aclTensor:  # noqa: N801 - aclnn name
    """A tensor handed to an aclnn call: a numpy view (shape, strides, dtype) and a format."""

    def __init__(self, array: np.ndarray | None, dtype: DataType,
                 fmt: Format = Format.FORMAT_ND, name: str = "", owned: bool = False) -> None:
        self.array = array
        self.dtype = DataType(dtype)
        self.format = Format(fmt)
        self.name = name
        self.owned = owned  # storage the executor allocated (not a caller's array)

    # shapes and layout
    def GetViewShape(self) -> Shape:
        return Shape(self.array.shape)

    GetStorageShape = GetViewShape
    GetOriginalShape = GetViewShape

    def GetViewStrides(self) -> list[int]:
        item = self.array.itemsize
        return [s // item for s in self.array.strides]

    def GetDataType(self) -> DataType:
        return self.dtype

    def GetStorageFormat(self) -> Format:
        return self.format

    GetViewFormat = GetStorageFormat
    GetOriginalFormat = GetStorageFormat

    def IsEmpty(self) -> bool:
        return self.array.size == 0

    def Numel(self) -> int:
        return int(self.array.size)

    Size = Numel

    def IsContiguous(self) -> bool:
        return bool(self.array.flags.c_contiguous)

    def __repr__(self) -> str:
        shape = None if self.array is None else list(self.array.shape)
        return f"aclTensor({self.name or '?'}, {shape}, {self.dtype.name}, {self.format.name})"


def _from_torch(t: Any) -> np.ndarray:
    import torch
    if t.device.type != "cpu":
        raise AclnnError(ACLNN_ERR_PARAM_INVALID, "ascsim takes CPU tensors only")
    if t.dtype == torch.bfloat16:
        return t.detach().view(torch.int16).numpy().view(bfloat16_t.numpy)
    return t.detach().numpy()


def as_tensor(obj: Any, name: str = "") -> aclTensor | None:
    """Wrap a caller's array (numpy, torch CPU tensor, or an aclTensor) without copying."""
    if obj is None or isinstance(obj, aclTensor):
        return obj
    if type(obj).__module__.startswith("torch"):
        array = _from_torch(obj)
    elif isinstance(obj, np.ndarray):
        array = obj
    elif isinstance(obj, np.generic):
        array = np.asarray(obj)  # a numpy scalar is a rank-0 tensor
    else:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"{name or 'tensor'} must be a numpy array or a torch CPU tensor, got "
                         f"{type(obj).__name__}")
    return aclTensor(array, dtype_to_ge(array.dtype), Format.FORMAT_ND, name)


def aclnn_api(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate an aclnn GetWorkspaceSize function: wraps every array argument in an aclTensor
    (named after its parameter), so that the body can use the C++ accessors."""
    import inspect
    names = list(inspect.signature(fn).parameters)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        bound = [as_tensor(a, names[i]) if _is_array(a) else a for i, a in enumerate(args)]
        kw = {k: as_tensor(v, k) if _is_array(v) else v for k, v in kwargs.items()}
        return fn(*bound, **kw)

    wrapped.__name__ = fn.__name__
    wrapped.__qualname__ = fn.__qualname__
    wrapped.__doc__ = fn.__doc__
    wrapped.__wrapped__ = fn  # type: ignore[attr-defined]
    return wrapped


def _is_array(obj: Any) -> bool:
    return (isinstance(obj, (np.ndarray, np.generic, aclTensor))
            or type(obj).__module__.startswith("torch"))


def empty_like(obj: Any, dtype: Any = None) -> Any:
    """A new output like a caller's array: numpy in, numpy out; torch in, torch out."""
    if type(obj).__module__.startswith("torch"):
        import torch
        return torch.empty(obj.shape, dtype=dtype or obj.dtype)
    return np.empty(np.shape(obj), dtype=dtype or obj.dtype)


def to_caller(template: Any, array: np.ndarray) -> Any:
    """`array` in the caller's flavour (torch if `template` is a torch tensor)."""
    if type(template).__module__.startswith("torch"):
        import torch
        if is_bfloat16(array.dtype):
            return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(array)
    return array


# ---- logging and checks ----------------------------------------------------------------------

def OP_LOGE(code: int, message: str, *args: Any) -> None:
    """Remember an error message for the CHECK_RET that follows."""
    _local.last_error = (code, message % args if args else message)


def CHECK_RET(condition: Any, code: int) -> None:
    """`CHECK_RET(cond, code)`: C++ returns `code`; Python raises AclnnError(code, message)."""
    if condition:
        return
    last = getattr(_local, "last_error", None)
    _local.last_error = None
    message = last[1] if last else "check failed"
    raise AclnnError(int(code), message)


def ToString(value: Any) -> str:
    if isinstance(value, (DataType, Format)):
        return value.name
    if isinstance(value, Shape):
        return "[" + ",".join(map(str, value.dims)) + "]"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(ToString(v) for v in value) + "]"
    return str(value)


def CheckType(dtype: DataType, supported: list[DataType]) -> bool:
    return DataType(dtype) in supported


_FLOATS = (DataType.DT_FLOAT16, DataType.DT_BF16, DataType.DT_FLOAT, DataType.DT_DOUBLE)
_REAL_TYPES = (*_FLOATS, DataType.DT_BOOL, DataType.DT_INT8, DataType.DT_UINT8,
               DataType.DT_INT16, DataType.DT_INT32, DataType.DT_INT64)


def PromoteType(a: DataType, b: DataType) -> DataType:
    """`op::PromoteType`: PyTorch's promotion (fp16 + bf16 -> fp32, a float beats an integer,
    the wider float wins); DT_UNDEFINED where there is no rule (complex, undefined)."""
    a, b = DataType(a), DataType(b)
    if a == b:
        return a
    if DataType.DT_UNDEFINED in (a, b) or not all(t in _REAL_TYPES for t in (a, b)):
        return DataType.DT_UNDEFINED
    if a in _FLOATS and b in _FLOATS:
        if {a, b} == {DataType.DT_FLOAT16, DataType.DT_BF16}:
            return DataType.DT_FLOAT
        return max(a, b, key=_FLOATS.index)
    if a in _FLOATS or b in _FLOATS:
        return a if a in _FLOATS else b
    return dtype_to_ge(np.promote_types(ge_to_numpy(a), ge_to_numpy(b)))


def BroadcastInferShape(a: Shape, b: Shape, broadcastShape: Shape) -> bool:
    """`op::BroadcastInferShape`: numpy/PyTorch broadcasting of a and b (aligned at the last
    dim; each pair of dims equal, or one of them 1); writes the result into broadcastShape and
    returns True, or returns False (broadcastShape unchanged) when they do not broadcast."""
    try:
        dims = np.broadcast_shapes(tuple(a.dims), tuple(b.dims))
    except ValueError:
        return False
    broadcastShape.SetDimNum(len(dims))
    for i, d in enumerate(dims):
        broadcastShape.SetDim(i, d)
    return True


def CanCast(src: DataType, dst: DataType) -> bool:
    """`op::CanCast`: PyTorch's can_cast (no float -> integer, no numeric -> bool)."""
    src, dst = DataType(src), DataType(dst)
    if src in _FLOATS and dst not in _FLOATS:
        return False
    return not (src != DataType.DT_BOOL and dst == DataType.DT_BOOL)


# ---- executor --------------------------------------------------------------------------------

class aclOpExecutor:  # noqa: N801
    """The work of one aclnn call, built in phase one and run once in phase two."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.tasks: list[Callable[[], None]] = []
        self.workspace = 0
        self.ran = False
        self.runs: list[Run] = []
        self.inputs: list[aclTensor] = []  # caller tensors the tasks read

    def AllocTensor(self, *args: Any) -> aclTensor:
        """`AllocTensor(shape, dtype[, format])`, or `AllocTensor(dtype, storageFormat,
        originFormat)` whose shape INFER_SHAPE fills in."""
        if isinstance(args[0], Shape):
            shape, dtype = args[0], args[1]
            fmt = args[2] if len(args) > 2 else Format.FORMAT_ND
            return aclTensor(np.empty(shape.dims, dtype=ge_to_numpy(dtype)), dtype, fmt,
                             owned=True)
        return aclTensor(None, args[0], args[1] if len(args) > 1 else Format.FORMAT_ND,
                         owned=True)

    def GetWorkspaceSize(self) -> int:
        return self.workspace

    def AllocIntArray(self, values: Any, size: int | None = None) -> list[int]:
        """`AllocIntArray(data, size)`: an aclIntArray (a list of ints here)."""
        values = list(values)
        return [int(v) for v in values[:len(values) if size is None else size]]

    def AllocScalar(self, value: Any) -> aclScalar:
        """`AllocScalar(value)`: a host scalar (an aclScalar holding a Python number)."""
        return aclScalar(value)

    def ConvertToTensor(self, values: Any, *args: Any) -> aclTensor:
        """`ConvertToTensor(data, size, dtype)` (an int array as a 1-D tensor) or
        `ConvertToTensor(scalar, dtype)` (a rank-0 tensor holding the scalar, cast to dtype)."""
        if isinstance(values, aclScalar):
            dtype = DataType(args[0])
            array = np.asarray(values.value, dtype=np.float64).astype(ge_to_numpy(dtype))
            return aclTensor(array.reshape(()), dtype, owned=True)
        size, dtype = int(args[0]), DataType(args[1])
        array = np.asarray(list(values)[:size], dtype=ge_to_numpy(dtype)).reshape(size)
        return aclTensor(array, dtype, owned=True)


class aclScalar:  # noqa: N801 - aclnn name
    """`aclScalar`: a host-side number (what `AllocScalar` makes)."""

    def __init__(self, value: Any) -> None:
        self.value = value


class UniqueExecutor:
    """`CREATE_EXECUTOR()`'s result: `.get()` the executor, `.ReleaseTo()` hand it out."""

    def __init__(self) -> None:
        self.executor = aclOpExecutor(current_settings())

    def get(self) -> aclOpExecutor:
        return self.executor

    def ReleaseTo(self) -> aclOpExecutor:
        return self.executor

    def GetWorkspaceSize(self) -> int:
        return self.executor.GetWorkspaceSize()


def CREATE_EXECUTOR() -> UniqueExecutor:
    return UniqueExecutor()


def _zeroed(nbytes: int) -> np.ndarray:
    """`nbytes` zero bytes that the OS clears page by page on first touch (POSIX; elsewhere
    numpy clears them)."""
    if not hasattr(mmap, "MAP_PRIVATE"):
        return np.zeros(nbytes, np.uint8)
    return np.frombuffer(mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE), np.uint8)


def CommonOpExecutorRun(workspace: Any, workspaceSize: int, executor: aclOpExecutor | None,
                        stream: Any = None) -> aclnnStatus:
    """Phase two: run an executor's tasks, once."""
    if executor is None:
        raise AclnnError(ACLNN_ERR_PARAM_NULLPTR, "executor is nullptr")
    if executor.ran:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID, "this executor already ran: an aclnn executor "
                         "may be run once (call GetWorkspaceSize again)")
    if int(workspaceSize) < executor.workspace:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID, f"workspaceSize {workspaceSize} is smaller "
                         f"than the {executor.workspace} bytes GetWorkspaceSize asked for")
    executor.ran = True
    # The tasks run once; letting go of them also breaks their reference cycle with the
    # executor, so that the runs (UB, records) are freed as soon as the caller drops them.
    tasks, executor.tasks = executor.tasks, []
    for task in tasks:
        task()
    return ACLNN_SUCCESS


# ---- L0 building blocks ----------------------------------------------------------------------

def _alloc_like(x: aclTensor, dtype: DataType | None = None) -> aclTensor:
    dt = x.dtype if dtype is None else DataType(dtype)
    return aclTensor(np.empty(x.array.shape, dtype=ge_to_numpy(dt)), dt, x.format, x.name,
                     owned=True)


def _contiguous(x: aclTensor | None, executor: aclOpExecutor) -> aclTensor | None:
    """A C-contiguous tensor with x's values (x itself when it already is one)."""
    if x is not None and not x.owned:
        executor.inputs.append(x)
    if x is None or x.IsContiguous():
        return x
    out = _alloc_like(x)
    executor.tasks.append(lambda: np.copyto(out.array, x.array))
    return out


def _view_copy(src: aclTensor, dst: aclTensor, executor: aclOpExecutor) -> aclTensor:
    """Copy a result into the caller's output view (any strides). When the view is plain
    contiguous memory of the same type, the kernel writes into it directly instead."""
    direct = (src.owned and dst.IsContiguous() and src.array.dtype == dst.array.dtype
              and src.array.size == dst.array.size
              and not any(np.may_share_memory(dst.array, t.array) for t in executor.inputs))
    if direct:
        src.array = dst.array.reshape(src.array.shape)
        return dst
    executor.tasks.append(lambda: np.copyto(dst.array, src.array.reshape(dst.array.shape)))
    return dst


# the 16-bit float types' conversions to and from float32, by AscendC type
_WIDEN = {half: convert.cast_f16_to_f32, bfloat16_t: convert.cast_bf16_to_f32}
_NARROW = {half: convert.cast_f32_to_f16, bfloat16_t: convert.cast_f32_to_bf16}


def _ascendc_type(dt: np.dtype) -> Any:
    """The AscendC type of a numpy dtype, or None where there is none (float64, say)."""
    try:
        return dtype_from_numpy(dt)
    except TypeError:
        return None


def cast_array(src: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The L0 Cast between float types: exact widening, round-to-nearest-even narrowing (through
    fp32 for fp16 <-> bf16), with ascsim's bit-exact conversions."""
    src = np.ascontiguousarray(src).reshape(-1)
    dtype = np.dtype(dtype)
    if src.dtype == dtype:
        return src.copy()
    widen = _WIDEN.get(_ascendc_type(src.dtype))
    if widen is not None:
        wide = np.empty(src.size, np.float32)
        widen(wide, 0, src.view(np.uint16), 0, src.size, 0, False)
    else:
        wide = src.astype(np.float32)
    if dtype == np.float32:
        return wide
    narrow = _NARROW.get(_ascendc_type(dtype))
    if narrow is not None:
        out = np.empty(src.size, np.uint16)
        narrow(out, 0, wide, 0, src.size, convert.CAST_RINT, False)
        return out.view(dtype)
    return wide.astype(dtype)


def _cast(x: aclTensor, dtype: DataType, executor: aclOpExecutor) -> aclTensor:
    if x.dtype == DataType(dtype):
        return x
    out = _alloc_like(x, dtype)
    np_dt = ge_to_numpy(dtype)

    def run() -> None:
        out.array[...] = cast_array(x.array, np_dt).reshape(out.array.shape)
    executor.tasks.append(run)
    return out


def _broadcast_to(x: aclTensor, shape: Any, executor: aclOpExecutor) -> aclTensor | None:
    """A contiguous tensor of `shape` (an int array) holding x broadcast to it."""
    dims = tuple(int(d) for d in (shape.dims if isinstance(shape, Shape) else shape))
    try:
        fits = np.broadcast_shapes(x.array.shape, dims) == dims
    except ValueError:
        fits = False
    if not fits:
        return None
    out = aclTensor(np.empty(dims, dtype=x.array.dtype), x.dtype, x.format, x.name, owned=True)
    executor.tasks.append(lambda: np.copyto(out.array, np.broadcast_to(x.array, dims)))
    return out


def _ones_like(x: aclTensor, executor: aclOpExecutor) -> aclTensor:
    """A contiguous tensor of ones with x's shape, dtype and format."""
    out = _alloc_like(x)
    executor.tasks.append(lambda: out.array.fill(1))
    return out


def _reformat(x: aclTensor, fmt: Format, executor: aclOpExecutor | None = None) -> aclTensor:
    """The same data labelled with another storage format (no data movement). An intermediate
    (owned) tensor is relabelled in place: it must stay the object the earlier tasks write, so
    that a ViewCopy that redirects it into the caller's output redirects those writes too."""
    if x.owned:
        x.format = Format(fmt)
        return x
    return aclTensor(x.array, x.dtype, fmt, x.name)


def _fill(dims: aclTensor, value: aclTensor, outShape: Any,
          executor: aclOpExecutor) -> aclTensor | None:
    """`l0op::Fill(dims, value, outShape, executor)`: a contiguous tensor of outShape (an int
    array; `dims` holds the same numbers as an int64 tensor) filled with the rank-0 `value`,
    in value's dtype."""
    shape = tuple(int(d) for d in outShape)
    if tuple(int(d) for d in dims.array.reshape(-1)) != shape or value.array.size != 1:
        return None
    out = aclTensor(np.empty(shape, dtype=value.array.dtype), value.dtype, owned=True)
    fill = value.array.reshape(())[()]
    executor.tasks.append(lambda: out.array.fill(fill))
    return out


class _L0:
    """The `l0op` namespace: ascsim's building blocks plus each op's own L0 function."""

    Contiguous = staticmethod(_contiguous)
    ViewCopy = staticmethod(_view_copy)
    Cast = staticmethod(_cast)
    BroadcastTo = staticmethod(_broadcast_to)
    OnesLike = staticmethod(_ones_like)
    ReFormat = staticmethod(_reformat)
    Fill = staticmethod(_fill)

    def define(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator that puts an op's L0 function into the namespace (`l0op.LogitGrad`)."""
        setattr(type(self), fn.__name__, staticmethod(fn))
        return fn


l0op = _L0()


def OP_TYPE_REGISTER(op_type: str) -> None:
    op_registration(op_type)


@dataclass
class _OpArgs:
    kind: str
    values: tuple


def OP_INPUT(*tensors: aclTensor | None) -> _OpArgs:
    return _OpArgs("input", tensors)


def OP_OUTPUT(*tensors: aclTensor) -> _OpArgs:
    return _OpArgs("output", tensors)


def OP_ATTR(*values: Any) -> _OpArgs:
    return _OpArgs("attr", values)


def _split(args: tuple[_OpArgs, ...]) -> tuple[tuple, tuple, tuple]:
    parts = {"input": (), "output": (), "attr": ()}
    for a in args:
        parts[a.kind] = a.values
    return parts["input"], parts["output"], parts["attr"]


def _info(t: aclTensor | None) -> TensorInfo | None:
    if t is None:
        return None
    dims = [] if t.array is None else list(t.array.shape)
    return TensorInfo(StorageShape(dims), TensorDesc(t.dtype, t.format))


def _caller_executor() -> aclOpExecutor:
    # The C++ macros use the enclosing function's `executor`; so do these.
    executor = sys._getframe(2).f_locals.get("executor")
    if not isinstance(executor, aclOpExecutor):
        raise RuntimeError("ADD_TO_LAUNCHER_LIST_AICORE / INFER_SHAPE need a local `executor`")
    return executor


def INFER_SHAPE(op_type: str, *args: _OpArgs) -> aclnnStatus:
    """Run the op's registered InferShape (and InferDataType) and allocate its outputs."""
    reg = op_registration(op_type)
    inputs, outputs, attrs = _split(args)
    in_infos = [_info(t) for t in inputs]
    out_infos = [TensorInfo(StorageShape([]), TensorDesc(o.dtype, o.format)) for o in outputs]
    if reg.infer_shape is None:
        return ACLNN_ERR_INNER_NULLPTR
    ctx = InferShapeContext(op_type, in_infos, out_infos, list(attrs))
    if reg.infer_shape(ctx) != GRAPH_SUCCESS:
        return ACLNN_ERR_INNER_NULLPTR
    if reg.infer_dtype is not None:
        dctx = InferDataTypeContext(op_type, in_infos, out_infos, list(attrs))
        if reg.infer_dtype(dctx) != GRAPH_SUCCESS:
            return ACLNN_ERR_INNER_NULLPTR
    for o, info in zip(outputs, out_infos, strict=True):
        o.dtype = info.desc.dtype
        o.array = np.empty(info.shape.GetOriginShape().dims, dtype=ge_to_numpy(o.dtype))
    return ACLNN_SUCCESS


def ADD_TO_LAUNCHER_LIST_AICORE(op_type: str, *args: _OpArgs) -> None:
    """Tile the op now (phase one: the workspace size depends on it) and queue its launch."""
    executor = _caller_executor()
    reg = op_registration(op_type)
    inputs, outputs, attrs = _split(args)
    opdef = reg.opdef
    attr_values = list(attrs)
    if opdef is not None:  # fill attributes the call left out with their OpDef defaults
        attr_values += [a.default for a in opdef.attrs[len(attr_values):]]
    ctx = TilingContext(op_type, [_info(t) for t in inputs], [_info(t) for t in outputs],
                        attr_values, executor.settings.profile, reg.tiling_struct)
    take_tiling_error()  # a message left by an earlier tiling is not this one's
    if reg.tiling is None or reg.tiling(ctx) != GRAPH_SUCCESS or ctx.tiling_data is None:
        why = take_tiling_error()
        raise AclnnError(ACLNN_ERR_INNER_TILING_ERROR,
                         f"tiling of {op_type} failed" + (f": {why}" if why else ""))
    apply_overrides(op_type, ctx)  # a profiling sweep's forced tiling choices, if any
    workspace = sum(ctx.workspaces)
    executor.workspace += workspace
    kernel = kernel_entry(op_type)
    settings = executor.settings
    tiling = ctx.tiling_data
    block_dim, key = ctx.block_dim, ctx.tiling_key

    def run() -> None:
        gm = [None if t is None else t.array for t in inputs] + [o.array for o in outputs]
        # the workspace argument (inputs, outputs, workspace, tiling): the system part
        # (user_ws_offset, 16 MiB) then the user part, zero-filled by the OS on first touch (a
        # private anonymous mapping: np.zeros clears 16 MiB, 1.5 ms a launch), so untouched
        # pages cost no memory; a 0-byte workspace is a nullptr
        ws = _zeroed(workspace) if workspace else None
        outs = range(len(inputs), len(inputs) + len(outputs))  # OP_OUTPUT: for the sanitizer
        executor.runs.append(launch(kernel, block_dim, *gm, ws, tiling=tiling, tiling_key=key,
                                    profile=settings.profile, sanitize=settings.sanitize,
                                    threads=settings.threads, outputs=outs,
                                    workspace=len(gm) if workspace else None))
    executor.tasks.append(run)
