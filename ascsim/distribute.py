"""Where independent jobs run (the combinations of a sweep, the cases of a golden regression):
a pool of local worker processes, or a Dask distributed cluster when the work outgrows one
machine.

    with open_pool(scheduler, workers) as pool:
        futures = {pool.submit(fn, *args): key for key, args in jobs}
        for future in pool.as_completed(futures):
            ... future.result() ...

`scheduler`: None for the process pool; "local" for a Dask LocalCluster of this machine's
cores; or the address of a running Dask scheduler ("tcp://host:8786"). Dask is the `dask`
extra (`pip install ascsim[dask]`). Jobs are plain functions of picklable arguments that
return their result, so the results do not depend on where or in which order they ran: a
distributed run gives what a serial run gives.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import as_completed as _local_completed
from typing import Any, Protocol

from .errors import UsageError

__all__ = ["Pool", "open_pool", "dask_available", "default_scheduler"]


class Pool(Protocol):
    def submit(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    def as_completed(self, futures: Iterable[Any]) -> Iterator[Any]: ...


def dask_available() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


def default_scheduler() -> str | None:
    """The command line's default: a LocalCluster where Dask is installed, else the pool."""
    return "local" if dask_available() else None


class _LocalPool:
    def __init__(self, executor: ProcessPoolExecutor) -> None:
        self.executor = executor

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        return self.executor.submit(fn, *args)

    def as_completed(self, futures: Iterable[Future]) -> Iterator[Future]:
        return _local_completed(futures)


class _DaskPool:
    def __init__(self, client: Any) -> None:
        self.client = client

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        # pure=False: two equal jobs are two runs (Dask would otherwise deduplicate them)
        return self.client.submit(fn, *args, pure=False)

    def as_completed(self, futures: Iterable[Any]) -> Iterator[Any]:
        from distributed import as_completed
        return iter(as_completed(list(futures)))


@contextlib.contextmanager
def open_pool(scheduler: str | None = None, workers: int | None = None,
              connect_timeout: str = "10s") -> Iterator[Pool]:
    """A pool for the duration of the block (see the module doc for `scheduler`); `workers`
    is the number of local processes (default: the CPUs)."""
    workers = max(1, workers or os.cpu_count() or 1)
    if scheduler is None or scheduler == "none":
        with ProcessPoolExecutor(max_workers=workers) as executor:
            yield _LocalPool(executor)
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UsageError(f"--scheduler {scheduler}: Dask is not installed (pip install "
                         "'ascsim[dask]', or leave --scheduler out for local processes)"
                         ) from None
    if scheduler == "local":
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=":0") as cluster, Client(cluster) as client:
            yield _DaskPool(client)
        return
    try:
        client = Client(scheduler, timeout=connect_timeout)
    except OSError as e:
        raise UsageError(f"--scheduler {scheduler}: cannot reach a Dask scheduler there "
                         f"({e})") from None
    with client:
        yield _DaskPool(client)
