"""REGISTER_TILING_DEFAULT / REGISTER_TILING_FOR_TILINGKEY (ascendc_more.md (c)): the struct a
kernel registers is the one GET_TILING_DATA must find; a per-key struct needs the default
first and replaces it for the keys its condition selects."""

from __future__ import annotations

import numpy as np
import pytest

import ascsim
from ascsim.ascendc import (
    GET_TILING_DATA,
    REGISTER_TILING_DEFAULT,
    REGISTER_TILING_FOR_TILINGKEY,
    TilingData,
    uint32_t,
    uint64_t,
)
from ascsim.errors import ParameterError


class MyTiling(TilingData):
    _fields_ = (("n", uint64_t),)


class OtherTiling(TilingData):
    _fields_ = (("k", uint32_t),)


def _launch(body, tiling, key=1):
    seen = []

    def kernel(x, tiling_arg):
        body()
        seen.append(GET_TILING_DATA(tiling_arg))
    ascsim.launch(kernel, 1, np.zeros(8, np.float32), tiling=tiling, tiling_key=key)
    return seen[0]


def test_the_registered_struct_is_read() -> None:
    got = _launch(lambda: REGISTER_TILING_DEFAULT(MyTiling), MyTiling(n=7))
    assert got == MyTiling(n=7)


def test_a_launch_with_another_struct_is_refused() -> None:
    with pytest.raises(ParameterError, match="registered MyTiling .* launch's tiling is a "
                                             "OtherTiling"):
        _launch(lambda: REGISTER_TILING_DEFAULT(MyTiling), OtherTiling(k=1))


def test_a_per_key_struct_needs_the_default_first() -> None:
    with pytest.raises(ParameterError, match="needs REGISTER_TILING_DEFAULT first"):
        _launch(lambda: REGISTER_TILING_FOR_TILINGKEY("TILING_KEY_VAR == 2", OtherTiling),
                OtherTiling(k=1), key=2)


@pytest.mark.parametrize("key, tiling, ok", [
    (2, OtherTiling(k=3), True), (3, OtherTiling(k=3), True), (1, MyTiling(n=1), True),
    (1, OtherTiling(k=3), False), (2, MyTiling(n=1), False)])
def test_a_per_key_struct_replaces_the_default_for_its_keys(key, tiling, ok) -> None:
    def body():
        REGISTER_TILING_DEFAULT(MyTiling)
        REGISTER_TILING_FOR_TILINGKEY("TILING_KEY_VAR == 2 || (TILING_KEY_VAR >= 3 && "
                                      "!(TILING_KEY_VAR == 9))", OtherTiling)
    if ok:
        assert _launch(body, tiling, key) == tiling
    else:
        with pytest.raises(ParameterError, match="GET_TILING_DATA: the kernel registered"):
            _launch(body, tiling, key)


def test_only_tiling_structs_register() -> None:
    with pytest.raises(ParameterError, match="is not a tiling struct"):
        _launch(lambda: REGISTER_TILING_DEFAULT(int), MyTiling(n=1))
