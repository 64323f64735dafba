"""Issue 39's trial, one test per finding, against the sandbox: no false all-clear (a path read
by what it holds, nothing read is an error, on the CLI too), no citation rewritten into another
work (``@string`` definitions and the user's braces kept), and verdicts that count every given
field (near-miss titles, partial author lists, venue kinds, crossref targets, unverifiable
kinds of work)."""

from __future__ import annotations

import json
import re

import pytest
from pybtex.database import parse_string as pybtex_parse

import paperlens
from paperlens.cli import EXIT_OK, EXIT_USAGE, main
from paperlens.workflows._bibtex import read_bibtex

from fixtures import strict_client  # noqa: F401 (the client fixture)
from verification_papers import distinct_papers, searched_papers  # noqa: F401 (fixtures)

SANDBOX = dict(papers=400, seed=5)


def names(record):
    return [str(a["name"]) for a in record.author]


def bib(key, record, *, authors=None, title=None, journal=None, year=None, kind="article", extra=""):
    people = authors if authors is not None else names(record)
    author = " and ".join(f"{n.split()[-1]}, {' '.join(n.split()[:-1])}" if " " in n else n for n in people)
    return (
        f"@{kind}{{{key},\n  author = {{{author}}},\n  title = {{{title or record.title}}},\n"
        f"  journal = {journal or '{' + record.publication_venue_name_unified + '}'},\n"
        f"  year = {year or record.publication_published_year},\n{extra}}}\n"
    )


def apa(record, *, year=None, title=None, venue=None):
    people = ", ".join(f"{n.split()[-1]}, {n.split()[0][0]}." for n in names(record))
    return (
        f"{people} ({year or record.publication_published_year}). {title or record.title}. "
        f"{venue or record.publication_venue_name_unified}."
    )


def csl(record):
    return {
        "id": f"c{record.unique_id}",
        "type": "article-journal",
        "title": record.title,
        "author": [{"family": n.split()[-1], "given": " ".join(n.split()[:-1])} for n in names(record)],
        "issued": {"date-parts": [[record.publication_published_year]]},
        "container-title": record.publication_venue_name_unified,
        "DOI": record.doi,
    }


def cli(capsys, *argv):
    code = main(["verify", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- no false all-clear ------------------------------------------------------------------------------


def test_a_csl_json_file_is_read_as_csl_json_items(client, records, tmp_path):
    path = tmp_path / "refs.json"
    chosen = records[:6]
    path.write_text(json.dumps([csl(r) for r in chosen], indent=2), encoding="utf-8")
    checked = client.verify_citations(str(path))
    assert [(i.key, i.status, i.record.unique_id) for i in checked] == [
        (f"c{r.unique_id}", "verified", r.unique_id) for r in chosen
    ]
    assert checked.all_verified


def test_a_text_file_is_read_one_reference_a_line(client, records, tmp_path):
    chosen = records[6:16]
    path = tmp_path / "refs.txt"
    path.write_text("\n".join(apa(r) for r in chosen) + "\n\n", encoding="utf-8")
    checked = client.verify_citations(path)
    assert [(i.input, i.status, i.record.unique_id) for i in checked] == [
        (apa(r), "verified", r.unique_id) for r in chosen
    ]


def test_a_ris_file_is_read_as_ris_records(client, records, tmp_path):
    record = records[16]
    lines = ["TY  - JOUR", "ID  - r1", f"TI  - {record.title}"]
    lines += [f"AU  - {n.split()[-1]}, {n.split()[0]}" for n in names(record)]
    lines += [f"PY  - {record.publication_published_year}", f"JO  - {record.publication_venue_name_unified}"]
    lines += [f"DO  - {record.doi}", "ER  - "]
    path = tmp_path / "refs.ris"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (item,) = client.verify_citations(path)
    assert (item.key, item.status, item.record.unique_id) == ("r1", "verified", record.unique_id)


@pytest.mark.parametrize(
    "content",
    ["", "\n\n  \n", "@string{jme = {Journal of Marine Ecology}}\n", "[]", "% only a comment\n@comment{x}\n"],
    ids=["empty", "blank", "only-strings", "empty-json", "only-comments"],
)
def test_a_file_holding_no_reference_is_refused_not_passed(sandbox, client, tmp_path, capsys, monkeypatch, content):
    path = tmp_path / "refs.bib"
    path.write_text(content, encoding="utf-8")
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError, match="holds no reference to check") as caught:
        client.verify_citations(str(path))
    assert caught.value.param == "references"
    monkeypatch.setenv("PAPERLENS_API_TOKEN", sandbox.token)
    monkeypatch.setenv("PAPERLENS_BASE_URL", sandbox.base_url)
    code, out, err = cli(capsys, str(path))
    assert (code, out) == (EXIT_USAGE, "") and "holds no reference to check" in err
    assert sandbox.requests() == []


def test_the_cli_reads_a_csl_json_file_as_items_not_lines(env, capsys, records, tmp_path):
    chosen = records[17:20]
    path = tmp_path / "refs.json"
    path.write_text(json.dumps([csl(r) for r in chosen], indent=2), encoding="utf-8")
    code, out, err = cli(capsys, str(path), "--format", "json")
    assert code == EXIT_OK
    assert [(r["key"], r["status"], r["unique_id"]) for r in json.loads(out)] == [
        (f"c{r.unique_id}", "verified", r.unique_id) for r in chosen
    ]
    assert "3 entries: 3 verified" in err


# -- never rewrite a citation into another work -----------------------------------------------------


def test_to_bibtex_keeps_the_string_definitions_kept_entries_use(client, records):
    record = records[20]
    text = (
        '@string{zl = "Zebra Letters"}\n@string{unused = "Nobody Reads This"}\n@string{zz = zl # " Weekly"}\n'
        "@article{inv, author = {Okonkwo, Bea}, title = {Tidal harmonics of lunar basalt in glacier cartography},\n"
        "  journal = zz, year = 2011}\n" + bib("real", record)
    )
    invented, real = client.verify_citations(text)
    assert (invented.status, real.status) == ("not_found", "verified")
    written = client.verify_citations(text).to_bibtex()
    assert '@string{zl = "Zebra Letters"}' in written and '@string{zz = zl # " Weekly"}' in written
    assert "unused" not in written
    strict = pybtex_parse(written, "bibtex")  # strict: an undefined macro would raise
    assert strict.entries["inv"].fields["journal"] == "Zebra Letters Weekly"
    assert {e.key: e.fields.get("journal") for e in read_bibtex(written)}["inv"] == "Zebra Letters Weekly"


def test_to_bibtex_keeps_the_users_braces_on_words_the_corrected_title_holds(client, corpus):
    record = next(
        r for r in corpus if r.title and r.doi and re.search(r"\b[A-Z][A-Za-z]*[A-Z0-9][A-Za-z0-9]*\b", r.title)
    )
    word = re.search(r"\b[A-Z][A-Za-z]*[A-Z0-9][A-Za-z0-9]*\b", record.title).group()
    title = record.title.replace(word, "{" + word + "}", 1)
    text = bib("k", record, title=title, year=record.publication_published_year + 1)
    (item,) = client.verify_citations(text)
    assert (item.status, list(item.differences)) == ("mismatch", ["year"])
    (entry,) = pybtex_parse(item_bib := client.verify_citations(text).to_bibtex(), "bibtex").entries.values()
    assert "{" + word + "}" in entry.fields["title"]
    assert read_bibtex(item_bib)[0].year == record.publication_published_year  # the record's year


def test_an_invented_reference_whose_title_exists_is_kept_as_given(client, records, corpus):
    record = records[21]
    other_venue = next(
        v
        for v in sorted({r.publication_venue_name_unified for r in corpus if r.publication_venue_name_unified})
        if v.isascii() and not set(v.split()) & set(record.publication_venue_name_unified.split())
    )
    text = bib(
        "fake",
        record,
        authors=["Bea Okonkwo", "Lars Varga"],
        journal="{" + other_venue + "}",
        year=record.publication_published_year + 7,
    )
    checked = client.verify_citations(text)
    (item,) = checked
    assert item.status in ("mismatch", "not_found")
    written = checked.to_bibtex()
    assert text.strip() in written  # the entry as written, not the other paper
    assert "is not the same work" in written or item.record is None
    assert record.doi not in written


# -- verdicts HALLMARK counts right -------------------------------------------------------------------


def test_partial_author_lists_are_mismatches_naming_who_is_missing(client, corpus):
    eight = next(r for r in corpus if r.title and r.title.isascii() and len(r.author) == 8 and r.doi)
    five = next(r for r in corpus if r.title and r.title.isascii() and len(r.author) == 5 and r.doi)
    text = bib("eight", eight, authors=names(eight)[:3]) + bib("five", five, authors=names(five)[:3])
    text += bib("etal", five, authors=[*names(five)[:3], "others"])
    cut8, cut5, etal = client.verify_citations(text)
    assert (cut8.status, list(cut8.differences), cut5.status, list(cut5.differences)) == (
        "mismatch",
        ["authors"],
        "mismatch",
        ["authors"],
    )
    assert cut8.reasons[0] == (
        f'5 authors missing: {", ".join(names(eight)[3:])} (cited 3 of 8 without "et al." or "and others")'
    )
    assert cut5.reasons[0].startswith(f"2 authors missing: {', '.join(names(five)[3:])} (cited 3 of 5")
    assert cut8.differences["authors"][1] == names(eight)
    assert (etal.status, etal.differences) == ("verified", {})


SYNONYMS = {"study": "analysis", "evidence": "proof", "role": "part", "model": "simulation", "towards": "toward"}


def plural(title):
    return re.sub(r"\b(\w{4,}[^s\W])\b", r"\1s", title, count=1)


def synonym(title):
    return next(
        re.sub(rf"\b{word}\b", other, title, count=1)
        for word, other in SYNONYMS.items()
        if re.search(rf"\b{word}\b", title)
    )


def spelling(title):
    return re.sub(r"\b(\w*?)(l|z|t)(\w+\w)\b", lambda m: m.group(1) + m.group(2) * 2 + m.group(3), title, count=1)


def test_a_title_a_word_off_is_a_mismatch_on_the_title_with_the_exact_title_found(client, records):
    has_synonym = [r for r in records if any(re.search(rf"\b{w}\b", r.title) for w in SYNONYMS)]
    cases = [(records[22], plural), (records[23], spelling), *((r, synonym) for r in has_synonym[:2])]
    lines = [apa(r, title=change(r.title)) for r, change in cases]
    assert all(apa(r) != line for (r, _), line in zip(cases, lines, strict=True))
    checked = client.verify_citations(lines)
    for item, (record, _) in zip(checked, cases, strict=True):
        assert (item.status, item.record.unique_id, list(item.differences)) == ("mismatch", record.unique_id, ["title"])
        assert item.differences["title"][1] == record.title
        assert item.reasons[0].endswith(f"record {record.title!r}")


def test_venues_of_another_kind_are_other_venues(client, corpus):
    letters = next(
        r
        for r in corpus
        if r.title and r.title.isascii() and r.doi and (r.publication_venue_name_unified or "").endswith(" Letters")
    )
    subject = letters.publication_venue_name_unified.removesuffix(" Letters")
    lines = [
        apa(letters, venue=f"Journal of {subject}"),
        apa(letters, venue=f"Transactions on {subject}"),
        apa(letters, venue=f"{subject} Lett."),
    ]
    journal, transactions, abbreviated = client.verify_citations(lines)
    assert (journal.status, list(journal.differences)) == ("mismatch", ["venue"])
    assert journal.differences["venue"] == (f"Journal of {subject}", letters.publication_venue_name_unified)
    assert (transactions.status, list(transactions.differences)) == ("mismatch", ["venue"])
    assert (abbreviated.status, abbreviated.differences) == ("verified", {})


def test_a_crossref_target_is_no_reference_of_its_own(env, capsys, client, corpus, tmp_path):
    paper = next(
        r
        for r in corpus
        if r.title
        and r.title.isascii()
        and r.doi
        and (r.publication_venue_name_unified or "").startswith("International")
    )
    text = (
        f"@proceedings{{conf{paper.publication_published_year},\n"
        f"  title = {{{paper.publication_venue_name_unified}}},\n"
        f"  year = {paper.publication_published_year}\n}}\n"
        + bib(
            "p",
            paper,
            kind="inproceedings",
            journal="{}",
            extra=f"  crossref = {{conf{paper.publication_published_year}}},\n",
        ).replace("  journal = {},\n", "")
    )
    (item,) = client.verify_citations(text)
    assert (item.key, item.status, item.record.unique_id) == ("p", "verified", paper.unique_id)
    path = tmp_path / "refs.bib"
    path.write_text(text, encoding="utf-8")
    code, _out, err = cli(capsys, str(path))
    assert code == EXIT_OK and "1 entries: 1 verified" in err


def test_kinds_of_work_the_service_does_not_index_are_unverifiable_without_a_request(sandbox, client):
    text = (
        "@online{noaa, author = {{NOAA}}, title = {Global surface temperature},\n"
        "  url = {https://www.ncei.noaa.gov}, year = 2020}\n"
        "@software{numpy, author = {Harris, Charles}, title = {NumPy}, year = 2020}\n"
        "@dataset{era5, author = {Hersbach, Hans}, title = {ERA5 hourly data}, year = 2018}\n"
        "@standard{iso, title = {ISO 8601 Date and time format}, year = 2019}\n"
    )
    lines = [
        "NOAA. (2020). Global surface temperature dataset. Retrieved from https://www.ncei.noaa.gov/",
        "国家统计局. 中国统计年鉴2019[EB/OL]. (2019-09-01)[2020-01-01]. http://www.stats.gov.cn/.",
    ]
    items = [{"id": "d1", "type": "dataset", "title": "Argo float data", "issued": {"date-parts": [[2000]]}}]
    sandbox.clear_requests()
    checked = [*client.verify_citations(text), *client.verify_citations(lines), *client.verify_citations(items)]
    assert [(i.status, i.reasons[0].split(":")[0]) for i in checked] == [
        ("unverifiable", "a web page"),
        ("unverifiable", "a software"),
        ("unverifiable", "a dataset"),
        ("unverifiable", "a standard"),
        ("unverifiable", "a web page"),
        ("unverifiable", "a web page"),
        ("unverifiable", "a dataset"),
    ]
    assert sandbox.requests() == []
    assert client.verify_citations(items).counts["unverifiable"] == 1
