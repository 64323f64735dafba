"""The code of :mod:`paperlens.sandbox`, the public module that re-exports it and documents it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal

from paperlens._paperlens import NativeSandbox

__all__ = ["FaultKind", "RateLimitKind", "RecordedRequest", "Sandbox", "corpus_of"]

_RUNNING: dict[str, dict[str, int]] = {}

FaultKind = Literal["status", "drop", "non_json", "partial"]
RateLimitKind = Literal["sliding", "fixed", "bucket"]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the sandbox received it (the ``Authorization`` header removed)."""

    method: str
    """HTTP method, e.g. ``"POST"``."""
    path: str
    """Path without the query string, e.g. ``"/meta-search"``."""
    query: tuple[tuple[str, str], ...]
    """Decoded query parameters in order; a repeated name appears once per value."""
    headers: Mapping[str, str]
    """Headers by lower-case name (repeated headers joined with ``", "``)."""
    body: bytes
    """The raw request body."""

    def json(self) -> Any:
        """The body decoded as JSON; raises ``ValueError`` if it is not JSON."""
        return json.loads(self.body)


class Sandbox:
    """A paperlens service on ``host`` (loopback by default), started on construction.

    Args:
        papers: number of papers in the generated corpus, 1 to 1,000,000 (a paper takes about
            7 KB of memory and 250 µs to build: 100,000 take 0.7 GB and half a minute).
        seed: corpus seed; the same ``papers`` and ``seed`` give the same corpus.
        rate_limits: requests per minute per quota resource, e.g.
            ``{"meta-search": 30, "paper-schema": 30}``; exceeding answers 429 with
            ``Retry-After`` (the wait rounded up to whole seconds) and
            ``details.retry_after`` (the exact wait). ``None`` (the default) means unlimited.
        rate_limit_kind: how each quota of N per minute is counted, as a real gateway
            may count it: ``"sliding"`` (admitted while fewer than N were admitted in the
            60 s before), ``"fixed"`` (at most N per 60 s window, windows aligned to the
            sandbox's start) or ``"bucket"`` (a token bucket of capacity N refilled at
            N/60 per second). Refused requests never use up quota.
        token: the full-access API token; generated when ``None``.
        int64_as_string: serialize int64 counts (``total_count``, facet ``doc_count``)
            as JSON strings, as the real service may.
        host: interface to bind; ``"0.0.0.0"`` exposes the sandbox beyond this machine.
        port: TCP port; ``0`` picks a free one.
        content_latency: seconds added before every ``/content`` and ``/resource`` answer,
            as a service across a network takes: work that fetches full texts and figures
            is then latency-bound, as in production (``benches/bench_executor.py``).
            ``None`` (the default) answers at once.
        hidden_share: a corpus that grows, for living reviews: about this share (0 to 1) of
            the papers is hidden from ``/meta-search`` until :meth:`reveal` (or until
            ``reveal_after`` requests have been answered). The records never change, so the
            grown service is a superset of the first whose shared records are identical
            (a bigger ``papers`` is not: its records all differ). Other operations
            (``/content``, relations, ``/paper-schema``) see every paper all along.
        reveal_after: reveal the hidden papers once this many authenticated requests have
            been answered (the next one sees them); ``None``: only on :meth:`reveal`.

    Use it as a context manager, or call :meth:`close`.

    Raises:
        ValueError: an argument out of its range, e.g. ``papers`` past 1,000,000 (nothing is built).

    Examples:
        >>> from paperlens.sandbox import Sandbox
        >>> with Sandbox(papers=2000, seed=0, rate_limits={"meta-search": 30}) as sandbox:
        ...     client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, retry_backoff=0.1)
        ...     sandbox.inject_fault("/meta-search", 503, times=2)  # the next two requests fail
        ...     page = client.meta_search("coral bleaching")  # retried, then succeeds
        ...     print(page.total_count, len(sandbox.requests()))
        97 3
    """

    def __init__(
        self,
        papers: int = 2000,
        seed: int = 0,
        rate_limits: Mapping[str, int] | None = None,
        rate_limit_kind: RateLimitKind = "sliding",
        *,
        token: str | None = None,
        int64_as_string: bool = False,
        host: str = "127.0.0.1",
        port: int = 0,
        content_latency: float | None = None,
        hidden_share: float = 0.0,
        reveal_after: int | None = None,
    ) -> None:
        if content_latency is not None and not 0 <= content_latency < 86_400:
            raise ValueError(f"content_latency must be seconds from 0 to 86400, got {content_latency}")
        if not 0 <= hidden_share <= 1:
            raise ValueError(f"hidden_share must be from 0 to 1, got {hidden_share}")
        if reveal_after is not None and reveal_after < 0:
            raise ValueError(f"reveal_after must be a number of requests >= 0, got {reveal_after}")
        limits = None if rate_limits is None else list(rate_limits.items())
        self._native = NativeSandbox(
            papers,
            seed,
            limits,
            rate_limit_kind,
            token,
            int64_as_string,
            host,
            port,
            content_latency,
            hidden_share,
            reveal_after,
        )
        _RUNNING[self._native.base_url] = {"papers": papers, "seed": seed}

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT``, to pass as ``base_url`` to a client."""
        return self._native.base_url

    @property
    def token(self) -> str:
        """The full-access API token."""
        return self._native.token

    @property
    def restricted_token(self) -> str:
        """A token with limited field permissions: the citation-impact fields (``/meta-search``
        fields, ``metrics.fwci`` of structured papers) and closed full texts answer 403."""
        return self._native.restricted_token

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run."""
        return self._native.closed

    def inject_fault(
        self,
        path: str,
        status: int | None = None,
        times: int = 1,
        retry_after: float | None = None,
        delay: float | None = None,
        kind: FaultKind = "status",
    ) -> None:
        """Make the next ``times`` authenticated requests to ``path`` misbehave.

        Args:
            path: exact request path, e.g. ``"/meta-search"`` (no query string).
            status: with ``kind="status"``, answer this status with the contract's JSON
                error body (``UPSTREAM_UNAVAILABLE`` for 502/503, ``PAPER_SCHEMA_TIMEOUT``
                for 504 under ``/paper-schema``, ``RATE_LIMITED`` for 429); with
                ``kind="non_json"``, answer it with an HTML page, as a proxy would.
            times: how many requests the fault applies to.
            retry_after: seconds, sent as ``Retry-After`` (rounded up to whole seconds)
                and ``details.retry_after``.
            delay: seconds to wait before answering; without a status the normal answer
                is delayed, which is how client timeouts are tested.
            kind: ``"status"``, ``"non_json"``, ``"drop"`` (send the headers and half
                of the normal body, then drop the connection), or ``"partial"`` (answer
                normally, but mark a JSON answer ``partial: true`` with a warning appended
                to ``warnings``, as a degraded ``/paper-schema`` step would).

        Faults for one path are served in the order they were injected.

        Examples:
            >>> from paperlens.sandbox import Sandbox
            >>> sandbox = Sandbox(papers=50)
            >>> sandbox.inject_fault("/meta-search", 429, retry_after=2)  # one 429 asking to wait 2 s
            >>> sandbox.inject_fault("/content", delay=5.0)  # a slow answer, for client timeouts
            >>> sandbox.inject_fault("/paper-schema/search", kind="partial")  # a partial=true answer
            >>> client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url)
            >>> client.schema.search("model").partial  # and a PartialResultWarning
            True
            >>> sandbox.close()
        """
        self._native.inject_fault(path, kind, status, times, retry_after, delay)

    def requests(self) -> list[RecordedRequest]:
        """What the sandbox received, oldest first (the most recent 10,000 requests).

        Returns:
            One ``RecordedRequest`` per request, its ``Authorization`` header removed.

        Examples:
            >>> from paperlens.sandbox import Sandbox
            >>> with Sandbox(papers=50) as sandbox:
            ...     client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url)
            ...     page = client.meta_search("coral")
            ...     [(r.method, r.path, r.headers["x-request-id"] == page.request_id) for r in sandbox.requests()]
            [('POST', '/meta-search', True)]
        """
        return [
            RecordedRequest(
                method=method,
                path=path,
                query=tuple(query),
                headers=_header_map(headers),
                body=body,
            )
            for method, path, query, headers, body in self._native.requests()
        ]

    def clear_requests(self) -> None:
        """Forget the recorded requests."""
        self._native.clear_requests()

    def reveal(self) -> None:
        """Reveal the papers ``hidden_share`` hid: from the next request on, ``/meta-search``
        finds them (the corpus has grown). Idempotent.

        Examples:
            >>> from paperlens.sandbox import Sandbox
            >>> with Sandbox(papers=200, hidden_share=0.25) as sandbox:
            ...     client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url)
            ...     before = client.meta_search(page_size=1).total_count
            ...     sandbox.reveal()
            ...     before, client.meta_search(page_size=1).total_count, sandbox.hidden
            (155, 200, 0)
        """
        self._native.reveal()

    @property
    def hidden(self) -> int:
        """How many papers ``/meta-search`` does not show yet (0 once revealed)."""
        return self._native.hidden

    def close(self) -> None:
        """Stop the server; in-flight requests get a short grace period. Idempotent."""
        _RUNNING.pop(self._native.base_url, None)
        self._native.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "running"
        return f"<Sandbox {self.base_url} {state}>"


def corpus_of(base_url: str) -> dict[str, int] | None:
    """``{"papers": ..., "seed": ...}`` of the sandbox this process runs at ``base_url``, if any
    (manifests record it, so a harvest of a sandbox can be reproduced).

    Args:
        base_url: a client's base URL.

    Returns:
        The corpus of the running sandbox at that URL, or None (another service, or a closed sandbox).

    Examples:
        >>> from paperlens.sandbox import Sandbox, corpus_of
        >>> with Sandbox(papers=50, seed=1) as sandbox:
        ...     corpus_of(sandbox.base_url)
        {'papers': 50, 'seed': 1}
    """
    return _RUNNING.get(base_url.rstrip("/"))


def _header_map(pairs: list[tuple[str, str]]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, value in pairs:
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return headers
