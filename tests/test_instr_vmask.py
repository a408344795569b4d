"""The vector mask state: SetMaskNorm / SetMaskCount / ResetMask / SetVectorMask, the
isSetMask template argument (`Add[float, False](..., MASK_PLACEHOLDER, ...)`), Counter mode in
the level-0 form, and who leaves what in the register (ascendc_more.md §2).

The reference is a byte-address model written here from §2.3: element j of block b in repeat r
of an operand sits at base + (r*Rep + b*Blk)*32 + j*size; Normal mode runs the lanes whose mask
bit is set in every repeat; Counter mode runs lanes 0..n-1 spread over repeats of E lanes
(repeatTime ignored); lanes not run keep dst's old bytes.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import run_ub, tensor, ub_array

import ascsim
import ascsim.ascendc as A
from ascsim.core import current_core
from ascsim.dtypes import float as f32
from ascsim.dtypes import half
from ascsim.errors import ParameterError

pytestmark = pytest.mark.instruction("SetMaskNorm", "SetMaskCount", "ResetMask",
                                     "SetVectorMask")

DST, SRC = 0, 65536
SENTINEL = np.float32(-7.0)


def element_byte(base: int, size: int, r: int, lane: int, blk: int, rep: int) -> int:
    epb = 32 // size
    return base + (r * rep + (lane // epb) * blk) * 32 + (lane % epb) * size


def ref_adds(src: np.ndarray, scalar: float, size: int, lanes_by_repeat: list[list[int]],
             blk: tuple[int, int] = (1, 1), rep: tuple[int, int] = (8, 8),
             nbytes: int = 4096) -> np.ndarray:
    """dst bytes after Adds on the given lanes of each repeat: dst starts as SENTINEL."""
    dt = np.dtype(np.float32 if size == 4 else np.float16)
    out = np.full(nbytes // size, SENTINEL, dt)
    for r, lanes in enumerate(lanes_by_repeat):
        for j in lanes:
            s = element_byte(0, size, r, j, blk[1], rep[1]) // size
            d = element_byte(0, size, r, j, blk[0], rep[0]) // size
            out[d] = (src[s].astype(np.float32) + np.float32(scalar)).astype(dt)
    return out


def run_adds(body, n: int = 1024, dtype=f32, np_dtype=np.float32):
    src = np.arange(n, dtype=np_dtype)
    dst = np.full(n, SENTINEL, np_dtype)
    ub, run = run_ub(lambda u: body(tensor(u, DST, dtype, n), tensor(u, SRC, dtype, n)),
                     [(DST, dst), (SRC, src)])
    return ub_array(ub, DST, np_dtype, n), src, run


P = A.UnaryRepeatParams()


def test_isSetMask_false_uses_the_register() -> None:
    def body(d, s):
        A.SetVectorMask[f32](0, 0b1011)
        A.Adds[f32, False](d, s, np.float32(1), A.MASK_PLACEHOLDER, 2, P)
    got, src, _ = run_adds(body)
    want = ref_adds(src, 1.0, 4, [[0, 1, 3]] * 2)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_level0_isSetMask_true_leaves_its_mask() -> None:
    def body(d, s):
        A.Adds(d, s, np.float32(1), 3, 1, P)          # writes mask 0b111
        A.Muls[f32, False](d, d, np.float32(2), A.MASK_PLACEHOLDER, 1,
                           A.UnaryRepeatParams())    # the same 3 lanes
    got, src, _ = run_adds(body)
    want = ref_adds(src, 1.0, 4, [[0, 1, 2]])
    want[:3] *= np.float32(2)
    np.testing.assert_array_equal(got, want)


def test_count_form_restores_normal_mode_and_full_mask() -> None:
    def body(d, s):
        A.SetMaskCount()
        A.SetVectorMask[f32, A.MaskMode.COUNTER](0, 5)
        A.Adds(d, s, np.float32(1), 8)                 # count form: ends Normal + full mask
        A.Adds[f32, False](d[64], s[64], np.float32(1), A.MASK_PLACEHOLDER, 1, P)
    got, src, run = run_adds(body)
    want = np.full(1024, SENTINEL, np.float32)
    want[:8] = src[:8] + 1
    want[64:128] = src[64:128] + 1
    np.testing.assert_array_equal(got, want)
    assert run.cores[0].vmask is None


@pytest.mark.parametrize("n", [1, 63, 64, 100, 200, 512])
def test_counter_mode_spreads_lanes_over_repeats(n: int) -> None:
    def body(d, s):
        A.SetMaskCount()
        A.SetVectorMask[f32, A.MaskMode.COUNTER](0, n)
        A.Adds[f32, False](d, s, np.float32(1), A.MASK_PLACEHOLDER, 1, P)  # repeatTime ignored
        A.SetMaskNorm()
        A.ResetMask()
    got, src, run = run_adds(body)
    lanes = [list(range(min(64, n - 64 * r))) for r in range(-(-n // 64))]
    np.testing.assert_array_equal(got, ref_adds(src, 1.0, 4, lanes))
    assert run.cores[0].vmask is None


def test_counter_mode_with_strides_and_a_two_word_mask() -> None:
    # {n, 0} with isSetMask=true is the documented way to give a count; blk 2 / rep 16
    n = 100

    def body(d, s):
        A.SetMaskCount()
        A.Adds(d, s, np.float32(1), [n, 0], 1, A.UnaryRepeatParams(2, 1, 16, 8))
        A.SetMaskNorm()
    got, src, _ = run_adds(body)
    lanes = [list(range(64)), list(range(n - 64))]
    np.testing.assert_array_equal(got, ref_adds(src, 1.0, 4, lanes, (2, 1), (16, 8)))


def test_counter_mode_partial_repeat_fits_an_exact_tensor() -> None:
    # 100 floats: the second repeat reads 36 lanes, so a 100-element tensor is big enough
    def body(d, s):
        A.SetMaskCount()
        A.SetVectorMask[f32, A.MaskMode.COUNTER](0, 100)
        A.Adds[f32, False](d, s, np.float32(1), A.MASK_PLACEHOLDER, 1, P)
        A.SetMaskNorm()
    got, src, _ = run_adds(body, n=100)
    np.testing.assert_array_equal(got, src + 1)


def test_counter_mode_integer_mask_trap_is_reported() -> None:
    def body(d, s):
        A.SetMaskCount()
        A.Adds(d, s, np.float32(1), 64, 1, P)   # SetMask<float>(64) = all ones: not a count
    with pytest.raises(ParameterError, match="Counter mode with 18446744073709551615"):
        run_adds(body)


def test_half_length_conversion_and_reset_keeps_mode() -> None:
    def body(d, s):
        A.SetVectorMask[half](100)                  # lanes 0..99 of 128
        A.Adds[half, False](d, s, np.float16(1), A.MASK_PLACEHOLDER, 1, P)
        A.SetMaskCount()
        A.ResetMask()                                # full mask, still Counter mode
        assert current_core().vmask[0] is True
        A.SetMaskNorm()
    got, src, _ = run_adds(body, dtype=half, np_dtype=np.float16)
    want = np.full(1024, SENTINEL, np.float16)
    want[:100] = src[:100] + np.float16(1)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


def test_zero_mask_is_a_nop_and_duplicate_follows_the_register() -> None:
    def body(d, s):
        A.Adds(d, s, np.float32(1), 0, 4, P)
        A.SetMaskCount()
        A.SetVectorMask[f32, A.MaskMode.COUNTER](0, 70)
        A.Duplicate[f32, False](d, np.float32(3), A.MASK_PLACEHOLDER, 1, 1, 8)
        A.SetMaskNorm()
    got, _, _ = run_adds(body)
    want = np.full(1024, SENTINEL, np.float32)
    want[:70] = 3
    np.testing.assert_array_equal(got, want)


def test_template_argument_errors() -> None:
    with pytest.raises(ParameterError, match="count form has no isSetMask"):
        run_adds(lambda d, s: A.Adds[f32, False](d, s, np.float32(1), 8))
    with pytest.raises(ParameterError, match="half"):
        run_adds(lambda d, s: A.Adds[half](d, s, np.float32(1), 8))
    with pytest.raises(ParameterError, match="needs its dtype"):
        run_adds(lambda d, s: A.SetVectorMask(0, 1))


def test_setters_are_recorded() -> None:
    def body(d, s):
        A.SetMaskCount()
        A.SetVectorMask[f32, A.MaskMode.COUNTER](0, 64)
        A.Adds[f32, False](d, s, np.float32(1), A.MASK_PLACEHOLDER, 1, P)
        A.SetMaskNorm()
        A.ResetMask()
    _, _, run = run_adds(body)
    counts = run.counts_by_instruction()
    for name in ("SetMaskCount", "SetVectorMask", "SetMaskNorm", "ResetMask"):
        assert counts[name] == 1


@pytest.mark.parametrize("lanes,uninit", [(104, False), (96, True)])
def test_initcheck_sees_only_the_counter_mode_lanes(lanes: int, uninit: bool) -> None:
    """dst is a fresh (unwritten) buffer; a Counter-mode Adds writes `lanes` of it; 104 floats
    go to GM. With 96 lanes, dst[96:104) was never written: initcheck must say so (and must not
    take the idle lanes of the partial last repeat for written)."""
    def kernel(out):
        pipe = A.TPipe()
        buf = A.TBuf[A.TPosition.VECCALC]()
        pipe.InitBuffer(buf, 4096)
        src = buf.Get[f32]()
        dst = src[512]
        A.Duplicate(src, np.float32(1), 128)
        A.SetMaskCount()
        A.SetVectorMask[f32, A.MaskMode.COUNTER](0, lanes)
        A.Adds[f32, False](dst, src, np.float32(1), A.MASK_PLACEHOLDER, 1, P)
        A.SetMaskNorm()
        A.ResetMask()
        A.PipeBarrier[A.PIPE_ALL]()
        g = A.GlobalTensor[f32]()
        g.SetGlobalBuffer(out)
        A.DataCopy(g, dst, 104)
    out = np.zeros(104, np.float32)
    run = ascsim.launch(kernel, 1, out, sanitize="check", outputs=(0,))
    found = [f for f in run.findings if f.kind == "initcheck"]
    assert bool(found) == uninit, [f.format() for f in run.findings]
    if uninit:
        assert (found[0].start, found[0].end) == (96 * 4, 104 * 4)
    np.testing.assert_array_equal(out[:min(lanes, 104)], 2)
