"""CrossEntropyLoss as an `ascsim.Operator`: how `ascsim run|profile|sweep|sanitize|trace
cross_entropy_loss` builds inputs, calls the op (through the aclnn API) and checks it.

The output checked is the loss (torch-shaped: (N) for none, 0-D otherwise). The numpy model
follows the work split and chunk length of the kernel's last run on these very inputs (the
cores / tile knobs of a sweep change both, and with them the summation order); for inputs the
op has not run on, the tiling's defaults on the default profile."""

from __future__ import annotations

from typing import Any

import numpy as np

import ascsim

from . import cross_entropy_loss
from .knobs import KNOBS, OP_TYPE
from .reference import DEFAULT_CORES, numpy_model

_LAST: dict[str, Any] = {}  # the input array of the last run and (cores, inputUbSize) it used


def make_inputs(shape: tuple[int, ...], dtype: np.dtype, rng: np.random.Generator,
                options: dict[str, Any]) -> dict[str, np.ndarray | None]:
    """The ranges of the operator's ST cases: input in [-5, 5], weight in [0, 1], targets in
    [0, C) (a shape of one dimension C is one row)."""
    shape = tuple(shape) if len(shape) == 2 else (1, int(np.prod(shape)))
    n, c = shape
    x = rng.uniform(-5.0, 5.0, shape).astype(np.float32).astype(dtype)
    target = rng.integers(0, max(c, 1), n).astype(np.int64)
    weight = rng.uniform(0.0, 1.0, c).astype(np.float32) if options["weight"] else None
    return {"input": x, "target": target, "weight": weight}


def run(inputs: dict[str, np.ndarray | None], options: dict[str, Any], **device: Any) -> tuple:
    out, r = cross_entropy_loss(inputs["input"], inputs["target"], inputs["weight"],
                                options["reduction"], options["ignore_index"],
                                options["label_smoothing"], return_run=True, **device)
    _LAST.clear()
    if r is not None:
        _LAST.update(input=inputs["input"], cores=r.block_dim, tile=int(r.tiling.inputUbSize))
    return out, r


def model(inputs: dict[str, np.ndarray | None], options: dict[str, Any]) -> np.ndarray:
    x = inputs["input"]
    split = {}
    if _LAST.get("input") is x:
        split = {"cores": _LAST["cores"], "tile": _LAST["tile"]}
    loss, _ = numpy_model(x, inputs["target"], inputs["weight"], options["reduction"],
                          options["ignore_index"], options["label_smoothing"], **split)
    return loss if options["reduction"] == "none" else loss.reshape(())


def tiles(inputs: dict[str, np.ndarray | None], options: dict[str, Any]) -> int:
    """UB chunks over all rows (each row is read three times, chunk by chunk)."""
    x = inputs["input"]
    if x.size == 0:
        return 0
    from .reference import default_tile
    n, c = x.shape
    tile = default_tile(n, c, x.dtype.itemsize,
                        options["label_smoothing"] > 0 and inputs["weight"] is not None,
                        DEFAULT_CORES)
    return n * -(-c // tile)


OPERATOR = ascsim.Operator(
    name="cross_entropy_loss", op_type=OP_TYPE, run=run, make_inputs=make_inputs, model=model,
    dtypes=("float32", "float16", "bfloat16"), knobs=KNOBS, tiles=tiles,
    options=(
        ascsim.Option("reduction", str, "mean", "reduction of the loss",
                      ("none", "mean", "sum")),
        ascsim.Option("weight", bool, help="pass a class weight tensor"),
        ascsim.Option("ignore_index", int, -100, "ignore_index attribute"),
        ascsim.Option("label_smoothing", float, 0.0, "label_smoothing attribute in [0, 1]"),
    ),
    doc="aclnnCrossEntropyLoss: log_softmax and the (smoothed, weighted) NLL of the targets")
