"""Shared fixtures: clients aimed at a real loopback HTTP server (pytest-httpserver), and a
sandbox per test module."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from redis_server import RedisServer

import paperlens
from paperlens.sandbox import Sandbox

TOKEN = "sk-test-3f9c1d2e-very-secret"


@pytest.fixture
def make_client(httpserver: HTTPServer) -> Callable[..., paperlens.Client]:
    def make(**options: Any) -> paperlens.Client:
        settings: dict[str, Any] = {
            "api_token": TOKEN,
            "base_url": httpserver.url_for(""),
            "rate_limits": None,
            "retry_backoff": 0.01,
        }
        settings.update(options)
        return paperlens.Client(**settings)

    return make


@pytest.fixture
def client(make_client: Callable[..., paperlens.Client]) -> paperlens.Client:
    return make_client()


@pytest.fixture
def aclient(httpserver: HTTPServer) -> paperlens.AsyncClient:
    return paperlens.AsyncClient(api_token=TOKEN, base_url=httpserver.url_for(""), rate_limits=None, retry_backoff=0.01)


def sent_json(httpserver: HTTPServer, index: int = -1) -> Any:
    request, _response = httpserver.log[index]
    return json.loads(request.get_data())


def error_body(code: str, message: str = "nope", **extra: Any) -> dict[str, Any]:
    return {"code": code, "message": message, "request_id": "srv-req-1", **extra}


@pytest.fixture(scope="module")
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """A sandbox for the test module, built from the module's ``SANDBOX`` settings (keyword
    arguments of :class:`Sandbox`; default: its defaults)."""
    with Sandbox(**getattr(request.module, "SANDBOX", {})) as running:
        yield running


@pytest.fixture
def env(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """The module's sandbox as the environment names it to the ``paperlens`` commands (no
    response cache), its request log cleared."""
    monkeypatch.setenv("PAPERLENS_API_TOKEN", sandbox.token)
    monkeypatch.setenv("PAPERLENS_BASE_URL", sandbox.base_url)
    monkeypatch.delenv("PAPERLENS_CACHE_DIR", raising=False)
    sandbox.clear_requests()
    return sandbox


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A real ``redis-server`` of the test's own, on a free loopback port."""
    with RedisServer() as server:
        yield server
