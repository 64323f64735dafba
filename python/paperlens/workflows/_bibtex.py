"""BibTeX files read into entries whose values are plain Unicode text, as the Rust core
reads them (typst's ``biblatex`` crate; see ``crates/paperlens-core/src/bibtex.rs``).

What the files of reference managers hold is read: Zotero and Better BibTeX (``date =``,
``{{Protected}}`` titles), JabRef (``@string`` macros, ``#`` concatenation, ``month = dec``,
``@Comment{jabref-meta: ...}``), Mendeley (``{\\"{u}}``, ``doi = {https://doi.org/...}``,
``\\_`` in URLs); ``%`` comments, a byte order mark and CRLF line ends.

Choices:

- ``@comment`` and ``@preamble`` blocks are skipped; an entry may be written in parentheses,
  ``@article(key, ...)``, as BibTeX allows.
- ``@string`` macros are read in file order, as BibTeX reads them: an entry takes the
  definition in force where it stands, so a macro defined again holds in its new value for
  the entries after it (bibtexparser 2 keeps the first and reports the second as a failed
  block); a macro used before any definition takes its first one. Names ignore case (as in
  BibTeX); a macro that is not defined and not a month (``journal = Nature``) reads as its
  own name, not as an error.
- ``month = dec`` reads as ``"December"``.
- ``and others`` is not a name: it sets ``et_al`` (``editors_et_al`` for editors).
- ``crossref``: the entry takes each field it lacks from the entry named (BibTeX's rule),
  and the parent's title as its ``booktitle`` (biblatex's); its own title stays its own.
- Math (``$\\alpha$``) is kept as written; ``~`` reads as a space, ``--`` as an en dash.
- A file that cannot be read raises :class:`~paperlens.errors.BibTeXSyntaxError` naming the
  entry (its key, else its position) and its line; so do duplicate keys (compared without
  case, as BibTeX does).
- Budgets, so that a hostile file costs little: a file over :data:`MAX_BYTES` (64 MiB) is
  refused before it is read whole; macro uses that add more than :data:`MAX_EXPANDED_BYTES`
  (64 MiB: one 1 MiB ``@string`` used 5,000 times would add 5 GB), and braces nested more than
  :data:`MAX_BRACE_DEPTH` (100) deep, are refused naming the budget, each keyword of
  :func:`read_bibtex` raising it; so is an entry with more than 32 quoted values holding a quote
  in braces (``"a {"}b"``: each costs a reading of the file). Reading takes time linear in the
  file's size.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass

from paperlens.base import _checks as checks
from paperlens.base._ids import normalize_doi
from paperlens.base._unicode import well_formed
from paperlens.errors import BibTeXSyntaxError, ValidationError

__all__ = [
    "MAX_BRACE_DEPTH",
    "MAX_BYTES",
    "MAX_EXPANDED_BYTES",
    "BibEntry",
    "bare_words",
    "braced_words",
    "read_bibtex",
    "string_definitions",
]

#: The largest file read, in bytes (UTF-8).
MAX_BYTES = 64 << 20
#: The most bytes that all macro uses of a file may add.
MAX_EXPANDED_BYTES = 64 << 20
#: How deeply braces may nest.
MAX_BRACE_DEPTH = 100

_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_STRING = re.compile(r"@\s*string\s*([{(])", re.IGNORECASE)
_DEFINED = re.compile(r"(?:^|,)\s*([A-Za-z][^\s=,{}\"#%'()]*)\s*=")
_BARE = re.compile(r"[A-Za-z][^\s=,{}\"#%'()]*")


@dataclass(frozen=True)
class BibEntry:
    """One BibTeX entry.

    Attributes:
        key: the citation key, as written.
        entry_type: ``article``, ``inproceedings``... in lower case.
        fields: lower-case field names (in the file's order, inherited ones last) to their
            values as plain text: macros expanded, LaTeX decoded, braces removed, whitespace
            collapsed.
        authors: ``"Family, Given"`` each (a corporate name alone; ``"von Family, Jr, Given"``
            when there is more), without the ``others`` of ``and others``.
        et_al: the author list ended with ``and others``.
        editors: as ``authors``, of the ``editor`` field.
        editors_et_al: the editor list ended with ``and others``.
        year: the first four-digit number of ``year``, else of ``date``; None without one.
        doi: the ``doi`` field normalised (no ``https://doi.org/`` prefix, lower case), or None.
        line: the 1-based line of the entry's ``@``.
        raw: the entry's source text, from ``@`` to its closing brace.
    """

    key: str
    entry_type: str
    fields: dict[str, str]
    authors: list[str]
    et_al: bool
    editors: list[str]
    editors_et_al: bool
    year: int | None
    doi: str | None
    line: int
    raw: str


#: The largest budget: what a file read of ``max_bytes + 1`` bytes and a native size both hold.
_MOST = sys.maxsize - 1


def read_bibtex(
    source: str | os.PathLike[str],
    *,
    max_bytes: int = MAX_BYTES,
    max_expanded_bytes: int = MAX_EXPANDED_BYTES,
    max_brace_depth: int = MAX_BRACE_DEPTH,
) -> list[BibEntry]:
    """The entries of a BibTeX file, in the file's order (``@string``, ``@comment`` and
    ``@preamble`` are not entries).

    Args:
        source: BibTeX text, or a path: a ``PathLike``, or a ``str`` that names an existing
            file. A file is read as UTF-8 (a byte order mark skipped), else as Latin-1.
        max_bytes: the largest file read, in bytes.
        max_expanded_bytes: the most bytes all macro uses of the file may add.
        max_brace_depth: how deeply braces may nest.

    Raises:
        BibTeXSyntaxError: the file cannot be read, or is over a budget; the message names the
            entry and its line, or the budget (its ``rule``: see :class:`~paperlens.errors.BibTeXSyntaxError`).
        ValidationError: ``source`` is a ``str`` that is neither a file's name nor BibTeX text,
            or a budget is not an integer from 0 to ``sys.maxsize - 1`` (before the file is read).
        OSError: the file cannot be opened.
    """
    from paperlens._paperlens import read_bibtex as read_native

    budgets = {"max_bytes": max_bytes, "max_expanded_bytes": max_expanded_bytes, "max_brace_depth": max_brace_depth}
    for name, budget in budgets.items():
        checks.count(name, budget, 0, maximum=_MOST)
    text = well_formed(_text_of(source, max_bytes))
    try:
        rows = read_native(text, max_bytes, max_expanded_bytes, max_brace_depth)
    except ValueError as error:
        message, key, ordinal, line, rule = error.args
        raise BibTeXSyntaxError(message, key=key, ordinal=ordinal, line=line, rule=rule) from None
    return [_entry(*row) for row in rows]


def _text_of(source: str | os.PathLike[str], max_bytes: int) -> str:
    if isinstance(source, str) and ("@" in source or "\n" in source):
        return source
    if isinstance(source, str) and not os.path.isfile(source):
        if source.strip():
            raise ValidationError(
                f"source: {source!r} is neither an existing file nor BibTeX text (it has no @entry)",
                param="source",
                rule="an existing file or BibTeX text",
                value=repr(source),
            )
        return source
    with open(source, "rb") as file:
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:
        message = f"BibTeX file refused: {os.fspath(source)!r} has more than max_bytes ({max_bytes}) bytes"
        raise BibTeXSyntaxError(message, key=None, ordinal=0, line=1, rule="max_bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # older files (JabRef's "% Encoding: ISO8859_1")


def _entry(
    key: str,
    entry_type: str,
    fields: list[tuple[str, str]],
    authors: list[str],
    et_al: bool,
    editors: list[str],
    editors_et_al: bool,
    line: int,
    raw: str,
) -> BibEntry:
    values = dict(fields)
    doi = normalize_doi(values.get("doi", ""))
    return BibEntry(
        key=key,
        entry_type=entry_type,
        fields=values,
        authors=authors,
        et_al=et_al,
        editors=editors,
        editors_et_al=editors_et_al,
        year=_year(values.get("year")) or _year(values.get("date")),
        doi=doi or None,
        line=line,
        raw=raw,
    )


def _year(text: str | None) -> int | None:
    match = _YEAR.search(text or "")
    return int(match.group(1)) if match else None


def string_definitions(text: str) -> list[tuple[str, str]]:
    """Each ``@string`` definition of a BibTeX text that :func:`read_bibtex` reads, as (name,
    the definition as written), in the file's order (a definition of several names once per
    name)."""
    found: list[tuple[str, str]] = []
    at = 0
    while (match := _STRING.search(text, at)) is not None:
        end = _block_end(text, match.end() - 1, "}" if match.group(1) == "{" else ")")
        if end is None:
            break
        block = text[match.start() : end]
        body = text[match.end() : end - 1]
        found.extend((name, block) for name in _DEFINED.findall(_top_level(body)))
        at = end
    return found


def bare_words(block: str) -> list[str]:
    """The words outside braces and quotes in the body of an entry or ``@string`` written as
    ``block`` (``@type{...}``): its key, field names and the macros its values use."""
    opening = re.search(r"[{(]", block)
    return _BARE.findall(_top_level(block[opening.end() : -1])) if opening else []


def braced_words(raw: str, name: str) -> list[str]:
    """The words the value of field ``name`` of the entry written as ``raw`` puts in braces
    of their own (``{NOAA}``, ``{HadCRUT5}``: protected from a style's case changes), without
    LaTeX commands' groups (``{\\"u}``)."""
    field = re.search(r"(?:^|[\s,{(])" + re.escape(name) + r"\s*=\s*([{\"])", raw, re.IGNORECASE)
    if field is None:
        return []
    close = "}" if field.group(1) == "{" else '"'
    groups: list[str] = []
    depth = 0
    start = 0
    for at in range(field.end(), len(raw)):
        char = raw[at]
        if char == "{":
            depth += 1
            start = at + 1 if depth == 1 else start
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0 and "\\" not in raw[start:at] and raw[start:at].strip():
                groups.append(raw[start:at])
        elif char == close and depth == 0:
            break
    return groups


def _block_end(text: str, open_at: int, close: str) -> int | None:
    """After the ``close`` that ends the block opened at ``open_at`` (braces nest, quotes at
    the top level hold anything but a quote)."""
    depth = 0
    quoted = False
    for at in range(open_at + 1, len(text)):
        char = text[at]
        if char == '"' and depth == 0:
            quoted = not quoted
        elif char == "{":
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
        elif char == close and depth == 0 and not quoted:
            return at + 1
    return None


def _top_level(body: str) -> str:
    """``body`` with what braces and quotes hold blanked out."""
    out = []
    depth = 0
    quoted = False
    for char in body:
        if char == '"' and depth == 0:
            quoted = not quoted
        elif char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif depth == 0 and not quoted:
            out.append(char)
            continue
        out.append(" ")
    return "".join(out)
