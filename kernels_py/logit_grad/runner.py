"""How `ascsim run|profile|sweep logit_grad` builds inputs, calls the op and checks it."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from . import logit_grad
from .reference import numpy_model

OP = "logit_grad"
OP_TYPE = "LogitGrad"
TILE = 8192


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--eps", type=float, default=-1.0, help="eps attribute (default -1)")


def make_inputs(shape: tuple[int, ...], dtype: np.dtype, rng: np.random.Generator,
                args: argparse.Namespace) -> dict[str, np.ndarray]:
    """x in (0, 1) as the operator's ST cases draw it, dy in [-100, 100]."""
    x = rng.uniform(0.0, 1.0, shape).astype(np.float32).astype(dtype)
    dy = rng.uniform(-100.0, 100.0, shape).astype(np.float32).astype(dtype)
    return {"x": x, "dy": dy}


def run(inputs: dict[str, np.ndarray], args: argparse.Namespace, **device: Any) -> tuple:
    return logit_grad(inputs["x"], inputs["dy"], args.eps, return_run=True, **device)


def model(inputs: dict[str, np.ndarray], args: argparse.Namespace) -> np.ndarray:
    return numpy_model(inputs["x"], inputs["dy"], args.eps)


def tiles(inputs: dict[str, np.ndarray], args: argparse.Namespace) -> int:
    return -(-inputs["x"].size // TILE)
