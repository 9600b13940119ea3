"""Where items run: in this process, on any ``concurrent.futures.Executor`` (by default a local
process pool), or on a Dask cluster through a ``dask.distributed.Client`` — the same task
function everywhere, results gathered as they complete and put back in input order.

Dask is imported only when a Dask client or scheduler address is given.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import NoWorkers, UsageError
from ._tasks import error_row

__all__ = [
    "INLINE",
    "Runner",
    "dask_client",
    "describe",
    "is_dask_client",
    "is_local",
    "runner",
    "shows",
]

INLINE = "inline"
DASK_EXTRA = "pip install 'ctx-lab[dask]'"
SCHEMES = ("tcp://", "inproc://", "ws://")
# schemes Dask knows that ctx-lab cannot connect with: TLS needs certificates the command line
# does not take, UCX needs ucx-py and its hardware
UNSUPPORTED_SCHEMES = {
    "tls://": "needs TLS certificates, which ctx-lab's --scheduler does not take",
    "wss://": "needs TLS certificates, which ctx-lab's --scheduler does not take",
    "ucx://": "needs ucx-py and UCX hardware",
}


def is_dask_client(executor: Any) -> bool:
    """Whether ``executor`` is a ``dask.distributed.Client`` (checked without importing dask)."""
    return type(executor).__module__.split(".")[0] == "distributed" and hasattr(
        executor, "scheduler_info"
    )


def is_local(executor: Any) -> bool:
    """Whether work runs in this process, where counters need not travel by name."""
    return executor == INLINE or isinstance(executor, cf.ThreadPoolExecutor)


def describe(executor: Any, workers: int | None) -> str:
    """How the run was executed, for reports: ``inline``, ``process pool, 2 workers``, a Dask
    client's scheduler and workers, or an Executor's type."""
    if executor is None:
        return f"process pool, {workers or os.cpu_count() or 1} workers"
    if executor == INLINE:
        return "inline (this process)"
    if is_dask_client(executor):
        workers_info = executor.scheduler_info().get("workers", {})
        return f"dask {executor.scheduler.address}, {len(workers_info)} workers"
    return type(executor).__name__


DEFAULT_NO_WORKER_TIMEOUT = 60.0  # seconds a Dask run may have no worker before it stops


def scheduler_address(address: str) -> str:
    """``address`` when it is a Dask scheduler address — ``scheme://host:port`` with a known
    scheme, a host, a port 1–65535 and nothing else — else :class:`UsageError` saying what
    is wrong (never a connection to some other port)."""
    from urllib.parse import urlsplit

    shown = address if len(address) <= 100 else address[:100] + "…"
    for scheme, why in UNSUPPORTED_SCHEMES.items():
        if isinstance(address, str) and address.lower().startswith(scheme):
            raise UsageError(
                f"scheduler {shown!r}: {scheme} {why}; use tcp://host:8786 (through an SSH "
                "tunnel or a private network) or connect a dask.distributed Client yourself "
                "and pass it as the executor"
            )
    if not isinstance(address, str) or not address.startswith(SCHEMES):
        raise UsageError(
            f"scheduler {shown!r}: use a Dask scheduler address such as tcp://host:8786 "
            f"({', '.join(s[:-3] for s in SCHEMES)})"
        )
    if address.startswith("inproc://"):
        return address
    try:
        parts = urlsplit(address)
        port = parts.port
    except ValueError as exc:
        raise UsageError(f"scheduler {shown!r}: {exc}") from None
    if not parts.hostname or port is None or not 1 <= port <= 65_535:
        raise UsageError(f"scheduler {shown!r}: needs a host and a port 1–65535")
    if (
        parts.username
        or parts.password
        or parts.path not in ("", "/")
        or parts.query
        or (parts.fragment)
    ):
        raise UsageError(f"scheduler {shown!r}: only scheme://host:port")
    return address.rstrip("/")


def dask_client(address: str) -> Any:
    """A ``dask.distributed.Client`` connected to the scheduler at ``address``."""
    address = scheduler_address(address)
    try:
        from distributed import Client
    except ImportError as exc:
        raise UsageError(
            f"a Dask scheduler ({address}) needs dask.distributed here and on the workers: "
            f"{DASK_EXTRA}"
        ) from exc
    try:
        return Client(address, timeout="20s")
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: {exc}") from exc


def _pool(workers: int) -> cf.ProcessPoolExecutor:
    # forkserver: forking a process that runs threads (a Jupyter kernel, a server) can
    # deadlock a child; fresh workers from a clean server cannot
    methods = multiprocessing.get_all_start_methods()
    method = "forkserver" if "forkserver" in methods else "spawn"
    return cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context(method),
    )


@dataclass
class Runner:
    """Runs a task function over tasks on one executor, yielding ``(index, rows)`` as items
    complete. At most ``window`` items are in flight on a pool, so a corpus of thousands
    (with file bytes attached) never sits in memory at once."""

    executor: Any
    window: int
    no_worker_timeout: float = DEFAULT_NO_WORKER_TIMEOUT

    def run(
        self, function: Callable[[Any], list[dict[str, Any]]], tasks: Iterable[tuple[str, Any]]
    ) -> Iterator[tuple[int, list[dict[str, Any]]]]:
        """``tasks`` yields ``(item, task)``; a task that cannot even be made or sent (an
        unreadable file, a dead worker) yields the item's error row."""
        if self.executor == INLINE:
            for index, (item, task) in enumerate(tasks):
                yield index, _made(task, item) or function(task)
        elif is_dask_client(self.executor):
            yield from self._dask(function, tasks)
        else:
            yield from self._futures(function, tasks)

    def _futures(
        self, function: Callable[[Any], list[dict[str, Any]]], tasks: Iterable[tuple[str, Any]]
    ) -> Iterator[tuple[int, list[dict[str, Any]]]]:
        pending: dict[cf.Future[Any], tuple[int, str]] = {}
        for index, (item, task) in enumerate(tasks):
            failed = _made(task, item)
            if failed:
                yield index, failed
                continue
            pending[self.executor.submit(function, task)] = (index, item)
            while len(pending) >= self.window:
                done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                for future in done:
                    yield _outcome(future, *pending.pop(future))
        for future in cf.as_completed(list(pending)):
            yield _outcome(future, *pending.pop(future))

    def _dask(
        self, function: Callable[[Any], list[dict[str, Any]]], tasks: Iterable[tuple[str, Any]]
    ) -> Iterator[tuple[int, list[dict[str, Any]]]]:
        from distributed import as_completed

        client = self.executor
        running = as_completed()
        where: dict[str, tuple[int, str]] = {}
        watch = _Watch(client, self.no_worker_timeout)
        numbered = iter(enumerate(tasks))
        for index, (item, task) in numbered:
            failed = _made(task, item)
            if failed:
                yield index, failed
                continue
            future = client.submit(function, task, pure=False)
            where[future.key] = (index, item)
            running.add(future)
            while running.count() >= self.window:
                done = watch.next(running)
                if done is None:
                    yield from _abandoned(where, numbered, watch.reason())
                    return
                yield _outcome(done, *where.pop(done.key))
        while running.count():
            done = watch.next(running)
            if done is None:
                yield from _abandoned(where, numbered, watch.reason())
                return
            yield _outcome(done, *where.pop(done.key))


class _Watch:
    """Waits for the next finished future while the cluster has workers; gives up (None)
    after ``timeout`` seconds without any."""

    def __init__(self, client: Any, timeout: float) -> None:
        self.client = client
        self.timeout = timeout
        self.since: float | None = None

    def _workers(self) -> int:
        try:
            return len(self.client.nthreads())
        except Exception:  # the scheduler itself is gone: no workers either
            return 0

    def next(self, running: Any) -> Any:
        checked = 0.0
        while True:
            if running.has_ready():
                return next(running)
            now = time.monotonic()
            if now - checked >= 1.0:
                checked = now
                if self._workers():
                    self.since = None
                elif self.since is None:
                    self.since = now
                elif now - self.since > self.timeout:
                    return None
            time.sleep(0.05)

    def reason(self) -> NoWorkers:
        return NoWorkers(
            f"no Dask worker for {self.timeout:g} s (--no-worker-timeout): the run stopped; "
            "items not done are these error rows"
        )


def _abandoned(
    where: dict[str, tuple[int, str]], rest: Iterator[tuple[int, tuple[str, Any]]], why: Exception
) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    for index, item in list(where.values()):
        yield index, [error_row(item, why)]
    for index, (item, _) in rest:
        yield index, [error_row(item, why)]


def _made(task: Any, item: str) -> list[dict[str, Any]] | None:
    """The error row of a task that could not be made (it is an exception), else None."""
    return [error_row(item, task)] if isinstance(task, BaseException) else None


def _outcome(future: Any, index: int, item: str) -> tuple[int, list[dict[str, Any]]]:
    try:
        return index, future.result()
    except Exception as exc:  # the worker died or the task could not travel: the item failed
        return index, [error_row(item, exc)]
    finally:
        release = getattr(future, "release", None)
        if release is not None:
            release()


@contextmanager
def runner(
    executor: Any, workers: int | None, no_worker_timeout: float | None = None
) -> Iterator[Runner]:
    """A :class:`Runner` for ``executor``: None → a local process pool of ``workers`` (shut
    down afterwards), ``"inline"``, a scheduler address (a Dask client, closed afterwards),
    an Executor or a Dask client (left open: they belong to the caller). On Dask, a run with
    no worker for ``no_worker_timeout`` seconds (default 60) stops."""
    stall = DEFAULT_NO_WORKER_TIMEOUT if no_worker_timeout is None else no_worker_timeout
    if not 0 < stall <= 86_400:
        raise UsageError(f"no_worker_timeout must be 0–86400 seconds, got {stall!r}")
    if executor is None:
        size = workers or os.cpu_count() or 1
        pool = _pool(size)
        try:
            yield Runner(pool, 4 * size)
        finally:
            pool.shutdown(cancel_futures=True)
    elif isinstance(executor, str) and executor != INLINE:
        if not executor.startswith(SCHEMES):
            raise UsageError(
                f"executor {executor[:100]!r}: use 'inline', a Dask scheduler address "
                "(tcp://host:8786), an Executor or a dask.distributed Client"
            )
        client = dask_client(executor)
        try:
            yield Runner(client, _dask_window(client), stall)
        finally:
            client.close()
    elif executor == INLINE:
        yield Runner(executor, 1)
    elif is_dask_client(executor):
        yield Runner(executor, _dask_window(executor), stall)
    elif isinstance(executor, cf.Executor):
        yield Runner(executor, 4 * (getattr(executor, "_max_workers", None) or 4))
    else:
        raise UsageError(
            f"executor {executor!r}: use None (a local process pool), 'inline', a Dask "
            "scheduler address, a concurrent.futures.Executor or a dask.distributed Client"
        )


def _dask_window(client: Any) -> int:
    threads = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
    return max(8, 4 * threads)


def shows(progress: bool) -> bool:
    """Whether a progress bar asked for is drawn: in a notebook (a widget) or on a terminal,
    never into a pipe or a file (a log, ``2>&1``), where its redrawn lines are noise."""
    if not progress:
        return False
    if "ipykernel" in sys.modules:
        return True
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())
