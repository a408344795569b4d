"""Finding an operator's runner: `kernels_py.<op>.runner` tells the command line how to build
inputs for the op, call it, and check it against its numpy model."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import ml_dtypes
import numpy as np

__all__ = ["get_runner", "runner_names", "parse_shape", "parse_dtype"]

DTYPES = {"float32": np.float32, "float": np.float32, "fp32": np.float32,
          "float16": np.float16, "half": np.float16, "fp16": np.float16,
          "bfloat16": ml_dtypes.bfloat16, "bf16": ml_dtypes.bfloat16}


def runner_names() -> list[str]:
    import kernels_py
    return sorted(m.name for m in pkgutil.iter_modules(kernels_py.__path__) if m.ispkg
                  and importlib.util.find_spec(f"kernels_py.{m.name}.runner") is not None)


def get_runner(op: str) -> ModuleType:
    names = runner_names()
    if op not in names:
        raise SystemExit(f"ascsim: unknown operator {op!r}; known: {', '.join(names)}")
    return importlib.import_module(f"kernels_py.{op}.runner")


def parse_shape(text: str) -> tuple[int, ...]:
    text = text.strip()
    if text in ("", "()", "scalar"):
        return ()
    try:
        shape = tuple(int(p) for p in text.replace("x", ",").split(",") if p.strip())
    except ValueError:
        raise SystemExit(f"ascsim: bad --shape {text!r} (use e.g. 64,8192)") from None
    if any(d < 0 for d in shape):
        raise SystemExit(f"ascsim: bad --shape {text!r}: negative dimension")
    return shape


def parse_dtype(text: str) -> np.dtype:
    try:
        return np.dtype(DTYPES[text.lower()])
    except KeyError:
        raise SystemExit(f"ascsim: unknown --dtype {text!r}; use one of "
                         f"{', '.join(sorted(DTYPES))}") from None
