"""DataCopy and DataCopyPad in every direction, against byte-level Python models of the layouts
in ascendc_semantics.md §1.2 and §3:

- DataCopy(count) moves floor(count * sizeof(T) / 32) * 32 bytes (the tail is not moved);
- DataCopy(DataCopyParams) moves blockCount blocks of blockLen DataBlocks, with srcStride /
  dstStride DataBlocks of gap after each block on each side;
- DataCopyPad GM->UB: blockLen bytes per block, srcStride a byte gap in GM, each block landing
  32-byte aligned in UB as [left pad][data][right pad][dummy], dstStride DataBlocks apart;
- DataCopyPad UB->GM: srcStride in DataBlocks (UB side, after the block rounded up to 32 bytes),
  dstStride a byte gap in GM, exactly blockLen bytes written per block.
Pad bytes hold MOV_PAD_VAL's low bytes (paddingValue when isPad is set, else what the register
holds: 0 at kernel start by default), so do the dummy bytes next to a left/right pad; the dummy
bytes of an unpadded block follow the profile's dummy_fill (default: the pad value with isPad,
else the block's first element; ascendc_more.md §6(b)).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import custom_profile, gtensor, run_ub, tensor, ub_array

import ascsim.ascendc as A
from ascsim.ascendc import DataCopyExtParams, DataCopyPadExtParams, DataCopyParams
from ascsim.dtypes import DType, half, int8_t, uint8_t
from ascsim.dtypes import float as f32
from ascsim.errors import AlignmentError, OutOfRangeError, ParameterError

UB0 = 4096            # where the tests put their UB operand
UB_SENTINEL = 0x3C    # UB bytes no copy should touch
GM_SENTINEL = 0xC3    # GM bytes no copy should touch
DUMMY = 0xFF

F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
NP_OF = {f32: F32, half: F16, uint8_t: np.dtype(np.uint8), int8_t: np.dtype(np.int8)}


def gm_bytes(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint64).astype(np.uint8)


def ub_init(n: int = 32768) -> list[tuple[int, np.ndarray]]:
    return [(UB0, np.full(n, UB_SENTINEL, np.uint8))]


# ---- the byte models --------------------------------------------------------------------------

def ref_blocks(dst: np.ndarray, doff: int, src: np.ndarray, soff: int, count: int, nbytes: int,
               src_pitch: int, dst_pitch: int) -> np.ndarray:
    """Copy `count` blocks of `nbytes`, block k from soff + k*src_pitch to doff + k*dst_pitch."""
    out = dst.copy()
    for k in range(count):
        out[doff + k * dst_pitch:doff + k * dst_pitch + nbytes] = \
            src[soff + k * src_pitch:soff + k * src_pitch + nbytes]
    return out


def ref_pad_in(ub: np.ndarray, doff: int, gm: np.ndarray, soff: int, p: DataCopyExtParams,
               esize: int, is_pad: bool = False, left: int = 0, right: int = 0,
               pad_value: bytes = b"", reg: bytes = bytes(8),
               dummy_fill: str = "pad_if_isPad_else_first_elem") -> np.ndarray:
    """DataCopyPad GM->UB: left/right in elements, pad_value the element's bytes, reg the
    MOV_PAD_VAL bytes before the call. Pads hold the pattern (pad_value with isPad, else the
    register; its first min(esize, 4) bytes), so does the dummy after a left/right pad; an
    unpadded block's dummy follows dummy_fill."""
    out = ub.copy()
    w = min(esize, 4)
    lb, rb = left * esize, right * esize
    padded = -(-(lb + p.blockLen + rb) // 32) * 32
    pattern = np.frombuffer((pad_value if is_pad else reg)[:w], np.uint8)
    end = lb + p.blockLen + rb
    for k in range(p.blockCount if p.blockLen else 0):
        base = doff + k * (padded + 32 * p.dstStride)
        block = np.full(padded, DUMMY, np.uint8)
        s = soff + k * (p.blockLen + p.srcStride)
        block[lb:lb + p.blockLen] = gm[s:s + p.blockLen]
        block[:lb] = np.resize(pattern, lb)
        block[lb + p.blockLen:end] = np.resize(pattern, rb)
        if lb or rb or (is_pad and dummy_fill == "pad_if_isPad_else_first_elem"):
            block[end:] = np.resize(pattern, padded - end)
        elif dummy_fill in ("first_element", "pad_if_isPad_else_first_elem"):
            block[end:] = np.resize(block[lb:lb + w], padded - end)
        elif dummy_fill == "zero":
            block[end:] = 0
        out[base:base + padded] = block
    return out


def ref_pad_out(gm: np.ndarray, doff: int, ub: np.ndarray, soff: int,
                p: DataCopyExtParams) -> np.ndarray:
    out = gm.copy()
    rounded = -(-p.blockLen // 32) * 32
    for k in range(p.blockCount if p.blockLen else 0):
        s = soff + k * (rounded + 32 * p.srcStride)
        d = doff + k * (p.blockLen + p.dstStride)
        out[d:d + p.blockLen] = ub[s:s + p.blockLen]
    return out


def test_reference_models_self_check() -> None:
    """Hand-worked layouts: 5 floats padded in UB, and their unaligned write-back."""
    gm = np.arange(64, dtype=np.uint8)
    ub = np.zeros(128, np.uint8)
    out = ref_pad_in(ub, 0, gm, 1, DataCopyExtParams(2, 6, 2, 1), 2, True, 1, 2, b"\x07\x00")
    assert list(out[:12]) == [7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 7, 0]
    assert list(out[12:32]) == [7, 0] * 10 and (out[32:64] == 0).all()   # one block of gap
    assert list(out[64:74]) == [7, 0, 9, 10, 11, 12, 13, 14, 7, 0]
    # no padding: the dummy is the first element (isPad false) or the pad value (isPad)
    out = ref_pad_in(ub, 0, gm, 0, DataCopyExtParams(1, 12, 0, 0), 4)
    assert list(out[:32]) == list(range(12)) + [0, 1, 2, 3] * 5
    out = ref_pad_in(ub, 0, gm, 0, DataCopyExtParams(1, 12, 0, 0), 4, True, 0, 0,
                     b"\x09\x08\x07\x06")
    assert list(out[:32]) == list(range(12)) + [9, 8, 7, 6] * 5
    out = ref_pad_in(ub, 0, gm, 0, DataCopyExtParams(1, 12, 0, 0), 4, True, 0, 0, b"\x09" * 4,
                     dummy_fill="nan")
    assert list(out[:32]) == list(range(12)) + [DUMMY] * 20
    # 64-bit elements use the b32 pattern: the register's low 4 bytes
    out = ref_pad_in(ub, 0, gm, 0, DataCopyExtParams(1, 8, 0, 0), 8, False, 1, 0,
                     reg=bytes(range(1, 9)))
    assert list(out[:32]) == [1, 2, 3, 4] * 2 + list(range(8)) + [1, 2, 3, 4] * 4
    ub = np.arange(200, dtype=np.uint8)
    back = ref_pad_out(np.zeros(20, np.uint8), 3, ub, 2, DataCopyExtParams(2, 6, 1, 4))
    assert list(back) == [0, 0, 0, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 66, 67, 68, 69, 70, 71, 0]


# ---- DataCopy, count form ---------------------------------------------------------------------

@pytest.mark.parametrize(("dtype", "count"), [(f32, 0), (f32, 1), (f32, 8), (f32, 13),
                                              (f32, 1000), (half, 31), (half, 48),
                                              (uint8_t, 95), (int8_t, 4096)], ids=str)
@pytest.mark.instruction("DataCopy")
def test_datacopy_gm_to_ub_rounds_down_to_32_bytes(dtype: DType, count: int) -> None:
    x = gm_bytes(20000)
    moved = count * dtype.size // 32 * 32

    def body(ub, xb):
        A.DataCopy(tensor(ub, UB0, dtype), gtensor(xb, dtype)[3], count)

    ub, run = run_ub(body, ub_init(), gm=(x,))
    start = 3 * dtype.size
    assert (ub[UB0:UB0 + moved] == x[start:start + moved]).all()
    assert (ub[UB0 + moved:UB0 + 32768] == UB_SENTINEL).all()
    rec = run.decoded(0)[-1]
    assert (rec.name, rec.pipe_name, rec.count, rec.dtype) == (
        "DataCopy", "MTE2", moved // dtype.size, dtype)
    assert [(a.write, a.mem, a.start, a.end) for a in rec.accesses] == [
        (True, 0, UB0, UB0 + moved), (False, 1, start, start + moved)]


@pytest.mark.parametrize(("dtype", "count"), [(f32, 13), (f32, 64), (half, 17), (half, 0)],
                         ids=str)
@pytest.mark.instruction("DataCopy")
def test_datacopy_ub_to_gm_rounds_down(dtype: DType, count: int) -> None:
    data = gm_bytes(4096, 1)
    y = np.full(4096, GM_SENTINEL, np.uint8)
    moved = count * dtype.size // 32 * 32

    def body(ub, yb):
        A.DataCopy(gtensor(yb, dtype)[8], tensor(ub, UB0, dtype), count)

    _, run = run_ub(body, [(UB0, data)], gm=(y,))
    start = 8 * dtype.size
    want = np.full(4096, GM_SENTINEL, np.uint8)
    want[start:start + moved] = data[:moved]
    assert (y == want).all()
    rec = run.decoded(0)[-1]
    assert rec.pipe_name == "MTE3"
    assert [(a.write, a.mem, a.start, a.end) for a in rec.accesses] == [
        (True, 1, start, start + moved), (False, 0, UB0, UB0 + moved)]


@pytest.mark.instruction("DataCopy")
def test_datacopy_ub_to_ub_runs_on_v_and_rounds_down() -> None:
    data = gm_bytes(1024, 2)

    def body(ub):
        A.DataCopy(tensor(ub, UB0, half), tensor(ub, UB0 + 8192, half), 40)   # 80 B -> 64 B
        # the operand checks of the GM copies hold for both UB ends
        for dst, src, error, text in (
                (tensor(ub, UB0 + 4, half), tensor(ub, UB0 + 8192, half), AlignmentError,
                 "dst starts at UB address 4100"),
                (tensor(ub, UB0, half), tensor(ub, UB0 + 8196, half), AlignmentError,
                 "src starts at UB address 12292"),
                (tensor(ub, UB0, half, 16), tensor(ub, UB0 + 8192, half), OutOfRangeError,
                 "touches 64 bytes of dst"),
                (tensor(ub, UB0, half), tensor(ub, UB0 + 8192, half, 16), OutOfRangeError,
                 "touches 64 bytes of src"),
                (tensor(ub, UB0, half), A.LocalTensor[half](), ParameterError,
                 "src LocalTensor is not allocated")):
            with pytest.raises(error, match=text):
                A.DataCopy(dst, src, 32 if error is not ParameterError else 0)

    ub, run = run_ub(body, ub_init(8192) + [(UB0 + 8192, data)])
    assert (ub[UB0:UB0 + 64] == data[:64]).all()
    assert (ub[UB0 + 64:UB0 + 8192] == UB_SENTINEL).all()
    rec = run.decoded(0)[-1]
    assert (rec.pipe_name, rec.count) == ("V", 32)


STRIDED = [DataCopyParams(1, 4, 0, 0), DataCopyParams(3, 2, 1, 3), DataCopyParams(5, 1, 0, 2),
           DataCopyParams(4, 3, 7, 0), DataCopyParams(0, 3, 1, 1), DataCopyParams(2, 0, 1, 1)]


@pytest.mark.parametrize("p", STRIDED, ids=repr)
@pytest.mark.parametrize("direction", ["gm->ub", "ub->gm", "ub->ub"])
@pytest.mark.instruction("DataCopy")
def test_datacopy_strided_params(direction: str, p: DataCopyParams) -> None:
    """blockLen and both strides in 32-byte DataBlocks, strides being the gap between blocks."""
    src_gm = gm_bytes(8192, 3)
    dst_gm = np.full(8192, GM_SENTINEL, np.uint8)
    src_ub = gm_bytes(8192, 4)
    n, sp, dp = 32 * p.blockLen, 32 * (p.blockLen + p.srcStride), 32 * (p.blockLen + p.dstStride)
    init = ub_init(8192) + [(UB0 + 8192, src_ub)]

    def body(ub, xb, yb):
        ub_dst, ub_src = tensor(ub, UB0, f32), tensor(ub, UB0 + 8192, f32)
        if direction == "gm->ub":
            A.DataCopy(ub_dst, gtensor(xb, f32)[16], p)
        elif direction == "ub->gm":
            A.DataCopy(gtensor(yb, f32)[16], ub_src, p)
        else:
            A.DataCopy(ub_dst, ub_src, p)

    ub, run = run_ub(body, init, gm=(src_gm, dst_gm))
    before = np.full(8192, UB_SENTINEL, np.uint8)
    if direction == "gm->ub":
        want = ref_blocks(before, 0, src_gm, 64, p.blockCount, n, sp, dp)
        assert (ub[UB0:UB0 + 8192] == want).all()
    elif direction == "ub->gm":
        want = ref_blocks(np.full(8192, GM_SENTINEL, np.uint8), 64, src_ub, 0, p.blockCount, n,
                          sp, dp)
        assert (dst_gm == want).all()
    else:
        want = ref_blocks(before, 0, src_ub, 0, p.blockCount, n, sp, dp)
        assert (ub[UB0:UB0 + 8192] == want).all()
    rec = run.decoded(0)[-1]
    assert rec.params == (n, sp, dp) and rec.repeats == p.blockCount
    assert rec.count == p.blockCount * n // 4
    assert rec.pipe_name == {"gm->ub": "MTE2", "ub->gm": "MTE3", "ub->ub": "V"}[direction]


def test_datacopy_errors() -> None:
    x = gm_bytes(1024)

    def body(ub, xb):
        g = gtensor(xb, f32)
        t = tensor(ub, UB0, f32)
        with pytest.raises(ParameterError, match="out of range"):
            A.DataCopy(t, g, DataCopyParams(4096, 1, 0, 0))
        with pytest.raises(ParameterError, match="out of range"):
            A.DataCopy(t, g, DataCopyParams(1, 1, -1, 0))
        with pytest.raises(ParameterError, match="negative"):
            A.DataCopy(t, g, -8)
        with pytest.raises(ParameterError, match="no such copy direction"):
            A.DataCopy(g, g, 8)
        with pytest.raises(AlignmentError, match="32-byte aligned"):
            A.DataCopy(tensor(ub, UB0 + 4, f32), g, 8)
        with pytest.raises(OutOfRangeError, match="touches 64 bytes of dst"):
            A.DataCopy(tensor(ub, UB0, f32, 8), g, 16)
        A.DataCopy(t, g[192], 64)       # bytes [768, 1024): the last 256 bytes exactly
        A.DataCopy(t, gtensor(xb, f32, 4), 64)   # the logical size is not a bound; GM is
        with pytest.raises(OutOfRangeError, match=r"reads GM bytes \[772, 1028\) of buffer 'x'"):
            A.DataCopy(t, g[193], 64)
        with pytest.raises(OutOfRangeError, match=r"writes GM bytes \[992, 1056\) of buffer 'x'"):
            A.DataCopy(g[248], t, 16)

    _, run = run_ub(body, gm=(x,))
    assert [r.name for r in run.decoded(0)] == ["DataCopy", "DataCopy"]


def test_gm_out_of_range_error_context() -> None:
    def body(ub, xb):
        A.DataCopyPad(tensor(ub, UB0, f32), gtensor(xb, f32)[10], DataCopyExtParams(1, 64, 0, 0),
                      DataCopyPadExtParams[f32](False, 0, 0, 0))

    with pytest.raises(OutOfRangeError) as info:
        run_ub(body, gm=(np.zeros(24, F32),))
    e = info.value
    assert e.context["buffer"] == "GM x" and e.context["byte_range"] == "[40, 104)"
    assert "8 byte(s) past its end" in str(e)


# ---- DataCopyPad GM -> UB ---------------------------------------------------------------------

PAD_IN = [
    # (dtype, params, (isPad, left, right, value), GM element offset)
    (f32, DataCopyExtParams(1, 20, 0, 0), None, 0),
    (f32, DataCopyExtParams(3, 20, 8, 1), None, 1),        # GM gap 8 bytes, UB gap 1 block
    (f32, DataCopyExtParams(2, 64, 0, 0), None, 3),        # whole blocks: no dummy
    (half, DataCopyExtParams(4, 22, 2, 0), (True, 2, 3, 7.0), 1),     # 4+22+6 = 32 exactly
    (half, DataCopyExtParams(3, 10, 0, 2), (True, 1, 1, -0.0), 5),    # dummy after the pad
    (half, DataCopyExtParams(2, 10, 0, 0), (False, 1, 1, 9.0), 0),    # no isPad: unspecified
    (half, DataCopyExtParams(1, 2, 0, 0), (True, 16, 16, 1.5), 0),    # 32-byte pads
    (f32, DataCopyExtParams(2, 36, 4, 0), (True, 0, 8, np.inf), 2),
    (uint8_t, DataCopyExtParams(5, 33, 3, 1), (True, 4, 0, 0x11), 7),  # byte-granular GM
    (int8_t, DataCopyExtParams(2, 1, 0, 0), None, 1),
    (f32, DataCopyExtParams(0, 20, 0, 0), None, 0),        # blockCount 0: no-op
    (f32, DataCopyExtParams(3, 0, 4, 1), (True, 2, 2, 1.0), 0),       # blockLen 0: no-op
]


@pytest.mark.parametrize("case", PAD_IN, ids=lambda c: f"{c[0]}-{c[1]!r}-{c[2]}")
@pytest.mark.instruction("DataCopyPad")
def test_datacopy_pad_gm_to_ub(case: tuple) -> None:
    dtype, p, pad, goff = case
    x = gm_bytes(4096, 5)

    def body(ub, xb):
        pp = DataCopyPadExtParams[dtype](*pad) if pad else None
        args = (pp,) if pp else ()
        A.DataCopyPad(tensor(ub, UB0, dtype), gtensor(xb, dtype)[goff], p, *args)

    ub, run = run_ub(body, ub_init(), gm=(x,))
    is_pad, left, right, value = pad or (False, 0, 0, 0)
    dt = NP_OF[dtype]
    value_bytes = np.array([value], dt).tobytes()
    want = ref_pad_in(np.full(32768, UB_SENTINEL, np.uint8), 0, x, goff * dt.itemsize, p,
                      dt.itemsize, is_pad, left, right, value_bytes)
    assert (ub[UB0:UB0 + 32768] == want).all()
    rec = run.decoded(0)[-1]
    assert (rec.name, rec.pipe_name) == ("DataCopyPad", "MTE2")
    padded = -(-(left * dt.itemsize + p.blockLen + right * dt.itemsize) // 32) * 32
    span = (p.blockCount - 1) * (padded + 32 * p.dstStride) + padded if p.blockLen and \
        p.blockCount else 0
    assert rec.writes[0].start == UB0 and rec.writes[0].nbytes == span


def test_dummy_nan_profile(tmp_path: Path) -> None:
    """dummy_fill = "nan": an unpadded block's dummy bytes read as 0xFF, a NaN."""
    prof = custom_profile(tmp_path, "dummy_fill", '"nan"')
    x = np.arange(1, 6, dtype=F32)

    def body(ub, xb):
        A.DataCopyPad(tensor(ub, UB0, f32), gtensor(xb, f32), DataCopyExtParams(1, 20, 0, 0),
                      DataCopyPadExtParams[f32](False, 0, 0, 0))

    ub, _ = run_ub(body, ub_init(), gm=(x,), profile=prof)
    got = ub_array(ub, UB0, F32, 8)
    assert (got[:5] == x).all() and np.isnan(got[5:]).all()
    assert (ub[UB0 + 20:UB0 + 32] == 0xFF).all()


def test_dummy_first_element_profile(tmp_path: Path) -> None:
    """dummy_fill = "first_element": the documented "first element of the block" dummy (only
    without left/right padding)."""
    prof = custom_profile(tmp_path, "dummy_fill", '"first_element"')
    x = np.arange(1, 9, dtype=F32)

    def body(ub, xb):
        A.DataCopyPad(tensor(ub, UB0, f32), gtensor(xb, f32), DataCopyExtParams(2, 12, 4, 0),
                      DataCopyPadExtParams[f32](False, 0, 0, 0))
        A.DataCopyPad(tensor(ub, UB0 + 1024, f32), gtensor(xb, f32),
                      DataCopyExtParams(1, 12, 0, 0), DataCopyPadExtParams[f32](False, 1, 0, 0))

    ub, _ = run_ub(body, ub_init(), gm=(x,), profile=prof)
    assert list(ub_array(ub, UB0, F32, 16)) == [1, 2, 3, 1, 1, 1, 1, 1, 5, 6, 7, 5, 5, 5, 5, 5]
    # with padding and no isPad, the pad and dummy bytes hold MOV_PAD_VAL (ascendc_more.md
    # §6(b), correcting the first sheet's "random"): 0 at kernel start (pad_reg_init)
    assert (ub[UB0 + 1024:UB0 + 1028] == 0).all() and (ub[UB0 + 1040:UB0 + 1056] == 0).all()


def test_dummy_zero_profile(tmp_path: Path) -> None:
    prof = custom_profile(tmp_path, "dummy_fill", '"zero"')
    x = np.arange(1, 9, dtype=F32)

    def body(ub, xb):
        A.DataCopyPad(tensor(ub, UB0, f32), gtensor(xb, f32), DataCopyExtParams(1, 12, 0, 0))

    ub, _ = run_ub(body, ub_init(), gm=(x,), profile=prof)
    assert list(ub_array(ub, UB0, F32, 8)) == [1, 2, 3, 0, 0, 0, 0, 0]


def test_datacopy_pad_in_errors() -> None:
    x = gm_bytes(256)

    def body(ub, xb):
        t = tensor(ub, UB0, half)
        g = gtensor(xb, half)
        with pytest.raises(ParameterError, match="not a multiple of sizeof"):
            A.DataCopyPad(t, g, DataCopyExtParams(1, 5, 0, 0))
        with pytest.raises(ParameterError, match="exceeds 32 bytes"):
            A.DataCopyPad(t, g, DataCopyExtParams(1, 4, 0, 0),
                          DataCopyPadExtParams[half](True, 17, 0, 0))
        with pytest.raises(ParameterError, match="exceeds 32 bytes"):
            A.DataCopyPad(t, g, DataCopyExtParams(1, 4, 0, 0),
                          DataCopyPadExtParams[half](True, 0, 17, 0))
        with pytest.raises(ParameterError, match="blockCount"):
            A.DataCopyPad(t, g, DataCopyExtParams(4096, 4, 0, 0))
        with pytest.raises(ParameterError, match="negative stride"):
            A.DataCopyPad(t, g, DataCopyExtParams(2, 4, -2, 0))
        with pytest.raises(AlignmentError):
            A.DataCopyPad(tensor(ub, UB0 + 2, half), g, DataCopyExtParams(1, 4, 0, 0))
        with pytest.raises(OutOfRangeError, match="dst"):
            A.DataCopyPad(tensor(ub, UB0, half, 16), g, DataCopyExtParams(2, 4, 0, 0))
        with pytest.raises(OutOfRangeError, match=r"GM bytes \[200, 264\) of buffer 'x'"):
            A.DataCopyPad(t, g[100], DataCopyExtParams(2, 16, 32, 0))
        with pytest.raises(ParameterError, match="no such copy direction"):
            A.DataCopyPad(t, tensor(ub, UB0 + 1024, half), DataCopyExtParams(1, 4, 0, 0))

    _, run = run_ub(body, gm=(x,))
    assert run.cores[0].records == []


# ---- DataCopyPad UB -> GM ---------------------------------------------------------------------

PAD_OUT = [
    (f32, DataCopyExtParams(1, 20, 0, 0), 0),
    (f32, DataCopyExtParams(3, 20, 1, 4), 1),      # UB gap 1 block, GM gap 4 bytes
    (half, DataCopyExtParams(4, 34, 0, 6), 3),     # 34 bytes: the UB block rounds up to 64
    (uint8_t, DataCopyExtParams(6, 7, 2, 1), 5),   # unaligned GM, byte granularity
    (f32, DataCopyExtParams(2, 64, 0, 0), 0),
    (f32, DataCopyExtParams(0, 20, 0, 0), 0),
    (f32, DataCopyExtParams(3, 0, 0, 0), 0),
]


@pytest.mark.parametrize("case", PAD_OUT, ids=lambda c: f"{c[0]}-{c[1]!r}")
@pytest.mark.instruction("DataCopyPad")
def test_datacopy_pad_ub_to_gm(case: tuple) -> None:
    dtype, p, goff = case
    data = gm_bytes(4096, 6)
    y = np.full(4096, GM_SENTINEL, np.uint8)

    def body(ub, yb):
        A.DataCopyPad(gtensor(yb, dtype)[goff], tensor(ub, UB0, dtype), p)

    _, run = run_ub(body, [(UB0, data)], gm=(y,))
    want = ref_pad_out(np.full(4096, GM_SENTINEL, np.uint8), goff * dtype.size, data, 0, p)
    assert (y == want).all()
    rec = run.decoded(0)[-1]
    assert (rec.name, rec.pipe_name) == ("DataCopyPad", "MTE3")
    assert rec.bytes == ((p.blockCount - 1) * (p.blockLen + p.dstStride) + p.blockLen
                         if p.blockCount else 0)


def test_datacopy_pad_out_errors() -> None:
    def body(ub, yb):
        g = gtensor(yb, f32)
        with pytest.raises(ParameterError, match="takes no DataCopyPadExtParams"):
            A.DataCopyPad(g, tensor(ub, UB0, f32), DataCopyExtParams(1, 4, 0, 0),
                          DataCopyPadExtParams[f32](True, 0, 0, 0))
        with pytest.raises(OutOfRangeError, match=r"writes GM bytes \[92, 104\) of buffer 'x'"):
            A.DataCopyPad(g[23], tensor(ub, UB0, f32), DataCopyExtParams(1, 12, 0, 0))
        with pytest.raises(AlignmentError):
            A.DataCopyPad(g, tensor(ub, UB0 + 4, f32), DataCopyExtParams(1, 4, 0, 0))

    run_ub(body, gm=(np.zeros(24, F32),))


def test_round_trip_through_ub_unaligned() -> None:
    """GM -> UB -> GM with DataCopyPad at odd byte offsets gives the bytes back exactly."""
    x = gm_bytes(1000, 8)
    y = np.zeros(1000, np.uint8)

    def body(ub, xb, yb):
        p = DataCopyExtParams(7, 101, 13, 2)
        A.DataCopyPad(tensor(ub, UB0, uint8_t), gtensor(xb, uint8_t)[3], p,
                      DataCopyPadExtParams[uint8_t](False, 0, 0, 0))
        A.DataCopyPad(gtensor(yb, uint8_t)[3], tensor(ub, UB0, uint8_t),
                      DataCopyExtParams(7, 101, 2, 13))

    run_ub(body, gm=(x, y))
    want = np.zeros(1000, np.uint8)
    for k in range(7):
        s = 3 + k * 114
        want[s:s + 101] = x[s:s + 101]
    assert (y == want).all()


# ---- DataCopy(DataCopyParams): exact byte ranges and field ranges -----------------------------

def _strided_race_kernel(x, y, touch_ub: tuple[int, int], touch_gm: tuple[int, int]):
    """A strided GM->UB copy (3 blocks of 32 bytes, GM gap 1 block, UB gap 2 blocks) and a
    strided UB->GM copy (GM gap 1 block), each followed, without any sync, by an access of
    another pipe to the given byte range of what it wrote (relative to its start)."""
    pipe = A.TPipe()
    buf = A.TBuf[A.QuePosition.VECCALC]()
    pipe.InitBuffer(buf, 4096)
    ub = buf.Get[f32]()
    xg, yg = gtensor(x, f32), gtensor(y, f32)
    A.DataCopy(ub, xg, DataCopyParams(3, 1, 1, 2))          # UB blocks at 0, 96, 192
    lo, hi = touch_ub
    A.Adds(ub[1024 + lo // 4], ub[lo // 4], 1.0, (hi - lo) // 4)    # V reads UB [lo, hi)
    A.Duplicate(ub[2048], 1.0, 64)
    A.SetFlag[A.HardEvent.V_MTE3](0)
    A.WaitFlag[A.HardEvent.V_MTE3](0)
    A.DataCopy(yg, ub[512], DataCopyParams(3, 1, 0, 1))      # GM blocks at 0, 64, 128
    lo, hi = touch_gm
    A.DataCopy(ub[1536], yg[lo // 4], (hi - lo) // 4)        # MTE2 reads GM [lo, hi)


@pytest.mark.parametrize(("touch_ub", "touch_gm", "races"), [
    ((32, 96), (32, 64), []),                              # only the gaps: no hazard
    ((64, 128), (96, 160), [("RAW", "UB", 96, 128), ("RAW", "GM y", 128, 160)]),
    ((192, 224), (0, 32), [("RAW", "UB", 192, 224), ("RAW", "GM y", 0, 32)]),
], ids=["gaps", "straddle", "blocks"])
@pytest.mark.instruction("DataCopy")
def test_datacopy_params_sanitizer_ranges_are_exact(touch_ub, touch_gm, races) -> None:
    """The STRIDED accesses touch exactly their blocks: an unsynchronised access of another
    pipe to a gap is no hazard, and the hazard range of one that straddles is the block part."""
    import ascsim
    x = np.arange(256, dtype=np.float32)
    y = np.zeros(256, np.float32)
    r = ascsim.launch(lambda x, y: _strided_race_kernel(x, y, touch_ub, touch_gm), 1, x, y,
                      sanitize="check")
    got = [(f.check.split()[0], f.memory, f.start, f.end) for f in r.findings
           if f.kind == "racecheck"]
    assert got == races
    first = r.decoded(0)[0]
    assert [(a.mem, a.start, a.end, a.strided) for a in first.accesses] == [
        (0, 0, 224, True), (1, 0, 160, True)]


def test_datacopy_params_field_ranges() -> None:
    """uint16 fields: blockLen and both gaps at most 65535 blocks, blockCount at most 4095; a
    strided span past the GM buffer is reported with its exact byte range."""
    x = gm_bytes(4096)

    def body(ub, xb):
        g, t = gtensor(xb, f32), tensor(ub, UB0, f32)
        for p in (DataCopyParams(1, 65536, 0, 0), DataCopyParams(2, 1, 65536, 0),
                  DataCopyParams(2, 1, 0, 65536), DataCopyParams(-1, 1, 0, 0)):
            with pytest.raises(ParameterError, match="out of range"):
                A.DataCopy(t, g, p)
        A.DataCopy(t, g, DataCopyParams(4095, 0, 0, 0))        # the largest count, no bytes
        # 3 blocks of 2 with gaps of 30: span (3 - 1) * 32 * 32 + 64 = 2112 bytes from 2048
        with pytest.raises(OutOfRangeError, match=r"reads GM bytes \[2048, 4160\)"):
            A.DataCopy(t, g[512], DataCopyParams(3, 2, 30, 0))
        with pytest.raises(OutOfRangeError, match=r"writes GM bytes \[2048, 4160\)"):
            A.DataCopy(g[512], t, DataCopyParams(3, 2, 0, 30))
        with pytest.raises(OutOfRangeError, match="touches 2112 bytes of dst"):
            A.DataCopy(tensor(ub, UB0, f32, 512), tensor(ub, UB0 + 8192, f32),
                       DataCopyParams(3, 2, 0, 30))

    _, run = run_ub(body, gm=(x,))
    assert [r.name for r in run.decoded(0)] == ["DataCopy"]
