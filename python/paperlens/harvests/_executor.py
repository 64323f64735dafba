"""The per-document work of a harvest on an executor: any object with ``submit(fn, *args)``
returning a future with ``result()`` and ``cancel()`` (``concurrent.futures`` executors,
``dask.distributed.Client``).

The client goes to the workers pickled (its settings, token included: see
``Client.__reduce__``); each worker process rebuilds it once and keeps it, so its
connections and pacing serve every task it runs. A worker fetches and returns; the driver
(the calling process) writes every file, so workers need no access to the output.
"""

from __future__ import annotations

import pickle
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable
from typing import Any, Protocol, TypeVar

from paperlens.base._checks import invalid
from paperlens.machinery._operation import Plan, _run_sync

__all__ = ["Executor", "Future", "check_executor", "client_bytes", "in_order", "run_plan", "submitted"]

R = TypeVar("R")
_KEPT_CLIENTS = 8
#: The clients this worker process rebuilt, by their pickled settings.
_CLIENTS: dict[bytes, Any] = {}
_CLIENTS_LOCK = threading.Lock()  # a thread pool's workers share them


class Future(Protocol):
    def result(self) -> Any: ...
    def cancel(self) -> Any: ...


class Executor(Protocol):
    """What ``executor=`` needs: ``submit(fn, *args)`` returning a :class:`Future`."""

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future: ...


class _Done:
    """The future of a call made at once (no executor)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        return self.value

    def cancel(self) -> bool:
        return False


def check_executor(executor: object) -> None:
    """Raises a ValidationError unless ``executor`` has a ``submit`` method."""
    if not callable(getattr(executor, "submit", None)):
        raise invalid("executor", "must have submit(fn, *args) (a concurrent.futures executor, a dask Client)")


def submitted(executor: Executor | None, fn: Callable[..., Any], *args: Any) -> Future:
    """``fn(*args)`` submitted to ``executor``, or called at once when there is none."""
    return _Done(fn(*args)) if executor is None else _submit(executor, fn, *args)


def _submit(executor: Executor, fn: Callable[..., Any], *args: Any) -> Future:
    if type(executor).__module__.split(".")[0] == "distributed":
        # Dask takes a task of the same arguments for the same result (pure) and may hand
        # back one it remembers: a fetch is not pure (a retry after an error may succeed).
        return executor.submit(fn, *args, pure=False)  # type: ignore[call-arg]
    return executor.submit(fn, *args)


def client_bytes(client: Any) -> bytes:
    """``client`` pickled, once per harvest (the tasks carry these bytes)."""
    return pickle.dumps(client)


def run_plan(pickled_client: bytes, define: Callable[..., Plan[R]], *args: Any) -> R:
    """On a worker: runs the plan ``define(*args)`` with the client ``pickled_client`` rebuilt
    (once per worker process)."""
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(pickled_client)
        if client is None:
            if len(_CLIENTS) >= _KEPT_CLIENTS:
                _CLIENTS.pop(next(iter(_CLIENTS))).close()
            client = _CLIENTS[pickled_client] = pickle.loads(pickled_client)
    return _run_sync(client, define(*args))


def in_order(
    executor: Executor, task: Callable[..., Any], inputs: Iterable[tuple[Any, ...] | None], window: int
) -> Generator[Any, None, None]:
    """The results of ``task(*args)`` for each ``args`` of ``inputs`` in their order (None for
    a None). At most ``window`` are submitted ahead of the one awaited, and ``inputs`` is read
    only when a task is submitted (so it may look at what the consumer did with earlier
    results); the same ``args`` in flight twice share one task. A task's error is raised
    when its turn comes; closing the iterator cancels the tasks not started."""
    queue: deque[tuple[tuple[Any, ...] | None, Any]] = deque()
    shared: dict[tuple[Any, ...], Any] = {}
    source = iter(inputs)
    exhausted = False
    try:
        while True:
            while not exhausted and len(queue) < window:
                try:
                    args = next(source)
                except StopIteration:
                    exhausted = True
                    break
                future = None
                if args is not None:
                    future = shared.get(args)
                    if future is None:
                        future = shared[args] = _submit(executor, task, *args)
                queue.append((args, future))
            if not queue:
                return
            args, future = queue.popleft()
            if future is None:
                yield None
                continue
            result = future.result()
            if args is not None and all(later is not future for _, later in queue):
                shared.pop(args, None)
            yield result
    finally:
        for _, future in queue:
            if future is not None:
                future.cancel()
