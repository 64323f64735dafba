"""Identifiers as paperlens compares them: DOIs (prefixes, percent-escapes, case), ISBN-13s
(hyphens, spaces) and ``doc_id`` hashes (case). Shared by ``lookup``, the exports,
deduplication and ``harvest_corpus``; re-exported by :mod:`paperlens.lookup`."""

from __future__ import annotations

import re
from urllib.parse import unquote

_DOI_PREFIX = re.compile(r"^(?:(?:https?://)?(?:dx\.|www\.)?doi\.org/|urn:doi:|doi:)\s*", re.IGNORECASE)
_ISBN_PREFIX = re.compile(r"^isbn(?:-?13)?:?\s*", re.IGNORECASE)
_HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")


def normalize_doi(doi: str) -> str:
    """``doi`` without surrounding whitespace, a ``https://doi.org/``, ``http://dx.doi.org/``
    or ``doi:`` prefix (a URL's percent-escapes decoded), in lower case (DOIs are
    case-insensitive). The shape is not checked.

    >>> from paperlens.lookup import normalize_doi
    >>> normalize_doi(" https://doi.org/10.1000/ABC%2F1 ")
    '10.1000/abc/1'
    """
    return strip_doi(doi).lower()


def strip_doi(doi: str) -> str:
    text = doi.strip()
    bare = _DOI_PREFIX.sub("", text, count=1)
    if bare != text and "/" in text[: len(text) - len(bare)]:
        bare = unquote(bare)  # a doi.org URL may percent-escape the suffix
    return bare.strip()


def normalize_id(value: str, by: str) -> str:
    """``value`` as ``lookup`` compares it for the ``by`` field (see :func:`normalize_doi`;
    ISBN-13s lose hyphens and spaces; a 64-digit hex ``doc_id`` is lower-cased); no checks."""
    if by == "doi":
        return normalize_doi(value)
    text = value.strip()
    if by == "isbn13":
        return re.sub(r"[\s-]", "", _ISBN_PREFIX.sub("", text, count=1))
    if by == "doc_id" and _HEX64.match(text):
        return text.lower()
    return text
