"""``paperlens lookup``, ``paperlens match`` and the citation formats of ``meta-search`` and
``relations``, through ``main([...])`` against a sandbox; ids and references from arguments
and from stdin."""

from __future__ import annotations

import csv
import io
import json

import bibtexparser
import pytest
import rispy

import paperlens
from paperlens.cli import EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE, main
from paperlens.export import CITATION_FIELDS

from fixtures import sandbox_client

SANDBOX = dict(papers=400, seed=2)


@pytest.fixture(scope="module")
def records(sandbox):
    client = sandbox_client(sandbox)
    return [r for r in client.iter_meta_search(None, fields=CITATION_FIELDS, limit=60) if r.doi][:40]


def run(capsys, monkeypatch, *argv, stdin=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def reference(record) -> str:
    """A citation of ``record`` as a bibliography prints it."""
    authors = ", ".join(a["name"] for a in record.author[:3])
    return f"{authors} ({record.publication_published_year}). {record.title}. {record.publication_venue_name_unified}."


def test_lookup_reads_stdin_and_lists_the_misses(env, capsys, monkeypatch, records):
    ids = [f"https://doi.org/{records[0].doi.upper()}", "", "10.9999/missing.1", f"  doi:{records[1].doi}  "]
    code, out, err = run(capsys, monkeypatch, "lookup", "--format", "jsonl", stdin="\n".join(ids) + "\n")
    assert code == EXIT_OK
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["input_id"], r["unique_id"]) for r in rows] == [
        (ids[0], records[0].unique_id),
        (ids[3].strip(), records[1].unique_id),
    ]
    assert "1 of 3 ids not found:\n  10.9999/missing.1\n" in err
    assert len(env.requests()) == 1


def test_lookup_from_arguments_as_table_csv_and_json(env, capsys, monkeypatch, records):
    ids = [records[2].unique_id, records[3].unique_id]
    code, out, _ = run(capsys, monkeypatch, "lookup", "--by", "unique_id", *ids)
    assert code == EXIT_OK and out.splitlines()[0].split()[:3] == ["input_id", "unique_id", "doi"]
    assert ids[0] in out.splitlines()[2] and ids[1] in out.splitlines()[3]
    code, out, _ = run(capsys, monkeypatch, "lookup", "--by", "unique_id", "--format", "csv", *ids)
    assert [row["unique_id"] for row in csv.DictReader(io.StringIO(out))] == ids
    code, out, _ = run(
        capsys, monkeypatch, "lookup", "--by", "unique_id", "--fields", "title", "--format", "json", *ids
    )
    # doc_id comes whenever there is one.
    assert [set(row) - {"doc_id"} for row in json.loads(out)] == [{"input_id", "title", "unique_id"}] * 2


def test_lookup_exports_citations_with_the_citation_fields(env, capsys, monkeypatch, records):
    dois = "\n".join(r.doi for r in records[:25])
    code, out, err = run(capsys, monkeypatch, "lookup", "--format", "bibtex", stdin=dois)
    assert code == EXIT_OK and err == ""
    assert env.requests()[0].json()["fields"] == CITATION_FIELDS
    assert out == paperlens.to_bibtex(records[:25])
    library = bibtexparser.parse_string(out)
    assert [e.fields_dict["doi"].value for e in library.entries] == [r.doi for r in records[:25]]
    code, out, _ = run(capsys, monkeypatch, "lookup", "--format", "ris", stdin=dois)
    assert [e["doi"] for e in rispy.loads(out)] == [r.doi for r in records[:25]]
    code, out, _ = run(capsys, monkeypatch, "lookup", "--format", "csl-json", stdin=dois)
    assert json.loads(out) == paperlens.to_csl_json(records[:25])


def test_lookup_exit_codes(env, capsys, monkeypatch):
    code, out, err = run(capsys, monkeypatch, "lookup", "10.9999/nothing")
    assert code == EXIT_NOT_FOUND and "1 of 1 ids not found" in err
    code, _, err = run(capsys, monkeypatch, "lookup", "10.9999/ok", "not-a-doi")
    assert code == EXIT_USAGE and "ids[1]: must be a DOI" in err
    code, _, err = run(capsys, monkeypatch, "lookup", "--by", "title", "x")
    assert code == EXIT_USAGE and "invalid choice" in err
    code, out, err = run(capsys, monkeypatch, "lookup", stdin="\n\n")
    assert code == EXIT_OK and out == "(no results)\n"
    assert len(env.requests()) == 1  # only the first command sent one


def test_lookup_without_input_is_a_usage_error(env, capsys, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr("sys.stdin", Terminal())
    code, _, err = run(capsys, monkeypatch, "lookup")
    assert code == EXIT_USAGE and "give the ids as arguments or on stdin" in err


def test_match_prints_the_best_record_and_lists_the_unmatched(env, capsys, monkeypatch, records):
    lines = [reference(records[5]), "zzqx vvbn wwrt 1850", reference(records[6])]
    code, out, err = run(capsys, monkeypatch, "match", "--format", "jsonl", stdin="\n".join(lines) + "\n\n")
    assert code == EXIT_OK
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["line"] for row in rows] == [1, 2, 3] and [row["reference"] for row in rows] == lines
    assert rows[0]["record"]["unique_id"] == records[5].unique_id and rows[0]["confidence"] == "high"
    assert rows[2]["record"]["unique_id"] == records[6].unique_id and rows[0]["reasons"]
    assert rows[1]["confidence"] in (None, "low")
    assert "1 of 3 references not matched with medium confidence or more:" in err
    assert "line 2 (" in err and lines[1] in err
    code, out, _ = run(capsys, monkeypatch, "match", *lines)
    table = out.splitlines()
    assert table[0].split()[:3] == ["line", "confidence", "score"] and records[5].unique_id in table[2]


def test_match_exports_only_the_matched(env, capsys, monkeypatch, records):
    lines = [reference(records[7]), "zzqx vvbn wwrt 1850", reference(records[8])]
    code, out, _ = run(capsys, monkeypatch, "match", "--format", "bibtex", *lines)
    assert code == EXIT_OK
    keys = [entry.key for entry in bibtexparser.parse_string(out).entries]
    assert keys == [entry["id"] for entry in paperlens.to_csl_json([records[7], records[8]])]
    code, out, _ = run(capsys, monkeypatch, "match", "--format", "csl-json", "--min-confidence", "high", lines[0])
    assert [item["title"] for item in json.loads(out)] == [records[7].title]
    code, out, err = run(capsys, monkeypatch, "match", "--format", "ris", lines[1])
    assert code == EXIT_NOT_FOUND and out == "" and "1 of 1 references not matched" in err


def test_meta_search_prints_citations(env, capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, "meta-search", "--page-size", "5", "--format", "bibtex")
    assert code == EXIT_OK and len(bibtexparser.parse_string(out).entries) == 5
    assert env.requests()[0].json()["fields"] == CITATION_FIELDS and "pages = {" in out
    code, out, _ = run(capsys, monkeypatch, "meta-search", "--all", "--limit", "7", "--format", "ris")
    assert len(rispy.loads(out)) == 7
    code, out, _ = run(
        capsys, monkeypatch, "meta-search", "--fields", "title,doi", "--page-size", "3", "--format", "csl-json"
    )
    items = json.loads(out)
    assert len(items) == 3 and all(item["title"] and set(item) <= {"DOI", "id", "title", "type"} for item in items)


def test_relations_print_the_records_behind_the_items(env, capsys, monkeypatch, records):
    client = paperlens.Client(api_token=env.token, base_url=env.base_url, rate_limits=None)
    items = client.iter_paper_relations(records[0].unique_id, "REFERENCES").to_list()
    env.clear_requests()
    code, out, _ = run(capsys, monkeypatch, "relations", records[0].unique_id, "REFERENCES", "--all", "--format", "ris")
    assert code == EXIT_OK
    # One page of relations, then one lookup per identifier kind.
    kinds = {i.id_type for i in items}
    assert [r.path for r in env.requests()] == ["/meta-paper-relations"] + ["/meta-search"] * len(kinds)
    entries = rispy.loads(out)
    assert len(entries) == len(items)
    internal = [i.id for i in items if i.id_type == "unique_id"]
    looked_up = client.lookup(internal, by="unique_id", fields=CITATION_FIELDS).found
    for item, entry in zip(items, entries, strict=True):
        if item.id_type == "unique_id":  # the record: its title, and pages for an article
            record = looked_up[item.id]
            assert entry["title"] == record.title and entry.get("doi") == record.doi
            assert entry.get("start_page") or not record.publication_venue_biblio_pages
        else:  # a work outside the corpus: what the item says
            assert entry.get("doi") == item.id and entry.get("title") == item.title
    code, out, _ = run(capsys, monkeypatch, "relations", records[0].unique_id, "REFERENCES", "--format", "csl-json")
    assert len(json.loads(out)) == len(entries)
