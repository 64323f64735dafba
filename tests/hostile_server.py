"""A loopback HTTP/1.1 server that writes whatever a test wants on the socket: endless chunked
bodies, bodies past their announced length, gzip bombs. pytest-httpserver (werkzeug) buffers a
response whole, so it cannot serve these. Its accept loop and request reading serve the tests'
other raw loopback servers too."""

from __future__ import annotations

import gzip
import socket
import threading
from collections.abc import Callable, Iterator

#: ``answer(path, connection)`` writes a whole response on the connection.
Answer = Callable[[str, socket.socket], None]


class LoopbackServer:
    """Accepts connections on 127.0.0.1, each served by ``serve(connection)`` on a thread of its
    own, until closed. A subclass sets what ``serve`` uses before calling ``__init__``."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(connection,), daemon=True).start()

    def serve(self, connection: socket.socket) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self._listener.close()


def read_head(connection: socket.socket) -> bytes | None:
    """A request's head, up to its blank line (with what came after it), or None if the client
    hung up first."""
    head = b""
    while b"\r\n\r\n" not in head:
        received = connection.recv(65536)
        if not received:
            return None
        head += received
    return head


def path_of(head: bytes) -> str:
    """The path of a request's target, without its query."""
    return head.split(b" ", 2)[1].decode().split("?", 1)[0]


class RawServer(LoopbackServer):
    """Answers every request on 127.0.0.1 with ``answer``; ``paths`` lists the requests' paths."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.paths: list[str] = []
        super().__init__()

    def serve(self, connection: socket.socket) -> None:
        connection.settimeout(30)
        with connection:
            try:
                head = read_head(connection)
                if head is None:
                    return
                path = path_of(head)
                self.paths.append(path)
                self.answer(path, connection)
            except OSError:
                pass  # the client stopped reading: what a bound does


def head(status: str = "200 OK", **headers: str) -> bytes:
    lines = [f"HTTP/1.1 {status}", "Connection: close", *(f"{k.replace('_', '-')}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def endless_chunks(connection: socket.socket, piece: bytes = b" " * 65536) -> None:
    """Chunks of ``piece`` until the client hangs up."""
    chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    while True:
        connection.sendall(chunk)


def repeated(data: bytes, times: int) -> Iterator[bytes]:
    for _ in range(times):
        yield data


def gzip_bomb(gibibytes: int = 1) -> bytes:
    """About 1 MiB of gzip members that decompress to ``gibibytes`` GiB of zeros."""
    member = gzip.compress(bytes(64 << 20), compresslevel=9)
    return b"".join(repeated(member, 16 * gibibytes))
