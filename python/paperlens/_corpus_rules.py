"""What a corpus harvest asks for and finds, shared by :func:`paperlens.harvest.harvest_corpus`
and the estimate of its cost (:mod:`paperlens.estimate`): the fields ``ids`` may name, the
checked arguments, and the figures a text links to."""

from __future__ import annotations

import re
from collections.abc import Iterable

from paperlens._checks import choice, count, invalid, non_empty_text, not_one_string
from paperlens._ids import normalize_id

__all__ = ["BY", "TEXT_NAME", "checked_arguments", "figure_names"]

#: The record fields ``ids`` may name (``by``).
BY = ("unique_id", "doc_id", "doi", "isbn13")
TEXT_NAME = "text.md"
# A Markdown image: ![caption](target "optional title"), the target maybe in <> (then with spaces)
_IMAGE = re.compile(r"!\[[^\]\n]*\]\(\s*(?:<([^>\n]+)>|([^)\s]+))(?:\s+\"[^\"\n]*\")?\s*\)")


def checked_arguments(
    query: str | None, ids: Iterable[str] | None, by: str, texts: bool, figures: bool, limit: int | None
) -> list[str] | None:
    """The normalised, de-duplicated ids (in input order); raises ValidationError for bad input."""
    choice("by", by, BY)
    if figures and not texts:
        raise invalid("figures", "needs texts=True (figures are found in the texts)")
    count("limit", limit, 0, optional=True)
    if ids is None:
        return None
    not_one_string("ids", ids, "identifiers")
    if query is not None:
        raise invalid("ids", "give query or ids, not both")
    seen: dict[str, None] = {}
    for index, value in enumerate(ids):
        seen.setdefault(normalize_id(non_empty_text(f"ids[{index}]", value), by), None)
    return list(seen)


def figure_names(text: str) -> list[str]:
    """The resource names of the images a Markdown text links to, in order, each once; links to
    other sites and names that could leave their folder (absolute, ``..``) are left out."""
    names: dict[str, None] = {}
    for match in _IMAGE.finditer(text):
        name = match.group(1) or match.group(2)
        parts = name.split("/")
        if ":" in parts[0] or "\\" in name or any(p in ("", ".", "..") for p in parts) or name == TEXT_NAME:
            continue
        names.setdefault(name, None)
    return list(names)
