"""The exceptions of paperlens. Every one of them is also importable from ``paperlens``.

```
PaperlensError
├── APIError                 status, code, message, request_id, details
│   ├── BadRequestError      400, 422
│   ├── AuthenticationError  401
│   ├── PermissionDeniedError 403
│   ├── NotFoundError        404
│   ├── RateLimitError       429, .retry_after (seconds)
│   │   └── QuotaExhaustedError a wait beyond max_rate_limit_wait, .retry_at (UTC datetime)
│   └── ServerError          500, 502, 503, 507
│       └── GatewayTimeoutError 504
├── APIConnectionError       the connection failed or broke
│   └── APITimeoutError      no complete answer within the timeout
├── ValidationError          a bound of the API, checked before sending (also a ValueError)
│   └── BibTeXSyntaxError    a BibTeX file that cannot be read, .key, .line, .rule
├── ConfigurationError       a missing or invalid setting (also a ValueError)
├── ResponseDecodeError      a success answer that is not what the contract says
│   ├── ResponseTooLargeError an answer past a read bound, .bound, .limit
│   └── PagingLoopError      a cursor already followed, an offset that does not advance
└── ResourceWriteError       a download could not be written (also an OSError)
```

Examples:
    >>> try:
    ...     client.paper_relations("W1", "CITATIONS")
    ... except paperlens.NotFoundError as error:
    ...     print(error.status, error.code, error.request_id)  # quote the request id to support
    404 NOT_FOUND ...
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

__all__ = [
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "BibTeXSyntaxError",
    "ConfigurationError",
    "GatewayTimeoutError",
    "NotFoundError",
    "PagingLoopError",
    "PaperlensError",
    "PartialResultWarning",
    "PermissionDeniedError",
    "QuotaExhaustedError",
    "RateLimitError",
    "ResourceWriteError",
    "ResponseDecodeError",
    "ResponseTooLargeError",
    "ServerError",
    "ValidationError",
]


class PaperlensError(Exception):
    """Root of every paperlens error: ``except paperlens.PaperlensError`` catches them all.

    Attributes:
        request_id: the ``X-Request-ID`` of the call that failed (the same on every attempt),
            or None when no request was sent.
    """

    request_id: str | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        # The keyword-only arguments are not in ``args``: rebuilt from them and the attributes
        # instead, so that an error sent back by a worker process keeps them (an OSError's
        # ``errno`` and ``filename`` are not in ``__dict__``).
        state = dict(self.__dict__)
        if isinstance(self, OSError):  # unset ones stay unset: a None filename would be printed
            state.update((name, value) for name in ("errno", "filename") if (value := getattr(self, name)) is not None)
        return (_unpickled, (type(self), self.args), state)


def _unpickled(cls: type[PaperlensError], args: tuple[Any, ...]) -> PaperlensError:
    error = cls.__new__(cls, *args)
    error.args = args  # OSError's __new__ leaves them to an __init__ that a subclass overrides
    return error


class ConfigurationError(PaperlensError, ValueError):
    """A missing or invalid client setting (token, base URL, service source, CA bundle...).

    The message names the argument or environment variable; it never contains the token.

    Examples:
        >>> try:
        ...     paperlens.Client(api_token="sk-example", base_url="ftp://api.example.org")
        ... except paperlens.ConfigurationError as error:
        ...     print(error)
        base_url scheme "ftp" is not supported: use https://
    """


class ValidationError(PaperlensError, ValueError):
    """A parameter breaks a bound of the spec; raised before any request is sent.

    Args:
        message: the whole message (parameter, rule and value).
        param: the parameter, with the position for list inputs (``filters[2].operator``).
        rule: the rule broken (``"1-200"``, ``"unknown operator"``...).
        value: the offending value, as its ``repr``.

    Attributes:
        param: the parameter, with the position for list inputs.
        rule: the rule broken.
        value: the offending value, as its ``repr``.

    Examples:
        >>> try:
        ...     client.meta_search("coral", page=60, page_size=200)  # page * page_size > 10000
        ... except paperlens.ValidationError as error:
        ...     print(error.param, error.rule)  # nothing was sent
        page page * page_size must not exceed 10000 (page paging stops there: use cursor=next_cursor)
    """

    def __init__(self, message: str, *, param: str, rule: str, value: str = "") -> None:
        super().__init__(message)
        self.param = param
        self.rule = rule
        self.value = value


class BibTeXSyntaxError(ValidationError):
    """A BibTeX file that cannot be read (an unclosed brace, a missing comma, a duplicate
    key...); raised before any request is sent.

    Args:
        message: the whole message, naming the entry (its key, else its position) and line.
        key: the entry's key, or None when it cannot be read.
        ordinal: the entry's 1-based position among the file's ``@`` items.
        line: the 1-based line of the entry's ``@``.
        rule: what the file breaks: ``"BibTeX syntax"``, the budget it is over (``"max_bytes"``,
            ``"max_expanded_bytes"`` or ``"max_brace_depth"``), or ``"macro parts"`` (its macro
            uses add more than 2,097,152 parts, a fixed cap).

    Attributes:
        key: the entry's key, or None when it cannot be read.
        ordinal: the entry's 1-based position among the file's ``@`` items.
        line: the 1-based line of the entry's ``@``.
        rule: what the file breaks (as above).

    Examples:
        >>> try:
        ...     client.verify_citations("@article{smith2020, title = {Unclosed, year = 2020}")
        ... except paperlens.BibTeXSyntaxError as error:
        ...     print(error.key, error.line)
        smith2020 1
    """

    def __init__(self, message: str, *, key: str | None, ordinal: int, line: int, rule: str = "BibTeX syntax") -> None:
        super().__init__(message, param="source", rule=rule)
        self.key = key
        self.ordinal = ordinal
        self.line = line


class APIError(PaperlensError):
    """The service answered with an error status (the subclasses name each status).

    Args:
        message: the whole message, with status, code and request id.
        status: the HTTP status.
        code: the error code of the answer's body (``INVALID_REQUEST``, ``RATE_LIMITED``...).
        api_message: the message of the answer's body.
        request_id: the request id of the call.
        details: the ``details`` of the answer's body, as sent (any JSON value).
        retry_after: the wait a 429 asked for, in seconds.

    Attributes:
        status: the HTTP status.
        code: the error code of the answer's body, or None.
        message: the message of the answer's body (else the whole message).
        request_id: the request id of the call (quote it to support).
        details: the structured details of the answer's body, or None.

    Examples:
        >>> try:
        ...     client.schema.entity(sid, "no-such-entity")
        ... except paperlens.APIError as error:
        ...     print(error.status, error.code, error.message, error.request_id)
        404 NOT_FOUND ...
    """

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str | None = None,
        api_message: str | None = None,
        request_id: str | None = None,
        details: Any = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = api_message if api_message is not None else message
        self.request_id = request_id
        self.details = details
        self._retry_after = retry_after


class BadRequestError(APIError):
    """400 or 422: the parameters break a rule of the service. Never retried.

    ``details`` often names the parameter (``details["parameter"]``).
    """


class AuthenticationError(APIError):
    """401: the token is missing, malformed, invalid or disabled. Never retried."""


class PermissionDeniedError(APIError):
    """403: the token may not see the requested field, full text or capability."""


class NotFoundError(APIError):
    """404: the paper, entity, relation or evidence does not exist."""


class RateLimitError(APIError):
    """429: the quota is exhausted. ``retry_after`` is the wait the service asked for, in seconds.

    Raised after ``max_retries`` retries, and as its subclass :class:`QuotaExhaustedError`
    when the wait is longer than the client's ``max_rate_limit_wait`` (a daily quota used up,
    usually); shorter waits are waited out.

    Examples:
        >>> from paperlens.sandbox import Sandbox
        >>> with Sandbox(papers=50) as sandbox:  # a service that answers one 429
        ...     sandbox.inject_fault("/meta-search", 429, retry_after=2)
        ...     client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, max_retries=0)
        ...     try:
        ...         client.meta_search("coral")
        ...     except paperlens.RateLimitError as error:
        ...         print(f"try again in {error.retry_after} s")
        try again in 2.0 s
    """

    @property
    def retry_after(self) -> float | None:
        """The wait the service asked for, in seconds (``Retry-After`` or ``details.retry_after``), or None."""
        return self._retry_after


class QuotaExhaustedError(RateLimitError):
    """429 asking for a wait longer than the client's ``max_rate_limit_wait``: the quota
    (usually the daily one) is used up until ``retry_at``. Raised at once, without waiting.

    A harvest, a corpus harvest or a snowball with a checkpoint stopped by it keeps what it
    wrote, and its error gains a note saying when to run the same call again to resume.

    Attributes:
        retry_at: when the service said to come back, an aware UTC ``datetime`` computed when
            its answer arrived (``retry_after`` seconds after that).

    Examples:
        >>> from paperlens.sandbox import Sandbox
        >>> with Sandbox(papers=50) as sandbox:  # a service whose quota is spent for an hour
        ...     sandbox.inject_fault("/meta-search", 429, retry_after=3600)
        ...     client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url)
        ...     try:
        ...         client.meta_search("coral")
        ...     except paperlens.QuotaExhaustedError as error:
        ...         print(f"come back after {error.retry_at:%Y-%m-%d %H:%M} UTC")
        come back after ... UTC
    """

    def __init__(self, message: str, *, retry_at: datetime, **fields: Any) -> None:
        super().__init__(message, **fields)
        self.retry_at = retry_at


class ServerError(APIError):
    """500, 502, 503, 507 and other 5xx: the service or its upstream failed.

    502 and 503 are retried (``max_retries``) before this is raised; 500 and 507 are not.
    """


class GatewayTimeoutError(ServerError):
    """504: the service timed out (retried; narrow the query if it keeps happening)."""


class APIConnectionError(PaperlensError):
    """The connection failed or broke before a complete answer arrived (after the retries).

    Args:
        message: what failed (never the token).
        request_id: the request id of the call.
    """

    def __init__(self, message: str, *, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


class APITimeoutError(APIConnectionError):
    """No complete answer within the client's ``timeout``, which bounds each attempt (the
    message gives the attempts made and the time they took in all), or within its
    ``deadline``, which bounds a whole call with its retries and waits.

    Raise the timeout for one call with ``client.with_options(timeout=...)``; bound a call's
    total time with ``client.with_options(deadline=...)``.
    """


class ResponseDecodeError(PaperlensError):
    """A successful answer whose body is not what the contract says (malformed JSON...).

    Args:
        message: what was wrong with the body.
        status: the HTTP status of the answer.
        request_id: the request id of the call.
    """

    def __init__(self, message: str, *, status: int | None = None, request_id: str | None = None) -> None:
        # Raised by the Python layer too, quoting answers: the token is taken out here as well.
        from paperlens._paperlens import redact

        super().__init__(redact(message))
        self.status = status
        self.request_id = None if request_id is None else redact(request_id)


class ResponseTooLargeError(ResponseDecodeError):
    """A successful answer larger than a read bound of the client: reading stopped at the
    bound and nothing of the answer was kept (a download leaves no file). The message names
    the bound, its value and how to raise it.

    Attributes:
        bound: the client option that bounds it: ``max_response_bytes`` (an answer read into
            memory), ``max_download_bytes`` (a download to disk) or ``max_compression_ratio``
            (a gzip answer that grows past that many times its compressed size).
        limit: the option's value.

    Examples:
        >>> small = client.with_options(max_response_bytes=100)
        >>> try:
        ...     small.meta_search("coral")
        ... except paperlens.ResponseTooLargeError as error:
        ...     print(error.bound, error.limit)
        max_response_bytes 100
    """

    def __init__(
        self,
        message: str,
        *,
        bound: str,
        limit: int,
        status: int | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message, status=status, request_id=request_id)
        self.bound = bound
        self.limit = limit


class PagingLoopError(ResponseDecodeError):
    """The service led a walk over pages in a loop: it answered a cursor this walk already
    followed, or a ``next_offset`` that does not advance. The walk stops there, within a
    request of the first repeat; what it yielded (or wrote) before is every item delivered
    once, none twice.

    Attributes:
        request_id: the request id of the answer that repeated.
    """


class ResourceWriteError(PaperlensError, OSError):
    """A download could not be written to disk; nothing was left behind.

    Args:
        message: the path and the operating system's reason.
        request_id: the request id of the call.
        errno: the operating system's error number (``errno.ENOSPC``...), when there is one.

    Attributes:
        errno: the operating system's error number, or None.
    """

    def __init__(self, message: str, *, request_id: str | None = None, errno: int | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id
        self.errno = errno


class PartialResultWarning(UserWarning):
    """This result is not the whole set: usable, but not a complete success. One warning for
    every such answer: ``partial=true`` (a dependent step failed or degraded),
    ``truncated=true`` (a count, graph-size or materials cap was reached: a citation graph's
    ``max_nodes``...), an entity's ``relations_truncated`` and a materials bundle's
    ``counts.<resource>.truncated``.

    The result keeps ``.partial``, ``.truncated`` and ``.warnings`` (the service's notes, also
    in the warning's text).

    Examples:
        >>> import warnings
        >>> warnings.simplefilter("error", paperlens.PartialResultWarning)  # treat partial answers as errors
    """


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    422: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    429: RateLimitError,
    504: GatewayTimeoutError,
}


#: The core's other kinds of error; an unknown kind is a ``ConfigurationError``.
_BY_KIND: dict[str, type[PaperlensError]] = {
    "validation": ValidationError,
    "timeout": APITimeoutError,
    "connection": APIConnectionError,
    "decode": ResponseDecodeError,
    "too_large": ResponseTooLargeError,
    "io": ResourceWriteError,
}


def _api_error_class(status: int) -> type[APIError]:
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ServerError if status >= 500 else APIError


def _from_native(kind: str, message: str, fields: dict[str, Any]) -> PaperlensError:
    """Builds the exception for an error of the Rust core (called from the extension)."""
    if kind == "api":
        retry_at = fields.pop("retry_at", None)
        if retry_at is not None:  # set by the core only for a 429 beyond max_rate_limit_wait
            return QuotaExhaustedError(message, retry_at=datetime.fromtimestamp(retry_at, timezone.utc), **fields)
        return _api_error_class(fields["status"])(message, **fields)
    by_kind = _BY_KIND.get(kind)
    if by_kind is not None:
        return by_kind(message, **fields)
    return ConfigurationError(message)
