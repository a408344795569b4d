"""The high-level math APIs (Sigmoid, Tanh, Log, Log2, Log10) against numpy models of the
compositions of ascendc_more.md §5, step by step in the precision each step has: fp32 steps in
float32 (Exp and Ln: float64 rounded once to float32, as ascsim's Exp/Ln), half steps rounded
to half after each instruction. Also: chunking over a small tmp, the free UB used as tmp,
the sub-instructions in the record, the minimum tmp sizes, the end state of the mask."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_bits, run_ub, tensor

import ascsim
import ascsim.ascendc as A
from ascsim import records as rec
from ascsim.ascendc import uint8_t
from ascsim.core import current_core
from ascsim.errors import OutOfRangeError, ParameterError
from ascsim.registry import REGISTRY

F32, F16 = np.float32, np.float16
DST, SRC, TMP = 0, 16384, 32768
USED = 49152  # the TPipe's buffers end here; the free UB starts here


def _inputs(np_t: type, n: int) -> np.ndarray:
    x = np.linspace(-12, 12, n).astype(np_t)
    tiny = np.finfo(np_t).smallest_subnormal
    x[:8] = [np.nan, np.inf, -np.inf, -0.0, 0.0, tiny, -tiny, 100]
    return x


def _exp(x):
    with np.errstate(all="ignore"):
        return np.exp(x.astype(np.float64)).astype(F32)


def _ln(x):
    with np.errstate(all="ignore"):
        return np.log(x.astype(np.float64)).astype(F32)


def ref(name: str, x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if name == "Sigmoid":
            t = x.dtype.type
            d = (x.astype(F32) * F32(-1)).astype(t)
            d = _exp(d.astype(F32)).astype(t)
            d = (d.astype(F32) + F32(1)).astype(t)
            return (F32(1) / d.astype(F32)).astype(t)
        if name == "Tanh":
            v = x.astype(F32)
            v = np.where(np.isnan(v), v, np.minimum(v, F32(8.8)))
            v = np.where(np.isnan(v), v, np.maximum(v, F32(-8.8)))
            e = _exp(v * F32(2))
            return ((e - F32(1)) / (e + F32(1))).astype(x.dtype)
        if name == "Log":
            return _ln(x.astype(F32)).astype(x.dtype)
        c = F32(1 / np.log(2.0)) if name == "Log2" else F32(1 / np.log(10.0))
        return (_ln(x.astype(F32)) * c).astype(x.dtype)


def launch(body, init, sanitize: str = "off") -> ascsim.Run:
    """Run `body(ub)` with the TPipe's buffers ending at USED (the free UB starts there)."""
    return run_ub(body, init, pipe_bytes=USED, sanitize=sanitize)[1]


t = tensor  # a LocalTensor<dt> at a UB byte address


NAMES = ["Sigmoid", "Tanh", "Log", "Log2", "Log10"]


@pytest.mark.instruction("Sigmoid", "Tanh", "Log", "Log2", "Log10")
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dt,np_t", [(A.float, F32), (A.half, F16)], ids=str)
@pytest.mark.parametrize("with_tmp", [True, False])
def test_composition_bits(name, dt, np_t, with_tmp) -> None:
    n = 1000
    x = _inputs(np_t, n)

    def body(ub):
        A.SetVectorMask[dt](0, 5)
        args = (t(ub, TMP, uint8_t, 4096),) if with_tmp else ()
        getattr(A, name)(t(ub, DST, dt), t(ub, SRC, dt), *args, n)
        assert current_core().vmask is None      # Normal mode, full mask
    run = launch(body, [(SRC, x)])
    got = run.cores[0].ub[DST:DST + n * x.itemsize].view(np_t)
    assert_same_bits(got, ref(name, x), f"{name}<{dt}>")


@pytest.mark.instruction("Sigmoid", "Tanh")
def test_chunks_small_tmp_and_records() -> None:
    """A 256-byte tmp makes Sigmoid<float> run 64-element chunks; each chunk records its
    sub-instructions at the kernel's line, after the API's own record."""
    n = 200
    x = _inputs(F32, n)
    run = launch(lambda ub: A.Sigmoid(t(ub, DST, A.float), t(ub, SRC, A.float),
                                      t(ub, TMP, uint8_t, 256), n), [(SRC, x)])
    assert_same_bits(run.cores[0].ub[DST:DST + 4 * n].view(F32), ref("Sigmoid", x))
    names = [REGISTRY[r[rec.OP]].name for r in run.cores[0].records]
    names = names[names.index("Sigmoid"):]
    assert names == ["Sigmoid"] + ["Muls", "Exp", "Adds", "Duplicate", "Div"] * 4
    counts = [r[rec.COUNT] for r in run.cores[0].records if REGISTRY[r[rec.OP]].name == "Div"]
    assert counts == [64, 64, 64, 8]


@pytest.mark.instruction("Sigmoid")
def test_free_ub_is_the_tmp_and_is_clobbered() -> None:
    n = 64
    x = _inputs(F32, n)
    run = launch(lambda ub: A.Sigmoid(t(ub, DST, A.float), t(ub, SRC, A.float), n),
                 [(SRC, x)])
    ub = run.cores[0].ub
    assert (ub[USED:USED + 4 * n].view(F32) == 1).all()   # the Duplicate(1) in the free UB


@pytest.mark.instruction("Tanh", "Log2")
def test_minimum_tmp_and_errors() -> None:
    with pytest.raises(OutOfRangeError, match="Tanh: the tmp buffer has 512 bytes, the API "
                                              "needs at least 1024"):
        launch(lambda ub: A.Tanh(t(ub, DST, A.half), t(ub, SRC, A.half),
                                 t(ub, TMP, uint8_t, 512), 64), [])
    with pytest.raises(OutOfRangeError, match="needs at least 4000"):
        launch(lambda ub: A.Log2(t(ub, DST, A.half), t(ub, SRC, A.half),
                                 t(ub, TMP, uint8_t, 2048), 1000), [])
    with pytest.raises(ParameterError, match="half, float"):
        launch(lambda ub: A.Tanh(t(ub, DST, A.int32_t), t(ub, SRC, A.int32_t), 64), [])
    with pytest.raises(ParameterError, match="LocalTensor<uint8_t>"):
        launch(lambda ub: A.Sigmoid(t(ub, DST, A.float), t(ub, SRC, A.float),
                                    t(ub, TMP, A.float), 64), [])


def ref_reciprocal(name: str, x: np.ndarray) -> np.ndarray:
    """advmath_impl = "reciprocal": Sigmoid = Reciprocal(1 + e^-x), Tanh = 1 - 2 * (1 / (e + 1))
    with e = e^(2 clip(x)), each step rounded as its instruction is (IEEE 1/y: reciprocal_impl
    exact)."""
    with np.errstate(all="ignore"):
        t = x.dtype.type
        if name == "Sigmoid":
            d = (x.astype(F32) * F32(-1)).astype(t)
            d = _exp(d.astype(F32)).astype(t)
            d = (d.astype(F32) + F32(1)).astype(t)
            return (F32(1) / d.astype(F32)).astype(t)
        v = x.astype(F32)
        v = np.where(np.isnan(v), v, np.minimum(v, F32(8.8)))
        v = np.where(np.isnan(v), v, np.maximum(v, F32(-8.8)))
        e = _exp(v * F32(2))
        r = F32(1) / (e + F32(1))
        return (r * F32(-2) + F32(1)).astype(x.dtype)


@pytest.mark.instruction("Sigmoid", "Tanh")
@pytest.mark.parametrize("name", ["Sigmoid", "Tanh"])
@pytest.mark.parametrize("dt,np_t", [(A.float, F32), (A.half, F16)], ids=str)
def test_reciprocal_composition(tmp_path, name, dt, np_t) -> None:
    """Under advmath_impl = "reciprocal" the quotient is a Reciprocal of the denominator: the
    bits are that composition's, Tanh's differ from the default's (1 - 2/(e + 1) rounds
    otherwise than (e - 1)/(e + 1)), and Sigmoid writes nothing to the tmp."""
    from conftest import custom_profile
    n = 1000
    x = _inputs(np_t, n)
    profile = str(custom_profile(tmp_path, "advmath_impl", '"reciprocal"'))

    def body(ub):
        getattr(A, name)(t(ub, DST, dt), t(ub, SRC, dt), t(ub, TMP, uint8_t, 4096), n)
    ub, run = run_ub(body, [(SRC, x)], pipe_bytes=USED, profile=profile)
    got = ub[DST:DST + n * x.itemsize].view(np_t)
    assert_same_bits(got, ref_reciprocal(name, x), f"{name}<{dt}> reciprocal")
    names = {REGISTRY[r[rec.OP]].name for r in run.cores[0].records}
    assert "Reciprocal" in names and "Div" not in names
    if name == "Tanh" and dt is A.float:
        assert not np.array_equal(got.view(np.uint32), ref(name, x).view(np.uint32))
    if name == "Sigmoid":
        assert (ub[TMP:TMP + 4096] == 0xFF).all()   # untouched (fresh UB reads 0xFF): no Duplicate
