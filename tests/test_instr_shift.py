"""ShiftLeft / ShiftRight against a Python-int reference written here from ascendc_more.md §5:
shifts in [0, width]; signed ShiftLeft keeps the sign bit (the doc's int16 0xAAAA << 1 =
0xD554); signed ShiftRight is arithmetic; a shift by the full width gives 0, or the sign
(shift_full = zero_or_sign)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import run_ub, tensor, ub_array

import ascsim.ascendc as A
from ascsim import records as rec
from ascsim.core import current_core, new_ubs
from ascsim.dtypes import int16_t, int32_t, uint16_t, uint32_t
from ascsim.errors import ParameterError
from ascsim.registry import by_name
from ascsim.replay import replay

DST, SRC = 0, 32768
TYPES = [(int16_t, np.int16), (uint16_t, np.uint16), (int32_t, np.int32), (uint32_t, np.uint32)]


def ref(name: str, x: np.ndarray, n: int) -> np.ndarray:
    w = 8 * x.dtype.itemsize
    signed = x.dtype.kind == "i"
    out = []
    for v in x.tolist():
        if name == "ShiftLeft":
            r = (v << n) & ((1 << w) - 1)
            if signed:
                r = (r & ((1 << (w - 1)) - 1)) | (v & (1 << (w - 1)))
        else:
            r = v >> n  # Python ints: arithmetic for negative values
        out.append(r & ((1 << w) - 1))
    return np.array(out, np.uint64).astype(f"u{x.dtype.itemsize}").view(x.dtype)


def _src(np_t: type, n: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    info = np.iinfo(np_t)
    x = rng.integers(info.min, info.max, n, dtype=np.int64, endpoint=True).astype(np_t)
    x[:6] = [info.min, info.max, 0, -1 if info.min else 1, info.min + 1, 0x55]
    return x


@pytest.mark.instruction("ShiftLeft", "ShiftRight")
@pytest.mark.parametrize("name", ["ShiftLeft", "ShiftRight"])
@pytest.mark.parametrize("dt,np_t", TYPES, ids=str)
def test_count_form_every_shift(name, dt, np_t) -> None:
    n = 200
    x = _src(np_t, n)
    for k in sorted({0, 1, 3, 8 * dt.size - 1, 8 * dt.size}):
        ub, _ = run_ub(lambda ub, k=k: getattr(A, name)(tensor(ub, DST, dt), tensor(ub, SRC, dt),
                                                        k, n), [(SRC, x)])
        np.testing.assert_array_equal(ub_array(ub, DST, np_t, n), ref(name, x, k),
                                      err_msg=f"{name}<{dt}> by {k}")


@pytest.mark.instruction("ShiftLeft")
def test_doc_example_and_hand_patterns() -> None:
    x = np.array([0xAAAA, 0x4001, 0xFFFF, 0x8000], np.uint16).view(np.int16)
    ub, _ = run_ub(lambda ub: A.ShiftLeft(tensor(ub, DST, int16_t), tensor(ub, SRC, int16_t), 1,
                                          4), [(SRC, x)])
    assert ub_array(ub, DST, np.uint16, 4).tolist() == [0xD554, 0x0002, 0xFFFE, 0x8000]
    ub, _ = run_ub(lambda ub: A.ShiftLeft(tensor(ub, DST, int16_t), tensor(ub, SRC, int16_t), 16,
                                          4), [(SRC, x)])
    assert ub_array(ub, DST, np.uint16, 4).tolist() == [0x8000, 0, 0x8000, 0x8000]


@pytest.mark.instruction("ShiftRight")
def test_shift_right_full_width_and_level0() -> None:
    x = np.array([-5, 7, -(2**31), 2**31 - 1] * 16, np.int32)
    mask = [0b1011, 0]

    def body(ub):
        A.ShiftRight(tensor(ub, DST, int32_t), tensor(ub, SRC, int32_t), 32, 64, 1,
                     A.UnaryRepeatParams())
        A.ShiftRight(tensor(ub, DST + 256, int32_t), tensor(ub, SRC, int32_t), 2, mask, 1,
                     A.UnaryRepeatParams(), False)
        assert current_core().vmask == (False, 0b1011, 0)
    init = [(SRC, x), (DST + 256, np.full(64, 99, np.int32))]
    ub, _ = run_ub(body, init)
    assert ub_array(ub, DST, np.int32, 4).tolist() == [-1, 0, -1, 0]
    assert ub_array(ub, DST + 256, np.int32, 5).tolist() == [-2, 1, 99, 536870911, 99]


@pytest.mark.instruction("ShiftLeft", "ShiftRight")
def test_shift_range_errors() -> None:
    with pytest.raises(ParameterError, match=r"shift 17 is out of range \[0, 16\]"):
        run_ub(lambda ub: A.ShiftLeft(tensor(ub, DST, uint16_t), tensor(ub, SRC, uint16_t), 17,
                                      16))
    with pytest.raises(ParameterError, match=r"shift -1 is out of range \[0, 32\]"):
        run_ub(lambda ub: A.ShiftRight(tensor(ub, DST, int32_t), tensor(ub, SRC, int32_t), -1,
                                       64, 1, A.UnaryRepeatParams()))
    with pytest.raises(ParameterError, match="share one dtype"):
        run_ub(lambda ub: A.ShiftLeft(tensor(ub, DST, A.float), tensor(ub, SRC, A.float), 1,
                                      16))


# ShiftRight roundEn=true (shift_round = add_half_then_shift): x + 2**(n-1) in the type's own
# width, wrapping, then the shift (arithmetic for signed); by 0 nothing changes. Every value
# below is worked out by hand, e.g. int16 0x7FFF by 1: 0x7FFF + 1 wraps to -32768, >> 1 = -16384.
ROUND_CASES = [
    (int16_t, np.int16, [-5, 5, 3, -3, 0x7FFF, -32768, -1, 1], {
        0: [-5, 5, 3, -3, 0x7FFF, -32768, -1, 1],
        1: [-2, 3, 2, -1, -16384, -16384, 0, 1],
        16: [0, -1, -1, 0, -1, 0, 0, -1]}),
    (uint16_t, np.uint16, [0xFFFF, 0x0008, 0x0007, 0x0017, 0xFFF8, 0x1234], {
        4: [0, 1, 0, 1, 0, 0x123],
        16: [0, 0, 0, 0, 0, 0]}),
    (int32_t, np.int32, [-13, 13, 2**31 - 1, -2**31, -4, 4, 12, -12], {
        3: [-2, 2, -268435456, -268435456, 0, 1, 2, -1],
        32: [0, -1, -1, 0, 0, -1, -1, 0]}),
    (uint32_t, np.uint32, [0xFFFFFFFF, 1, 2, 3, 0x80000000], {
        1: [0, 1, 1, 2, 0x40000000],
        31: [0, 0, 0, 0, 1]}),
]


@pytest.mark.instruction("ShiftRight")
@pytest.mark.parametrize("dt,np_t,x,cases", ROUND_CASES, ids=lambda v: str(v)[:8])
def test_shift_right_round_en_hand_patterns(dt, np_t, x, cases) -> None:
    src = np.array(x, np_t)
    for k, want in cases.items():
        n = len(x)

        def body(ub, k=k, n=n):
            A.ShiftRight(tensor(ub, DST, dt), tensor(ub, SRC, dt), k, n, 1,
                         A.UnaryRepeatParams(), True)
            row = current_core().records[-1]
            assert row[rec.MODE] == 1  # the row carries roundEn: replay gives the same bits
        init = [(SRC, src), (DST, np.full(8 * 32 // dt.size, 77, np_t))]
        ub, run = run_ub(body, init)
        got = ub_array(ub, DST, np_t, n + 1)
        assert got[:n].tolist() == np.array(want, np.int64).astype(np_t).tolist(), (dt, k)
        assert got[n] == 77  # the mask stops at n
        rows = [r for r in run.cores[0].records if r[rec.OP] == by_name("ShiftRight").id]
        ub2 = new_ubs(run.profile, 1)[0]
        ub2[SRC:SRC + src.nbytes] = src.view(np.uint8)
        ub2[DST:DST + 256] = np.full(8 * 32 // dt.size, 77, np_t).view(np.uint8)
        replay(rows, ub2, [None], run.profile)
        assert ub2[DST:DST + 256].view(np_t).tolist() == ub_array(ub, DST, np_t,
                                                                   256 // dt.size).tolist()


@pytest.mark.instruction("ShiftRight")
def test_shift_right_round_en_false_and_strided() -> None:
    """roundEn=false is the plain shift; roundEn=true with a source block stride and a bit
    mask rounds the enabled lanes only (x = 2i - 3, no wrap: (x + 2) >> 2)."""
    x = (np.arange(256, dtype=np.int64) * 2 - 3).astype(np.int16)

    def body(ub):
        A.ShiftRight(tensor(ub, DST, int16_t), tensor(ub, SRC, int16_t), 2, 128, 1,
                     A.UnaryRepeatParams(), False)
        A.ShiftRight(tensor(ub, DST + 512, int16_t), tensor(ub, SRC, int16_t), 2,
                     [0x5555555555555555, 0], 1, A.UnaryRepeatParams(1, 2, 8, 16), True)
    ub, _ = run_ub(body, [(SRC, x), (DST + 512, np.zeros(128, np.int16))])
    plain = ub_array(ub, DST, np.int16, 128).tolist()
    assert plain == [v >> 2 for v in x[:128].tolist()]
    got = ub_array(ub, DST + 512, np.int16, 128).tolist()
    for j in range(128):  # source lane j: DataBlock j // 16 at block stride 2
        src = int(x[(j // 16) * 32 + j % 16])
        assert got[j] == ((src + 2) >> 2 if j < 64 and j % 2 == 0 else 0), j
