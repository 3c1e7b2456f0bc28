"""A Dask cluster for batches: connecting to it, and checking its workers."""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .. import __version__
from .._core.options import Options
from .sizing import available_cpus

if TYPE_CHECKING:
    from .._core.types import EngineName

__all__ = [
    "LOCAL_ALLOWED_FAILURES",
    "WAIT_FOR_WORKERS",
    "ClusterError",
    "check_workers",
    "connect",
    "require_dask",
]

LOCAL_ALLOWED_FAILURES = 1  # local:N: a task whose worker died twice is given up
WAIT_FOR_WORKERS = 60.0  # seconds to wait for a first worker


class ClusterError(Exception):
    """The cluster cannot run the batch: the scheduler cannot be reached, no worker
    joined it in time, or its workers run another version of sat-claim-check."""


def require_dask() -> None:
    """ImportError, saying which extra to install, unless Dask is installed."""
    try:
        import dask.bag  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"the Dask extra is not installed ({exc}): pip install 'sat-claim-check[dask]'"
        ) from None


@contextlib.contextmanager
def _ctrl_c_for_this_process_only() -> Iterator[None]:
    """SIGINT ignored while a local cluster starts its worker processes, which
    keep it ignored (Python leaves an ignored SIGINT alone): Ctrl-C reaches
    the whole process group, and each worker printed a traceback.  This
    process stops them when it stops.  (Blocking it instead was not inherited:
    Dask starts the workers from threads of its own.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, kept)


def connect(scheduler: str) -> tuple[Any, Any]:
    """(client, cluster) for ``--scheduler``: ``local`` or ``local:N`` starts a
    ``distributed.LocalCluster`` of N worker processes (one per CPU without N)
    on 127.0.0.1, returned as the cluster; anything else is the address of a
    running scheduler (cluster None), given up after Dask's
    ``distributed.comm.timeouts.connect`` (30 s unless configured).  Close both
    when done.  Raises ClusterError, or ValueError for a malformed ``local:N``.
    """
    require_dask()
    import dask
    from distributed import Client, LocalCluster

    if scheduler == "local" or scheduler.startswith("local:"):
        text = scheduler.partition(":")[2]
        if text and not (text.isdigit() and int(text) > 0):
            raise ValueError(f"local:N needs a positive number of workers, got {text!r}")
        workers = int(text) if text else available_cpus()
        try:
            with (
                dask.config.set({"distributed.scheduler.allowed-failures": LOCAL_ALLOWED_FAILURES}),
                _ctrl_c_for_this_process_only(),
            ):
                cluster = LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=":0",
                    silence_logs=logging.CRITICAL,
                )
        except Exception as exc:  # no processes, no port: say why, no traceback
            raise ClusterError(
                f"cannot start a local cluster of {workers} workers: {type(exc).__name__}: {exc}"
            ) from None
        return Client(cluster), cluster
    import asyncio  # here, not above: distributed has imported it; verify has no need of it

    try:
        return Client(scheduler, timeout=dask.config.get("distributed.comm.timeouts.connect")), None
    except (OSError, asyncio.TimeoutError, ValueError, TypeError) as exc:
        raise ClusterError(f"cannot reach the scheduler at {scheduler}: {exc}") from None


def _worker_report(engine: EngineName) -> tuple[str, str | None]:
    """On a worker: its version of sat-claim-check, and why ``engine`` cannot run there."""
    try:
        Options.of(engine)
    except ImportError as exc:
        return __version__, str(exc)
    return __version__, None


def check_workers(client: Any, engine: EngineName, wait: float = WAIT_FOR_WORKERS) -> int:
    """Wait for a first worker, check that every worker runs this version of
    sat-claim-check and can use ``engine``; the number of threads.  Raises
    ClusterError."""
    import asyncio  # here, not above: distributed has imported it

    try:
        client.wait_for_workers(1, timeout=wait)
    except (TimeoutError, asyncio.TimeoutError, OSError):
        raise ClusterError(f"no worker joined the scheduler within {wait:g} s") from None
    try:
        reports = client.run(_worker_report, engine)
    except Exception as exc:  # the workers cannot even import sat-claim-check
        raise ClusterError(
            f"the workers cannot run sat-claim-check: {type(exc).__name__}: {exc}"
        ) from None
    for address, (version, problem) in sorted(reports.items()):
        if version != __version__:
            raise ClusterError(
                f"the worker {address} runs sat-claim-check {version}, this batch {__version__}"
            )
        if problem is not None:
            raise ClusterError(f"the worker {address} cannot run the engine: {problem}")
    threads: int = sum(client.nthreads().values())
    return max(1, threads)
