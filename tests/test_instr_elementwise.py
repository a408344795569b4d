"""Element-wise vector instructions, bit for bit against independent numpy references.

References (all computed outside ascsim):
- float: numpy float32 arithmetic (IEEE, correctly rounded, no flush to zero);
- half: the exact result (numpy float64, which holds every +, -, *, / and sqrt of two halves
  exactly or correctly rounded with 53 >= 2*11+2 bits) rounded ONCE to float16; that this also
  equals numpy's own float16 ufuncs and ascsim's widen-to-fp32/compute/round-to-nearest-even is
  checked here, not assumed;
- Exp / Ln follow ascsim's documented model np.float32(np.exp(np.float64(x))) (np.log for Ln),
  a half result being that float32 rounded to nearest-even half;
- Max / Min propagate NaN and otherwise return `src0 if src0 > src1 else src1`, so on the
  +0 / -0 tie they return src1. That is numpy's float32 rule (x86 maxps) but NOT numpy's float16
  rule (which returns src0); the hardware's is undocumented. test_numpy_half_max_tie_rule pins
  the difference;
- integers wrap modulo 2**bits; logic ops are numpy bitwise ops.
NaN results are compared as "a NaN" (payloads are not pinned: see conftest.assert_same_bits).

The high-dimension form is checked against `ref_high_dim`, a byte-address model written from
ascendc_semantics.md §4.1 (block k of repeat r starts r*repStride + k*blkStride DataBlocks after
the operand; masked-off elements keep their old value; a repeat reads all its sources before it
writes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest
from conftest import BF16, assert_same_bits, run_ub, tensor, ub_array

import ascsim.ascendc as A
from ascsim.dtypes import DType, bfloat16_t, half, int8_t, int16_t, int32_t, uint8_t, uint16_t
from ascsim.dtypes import float as f32
from ascsim.errors import AlignmentError, OutOfRangeError, ParameterError

DST, SRC0, SRC1 = 0, 65536, 131072   # UB byte addresses of the operands (64 KB apart)
SENTINEL = 0x5A                      # bytes of dst that no instruction should touch
COUNTS = (0, 1, 63, 64, 65, 8192)
N = 8192
RNG_SEED = 20240611

F32, F16, I16, I32, U16 = (np.dtype(t) for t in (np.float32, np.float16, np.int16, np.int32,
                                                 np.uint16))
NP_OF = {f32: F32, half: F16, int16_t: I16, int32_t: I32, uint16_t: U16}

# ---- special values (bit patterns written by hand) ---------------------------------------------

F32_SPECIAL_BITS = [
    0x00000000, 0x80000000,              # +0, -0
    0x3F800000, 0xBF800000,              # 1, -1
    0x7F800000, 0xFF800000,              # +inf, -inf
    0x7FC00000, 0xFFC00000, 0x7FC12345,  # quiet NaNs (one with a payload)
    0x00000001, 0x80000001,              # smallest subnormal
    0x007FFFFF, 0x807FFFFF,              # largest subnormal
    0x00800000,                          # smallest normal
    0x7F7FFFFF, 0xFF7FFFFF,              # +-max
    0x3F000000, 0x40000000, 0x3DCCCCCD,  # 0.5, 2, 0.1
    0x4B800000, 0x33800000,              # 2**24, 2**-24
    0x477FE000, 0x3EAAAAAB,              # 65504, 1/3
]
F16_SPECIAL_BITS = [
    0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7E55,
    0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x7BFF, 0xFBFF,
    0x3800, 0x4000, 0x2E66, 0x3555, 0x5BFF, 0x1400,
]
INT_SPECIAL = {
    I16: [0, 1, -1, 2, -2, 255, 256, 181, -181, 12345, -12345, 32767, -32768, 0x5555, -0x5556],
    I32: [0, 1, -1, 2, -2, 46341, -46341, 65536, 123456789, -987654321, 2**31 - 1, -2**31,
          0x55555555, 16777217],
    U16: [0, 1, 0xFFFF, 0x8000, 0x7FFF, 0x5555, 0xAAAA, 0x00FF, 0xFF00, 0x1234],
}


def specials(dt: np.dtype) -> np.ndarray:
    if dt == F32:
        return np.array(F32_SPECIAL_BITS, np.uint32).view(F32)
    if dt == F16:
        return np.array(F16_SPECIAL_BITS, np.uint16).view(F16)
    return np.array(INT_SPECIAL[dt], np.int64).astype(dt)


def random_values(dt: np.dtype, n: int, rng: np.random.Generator, domain: str = "") -> np.ndarray:
    """Half random bit patterns (every exponent, some NaN/inf), half moderate magnitudes; `domain`
    narrows floats to where Exp / Ln give non-trivial results."""
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, n, endpoint=True).astype(dt)
    raw = rng.integers(0, 2 ** (8 * dt.itemsize), n, dtype=np.uint64).astype(f"u{dt.itemsize}")
    out = raw.view(dt).copy()
    k = n // 2
    if domain == "exp":
        hi = 89.0 if dt == F32 else 11.1
        out[k:] = rng.uniform(-hi - 15, hi, n - k).astype(dt)
    elif domain == "ln":
        span = 30 if dt == F32 else 15
        out[k:] = np.exp2(rng.uniform(-span, span, n - k)).astype(dt)
    else:
        scale = 10.0 ** rng.uniform(-4, 4, n - k)
        out[k:] = (rng.standard_normal(n - k) * scale).astype(dt)
    return out


@cache
def make_inputs(dt: np.dtype, n_src: int, domain: str = "") -> tuple[np.ndarray, ...]:
    """n_src arrays of N elements: every pair (or every value) of specials first, then random
    (cached: callers must not modify them)."""
    rng = np.random.default_rng(RNG_SEED + n_src)
    s = specials(dt)
    if n_src == 1:
        heads = [s]
    else:
        heads = [np.repeat(s, s.size), np.tile(s, s.size)]
    outs = []
    for h in heads:
        tail = random_values(dt, N - h.size, rng, domain)
        outs.append(np.concatenate([h, tail]))
        outs[-1].flags.writeable = False
    return tuple(outs)


# ---- references -------------------------------------------------------------------------------

def _float_exact(uf: Callable) -> Callable:
    """numpy float32 for float; exact (float64) and rounded once for half; wrap for integers."""
    def ref(*xs: np.ndarray) -> np.ndarray:
        dt = xs[0].dtype
        with np.errstate(all="ignore"):
            if dt == F32:
                return uf(*xs).astype(F32)
            if dt == F16:
                return uf(*(x.astype(np.float64) for x in xs)).astype(F16)
            return uf(*(x.astype(np.int64) for x in xs)).astype(dt)
    return ref


def _via_f64_to_f32(uf: Callable) -> Callable:
    """ascsim's documented Exp/Ln model: float64 function, rounded to float32 (then to half)."""
    def ref(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return uf(x.astype(np.float64)).astype(F32).astype(x.dtype)
    return ref


def _max_min(pick_first: Callable) -> Callable:
    def ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a, b = np.broadcast_arrays(a, b)
        out = np.where(pick_first(a, b), a, b)
        if a.dtype.kind == "f":
            nan = np.isnan(a) | np.isnan(b)
            out = np.where(nan, np.array(np.nan, a.dtype), out)
        return out.astype(a.dtype)
    return ref


def _reciprocal(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if x.dtype == F32:
            return np.float32(1.0) / x
        return (1.0 / x.astype(np.float64)).astype(x.dtype)


@dataclass(frozen=True)
class Spec:
    name: str
    form: str                  # unary, scalar, binary
    ref: Callable
    dtypes: tuple[DType, ...]
    domain: str = ""


ARITH = (half, f32, int16_t, int32_t)
FLOATS = (half, f32)
LOGIC = (int16_t, uint16_t)
MAX = _max_min(lambda a, b: a > b)
MIN = _max_min(lambda a, b: a < b)

SPECS = {s.name: s for s in (
    Spec("Exp", "unary", _via_f64_to_f32(np.exp), FLOATS, "exp"),
    Spec("Ln", "unary", _via_f64_to_f32(np.log), FLOATS, "ln"),
    Spec("Abs", "unary", np.abs, FLOATS),
    Spec("Sqrt", "unary", _float_exact(np.sqrt), FLOATS),
    Spec("Reciprocal", "unary", _reciprocal, FLOATS),
    Spec("Not", "unary", np.invert, LOGIC),
    Spec("Adds", "scalar", _float_exact(np.add), ARITH),
    Spec("Muls", "scalar", _float_exact(np.multiply), ARITH),
    Spec("Maxs", "scalar", MAX, ARITH),
    Spec("Mins", "scalar", MIN, ARITH),
    Spec("Add", "binary", _float_exact(np.add), ARITH),
    Spec("Sub", "binary", _float_exact(np.subtract), ARITH),
    Spec("Mul", "binary", _float_exact(np.multiply), ARITH),
    Spec("Div", "binary", _float_exact(np.divide), FLOATS),
    Spec("Max", "binary", MAX, ARITH),
    Spec("Min", "binary", MIN, ARITH),
    Spec("And", "binary", np.bitwise_and, LOGIC),
    Spec("Or", "binary", np.bitwise_or, LOGIC),
)}

# the scalar of the count-form runs, per dtype (converted to T as a C++ call would)
COUNT_SCALAR = {F32: 0.1, F16: 0.1, I16: -3, I32: 7}


def scalar_in(dt: np.dtype, value: object) -> np.ndarray:
    """`value` converted to T the way C++ does: floats round to nearest-even, integers wrap."""
    if dt.kind == "f":
        with np.errstate(over="ignore"):
            return np.array(value, np.float64).astype(dt)
    bits = 8 * dt.itemsize
    v = int(value) % (1 << bits)
    return np.array(v - (1 << bits) if dt.kind == "i" and v >= 1 << (bits - 1) else v, dt)


def reference(spec: Spec, srcs: list[np.ndarray], scalar: object = None) -> np.ndarray:
    if spec.form == "scalar":
        return spec.ref(srcs[0], scalar_in(srcs[0].dtype, scalar))
    return spec.ref(*srcs)


def run_count_form(spec: Spec, dtype: DType, srcs: list[np.ndarray], count: int,
                   scalar: object = None) -> tuple[np.ndarray, object]:
    fn = getattr(A, spec.name)
    dt = NP_OF[dtype]
    init = [(DST, np.full(65536, SENTINEL, np.uint8))]
    init += [(addr, s) for addr, s in zip((SRC0, SRC1), srcs, strict=False)]

    def body(ub):
        args = [tensor(ub, a, dtype) for a in (SRC0, SRC1)[:len(srcs)]]
        if spec.form == "scalar":
            args.append(scalar)
        fn(tensor(ub, DST, dtype), *args, count)

    ub, run = run_ub(body, init)
    got = ub_array(ub, DST, dt, count)
    untouched = ub[DST + count * dt.itemsize:DST + 65536]
    assert (untouched == SENTINEL).all(), "bytes past count were written"
    return got, run


CASES = [(name, t) for name, s in SPECS.items() for t in s.dtypes]


def _ids(case: tuple[str, DType]) -> str:
    return f"{case[0]}-{case[1]}"


@pytest.mark.instruction("Exp", "Ln", "Abs", "Sqrt", "Reciprocal", "Not", "Adds", "Muls", "Maxs",
                         "Mins", "Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or")
@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_count_form(case: tuple[str, DType], count: int) -> None:
    name, dtype = case
    spec = SPECS[name]
    dt = NP_OF[dtype]
    n_src = 2 if spec.form == "binary" else 1
    srcs = list(make_inputs(dt, n_src, spec.domain))
    scalar = COUNT_SCALAR[dt] if spec.form == "scalar" else None
    got, run = run_count_form(spec, dtype, srcs, count, scalar)
    want = reference(spec, [s[:count] for s in srcs], scalar)
    assert_same_bits(got, want, f"{name}<{dtype}> count {count}")
    # the record: one V instruction with the dtype, count and exact byte ranges
    rec = run.decoded(0)[-1]
    nb = count * dt.itemsize
    assert (rec.name, rec.pipe_name, rec.dtype, rec.count) == (name, "V", dtype, count)
    assert rec.repeats == (nb + 255) // 256
    ranges = [(a.write, a.start, a.end) for a in rec.accesses]
    assert ranges == [(True, DST, DST + nb)] + [(False, a, a + nb) for a in (SRC0, SRC1)[:n_src]]


def test_half_reference_equals_numpy_float16_ops() -> None:
    """The half reference (exact, then one rounding) equals numpy's float16 ufuncs, which
    compute in float32 and round: double rounding is innocuous for + - * / sqrt at 24 bits."""
    a, b = make_inputs(F16, 2)
    with np.errstate(all="ignore"):
        for uf in (np.add, np.subtract, np.multiply, np.divide):
            assert_same_bits(uf(a, b), _float_exact(uf)(a, b), uf.__name__)
        assert_same_bits(np.sqrt(a), _float_exact(np.sqrt)(a), "sqrt")
        assert_same_bits(np.float16(1.0) / a, _reciprocal(a), "reciprocal")
        # ... and so does widen-to-float32, operate in float32, round to half
        for uf in (np.add, np.subtract, np.multiply, np.divide):
            widened = uf(a.astype(F32), b.astype(F32)).astype(F16)
            assert_same_bits(widened, _float_exact(uf)(a, b), uf.__name__ + " via f32")


def test_numpy_half_max_tie_rule() -> None:
    """numpy's float16 maximum/minimum return src0 on a +0/-0 tie while its float32 ones (and
    ascsim, for both) return src1; every other element agrees with the reference used here."""
    a, b = make_inputs(F16, 2)
    tie = (a == b) & (a.view(np.uint16) != b.view(np.uint16))  # +0 vs -0
    assert tie.sum() == 2
    for uf, ref in ((np.maximum, MAX), (np.minimum, MIN)):
        n, r = uf(a, b), ref(a, b)
        differ = n.view(np.uint16) != r.view(np.uint16)
        differ &= ~(np.isnan(n) & np.isnan(r))
        assert (differ == tie).all()
        z32 = np.array([0.0, -0.0], F32)
        assert_same_bits(uf(z32, z32[::-1]), ref(z32, z32[::-1]), "float32 tie")


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("dtype", ARITH, ids=str)
@pytest.mark.parametrize("name", ["Adds", "Muls", "Maxs", "Mins"])
def test_scalar_specials(name: str, dtype: DType) -> None:
    """The scalar is converted to T first (half: 70000 -> inf, 1e-8 -> 0; int16: 40000 wraps)."""
    dt = NP_OF[dtype]
    if dt.kind == "f":
        scalars = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0 / 3, 1e-8, 70000.0, 3.4e38, 1e-45]
    else:
        scalars = [0, -1, 40000, -40000, 2**31 - 1, 123]
    spec = SPECS[name]
    (src,) = make_inputs(dt, 1)
    for s in scalars:
        got, _ = run_count_form(spec, dtype, [src], 512, s)
        assert_same_bits(got, reference(spec, [src[:512]], s), f"{name}<{dtype}>({s})")


def test_scalar_rounds_to_half_before_the_operation() -> None:
    """Adds<half>(1, 2**-11 + 2**-23): the scalar becomes half 2**-11 first (2**-23 is a
    quarter ulp there), so 1 + 2**-11 is a tie that rounds to even: 0x3C00. Adding the scalar
    unrounded (or as float32) would give 0x3C01."""
    x = np.ones(16, F16)
    got, _ = run_count_form(SPECS["Adds"], half, [x], 16, 2**-11 + 2**-23)
    assert (got.view(np.uint16) == 0x3C00).all()
    got, _ = run_count_form(SPECS["Adds"], half, [x], 16, 2**-11 + 2**-21)
    assert (got.view(np.uint16) == 0x3C01).all()


# ---- Duplicate --------------------------------------------------------------------------------

DUP_CASES = [
    (f32, 0.1, np.uint32, 0x3DCCCCCD), (f32, -0.0, np.uint32, 0x80000000),
    (f32, float("inf"), np.uint32, 0x7F800000), (half, 0.1, np.uint16, 0x2E66),
    (half, -2.0, np.uint16, 0xC000), (bfloat16_t, 0.1, np.uint16, 0x3DCD),
    (bfloat16_t, -1.0, np.uint16, 0xBF80), (int16_t, -5, np.uint16, 0xFFFB),
    (uint16_t, 65535, np.uint16, 0xFFFF), (int32_t, -2**31, np.uint32, 0x80000000),
    (A.uint32_t, 2**32 - 1, np.uint32, 0xFFFFFFFF),
]


@pytest.mark.instruction("Duplicate")
@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize(("dtype", "value", "ubits", "want"), DUP_CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in DUP_CASES])
def test_duplicate(dtype: DType, value: object, ubits: type, want: int, count: int) -> None:
    init = [(DST, np.full(65536, SENTINEL, np.uint8))]
    ub, run = run_ub(lambda ub: A.Duplicate(tensor(ub, DST, dtype), value, count), init)
    size = np.dtype(ubits).itemsize
    assert (ub_array(ub, DST, ubits, count) == want).all()
    assert (ub[DST + count * size:DST + 65536] == SENTINEL).all()
    rec = run.decoded(0)[-1]
    assert (rec.name, rec.pipe_name, rec.count, rec.bytes) == ("Duplicate", "V", count,
                                                               count * size)


def test_duplicate_nan_is_a_nan() -> None:
    ub, _ = run_ub(lambda ub: A.Duplicate(tensor(ub, DST, f32), float("nan"), 64))
    assert np.isnan(ub_array(ub, DST, F32, 64)).all()


# ---- errors -----------------------------------------------------------------------------------

def _call(name: str, dst, srcs, count, scalar=1):
    fn = getattr(A, name)
    form = SPECS[name].form if name in SPECS else "dup"
    if form == "dup":
        return fn(dst, scalar, count)
    if form == "scalar":
        return fn(dst, srcs[0], scalar, count)
    if form == "unary":
        return fn(dst, srcs[0], count)
    return fn(dst, srcs[0], srcs[1], count)


BAD_DTYPES = [("Exp", int16_t), ("Ln", int32_t), ("Abs", int16_t), ("Sqrt", bfloat16_t),
              ("Reciprocal", int32_t), ("Not", half), ("Not", f32), ("Adds", bfloat16_t),
              ("Adds", uint16_t), ("Muls", int8_t), ("Maxs", bfloat16_t), ("Add", bfloat16_t),
              ("Add", uint8_t), ("Sub", uint16_t), ("Mul", bfloat16_t), ("Div", int32_t),
              ("Div", int16_t), ("Max", bfloat16_t), ("Min", uint16_t), ("And", f32),
              ("And", half), ("Or", int32_t), ("Duplicate", int8_t), ("Duplicate", uint8_t),
              ("Duplicate", A.int64_t)]


@pytest.mark.parametrize(("name", "dtype"), BAD_DTYPES, ids=[f"{n}-{t}" for n, t in BAD_DTYPES])
def test_dtype_not_allowed(name: str, dtype: DType) -> None:
    def body(ub):
        with pytest.raises(ParameterError, match=name):
            _call(name, tensor(ub, DST, dtype), [tensor(ub, SRC0, dtype), tensor(ub, SRC1, dtype)],
                  64)
    _, run = run_ub(body)
    assert run.cores[0].records == []   # nothing was issued


@pytest.mark.parametrize("name", ["Add", "Adds", "Exp"])
def test_mixed_dtypes_rejected(name: str) -> None:
    def body(ub):
        with pytest.raises(ParameterError, match="share one dtype"):
            _call(name, tensor(ub, DST, f32), [tensor(ub, SRC0, half), tensor(ub, SRC1, f32)], 64)
    run_ub(body)


def _roles(ops: dict[str, int]) -> list[tuple[str, int]]:
    return [(name, role) for name, n in ops.items() for role in range(n)]


@pytest.mark.parametrize(("name", "role"), _roles({"Add": 3, "Muls": 2, "Sqrt": 2,
                                                   "Duplicate": 1}))
def test_misaligned_operand(name: str, role: int) -> None:
    addrs = [DST, SRC0, SRC1]
    addrs[role] += 16   # a multiple of the element size, not of 32 bytes

    def body(ub):
        t = [tensor(ub, a, f32) for a in addrs]
        with pytest.raises(AlignmentError, match=f"UB address {addrs[role]}.*32-byte"):
            _call(name, t[0], t[1:], 64)
    run_ub(body)


@pytest.mark.parametrize(("name", "role"), _roles({"Sub": 3, "Mins": 2, "Ln": 2,
                                                   "Duplicate": 1}))
def test_count_larger_than_tensor(name: str, role: int) -> None:
    sizes = [128, 128, 128]
    sizes[role] = 64

    def body(ub):
        t = [tensor(ub, a, f32, n) for a, n in zip((DST, SRC0, SRC1), sizes, strict=True)]
        _call(name, t[0], t[1:], 64)   # fits exactly
        with pytest.raises(OutOfRangeError, match="count 65 .*larger than the tensor size"):
            _call(name, t[0], t[1:], 65)
    run_ub(body)


def test_negative_count() -> None:
    def body(ub):
        with pytest.raises(ParameterError, match="negative"):
            A.Add(tensor(ub, DST, f32), tensor(ub, SRC0, f32), tensor(ub, SRC1, f32), -1)
    run_ub(body)


# ---- in-place and overlapping operands --------------------------------------------------------

OVERLAP_CASES = [
    # (name, dst offset, src0 offset, src1 offset) in elements of a float region at SRC0
    ("Add", 0, 0, 0),        # fully in place, both sources
    ("Add", 8, 0, 512),      # dst starts one block after src0: partial overlap
    ("Add", 0, 8, 512),      # src0 starts one block after dst
    ("Mul", 16, 512, 0),     # src1 partially overlaps dst
    ("Sub", 24, 8, 0),       # both sources partially overlap dst
    ("Exp", 0, 0, None),     # unary in place
    ("Exp", 8, 0, None),     # unary partial
    ("Adds", 40, 0, None),   # tensor-scalar partial
    ("Maxs", 0, 40, None),
]


@pytest.mark.parametrize("case", OVERLAP_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}-{c[3]}")
def test_overlap_reads_sources_before_writing(case: tuple) -> None:
    """Hardware reads a repeat's sources before it writes (§4.2): the result equals the op on a
    snapshot of the sources, whatever the overlap."""
    name, do, ao, bo = case
    spec = SPECS[name]
    count = 200
    rng = np.random.default_rng(5)
    region = rng.uniform(-3, 3, 1024).astype(F32)
    srcs = [region[ao:ao + count]] + ([] if bo is None else [region[bo:bo + count]])
    want = reference(spec, srcs, 0.5)
    expect = region.copy()
    expect[do:do + count] = want

    def body(ub):
        base = tensor(ub, SRC0, f32)
        args = [base[ao]] + ([] if bo is None else [base[bo]])
        if spec.form == "scalar":
            args.append(0.5)
        getattr(A, name)(base[do], *args, count)

    ub, _ = run_ub(body, [(SRC0, region)])
    assert_same_bits(ub_array(ub, SRC0, F32, 1024), expect, name)


# ---- the high-dimension form ------------------------------------------------------------------

def mask_bits(mask: object, per_repeat: int) -> np.ndarray:
    """Which of a repeat's elements are enabled: a continuous count or uint64_t mask[2]."""
    if isinstance(mask, (list, tuple)):
        value = int(mask[0]) | int(mask[1]) << 64
        return np.array([(value >> j) & 1 for j in range(per_repeat)], bool)
    return np.arange(per_repeat) < int(mask)


def ref_high_dim(ub: np.ndarray, spec_ref: Callable, dt: np.dtype, dst: int,
                 srcs: list[int], mask: object, repeat: int, blk: tuple[int, ...],
                 rep: tuple[int, ...]) -> np.ndarray:
    """Expected UB bytes after a high-dimension call, from byte addresses (§4.1).

    `blk`/`rep` list the dst stride first, then one per source, in 32-byte DataBlocks."""
    out = ub.copy()
    size = dt.itemsize
    per_block = 32 // size
    enabled = np.flatnonzero(mask_bits(mask, 8 * per_block))

    def byte_of(base: int, operand: int, r: int, j: int) -> int:
        block = j // per_block
        return base + (r * rep[operand] + block * blk[operand]) * 32 + (j % per_block) * size

    for r in range(repeat):
        values = []
        for i, base in enumerate(srcs):
            addrs = [byte_of(base, i + 1, r, j) for j in enabled]
            values.append(np.array([out[a:a + size].view(dt)[0] for a in addrs], dt))
        result = spec_ref(*values).astype(dt)
        for k, j in enumerate(enabled):
            a = byte_of(dst, 0, r, j)
            out[a:a + size] = result[k:k + 1].view(np.uint8)
    return out


def _scalar_ref(spec: Spec, scalar: object) -> Callable:
    return lambda x: spec.ref(x, scalar_in(x.dtype, scalar))


HIGH_DIM_CASES = [
    # name, dtype, mask, repeat, (dst, src0[, src1]) block strides, repeat strides
    ("Add", f32, 64, 3, (1, 1, 1), (8, 8, 8)),
    ("Add", f32, 37, 4, (2, 1, 3), (16, 8, 24)),
    ("Sub", half, [0xF0F0_1234_8000_0001, 0x8000_0000_0000_FFFF], 5, (1, 2, 1), (8, 16, 8)),
    ("Max", f32, [0xFFFF_0000_FFFF_0001, 0], 4, (1, 1, 1), (8, 4, 8)),   # src0 repeats overlap
    ("Mul", int16_t, 128, 3, (1, 0, 1), (8, 8, 0)),    # src0 reuses block 0; src1 re-read
    ("Adds", half, [0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210], 5, (1, 2), (8, 16)),
    ("Muls", int32_t, 20, 6, (3, 1), (24, 8)),
    ("Exp", f32, [0xF0F0_F0F0_F0F0_F0F0, 0], 4, (1, 1), (8, 0)),  # every repeat reads the same
    ("Abs", half, 100, 3, (1, 1), (10, 8)),            # continuous mask across mask[0]/mask[1]
    ("Not", uint16_t, [2**64 - 1, 1], 2, (2, 1), (16, 8)),
    ("Div", f32, 1, 5, (1, 1, 1), (1, 8, 8)),         # dst repeat stride 1 block
    ("Adds", f32, 0, 3, (1, 1), (8, 8)),               # mask 0: nothing changes
    ("Add", f32, 64, 0, (1, 1, 1), (8, 8, 8)),         # repeatTime 0: nothing changes
]


@pytest.mark.instruction("Add", "Sub", "Max", "Mul", "Adds", "Muls", "Exp", "Abs", "Not", "Div")
@pytest.mark.parametrize("case", HIGH_DIM_CASES, ids=lambda c: f"{c[0]}-{c[1]}-r{c[3]}")
def test_high_dim_form(case: tuple) -> None:
    name, dtype, mask, repeat, blk, rep = case
    spec = SPECS[name]
    dt = NP_OF[dtype]
    n_src = 2 if spec.form == "binary" else 1
    rng = np.random.default_rng(7)
    region = 16384
    # dst is pre-filled with values, so that masked-off elements are visibly kept
    data = [random_values(dt, region // dt.itemsize, rng) for _ in range(3)]
    init = [(DST, data[0]), (SRC0, data[1]), (SRC1, data[2])]
    ub_before = np.full(196608, 0xFF, np.uint8)
    for addr, arr in init:
        ub_before[addr:addr + region] = arr.view(np.uint8)
    scalar = 1.25 if dt.kind == "f" else -7

    def body(ub):
        srcs = [tensor(ub, a, dtype) for a in (SRC0, SRC1)[:n_src]]
        if spec.form == "binary":
            params = A.BinaryRepeatParams(*blk, *rep)
        else:
            params = A.UnaryRepeatParams(*blk, *rep)
        extra = [scalar] if spec.form == "scalar" else []
        getattr(A, name)(tensor(ub, DST, dtype), *srcs, *extra, mask, repeat, params)

    ub, run = run_ub(body, init)
    fn = _scalar_ref(spec, scalar) if spec.form == "scalar" else spec.ref
    want = ref_high_dim(ub_before, fn, dt, DST, [SRC0, SRC1][:n_src], mask, repeat, blk, rep)
    assert_same_bits(ub[:SRC1 + region].view(dt), want[:SRC1 + region].view(dt), name)
    rec = run.decoded(0)[-1]
    assert rec.repeats == repeat and rec.accesses[0].write and rec.accesses[0].strided


def test_high_dim_in_place() -> None:
    """Adds(x, x, s, mask, repeat, params) in place over repeats that do not overlap."""
    x = np.arange(256, dtype=F32)

    def body(ub):
        t = tensor(ub, SRC0, f32)
        A.Adds(t, t, 0.5, [0xAAAA_AAAA_AAAA_AAAA, 0], 4, A.UnaryRepeatParams())

    ub, _ = run_ub(body, [(SRC0, x)])
    want = x.copy()
    want[1::2] += 0.5
    assert_same_bits(ub_array(ub, SRC0, F32, 256), want)


@pytest.mark.instruction("Duplicate")
@pytest.mark.parametrize("dtype", [half, bfloat16_t, f32, int32_t], ids=str)
def test_duplicate_high_dim(dtype: DType) -> None:
    dt = BF16 if dtype is bfloat16_t else NP_OF[dtype]
    per_repeat = 256 // dt.itemsize
    mask = [0x8000_0000_0000_0001, 0x8000_0000_0000_0001 if per_repeat == 128 else 0]
    init = [(DST, np.zeros(16384, np.uint8))]
    ub, _ = run_ub(lambda ub: A.Duplicate(tensor(ub, DST, dtype), 3, mask, 3, 2, 16), init)
    got = ub_array(ub, DST, dt, 16384 // dt.itemsize)
    want = np.zeros_like(got)
    per_block = 32 // dt.itemsize
    for r in range(3):
        for j in np.flatnonzero(mask_bits(mask, per_repeat)):
            want[r * 16 * per_block + (j // per_block) * 2 * per_block + j % per_block] = 3
    assert_same_bits(got, want)


HIGH_DIM_ERRORS = [
    ("repeatTime 256", f32, 64, 256, (1, 1, 1), ParameterError, "repeatTime 256"),
    ("negative repeat", f32, 64, -1, (1, 1, 1), ParameterError, "repeatTime"),
    ("dstBlkStride 0", f32, 64, 1, (0, 1, 1), ParameterError, "dstBlkStride 0"),
    ("mask 65 float", f32, 65, 1, (1, 1, 1), ParameterError, "mask 65"),
    ("mask 129 half", half, 129, 1, (1, 1, 1), ParameterError, "mask 129"),
    ("negative mask", half, -1, 1, (1, 1, 1), ParameterError, "mask -1"),
    ("mask[1] float", f32, [1, 1], 1, (1, 1, 1), ParameterError, r"mask\[1\]"),
    ("three-word mask", f32, [1, 0, 0], 1, (1, 1, 1), ParameterError, "mask"),
]


@pytest.mark.parametrize("case", HIGH_DIM_ERRORS, ids=lambda c: c[0])
def test_high_dim_errors(case: tuple) -> None:
    _, dtype, mask, repeat, blk, exc, match = case

    def body(ub):
        t = [tensor(ub, a, dtype) for a in (DST, SRC0, SRC1)]
        with pytest.raises(exc, match=match):
            A.Add(*t, mask, repeat, A.BinaryRepeatParams(*blk, 8, 8, 8))

    _, run = run_ub(body)
    assert run.cores[0].records == []


def test_high_dim_other_errors() -> None:
    def body(ub):
        t = [tensor(ub, a, f32, 512) for a in (DST, SRC0, SRC1)]
        with pytest.raises(ParameterError, match="BinaryRepeatParams"):
            A.Add(*t, 64, 1, A.UnaryRepeatParams())
        with pytest.raises(ParameterError, match="UnaryRepeatParams"):
            A.Exp(t[0], t[1], 64, 1, A.BinaryRepeatParams())
        with pytest.raises(ParameterError, match="dstBlkStride 0"):
            A.Exp(t[0], t[1], 64, 1, A.UnaryRepeatParams(0, 1, 8, 8))
        with pytest.raises(ParameterError, match="dstBlockStride 0"):
            A.Duplicate(t[0], 1.0, 64, 1, 0, 8)
        with pytest.raises(ParameterError, match="repeatTime 256"):
            A.Duplicate(t[0], 1.0, 64, 256, 1, 8)
        # 512 floats = 8 repeats; the 9th runs past src1
        A.Add(*t, 64, 8, A.BinaryRepeatParams())
        with pytest.raises(OutOfRangeError):
            A.Add(*t, 64, 9, A.BinaryRepeatParams())
        with pytest.raises(AlignmentError):
            A.Add(t[0], t[1][4], t[2], 64, 1, A.BinaryRepeatParams())
    run_ub(body)
