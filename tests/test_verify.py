"""client.verify_citations against the sandbox, sync and async: each status with the fields
that differ and their given and found values, input order kept, every input kind (free
text, CSL-JSON, DataFrame, BibTeX text and path), the requests counted from the sandbox's
log, the corrected BibTeX, and bad input refused before any request."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
from collections import Counter

import bibtexparser
import pytest
from pybtex.database import parse_string as pybtex_parse

import paperlens
from paperlens.base._ids import normalize_doi
from paperlens.cli import EXIT_NOT_VERIFIED, EXIT_OK, EXIT_USAGE, main
from paperlens.types import MetadataRecord
from paperlens.verification import Verification
from paperlens.workflows._bibtex import read_bibtex

from verification_papers import distinct_papers, searched_papers  # noqa: F401 (fixtures)

SANDBOX = dict(papers=400, seed=5)


@pytest.fixture(params=["sync", "async"])
def verify(request, sandbox):
    """``verify(references, **options)``: the Verification, from a Client or an AsyncClient."""
    settings = {"api_token": sandbox.token, "base_url": sandbox.base_url, "rate_limits": None, "max_retries": 0}
    if request.param == "sync":
        client = paperlens.Client(**settings)
        return client.verify_citations
    aclient = paperlens.AsyncClient(**settings)
    return lambda references, **options: asyncio.run(aclient.verify_citations(references, **options))


def sent(sandbox):
    paths = Counter(r.path for r in sandbox.requests())
    sandbox.clear_requests()
    return dict(paths)


def names(record):
    return [str(a["name"]) for a in record.author]


def surname(record):
    return names(record)[0].split()[-1]


def apa(record, *, year=None, first=None, venue=None, doi=None, title=None):
    people = [first or surname(record), *(n.split()[-1] for n in names(record)[1:])]
    authors = ", ".join(f"{p}, {n[0]}." for p, n in zip(people, names(record), strict=True))
    link = f" https://doi.org/{doi}" if doi else ""
    year = year or record.publication_published_year
    return f"{authors} ({year}). {title or record.title}. {venue or record.publication_venue_name_unified}.{link}"


def other_venue(corpus, record):
    venues = {r.publication_venue_name_unified for r in corpus if r.publication_venue_name_unified}
    mine = set(record.publication_venue_name_unified.lower().split())
    return sorted(v for v in venues if v.isascii() and not mine & set(v.lower().split()))[0]


def test_each_status_with_the_fields_that_differ_and_their_values(sandbox, corpus, records, verify):
    a, b, c, d = records[:4]
    sandbox.clear_requests()
    checked = verify(
        [
            apa(a),
            apa(b, year=b.publication_published_year + 2),
            apa(c, first="Okonkwo"),
            apa(d, venue=other_venue(corpus, d)),
            "Eriksson, F., & Okafor, O. (2003). Tidal harmonics of lunar basalt in glacier cartography. Zebra Letters.",
        ]
    )
    assert isinstance(checked, Verification) and len(checked) == 5
    verified, year, author, venue, invented = checked.items
    assert (verified.status, verified.record.unique_id, verified.differences) == ("verified", a.unique_id, {})
    assert verified.confidence == "high" and verified.reasons[0].startswith(f"matches {a.unique_id}")

    assert (year.status, year.record.unique_id) == ("mismatch", b.unique_id)
    given_year, found_year = b.publication_published_year + 2, b.publication_published_year
    assert year.differences == {"year": (given_year, found_year)}
    assert year.reasons[0] == f"year differs: cited {given_year}, record {found_year}"

    assert (author.status, author.record.unique_id, list(author.differences)) == ("mismatch", c.unique_id, ["authors"])
    given, found = author.differences["authors"]
    assert given[0] == "Okonkwo" and found == names(c)
    assert author.reasons[0].startswith("first author differs: cited Okonkwo")

    assert (venue.status, venue.record.unique_id) == ("mismatch", d.unique_id)
    assert venue.differences == {"venue": (other_venue(corpus, d), d.publication_venue_name_unified)}

    assert (invented.status, invented.record, invented.differences) == ("not_found", None, {})
    assert invented.reasons[0] == "no record has this title"
    assert checked.counts == {"verified": 1, "mismatch": 3, "not_found": 1, "ambiguous": 0, "unverifiable": 0}
    assert sent(sandbox) == {"/meta-search": 5}  # one search each, no DOI to look up


def test_a_doi_settles_a_reference_and_another_records_doi_is_named(sandbox, records, verify):
    a, b, c = records[4:7]
    sandbox.clear_requests()
    checked = verify([f"doi:{a.doi.upper()}", apa(b, doi=b.doi), apa(c, doi=a.doi), apa(c, doi="10.9999/nothing.1")])
    only_doi, with_doi, wrong_doi, dead_doi = checked.items
    assert (only_doi.status, only_doi.confidence, only_doi.record.unique_id) == ("verified", "high", a.unique_id)
    assert (with_doi.status, with_doi.record.unique_id) == ("verified", b.unique_id)
    assert (wrong_doi.status, wrong_doi.record.unique_id) == ("mismatch", c.unique_id)
    assert wrong_doi.differences == {"doi": (a.doi, c.doi)}
    assert (dead_doi.status, dead_doi.differences) == ("mismatch", {"doi": ("10.9999/nothing.1", c.doi)})
    # One lookup of the three DOIs; a search for the two references their DOI does not settle
    # (the same title: searched once).
    assert sent(sandbox) == {"/meta-search": 2}


def test_a_title_that_several_records_share_is_ambiguous(sandbox, corpus, verify):
    titles = Counter(r.title for r in corpus if r.title and r.title.isascii())
    shared = next(t for t, n in titles.items() if n >= 2)
    checked = verify([shared])
    (item,) = checked.items
    assert (item.status, item.record, item.confidence) == ("ambiguous", None, "low")
    same = {r.unique_id for r in corpus if r.title == shared}
    assert {r.unique_id for r in item.candidates} <= same and len(item.candidates) >= 2
    assert item.reasons[0].startswith(f"{len(item.candidates)} records fit it equally well")


def test_input_order_and_every_input_kind(sandbox, records, verify, tmp_path):
    a, b = records[7:9]
    csl = [
        {
            "id": "key-b",
            "title": b.title,
            "author": [{"family": n.split()[-1], "given": n.split()[0]} for n in names(b)],
            "issued": {"date-parts": [[b.publication_published_year]]},
            "container-title": b.publication_venue_name_unified,
        },
        {"id": "key-a", "title": a.title, "issued": {"date-parts": [[a.publication_published_year - 1]]}},
    ]
    by_csl = verify(csl)
    assert [(i.key, i.status, i.record.unique_id) for i in by_csl] == [
        ("key-b", "verified", b.unique_id),
        ("key-a", "mismatch", a.unique_id),
    ]
    assert by_csl[1].differences == {"year": (a.publication_published_year - 1, a.publication_published_year)}
    assert by_csl[0].input == csl[0]

    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {
            "title": [a.title, b.title],
            "authors": ["; ".join(names(a)), "; ".join(names(b))],
            "year": [a.publication_published_year, b.publication_published_year + 1],
            "journal": [a.publication_venue_name_unified, b.publication_venue_name_unified],
        }
    )
    by_frame = verify(frame)
    assert [(i.status, i.record.unique_id) for i in by_frame] == [("verified", a.unique_id), ("mismatch", b.unique_id)]
    assert by_frame[1].differences == {"year": (b.publication_published_year + 1, b.publication_published_year)}
    table = by_frame.to_pandas()
    assert list(table["status"]) == ["verified", "mismatch"]
    assert list(table["unique_id"]) == [a.unique_id, b.unique_id]
    assert table["differs"].tolist() == [[], ["year"]]


def test_to_bibtex_writes_the_records_under_the_keys_given(records, verify):
    a = records[9]
    checked = verify(
        [
            {
                "id": "smith2020",
                "title": a.title,
                "author": [{"family": surname(a)}],  # the title with the first author: the same work
                "issued": {"date-parts": [[a.publication_published_year + 3]]},
            },
            {"id": "ghost", "title": "Tidal harmonics of lunar basalt in glacier cartography"},
        ]
    )
    text = checked.to_bibtex()
    corrected, kept = text.split("\n\n")
    assert corrected.startswith("@") and "{smith2020,\n" in corrected
    assert f"year = {{{a.publication_published_year}}}" in corrected and f"doi = {{{a.doi}}}" in corrected
    assert kept.startswith("% ghost: not_found: no record has this title\n")
    assert checked._repr_html_().count("<tr>") == 3


def test_progress_shows_the_requests_and_the_time_the_quota_implies(sandbox, records, capsys):
    client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits={"meta-search": 120})
    client.verify_citations([apa(records[11]), apa(records[12])], progress=True)
    err = capsys.readouterr().err
    assert "2 requests, about 1 s at 120/min" in err and "2/2" in err


@pytest.mark.parametrize(
    ("references", "param", "rule"),
    [
        (["Smith 2019 coral", " "], "references[1]", "must not be empty"),
        (
            ["Smith 2019 coral", 7],
            "references[1]",
            "must be a free-text citation (a string) or a CSL-JSON item (a dict)",
        ),
        ([{"id": "x", "author": [{"family": "Smith"}]}], "references[0]", "needs a title or a DOI to be checked"),
        (42, "references", "must be BibTeX, a list of citations or a DataFrame"),
    ],
)
def test_bad_input_is_refused_before_any_request(sandbox, verify, references, param, rule):
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError) as caught:
        verify(references)
    assert (caught.value.param, caught.value.rule) == (param, rule)
    assert sandbox.requests() == []


def test_a_string_that_is_neither_bibtex_nor_a_file_is_refused(sandbox, verify):
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError, match="a string that is no BibTeX names no file"):
        verify("Smith J. Coral bleaching at scale. 2019.")
    assert sandbox.requests() == []


def test_an_empty_list_is_refused_not_passed(sandbox, verify):
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError, match="holds no reference to check") as caught:
        verify([])
    assert caught.value.param == "references"
    assert sandbox.requests() == []


# -- the command line ------------------------------------------------------------------------------


def cli(capsys, monkeypatch, *argv, stdin=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(["verify", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_exit_0_when_every_entry_is_verified(env, capsys, monkeypatch, records, tmp_path):
    listed = tmp_path / "refs.txt"
    listed.write_text(f"{apa(records[13])}\n\n{apa(records[14])}\n", encoding="utf-8")
    code, out, err = cli(capsys, monkeypatch, str(listed), "--format", "json")
    assert code == EXIT_OK
    rows = json.loads(out)
    assert [(r["status"], r["unique_id"], r["differences"]) for r in rows] == [
        ("verified", records[13].unique_id, {}),
        ("verified", records[14].unique_id, {}),
    ]
    assert "2 entries: 2 verified" in err


def test_cli_exit_7_when_any_entry_is_not_and_the_table_says_why(env, capsys, monkeypatch, records):
    record = records[15]
    wrong = apa(record, year=record.publication_published_year - 1)
    code, out, err = cli(capsys, monkeypatch, "-", stdin=f"{apa(records[16])}\n{wrong}\n")
    assert code == EXIT_NOT_VERIFIED == 7
    header, _rule, first, second = out.splitlines()
    assert header.split() == ["#", "key", "status", "confidence", "differs", "record", "why"]
    assert first.split()[:2] == ["1", "verified"] and record.unique_id not in first
    year = record.publication_published_year
    assert second.split()[:4] == ["2", "mismatch", "high", "year"] and record.unique_id in second
    assert f"year differs: cited {year - 1}, record {year}" in second
    assert "1 verified, 1 mismatch" in err


def test_cli_bibtex_prints_the_corrected_entries(env, capsys, monkeypatch, records):
    record = records[17]
    code, out, _err = cli(capsys, monkeypatch, "-", "--format", "bibtex", stdin=apa(record, year=1901) + "\n")
    assert code == EXIT_NOT_VERIFIED
    assert out.startswith("@") and f"year = {{{record.publication_published_year}}}" in out
    assert f"doi = {{{record.doi}}}" in out


def test_cli_refuses_a_missing_file_before_any_request(env, capsys, monkeypatch, tmp_path):
    code, _out, err = cli(capsys, monkeypatch, str(tmp_path / "nothing.bib"))
    assert code == EXIT_USAGE and "no such file" in err
    assert env.requests() == []


def test_dois_are_looked_up_200_a_request_and_settle_their_references(sandbox, corpus, verify):
    dois = list(dict.fromkeys(r.doi for r in corpus if r.doi))[:250]
    prefixed = [
        ("doi:{}", "https://doi.org/{}", "{}")[k % 3].format(d.upper() if k % 2 else d) for k, d in enumerate(dois)
    ]
    sandbox.clear_requests()
    checked = verify(prefixed)
    by_doi = {r.doi: r.unique_id for r in corpus if r.doi}
    assert [(i.status, i.record.unique_id) for i in checked] == [("verified", by_doi[d]) for d in dois]
    assert sent(sandbox) == {"/meta-search": 2}  # 250 references: 0.008 requests each


def test_an_invented_reference_is_not_found_whatever_its_doi_says(sandbox, records, verify):
    real = records[23]
    invented = "Eriksson, F. (2003). Tidal harmonics of lunar basalt in glacier cartography. Zebra Letters."
    dead, borrowed = verify([f"{invented} doi:10.9999/nothing.2", f"{invented} https://doi.org/{real.doi}"]).items
    assert (dead.status, dead.record) == ("not_found", None)
    assert dead.reasons[:2] == ["DOI 10.9999/nothing.2 resolves to no record", "no record has this title"]
    assert (borrowed.status, borrowed.record) == ("not_found", None)
    assert borrowed.reasons[0] == f"DOI {real.doi} belongs to another work: {real.title!r}"


# -- BibTeX ----------------------------------------------------------------------------------------


def bib_entry(key, record, *, year=None, author=None, extra=""):
    people = " and ".join(f"{n.split()[-1]}, {n.split()[0]}" for n in names(record))
    return (
        f"@article{{{key},\n  author = {{{author or people}}},\n  title = {{{{{record.title}}}}},\n"
        f"  journal = {{{record.publication_venue_name_unified}}},\n"
        f"  year = {year or record.publication_published_year},\n"
        f"{extra}}}\n"
    )


def test_bibtex_text_and_path_keep_their_keys_and_order(sandbox, records, verify, tmp_path):
    a, b, c = records[18:21]
    text = (
        "% exported by Zotero\n"
        + bib_entry("first", a, extra="  month = dec,\n")
        + bib_entry("second", b, year=b.publication_published_year + 1)
        + bib_entry("third", c, author=f"{surname(c)}, X. and others", extra=f"  doi = {{https://doi.org/{c.doi}}},\n")
    )
    path = tmp_path / "refs.bib"
    path.write_text(text, encoding="utf-8")
    # Initials are no surname: another first author with an initial is a mismatch.
    other = verify(bib_entry("fourth", c, author=" and ".join(["Okonkwo, P.", *names(c)[1:]])))[0]
    assert (other.status, list(other.differences)) == ("mismatch", ["authors"])
    for source in (text, path, str(path)):
        checked = verify(source)
        assert [(i.key, i.status, i.record.unique_id) for i in checked] == [
            ("first", "verified", a.unique_id),
            ("second", "mismatch", b.unique_id),
            ("third", "verified", c.unique_id),
        ]
        assert checked[1].differences == {"year": (b.publication_published_year + 1, b.publication_published_year)}
        assert checked[1].input.key == "second"
    corrected = checked.to_bibtex()
    assert [block.split("{", 1)[1].split(",", 1)[0] for block in corrected.strip().split("\n\n")] == [
        "first",
        "second",
        "third",
    ]


def test_bibtex_with_macros_escapes_and_crossref(sandbox, records, verify):
    a = records[21]
    venue = a.publication_venue_name_unified
    title = a.title.replace("a", '{\\"a}', 1) if "a" in a.title else a.title
    text = (
        f'@string{{ven = "{venue}"}}\n'
        f"@proceedings{{proc, booktitle = ven, year = {a.publication_published_year}}}\n"
        f"@inproceedings{{cited, author = {{{surname(a)}, {names(a)[0].split()[0]}}},\n"
        f"  title = {{{title}}}, crossref = {{proc}}}}\n"
    )
    checked = verify(text)
    cited = next(i for i in checked if i.key == "cited")
    assert (cited.status, cited.record.unique_id) == ("verified", a.unique_id)


def test_bibtex_in_parentheses_with_a_macro_defined_again(sandbox, records, verify):
    a, b = records[24:26]
    first, second = (r.publication_venue_name_unified for r in (a, b))
    text = (
        f'@string(ven = "{first}")\n'
        + bib_entry("one", a).replace("@article{one,", "@article(one,").replace(f"{{{first}}}", "ven")[:-2]
        + "\n)\n"
        + f'@string(ven = "{second}")\n'
        + bib_entry("two", b).replace(f"{{{second}}}", "ven")
    )
    checked = verify(text)
    assert [(i.key, i.status, i.record.unique_id) for i in checked] == [
        ("one", "verified", a.unique_id),
        ("two", "verified", b.unique_id),
    ]
    assert [i.given.venue for i in checked] == [first, second]


def test_to_bibtex_writes_a_doi_and_a_url_as_they_are(records, verify):
    checked = verify([apa(records[26])])
    doi, url = "10.1000/a_b%c#d~e&f$g^h", "https://example.org/a_b%20c#d~e&f"
    wire = {**checked[0].record.to_dict(), "doi": doi, "locations": [{"landing_page_url": url}]}
    item = dataclasses.replace(checked[0], record=MetadataRecord._from_wire(wire))
    text = Verification(items=[item]).to_bibtex()
    assert f"  doi = {{{doi}}},\n  url = {{{url}}}\n" in text
    (entry,) = read_bibtex(text)
    (theirs,) = bibtexparser.parse_string(text).entries
    assert (entry.fields["doi"], entry.fields["url"]) == (doi, url)
    assert (theirs.fields_dict["doi"].value, theirs.fields_dict["url"].value) == (doi, url)
    (as_bibtex_reads,) = pybtex_parse(text, "bibtex").entries.values()  # pybtex reads as BibTeX does
    assert (as_bibtex_reads.fields["doi"], as_bibtex_reads.fields["url"]) == (doi, url)


def test_malformed_bibtex_is_refused_naming_the_entry_and_line_before_any_request(sandbox, verify):
    sandbox.clear_requests()
    text = "@article{good, title = {Fine}, year = 2001}\n\n@article{broken, title = {Unclosed, year = 2001\n"
    with pytest.raises(paperlens.BibTeXSyntaxError) as caught:
        verify(text)
    assert isinstance(caught.value, paperlens.ValidationError)
    assert (caught.value.key, caught.value.line) == ("broken", 3)
    assert "broken" in str(caught.value) and "3" in str(caught.value)
    assert sandbox.requests() == []


def test_a_bibtex_entry_with_nothing_to_check_is_unverifiable_without_a_request(sandbox, verify):
    sandbox.clear_requests()
    site, bare = verify(
        "@misc{site, author = {Doe, Jane}, howpublished = {\\url{https://example.org}}}\n"
        "@misc{bare, author = {Doe, Jane}, year = 2001}\n"
    ).items
    assert (site.key, site.status, site.confidence) == ("site", "unverifiable", "high")
    assert site.reasons == ["a web page: a kind of work the service does not index; check it by hand"]
    assert (bare.key, bare.status, bare.reasons) == (
        "bare",
        "unverifiable",
        ["too little to search for: no title and no DOI"],
    )
    assert sandbox.requests() == []


def test_cli_reads_a_bib_file(env, capsys, monkeypatch, records, tmp_path):
    a = records[22]
    path = tmp_path / "refs.bib"
    path.write_text(bib_entry("k1", a), encoding="utf-8")
    code, out, _err = cli(capsys, monkeypatch, str(path), "--format", "json")
    assert code == EXIT_OK
    assert [(r["key"], r["status"], r["unique_id"]) for r in json.loads(out)] == [("k1", "verified", a.unique_id)]


def test_every_verdict_reaches_the_frame_the_json_and_the_bibtex(env, capsys, monkeypatch, records, tmp_path):
    chosen = records[20:50]
    lines = [apa(r, year=r.publication_published_year - 2) if i % 3 == 1 else apa(r) for i, r in enumerate(chosen)]
    lines.append("Okonkwo B, Varga L. Tidal harmonics of lunar basalt in glacier cartography. Ocean Letters. 2011.")
    checked = paperlens.Client(api_token=env.token, base_url=env.base_url, rate_limits=None).verify_citations(lines)
    assert Counter(item.status for item in checked) == {"verified": 20, "mismatch": 10, "not_found": 1}
    expected = [
        {
            "key": item.key,
            "input": line,
            "status": item.status,
            "confidence": item.confidence,
            "differs": list(item.differences),
            "differences": {field: list(pair) for field, pair in item.differences.items()},
            "reasons": list(item.reasons),
            "unique_id": item.record.unique_id if item.record else None,
            "doi": item.record.doi if item.record else None,
            "title": item.record.title if item.record else None,
            "year": item.record.publication_published_year if item.record else None,
        }
        for item, line in zip(checked, lines, strict=True)
    ]

    frame = checked.to_pandas()
    assert frame.astype(object).where(frame.notna(), None).to_dict("records") == expected
    # The command paces at the default quota: a few of each status, not all 31.
    some = [0, 1, 2, 4, len(lines) - 1]
    listed = tmp_path / "refs.txt"
    listed.write_text("\n".join(lines[i] for i in some) + "\n", encoding="utf-8")
    code, out, _ = cli(capsys, monkeypatch, str(listed), "--format", "json")
    assert code == EXIT_NOT_VERIFIED and json.loads(out) == [expected[i] for i in some]

    written = read_bibtex(checked.to_bibtex())  # the corrected entries, from the records
    found = [item.record for item in checked if item.record is not None]
    assert [(e.fields["title"], e.year, e.doi, len(e.authors) + e.et_al) for e in written] == [
        (r.title, r.publication_published_year, normalize_doi(r.doi), len(r.author)) for r in found
    ]
