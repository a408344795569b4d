"""SigmoidCrossEntropyWithLogitsGradV2 as an `ascsim.Operator`: how `ascsim run|profile|sweep|
sanitize|trace sigmoid_cross_entropy_with_logits_grad_v2` builds inputs, calls the op (through
the aclnn API, or the kernel directly with `direct`) and checks it."""

from __future__ import annotations

from typing import Any

import numpy as np

import ascsim

from . import binary_cross_entropy_with_logits_backward, run_kernel, tiling_for
from .knobs import KNOBS, OP_TYPE
from .reference import direct_model, numpy_model


def make_inputs(shape: tuple[int, ...], dtype: np.dtype, rng: np.random.Generator,
                options: dict[str, Any]) -> dict[str, np.ndarray | None]:
    """The ranges of the operator's ST cases: self and weights in [-1, 1], target in [0, 1],
    grad_output in [-1, 1] (shape [1] for mean and sum)."""
    def draw(lo: float, hi: float, s: tuple[int, ...] = shape) -> np.ndarray:
        return rng.uniform(lo, hi, s).astype(np.float32).astype(dtype)
    grad_shape = shape if options["reduction"] == "none" or options["direct"] else (1,)
    return {"grad_output": draw(-1.0, 1.0, grad_shape), "self": draw(-1.0, 1.0),
            "target": draw(0.0, 1.0),
            "weight": draw(-1.0, 1.0) if options["weight"] else None,
            "pos_weight": draw(-1.0, 1.0) if options["pos_weight"] else None}


def run(inputs: dict[str, np.ndarray | None], options: dict[str, Any], **device: Any) -> tuple:
    if options["direct"]:
        device = {k: v for k, v in device.items() if v is not None}
        return run_kernel(inputs["self"], inputs["target"], inputs["grad_output"],
                          inputs["weight"], inputs["pos_weight"], options["reduction"], **device)
    return binary_cross_entropy_with_logits_backward(
        inputs["grad_output"], inputs["self"], inputs["target"], inputs["weight"],
        inputs["pos_weight"], options["reduction"], return_run=True, **device)


def model(inputs: dict[str, np.ndarray | None], options: dict[str, Any]) -> np.ndarray:
    if options["direct"]:  # the variant for exactly the weights given, in its own op order
        return direct_model(inputs["self"], inputs["target"], inputs["grad_output"],
                            inputs["weight"], inputs["pos_weight"], options["reduction"])
    return numpy_model(inputs["grad_output"], inputs["self"], inputs["target"], inputs["weight"],
                       inputs["pos_weight"], options["reduction"])


def tiles(inputs: dict[str, np.ndarray | None], options: dict[str, Any]) -> int:
    """Tiles over all cores (the aclnn path always gives the kernel both weights)."""
    x = inputs["self"]
    if x.size == 0:
        return 0
    both = not options["direct"]
    tiling = tiling_for(x.shape, x.dtype, both or inputs["weight"] is not None,
                        both or inputs["pos_weight"] is not None, options["reduction"])
    t = tiling.data
    small = tiling.block_dim - t.tailBlockNum
    return t.tailBlockNum * t.finalBigTileNum + small * t.finalSmallTileNum


OPERATOR = ascsim.Operator(
    name="sigmoid_cross_entropy_with_logits_grad_v2", op_type=OP_TYPE, run=run,
    make_inputs=make_inputs, model=model, dtypes=("float32", "float16", "bfloat16"),
    knobs=KNOBS, tiles=tiles,
    options=(
        ascsim.Option("reduction", str, "mean", "reduction of the loss (mean/sum use a [1] "
                      "grad_output as the operator's ST cases do)", ("none", "mean", "sum")),
        ascsim.Option("weight", bool, help="pass a weight tensor"),
        ascsim.Option("pos_weight", bool, help="pass a pos_weight tensor"),
        ascsim.Option("direct", bool, help="launch the kernel variant for exactly the weights "
                      "given (the aclnn path always passes both weights, replacing a missing "
                      "one with ones); grad_output is then full size"),
    ),
    doc="aclnnBinaryCrossEntropyWithLogitsBackward: the gradient of BCE-with-logits")
