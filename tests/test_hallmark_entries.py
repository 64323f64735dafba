"""The 2,072 real-world BibTeX entries of HALLMARK's public splits (tests/bibtex/hallmark/, MIT)
read by ``read_bibtex`` with the values bibtexparser 2 finds in each: every field, every
author, as bibtexparser gives it where it holds no LaTeX (an ``&`` and math as written,
as ``read_bibtex`` keeps them), decoded by pylatexenc where it does (``{\\"u}``, ``--``,
TeX quotes); the entries bibtexparser cannot read (an unbalanced brace, as published) are
refused naming their key and line."""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import bibtexparser
import pytest
from bibtexparser import middlewares
from test_bibtex import latex_text

from paperlens.errors import BibTeXSyntaxError
from paperlens.workflows._bibtex import read_bibtex

ENTRIES = Path(__file__).parent / "bibtex" / "hallmark" / "hallmark-v1.0.bib"


@cache
def split() -> tuple[list[str], list[str]]:
    """The entries bibtexparser reads, and those it refuses, each as written."""
    texts = ["@" + chunk.strip() for chunk in ENTRIES.read_text(encoding="utf-8").split("\n@") if chunk.strip()]
    texts[0] = texts[0][1:]  # the file starts with its "@"
    readable: list[str] = []
    refused: list[str] = []
    for text in texts:
        library = bibtexparser.parse_string(text)
        (refused if library.failed_blocks or len(library.entries) != 1 else readable).append(text)
    return readable, refused


def value(raw: str) -> str:
    """What a value means: as bibtexparser gives it, LaTeX outside math decoded."""
    if "$" in raw:  # math kept as written, braces around it dropped
        pieces = raw.split("$")
        return " ".join(
            "$".join(p if n % 2 else p.replace("{", "").replace("}", "") for n, p in enumerate(pieces)).split()
        )
    latex = any(mark in raw for mark in ("\\", "{", "}", "~", "--", "``", "''"))
    return latex_text(raw) if latex else " ".join(raw.split())


def name(person: object) -> str:
    parts = (" ".join(person.von + person.last), " ".join(person.jr), " ".join(person.first))  # type: ignore[attr-defined]
    return ", ".join(value(part) for part in parts if part)


def test_every_entry_reads_with_the_fields_bibtexparser_finds(tmp_path):
    readable, refused = split()
    assert (len(readable), len(refused)) == (2063, 9)
    path = tmp_path / "readable.bib"
    path.write_text("\n\n".join(readable) + "\n", encoding="utf-8")
    ours = {entry.key: entry for entry in read_bibtex(path)}
    library = bibtexparser.parse_file(str(path))
    named = bibtexparser.parse_file(
        str(path), append_middleware=[middlewares.SeparateCoAuthors(), middlewares.SplitNameParts()]
    )
    assert not library.failed_blocks and list(ours) == [entry.key for entry in library.entries]
    compared = Counter()
    for entry, people in zip(library.entries, named.entries, strict=True):
        mine = ours[entry.key]
        fields = {f.key.lower(): value(f.value) for f in entry.fields if f.key.lower() != "author"}
        assert {n: mine.fields.get(n) for n in fields} == fields, entry.key
        assert set(mine.fields) == {*fields, "author"}, entry.key
        authors = [name(p) for f in people.fields if f.key == "author" for p in f.value]
        # "A and et al": BibTeX's rule reads "et" as a von part (read_bibtex: "et al"), bibtexparser as a given name.
        authors = [" ".join(reversed(a.split(", "))) if a.startswith(("al, et", "al., et")) else a for a in authors]
        assert mine.authors + (["others"] if mine.et_al else []) == authors, entry.key
        compared.update(fields.keys())
        compared["author"] += len(authors)
    assert compared["title"] == 2063 and compared["author"] > 8000 and compared["booktitle"] > 1800


@pytest.mark.parametrize("index", range(9))
def test_an_entry_with_an_unbalanced_brace_is_refused_by_name(index):
    _readable, refused = split()
    text = refused[index]
    key = text[text.index("{") + 1 : text.index(",")]
    with pytest.raises(BibTeXSyntaxError) as caught:
        read_bibtex(text)
    assert (caught.value.key, caught.value.line) == (key, 1)
