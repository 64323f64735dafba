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
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from paperlens._ids import normalize_doi
from paperlens._unicode import well_formed
from paperlens.errors import BibTeXSyntaxError, ValidationError

__all__ = ["BibEntry", "read_bibtex"]

_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")


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


def read_bibtex(source: str | os.PathLike[str]) -> list[BibEntry]:
    """The entries of a BibTeX file, in the file's order (``@string``, ``@comment`` and
    ``@preamble`` are not entries).

    Args:
        source: BibTeX text, or a path: a ``PathLike``, or a ``str`` that names an existing
            file. A file is read as UTF-8 (a byte order mark skipped), else as Latin-1.

    Raises:
        BibTeXSyntaxError: the file cannot be read; the message names the entry and its line.
        ValidationError: ``source`` is a ``str`` that is neither a file's name nor BibTeX text.
        OSError: the file cannot be opened.
    """
    from paperlens._paperlens import read_bibtex as read_native

    text = well_formed(_text_of(source))
    try:
        rows = read_native(text)
    except ValueError as error:
        message, key, ordinal, line = error.args
        raise BibTeXSyntaxError(message, key=key, ordinal=ordinal, line=line) from None
    return [_entry(*row) for row in rows]


def _text_of(source: str | os.PathLike[str]) -> str:
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
        data = file.read()
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
