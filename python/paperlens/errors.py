"""The exceptions of paperlens. Every one of them is also importable from ``paperlens``."""

from __future__ import annotations

from typing import Any

__all__ = [
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "GatewayTimeoutError",
    "NotFoundError",
    "PaperlensError",
    "PartialResultWarning",
    "PermissionDeniedError",
    "RateLimitError",
    "ResourceWriteError",
    "ResponseDecodeError",
    "ServerError",
    "ValidationError",
]


class PaperlensError(Exception):
    """Root of every paperlens error."""

    request_id: str | None = None


class ConfigurationError(PaperlensError, ValueError):
    """A missing or invalid client setting (token, base URL, service source...)."""


class ValidationError(PaperlensError, ValueError):
    """A parameter breaks a bound of the spec; raised before any request is sent."""

    def __init__(self, message: str, *, param: str, rule: str, value: str = "") -> None:
        super().__init__(message)
        self.param = param
        self.rule = rule
        self.value = value


class APIError(PaperlensError):
    """The service answered with an error status."""

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
    """400 or 422: the parameters break a rule of the service."""


class AuthenticationError(APIError):
    """401: the token is missing, malformed, invalid or disabled. Never retried."""


class PermissionDeniedError(APIError):
    """403: the token may not see the requested field, full text or capability."""


class NotFoundError(APIError):
    """404: the paper, entity, relation or evidence does not exist."""


class RateLimitError(APIError):
    """429: the quota is exhausted. ``retry_after`` is the wait the service asked for, in seconds."""

    @property
    def retry_after(self) -> float | None:
        return self._retry_after


class ServerError(APIError):
    """500, 502, 503, 507 and other 5xx: the service or its upstream failed."""


class GatewayTimeoutError(ServerError):
    """504: the service timed out (retried; narrow the query if it keeps happening)."""


class APIConnectionError(PaperlensError):
    """The connection failed or broke before a complete answer arrived."""

    def __init__(self, message: str, *, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


class APITimeoutError(APIConnectionError):
    """No complete answer within the client's timeout."""


class ResponseDecodeError(PaperlensError):
    """A successful answer whose body is not what the contract says (malformed JSON...)."""

    def __init__(self, message: str, *, status: int | None = None, request_id: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.request_id = request_id


class ResourceWriteError(PaperlensError, OSError):
    """A download could not be written to disk; nothing was left behind."""

    def __init__(self, message: str, *, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


class PartialResultWarning(UserWarning):
    """A response with ``partial=true``: usable, but not a complete success."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    422: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    429: RateLimitError,
    504: GatewayTimeoutError,
}


def _api_error_class(status: int) -> type[APIError]:
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ServerError if status >= 500 else APIError


def _from_native(kind: str, message: str, fields: dict[str, Any]) -> PaperlensError:
    """Builds the exception for an error of the Rust core (called from the extension)."""
    if kind == "api":
        return _api_error_class(fields["status"])(message, **fields)
    if kind == "validation":
        return ValidationError(message, **fields)
    if kind == "timeout":
        return APITimeoutError(message, **fields)
    if kind == "connection":
        return APIConnectionError(message, **fields)
    if kind == "decode":
        return ResponseDecodeError(message, **fields)
    if kind == "io":
        return ResourceWriteError(message, **fields)
    return ConfigurationError(message)
