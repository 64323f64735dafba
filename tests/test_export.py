"""BibTeX, RIS and CSL-JSON export, read back by real parsers (bibtexparser, rispy,
citeproc-py) over sandbox records (CJK titles and names, missing fields) and constructed
ones (emoji, braces, %, &, LaTeX's other special characters, nothing at all)."""

from __future__ import annotations

import calendar
import json
import re

import bibtexparser
import pytest
import rispy
from bibtexparser.middlewares import LatexDecodingMiddleware, MonthIntMiddleware
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
from citeproc.source.json import CiteProcJSON
from pybtex.database import parse_string as pybtex_parse
from pybtex.plugin import find_plugin

import paperlens
from paperlens.export import CITATION_FIELDS, RecordList, latex_escape, works
from paperlens.sandbox import Sandbox
from paperlens.types import MetadataRecord

from fixtures import sandbox_client

TRICKY = [
    {
        "unique_id": "W-tricky-1",
        "title": "50% of {DNA} & $x_1$ #1 ~ ^ \\ under 珊瑚 🪸 bleaching 🎉",
        "author": [{"name": "Ana O'Brien-Núñez"}, {"name": "Research & Development Group"}, {"name": "赵洋"}],
        "type": "article",
        "publication_published_year": 2021,
        "publication_published_date": "2021-06-15",
        "publication_venue_name_unified": "Journal of Corals & Reefs {JCR}",
        "publication_venue_type": "journal",
        "publication_venue_biblio_volume": "12",
        "publication_venue_biblio_issue": "3",
        "publication_venue_biblio_pages": "101\u2013118",
        "publication_publisher": ["Wiley & Sons", "100% Press"],
        "doi": "https://doi.org/10.1000/ABC_{1}%",
    },
    {"unique_id": "W-tricky-2", "title": "気候変動と珊瑚礁\uff1a{総説} 🌊", "author": [{"name": "山本 美咲"}]},
    {"unique_id": "W-tricky-3"},
    {"unique_id": "W-tricky-4", "title": "   ", "author": [], "publication_published_year": None},
]


@pytest.fixture(scope="module")
def records():
    with Sandbox(papers=2000) as sandbox:
        client = sandbox_client(sandbox)
        sandbox_records = client.iter_meta_search(None, fields=CITATION_FIELDS, limit=150).to_list()
    return sandbox_records + [MetadataRecord._from_wire(dict(wire)) for wire in TRICKY]


def typographic(text: str) -> str:
    """What pylatexenc makes of plain text: ``--`` as an en dash, ``^`` as a modifier letter."""
    return text.replace("---", "\u2014").replace("--", "\u2013").replace("^", "\u02c6")


def one_line(text: str | None) -> str | None:
    return " ".join(text.split()) or None if text else None


def test_bibtex_reads_back_with_bibtexparser(records):
    text = paperlens.to_bibtex(records)
    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    assert library.failed_blocks == [] and len(library.entries) == len(records)
    verbatim = bibtexparser.parse_string(text).entries  # doi and url, as biber keeps them
    keys = [entry.key for entry in library.entries]
    assert len(set(keys)) == len(keys) and all(key.isascii() and key.isalnum() for key in keys)
    for entry, as_written, record, work in zip(library.entries, verbatim, records, works(records), strict=True):
        fields = entry.fields_dict
        assert (as_written.fields_dict["url"].value if "url" in as_written.fields_dict else None) == work.url
        title = one_line(record.title)
        assert (fields["title"].value if "title" in fields else None) == (title and typographic(title))
        names = [a["name"] for a in record.author or []]
        if names:
            assert entry.fields_dict["author"].value.count(" and ") == len(names) - 1
        if record.publication_published_year:
            assert fields["year"].value == str(record.publication_published_year)
        if record.doi:
            doi = record.doi.removeprefix("https://doi.org/").replace("{", "%7B").replace("}", "%7D")
            assert as_written.fields_dict["doi"].value == doi
        if record.publication_venue_biblio_pages:
            first, last = re.split("[-\u2013]", record.publication_venue_biblio_pages)
            assert fields["pages"].value == f"{first}\u2013{last}"  # written 1--2, read as an en dash
    assert "珊瑚 🪸" in text and "気候変動と珊瑚礁" in text  # UTF-8 kept as is


def test_every_bibtex_value_has_balanced_braces(records):
    # BibTeX itself counts braces, escaped ones included: balanced input stays balanced.
    for line in paperlens.to_bibtex(records).splitlines():
        if " = {" in line:
            value = line.split(" = {", 1)[1].rstrip(",")[:-1]
            depth = 0
            for char in value:
                depth += {"{": 1, "}": -1}.get(char, 0)
                assert depth >= 0, line
            assert depth == 0, line


def test_latex_escaping_and_names():
    [record] = [MetadataRecord._from_wire(dict(TRICKY[0]))]
    text = record.to_bibtex()
    assert (
        r"title = {50\% of \{DNA\} \& \$x\_1\$ \#1 \textasciitilde{} \textasciicircum{} \textbackslash{} under" in text
    )
    assert "author = {O'Brien-Núñez, Ana and {Research \\& Development Group} and {赵洋}}" in text
    assert "journal = {Journal of Corals \\& Reefs \\{JCR\\}}" in text
    assert "pages = {101--118}" in text and "month = jun," in text
    assert "doi = {10.1000/ABC_%7B1%7D%}" in text  # verbatim, its braces percent-encoded
    assert text.startswith("@article{obriennunez2021dna,\n")
    assert latex_escape("a\\b{c}") == r"a\textbackslash{}b\{c\}"


@pytest.mark.parametrize("month", range(1, 13))
def test_a_month_is_written_as_its_macro_and_every_standard_style_prints_its_name(month):
    wire = {**TRICKY[0], "publication_published_year": 1993, "publication_published_date": f"1993-{month:02d}-05"}
    text = MetadataRecord._from_wire(wire).to_bibtex()
    assert f"  month = {calendar.month_abbr[month].lower()},\n" in text
    library = bibtexparser.parse_string(text, append_middleware=[MonthIntMiddleware()])
    assert library.failed_blocks == [] and library.entries[0].fields_dict["month"].value == month
    bibliography = pybtex_parse(text, "bibtex")
    plain_text = find_plugin("pybtex.backends", "text")()
    for name in ("plain", "unsrt", "alpha", "unsrtalpha"):
        style = find_plugin("pybtex.style.formatting", name)()
        [entry] = style.format_bibliography(bibliography)
        assert f"{calendar.month_name[month]} 1993" in entry.text.render(plain_text), name


@pytest.mark.parametrize(
    ("wire", "bibtex", "ris", "csl", "venue"),
    [
        ({"type": "article", "publication_venue_type": "journal"}, "article", "JOUR", "article-journal", "journal"),
        ({"type": "review"}, "article", "JOUR", "article-journal", "journal"),
        ({"type": "proceedings-article"}, "inproceedings", "CPAPER", "paper-conference", "booktitle"),
        ({"type": "book", "metadata_type": "ebook"}, "book", "BOOK", "book", "series"),
        ({"type": "book-chapter"}, "incollection", "CHAP", "chapter", "booktitle"),
        ({"type": "dissertation"}, "phdthesis", "THES", "thesis", "school"),
        ({"type": "report"}, "techreport", "RPRT", "report", "institution"),
        ({"type": "preprint"}, "misc", "UNPB", "article", "howpublished"),
        ({"type": "dataset"}, "misc", "DATA", "dataset", "howpublished"),
        (
            {"type": "weird", "publication_venue_type": "conference"},
            "inproceedings",
            "CPAPER",
            "paper-conference",
            None,
        ),
        ({"metadata_type": "ebook"}, "book", "BOOK", "book", None),
        ({}, "misc", "GEN", "document", None),
    ],
)
def test_entry_types(wire, bibtex, ris, csl, venue):
    record = MetadataRecord._from_wire({**wire, "title": "T", "publication_venue_name_unified": "V"})
    assert record.to_bibtex().startswith(f"@{bibtex}{{")
    if venue:
        assert f"  {venue} = {{V}}" in record.to_bibtex()
    assert record.to_ris().startswith(f"TY  - {ris}\n")
    assert record.to_csl_json()[0]["type"] == csl


def test_citation_keys_are_ascii_unique_and_stable():
    def record(name, year, title, uid):
        return {"unique_id": uid, "author": [{"name": name}], "publication_published_year": year, "title": title}

    items = [
        record("Jörg Müller", 2020, "The Deep sea", "W1"),
        record("Jorg Muller", 2020, "Deep learning", "W2"),
        record("J. Müller", 2020, "A deep dive", "W3"),
        record("Hans van der Berg", 2019, "On corals", "W4"),
        record("赵洋", None, "基于low-rank adaptation的研究", "W5"),
        {"unique_id": "W6"},
        {"unique_id": "W7"},
    ]
    keys = [w.key for w in works(items)]
    assert keys == [
        "muller2020deep",
        "muller2020deepa",
        "muller2020deepb",
        "vanderberg2019corals",
        "anonndlow",
        "anonnd",
        "anonnda",
    ]
    assert [w.key for w in works(items)] == keys  # deterministic
    assert [i["id"] for i in paperlens.to_csl_json(items)] == keys  # one key in every format
    assert [r["id"] for r in rispy.loads(paperlens.to_ris(items))] == keys
    # The same record twice is written once.
    assert [w.key for w in works([items[0], items[0], items[1]])] == keys[:2]


def test_ris_reads_back_with_rispy(records):
    entries = rispy.loads(paperlens.to_ris(records))
    assert len(entries) == len(records)
    for entry, record in zip(entries, records, strict=True):
        assert entry.get("title") == one_line(record.title)
        assert entry.get("authors", []) == _ris_names(record)
        assert entry.get("year") == (
            str(record.publication_published_year) if record.publication_published_year else None
        )
        pages = record.publication_venue_biblio_pages
        if pages:
            assert f"{entry['start_page']}-{entry['end_page']}" == pages.replace("\u2013", "-")
        venue = entry.get("journal_name") or entry.get("secondary_title")
        assert venue == record.publication_venue_name_unified
        assert entry.get("doi") == (record.doi and record.doi.removeprefix("https://doi.org/"))
    tricky = entries[-4]
    assert tricky["title"] == TRICKY[0]["title"]
    assert tricky["authors"] == ["O'Brien-Núñez, Ana", "Research & Development Group", "赵洋"]
    assert tricky["publisher"] == "Wiley & Sons; 100% Press" and tricky["date"] == "2021/06/15"
    assert entries[-2] == {"type_of_reference": "GEN", "id": "anonnda"}
    assert entries[-1] == {"type_of_reference": "GEN", "id": "anonndb"}


def _ris_names(record: MetadataRecord) -> list[str]:
    return [f"{n.family}, {n.given}" if n.given else (n.literal or n.family) for n in works([record])[0].authors]


def test_csl_json_renders_with_citeproc(records):
    items = paperlens.to_csl_json(records)
    assert json.loads(json.dumps(items, ensure_ascii=False)) == items
    allowed = {
        "id", "type", "title", "author", "issued", "container-title", "volume", "issue", "page",
        "publisher", "ISBN", "ISSN", "DOI", "URL",
    }  # fmt: skip
    assert all(set(item) <= allowed for item in items)
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bibliography = CitationStylesBibliography(style, CiteProcJSON(items), formatter.plain)
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    rendered = [str(entry) for entry in bibliography.bibliography()]
    assert len(rendered) == len(items)
    for item in items:
        if "title" in item and "author" in item:
            first = item["author"][0]
            name = first.get("family", first.get("literal"))
            assert any(item["title"] in text and name in text for text in rendered), item
    tricky = next(item for item in items if item["id"].startswith("obriennunez"))
    assert tricky["author"] == [
        {"family": "O'Brien-Núñez", "given": "Ana"},
        {"literal": "Research & Development Group"},
        {"literal": "赵洋"},
    ]
    assert tricky["issued"] == {"date-parts": [[2021, 6, 15]]} and tricky["page"] == "101\u2013118"
    assert tricky["DOI"] == "10.1000/ABC_{1}%" and tricky["publisher"] == "Wiley & Sons; 100% Press"
    assert items[-3] == {
        "id": "anonnd",
        "type": "document",
        "title": "気候変動と珊瑚礁\uff1a{総説} 🌊",
        "author": [{"family": "山本", "given": "美咲"}],
    }


def test_what_holds_records_exports_them(records):
    pd = pytest.importorskip("pandas")
    sandbox_records = records[:30]
    expected = paperlens.to_bibtex(sandbox_records)
    page = paperlens.types.MetaSearchPage._from_wire({"results": [r.to_dict() for r in sandbox_records]})
    assert page.to_bibtex() == expected
    assert paperlens.to_bibtex(iter(sandbox_records)) == expected
    assert RecordList(sandbox_records).to_ris() == paperlens.to_ris(sandbox_records)
    frame = paperlens.to_pandas(sandbox_records)
    assert isinstance(frame, pd.DataFrame)
    assert paperlens.to_bibtex(frame) == expected
    assert paperlens.to_csl_json(frame) == paperlens.to_csl_json(sandbox_records)
    assert paperlens.to_bibtex([]) == "" and paperlens.to_ris(None) == "" and paperlens.to_csl_json([]) == []
    with pytest.raises(TypeError, match="cannot export a int"):
        paperlens.to_bibtex([1])


def test_paginators_lookups_and_relations_against_a_sandbox():
    with Sandbox(papers=300) as sandbox:
        client = sandbox_client(sandbox)
        records = client.iter_meta_search(None, fields=CITATION_FIELDS, limit=20).to_list()
        paginator = client.iter_meta_search(None, fields=CITATION_FIELDS, limit=20)
        assert paginator.to_bibtex() == paperlens.to_bibtex(records)
        assert paginator.to_csl_json() == paperlens.to_csl_json(records)
        ids = [records[3].doi, "10.9999/missing", records[3].doi.upper(), records[1].doi]
        lookup = client.lookup(ids, fields=CITATION_FIELDS)
        assert lookup.to_bibtex() == paperlens.to_bibtex([records[3], records[1]])
        assert lookup.to_ris() == paperlens.to_ris(lookup)
        relations = client.paper_relations(records[0].unique_id, "REFERENCES")
        entries = rispy.loads(paperlens.to_ris(relations))
        assert [e.get("title") for e in entries] == [i.title for i in relations.items]
        aclient = paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
        with pytest.raises(TypeError, match=r"await paginator\.to_list\(\)"):
            paperlens.to_bibtex(aclient.iter_meta_search(None))
