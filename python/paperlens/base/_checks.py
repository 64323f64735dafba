"""The argument checks of the workflows, one wording for all: ``param: rule (got value)``.

Each raises :class:`~paperlens.ValidationError` before any request is sent, naming the
parameter (with the position for list inputs) and the rule it breaks.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from typing import Any

from paperlens.errors import ValidationError

__all__ = ["choice", "count", "flag", "invalid", "listed", "non_empty_text", "not_one_string", "path", "positive"]

_NO_VALUE = object()


def invalid(param: str, rule: str, value: Any = _NO_VALUE) -> ValidationError:
    """The error for ``param`` breaking ``rule`` (``value``: what was given, shown as its repr)."""
    if value is _NO_VALUE:
        return ValidationError(f"{param}: {rule}", param=param, rule=rule)
    shown = repr(value)
    return ValidationError(f"{param}: {rule} (got {shown})", param=param, rule=rule, value=shown)


def count(param: str, value: Any, minimum: int, *, maximum: int | None = None, optional: bool = False) -> None:
    """``value`` is an integer from ``minimum`` (to ``maximum``), or None when ``optional``."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum or (maximum and value > maximum):
        span = f"from {minimum} to {maximum}" if maximum else f">= {minimum}"
        raise invalid(param, f"must be {'None or ' if optional else ''}an integer {span}", value)


def positive(param: str, value: Any, kind: type | tuple[type, ...] = (int, float)) -> None:
    """``value`` is a number of ``kind`` (never a bool), above 0 and finite."""
    number = isinstance(value, kind) and not isinstance(value, bool)
    if not number or not 0 < value < math.inf:
        raise invalid(param, "must be a positive finite number", value)


def flag(param: str, value: Any) -> bool:
    """``value`` is True or False, not any value taken for its truthiness."""
    if not isinstance(value, bool):
        raise invalid(param, "must be True or False", value)
    return value


def choice(param: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise invalid(param, f"must be one of {', '.join(allowed)}", value)
    return str(value)


def non_empty_text(param: str, value: Any) -> str:
    if not isinstance(value, str):
        raise invalid(param, "must be a string", type(value).__name__)
    if not value.strip():
        raise invalid(param, "must not be empty", value)
    return value


def not_one_string(param: str, value: Any, what: str) -> None:
    """A list parameter given a single string (which would iterate as characters)."""
    if isinstance(value, str):
        raise invalid(param, f"must be a list of {what}, not one string", value[:80])


def listed(param: str, value: Any, what: str) -> list[Any]:
    """A list parameter's items, read once: refused when it is one string or no iterable at all
    (bytes, which iterate as numbers, included)."""
    not_one_string(param, value, what)
    if isinstance(value, bytes) or not isinstance(value, Iterable):
        raise invalid(param, f"must be a list of {what}", type(value).__name__)
    return list(value)


def path(param: str, value: Any) -> str:
    """``value`` as a path or URL: a non-empty ``str`` or ``os.PathLike`` of one (not bytes,
    which no output of paperlens is named by)."""
    text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    if not isinstance(text, str) or not text or "\x00" in text:
        raise invalid(param, "must be a path (a non-empty str or os.PathLike, without NUL)", value)
    return text
