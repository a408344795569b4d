"""Deferred execution against eager execution, launch by launch.

`launch_both_ways` runs a launch twice: eagerly in a forked child process (which sees the caller's
arrays as they are and whose writes, and any other side effect of the kernel's Python, stay in the
child) and deferred (batch.py) in this process, as asked. It asserts that both give the same GM
bytes, the same records on every core, the same kernel log, the same sanitizer findings (check and
strict mode) and the same error (type and message). With `threads` > 1 the records and findings are
not compared: cross-core waits record the threads' interleaving, which eager runs do not repeat
either; nor are the GM bytes of a kernel whose cores write the same bytes unordered (a finding of
check mode): which write lands last depends on the threads. tests/conftest.py's `--both-ways`
option routes every launch of a pytest run through it, so any test kernel checks the deferred
executor.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import records as rec
from ..runtime import Run

__all__ = ["launch_both_ways", "BothWaysMismatch"]


class BothWaysMismatch(AssertionError):
    """Deferred execution gave something eager execution did not."""


def _raw(a: Any) -> bytes | None:
    if not isinstance(a, np.ndarray):
        return None
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8).tobytes()


def _portable(row: tuple) -> tuple:
    """A row with its code id replaced by where the code is (ids are per process)."""
    code = rec.code_of(row)
    where = None if code is None else (code.co_filename, code.co_firstlineno, code.co_name)
    return row[:rec.CODE] + (where,) + row[rec.CODE + 1:]


def _outcome(run: Run | None, err: BaseException | None, gm: tuple) -> dict:
    return {"gm": [_raw(a) for a in gm],
            "records": None if run is None else [[_portable(r) for r in c.records]
                                                 for c in run.cores],
            "log": None if run is None else run.log(),
            # a finding's repr has every field but the error class (its kind says it)
            "findings": None if run is None else [repr(f) for f in run.findings],
            "error": None if err is None else (type(err).__name__, str(err))}


def _launch(launch: Callable[..., Run], kernel: Any, block_dim: int, gm: tuple, kwargs: dict,
            execution: str) -> tuple[Run | None, BaseException | None]:
    try:
        return launch(kernel, block_dim, *gm, execution=execution, **kwargs), None
    except Exception as e:  # noqa: BLE001 - compared, then raised again
        return None, e


def _eager_in_child(launch: Callable[..., Run], kernel: Any, block_dim: int, gm: tuple,
                    kwargs: dict) -> dict:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run eagerly, send what it gave, leave without cleaning up
        try:
            os.close(read)
            run, err = _launch(launch, kernel, block_dim, gm, kwargs, "eager")
            with os.fdopen(write, "wb") as out:
                out.write(pickle.dumps(_outcome(run, err, gm)))
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as inp:
        data = inp.read()
    os.waitpid(pid, 0)
    if not data:
        raise BothWaysMismatch("the eager twin's process died")
    return pickle.loads(data)


def launch_both_ways(launch: Callable[..., Run], kernel: Any, block_dim: int, *gm: Any,
                     **kwargs: Any) -> Run:
    """`launch(kernel, block_dim, *gm, **kwargs)`, checked against its eager twin (a launch
    with an explicit `execution` is run once, as asked)."""
    if kwargs.get("execution") is not None:
        return launch(kernel, block_dim, *gm, **kwargs)
    eager = _eager_in_child(launch, kernel, block_dim, gm, kwargs)
    run, err = _launch(launch, kernel, block_dim, gm, kwargs, "deferred")
    got = _outcome(run, err, gm)
    name = getattr(kernel, "__name__", str(kernel))
    if got["error"] != eager["error"]:
        raise BothWaysMismatch(f"{name}: eager raised {eager['error']}, deferred "
                               f"{got['error']}")
    # With cores on several threads, the records of cross-core waits (CrossCoreWaitFlag's
    # wait count) follow the threads' interleaving, in eager runs too: outputs only, then; and
    # not even those when the sanitizer found cores writing the same GM bytes unordered.
    threaded = int(kwargs.get("threads") or 1) > 1
    racy = threaded and run is not None and any(
        f.kind == "multicore" and f.check == "multi-core write overlap" for f in run.findings)
    for k, (a, b) in enumerate(zip(got["gm"], eager["gm"], strict=True)):
        if a != b and not racy:
            raise BothWaysMismatch(f"{name}: GM argument {k} differs between eager and "
                                   "deferred execution")
    if got["records"] != eager["records"] and not threaded:
        for c, (mine, twin) in enumerate(zip(got["records"], eager["records"], strict=True)):
            if mine != twin:
                first = next((i for i, (x, y) in enumerate(zip(mine, twin, strict=False))
                              if x != y), None)
                raise BothWaysMismatch(f"{name}: core {c}'s records differ (first at row "
                                       f"{first}: {len(mine)} vs {len(twin)} rows)")
    if got["log"] != eager["log"]:
        raise BothWaysMismatch(f"{name}: the kernel logs differ")
    if got["findings"] != eager["findings"] and not threaded:  # they cite records
        diff = next((f"{a}\nagainst eager\n{b}" for a, b in
                     zip(got["findings"], eager["findings"], strict=False) if a != b),
                    f"{len(got['findings'])} findings against {len(eager['findings'])}")
        raise BothWaysMismatch(f"{name}: the sanitizer findings differ: {diff}")
    if err is not None:
        raise err
    return run
