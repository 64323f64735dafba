"""A cancelled or abandoned tool call stops its work: against a loopback service that holds
``/content`` until its client goes away, a ``read_paper`` call cancelled by the MCP client, or
whose HTTP client went away without a word, closes its connection (the service sees it go),
is not retried (the service is asked once), and gives back its place in the client's pacing
(a client with one request in flight answers the next call)."""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import anyio
import pytest
from mcp import Client as MCPClient
from test_mcp import connect, data_of, environment

import paperlens
import paperlens.mcp

from conftest import TOKEN
from hostile_server import LoopbackServer, path_of, read_head

#: How long the service holds ``/content`` when its client stays (far beyond the waits below).
HOLD = 120.0
HIT = {"doc_id": "d1", "offset": 0, "chunk": "An answer.", "score": 0.5}


class HoldingService(LoopbackServer):
    """An HTTP/1.1 service on 127.0.0.1: ``/content`` is never answered while the client keeps
    the connection (``abandoned`` is set when it closes it), ``/agentic-search`` answers
    :data:`HIT` at once; ``paths`` lists what was asked, in order."""

    def __init__(self) -> None:
        self.token = TOKEN
        self.paths: list[str] = []
        self.abandoned = threading.Event()
        super().__init__()
        self.base_url = self.url

    def serve(self, connection: socket.socket) -> None:
        with connection:
            connection.settimeout(HOLD)
            while (head := read_head(connection)) is not None:
                lines = head.split(b"\r\n")
                path = path_of(head)
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


def rpc(connection: http.client.HTTPConnection, message: dict[str, object], session: str | None = None) -> str | None:
    """Sends ``message`` to ``/mcp`` on ``connection``; the session id the answer names."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session is not None:
        headers |= {"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"}
    connection.request("POST", "/mcp", json.dumps(message), headers)
    if message.get("method") == "tools/call":
        return None
    answer = connection.getresponse()
    answer.read()
    return answer.getheader("mcp-session-id")


async def test_a_call_whose_http_client_went_away_is_cancelled(service: HoldingService) -> None:
    command = [sys.executable, "-m", "paperlens", "mcp", "--transport", "http", "--port", "0"]
    process = subprocess.Popen(
        command, env=environment(Endpoint(service.token, service.base_url)), stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stderr is not None
        port = int(re.search(r":(\d+)/mcp", await anyio.to_thread.run_sync(process.stderr.readline)).group(1))  # type: ignore[union-attr]
        control = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        session = rpc(control, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        rpc(control, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        leaving = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        call = {"name": "read_paper", "arguments": {"doc_id": "d1"}}
        rpc(leaving, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}, session)
        with anyio.fail_after(30):
            while not service.paths:  # the request reached the service
                await anyio.sleep(0.05)
        leaving.close()  # gone, without notifications/cancelled
        assert await anyio.to_thread.run_sync(service.abandoned.wait, 30)
        control.close()
    finally:
        process.terminate()
        process.communicate(timeout=30)
    assert service.paths == ["/content"]
