"""The profile options that choose the algorithm of Exp, Ln, Sqrt, Reciprocal and Div
(instructions/numerics.py): each alternative, run as a kernel instruction under a profile with
the option changed, equals bit for bit its definition written here again in vectorised numpy
float32 operations, and stays within its stated error bound of mpmath; the default is today's
behaviour; replay under the same profile gives the same bits; `profiles --show` describes the
options; a value outside the schema is refused."""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy as np
import pytest
from conftest import assert_same_bits, custom_profile, run_ub, tensor, ub_array

import ascsim
import ascsim.ascendc as A
from ascsim import records as rec
from ascsim.core import new_ubs
from ascsim.profile import load_profile, profile_names, semantic_options
from ascsim.registry import by_name
from ascsim.replay import replay

F32, F16 = np.float32, np.float16
DST, SRC0, SRC1 = 0, 32768, 65536
N = 4096

# ---- the alternatives, written again in numpy float32 (every operation rounds to float32) ---

LN2_HI = F32(0.693359375)
LN2_LO = F32(math.log(2.0) - 0.693359375)


def exp_ref(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        k = np.rint(x * F32(1.0 / math.log(2.0)))
        r = (x - k * LN2_HI) - k * LN2_LO
        p = np.full_like(x, F32(1.0 / math.factorial(7)))
        for n in range(6, -1, -1):
            p = F32(1.0 / math.factorial(n)) + r * p
        k = np.where(np.isfinite(k), k, 0).astype(np.int64)
        out = np.ldexp(p, k).astype(F32)  # one rounding, also to a subnormal
    out = np.where(x > 89, F32(np.inf), np.where(x < -104, F32(0), out))
    return np.where(np.isnan(x), x, out).astype(F32)


def ln_ref(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        m, e = np.frexp(x)
        low = m < F32(math.sqrt(0.5))
        m = np.where(low, m * F32(2), m).astype(F32)
        ef = (e - low).astype(F32)
        s = (m - F32(1)) / (m + F32(1))
        z = s * s
        q = np.full_like(x, F32(1 / 11))
        for d in (9, 7, 5, 3):
            q = F32(1 / d) + z * q
        s2 = s + s
        out = ef * LN2_HI + ((s2 + s2 * (z * q)) + ef * LN2_LO)
    out = np.where(x == 0, F32(-np.inf), out)
    out = np.where(x < 0, F32(np.nan), out)
    return np.where(np.isnan(x) | (x == np.inf), x, out).astype(F32)


def recip_ref(x: np.ndarray) -> np.ndarray:
    a = np.abs(x)
    inside = (a >= F32(2.0 ** -126)) & (a < F32(2.0 ** 126))
    with np.errstate(all="ignore"):
        m, e = np.frexp(np.where(inside, a, F32(1)))
        i = ((m * F32(2) - F32(1)) * F32(256)).astype(np.int64)
        seed = (1.0 / (1.0 + (i + 0.5) / 256.0)).astype(F32)
        y = np.ldexp(seed, 1 - e).astype(F32)
        y = y * (F32(2) - np.where(inside, a, F32(1)) * y)
        return np.where(inside, np.where(x < 0, -y, y), F32(1) / x).astype(F32)


def div_ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return (a * (F32(1) / b)).astype(F32)


def sqrt_ref(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        r = (1.0 / np.sqrt(x.astype(np.float64))).astype(F32)
        plain = ~((x > 0) & (x < np.inf))
        return np.where(plain, np.sqrt(x), x * r).astype(F32)


SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0 ** -149, 2.0 ** -130,
                    -(2.0 ** -127), 2.0 ** 126, -(2.0 ** 127), 3.0e38, 88.7, 88.8, -87.3,
                    -103.0, -103.9, 1e-7, 0.5, 0.70710677, 0.70710683], dtype=F32)


def _inputs(kind: str, rng: np.random.Generator) -> np.ndarray:
    n = N - SPECIAL.size
    if kind == "exp":
        body = np.concatenate([rng.uniform(-104, 89, n // 2), rng.uniform(-2, 2, n - n // 2)])
    else:
        body = 2.0 ** rng.uniform(-149, 127.9, n) * rng.choice([-1.0, 1.0], n, p=[0.1, 0.9])
    return np.concatenate([SPECIAL, body.astype(F32)])


# name -> (option, alternative, numpy reference, ["exp"|"wide"] inputs, mpmath function,
#          bound: max ULP or, as a negative number, max relative error)
CASES = {
    "Exp": ("exp_impl", "fp32_poly", exp_ref, "exp", mpmath.exp, 2.0),
    "Ln": ("ln_impl", "fp32_poly", ln_ref, "wide", mpmath.log, 3.0),
    "Sqrt": ("sqrt_impl", "rsqrt_mul", sqrt_ref, "wide", mpmath.sqrt, 1.5),
    "Reciprocal": ("reciprocal_impl", "estimate_newton", recip_ref, "wide",
                   lambda v: 1 / v, -(2.0 ** -17)),
}


def _profile(option: str, value: str):
    return dataclasses.replace(load_profile(), **{option: value})


def _run(name: str, profile, *srcs: np.ndarray, dt=A.float, repeat: bool = False):
    np_t = F16 if dt is A.half else F32
    n = srcs[0].size

    def body(ub):
        args = [tensor(ub, a, dt) for a in (DST, SRC0, SRC1)[:1 + len(srcs)]]
        if repeat:
            per = 256 // dt.size
            params = A.BinaryRepeatParams() if len(srcs) == 2 else A.UnaryRepeatParams()
            getattr(A, name)(*args, per, n // per, params)
        else:
            getattr(A, name)(*args, n)

    init = list(zip((SRC0, SRC1), (s.astype(np_t) for s in srcs), strict=False))
    ub, run = run_ub(body, init, profile=profile)
    return ub_array(ub, DST, np_t, n), run


def _ulp_error(got: float, exact: mpmath.mpf) -> float:
    """|got - exact| in units of the float32 spacing at the exact value."""
    ref = F32(float(exact))
    ulp = float(np.spacing(np.abs(ref))) if np.isfinite(ref) else float(np.spacing(F32(3e38)))
    return float(abs(mpmath.mpf(float(got)) - exact) / max(ulp, 2.0 ** -149))


@pytest.mark.parametrize("name", sorted(CASES))
def test_alternative_matches_its_definition_and_bound(name: str) -> None:
    option, value, ref, kind, exact_fn, bound = CASES[name]
    x = _inputs(kind, np.random.default_rng(14))
    got, run = _run(name, _profile(option, value), x)
    assert_same_bits(got, ref(x), f"{name} {value}")
    worst = 0.0
    with mpmath.workprec(120):
        for g, v in zip(got[SPECIAL.size:].tolist(), x[SPECIAL.size:].tolist(), strict=True):
            if v <= 0 and name != "Exp" or name == "Reciprocal" and not 2 ** -126 <= v < 2 ** 126:
                continue
            exact = exact_fn(mpmath.mpf(v))
            if abs(exact) > 3.4e38 or (name == "Exp" and exact < mpmath.mpf(2) ** -126):
                continue  # overflow, and subnormal results (absolute, not relative, error)
            err = (float(abs(mpmath.mpf(g) / exact - 1)) if bound < 0 else
                   _ulp_error(g, exact))
            worst = max(worst, err)
    assert 0 < worst < abs(bound), (name, worst)
    # the default (today's behaviour) differs somewhere on these inputs: the option acts
    default, _ = _run(name, load_profile(), x)
    assert (default.view(np.uint32) != got.view(np.uint32)).any()


def test_div_reciprocal_mul() -> None:
    rng = np.random.default_rng(5)
    a = np.concatenate([SPECIAL, (2.0 ** rng.uniform(-60, 60, N - SPECIAL.size)).astype(F32)])
    b = np.concatenate([SPECIAL[::-1], rng.uniform(-9, 9, N - SPECIAL.size).astype(F32)])
    got, _ = _run("Div", _profile("div_impl", "reciprocal_mul"), a, b)
    assert_same_bits(got, div_ref(a, b), "Div reciprocal_mul")
    with np.errstate(all="ignore"):
        ieee = (a / b).astype(F32)
    default, _ = _run("Div", load_profile(), a, b)
    assert_same_bits(default, ieee, "Div default")
    assert (got.view(np.uint32) != ieee.view(np.uint32)).any()


@pytest.mark.parametrize("name", sorted(CASES))
def test_defaults_are_todays_behaviour(name: str) -> None:
    """The shipped profiles name the default value, whose work is the op's own function."""
    option = CASES[name][0]
    ins = by_name(name)
    x = _inputs(CASES[name][3], np.random.default_rng(1))[:256]
    _, run = _run(name, load_profile(), x)
    row = next(r for r in run.cores[0].records if r[rec.OP] == ins.id)
    default = {"reciprocal_impl": "exact"}.get(option, "correctly_rounded")
    for profile in profile_names():
        assert getattr(load_profile(profile), option) == default
    lit = ins.work.bind(row, run.profile)[1][0]
    alt = ins.work.bind(row, _profile(option, CASES[name][1]))[1][0]
    assert lit != alt


def test_half_repeat_form_and_replay() -> None:
    """half widens to fp32, runs the alternative, rounds to half; the repeat form and a replay
    under the same profile give the same bits as the count form."""
    profile = _profile("exp_impl", "fp32_poly")
    x = np.random.default_rng(3).uniform(-10, 10, 1024).astype(F16)
    want = exp_ref(x.astype(F32)).astype(F16)
    got, _ = _run("Exp", profile, x, dt=A.half)
    assert_same_bits(got, want, "Exp half count form")
    got, run = _run("Exp", profile, x, dt=A.half, repeat=True)
    assert_same_bits(got, want, "Exp half repeat form")
    got, run = _run("Exp", profile, x, dt=A.half)
    rows = [r for r in run.cores[0].records if r[rec.OP] == by_name("Exp").id]
    ub2 = new_ubs(profile, 1)[0]
    ub2[SRC0:SRC0 + x.nbytes] = x.view(np.uint8)
    replay(rows, ub2, [None], profile)
    assert_same_bits(ub_array(ub2, DST, F16, x.size), want, "replay")


def test_unknown_value_is_refused(tmp_path) -> None:
    with pytest.raises(ascsim.AscsimError, match="exp_impl"):
        ascsim.launch(lambda: None, 1,
                      profile=custom_profile(tmp_path, "exp_impl", '"taylor"'))


def test_profiles_show_describes_every_option(capsys) -> None:
    from ascsim.cli import main
    assert main(["profiles", "--show", "Ascend910B2"]) == 0
    out = capsys.readouterr().out
    for key, what in semantic_options().items():
        assert f"semantics.{key} = " in out
        assert what in out, key


# ---- reduce_tree: the adder tree of a sum ---------------------------------------------------

def _seq_sum(vals: np.ndarray) -> np.generic:
    acc = vals[0]
    for x in vals[1:]:
        acc = (acc + x).astype(vals.dtype)
    return acc


def _pair_sum(vals: np.ndarray) -> np.generic:
    v = vals.copy()
    while v.size > 1:
        v = (v[0::2] + v[1::2]).astype(vals.dtype)
    return v[0]


@pytest.mark.parametrize("dt, np_t", [(A.float, F32), (A.half, F16)], ids=["float", "half"])
def test_reduce_tree_sequential(dt, np_t) -> None:
    """WholeReduceSum, BlockReduceSum and the count-form ReduceSum add a repeat's (block's)
    lanes in lane order under reduce_tree = sequential, and pairwise by default."""
    per, epb, reps = 256 // dt.size, 32 // dt.size, 4
    rng = np.random.default_rng(7)
    x = (rng.uniform(0.5, 1.5, per * reps) * 2.0 ** rng.integers(-8, 8, per * reps)).astype(np_t)

    def body(ub):
        src = tensor(ub, SRC0, dt)
        A.WholeReduceSum(tensor(ub, DST, dt, 64), src, per, reps, 1, 1, 8)
        A.BlockReduceSum(tensor(ub, DST + 1024, dt, 8 * reps), src, reps, per, 1, 1, 8)
        A.ReduceSum(tensor(ub, DST + 2048, dt, 16), src, tensor(ub, SRC1, dt, 16), per * reps)

    for tree, total in (("pairwise", _pair_sum), ("sequential", _seq_sum)):
        ub, _ = run_ub(body, [(SRC0, x)], profile=_profile("reduce_tree", tree))
        rows = x.reshape(reps, per)
        whole = np.array([total(r) for r in rows], np_t)
        blocks = np.array([total(b) for b in x.reshape(-1, epb)], np_t)
        acc = whole[0]
        for s in whole[1:]:
            acc = np_t(acc + s)
        assert_same_bits(ub_array(ub, DST, np_t, reps), whole, f"WholeReduceSum {tree}")
        assert_same_bits(ub_array(ub, DST + 1024, np_t, 8 * reps), blocks, f"Block {tree}")
        assert_same_bits(ub_array(ub, DST + 2048, np_t, 1), np.array([acc], np_t), tree)
    assert (np.array([_seq_sum(r) for r in rows], np_t).view(np.uint16 if np_t is F16
            else np.uint32) != np.array([_pair_sum(r) for r in rows], np_t).view(
                np.uint16 if np_t is F16 else np.uint32)).any()
