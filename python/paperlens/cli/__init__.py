"""The ``paperlens`` command line.

Research commands (``search``, ``read``, ``download``, ``catalog``, ``meta-search``,
``relations``, ``harvest``, ``schema <op>``) talk to the service named by the environment
(``PAPERLENS_API_TOKEN``, ``PAPERLENS_BASE_URL``; never a command-line argument, which would
land in shell history), or, when neither is set, to a fresh local sandbox. ``sandbox`` serves
one; ``demo`` tours the API.

One module per concern: :mod:`.parser` (the arguments), :mod:`.convert` (argument values),
:mod:`.commands` and :mod:`.schema_commands` (what each command does), :mod:`.session` (the
client a command uses), :mod:`.output` (the formats), :mod:`.serve` and :mod:`.demo`.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from paperlens import errors
from paperlens.cli.demo import run_demo
from paperlens.cli.exit_codes import (
    EXIT_AUTH,
    EXIT_INTERRUPTED,
    EXIT_NOT_FOUND,
    EXIT_NOT_VERIFIED,
    EXIT_OK,
    EXIT_OTHER,
    EXIT_OUTPUT,
    EXIT_RATE_LIMITED,
    EXIT_SERVER,
    EXIT_USAGE,
    UsageError,
    exit_code,
)
from paperlens.cli.output import emit, format_table
from paperlens.cli.parser import build_parser
from paperlens.cli.schema_commands import SCHEMA_OPERATIONS

__all__ = [
    "EXIT_AUTH",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_FOUND",
    "EXIT_NOT_VERIFIED",
    "EXIT_OK",
    "EXIT_OTHER",
    "EXIT_OUTPUT",
    "EXIT_RATE_LIMITED",
    "EXIT_SERVER",
    "EXIT_USAGE",
    "SCHEMA_OPERATIONS",
    "emit",
    "exit_code",
    "format_table",
    "main",
    "run_demo",
]


_RESUME = "run the same command again to resume: it continues from the last checkpoint"


def _resumes(args: argparse.Namespace) -> bool:
    return args.command == "harvest" or getattr(args, "checkpoint", None) is not None


def _warning_printer(command: str) -> Callable[..., None]:
    """Prints a warning as a command's message on stderr (``paperlens schema:
    PartialResultWarning: ...``), without the Python source line that raised it."""

    def show(message: Warning | str, category: type[Warning], *_: Any, **__: Any) -> None:
        print(f"paperlens {command}: {category.__name__}: {message}", file=sys.stderr)

    return show


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``paperlens`` command; returns the process exit code (documented in ``--help``)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help, or a usage error argparse reported
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _warning_printer(args.command)
            return int(args.run(args))
    except UsageError as error:
        print(f"paperlens {args.command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        hint = f"; {_RESUME}" if _resumes(args) else ""
        print(f"paperlens {args.command}: interrupted{hint}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except errors.QuotaExhaustedError as error:
        when = f"{error.retry_at:%Y-%m-%d %H:%M:%S} UTC"
        hint = f"\nthe quota is exhausted until {when}; after that time, {_RESUME}" if _resumes(args) else ""
        print(f"paperlens {args.command}: {type(error).__name__}: {error}{hint}", file=sys.stderr)
        return EXIT_RATE_LIMITED
    except BrokenPipeError:  # `paperlens ... | head`
        return EXIT_OK
    except Exception as error:
        code = exit_code(error)
        if code == EXIT_OTHER and not isinstance(error, (errors.PaperlensError, OSError, ImportError)):
            raise
        print(f"paperlens {args.command}: {type(error).__name__}: {error}", file=sys.stderr)
        return code
