"""``paperlens schema``: help that gives bounds and choices in plain text, list arguments
comma-separated or one per word, and tables, csv and jsonl that show every part of an answer
(a graph's nodes and edges, an entity and its relations) and whether it is the whole set."""

from __future__ import annotations

import csv
import io
import json

import pytest

from paperlens.cli import SCHEMA_OPERATIONS, main

SANDBOX = dict(papers=2000, seed=0)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def answer(capsys, *argv):
    code, out, _ = run(capsys, *argv, "--format", "json")
    assert code == 0
    return json.loads(out)


@pytest.fixture
def sid(env, capsys):
    """A paper whose two-level graph holds more than 5 papers."""
    return answer(capsys, "schema", "search", "model", "--size", "1")["items"][0]["schema_id"]


@pytest.mark.parametrize("name", SCHEMA_OPERATIONS)
def test_help_is_plain_text(capsys, name):
    code, out, _ = run(capsys, "schema", name.replace("_", "-"), "--help")
    assert code == 0
    for markup in ("``", ":meth:", ":class:", ":func:", "`"):
        assert markup not in out, (name, markup)


def test_help_gives_the_bounds_and_choices_of_the_options(capsys):
    _, out, _ = run(capsys, "schema", "citation-graph", "--help")
    text = " ".join(out.split())
    assert "--direction {outbound,inbound}" in text
    assert "levels to expand, 1-3 (service default 1) [int]" in text
    assert "the most nodes, 2-500 (service default 100) [int]" in text
    _, out, _ = run(capsys, "schema", "search", "--help")
    assert "papers per page, 1-100" in " ".join(out.split())
    _, out, _ = run(capsys, "schema", "materials", "--help")
    text = " ".join(out.split())
    assert (
        "comma-separated or one per word" in text and "--goal {overview,survey,benchmark,method,reproduction}" in text
    )


def test_a_bad_choice_is_a_usage_error_naming_the_choices(env, capsys):
    code, _, err = run(capsys, "schema", "citation-graph", "ps_x", "--direction", "sideways")
    assert code == 2 and "invalid choice: 'sideways'" in err and "'outbound', 'inbound'" in err


def test_materials_takes_ids_comma_separated_or_one_per_word(env, capsys):
    ids = [c["schema_id"] for c in answer(capsys, "schema", "search", "model", "--size", "3")["items"]]
    words = answer(capsys, "schema", "materials", *ids, "--per-schema-entity-limit", "2")
    commas = answer(capsys, "schema", "materials", ",".join(ids), "--per-schema-entity-limit", "2")
    mixed = answer(capsys, "schema", "materials", ",".join(ids[:2]), ids[2], "--per-schema-entity-limit", "2")
    assert [item["schema_paper"]["schema_id"] for item in words["items"]] == ids
    assert commas["items"] == words["items"] == mixed["items"]


def test_the_evidence_table_shows_the_values(env, capsys, sid):
    wire = answer(capsys, "schema", "search-evidence", "core_claim_result,table_evidence", "--schema-ids", sid)
    code, out, _ = run(capsys, "schema", "search-evidence", "core_claim_result,table_evidence", "--schema-ids", sid)
    header, _rule, *lines = out.splitlines()
    assert code == 0 and header.split()[:4] == ["evidence_id", "key", "value_text", "value_number"]
    assert len(lines) == len(wire["items"]) > 0
    for line, item in zip(lines, wire["items"], strict=True):
        assert line.startswith(f"{item['evidence_id']}  ") and f"  {item['key']}  " in line
        assert f"  {item['value_text']}  " in line and f"  {item['value_number']}  " in line


def test_an_entity_with_its_relations_shows_both_and_relations_truncated(env, capsys, sid):
    entity_id = answer(capsys, "schema", "entities", sid, "--entity-types", "Component")["items"][0]["entity_id"]
    argv = ("schema", "entity", sid, entity_id, "--include-relations", "--relation-limit", "1")
    wire = answer(capsys, *argv)
    code, out, err = run(capsys, *argv)
    assert code == 0 and wire["relations_truncated"] is True
    assert wire["entity"]["name"] in out and f"entity_id       {entity_id}" in out
    assert "relations (1):" in out and wire["relations"][0]["relation_id"] in out
    assert "relations_truncated: true" in out.splitlines()
    assert "PartialResultWarning: EntityDetail is truncated" in err and "relations_truncated=true" in err


def graph_argv(sid):
    return ("schema", "citation-graph", sid, "--depth", "2", "--max-nodes", "5")


def test_a_graph_as_jsonl_holds_its_nodes_edges_and_levels_and_says_it_is_truncated(env, capsys, sid):
    wire = answer(capsys, *graph_argv(sid))
    code, out, err = run(capsys, *graph_argv(sid), "--format", "jsonl")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and wire["truncated"] is True
    for kind, part in (("node", "nodes"), ("edge", "edges"), ("level", "levels")):
        assert [{k: v for k, v in r.items() if k != "kind"} for r in rows if r["kind"] == kind] == wire[part]
    assert wire["edges"] and "CitationGraph is truncated" in err


def test_a_graph_as_csv_holds_its_nodes_and_edges(env, capsys, sid):
    wire = answer(capsys, *graph_argv(sid))
    code, out, err = run(capsys, *graph_argv(sid), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and "CitationGraph is truncated" in err and wire["edges"]
    for kind, part in (("node", "nodes"), ("edge", "edges"), ("level", "levels")):
        written = [r for r in rows if r["kind"] == kind]
        assert len(written) == len(wire[part])
        for row, sent in zip(written, wire[part], strict=True):
            assert {name: read_cell(row[name], value) for name, value in sent.items()} == sent


def read_cell(cell, sent):
    """A csv cell read back as the type of the value ``sent`` (nested values are JSON text)."""
    if sent is None:
        return None if cell == "" else cell
    if isinstance(sent, (dict, list)):
        return json.loads(cell)
    if isinstance(sent, bool):
        return {"True": True, "False": False}.get(cell, cell)
    if isinstance(sent, (int, float)):
        return type(sent)(cell)
    return cell


def test_a_graph_as_tables_shows_nodes_edges_and_truncated(env, capsys, sid):
    wire = answer(capsys, *graph_argv(sid))
    code, out, _ = run(capsys, *graph_argv(sid))
    assert code == 0
    assert f"nodes ({len(wire['nodes'])}):" in out and f"edges ({len(wire['edges'])}):" in out
    assert "truncated: true" in out.splitlines()
    for edge in wire["edges"]:
        assert any(edge["source_schema_id"] in line and edge["target_schema_id"] in line for line in out.splitlines())


def test_a_paged_table_gives_its_cursor(env, capsys):
    wire = answer(capsys, "schema", "search", "model", "--size", "2")
    code, out, err = run(capsys, "schema", "search", "model", "--size", "2")
    assert code == 0 and wire["next_cursor"] and f"next_cursor: {wire['next_cursor']}" in err.splitlines()
    assert all(item["schema_id"] in out for item in wire["items"])
