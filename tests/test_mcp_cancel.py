"""A cancelled tool call stops its work: against a loopback service that holds ``/content``
until its client goes away, a ``read_paper`` call cancelled by the MCP client closes its
connection (the service sees it go), is not retried (the service is asked once), and gives
back its place in the client's pacing (a client with one request in flight answers the next
call)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import anyio
import pytest
from mcp import Client as MCPClient
from test_mcp import connect, data_of

import paperlens
import paperlens.mcp

from conftest import TOKEN

#: How long the service holds ``/content`` when its client stays (far beyond the waits below).
HOLD = 120.0
HIT = {"doc_id": "d1", "offset": 0, "chunk": "An answer.", "score": 0.5}


class HoldingService:
    """An HTTP/1.1 service on 127.0.0.1: ``/content`` is never answered while the client keeps
    the connection (``abandoned`` is set when it closes it), ``/agentic-search`` answers
    :data:`HIT` at once; ``paths`` lists what was asked, in order."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self.token = TOKEN
        self.paths: list[str] = []
        self.abandoned = threading.Event()
        self._closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        with connection:
            connection.settimeout(HOLD)
            while True:
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    head += chunk
                lines = head.split(b"\r\n")
                path = lines[0].split(b" ")[1].decode().split("?")[0]
                length = next(
                    (int(line.split(b":")[1]) for line in lines if line.lower().startswith(b"content-length:")), 0
                )
                body = head.split(b"\r\n\r\n", 1)[1]
                while len(body) < length:
                    body += connection.recv(65536)
                self.paths.append(path)
                if path == "/content":
                    try:
                        gone = connection.recv(1) == b""
                    except OSError:
                        gone = True
                    if gone:
                        self.abandoned.set()
                    return
                answer = json.dumps({"hits": [HIT]}).encode()
                connection.sendall(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                    + str(len(answer)).encode()
                    + b"\r\n\r\n"
                    + answer
                )

    def close(self) -> None:
        self._closed.set()
        self._listener.close()


class Endpoint(NamedTuple):
    token: str
    base_url: str


@pytest.fixture
def service() -> Iterator[HoldingService]:
    running = HoldingService()
    yield running
    running.close()


async def test_a_cancelled_call_over_stdio_closes_its_request_and_is_not_retried(
    service: HoldingService, tmp_path: Path
) -> None:
    async with connect("stdio", Endpoint(service.token, service.base_url), tmp_path) as (session, _):
        with anyio.move_on_after(0.5) as scope:
            await session.call_tool("read_paper", {"doc_id": "d1"})
        assert scope.cancelled_caught
        assert await anyio.to_thread.run_sync(service.abandoned.wait, 30)  # the server dropped the request
        hits = data_of(await session.call_tool("search_papers", {"query": "x"}))
    assert hits == [HIT]
    assert service.paths == ["/content", "/agentic-search"]


async def test_a_cancelled_call_gives_back_its_place_in_the_pacing(service: HoldingService) -> None:
    with paperlens.Client(
        api_token=service.token, base_url=service.base_url, max_concurrency=1, max_retries=0
    ) as client:
        server = paperlens.mcp.server(client, tools=["read_paper", "search_papers"])
        async with MCPClient(server) as session:
            with anyio.move_on_after(0.5):
                await session.call_tool("read_paper", {"doc_id": "d1"})
            with anyio.fail_after(HOLD / 2):  # a place still held would wait for the held answer
                hits = data_of(await session.call_tool("search_papers", {"query": "x"}))
            assert await anyio.to_thread.run_sync(service.abandoned.wait, 30)
    assert hits == [HIT]
    assert service.paths == ["/content", "/agentic-search"]
