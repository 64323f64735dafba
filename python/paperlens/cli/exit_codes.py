"""The exit codes of the ``paperlens`` command, one per kind of failure (listed in ``--help``)."""

from __future__ import annotations

from paperlens import errors

EXIT_OK = 0
EXIT_OTHER = 1
EXIT_USAGE = 2
EXIT_AUTH = 3
EXIT_NOT_FOUND = 4
EXIT_RATE_LIMITED = 5
EXIT_SERVER = 6
EXIT_NOT_VERIFIED = 7  # `paperlens verify`: an entry is not verified
EXIT_OUTPUT = 8
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A command-line mistake found after parsing (exit code 2)."""


def exit_code(error: BaseException) -> int:
    """The exit code that tells this kind of failure apart."""
    from paperlens.storage._output_guard import HarvestError

    if isinstance(error, (HarvestError, errors.ResourceWriteError)):
        return EXIT_OUTPUT
    if isinstance(error, errors.RateLimitError):
        return EXIT_RATE_LIMITED
    if isinstance(error, (errors.AuthenticationError, errors.PermissionDeniedError, errors.ConfigurationError)):
        return EXIT_AUTH
    if isinstance(error, errors.NotFoundError):
        return EXIT_NOT_FOUND
    if isinstance(error, (errors.ValidationError, errors.BadRequestError)):
        return EXIT_USAGE
    if isinstance(error, (errors.ServerError, errors.GatewayTimeoutError)):
        return EXIT_SERVER
    if isinstance(error, (errors.APIConnectionError, errors.APITimeoutError)):
        return EXIT_SERVER
    if isinstance(error, errors.APIError):
        return EXIT_SERVER if error.status >= 500 else EXIT_OTHER
    return EXIT_OTHER
