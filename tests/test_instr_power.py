"""Power (power.py) against an independent reference: the IEEE 754 / C99 Annex F special cases
written out here by hand, everything else |x| ** y in mpmath at 200 bits, signed by hand,
rounded to float32 nearest-even by integer arithmetic (half: that float32 rounded to half by
numpy). All three operand forms, half and float, with and without sharedTmpBuffer; the
minimum tmp sizes, the record (PIPE_V, the form, the clobbered tmp bytes), the mask state,
the sanitizer's view of the tmp."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from conftest import assert_same_bits, custom_profile, gtensor, run_ub, tensor

import ascsim
import ascsim.ascendc as A
from ascsim import records as rec
from ascsim.ascendc import QuePosition, TBuf, TPipe, uint8_t
from ascsim.core import PIPE_V, current_core
from ascsim.errors import AlignmentError, OutOfRangeError, ParameterError
from ascsim.instructions.power import power_tmp_used
from ascsim.registry import REGISTRY, by_name

pytestmark = pytest.mark.instruction("Power")

F32, F16 = np.float32, np.float16
DST, SRC0, SRC1, TMP = 0, 16384, 32768, 49152
USED = 65536  # the TPipe's buffers end here; the free UB starts here


# ---- the reference -------------------------------------------------------------------------

def _odd_int(y: float) -> bool:
    return math.isfinite(y) and y == math.floor(y) and math.fmod(y, 2.0) != 0


def _round_f32(v: mpmath.mpf) -> float:
    """A positive mpf to the nearest float32 (ties to even), by integer arithmetic on its
    mantissa and exponent: quantum 2**(E - 23), at least 2**-149; 2**128 and above is inf."""
    man, exp = int(v.man), int(v.exp)
    e_top = exp + man.bit_length() - 1  # 2**e_top <= v < 2**(e_top + 1)
    if e_top >= 128:
        return math.inf
    if e_top < -150:  # below half the smallest subnormal
        return 0.0
    q = max(e_top - 23, -149)
    if exp >= q:
        n = man << (exp - q)
    else:
        s = q - exp
        n, rem = man >> s, man & ((1 << s) - 1)
        half = 1 << (s - 1)
        if rem > half or (rem == half and n & 1):
            n += 1
    if n.bit_length() + q > 128:
        return math.inf
    return math.ldexp(n, q)


def pow_ref(x: float, y: float) -> float:
    """powf(x, y), correctly rounded to float32, from C99 F.9.4.4 and mpmath."""
    if y == 0 or x == 1:
        return 1.0
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if math.isinf(y):
        if x == -1:
            return 1.0
        return math.inf if (abs(x) > 1) == (y > 0) else 0.0
    if x == 0:
        sign = -1.0 if math.copysign(1, x) < 0 and _odd_int(y) else 1.0
        return sign * (math.inf if y < 0 else 0.0)
    if math.isinf(x):
        sign = -1.0 if x < 0 and _odd_int(y) else 1.0
        return sign * (0.0 if y < 0 else math.inf)
    if x < 0 and y != math.floor(y):
        return math.nan
    with mpmath.workprec(200):
        mag = mpmath.power(mpmath.mpf(abs(x)), mpmath.mpf(y))
        r = _round_f32(mag) if mag != 0 else 0.0
    return -r if x < 0 and _odd_int(y) else r


def ref(x: np.ndarray, y: np.ndarray, np_t: type) -> np.ndarray:
    with np.errstate(all="ignore"):  # signalling NaN bit patterns among the inputs
        xs, ys = x.astype(np.float64).tolist(), y.astype(np.float64).tolist()
        out = np.array([pow_ref(a, b) for a, b in zip(xs, ys, strict=True)], np.float64)
        return out.astype(F32).astype(np_t)  # float32 exact; then half nearest-even


def test_reference_rounding_by_hand() -> None:
    """The integer rounding itself: ties to even, the subnormal quantum, overflow."""
    assert _round_f32(mpmath.mpf(2**24 + 1)) == 2**24          # tie -> even
    assert _round_f32(mpmath.mpf(2**24 + 3)) == 2**24 + 4      # tie -> even (up)
    assert _round_f32(mpmath.mpf(2) ** -150) == 0.0            # half the smallest: to even 0
    assert _round_f32(mpmath.mpf(3) * mpmath.mpf(2) ** -151) == 2.0**-149  # 0.75 ulp: up
    assert _round_f32(mpmath.mpf(2) ** 128) == math.inf
    big = (2**24 - 1) * mpmath.mpf(2) ** 104                   # FLT_MAX itself
    assert _round_f32(big) == float(np.finfo(F32).max)
    assert _round_f32(big + mpmath.mpf(2) ** 103) == math.inf  # its tie rounds to 2**128


# ---- kernels -------------------------------------------------------------------------------

def launch(body, init, sanitize: str = "off") -> ascsim.Run:
    """Run `body(ub)` with the TPipe's buffers ending at USED (the free UB starts there)."""
    return run_ub(body, init, pipe_bytes=USED, sanitize=sanitize)[1]


t = tensor  # a LocalTensor<dt> at a UB byte address


def run_power(dt, np_t, x, y, form: str, with_tmp: bool = True, tmp_bytes: int = 4096):
    """Power over x, y (arrays; for a scalar form the scalar side is a Python float)."""
    n = len(x) if form != "scalar-tensor" else len(y)

    def body(ub):
        a = t(ub, SRC0, dt) if form != "scalar-tensor" else x
        b = t(ub, SRC1, dt) if form != "tensor-scalar" else y
        tmp = (t(ub, TMP, uint8_t, tmp_bytes),) if with_tmp else ()
        A.Power(t(ub, DST, dt), a, b, *tmp, n)
    init = []
    if form != "scalar-tensor":
        init.append((SRC0, np.asarray(x, np_t)))
    if form != "tensor-scalar":
        init.append((SRC1, np.asarray(y, np_t)))
    run = launch(body, init)
    return run.cores[0].ub[DST:DST + n * np.dtype(np_t).itemsize].view(np_t).copy(), run


# ---- the special cases, by hand ------------------------------------------------------------

INF, NAN = math.inf, math.nan
HAND = [  # (x, y, powf(x, y)) from C99 F.9.4.4, written out
    (NAN, 0.0, 1.0), (NAN, -0.0, 1.0), (INF, 0.0, 1.0), (-0.0, 0.0, 1.0), (-7.0, -0.0, 1.0),
    (1.0, NAN, 1.0), (1.0, INF, 1.0), (1.0, -INF, 1.0), (1.0, -3.5, 1.0),
    (NAN, 2.0, NAN), (2.0, NAN, NAN), (-1.0, NAN, NAN), (NAN, NAN, NAN),
    (-1.0, INF, 1.0), (-1.0, -INF, 1.0),
    (0.5, INF, 0.0), (0.5, -INF, INF), (-0.5, INF, 0.0), (-0.5, -INF, INF),
    (2.0, INF, INF), (2.0, -INF, 0.0), (-2.0, INF, INF), (-2.0, -INF, 0.0),
    (0.0, -3.0, INF), (-0.0, -3.0, -INF), (-0.0, -2.0, INF), (-0.0, -0.5, INF),
    (-0.0, -INF, INF), (0.0, -INF, INF),
    (0.0, 3.0, 0.0), (-0.0, 3.0, -0.0), (-0.0, 2.0, 0.0), (-0.0, 0.5, 0.0), (-0.0, INF, 0.0),
    (-INF, -3.0, -0.0), (-INF, -2.0, 0.0), (-INF, -0.5, 0.0),
    (-INF, 3.0, -INF), (-INF, 2.0, INF), (-INF, 0.5, INF),
    (INF, -1.0, 0.0), (INF, 0.5, INF),
    (-2.0, 0.5, NAN), (-8.0, 1.0 / 3.0, NAN), (-1e-30, 2.5, NAN),
    (-2.0, 3.0, -8.0), (-2.0, 2.0, 4.0), (-2.0, -1.0, -0.5), (-3.0, 2.0**24, INF),
    (-0.5, 2.0**24 + 2, 0.0),                    # huge even integer: + sign
    (2.0, 128.0, INF), (-2.0, 127.0, -(2.0**127)), (-2.0, 129.0, -INF),
    (2.0, -149.0, 2.0**-149), (2.0, -150.0, 0.0), (-2.0, -149.0, -(2.0**-149)),
    (2.0, -126.0, 2.0**-126), (4.0, 0.5, 2.0), (0.25, -0.5, 2.0), (10.0, 39.0, INF),
    (10.0, 38.5, float(F32(3.1622776601683794e38))),  # 10**38.5 (decimal digits) -> f32
    (2.0**-149, 0.5, 2.0**-75 * float(F32(math.sqrt(2)))),  # sqrt(2) * 2**-75: normal
    (4097.0, 2.0, 16785408.0),                   # 4097**2 = 2**24 + 8193: to even
    (4099.0, 2.0, 16801800.0),                   # 16801801: a tie, to even (down)
]


def test_hand_table_agrees_with_the_reference() -> None:
    """The hand table and pow_ref are two independent statements of the same rules."""
    for x, y, want in HAND:
        got = pow_ref(x, y)
        assert (math.isnan(got) and math.isnan(want)) or \
            (got == want and math.copysign(1, got) == math.copysign(1, want)), (x, y, got)


@pytest.mark.parametrize("with_tmp", [True, False])
def test_special_cases_float(with_tmp) -> None:
    x = np.array([c[0] for c in HAND], F32)
    y = np.array([c[1] for c in HAND], F32)
    want = np.array([c[2] for c in HAND], F32)
    got, _ = run_power(A.float, F32, x, y, "tensor-tensor", with_tmp)
    assert_same_bits(got, want, "Power<float> special cases")


def test_special_cases_scalar_forms() -> None:
    x = np.array([NAN, INF, -0.0, 5.0, -2.0, 2.0**-149], F32)
    got, _ = run_power(A.float, F32, x, 0.0, "tensor-scalar")
    assert_same_bits(got, np.ones(6, F32), "x ** 0")
    got, _ = run_power(A.float, F32, x, -3.0, "tensor-scalar")
    assert_same_bits(got, np.array([NAN, 0.0, -INF, 0.008, -0.125, INF], F32), "x ** -3")
    y = np.array([NAN, INF, -INF, 3.0, -0.5, 0.0], F32)
    got, _ = run_power(A.float, F32, 1.0, y, "scalar-tensor")
    assert_same_bits(got, np.ones(6, F32), "1 ** y")
    y = np.array([-3.0, -2.0, 3.0, 2.0, -INF, -0.5], F32)
    got, _ = run_power(A.float, F32, -0.0, y, "scalar-tensor")
    assert_same_bits(got, np.array([-INF, INF, -0.0, 0.0, INF, INF], F32), "-0 ** y")
    got, _ = run_power(A.float, F32, -2.0, np.array([0.5, 3.0, -2.0, 200.0], F32),
                       "scalar-tensor")
    assert_same_bits(got, np.array([NAN, -8.0, 0.25, INF], F32), "-2 ** y")


def test_special_cases_half() -> None:
    """half: widened exactly, powf in fp32, rounded to half; 2**16 overflows half (max 65504),
    2**-24 is half's smallest subnormal, 2**-25 a tie that rounds to even (0)."""
    x = np.array([NAN, 1.0, -0.0, -2.0, 2.0, 2.0, 2.0, 3.0, 255.0, -1.0], F16)
    y = np.array([0.0, NAN, -3.0, 0.5, 16.0, -24.0, -25.0, 2.0, 2.0, -INF], F16)
    want = np.array([1.0, 1.0, -INF, NAN, INF, 2.0**-24, 0.0, 9.0, 65024.0, 1.0], F16)
    got, _ = run_power(A.half, F16, x, y, "tensor-tensor")
    assert_same_bits(got, want, "Power<half> special cases")


# ---- random inputs against mpmath ------------------------------------------------------------

def _operands(np_t: type, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every float class: random bit patterns (NaN, inf, subnormals), moderate bases and
    exponents, negative bases with integer exponents, subnormal bases, exponents near 0 and 1."""
    rng = np.random.default_rng(seed)
    u = np.uint32 if np_t is F32 else np.uint16
    bits = rng.integers(0, np.iinfo(u).max, n, dtype=np.int64, endpoint=True).astype(u)
    x, y = bits.view(np_t).copy(), rng.permutation(bits).view(np_t).copy()
    q = n // 6
    x[q:2 * q] = rng.uniform(-4, 4, q)
    y[q:2 * q] = rng.uniform(-12, 12, q)
    x[2 * q:3 * q] = -rng.uniform(0.1, 30, q)
    y[2 * q:3 * q] = rng.integers(-40, 40, q)
    x[3 * q:4 * q] = rng.uniform(0, 2, q) * np.finfo(np_t).smallest_normal
    y[3 * q:4 * q] = rng.uniform(-1.5, 1.5, q)
    x[4 * q:5 * q] = rng.uniform(0, 100, q)
    y[4 * q:5 * q] = rng.uniform(-1, 1, q) ** 3
    return x, y


@pytest.mark.parametrize("dt,np_t", [(A.float, F32), (A.half, F16)], ids=str)
@pytest.mark.parametrize("with_tmp", [True, False])
def test_tensor_tensor_random(dt, np_t, with_tmp) -> None:
    x, y = _operands(np_t, 1200, 1)
    got, _ = run_power(dt, np_t, x, y, "tensor-tensor", with_tmp)
    assert_same_bits(got, ref(x, y, np_t), f"Power<{dt}>(tensor, tensor)")


@pytest.mark.parametrize("dt,np_t", [(A.float, F32), (A.half, F16)], ids=str)
@pytest.mark.parametrize("s", [2.0, -0.5, 3.0, 0.333251953125, -1.0, 0.0, INF, NAN])
def test_tensor_scalar_random(dt, np_t, s) -> None:
    x, _ = _operands(np_t, 500, 2)
    got, _ = run_power(dt, np_t, x, s, "tensor-scalar")
    assert_same_bits(got, ref(x, np.full(len(x), s, np_t), np_t), f"Power<{dt}>(x, {s})")


@pytest.mark.parametrize("dt,np_t", [(A.float, F32), (A.half, F16)], ids=str)
@pytest.mark.parametrize("s", [2.0, -2.0, 0.5, 10.0, -0.0, 1.0, -INF, NAN])
def test_scalar_tensor_random(dt, np_t, s) -> None:
    _, y = _operands(np_t, 500, 3)
    got, _ = run_power(dt, np_t, s, y, "scalar-tensor", with_tmp=False)
    assert_same_bits(got, ref(np.full(len(y), s, np_t), y, np_t), f"Power<{dt}>({s}, y)")


def test_in_place_and_templated() -> None:
    x, y = _operands(F32, 300, 4)

    def body(ub):
        d = t(ub, SRC0, A.float)
        A.Power[A.float](d, d, t(ub, SRC1, A.float), t(ub, TMP, uint8_t, 2048), 300)
        A.Power[A.float, False](t(ub, DST, A.float), d, 2.0, t(ub, TMP, uint8_t, 2048), 300)
    run = launch(body, [(SRC0, x), (SRC1, y)])
    ub = run.cores[0].ub
    first = ref(x, y, F32)
    assert_same_bits(ub[SRC0:SRC0 + 1200].view(F32), first, "in place")
    assert_same_bits(ub[DST:DST + 1200].view(F32), ref(first, np.full(300, 2, F32), F32),
                     "templated")


# ---- record, tmp, mask, errors ---------------------------------------------------------------

def test_record_tmp_write_and_mask_state() -> None:
    """One Power row per call on PIPE_V: MODE = the operand form, accesses dst (W), the tmp
    bytes used (W: 256 + 1280 B per 64 floats / 1792 B per 128 halves, up to the tmp), the
    tensor sources; the mask register ends as Normal + full."""
    def body(ub):
        A.SetVectorMask[A.float](0, 5)
        A.Power(t(ub, DST, A.float), t(ub, SRC0, A.float), t(ub, SRC1, A.float),
                t(ub, TMP, uint8_t, 4096), 100)
        assert current_core().vmask is None
        A.Power(t(ub, DST, A.float), t(ub, SRC0, A.float), 2.0, t(ub, TMP, uint8_t, 4096),
                1000)
        A.Power(t(ub, DST, A.half), 3.0, t(ub, SRC1, A.half), t(ub, TMP, uint8_t, 4096), 100)
        A.Power(t(ub, DST, A.half), t(ub, SRC0, A.half), t(ub, SRC1, A.half), 0)
    run = launch(body, [])
    rows = [r for r in run.cores[0].records if REGISTRY[r[rec.OP]].name == "Power"]
    assert [r[rec.PIPE] for r in rows] == [PIPE_V] * 4
    assert [r[rec.MODE] for r in rows] == [0, 1, 2, 0]
    assert [r[rec.REPEATS] for r in rows] == [2, 16, 1, 0]
    acc = [[(a[0], a[2], a[3]) for a in rec.accesses_of(r)] for r in rows]
    assert acc[0] == [(rec.W, DST, DST + 400), (rec.W, TMP, TMP + 256 + 2 * 1280),
                      (0, SRC0, SRC0 + 400), (0, SRC1, SRC1 + 400)]
    assert acc[1] == [(rec.W, DST, DST + 4000), (rec.W, TMP, TMP + 4096),
                      (0, SRC0, SRC0 + 4000)]
    assert acc[2] == [(rec.W, DST, DST + 200), (rec.W, TMP, TMP + 256 + 1792),
                      (0, SRC1, SRC1 + 200)]
    assert acc[3][1] == (rec.W, USED, USED)  # the free UB; count 0 uses none of it
    assert rows[1][rec.SCALAR] == 0x40000000 and rows[2][rec.SCALAR] == 0x4200
    assert power_tmp_used(A.half, 129, 10**6) == 256 + 2 * 1792


def test_sanitizer_sees_the_tmp_written_and_no_false_taint() -> None:
    """The tmp is fresh (uninitialised) UB: Power must not taint dst through it, and the tmp
    bytes it wrote are defined; only the copy of never-written UB is reported."""
    def kernel(out) -> None:
        pipe = TPipe()
        buf = TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(buf, USED)
        ub = buf.Get[uint8_t]()
        A.Duplicate(t(ub, SRC0, A.float), 2.0, 64)
        A.Duplicate(t(ub, SRC1, A.float), 3.0, 64)
        A.Power(t(ub, DST, A.float), t(ub, SRC0, A.float), t(ub, SRC1, A.float),
                t(ub, TMP, uint8_t, 2048), 64)
        A.Adds(t(ub, DST + 4096, A.float), t(ub, TMP, A.float), 1.0, 64)  # written by Power
        A.Adds(t(ub, DST + 8192, A.float), t(ub, TMP + 4096, A.float), 1.0, 64)  # never
        A.SetFlag[A.HardEvent.V_MTE3](A.EVENT_ID0)
        A.WaitFlag[A.HardEvent.V_MTE3](A.EVENT_ID0)
        g = gtensor(out, A.float)
        for k, addr in enumerate((DST, DST + 4096, DST + 8192)):
            A.DataCopy(g[64 * k], t(ub, addr, A.float), 64)
    out = np.zeros(192, F32)
    run = ascsim.launch(kernel, 1, out, sanitize="check", outputs=(0,))
    assert [(f.check, f.start, f.end) for f in run.findings] == [
        ("uninitialised value reaches GM", 512, 768)]
    assert (out[:64] == 8).all()


@pytest.mark.parametrize("dt,need", [(A.float, 1536), (A.half, 2048)], ids=str)
def test_minimum_tmp(dt, need) -> None:
    np_t = F32 if dt is A.float else F16
    x = np.ones(64, np_t)
    with pytest.raises(OutOfRangeError, match=f"Power: the tmp buffer has {need - 32} bytes, "
                                              f"the API needs at least {need}"):
        run_power(dt, np_t, x, x, "tensor-tensor", tmp_bytes=need - 32)
    got, _ = run_power(dt, np_t, x, x, "tensor-tensor", tmp_bytes=need)
    assert (got == 1).all()


def test_errors() -> None:
    def fails(body, err, match):
        with pytest.raises(err, match=match):
            launch(body, [])
    f = A.float
    fails(lambda ub: A.Power(t(ub, DST, A.int32_t), t(ub, SRC0, A.int32_t),
                             t(ub, SRC1, A.int32_t), 64), ParameterError, "float, half")
    fails(lambda ub: A.Power(t(ub, DST, f), t(ub, SRC0, A.half), t(ub, SRC1, f), 64),
          ParameterError, "share one dtype")
    fails(lambda ub: A.Power(t(ub, DST, f), 2.0, 3.0, 64), ParameterError, "both be scalars")
    fails(lambda ub: A.Power(t(ub, DST, f), t(ub, SRC0, f), t(ub, SRC1, f),
                             t(ub, TMP, f), 64), ParameterError, "LocalTensor<uint8_t>")
    fails(lambda ub: A.Power(t(ub, DST, f), t(ub, SRC0, f), t(ub, SRC1, f, 10), 64),
          OutOfRangeError, "src1")
    fails(lambda ub: A.Power(t(ub, DST + 4, f), t(ub, SRC0, f), t(ub, SRC1, f), 64),
          AlignmentError, "aligned")
    fails(lambda ub: A.Power(t(ub, DST, f), t(ub, SRC0, f), t(ub, SRC1, f), 1, 2, 64),
          ParameterError, "expected")
    fails(lambda ub: A.Power[A.half](t(ub, DST, f), t(ub, SRC0, f), t(ub, SRC1, f), 64),
          ParameterError, "Power<half>")
    with pytest.raises(ParameterError, match="isReuseSource"):
        A.Power[f, 3]


def test_profile_option_power_impl(tmp_path) -> None:
    """The model is the profile's power_impl ("powf", its only value): the work's literal
    comes from it, and a profile naming another model is refused."""
    ins = by_name("Power")
    assert ins.cost.table == "Power"
    _, run = run_power(A.float, F32, np.ones(8, F32), 2.0, "tensor-scalar")
    row = next(r for r in run.cores[0].records if r[rec.OP] == ins.id)
    assert ins.work.bind(row, run.profile) == ("scalar", (1, A.float.code, 0))
    assert run.profile.power_impl == "powf"
    with pytest.raises(ascsim.AscsimError, match="power_impl"):
        ascsim.launch(lambda: None, 1,
                      profile=custom_profile(tmp_path, "power_impl", '"pow_exp_log"'))
