"""TLS trust and proxies against real parts on loopback.

The service path is: client -> [tap -> proxy.py ->] TLS terminator (trustme test CA) -> sandbox.
The tap sits in front of the proxy and records every byte the proxy receives.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme

import paperlens
from paperlens.sandbox import Sandbox

PROXY_USER, PROXY_PASSWORD = "lab", "proxy-pass-7"
NETWORK_VARIABLES = [
    *(f"{name}{suffix}" for name in ("HTTPS", "HTTP", "ALL", "NO") for suffix in ("_PROXY", "_proxy")),
    *("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "REQUEST_METHOD"),
]


class Relay:
    """Forwards each TCP connection to ``upstream``, terminating TLS first when given a context;
    records the bytes it receives from clients."""

    def __init__(self, upstream: tuple[str, int], tls: ssl.SSLContext | None = None) -> None:
        self.received = bytearray()
        self.connections = 0
        self._upstream, self._tls = upstream, tls
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, daemon=True).start()
        self._server = asyncio.run_coroutine_threadsafe(self._start(), self._loop).result()
        self.port = self._server.sockets[0].getsockname()[1]

    async def _start(self) -> asyncio.Server:
        return await asyncio.start_server(self._relay, "127.0.0.1", 0, ssl=self._tls)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection(*self._upstream)
        await asyncio.gather(self._pipe(reader, up_writer, record=True), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, record: bool = False) -> None:
        with contextlib.suppress(OSError, ssl.SSLError):
            while data := await reader.read(65536):
                if record:
                    self.received += data
                writer.write(data)
                await writer.drain()
        writer.close()

    def reset(self) -> None:
        self.received.clear()
        self.connections = 0

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)

    async def _stop(self) -> None:
        self._server.close()
        relays = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in relays:
            task.cancel()
        await asyncio.gather(*relays, return_exceptions=True)


@pytest.fixture(autouse=True)
def clean_network_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NETWORK_VARIABLES:
        monkeypatch.delenv(name, raising=False)


SANDBOX = dict(papers=20)


@pytest.fixture(scope="module")
def test_ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="module")
def ca_file(test_ca: trustme.CA, tmp_path_factory: pytest.TempPathFactory) -> Path:
    pem = tmp_path_factory.mktemp("ca") / "test-ca.pem"
    test_ca.cert_pem.write_to_path(str(pem))
    return pem


@pytest.fixture(scope="module")
def tls_server(sandbox: Sandbox, test_ca: trustme.CA) -> Iterator[Relay]:
    """The sandbox behind TLS, with a certificate for 127.0.0.1 and localhost from the test CA."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    test_ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    sandbox_port = int(sandbox.base_url.rsplit(":", 1)[1])
    relay = Relay(("127.0.0.1", sandbox_port), tls=context)
    yield relay
    relay.close()


@pytest.fixture(scope="module")
def proxy_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A real forward proxy (proxy.py) that asks for credentials."""
    port_file = tmp_path_factory.mktemp("proxy") / "port"
    command = [sys.executable, "-m", "proxy", "--hostname", "127.0.0.1", "--port", "0", "--port-file", str(port_file)]
    command += ["--num-workers", "1", "--num-acceptors", "1", "--basic-auth", f"{PROXY_USER}:{PROXY_PASSWORD}"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not (port_file.exists() and port_file.read_text().strip()):
            assert process.poll() is None and time.monotonic() < deadline, "proxy.py did not start"
            time.sleep(0.05)
        yield int(port_file.read_text())
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def tap(proxy_port: int) -> Iterator[Relay]:
    relay = Relay(("127.0.0.1", proxy_port))
    yield relay
    relay.close()


def proxy_url(tap: Relay, credentials: bool = True) -> str:
    login = f"{PROXY_USER}:{PROXY_PASSWORD}@" if credentials else ""
    return f"http://{login}127.0.0.1:{tap.port}"


def catalog_via(sandbox: Sandbox, base_url: str, **options: Any) -> Any:
    with paperlens.Client(api_token=sandbox.token, base_url=base_url, max_retries=0, **options) as client:
        return client.meta_catalog()


def https_url(tls_server: Relay, host: str = "127.0.0.1") -> str:
    return f"https://{host}:{tls_server.port}"


@pytest.fixture
def catalog_over_tls(sandbox: Sandbox, tls_server: Relay, ca_file: Path) -> Callable[..., Any]:
    """``catalog(**options)``: the catalog through the sandbox's TLS terminator, by a client that
    takes ``options`` and trusts the test CA (unless they say otherwise)."""
    return lambda **options: catalog_via(sandbox, https_url(tls_server), **{"ca_bundle": ca_file, **options})


def proxy_options(tap: Relay, monkeypatch: pytest.MonkeyPatch, variable: str | None) -> dict[str, Any]:
    """The client options that name the tap's proxy: the ``proxy`` argument when ``variable`` is
    None, else none, the proxy being set in that environment variable."""
    if variable is None:
        return {"proxy": proxy_url(tap)}
    monkeypatch.setenv(variable, proxy_url(tap))
    return {}


def test_an_unknown_ca_is_refused(sandbox: Sandbox, tls_server: Relay) -> None:
    with pytest.raises(paperlens.APIConnectionError, match=r"UnknownIssuer.*give its PEM file as ca_bundle="):
        catalog_via(sandbox, https_url(tls_server))


@pytest.mark.parametrize("variable", ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"])
def test_ca_from_the_environment_is_trusted(
    sandbox: Sandbox, tls_server: Relay, ca_file: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, str(ca_file))
    assert catalog_via(sandbox, https_url(tls_server, "localhost")).request_id


def test_ca_bundle_argument_is_trusted(catalog_over_tls: Callable[..., Any], ca_file: Path) -> None:
    assert catalog_over_tls().request_id
    assert catalog_over_tls(ca_bundle=str(ca_file)).request_id


def test_a_bad_ca_file_is_a_configuration_error(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_certificate = tmp_path / "empty.pem"
    no_certificate.write_text("nothing here\n")
    for bad in (tmp_path / "missing.pem", no_certificate):
        with pytest.raises(paperlens.ConfigurationError, match="ca_bundle") as caught:
            paperlens.Client(api_token="t", base_url="https://api.example.org", ca_bundle=bad)
        assert str(bad) in str(caught.value)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(tmp_path / "missing.pem"))
    with pytest.raises(paperlens.ConfigurationError, match="REQUESTS_CA_BUNDLE"):
        paperlens.Client(api_token="t", base_url="https://api.example.org")


@pytest.mark.parametrize("bad", ["127.0.0.1:3128", "socks5://lab:hunter2@127.0.0.1:1080", "http://h:1/path", "::"])
def test_an_invalid_proxy_is_a_configuration_error(bad: str) -> None:
    with pytest.raises(paperlens.ConfigurationError, match=r"^proxy") as caught:
        paperlens.Client(api_token="t", base_url="https://api.example.org", proxy=bad)
    assert "hunter2" not in str(caught.value)


def test_https_goes_through_a_connect_tunnel_the_proxy_cannot_read(
    sandbox: Sandbox, tls_server: Relay, catalog_over_tls: Callable[..., Any], tap: Relay
) -> None:
    tls_server.reset()
    page = catalog_over_tls(proxy=proxy_url(tap))
    assert page.request_id
    seen = bytes(tap.received)
    assert seen.startswith(f"CONNECT 127.0.0.1:{tls_server.port} HTTP/1.1".encode())
    assert b"proxy-authorization: basic" in seen.lower()
    assert sandbox.token.encode() not in seen
    assert b"authorization: bearer" not in seen.lower()
    assert b"meta-catalog" not in seen
    assert tls_server.connections == 1


def test_the_proxy_asks_for_its_credentials(catalog_over_tls: Callable[..., Any], tap: Relay) -> None:
    with pytest.raises(paperlens.APIConnectionError):
        catalog_over_tls(proxy=proxy_url(tap, credentials=False))
    assert tap.connections == 1


@pytest.mark.parametrize("variable", ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"])
def test_proxy_from_the_environment(
    catalog_over_tls: Callable[..., Any], tap: Relay, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, proxy_url(tap))
    assert catalog_over_tls().request_id
    assert bytes(tap.received).startswith(b"CONNECT ")


@pytest.mark.parametrize("variable", ["NO_PROXY", "no_proxy"])
@pytest.mark.parametrize("proxy_variable", [None, "HTTPS_PROXY"])
def test_no_proxy_bypasses_the_proxy(
    catalog_over_tls: Callable[..., Any],
    tap: Relay,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    proxy_variable: str | None,
) -> None:
    monkeypatch.setenv(variable, "example.org, 127.0.0.1")
    assert catalog_over_tls(**proxy_options(tap, monkeypatch, proxy_variable)).request_id
    assert tap.connections == 0


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "ALL_PROXY", None])
def test_plain_http_never_goes_through_a_proxy(
    sandbox: Sandbox, tap: Relay, monkeypatch: pytest.MonkeyPatch, variable: str | None
) -> None:
    """Through a proxy, a plain-http request would show the token to it: loopback is reached directly."""
    assert catalog_via(sandbox, sandbox.base_url, **proxy_options(tap, monkeypatch, variable)).request_id
    assert tap.connections == 0
