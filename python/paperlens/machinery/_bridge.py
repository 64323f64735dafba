"""Answers of async calls, delivered to the event loop without GIL handoffs.

The Rust core finishes a request on its own threads, queues the answer and writes a byte
to a socket the loop watches; the loop then decodes the answer on its own thread. One
bridge per event loop. Loops that cannot watch sockets (Windows' proactor loop) use the
plain awaitables of the core instead.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from paperlens._paperlens import Completions, NativeClient

_bridges: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Bridge | None] = weakref.WeakKeyDictionary()
_ids = itertools.count()
if hasattr(os, "register_at_fork"):
    # A forked child's loops get bridges of their own (the parent's sockets and tasks stay its).
    os.register_at_fork(after_in_child=_bridges.clear)


class _Bridge:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.completions = Completions()
        self.futures: dict[int, asyncio.Future[Any]] = {}
        loop.add_reader(self.completions.fd, self.drain)

    def submit(
        self,
        core: NativeClient,
        kind: str,
        operation: str,
        params: dict[str, Any],
        dest: str | None = None,
        progress: Callable[[int, int | None], None] | None = None,
    ) -> asyncio.Future[Any]:
        id_ = next(_ids)
        future = self.loop.create_future()
        core.submit(kind, operation, params, self.completions, id_, dest, progress)
        self.futures[id_] = future
        future.add_done_callback(lambda f: self._forget(id_, f))
        return future

    def _forget(self, id_: int, future: asyncio.Future[Any]) -> None:
        if self.futures.pop(id_, None) is not None and future.cancelled():
            self.completions.cancel(id_)

    def drain(self) -> None:
        for id_, ok, value in self.completions.drain():
            future = self.futures.pop(id_, None)
            if future is None or future.done():
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)


def _bridge() -> _Bridge | None:
    loop = asyncio.get_running_loop()
    if loop not in _bridges:
        try:
            _bridges[loop] = _Bridge(loop)
        except NotImplementedError:
            _bridges[loop] = None
    return _bridges[loop]


async def call(core: NativeClient, operation: str, params: dict[str, Any]) -> tuple[Any, str]:
    bridge = _bridge()
    if bridge is None:
        return await core.call_async(operation, params)
    answer: tuple[Any, str] = await bridge.submit(core, "json", operation, params)
    return answer


async def fetch(core: NativeClient, params: dict[str, Any]) -> tuple[bytes, str | None, str | None, str]:
    bridge = _bridge()
    if bridge is None:
        return await core.fetch_async(params)
    answer: tuple[bytes, str | None, str | None, str] = await bridge.submit(core, "bytes", "resource", params)
    return answer


async def download(
    core: NativeClient, params: dict[str, Any], dest: str, progress: Callable[[int, int | None], None] | None = None
) -> tuple[Path, str]:
    bridge = _bridge()
    if bridge is None:
        return await core.download_async(params, dest, progress)
    answer: tuple[Path, str] = await bridge.submit(core, "download", "resource", params, dest, progress)
    return answer
