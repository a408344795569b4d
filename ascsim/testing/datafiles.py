"""CANN-style test-data directories: inputs and the golden as raw .bin files plus a JSON meta.

    <dir>/meta.json          op, params, seed, and for every array: file, dtype, shape
    <dir>/input/<name>.bin   one file per input (an absent optional input has no file)
    <dir>/output/golden.bin  the expected output
    <dir>/output/output.bin  the output under test (written by whoever runs the kernel)

A .bin file is the array's elements in C order as little-endian bytes, nothing else: bfloat16
as its 16-bit patterns (never widened to float32), so a C++ test harness reads it with fread.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from .bitcompare import dtype_from_name, dtype_name, output_sha256

__all__ = ["write_bin", "read_bin", "write_case", "load_meta", "read_inputs", "read_array",
           "write_output", "META", "OUTPUT"]

META = "meta.json"
GOLDEN = "output/golden.bin"
OUTPUT = "output/output.bin"


def _spec(file: str, a: np.ndarray) -> dict[str, Any]:
    return {"file": file, "dtype": dtype_name(a.dtype), "shape": list(a.shape)}


def write_bin(path: Path | str, a: np.ndarray) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    a = np.ascontiguousarray(a)
    raw = a.view(np.dtype(f"u{a.dtype.itemsize}"))
    path.write_bytes(raw.astype(raw.dtype.newbyteorder("<")).tobytes())


def read_bin(path: Path | str, dtype: np.dtype | str, shape: tuple[int, ...]) -> np.ndarray:
    """The array stored in `path`; a clear error if its size does not fit dtype and shape."""
    path = Path(path)
    dt = dtype_from_name(dtype) if isinstance(dtype, str) else np.dtype(dtype)
    raw = path.read_bytes()
    n = int(np.prod(shape, dtype=np.int64))
    if len(raw) != n * dt.itemsize:
        raise ValueError(f"{path}: {len(raw)} bytes, but {dtype_name(dt)}{list(shape)} needs "
                         f"{n * dt.itemsize}")
    bits = np.frombuffer(raw, dtype=np.dtype(f"<u{dt.itemsize}"))
    return bits.astype(np.dtype(f"u{dt.itemsize}")).view(dt).reshape(shape)


def write_case(directory: Path | str, op: str, params: dict[str, Any],
               inputs: dict[str, np.ndarray | None], golden: np.ndarray,
               **extra: Any) -> dict[str, Any]:
    """Write the inputs, the golden and meta.json; returns the meta."""
    directory = Path(directory)
    meta: dict[str, Any] = {"op": op, "params": params, **extra, "inputs": {}}
    for name, a in inputs.items():
        if a is None:
            meta["inputs"][name] = None
            continue
        a = np.asarray(a)
        file = f"input/{name}.bin"
        write_bin(directory / file, a)
        meta["inputs"][name] = _spec(file, a)
    golden = np.asarray(golden)
    write_bin(directory / GOLDEN, golden)
    meta["golden"] = {**_spec(GOLDEN, golden), "sha256": output_sha256(golden)}
    meta["output"] = _spec(OUTPUT, golden)
    text = json.dumps(meta, indent=2)
    text = re.sub(r"\[\s+([-\d,\s]*?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]",
                  text)  # shapes on one line
    (directory / META).write_text(text + "\n")
    return meta


def load_meta(directory: Path | str) -> dict[str, Any]:
    path = Path(directory) / META
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist (write the case with gen_data first)")
    return json.loads(path.read_text())


def read_array(directory: Path | str, spec: dict[str, Any]) -> np.ndarray:
    """The array a meta entry ({file, dtype, shape}) describes."""
    return read_bin(Path(directory) / spec["file"], spec["dtype"], tuple(spec["shape"]))


def read_inputs(directory: Path | str) -> dict[str, np.ndarray | None]:
    """Every input of the case, None for an absent optional one."""
    meta = load_meta(directory)
    return {name: None if spec is None else read_array(directory, spec)
            for name, spec in meta["inputs"].items()}


def write_output(directory: Path | str, output: np.ndarray) -> Path:
    """Write the output under test where compare_data looks for it; checks dtype and shape
    against the golden so a wrong call fails here, not as a confusing comparison."""
    meta = load_meta(directory)
    spec = meta["output"]
    output = np.asarray(output)
    got = f"{dtype_name(output.dtype)}{list(output.shape)}"
    want = f"{spec['dtype']}{list(spec['shape'])}"
    if got != want:
        raise ValueError(f"output is {got}, the case expects {want}")
    path = Path(directory) / spec["file"]
    write_bin(path, output)
    return path
