"""Argument values from their command-line text: filters, sort orders, facets, JSON, lists."""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

from paperlens.base import _contract as c
from paperlens.base.filters import Filter
from paperlens.cli.exit_codes import UsageError

# A bare value may not start with an operator's character: ``citation_count >> 5`` is a typo,
# not ``>`` with the value ``"> 5"`` (quote a value that does start so).
_FILTER_SYMBOL = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*(==|!=|>=|<=|=|>|<)\s*([^=<>!\s].*?)\s*$")
# The word operators, longest first (``match_phrase`` before ``match``).
_WORDS = sorted((alias for alias in c.OPERATOR_ALIASES if alias.isidentifier()), key=len, reverse=True)
_FILTER_WORD = re.compile(rf"^\s*([A-Za-z_][\w.]*)\s+({'|'.join(_WORDS)})\s+(.*?)\s*$", re.I)
_LIST_WORDS = tuple(alias for alias, name in c.OPERATOR_ALIASES.items() if name in c.LIST_OPERATORS)


def _scalar(text: str) -> Any:
    """A filter value: quoted text as is, else a boolean, a number or the bare text."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def filter_arg(text: str) -> Filter:
    """``citation_count>=100``, ``language in en,zh``, ``title match graph``..."""
    match = _FILTER_WORD.match(text) or _FILTER_SYMBOL.match(text)
    if not match:
        raise argparse.ArgumentTypeError(
            f"expected FIELD OP VALUE, OP one of {' '.join(c.OPERATOR_ALIASES)} (a value that starts "
            f"with = < > or ! in quotes), e.g. 'citation_count>=100' or 'language in en,zh'; got {text!r}"
        )
    field, op, raw = match.groups()
    op = {"=": "=="}.get(op, op.lower())
    value = [_scalar(v) for v in raw.split(",") if v.strip()] if op in _LIST_WORDS else _scalar(raw)
    return Filter(field, op, value)


def sort_arg(text: str) -> tuple[str, str]:
    """``FIELD`` (descending) or ``FIELD:asc`` / ``FIELD:desc``."""
    field, _, order = text.partition(":")
    order = (order or "desc").lower()
    if not field or order not in c.SORT_ORDERS:
        raise argparse.ArgumentTypeError(f"expected FIELD or FIELD:asc or FIELD:desc, got {text!r}")
    return field, order


def facet_arg(text: str) -> str | tuple[str, int]:
    """``FIELD`` or ``FIELD:N`` (N buckets)."""
    field, _, size = text.partition(":")
    if not field or (size and not size.isdigit()):
        raise UsageError(f"--facet: expected FIELD or FIELD:N, got {text!r}")
    return (field, int(size)) if size else field


def rate_limit_arg(text: str) -> tuple[str, int]:
    """``meta-search=N`` or ``paper-schema=N`` (requests per minute)."""
    resource, _, count = text.partition("=")
    if resource not in ("meta-search", "paper-schema") or not count.isdigit():
        raise argparse.ArgumentTypeError(f"expected meta-search=N or paper-schema=N, got {text!r}")
    return resource, int(count)


def json_arg(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"not valid JSON ({e}): {text!r}") from e


def csv_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def int_list(text: str) -> list[int]:
    try:
        return [int(part) for part in csv_list(text)]
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from e
