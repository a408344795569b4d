"""LogitGrad as an `ascsim.Operator`: how `ascsim run|profile|sweep|sanitize|trace logit_grad`
builds inputs, calls the op and checks it."""

from __future__ import annotations

from typing import Any

import numpy as np

import ascsim

from . import logit_grad
from .knobs import KNOBS
from .reference import numpy_model

TILE = 8192


def make_inputs(shape: tuple[int, ...], dtype: np.dtype, rng: np.random.Generator,
                options: dict[str, Any]) -> dict[str, np.ndarray]:
    """x in (0, 1) as the operator's ST cases draw it, dy in [-100, 100]."""
    x = rng.uniform(0.0, 1.0, shape).astype(np.float32).astype(dtype)
    dy = rng.uniform(-100.0, 100.0, shape).astype(np.float32).astype(dtype)
    return {"x": x, "dy": dy}


def run(inputs: dict[str, np.ndarray], options: dict[str, Any], **device: Any) -> tuple:
    return logit_grad(inputs["x"], inputs["dy"], options["eps"], return_run=True, **device)


def model(inputs: dict[str, np.ndarray], options: dict[str, Any]) -> np.ndarray:
    return numpy_model(inputs["x"], inputs["dy"], options["eps"])


def tiles(inputs: dict[str, np.ndarray], options: dict[str, Any]) -> int:
    return -(-inputs["x"].size // TILE)


OPERATOR = ascsim.Operator(
    name="logit_grad", op_type="LogitGrad", run=run, make_inputs=make_inputs, model=model,
    dtypes=("float32", "float16", "bfloat16"), knobs=KNOBS, tiles=tiles,
    options=(ascsim.Option("eps", float, -1.0, "eps attribute"),),
    doc="aclnnLogitGrad: dx = dy / (x (1 - x)) inside [eps, 1 - eps]")
