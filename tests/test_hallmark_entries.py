"""The 2,072 real-world BibTeX entries of HALLMARK's public splits (tests/bibtex/hallmark/, MIT)
read by ``read_bibtex`` with the values bibtexparser 2 (and pylatexenc for the LaTeX) finds in
each: every field, every author; the entries bibtexparser cannot read (an unbalanced brace, as
published) are refused naming their key and line."""

from __future__ import annotations

from pathlib import Path

import bibtexparser
import pytest
from test_bibtex import bibtexparser_view

from paperlens._bibtex import read_bibtex
from paperlens.errors import BibTeXSyntaxError

ENTRIES = Path(__file__).parent / "bibtex" / "hallmark" / "hallmark-v1.0.bib"


def split() -> tuple[list[str], list[str]]:
    """The entries bibtexparser reads, and those it refuses, each as written."""
    texts = ["@" + chunk.strip() for chunk in ENTRIES.read_text(encoding="utf-8").split("\n@") if chunk.strip()]
    texts[0] = texts[0][1:]  # the file starts with its "@"
    readable, refused = [], []
    for text in texts:
        library = bibtexparser.parse_string(text)
        (refused if library.failed_blocks or len(library.entries) != 1 else readable).append(text)
    return readable, refused


def test_every_entry_reads_with_the_fields_bibtexparser_finds(tmp_path):
    readable, refused = split()
    assert (len(readable), len(refused)) == (2063, 9)
    path = tmp_path / "readable.bib"
    path.write_text("\n\n".join(readable) + "\n", encoding="utf-8")
    ours = {entry.key: entry for entry in read_bibtex(path)}
    theirs = bibtexparser_view(path)
    assert list(ours) == list(theirs)
    for key, (fields, authors) in theirs.items():
        entry = ours[key]
        assert entry.authors + (["others"] if entry.et_al else []) == authors, key
        assert {name: entry.fields[name] for name in fields} == fields, key
        assert set(entry.fields) == set(fields) | ({"author"} if authors else set()), key


@pytest.mark.parametrize("index", range(9))
def test_an_entry_with_an_unbalanced_brace_is_refused_by_name(index):
    _readable, refused = split()
    text = refused[index]
    key = text[text.index("{") + 1 : text.index(",")]
    with pytest.raises(BibTeXSyntaxError) as caught:
        read_bibtex(text)
    assert (caught.value.key, caught.value.line) == (key, 1)
