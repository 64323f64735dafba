"""The ``paperlens`` command: every subcommand through ``main([...])`` against a sandbox."""

from __future__ import annotations

import csv
import functools
import io
import json
import re

import pytest

from paperlens import cli
from paperlens.cli import SCHEMA_OPERATIONS, main

SANDBOX = dict(papers=300)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_help_documents_examples_and_exit_codes(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for text in ("examples:", "exit codes:", "PAPERLENS_API_TOKEN", "5 rate limited", "meta-search", "harvest"):
        assert text in out


def test_search_formats(env, capsys):
    code, out, _ = run(capsys, "search", "neural circuits", "--top-k", "3")
    assert code == 0 and "score" in out.splitlines()[0] and len(out.splitlines()) == 5
    code, out, _ = run(capsys, "search", "neural circuits", "--top-k", "3", "--format", "json")
    assert code == 0 and len(json.loads(out)["hits"]) == 3
    code, out, _ = run(capsys, "search", "neural circuits", "--top-k", "3", "--format", "jsonl")
    assert [json.loads(line)["doc_id"] for line in out.splitlines()]
    code, out, _ = run(capsys, "search", "neural circuits", "--top-k", "3", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 3 and rows[0]["doc_id"]


def first_doc(capsys) -> str:
    _, out, _ = run(capsys, "search", "neuron", "--top-k", "1", "--format", "jsonl")
    return json.loads(out)["doc_id"]


def test_read_and_download(env, capsys, tmp_path):
    doc = first_doc(capsys)
    code, text, _ = run(capsys, "read", doc)
    assert code == 0 and len(text) > 200
    code, out, err = run(capsys, "read", doc, "--offset", "0", "--limit", "50")
    assert code == 0 and len(out.rstrip("\n")) <= 50 and "code points" in err
    code, out, _ = run(capsys, "read", doc, "--format", "json")
    assert json.loads(out)["text"] == text.rstrip("\n") or json.loads(out)["text"] == text
    figure = re.search(r"!\[[^\]]*\]\(([^)\s]+)\)", text).group(1)
    code, out, _ = run(capsys, "download", figure, "--out", str(tmp_path), "--format", "json", "--no-progress")
    saved = json.loads(out)
    path = tmp_path / saved["path"].rsplit("/", 1)[-1]
    assert code == 0 and saved["bytes"] > 0 and path.exists()
    # Run again: the file there is kept (an error naming it), unless --overwrite says to replace it.
    path.write_bytes(b"mine")
    code, _, err = run(capsys, "download", figure, "--out", str(path), "--no-progress")
    assert code != 0 and str(path) in err and path.read_bytes() == b"mine"
    code, out, _ = run(capsys, "download", figure, "--out", str(path), "--overwrite", "--format", "json")
    assert code == 0 and path.stat().st_size == saved["bytes"]


def test_catalog(env, capsys):
    code, out, _ = run(capsys, "catalog")
    assert code == 0 and out.startswith("name") and "citation_count" in out
    code, out, _ = run(capsys, "catalog", "--format", "csv")
    assert "citation_count" in {row["name"] for row in csv.DictReader(io.StringIO(out))}


def test_meta_search(env, capsys):
    code, out, err = run(
        capsys,
        "meta-search",
        "--filter",
        "publication_published_year>=2020",
        "--sort",
        "citation_count:desc",
        "--fields",
        "unique_id,title,citation_count,publication_published_year",
        "--page-size",
        "5",
        "--facet",
        "language:3",
    )
    assert code == 0 and "facet language" in out and "records" in err
    code, out, _ = run(capsys, "meta-search", "--filter", "publication_published_year>=2020", "--format", "json")
    page = json.loads(out)
    assert all(r["publication_published_year"] >= 2020 for r in page["results"])
    code, out, _ = run(capsys, "meta-search", "--all", "--limit", "120", "--page-size", "50", "--format", "jsonl")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 120 and len({json.loads(x)["unique_id"] for x in lines}) == 120


def test_relations(env, capsys):
    code, out, _ = run(capsys, "meta-search", "--sort", "citation_count:desc", "--page-size", "1", "--format", "jsonl")
    uid = json.loads(out)["unique_id"]
    code, out, err = run(capsys, "relations", uid, "CITATIONS", "--page-size", "5")
    assert code == 0 and out.startswith("id_type") and "items" in err
    code, out, _ = run(capsys, "relations", uid, "CITATIONS", "--all", "--limit", "7", "--format", "jsonl")
    assert code == 0 and 0 < len(out.splitlines()) <= 7


def test_harvest(env, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    out_file = tmp_path / "h.jsonl"
    argv = ["harvest", "--out", str(out_file), "--format", "jsonl", "--limit", "150", "--page-size", "50"]
    code, out, _ = run(capsys, *argv, "--fields", "unique_id,title", "--no-progress")
    assert code == 0 and "150 records" in out
    assert len(out_file.read_text().splitlines()) == 150
    # The quota pacing is shared with other harvests by default, through the per-user file.
    assert (tmp_path / "run" / "paperlens" / "pacing.json").is_file()
    code, out, _ = run(capsys, *argv, "--fields", "unique_id,title", "--no-progress")
    assert code == 0 and "(resumed)" in out


def test_a_harvest_stopped_by_an_exhausted_quota_says_when_to_resume(env, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    argv = ["harvest", "--format", "jsonl", "--limit", "150", "--page-size", "50", "--no-progress"]
    assert run(capsys, *argv, "--out", str(tmp_path / "whole.jsonl"))[0] == 0
    out_file = tmp_path / "h.jsonl"
    env.inject_fault("/meta-search", status=429, retry_after=3600)
    code, _, err = run(capsys, *argv, "--out", str(out_file))
    assert code == cli.EXIT_RATE_LIMITED and "QuotaExhaustedError" in err
    when = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"
    assert re.search(rf"the quota is exhausted until {when}; after that time, run the same command again", err)
    code, out, _ = run(capsys, *argv, "--out", str(out_file))
    assert code == 0 and "(resumed)" in out
    assert out_file.read_text() == (tmp_path / "whole.jsonl").read_text()


def test_schema_operations(env, capsys):
    code, out, _ = run(capsys, "schema", "capabilities", "--format", "json")
    if code == cli.EXIT_NOT_FOUND:
        pytest.skip("this tree's sandbox does not serve /paper-schema yet")
    assert code == 0 and json.loads(out)
    code, out, _ = run(capsys, "schema", "search", "neural", "--size", "3", "--format", "jsonl")
    assert code == 0
    schema_id = json.loads(out.splitlines()[0])["schema_id"]
    for argv in (
        ["schema", "citation-summary", schema_id],
        ["schema", "citations", schema_id, "--size", "2"],
        ["schema", "entities", schema_id, "--size", "3"],
        ["schema", "citation-graph", schema_id, "--depth", "1", "--format", "json"],
        ["schema", "search-in-paper", schema_id, "method", "--top-k", "2"],
        ["schema", "materials", schema_id, "--format", "jsonl"],
        ["schema", "search", "neural", "--all", "--limit", "4", "--format", "jsonl"],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 0, (argv, err)
        assert out.strip(), argv


@pytest.mark.parametrize(
    ("argv", "method", "expected"),
    [
        (["capabilities"], "capabilities", {}),
        (
            ["search", "diffusion", "--filters", '{"has_code": true}', "--size", "5"],
            "search",
            {"query": "diffusion", "filters": {"has_code": True}, "sort": None, "size": 5, "cursor": None},
        ),
        (
            ["entity-related-papers", "graph", "--entity-types", "METHOD,DATASET"],
            "entity_related_papers",
            {"query": "graph", "entity_types": ["METHOD", "DATASET"]},
        ),
        (
            ["related-papers", "s1", "--exclude-same-work"],
            "related_papers",
            {"schema_id": "s1", "exclude_same_work": True},
        ),
        (["entity", "s1", "e2", "--no-include-relations"], "entity", {"entity_id": "e2", "include_relations": False}),
        (["relation", "s1", "r1"], "relation", {"schema_id": "s1", "relation_id": "r1"}),
        (["citation-graph", "s1", "--depth", "2"], "citation_graph", {"depth": 2, "direction": None}),
        (
            ["search-evidence", "metrics", "datasets", "--value-number-min", "0.5"],
            "search_evidence",
            {"groups": ["metrics", "datasets"], "value_number_min": 0.5},
        ),
        (["resolve-provenance", "--marker-nums", "1,2"], "resolve_provenance", {"marker_nums": [1, 2]}),
        (
            ["hydrate-items", '[{"schema_id": "s1"}]', "--window", "1"],
            "hydrate_items",
            {"items": [{"schema_id": "s1"}], "window": 1},
        ),
        (["materials", "s1", "s2", "--goal", "survey"], "materials", {"schema_ids": ["s1", "s2"], "goal": "survey"}),
        (["citations", "s1", "--all", "--limit", "3"], "iter_citations", {"schema_id": "s1", "limit": 3}),
    ],
)
def test_schema_arguments_reach_the_method(env, capsys, monkeypatch, argv, method, expected):
    from paperlens.schema import Schema

    seen = {}

    @functools.wraps(getattr(Schema, method))  # the parser is built from the real signature
    def fake(self, *args, **kwargs):
        seen.update(kwargs, args=args)
        return [{"id": "x1", "title": "t"}] if method.startswith("iter_") else {"ok": True}

    monkeypatch.setattr(Schema, method, fake)
    code, _out, err = run(capsys, "schema", *argv, "--format", "json")
    assert code == 0, err
    assert {k: seen.get(k) for k in expected} == expected


def test_every_schema_operation_has_a_subcommand(capsys):
    assert len(SCHEMA_OPERATIONS) == 18
    for name in SCHEMA_OPERATIONS:
        code, out, _ = run(capsys, "schema", name.replace("_", "-"), "--help")
        assert code == 0 and "--format" in out


def test_exit_codes(env, sandbox, capsys, monkeypatch):
    code, _, err = run(capsys, "relations", "W-does-not-exist", "CITATIONS")
    assert code == cli.EXIT_NOT_FOUND and "NotFoundError" in err
    code, _, err = run(capsys, "read", "0" * 64)  # /content lists no 404: an unknown document is a 400
    assert code == cli.EXIT_USAGE and "BadRequestError" in err
    sandbox.inject_fault("/meta-search", status=429, retry_after=600)
    code, _, err = run(capsys, "meta-search", "x")
    assert code == cli.EXIT_RATE_LIMITED and "QuotaExhaustedError" in err and "to resume" not in err
    monkeypatch.setenv("PAPERLENS_API_TOKEN", "sk-wrong-token")
    code, _, err = run(capsys, "catalog")
    assert code == cli.EXIT_AUTH and "sk-wrong-token" not in err


def test_usage_errors(env, capsys):
    assert run(capsys, "no-such-command")[0] == cli.EXIT_USAGE
    assert run(capsys, "meta-search", "--filter", "nonsense")[0] == cli.EXIT_USAGE
    assert run(capsys, "read")[0] == cli.EXIT_USAGE
    assert run(capsys, "search", "x", "--format", "xml")[0] == cli.EXIT_USAGE
    code, _, err = run(capsys, "meta-search", "--page-size", "1000")
    assert code == cli.EXIT_USAGE and "page_size" in err


def test_server_errors_map_to_6():
    import paperlens

    assert cli.exit_code(paperlens.APIConnectionError("down")) == cli.EXIT_SERVER


def test_without_environment_a_sandbox_is_used(monkeypatch, capsys):
    monkeypatch.delenv("PAPERLENS_API_TOKEN", raising=False)
    monkeypatch.delenv("PAPERLENS_BASE_URL", raising=False)
    code, out, err = run(capsys, "catalog", "--format", "jsonl")
    assert code == 0 and "sandbox" in err and out


def test_token_is_not_an_argument(capsys):
    assert run(capsys, "search", "x", "--api-token", "t")[0] == cli.EXIT_USAGE


def test_output_rows_are_those_the_result_type_names():
    from paperlens import types as t

    def jsonl(result):
        out = io.StringIO()
        cli.emit("jsonl", result, out=out)
        return [json.loads(line) for line in out.getvalue().splitlines()]

    detail = t.EntityDetail._from_wire({"entity": {"entity_id": "e1"}, "relations": [{"relation_id": "r1"}]}, None)
    # The entity and its relations, each row naming its part.
    assert jsonl(detail) == [{"kind": "entity", "entity_id": "e1"}, {"kind": "relation", "relation_id": "r1"}]
    # Asked for without its relations, an entity is one object rather than no rows.
    assert jsonl(t.EntityDetail._from_wire({"entity": {"entity_id": "e1"}}, None)) == [{"entity": {"entity_id": "e1"}}]


def test_a_harvest_shares_its_pacing_through_the_redis_the_environment_names(
    env, capsys, tmp_path, monkeypatch, redis_server
):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    monkeypatch.setenv("PAPERLENS_SHARED_PACING", redis_server.url)
    argv = ["harvest", "--out", str(tmp_path / "h.jsonl"), "--format", "jsonl", "--limit", "20", "--no-progress"]
    code, out, _ = run(capsys, *argv, "--fields", "unique_id,title")
    assert code == 0 and "20 records" in out
    # Redis, not this machine's file, held the pacing.
    assert not (tmp_path / "run" / "paperlens" / "pacing.json").exists()

    redis_server.stop()  # the Redis the environment names is gone: said, not a fallback
    code, _, err = run(capsys, "harvest", "--out", str(tmp_path / "g.jsonl"), "--format", "jsonl", "--no-progress")
    assert code != 0 and f"127.0.0.1:{redis_server.port}" in err
    assert not (tmp_path / "g.jsonl").exists()
