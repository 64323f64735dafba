"""Living reviews: an output brought up to date against a service that grows between runs (a
sandbox whose hidden share of papers is revealed) gains exactly the new records, with every
value, leaves its old files byte-identical, fetches texts only for the new records, costs what
its estimate said, and resumes after ``kill -9`` equal to an update never interrupted."""

from __future__ import annotations

import html
import json
import math
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from paperlens.harvest import ChangedParametersError, harvest, harvest_corpus, manifest_path, read_records
from paperlens.sandbox import Sandbox
from paperlens.storage._manifest import read_manifest

from corpus_files import corpus_files
from fixtures import sandbox_client, sandbox_environment
from kills import documents, kill_at

pytest.importorskip("pyarrow")

PAPERS, HIDDEN = 400, 0.25


@pytest.fixture
def growing():
    """A sandbox of its own per test: a quarter of its papers hidden until ``reveal()``."""
    with Sandbox(papers=PAPERS, hidden_share=HIDDEN) as sandbox:
        yield sandbox


def searched(sandbox: Sandbox, query: str | None = None, **search: Any) -> list[dict[str, Any]]:
    client = sandbox_client(sandbox)
    return [r.to_dict() for r in client.iter_meta_search(query, page_size=200, **search)]


def part_bytes(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.glob("part-*.parquet"))}


def meta_search_ids(sandbox: Sandbox) -> list[str]:
    return [r.headers["x-request-id"] for r in sandbox.requests() if r.path == "/meta-search"]


def test_the_growing_sandbox_serves_a_superset_whose_shared_records_are_identical(tmp_path):
    with Sandbox(papers=200, hidden_share=0.3, reveal_after=2) as sandbox:
        assert 40 <= sandbox.hidden <= 80
        before = {r["unique_id"]: r for r in searched(sandbox)}  # request 1
        assert sandbox_client(sandbox).meta_search(None, page_size=1).total_count == len(before) == 200 - sandbox.hidden
        after = {r["unique_id"]: r for r in searched(sandbox)}  # request 3: the first after 2
        assert sandbox.hidden == 0 and len(after) == 200
        assert before.keys() < after.keys()
        assert all(after[uid] == record for uid, record in before.items())
    with Sandbox(papers=50, hidden_share=0.5) as sandbox:
        hidden = sandbox.hidden
        assert len(searched(sandbox)) == 50 - hidden and hidden > 0
        sandbox.reveal()
        assert len(searched(sandbox)) == 50 and sandbox.hidden == 0
    with pytest.raises(ValueError, match="hidden_share"):
        Sandbox(papers=10, hidden_share=1.5)


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_an_update_adds_exactly_the_new_records_and_costs_what_it_was_estimated(growing, tmp_path, fmt):
    client = sandbox_client(growing, max_retries=0)
    out = tmp_path / ("review" if fmt == "parquet" else "review.jsonl")
    search = dict(out=out, format=fmt, page_size=50, chunk_size=60)
    first = harvest(client, None, **search)
    held = read_records(out)
    old_files = part_bytes(out) if fmt == "parquet" else {"": out.read_bytes()}
    assert first.added == first.records == len(held) == PAPERS - growing.hidden
    growing.reveal()
    grown = searched(growing)
    known = {r["unique_id"] for r in held}
    new = [r for r in grown if r["unique_id"] not in known]
    assert len(new) == PAPERS - len(held) > 0

    growing.clear_requests()
    estimate = client.estimate_harvest(update=out)
    assert estimate.held == len(held) and estimate.records == len(new)
    growing.clear_requests()
    result = harvest(client, None, **search, update=True)
    sent = growing.requests()

    assert result.done and result.added == len(new) and result.records == PAPERS
    assert list(result.new_ids) == [r["unique_id"] for r in new]
    assert read_records(out, run=-1) == read_records(out, run=1) == new
    assert read_records(out, run=0) == held and read_records(out) == held + new
    # The old files are untouched: parts byte for byte, the JSONL file's first bytes.
    if fmt == "parquet":
        assert {name: data for name, data in part_bytes(out).items() if name in old_files} == old_files
    else:
        assert out.read_bytes()[: len(old_files[""])] == old_files[""]
    # Every page of the search, once: what the estimate said.
    pages = math.ceil(PAPERS / 50)
    assert [r.path for r in sent] == ["/meta-search"] * pages
    assert estimate.requests == estimate.by_resource()["meta-search"] == pages
    manifest = read_manifest(tmp_path, manifest_path(out).name)
    assert manifest is not None
    entries = manifest["run_entries"]
    assert [(e["kind"], e["added"], e["requests"]) for e in entries] == [
        ("harvest", len(held), math.ceil(len(held) / 50)),
        ("update", len(new), pages),
    ]
    assert entries[0]["finished"] <= entries[1]["started"] <= entries[1]["finished"]
    assert manifest["request_ids"][-pages:] == [r.headers["x-request-id"] for r in sent]

    again = harvest(client, None, **search, update=True)
    assert again.added == 0 and again.new_ids == () and read_records(out, run=-1) == []
    assert read_records(out) == held + new


def test_a_changed_query_filter_or_fields_is_refused_before_any_request(growing, tmp_path):
    client = sandbox_client(growing)
    out = tmp_path / "review"
    harvest(client, "model", out=out, fields=["unique_id", "title"], filters=[("language", "==", "en")])
    growing.clear_requests()
    changes = [
        ({"query": "models"}, "query='model' then 'models'"),
        ({"fields": ["unique_id"]}, "fields=['unique_id', 'title'] then ['unique_id']"),
        ({"filters": [("language", "==", "zh")]}, "filters="),
    ]
    original = {"query": "model", "fields": ["unique_id", "title"], "filters": [("language", "==", "en")]}
    for change, named in changes:
        call: dict[str, Any] = {**original, **change}
        with pytest.raises(ChangedParametersError, match=re.escape(named)) as raised:
            harvest(client, call.pop("query"), out=out, update=True, **call)
        assert isinstance(raised.value, ValueError) and raised.value.changed == tuple(change)
    with pytest.raises(ValueError, match="query: differs from the harvest's"):
        client.estimate_harvest("models", update=out)
    assert growing.requests() == []


def test_a_corpus_update_fetches_texts_only_for_the_new_records(growing, tmp_path):
    client = sandbox_client(growing, max_retries=0)
    out = tmp_path / "corpus"
    harvest_corpus(client, out, figures=True)
    before = corpus_files(out)
    held = read_records(out)
    growing.reveal()
    new = [r for r in searched(growing) if r["unique_id"] not in {h["unique_id"] for h in held}]
    estimate = client.estimate_harvest(update=out)
    growing.clear_requests()
    result = harvest_corpus(client, out, figures=True, update=True)
    asked = [r.query for r in growing.requests() if r.path == "/content"]

    assert result.added == len(new) and list(result.new_ids) == [r["unique_id"] for r in new]
    assert read_records(out, run=-1) == new
    after = corpus_files(out)
    # Old records, documents and figures untouched; the new documents are those of the new records.
    kept = [name for name in before if "manifest" not in name and name != "<checkpoint>"]
    assert kept and all(after[name] == before[name] for name in kept)
    new_docs = {r["doc_id"] for r in new if r.get("doc_id")}
    assert {dict(q)["doc_id"] for q in asked} == new_docs
    texts_before = sum(name.endswith("/text.md") for name in before)
    assert sum(name.endswith("/text.md") for name in after) == texts_before + len(new_docs)
    # Its cost: the pages of the search, a text per new document (none of them long), the figures.
    sent = growing.requests()
    pages = sum(r.path == "/meta-search" for r in sent)
    assert pages == estimate.by_resource()["meta-search"] == math.ceil(PAPERS / 200)
    texts = next(op for op in estimate.operations if op.path == "/content")
    assert abs(texts.requests - len(asked)) <= 0.05 * len(asked)


UPDATE = """
import sys
import paperlens
from paperlens.harvest import harvest_corpus
client = paperlens.Client(rate_limits=None)
harvest_corpus(client, sys.argv[1], update=True)
"""


def start_update(sandbox: Sandbox, out: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-c", UPDATE, str(out)]
    return subprocess.Popen(command, env=sandbox_environment(sandbox), stderr=subprocess.PIPE)


def copy_output(out: Path, to: Path) -> None:
    shutil.copytree(out, to)
    shutil.copy2(out.with_name(out.name + ".checkpoint.json"), to.with_name(to.name + ".checkpoint.json"))


@pytest.mark.parametrize("seed", [1, 2])
def test_an_update_killed_at_random_moments_ends_as_an_uninterrupted_one(tmp_path, seed):
    with Sandbox(papers=PAPERS, hidden_share=HIDDEN, content_latency=0.002) as sandbox:
        first = tmp_path / "first"
        harvest_corpus(sandbox_client(sandbox), first)
        held = documents(first)
        whole, killed = tmp_path / "whole", tmp_path / "killed"
        copy_output(first, whole)
        copy_output(first, killed)
        sandbox.reveal()
        process = start_update(sandbox, whole)
        assert process.wait(timeout=120) == 0, process.stderr.read().decode() if process.stderr else ""
        total = documents(whole)
        rng = random.Random(seed)
        points = sorted(rng.sample(range(held, total), 3))
        kills, states = kill_at(points, lambda: start_update(sandbox, killed), killed, rng, jitter=0.01)
        process = start_update(sandbox, killed)
        assert process.wait(timeout=120) == 0
    assert kills >= 2 and len(states) >= 2, (kills, states)
    assert corpus_files(killed) == corpus_files(whole)
    assert read_records(killed, run=-1) == read_records(whole, run=-1) != []


def test_the_update_command_writes_a_digest_of_exactly_the_new_records(growing, tmp_path, monkeypatch, capsys):
    from paperlens.cli import main

    monkeypatch.setenv("PAPERLENS_API_TOKEN", growing.token)
    monkeypatch.setenv("PAPERLENS_BASE_URL", growing.base_url)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    review, corpus = tmp_path / "review", tmp_path / "corpus"
    client = sandbox_client(growing)
    harvest(client, "model", out=review)
    harvest_corpus(client, corpus, query="learning")
    growing.reveal()
    assert main(["update", str(review), str(corpus), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("Harvest estimate: update: ") == 2 and "meta_search (/meta-search)" in printed
    expected = {
        "review": [r for r in searched(growing, query="model") if r["unique_id"] not in ids(review)],
        "corpus": [r for r in searched(growing, query="learning") if r["unique_id"] not in ids(corpus)],
    }
    assert all(expected.values())

    digest = tmp_path / "digest.json"
    assert main(["update", str(review), str(corpus), "--digest", "json", "-o", str(digest)]) == 0
    outputs = json.loads(digest.read_text())["outputs"]
    for output, name in zip(outputs, ("review", "corpus"), strict=True):
        records = expected[name]
        assert output["new"] == len(records)
        assert [item["unique_id"] for item in output["records"]] == [r["unique_id"] for r in records]
        assert [item["title"] for item in output["records"]] == [r.get("title") for r in records]
        assert [item["doi"] for item in output["records"]] == [r.get("doi") for r in records]
        assert [item["authors"] for item in output["records"]] == [[a["name"] for a in r["author"]] for r in records]
    texts = [item["read"] for item in outputs[1]["records"] if item["read"] and item["read"].endswith("text.md")]
    assert texts and all(Path(path).is_file() for path in texts)

    capsys.readouterr()
    assert main(["update", str(review), str(corpus)]) == 0
    assert capsys.readouterr().out == "nothing new\n"
    assert main(["update", str(tmp_path / "nothing")]) != 0


def ids(out: Path) -> set[str]:
    return {r["unique_id"] for r in read_records(out)}


def test_a_digest_in_markdown_and_html_lists_each_new_record(growing, tmp_path, monkeypatch, capsys):
    from paperlens.cli import main

    monkeypatch.setenv("PAPERLENS_API_TOKEN", growing.token)
    monkeypatch.setenv("PAPERLENS_BASE_URL", growing.base_url)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    review = tmp_path / "review.jsonl"
    harvest(sandbox_client(growing), None, out=review, format="jsonl")
    held = ids(review)
    growing.reveal()
    new = [r for r in searched(growing) if r["unique_id"] not in held]
    review_copy = tmp_path / "copy.jsonl"
    for suffix in ("", ".checkpoint.json", ".manifest.json", ".manifest.requests.jsonl"):
        shutil.copy2(f"{review}{suffix}", f"{review_copy}{suffix}")
    assert main(["update", str(review)]) == 0
    markdown = capsys.readouterr().out
    assert main(["update", str(review_copy), "--digest", "html"]) == 0
    page = capsys.readouterr().out
    assert markdown.count("\n- **") == len(new) == page.count("<li>") > 0
    for record in new:
        assert f"**{record['title']}**" in markdown
        assert "doi" not in record or f"doi:{record['doi']}" in markdown
        assert f"<strong>{html.escape(record['title'])}</strong>" in page


def test_a_hostile_title_cannot_make_markup_of_its_own_in_a_digest():
    from paperlens.cli.update_command import Update, render

    record = {
        "unique_id": "W1",
        "title": "Click [here](javascript:alert(1)) <script>x</script>\n# heading",
        "author": [{"name": "*Eve*"}],
        "access_oa_url": "javascript:alert(1)",
        "doi": "10.1/x",
    }
    digest = [Update("out", "q", 0, [record], corpus=False)]
    markdown, page = render(digest, "md"), render(digest, "html")
    assert r"Click \[here\](javascript:alert(1)) \<script\>x\</script\> # heading" in markdown
    assert r"\*Eve\*" in markdown and "[read](<https://doi.org/10.1/x>)" in markdown
    assert "<script>" not in page and "javascript:" not in page.split("Click")[0]
    assert '<a href="https://doi.org/10.1/x">read</a>' in page
    assert json.loads(render(digest, "json"))["outputs"][0]["records"][0]["read"] == "https://doi.org/10.1/x"
