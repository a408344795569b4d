"""A list of record rows (tuples of Python ints) as one int64 array, read by compiled code.

Converting rows is the largest item of a launch's Python after the kernel itself: a batch's
rows become int64 when it is submitted (batch.py) and every core's rows when the launch ends
(RecordStore.pack). Row by row from Python, the fastest way is a struct pack per row (about
160 ns a row of 16 ints); `flatten` walks the list with the CPython C API from a numba function
instead (about 6 ns an int), and hands back what the rows hold, exactly.

It reads Python objects, so unlike ascsim's other numba code it holds the GIL (no `nogil`):
nothing else runs while it borrows the list's items. It takes only a list of exact tuples of
exact ints in the int64 range; for anything else it says so (`ok` false), having changed
nothing, and the caller converts the slower way, which also raises the error a bad row
deserves.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["flatten"]

_I64 = ir.IntType(64)


def _c_api(builder: ir.IRBuilder, pyapi, name: str, args: list, returns_object: bool = True):
    """Call the C API function `name` on object addresses (and Py_ssize_t arguments)."""
    obj, ssize = pyapi.pyobj, pyapi.py_ssize_t
    arg_types = [obj] + [ssize] * (len(args) - 1)
    fn = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(obj if returns_object else ssize, arg_types), name)
    result = builder.call(fn, [builder.inttoptr(args[0], obj), *args[1:]])
    return builder.ptrtoint(result, _I64) if returns_object else result


@intrinsic
def _list_item(typingctx, lst, i):
    """PyList_GetItem: a borrowed reference."""
    def codegen(context, builder, signature, args):
        return _c_api(builder, context.get_python_api(builder), "PyList_GetItem", list(args))
    return types.int64(types.int64, types.int64), codegen


@intrinsic
def _tuple_item(typingctx, tup, i):
    """PyTuple_GetItem: a borrowed reference."""
    def codegen(context, builder, signature, args):
        return _c_api(builder, context.get_python_api(builder), "PyTuple_GetItem", list(args))
    return types.int64(types.int64, types.int64), codegen


@intrinsic
def _tuple_len(typingctx, tup):
    def codegen(context, builder, signature, args):
        return _c_api(builder, context.get_python_api(builder), "PyTuple_Size", list(args),
                      returns_object=False)
    return types.int64(types.int64), codegen


@intrinsic
def _as_int64(typingctx, obj):
    """PyLong_AsLongLong: -1 with an exception set when the int is past the int64 range."""
    def codegen(context, builder, signature, args):
        return _c_api(builder, context.get_python_api(builder), "PyLong_AsLongLong",
                      list(args), returns_object=False)
    return types.int64(types.int64), codegen


@intrinsic
def _type_of(typingctx, addr):
    """The address of the object's type (Py_TYPE)."""
    def codegen(context, builder, signature, args):
        pyapi = context.get_python_api(builder)
        return builder.ptrtoint(pyapi.get_type(builder.inttoptr(args[0], pyapi.pyobj)), _I64)
    return types.int64(types.int64), codegen


@intrinsic
def _clear_error(typingctx):
    """True when a C API call has set an exception, which is then cleared."""
    def codegen(context, builder, signature, args):
        pyapi = context.get_python_api(builder)
        raised = cgutils.is_not_null(builder, pyapi.err_occurred())
        with builder.if_then(raised):
            pyapi.err_clear()
        return raised
    return types.boolean(), codegen


@njit(cache=True, error_model="numpy")  # not nogil: it reads Python objects
def _flatten(rows, n, tuple_type, int_type):
    empty = np.zeros(0, np.int64)
    total = 0
    for i in range(n):
        row = _list_item(rows, i)
        if _type_of(row) != tuple_type:
            return empty, empty, False
        total += _tuple_len(row)
    flat = np.empty(total, np.int64)
    off = np.empty(n + 1, np.int64)
    p = 0
    for i in range(n):
        row = _list_item(rows, i)
        off[i] = p
        for k in range(_tuple_len(row)):
            item = _tuple_item(row, k)
            if _type_of(item) != int_type:
                return empty, empty, False
            value = _as_int64(item)
            if value == -1 and _clear_error():  # past the int64 range
                return empty, empty, False
            flat[p] = value
            p += 1
    off[n] = p
    return flat, off, True


def flatten(rows: list) -> tuple[np.ndarray, np.ndarray] | None:
    """(every int of the rows in order, the offsets of the rows in it: len(rows) + 1 of them),
    both writable int64 arrays; None when `rows` is not a list of tuples of ints in the int64
    range (bool and numpy integers included: the caller's slower way takes those)."""
    if type(rows) is not list:
        return None
    # the list and its rows stay alive (and, with the GIL held, unchanged) during the call
    flat, off, ok = _flatten(id(rows), len(rows), id(tuple), id(int))
    return (flat, off) if ok else None
