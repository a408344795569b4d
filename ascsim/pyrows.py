"""A list of record rows (tuples of Python ints) as one int64 array, read by compiled code.

Converting rows is the largest item of a launch's Python after the kernel itself: a batch's
rows become int64 when it is submitted (batch.py) and every core's rows when the core ends
(RecordStore.pack). Row by row from Python, the fastest way is a struct pack per row (about
160 ns a row of 16 ints); `flatten` walks the list from a numba function instead, reading the
objects in line where the interpreter's layout allows (about 2 ns an int) and with the CPython
C API elsewhere (about 4), and hands back what the rows hold, exactly.

It reads Python objects, so unlike ascsim's other numba code it holds the GIL (no `nogil`):
nothing else runs while it borrows the list's items. It takes only a list of exact tuples of
exact ints in the int64 range; for anything else it says so (`ok` false), having changed
nothing, and the caller converts the slower way, which also raises the error a bad row
deserves.
"""

from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["flatten", "flatten_with", "LAYOUT", "C_API", "SIZED", "TAGGED"]

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


# Where the objects keep what `_flatten` reads, on the 64-bit CPython builds whose layout
# `_probe_layout` confirms at import: the type at +8, a tuple's length and a list's at +16, a
# tuple's items and a list's item array at +24; an int's size word at +16 and its 30-bit digits
# at +24. The size word is the signed digit count up to 3.11 (SIZED) and, from 3.12, the digit
# count << 3 | a sign code (TAGGED: 0 positive, 1 zero, 2 negative). Reading them in line
# instead of calling the C API for every item halves the time per int (about 2 ns instead of
# 4); any other build (a free-threaded one, 15-bit digits) calls the C API (C_API).
C_API, SIZED, TAGGED = 0, 1, 2
_TYPE, _SIZE, _ITEMS = 8, 16, 24


@intrinsic
def _word(typingctx, address):
    """The int64 at `address`."""
    def codegen(context, builder, signature, args):
        return builder.load(builder.inttoptr(args[0], _I64.as_pointer()))
    return types.int64(types.int64), codegen


@intrinsic
def _digit(typingctx, address):
    """The uint32 at `address`, widened."""
    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        return builder.zext(builder.load(builder.inttoptr(args[0], i32.as_pointer())), _I64)
    return types.int64(types.int64), codegen


@njit(cache=True, error_model="numpy", inline="always")
def _small_int(obj, layout):
    """(value, True) of an int of at most two 30-bit digits, read in line; (0, False) for a
    larger one (the caller asks the C API)."""
    tag = _word(obj + _SIZE)
    if layout == TAGGED:
        digits, negative = tag >> 3, (tag & 3) == 2
    else:
        digits, negative = (-tag, True) if tag < 0 else (tag, False)
    if digits == 0:
        return 0, True
    if digits == 1:
        value = _digit(obj + _ITEMS)
    elif digits == 2:
        value = _digit(obj + _ITEMS) | _digit(obj + _ITEMS + 4) << 30
    else:
        return 0, False
    return (-value if negative else value), True


@njit(cache=True, error_model="numpy", inline="always")
def _row_at(rows, i, layout):
    return _list_item(rows, i) if layout == C_API else _word(_word(rows + _ITEMS) + 8 * i)


@njit(cache=True, error_model="numpy", inline="always")
def _length(tup, layout):
    return _tuple_len(tup) if layout == C_API else _word(tup + _SIZE)


@njit(cache=True, error_model="numpy", inline="always")
def _item(tup, k, layout):
    return _tuple_item(tup, k) if layout == C_API else _word(tup + _ITEMS + 8 * k)


@njit(cache=True, error_model="numpy")  # not nogil: it reads Python objects
def _flatten(rows, n, tuple_type, int_type, layout):
    empty = np.zeros(0, np.int64)
    total = 0
    for i in range(n):
        row = _row_at(rows, i, layout)
        if _type_of(row) != tuple_type:
            return empty, empty, False
        total += _length(row, layout)
    flat = np.empty(total, np.int64)
    off = np.empty(n + 1, np.int64)
    p = 0
    for i in range(n):
        row = _row_at(rows, i, layout)
        off[i] = p
        for k in range(_length(row, layout)):
            item = _item(row, k, layout)
            if _type_of(item) != int_type:
                return empty, empty, False
            value, done = (0, False) if layout == C_API else _small_int(item, layout)
            if not done:
                value = _as_int64(item)
                if value == -1 and _clear_error():  # past the int64 range
                    return empty, empty, False
            flat[p] = value
            p += 1
    off[n] = p
    return flat, off, True


def _probe_layout() -> int:
    """SIZED or TAGGED when this interpreter keeps tuples, lists and ints where `_flatten`
    reads them in line (checked on live objects through ctypes), C_API otherwise."""
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        return C_API

    def word(address: int) -> int:
        return ctypes.c_int64.from_address(address).value

    samples = (0, 1, -1, 7, (1 << 30) - 1, 1 << 30, -(1 << 30) - 3, (1 << 60) - 1, -(1 << 59))
    row = tuple(int(str(v)) for v in samples)  # fresh objects, not cached small ints only
    rows = [row]
    if not (word(id(row) + _TYPE) == id(tuple) and word(id(row) + _SIZE) == len(row)
            and word(id(rows) + _TYPE) == id(list) and word(id(rows) + _SIZE) == 1
            and word(word(id(rows) + _ITEMS)) == id(row)
            and all(word(id(row) + _ITEMS + 8 * k) == id(v) for k, v in enumerate(row))):
        return C_API

    def digits(v: int, count: int) -> int:
        return sum(ctypes.c_uint32.from_address(id(v) + _ITEMS + 4 * k).value << 30 * k
                   for k in range(count))

    for layout in (SIZED, TAGGED):
        def read(v: int, layout: int = layout) -> int | None:
            tag = word(id(v) + _SIZE)
            count, negative = ((tag >> 3, (tag & 3) == 2) if layout == TAGGED
                               else (abs(tag), tag < 0))
            if count > 2:
                return None
            return -digits(v, count) if negative else digits(v, count)
        if all(word(id(v) + _TYPE) == id(int) and read(v) == v for v in row):
            return layout
    return C_API


LAYOUT = _probe_layout()


def flatten(rows: list) -> tuple[np.ndarray, np.ndarray] | None:
    """(every int of the rows in order, the offsets of the rows in it: len(rows) + 1 of them),
    both writable int64 arrays; None when `rows` is not a list of tuples of ints in the int64
    range (bool and numpy integers included: the caller's slower way takes those)."""
    return flatten_with(rows, LAYOUT)


def flatten_with(rows: list, layout: int) -> tuple[np.ndarray, np.ndarray] | None:
    """`flatten`, reading the objects in line (`SIZED`, `TAGGED`: only where `LAYOUT` says
    so) or through the C API (`C_API`, which any build takes)."""
    if type(rows) is not list:
        return None
    if layout not in (C_API, LAYOUT):
        raise ValueError(f"this interpreter's objects have layout {LAYOUT}, not {layout}")
    # the list and its rows stay alive (and, with the GIL held, unchanged) during the call
    flat, off, ok = _flatten(id(rows), len(rows), id(tuple), id(int), layout)
    return (flat, off) if ok else None
