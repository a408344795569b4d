"""How `ascsim run|profile|sweep sigmoid_cross_entropy_with_logits_grad_v2` builds inputs, calls
the op (through the aclnn API) and checks it."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from . import binary_cross_entropy_with_logits_backward, run_kernel, tiling_for
from .reference import numpy_model

OP = "sigmoid_cross_entropy_with_logits_grad_v2"
OP_TYPE = "SigmoidCrossEntropyWithLogitsGradV2"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reduction", default="mean", choices=("none", "mean", "sum"),
                        help="reduction of the loss (default mean; mean/sum use a [1] "
                             "grad_output as the operator's ST cases do)")
    parser.add_argument("--weight", action="store_true", help="pass a weight tensor")
    parser.add_argument("--pos-weight", action="store_true", help="pass a pos_weight tensor")
    parser.add_argument("--direct", action="store_true",
                        help="launch the kernel variant for exactly the weights given (the "
                             "aclnn path always passes both weights, replacing a missing one "
                             "with ones); grad_output is then full size")


def make_inputs(shape: tuple[int, ...], dtype: np.dtype, rng: np.random.Generator,
                args: argparse.Namespace) -> dict[str, np.ndarray | None]:
    """The ranges of the operator's ST cases: self and weights in [-1, 1], target in [0, 1],
    grad_output in [-1, 1] (shape [1] for mean and sum)."""
    def draw(lo: float, hi: float, s: tuple[int, ...] = shape) -> np.ndarray:
        return rng.uniform(lo, hi, s).astype(np.float32).astype(dtype)
    grad_shape = shape if args.reduction == "none" or args.direct else (1,)
    return {"grad_output": draw(-1.0, 1.0, grad_shape), "self": draw(-1.0, 1.0),
            "target": draw(0.0, 1.0),
            "weight": draw(-1.0, 1.0) if args.weight else None,
            "pos_weight": draw(-1.0, 1.0) if args.pos_weight else None}


def run(inputs: dict[str, np.ndarray | None], args: argparse.Namespace, **device: Any) -> tuple:
    if args.direct:
        device = {k: v for k, v in device.items() if v is not None}
        return run_kernel(inputs["self"], inputs["target"], inputs["grad_output"],
                          inputs["weight"], inputs["pos_weight"], args.reduction, **device)
    return binary_cross_entropy_with_logits_backward(
        inputs["grad_output"], inputs["self"], inputs["target"], inputs["weight"],
        inputs["pos_weight"], args.reduction, return_run=True, **device)


def model(inputs: dict[str, np.ndarray | None], args: argparse.Namespace) -> np.ndarray:
    return numpy_model(inputs["grad_output"], inputs["self"], inputs["target"], inputs["weight"],
                       inputs["pos_weight"], args.reduction)


def tiles(inputs: dict[str, np.ndarray | None], args: argparse.Namespace) -> int:
    """Tiles over all cores (the aclnn path always gives the kernel both weights)."""
    x = inputs["self"]
    if x.size == 0:
        return 0
    both = not args.direct
    tiling = tiling_for(x.shape, x.dtype, both or inputs["weight"] is not None,
                        both or inputs["pos_weight"] is not None, args.reduction)
    t = tiling.data
    small = tiling.block_dim - t.tailBlockNum
    return t.tailBlockNum * t.finalBigTileNum + small * t.finalSmallTileNum
