"""A real ``redis-server`` (the Debian package ``redis-server``, which brings ``redis-cli``) on a
free loopback port, for the tests and benches of ``shared_pacing="redis://..."``: nothing is
saved to disk, and it is stopped on exit."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from types import TracebackType


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisServer:
    def __init__(self, password: str | None = None) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.port = free_port()
        argv = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        if password is not None:
            argv += ["--requirepass", password]
        self.password = password
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def __enter__(self) -> RedisServer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()
