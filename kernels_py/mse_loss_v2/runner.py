"""MSELossV2 as an `ascsim.Operator`: how `ascsim run|profile|sweep|sanitize|trace mse_loss_v2`
builds inputs, calls the op (through aclnnMseLoss) and checks it."""

from __future__ import annotations

from typing import Any

import numpy as np

import ascsim
from ascsim import aclnn

from . import mse_loss, tiling_for
from .knobs import KNOBS, OP_TYPE
from .reference import numpy_model


def make_inputs(shape: tuple[int, ...], dtype: np.dtype, rng: np.random.Generator,
                options: dict[str, Any]) -> dict[str, np.ndarray]:
    """The ranges of the operator's ST cases: self and target uniform in [-1, 1]."""
    def draw() -> np.ndarray:
        return rng.uniform(-1.0, 1.0, shape).astype(np.float32).astype(dtype)
    return {"self": draw(), "target": draw()}


# The sum's bits depend on the work split (cores, tile length), which the profile and a
# sweep's knobs choose: `run` keeps the tiling it launched with in options["_tiling"], so that
# `model` and `tiles` (called after it) follow the same split.
_TILING = "_tiling"


def run(inputs: dict[str, np.ndarray], options: dict[str, Any], **device: Any) -> tuple:
    out, r = mse_loss(inputs["self"], inputs["target"], options["reduction"], return_run=True,
                      **device)
    options[_TILING] = None if r is None else r.tiling
    return out, r


def _tiling(inputs: dict[str, np.ndarray], options: dict[str, Any]) -> Any:
    t = options.get(_TILING)
    if t is None:  # no run yet: the default profile's own tiling
        x = inputs["self"]
        t = tiling_for(x.shape, x.dtype, options["reduction"],
                       aclnn.current_settings().profile.name).data
    return t


def model(inputs: dict[str, np.ndarray], options: dict[str, Any]) -> np.ndarray:
    x = inputs["self"]
    if x.size == 0 or options["reduction"] == "none":
        return numpy_model(x, inputs["target"], options["reduction"])
    t = _tiling(inputs, options)
    return numpy_model(x, inputs["target"], options["reduction"], cores=int(t.coreNum),
                       tile_length=int(t.tileLength))


def tiles(inputs: dict[str, np.ndarray], options: dict[str, Any]) -> int:
    """Tiles over all cores (full tiles plus each core's tail tile)."""
    if inputs["self"].size == 0:
        return 0
    d = _tiling(inputs, options)
    ordinary = (int(d.coreNum) - 1) * (d.epochs + (1 if d.tailTileLength else 0))
    last = d.epochsForLastCore + (1 if d.tailTileLengthForLastCore + d.tailElems else 0)
    return ordinary + last


OPERATOR = ascsim.Operator(
    name="mse_loss_v2", op_type=OP_TYPE, run=run, make_inputs=make_inputs, model=model,
    dtypes=("float32", "float16", "bfloat16"), knobs=KNOBS, tiles=tiles,
    options=(
        ascsim.Option("reduction", str, "mean", "reduction of the loss", ("none", "mean", "sum")),
    ),
    doc="aclnnMseLoss: (self - target)^2, reduced by none / mean / sum")
