"""What one command prints, the next takes: ids and cursors in a table are never cut (on a
narrow terminal too), so ``paperlens search`` then ``paperlens read <doc_id>`` works by
copy-paste; filters are parsed before anything is sent; a relation takes either spelling."""

from __future__ import annotations

import json
import re

import pytest

from paperlens import cli
from tests.test_cli import run

SANDBOX = dict(papers=300)


@pytest.fixture
def narrow(env, monkeypatch):
    """A 40-column terminal, where every long cell used to be cut."""
    monkeypatch.setenv("COLUMNS", "40")
    return env


def column(table: str, name: str) -> list[str]:
    """The cells of column ``name`` of a printed table, read as a user reads them."""
    header, _rule, *rows = table.splitlines()
    starts = [match.start() for match in re.finditer(r"\S+", header)]
    names = header.split()
    at = names.index(name)
    end = starts[at + 1] if at + 1 < len(starts) else None
    return [row[starts[at] : end].strip() for row in rows]


def test_a_doc_id_pasted_from_the_search_table_reads_its_text(narrow, capsys):
    code, table, _ = run(capsys, "search", "neural circuits", "--top-k", "3")
    assert code == 0
    _, lines, _ = run(capsys, "search", "neural circuits", "--top-k", "3", "--format", "jsonl")
    assert column(table, "doc_id") == [json.loads(line)["doc_id"] for line in lines.splitlines()]
    for doc_id in column(table, "doc_id"):
        code, text, _ = run(capsys, "read", doc_id, "--format", "json")
        assert code == 0 and json.loads(text)["doc_id"] == doc_id and json.loads(text)["text"]


def test_unique_ids_and_relation_ids_are_whole_and_a_relation_takes_either_spelling(narrow, capsys):
    argv = ["meta-search", "--sort", "citation_count:desc", "--page-size", "3"]
    _, table, _ = run(capsys, *argv)
    _, page, _ = run(capsys, *argv, "--format", "json")
    assert column(table, "unique_id") == [r["unique_id"] for r in json.loads(page)["results"]]
    unique_id = column(table, "unique_id")[0]
    narrow.clear_requests()
    code, relations_table, _ = run(capsys, "relations", unique_id, "citations", "--page-size", "5")
    assert code == 0
    code, relations, _ = run(capsys, "relations", unique_id, "Citations", "--page-size", "5", "--format", "json")
    assert code == 0 and column(relations_table, "id") == [item["id"] for item in json.loads(relations)["items"]]
    sent = [r.json()["relation"] for r in narrow.requests() if r.path == "/meta-paper-relations"]
    assert sent == ["CITATIONS", "CITATIONS"]


def test_schema_ids_entity_ids_and_the_cursor_are_whole_and_the_cursor_pastes(narrow, capsys):
    _, found, _ = run(capsys, "schema", "search", "neural", "--size", "1", "--format", "json")
    schema_id = json.loads(found)["items"][0]["schema_id"]
    code, table, err = run(capsys, "schema", "entities", schema_id, "--size", "3")
    _, page, _ = run(capsys, "schema", "entities", schema_id, "--size", "3", "--format", "json")
    items, cursor = json.loads(page)["items"], json.loads(page)["next_cursor"]
    assert code == 0 and cursor
    assert column(table, "schema_id") == [item["schema_id"] for item in items]
    assert column(table, "entity_id") == [item["entity_id"] for item in items]
    assert f"next_cursor: {cursor}" in err.splitlines()
    code, _, _ = run(capsys, "schema", "entity", schema_id, column(table, "entity_id")[0], "--format", "json")
    assert code == 0
    _, following, _ = run(
        capsys, "schema", "entities", schema_id, "--size", "3", "--cursor", cursor, "--format", "json"
    )
    assert [i["entity_id"] for i in json.loads(following)["items"]] != [i["entity_id"] for i in items]


def test_a_one_object_table_keeps_its_ids_whole_and_cuts_only_long_text(capsys):
    long_id, long_text = "x" * 150, "word " * 60
    cli.emit("table", {"doc_id": long_id, "abstract": long_text})
    out = capsys.readouterr().out
    assert long_id in out and long_text.strip() not in out and "..." in out


@pytest.mark.parametrize("bad", ["citation_count >> 5", "citation_count => 5", "citation_count <> 5", "year>="])
def test_a_malformed_filter_is_a_usage_error_naming_the_option_and_nothing_is_sent(env, capsys, bad):
    env.clear_requests()
    for command in (["meta-search"], ["harvest", "--out", "unused.jsonl", "--format", "jsonl"]):
        code, _, err = run(capsys, *command, "--filter", bad)
        assert code == cli.EXIT_USAGE
        assert "--filter" in err and repr(bad) in err and "FIELD OP VALUE" in err and ">=" in err
    assert env.requests() == []


def test_a_value_that_starts_like_an_operator_is_taken_in_quotes(env, capsys):
    env.clear_requests()
    code, _, _ = run(capsys, "meta-search", "--filter", "title == '>5 is a title'", "--format", "json")
    assert code == 0
    assert env.requests()[-1].json()["filters"] == [
        {"field": "title", "operator": "FILTER_OP_EQ", "value": ">5 is a title"}
    ]
