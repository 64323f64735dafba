"""What a corpus harvest asks for and finds, shared by :func:`paperlens.harvest.harvest_corpus`
and the estimate of its cost (:mod:`paperlens.estimate`): the fields ``ids`` may name, the
checked arguments, and the figures a text links to."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from paperlens.base._checks import choice, count, flag, invalid, listed, non_empty_text
from paperlens.base._ids import normalize_id

__all__ = ["BY", "TEXT_NAME", "checked_arguments", "figure_links", "figure_names"]

#: The record fields ``ids`` may name (``by``).
BY = ("unique_id", "doc_id", "doi", "isbn13")
TEXT_NAME = "text.md"
#: The longest part of a path (bytes) file systems and object stores commonly take.
_NAME_MAX = 255
# A Markdown image: ![caption](target "optional title"), the target maybe in <> (then with spaces)
_IMAGE = re.compile(r"!\[[^\]\n]*\]\(\s*(?:<([^>\n]+)>|([^)\s]+))(?:\s+\"[^\"\n]*\")?\s*\)")


def checked_arguments(
    query: str | None, ids: Iterable[str] | None, by: str, texts: bool, figures: bool, limit: int | None
) -> list[str] | None:
    """The normalised, de-duplicated ids (in input order); raises ValidationError for bad input."""
    choice("by", by, BY)
    flag("texts", texts)
    if flag("figures", figures) and not texts:
        raise invalid("figures", "needs texts=True (figures are found in the texts)")
    count("limit", limit, 0, optional=True)
    if ids is None:
        return None
    given = listed("ids", ids, "identifiers")
    if query is not None:
        raise invalid("ids", "give query or ids, not both")
    seen: dict[str, None] = {}
    for index, value in enumerate(given):
        seen.setdefault(normalize_id(non_empty_text(f"ids[{index}]", value), by), None)
    return list(seen)


def figure_names(text: str) -> list[str]:
    """The resource names of the images a Markdown text links to that a harvest fetches and
    writes, in order, each once (see :func:`figure_links`)."""
    return figure_links(text)[0]


def figure_links(text: str) -> tuple[list[str], dict[str, str]]:
    """The images a Markdown text links to, in order, each once: the names a harvest fetches
    and writes into the document's folder, and those it cannot write there, each with why (a
    NUL byte, a name too long, one that would leave the folder, clash with another figure's
    file or folder or with ``text.md``). Links to other sites are left out."""
    names: dict[str, None] = {}
    unwritable: dict[str, str] = {}
    files: set[str] = {TEXT_NAME}
    folders: set[str] = set()
    for match in _IMAGE.finditer(text):
        name = match.group(1) or match.group(2)
        if ":" in name.split("/")[0] or name in names or name in unwritable:
            continue
        why = _unwritable(name) or _clash(name, files, folders)
        if why is not None:
            unwritable[name] = why
            continue
        names[name] = None
        files.add(name)
        parts = name.split("/")
        folders.update("/".join(parts[:end]) for end in range(1, len(parts)))
    return list(names), unwritable


def _unwritable(name: str) -> str | None:
    """Why ``name`` cannot be a file of a document's folder (nor asked of ``/resource``)."""
    parts = name.split("/")
    if "\x00" in name:
        return "holds a NUL byte"
    if any(unicodedata.category(c) == "Cc" for c in name):
        return "holds a control character"
    if name.startswith("/") or ".." in parts:
        return "would leave the document's folder"
    if "" in parts or "." in parts:
        return "is not a plain relative path (an empty or '.' part)"
    if ".." in name or "\\" in name:
        return "holds '..' or a backslash, which /resource does not take"
    if name == TEXT_NAME:
        return f"would replace the document's text ({TEXT_NAME})"
    try:
        longest = max(len(part.encode("utf-8")) for part in parts)
    except UnicodeEncodeError:
        return "is not valid Unicode (a lone surrogate)"
    if longest > _NAME_MAX:
        return f"has a part of {longest} bytes (at most {_NAME_MAX})"
    return None


def _clash(name: str, files: set[str], folders: set[str]) -> str | None:
    """Why ``name`` cannot be written beside the ``files`` already taken (and their ``folders``)."""
    if name in folders:
        return "clashes with the folder of another figure"
    parts = name.split("/")
    for end in range(1, len(parts)):
        prefix = "/".join(parts[:end])
        if prefix in files:
            return f"clashes with the file {prefix}"
    return None
