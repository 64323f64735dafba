"""``paperlens mcp --transport http`` beyond loopback: a host that is not a loopback address
needs ``--allow-remote`` and a bearer token of the server's own (``--auth-token`` or
``PAPERLENS_MCP_TOKEN``); a request without it gets 401, and the Host/Origin checks of the
SDK (DNS-rebinding protection) refuse a foreign name with the token too. The server is bound
on loopback with ``--allow-remote`` and a token, the code path of a remote one, and used with
the official client over streamable HTTP."""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from test_mcp import data_of, environment

import paperlens
from paperlens.cli import EXIT_USAGE, main
from paperlens.sandbox import Sandbox

SANDBOX = {"papers": 50}
MCP_TOKEN = "mcp-server-token-0f1e2d3c4b5a"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}


@asynccontextmanager
async def serving(sandbox: Sandbox, tmp_path: Path, *options: str, token: str | None = None) -> AsyncIterator[str]:
    """The URL of ``paperlens mcp --transport http --port 0 OPTIONS`` (``token`` in
    ``PAPERLENS_MCP_TOKEN``); its stderr is checked for secrets when it ends."""
    env = {**environment(sandbox), **({"PAPERLENS_MCP_TOKEN": token} if token else {})}
    command = [sys.executable, "-m", "paperlens", "mcp", "--transport", "http", "--port", "0", *options]
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        line = await asyncio.to_thread(process.stderr.readline)
        url = re.search(r"http://\S+/mcp", line)
        assert url is not None, line
        yield url.group()
    finally:
        process.terminate()
        rest = process.communicate(timeout=30)[1]
    assert MCP_TOKEN not in line + rest and sandbox.token not in line + rest


def post(url: str, headers: dict[str, str]) -> tuple[int, dict[str, str]]:
    """The status and headers of an ``initialize`` POST with ``headers`` (Host included)."""
    where = urlsplit(url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    try:
        sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers}
        connection.putrequest("POST", where.path, skip_host="Host" in sent)
        body = json.dumps(INITIALIZE).encode()
        for name, value in {**sent, "Content-Length": str(len(body))}.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, {name.lower(): value for name, value in response.getheaders()}
    finally:
        connection.close()


async def test_allow_remote_with_a_token_serves_only_bearers_at_allowed_hosts(sandbox: Sandbox, tmp_path: Path) -> None:
    bearer = {"Authorization": f"Bearer {MCP_TOKEN}"}
    options = ("--host", "127.0.0.1", "--allow-remote", "--allowed-host", "papers.example")
    async with serving(sandbox, tmp_path, *options, token=MCP_TOKEN) as url:
        port = urlsplit(url).port
        async with (
            httpx2.AsyncClient(headers=bearer, timeout=30) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            hits = data_of(await session.call_tool("search_papers", {"query": "memory", "top_k": 3}))

        refused = await asyncio.to_thread(post, url, {})
        wrong = await asyncio.to_thread(post, url, {"Authorization": f"Bearer {MCP_TOKEN}x"})
        api_token = await asyncio.to_thread(post, url, {"Authorization": f"Bearer {sandbox.token}"})
        rebound = await asyncio.to_thread(post, url, {**bearer, "Host": f"evil.example:{port}"})
        foreign = await asyncio.to_thread(post, url, {**bearer, "Origin": "http://evil.example"})
        named = await asyncio.to_thread(
            post, url, {**bearer, "Host": f"papers.example:{port}", "Origin": f"http://papers.example:{port}"}
        )
        bound = await asyncio.to_thread(post, url, {**bearer, "Origin": f"http://127.0.0.1:{port}"})
    with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url) as direct:
        assert [h["doc_id"] for h in hits] == [h.doc_id for h in direct.agentic_search("memory", top_k=3).hits]
    for status, headers in (refused, wrong, api_token):
        assert status == 401 and headers["www-authenticate"].startswith("Bearer")
    assert (rebound[0], foreign[0]) == (421, 403)
    assert (named[0], bound[0]) == (200, 200)


async def test_allowed_hosts_are_matched_at_any_port(sandbox: Sandbox, tmp_path: Path) -> None:
    options = ("--allowed-host", "papers.example.", "--allowed-host", "fe80::1", "--allowed-host", "[2001:db8::7]")
    async with serving(sandbox, tmp_path, *options) as url:
        statuses = {
            host: (await asyncio.to_thread(post, url, {"Host": host}))[0]
            for host in ("papers.example.:8123", "[fe80::1]:443", "[2001:db8::7]", "papers.example:8123")
        }
    assert statuses == {
        "papers.example.:8123": 200,
        "[fe80::1]:443": 200,
        "[2001:db8::7]": 200,
        "papers.example:8123": 421,
    }


async def test_auth_token_as_an_option_on_loopback_is_required(sandbox: Sandbox, tmp_path: Path) -> None:
    async with serving(sandbox, tmp_path, "--auth-token", MCP_TOKEN) as url:
        refused = await asyncio.to_thread(post, url, {})
        accepted = await asyncio.to_thread(post, url, {"Authorization": f"Bearer {MCP_TOKEN}"})
        rebound = await asyncio.to_thread(post, url, {"Authorization": f"Bearer {MCP_TOKEN}", "Host": "evil.example"})
    assert (refused[0], accepted[0], rebound[0]) == (401, 200, 421)


@pytest.mark.parametrize(
    ("arguments", "token", "said"),
    [
        (["--host", "0.0.0.0"], None, "--allow-remote"),
        (["--host", "192.0.2.7", "--auth-token", MCP_TOKEN], None, "--allow-remote"),
        (["--host", "0.0.0.0", "--allow-remote"], None, "needs a bearer token"),
        (["--host", "::", "--allow-remote"], "short", "auth_token: must be at least 16 characters long (got 5)"),
        (["--auth-token", "too-short"], None, "auth_token: must be at least 16 characters long (got 9)"),
        (
            ["--allowed-host", "papers.example", "--allowed-host", "papers.example:443"],
            None,
            "allowed_hosts[1]: must be a host name or an IP address, without a port",
        ),
    ],
)
def test_an_open_or_weakly_guarded_server_is_refused_before_it_starts(
    arguments: list[str],
    token: str | None,
    said: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in ("PAPERLENS_API_TOKEN", "PAPERLENS_BASE_URL", "PAPERLENS_MCP_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    if token is not None:
        monkeypatch.setenv("PAPERLENS_MCP_TOKEN", token)
    assert main(["mcp", "--transport", "http", *arguments]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert said in err and MCP_TOKEN not in err


def test_the_api_token_is_not_the_servers_token(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PAPERLENS_API_TOKEN", sandbox.token)
    monkeypatch.setenv("PAPERLENS_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("PAPERLENS_MCP_TOKEN", sandbox.token)
    assert main(["mcp", "--transport", "http", "--port", "0"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "not the paperlens API token" in err and sandbox.token not in err
