"""Shared helpers of the instruction and semantics tests.

`run_ub(body, init)` runs `body(ub)` as a one-core kernel, where `ub` is a `LocalTensor<uint8_t>`
over the whole Unified Buffer, after poking `init` arrays into UB directly (test set-up, not a
simulated instruction, so that each instruction is tested without trusting DataCopy). It returns
the UB bytes after the kernel and the `Run`. `bits`, `is_nan_bits` and `assert_same_bits`
compare results bit for bit; `custom_profile` writes a variant of the default hardware profile.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ascsim
from ascsim.ascendc import GlobalTensor, QuePosition, TBuf, TPipe, uint8_t
from ascsim.core import current_core
from ascsim.dtypes import DType
from ascsim.memory import LocalTensor
from ascsim.profile import DEFAULT_PROFILE, PROFILE_DIR

UB_BYTES = 196608
TMP_UB_OFFSET = 188416
BF16 = np.dtype(ml_dtypes.bfloat16)

# (bits dtype, magnitude mask, bits of +inf) of each float format: NaN = magnitude > +inf
_FLOAT_BITS = {
    np.dtype(np.float32): (np.uint32, 0x7FFFFFFF, 0x7F800000),
    np.dtype(np.float16): (np.uint16, 0x7FFF, 0x7C00),
    BF16: (np.uint16, 0x7FFF, 0x7F80),
}


def run_ub(body: Callable[..., None], init: Iterable[tuple[int, np.ndarray]] = (),
           profile: object = None, gm: tuple[np.ndarray, ...] = (),
           pipe_bytes: int = UB_BYTES, sanitize: str = "off") -> tuple[np.ndarray, ascsim.Run]:
    """Run `body(ub, *gm_buffers)` on one core; `ub` is a TBuf of the first `pipe_bytes` bytes
    of UB (the rest is the free UB after the TPipe's buffers); `init` = (UB byte address,
    array) pairs written first, `gm` up to three arrays passed as the kernel's GM arguments x,
    y, z. Returns (UB bytes after, run)."""

    def kernel(x: object = None, y: object = None, z: object = None) -> None:
        pipe = TPipe()
        buf = TBuf[QuePosition.VECCALC]()
        pipe.InitBuffer(buf, pipe_bytes)
        core = current_core()
        for addr, arr in init:
            raw = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
            core.ub[addr:addr + raw.size] = raw
        body(buf.Get[uint8_t](), *(x, y, z)[:len(gm)])

    run = ascsim.launch(kernel, 1, *gm, profile=profile, sanitize=sanitize)
    return run.cores[0].ub.copy(), run


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--both-ways", action="store_true",
                     help="run every launch eagerly and deferred and compare them "
                          "(ascsim/testing/bothways.py)")


def patch_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    """Route every launch (direct, through an aclnn API or an op's direct entry) through
    `launch_both_ways`: each launch is checked against its eager twin."""
    import ascsim.aclnn
    import ascsim.runtime
    import kernels_py.mse_loss_v2.direct
    import kernels_py.sigmoid_cross_entropy_with_logits_grad_v2.direct
    from ascsim.testing.bothways import launch_both_ways
    original = ascsim.runtime.launch

    def both(kernel: object, block_dim: int, *gm: object, **kwargs: object) -> ascsim.Run:
        return launch_both_ways(original, kernel, block_dim, *gm, **kwargs)

    for module in (ascsim, ascsim.runtime, ascsim.aclnn, kernels_py.mse_loss_v2.direct,
                   kernels_py.sigmoid_cross_entropy_with_logits_grad_v2.direct):
        monkeypatch.setattr(module, "launch", both)


@pytest.fixture(autouse=True)
def _both_ways(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --both-ways, every launch a test makes is checked against its eager twin."""
    if request.config.getoption("--both-ways"):
        patch_both_ways(monkeypatch)


@pytest.fixture
def both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every launch of the test is checked against its eager twin."""
    patch_both_ways(monkeypatch)


def custom_profile(directory: Path, key: str, toml_value: str) -> Path:
    """A copy of the default profile file with `key = { value = <toml_value>, ... }` changed."""
    text = (PROFILE_DIR / f"{DEFAULT_PROFILE}.toml").read_text()
    new, n = re.subn(rf"^{key} = {{ value = [^,]+,", f"{key} = {{ value = {toml_value},", text,
                     flags=re.M)
    assert n == 1, f"no {key} in the default profile"
    path = directory / f"{key}.toml"
    path.write_text(new)
    return path


@pytest.fixture
def no_bf16_profile(tmp_path: Path) -> str:
    """The default profile with bf16 switched off (a SoC whose aclnn dtype lists lack it)."""
    return str(custom_profile(tmp_path, "bf16", "false"))


def tensor(ub: LocalTensor, addr: int, dtype: DType, size: int | None = None) -> LocalTensor:
    """A LocalTensor<dtype> at UB byte `addr` (of `size` elements, default: up to the UB end)."""
    t = ub[addr].ReinterpretCast[dtype]()
    if size is not None:
        t.SetSize(size)
    return t


def gtensor(buf: object, dtype: DType, size: int | None = None) -> GlobalTensor:
    """A GlobalTensor<dtype> bound to a GM kernel argument."""
    g = GlobalTensor[dtype]()
    g.SetGlobalBuffer(buf, size)
    return g


def ub_array(ub: np.ndarray, addr: int, np_dtype: object, n: int) -> np.ndarray:
    """`n` elements of `np_dtype` at UB byte `addr` of a UB snapshot."""
    dt = np.dtype(np_dtype)
    return ub[addr:addr + n * dt.itemsize].view(dt)


def bits(a: np.ndarray) -> np.ndarray:
    """The raw bit patterns of an array (unsigned integers of the same width)."""
    a = np.asarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def is_nan_bits(a: np.ndarray) -> np.ndarray:
    """NaN test on bit patterns: works for float32, float16 and bfloat16 alike."""
    a = np.asarray(a)
    spec = _FLOAT_BITS.get(a.dtype)
    if spec is None:
        return np.zeros(a.shape, bool)
    u, mag, inf = spec
    return (a.view(u) & mag) > inf


def assert_same_bits(got: np.ndarray, want: np.ndarray, what: str = "") -> None:
    """Bit-for-bit equality. Where `want` is a NaN, `got` must be a NaN too: NaN payloads are
    not pinned (the hardware's are undocumented and the host's depend on operand order)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    nan_want, nan_got = is_nan_bits(want), is_nan_bits(got)
    bad = (bits(got) != bits(want)) & ~(nan_want & nan_got)
    if bad.any():
        idx = np.flatnonzero(bad)[:8]
        rows = "\n".join(f"  [{i}] got {got[i]!r} ({int(bits(got)[i]):#x}) want {want[i]!r} "
                         f"({int(bits(want)[i]):#x})" for i in idx)
        raise AssertionError(f"{what}: {int(bad.sum())} element(s) differ, first:\n{rows}")
