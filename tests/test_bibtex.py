"""paperlens.workflows._bibtex.read_bibtex on the exports of real reference managers (tests/bibtex/),
compared with what bibtexparser and pylatexenc make of the same files; the project's own
BibTeX writer read back; malformed files named by entry and line."""

from __future__ import annotations

import pickle
from pathlib import Path

import bibtexparser
import pytest
from bibtexparser import middlewares
from hypothesis import given, settings
from hypothesis import strategies as st
from pylatexenc.latex2text import LatexNodes2Text

import paperlens
from paperlens.base._unicode import well_formed
from paperlens.errors import BibTeXSyntaxError, ValidationError
from paperlens.results._formats import to_bibtex, works
from paperlens.workflows._bibtex import BibEntry, read_bibtex

FILES = Path(__file__).parent / "bibtex"
EXPORTS = sorted(FILES.glob("*.bib"))


def by_key(source: str | Path) -> dict[str, BibEntry]:
    return {entry.key: entry for entry in read_bibtex(source)}


# -- the exports of reference managers ------------------------------------------------------------


def test_zotero_better_bibtex_dates_protected_titles_and_corporate_authors() -> None:
    entries = by_key(FILES / "zotero-better-bibtex.bib")
    review = entries["mullerQuantumDecoherenceOpen2021"]
    assert review.entry_type == "article"
    assert review.fields["title"] == "Quantum Decoherence in Open Systems: A Review"
    assert review.fields["journaltitle"] == "Physical Review A"
    assert review.authors == ["Müller, Jürgen", "García, María", "Østergaard, Søren"]
    assert (review.year, review.doi, review.et_al) == (2021, "10.1103/physreva.103.032201", False)
    assert review.fields["urldate"] == "2023-05-02"
    assert review.fields["langid"] == "english"
    assert "decoherence \u2013 the loss" in review.fields["abstract"]
    assert "“quantum-to-classical”" in review.fields["abstract"]
    assert review.line == 2
    who = entries["worldhealthorganizationGlobalTuberculosisReport2022"]
    assert who.authors == ["World Health Organization"]
    assert (who.entry_type, who.year, who.doi) == ("report", 2022, None)
    sparse = entries["zhangAttentionSparse2020"]
    assert sparse.authors == ["Zhang, Wei", "Nguyen, Thi Minh"]
    assert sparse.et_al is True
    assert (sparse.year, sparse.fields["pages"]) == (2020, "1123\u20131135")


def test_jabref_string_macros_concatenation_months_and_meta_comments() -> None:
    entries = read_bibtex(FILES / "jabref.bib")
    assert [entry.key for entry in entries] == ["Smith2019", "Knuth1984"]  # no @String, no @Comment
    smith, knuth = entries
    assert smith.fields["journal"] == "Physical Review A"
    assert smith.fields["note"] == "Vol. 99, Physical Review A"
    assert smith.fields["month"] == "December"
    assert smith.fields["title"] == "A Bayesian approach to Örsted's measurements"
    assert smith.authors == ["Smith, John A.", "Doe, Jane", "de la Fontaine, Jean"]
    assert (knuth.year, knuth.fields["month"], knuth.fields["booktitle"]) == (
        1984,
        "June",
        "Proceedings of the Symposium on TeX",
    )
    assert knuth.authors == ["Knuth, Donald E."]
    assert knuth.line == 20
    assert knuth.raw.startswith("@InProceedings{Knuth1984,") and knuth.raw.endswith("}")


def test_mendeley_escapes_doi_urls_and_keywords() -> None:
    entries = by_key(FILES / "mendeley.bib")
    paper = entries["Schrodinger2018"]
    assert paper.authors == ["Schrödinger, Erwin", "Straße, Günther", "Çelik, Ayşe"]
    assert paper.fields["title"] == "Stable noise in über-simple models"
    assert paper.doi == "10.1016/j.physa.2018.01.001"
    assert paper.fields["url"].endswith("https://example.org/a_b%20c")
    assert paper.fields["keywords"] == "Noise,Stable distributions,Übergang"
    assert paper.fields["file"].startswith(":C\\:/Users/me/")
    assert paper.fields["mendeley-groups"] == "Thesis/Chapter 2"
    assert entries["Lee2017"].authors == ["Lee, Min-Jun", "O'Brien, Seán"]


def test_crossref_fills_the_fields_a_paper_lacks_from_its_proceedings() -> None:
    paper, proceedings = read_bibtex(FILES / "crossref.bib")
    assert paper.fields["title"] == "Computing Machinery and Intelligence"
    assert paper.fields["booktitle"] == "Proceedings of the Imaginary Conference on Thinking Machines"
    inherited = (paper.fields["publisher"], paper.fields["address"], paper.fields["month"])
    assert inherited == ("Mind Press", "Oxford", "October")
    assert (paper.year, paper.editors, paper.authors) == (1950, ["Smith, Adam", "Jones, Bob"], ["Turing, Alan M."])
    assert paper.fields["crossref"] == "Proc1950"
    assert proceedings.entry_type == "proceedings"
    assert "crossref" not in proceedings.fields


def latex_text(value: str) -> str:
    return " ".join(LatexNodes2Text().latex_to_text(value).split())


def bibtexparser_view(path: Path) -> dict[str, tuple[dict[str, str], list[str]]]:
    """Each entry's plain fields and names as bibtexparser (v2) and pylatexenc read them."""
    library = bibtexparser.parse_file(str(path), append_middleware=[middlewares.MonthLongStringMiddleware()])
    assert not library.failed_blocks
    names = bibtexparser.parse_file(
        str(path), append_middleware=[middlewares.SeparateCoAuthors(), middlewares.SplitNameParts()]
    )
    view = {}
    for entry, named in zip(library.entries, names.entries, strict=True):
        fields = {f.key.lower(): latex_text(f.value) for f in entry.fields if f.key.lower() not in ("author", "editor")}
        authors = [
            ", ".join(
                part
                for part in (
                    latex_text(" ".join(n.von + n.last)),
                    *map(latex_text, (" ".join(n.jr), " ".join(n.first))),
                )
                if part
            )
            for f in named.fields
            if f.key == "author"
            for n in f.value
        ]
        view[entry.key] = (fields, authors)
    return view


#: Where bibtexparser and pylatexenc fall short, what the file means (checked above).
BIBTEXPARSER_SHORTCOMINGS = {
    ("Smith2019", "note"),  # bibtexparser v2 leaves `"Vol.~" # "99, " # pra` unexpanded
    ("Knuth1984", "booktitle"),  # pylatexenc drops \TeX
    ("Schrodinger2018", "file"),  # $\backslash$ is Mendeley's backslash in a path
    ("Schrodinger2018", "url"),  # \_ and \% are Mendeley's escapes in a URL
    ("Schrodinger2018", "abstract"),  # pylatexenc renders $\alpha$, read_bibtex keeps math as written
}


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: p.name)
def test_values_equal_what_bibtexparser_and_pylatexenc_read(path: Path) -> None:
    ours = by_key(path)
    theirs = bibtexparser_view(path)
    assert list(ours) == list(theirs)
    compared = 0
    for key, (fields, authors) in theirs.items():
        entry = ours[key]
        assert entry.authors + (["others"] if entry.et_al else []) == authors
        for name, value in fields.items():
            if (key, name) not in BIBTEXPARSER_SHORTCOMINGS:
                assert entry.fields[name] == value, (key, name)
                compared += 1
    assert compared >= 5  # the comparison did compare


# -- the syntax BibTeX allows ----------------------------------------------------------------------


def test_macros_ignore_case_concatenate_and_may_follow_their_use() -> None:
    text = (
        '@article{a, journal = PRA # { } # "Letters", month = DEC, publisher = acm}\n'
        '@STRING{ pra = "Physical Review A" }\n'
        "@string{ACM = {Association for {Computing} Machinery}}\n"
    )
    (entry,) = read_bibtex(text)
    assert entry.fields == {
        "journal": "Physical Review A Letters",
        "month": "December",
        "publisher": "Association for Computing Machinery",
    }


def test_an_undefined_macro_reads_as_its_name() -> None:
    (entry,) = read_bibtex("@article{a, journal = Nature, title = {x}}")
    assert entry.fields["journal"] == "Nature"


def test_comments_quotes_nested_braces_bom_and_crlf() -> None:
    text = (
        "\ufeff% a line comment with an @ sign and a { brace\r\n"
        "@preamble{{\\newcommand{\\noop}[1]{}}}\r\n"
        "@comment{an {old} entry}\r\n"
        '@Article{Q1,\r\n  Title = "A {"}quoted{"} {Title {with {nested}}} braces",\r\n'
        "  Author = {D{\\'\\i}az, Jos{\\'e}},\r\n  Year = 1999\r\n}\r\n"
    )
    (entry,) = read_bibtex(text)
    assert entry.fields["title"] == 'A "quoted" Title with nested braces'
    assert entry.authors == ["Díaz, José"]
    assert (entry.year, entry.line) == (1999, 4)
    assert entry.raw == text[text.index("@Article") : text.rindex("}") + 1]


def test_typography_quotes_tildes_dashes_and_escapes() -> None:
    (entry,) = read_bibtex(
        r"@misc{a, title = {``A'' x~y '{}' \~{n} \textasciitilde{} 50\% \{x\} a--b---c}, url = {http://h/~u/a\_b}}"
    )
    assert entry.fields["title"] == "“A” x y '' ñ ~ 50% {x} a\u2013b\u2014c"
    assert entry.fields["url"] == "http://h/~u/a_b"


def test_year_comes_from_date_when_there_is_no_year_field() -> None:
    one, two, three = read_bibtex(
        "@misc{a, date = {2020-07-01}}\n@misc{b, year = {in press}}\n@misc{c, year = {2019a}, date = {2018}}"
    )
    assert (one.year, two.year, three.year) == (2020, None, 2019)


def test_paths_and_latin1_files(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_bytes("@book{b, title = {Caf\xe9}}".encode("latin-1"))
    assert read_bibtex(path)[0].fields["title"] == "Café"
    assert read_bibtex(str(path))[0].fields["title"] == "Café"
    assert read_bibtex("") == []
    with pytest.raises(ValidationError, match=r"source: 'missing\.bib' is neither an existing file"):
        read_bibtex("missing.bib")


def test_lone_surrogates_read_as_replacement_characters() -> None:
    (entry,) = read_bibtex("@misc{a, title = {Coral \ud83d reefs}, author = {M\udc00ller, J.}}")
    assert (entry.fields["title"], entry.authors) == ("Coral \ufffd reefs", ["M\ufffdller, J."])
    record = {"unique_id": "1", "title": "Reef \udfff", "author": [{"name": "\ud800 Kim"}], "doi": "10.1/x"}
    (written,) = read_bibtex(to_bibtex([record]))
    assert (written.fields["title"], written.authors) == ("Reef \ufffd", ["Kim, \ufffd"])


def test_entries_in_parentheses_read_as_bibtexparser_reads_them() -> None:
    text = (
        '@string(pub = "Acta (B)")\n'
        '@Article(paren1,\n  title = {A (b) c) d},\n  note = "e ) f",\n  publisher = pub,\n'
        "  year = 1987\n)\n"
        "@misc{braced, title = {g (h}, year = {2001}}\n"
        '@book ( paren2 , title = "{)} i" , publisher = {j)k} )\n'
    )
    entries = read_bibtex(text)
    library = bibtexparser.parse_string(text, append_middleware=[middlewares.LatexDecodingMiddleware()])
    assert not library.failed_blocks
    theirs = {entry.key: {f.key.lower(): f.value for f in entry.fields} for entry in library.entries}
    expected = {
        "paren1": {"title": "A (b) c) d", "note": "e ) f", "publisher": "Acta (B)", "year": "1987"},
        "braced": {"title": "g (h", "year": "2001"},
        "paren2": {"title": ") i", "publisher": "j)k"},
    }
    assert {entry.key: entry.fields for entry in entries} == theirs == expected
    assert [(entry.line, entry.year) for entry in entries] == [(2, 1987), (8, 2001), (9, None)]
    assert entries[0].raw == text[text.index("@Article") : text.index("\n)\n") + 2]
    assert entries[2].raw == '@book ( paren2 , title = "{)} i" , publisher = {j)k} )'


@pytest.mark.parametrize(
    ("text", "key", "line", "rule"),
    [
        (
            "@misc(a, title={x})\n\n@article(b, title = {y}\n",
            "b",
            3,
            r"the entry's type is not followed by '\{' or by a '\(' that a '\)' closes",
        ),
        ("@misc(a, title={x})\n@misc{b, title={(}\n@misc(c, title={z})\n", "b", 2, "unclosed brace"),
        ("@misc(a, title={x})\n@article(A, title = {y})\n", "A", 2, "duplicate key .*line 1"),
    ],
    ids=["unclosed-parenthesis", "unclosed-brace-before-parentheses", "duplicate-key"],
)
def test_an_error_among_entries_in_parentheses_names_its_own_entry_and_line(
    text: str, key: str, line: int, rule: str
) -> None:
    with pytest.raises(BibTeXSyntaxError, match=rf'entry "{key}" \(line {line}\): {rule}') as caught:
        read_bibtex(text)
    assert (caught.value.key, caught.value.line) == (key, line)


def test_a_macro_defined_again_holds_for_the_entries_after_it_as_in_bibtex() -> None:
    text = (
        "@misc{before, journal = j}\n"
        '@string{j = "Acta A"}\n'
        "@misc{first, journal = j, note = k}\n"
        '@string{k = j # " and more"}\n'
        '@string(j = "Acta B")\n'
        "@misc{second, journal = j, note = k}\n"
    )
    journals = {entry.key: (entry.fields["journal"], entry.fields.get("note")) for entry in read_bibtex(text)}
    # As BibTeX reads the file; `k` is expanded where it is defined, with the first `j`. A use
    # before any definition takes the first one (BibTeX would warn and leave it empty).
    assert journals == {
        "before": ("Acta A", None),
        "first": ("Acta A", "Acta A and more"),
        "second": ("Acta B", "Acta A and more"),
    }
    # bibtexparser 2 keeps the first definition and reports the second as a failed block.
    library = bibtexparser.parse_string(text)
    assert [entry.fields_dict["journal"].value for entry in library.entries[1:]] == ["Acta A", "Acta A"]
    assert [type(block).__name__ for block in library.failed_blocks] == ["DuplicateBlockKeyBlock"]


def test_a_macro_defined_by_itself_reads_as_in_bibtex() -> None:
    text = '@string{a = "x"}\n@string{a = a # "y"}\n@string{b = b}\n@misc{k, title = a # { } # b}\n'
    assert read_bibtex(text)[0].fields["title"] == "xy b"


# -- malformed files -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "line", "rule"),
    [
        (
            "@article{ok, title={x}}\n\n@article{broken,\n  title = {Unclosed {brace},\n  year = {2001}\n}\n\n"
            "@article{next, title = {y}}\n",
            "broken",
            3,
            "unclosed brace",
        ),
        ("@article{nocomma,\n  title = {x}\n  year = {2000}\n}\n", "nocomma", 1, "a comma is missing"),
        ("@article{first, title={x}}\n@book{FIRST,\n title={y}}\n", "FIRST", 2, "duplicate key .*line 1"),
        ("@article{last, title = {x}", "last", 1, "unclosed brace"),
    ],
    ids=["unclosed-brace", "missing-comma", "duplicate-key", "no-end"],
)
def test_a_malformed_file_names_the_entry_and_its_line(text: str, key: str, line: int, rule: str) -> None:
    with pytest.raises(BibTeXSyntaxError, match=rf'entry "{key}" \(line {line}\): {rule}') as caught:
        read_bibtex(text)
    assert (caught.value.key, caught.value.line) == (key, line)
    assert isinstance(caught.value, ValidationError) and paperlens.BibTeXSyntaxError is BibTeXSyntaxError
    copy = pickle.loads(pickle.dumps(caught.value))
    assert (str(copy), copy.key, copy.line, copy.ordinal) == (str(caught.value), key, line, caught.value.ordinal)


def test_an_entry_whose_key_is_unreadable_is_named_by_its_position() -> None:
    with pytest.raises(BibTeXSyntaxError, match=r"entry #2 \(line 3, its key unreadable\)") as caught:
        read_bibtex("@article{a, title={x}}\n\n@article{\n  title = {no key}\n}\n")
    assert (caught.value.key, caught.value.ordinal) == (None, 2)


# -- the project's own writer, read back -----------------------------------------------------------

TEXT = st.text(st.characters(blacklist_categories=("Cc",)), min_size=1, max_size=30).filter(
    lambda s: well_formed(s).strip()
)
URL = st.from_regex(r"https://[a-z]{1,8}\.org/[A-Za-z0-9_~%#&$^.?=-]{0,20}", fullmatch=True)
RECORD = st.fixed_dictionaries(
    {
        "unique_id": st.uuids().map(str),
        "type": st.sampled_from(["journal-article", "proceedings-article", "book", "report", "dataset"]),
        "title": TEXT,
        "author": st.lists(st.fixed_dictionaries({"name": TEXT}), max_size=3),
        "publication_published_year": st.integers(1000, 2100),
        "publication_venue_name_unified": TEXT,
        "publication_publisher": TEXT,
        "publication_venue_biblio_volume": st.text("0123456789", min_size=1, max_size=3),
        "doi": st.from_regex(r"10\.[0-9]{4,5}/[A-Za-z0-9._;()/:~%#&$^<>-]{1,20}", fullmatch=True),
        "locations": st.lists(st.fixed_dictionaries({"landing_page_url": URL}), max_size=1),
    }
)


@settings(max_examples=100, deadline=None)
@given(st.lists(RECORD, min_size=1, max_size=3))
def test_records_written_by_to_bibtex_read_back_equal(records: list[dict[str, object]]) -> None:
    written = works(records)
    text = to_bibtex(records)
    entries = read_bibtex(text)
    library = bibtexparser.parse_string(text)  # verbatim fields as written: DOIs and URLs exact
    assert not library.failed_blocks
    for work, theirs in zip(written, library.entries, strict=True):
        fields = theirs.fields_dict
        assert (fields["doi"].value, fields["url"].value if "url" in fields else None) == (work.doi, work.url)
    assert [entry.key for entry in entries] == [work.key for work in written]
    for work, entry in zip(written, entries, strict=True):
        assert entry.fields.get("title") == work.title
        assert entry.authors == [a.literal or (f"{a.family}, {a.given}" if a.given else a.family) for a in work.authors]
        assert entry.year == work.year
        assert entry.fields.get(work.kind.venue or "note") == work.venue
        assert entry.fields.get("publisher") == work.publisher
        assert entry.fields.get("volume") == work.volume
        assert entry.fields.get("doi") == work.doi
        assert entry.doi == (work.doi.lower() if work.doi else None)
        assert entry.fields.get("url") == work.url


def test_what_a_verbatim_field_cannot_hold_is_percent_encoded() -> None:
    record = {"unique_id": "1", "title": "T", "doi": "10.1000/{a}\\b c}", "landing_page_url": "https://h.org/{x} y\\"}
    record["locations"] = [{"landing_page_url": record.pop("landing_page_url")}]
    text = to_bibtex([record])
    assert "  doi = {10.1000/%7Ba%7D%5Cb%20c%7D},\n  url = {https://h.org/%7Bx%7D%20y%5C}\n" in text
    (entry,) = read_bibtex(text)
    assert (entry.fields["doi"], entry.fields["url"]) == ("10.1000/%7Ba%7D%5Cb%20c%7D", "https://h.org/%7Bx%7D%20y%5C")
