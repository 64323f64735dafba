"""Full-text corpus harvests: records, texts equal to read_text, figures, missing texts, ids,
manifests, and a harvest killed with SIGKILL at random moments that ends byte for byte as an
uninterrupted one."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import paperlens
from paperlens.harvest import HarvestError, harvest_corpus
from paperlens.sandbox import Sandbox
from paperlens.storage._manifest import read_manifest

from corpus_files import corpus_files
from fixtures import resume_told, sandbox_client, sandbox_environment, strict_client  # noqa: F401 (the client fixture)
from kills import documents, kill_at

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

PAPERS = 300


SANDBOX = dict(papers=PAPERS)


@pytest.fixture(scope="module")
def catalogue(sandbox):
    """Every record of the sandbox, in search order."""
    client = sandbox_client(sandbox)
    return [r.to_dict() for r in client.iter_meta_search(None, page_size=200)]


def records(out: Path) -> Any:
    return pd.read_parquet(out / "records")


def counted(sandbox: Sandbox) -> dict[str, int]:
    paths: dict[str, int] = {}
    for request in sandbox.requests():
        paths[request.path] = paths.get(request.path, 0) + 1
    return paths


def test_a_query_harvest_writes_every_record_and_each_whole_text(sandbox, client, catalogue, tmp_path):
    out = tmp_path / "corpus"
    sandbox.clear_requests()
    result = harvest_corpus(client, out, limit=250)
    frame = records(out)
    assert list(frame.unique_id) == [r["unique_id"] for r in catalogue[:250]]
    with_text = [r for r in catalogue[:250] if r.get("doc_id")]
    assert result.done and not result.resumed and result.records == 250 and result.chunks == 2
    assert result.texts == len(with_text) and result.missing_texts == 250 - len(with_text) > 0
    # Two pages of records (200, then the 50 the limit leaves), and per text one request for
    # each page of the largest size /content serves (a few sandbox texts are longer).
    lengths = [len((out / path).read_text("utf-8")) for path in frame.text_path.dropna()]
    assert counted(sandbox) == {"/meta-search": 2, "/content": sum(-(-n // 524_288) for n in lengths)}
    assert max(lengths) > 524_288
    assert [json.loads(r.body)["page_size"] for r in sandbox.requests() if r.path == "/meta-search"] == [200, 50]
    for row in frame.itertuples():
        if isinstance(row.doc_id, str):
            assert row.text_status == "ok"
            assert (out / row.text_path).read_text("utf-8") == client.read_text(row.doc_id)
        else:  # written, not dropped
            assert row.text_status == "no_doc_id" and pd.isna(row.text_path)
    documents = sorted(p.name for p in (out / "documents").iterdir())
    assert documents == sorted({r["doc_id"] for r in with_text})
    # Run again: finished, nothing sent.
    sandbox.clear_requests()
    again = harvest_corpus(client, out, limit=250)
    assert again.resumed and again.done and again.records == 250 and sandbox.requests() == []


def test_figures_are_written_where_the_text_links_to_them(sandbox, client, tmp_path):
    out = tmp_path / "corpus"
    result = harvest_corpus(client, out, filters=[("publication_published_year", ">=", 2015)], figures=True, limit=12)
    frame = records(out)
    written = 0
    for row in frame.itertuples():
        if row.text_status != "ok":
            continue
        text = (out / row.text_path).read_text("utf-8")
        links = [line[line.index("](") + 2 : -1] for line in text.splitlines() if line.startswith("![")]
        assert links and list(row.missing_figures) == []
        # Each link resolves from text.md to the figure's bytes as the service serves them.
        folder = (out / row.text_path).parent
        assert sorted(out / p for p in row.figure_paths) == sorted(folder / link for link in links)
        for link in links:
            assert (folder / link).read_bytes() == client.resource(link).data
            written += 1
    assert result.figures == written > 0


def test_refused_texts_and_figures_are_recorded(sandbox, client, tmp_path):
    restricted = paperlens.Client(api_token=sandbox.restricted_token, base_url=sandbox.base_url, rate_limits=None)
    out = tmp_path / "restricted"
    result = harvest_corpus(restricted, out, limit=60)
    frame = records(out)
    statuses = set(frame.text_status)
    assert {"ok", "forbidden", "no_doc_id"} <= statuses
    assert result.missing_texts == int((frame.text_status != "ok").sum())
    assert frame[frame.text_status == "forbidden"].text_path.isna().all()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["missing_texts"] == result.missing_texts

    # A 404 for a text, and a 403 for a figure: recorded, the rest written.
    first = frame[frame.text_status == "ok"].iloc[0]
    sandbox.inject_fault("/content", status=404)
    sandbox.inject_fault("/resource", status=403)
    other = tmp_path / "faults"
    harvest_corpus(client, other, ids=[first.unique_id], figures=True)
    row = records(other).iloc[0]
    assert row.text_status == "not_found" and pd.isna(row.text_path)
    assert list((other / "documents").iterdir()) == []
    refused = tmp_path / "figure-refused"
    sandbox.inject_fault("/resource", status=403)
    harvest_corpus(client, refused, ids=[first.unique_id], figures=True)
    row = records(refused).iloc[0]
    text = (refused / row.text_path).read_text("utf-8")
    folder = (refused / row.text_path).parent
    assert row.text_status == "ok" and len(row.missing_figures) == 1
    missing = row.missing_figures[0]
    assert f"]({missing})" in text and not (folder / missing).exists()
    assert len(row.figure_paths) == text.count("](figures/") - 1


def test_ids_are_matched_in_batches_in_input_order(sandbox, client, catalogue, tmp_path):
    chosen = [r["unique_id"] for r in catalogue[::-1][:230]]  # reversed: not the search order
    ids = [*chosen[:5], chosen[0], "W9999999999", *chosen[5:]]
    sandbox.clear_requests()
    result = harvest_corpus(client, tmp_path / "ids", ids=ids, texts=False)
    assert list(records(tmp_path / "ids").unique_id) == chosen
    assert result.not_found == ("W9999999999",) and result.records == 230
    # 231 distinct ids: two IN filters of at most 200, one page each; the duplicate asked once.
    bodies = [json.loads(r.body) for r in sandbox.requests()]
    assert [len(b["filters"][0]["value"]) for b in bodies] == [200, 31]
    assert all(b["filters"][0]["operator"] == "FILTER_OP_IN" and b["page_size"] == 200 for b in bodies)
    manifest = json.loads((tmp_path / "ids" / "manifest.json").read_text())
    assert manifest["not_found"] == ["W9999999999"] and manifest["total_count"] == 231


def test_dois_are_normalised(client, catalogue, tmp_path):
    dois = [r["doi"] for r in catalogue[:3]]
    given = [f"https://doi.org/{dois[0].upper()}", dois[1], f"doi:{dois[2]}", dois[1].upper()]
    result = harvest_corpus(client, tmp_path / "dois", ids=given, by="doi", texts=False)
    assert list(records(tmp_path / "dois").doi) == dois and result.not_found == ()


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"ids": ["W1", "", "W2"]}, "ids[1]"),
        ({"ids": ["W1", None]}, "ids[1]"),
        ({"ids": "W1"}, "ids"),
        ({"ids": ["W1"], "by": "title"}, "by"),
        ({"ids": ["W1"], "query": "coral"}, "ids"),
        ({"figures": True, "texts": False}, "figures"),
        ({"limit": -1}, "limit"),
    ],
)
def test_bad_input_is_refused_before_any_request(sandbox, client, tmp_path, kwargs, param):
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError) as caught:
        harvest_corpus(client, tmp_path / "x", **kwargs)
    assert caught.value.param == param and caught.value.rule
    assert sandbox.requests() == [] and not (tmp_path / "x").exists()


def test_other_parameters_into_the_same_output_are_refused(client, tmp_path):
    out = tmp_path / "corpus"
    harvest_corpus(client, out, limit=5)
    with pytest.raises(HarvestError, match=r"other parameters.*limit=5 then 6"):
        harvest_corpus(client, out, limit=6)
    with pytest.raises(HarvestError, match="other parameters"):
        harvest_corpus(client, out, limit=5, figures=True)
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("mine")
    with pytest.raises(HarvestError, match="not a resumable harvest"):
        harvest_corpus(client, stray, limit=5)


def test_the_manifest_records_the_call_and_never_the_token(sandbox, client, tmp_path):
    out = tmp_path / "corpus"
    sandbox.clear_requests()
    result = harvest_corpus(client, out, query="model", figures=True, limit=10)
    manifest = read_manifest(out)  # its request ids from the side file
    assert manifest is not None and manifest["call"] == "harvest_corpus" and manifest["runs"] == 1
    assert manifest["parameters"] == {
        "query": "model",
        "ids": None,
        "by": None,
        "filters": None,
        "texts": True,
        "figures": True,
        "limit": 10,
    }
    assert manifest["sandbox"] == {"papers": PAPERS, "seed": 0}
    assert manifest["base_url"].startswith(sandbox.base_url)
    assert manifest["started"] <= manifest["finished"]
    assert manifest["counts"] == {
        "records": 10,
        "chunks": 1,
        "texts": result.texts,
        "figures": result.figures,
        "missing_texts": result.missing_texts,
        "not_found": 0,
    }
    assert manifest["total_count"] == client.meta_search("model", page_size=1).total_count
    # The request ids of the page of records and of every text, as the sandbox saw them.
    seen = [r.headers["x-request-id"] for r in sandbox.requests() if r.path in ("/meta-search", "/content")]
    assert manifest["request_ids"] == seen[: len(manifest["request_ids"])]
    assert len(manifest["request_ids"]) == 1 + result.texts
    token = sandbox.token.encode()
    for path in [*out.rglob("*"), result.checkpoint]:
        assert path.is_dir() or token not in path.read_bytes(), path


@pytest.mark.asyncio
async def test_the_async_client_writes_the_same_files(sandbox, client, tmp_path):
    aclient = paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
    result = await harvest_corpus(aclient, tmp_path / "async", figures=True, limit=40)
    harvest_corpus(client, tmp_path / "sync", figures=True, limit=40)
    assert result.records == 40 and result.done
    assert corpus_files(tmp_path / "async") == corpus_files(tmp_path / "sync")


def test_a_corpus_harvest_stopped_by_an_exhausted_quota_says_when_to_resume(sandbox, client, tmp_path, capsys):
    harvest_corpus(client, tmp_path / "whole", figures=True, limit=40)
    out = tmp_path / "corpus"
    sandbox.inject_fault("/content", status=429, retry_after=3600)
    with pytest.raises(paperlens.QuotaExhaustedError) as caught:
        harvest_corpus(client, out, figures=True, limit=40)
    assert resume_told(caught.value, capsys)
    assert out.with_name("corpus.checkpoint.json").is_file()
    result = harvest_corpus(client, out, figures=True, limit=40)
    assert result.resumed and result.done
    assert corpus_files(out) == corpus_files(tmp_path / "whole")


# -- killed with SIGKILL and resumed ------------------------------------------------------------

HARVEST = """
import sys
import paperlens
from paperlens.harvest import harvest_corpus

client = paperlens.Client(rate_limits=None, max_retries=0)
result = harvest_corpus(client, sys.argv[1], figures=True, limit=int(sys.argv[2]))
assert result.done
"""
LIMIT = 210  # two pages of records


def start(sandbox: Sandbox, out: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-c", HARVEST, str(out), str(LIMIT)]
    return subprocess.Popen(command, env=sandbox_environment(sandbox), stderr=subprocess.PIPE)


def finish(process: subprocess.Popen[bytes]) -> None:
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err.decode()


@pytest.fixture(scope="module")
def uninterrupted(sandbox, tmp_path_factory):
    """The files of a whole run, and how many documents it writes."""
    out = tmp_path_factory.mktemp("whole") / "corpus"
    finish(start(sandbox, out))
    return corpus_files(out), documents(out)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_harvest_killed_at_random_moments_ends_as_an_uninterrupted_one(sandbox, uninterrupted, tmp_path, seed):
    expected, total = uninterrupted
    out = tmp_path / "corpus"
    rng = random.Random(seed)
    # Four random moments, each once a random number of documents is on disk (0: while the process
    # starts) and a few milliseconds more.
    points = sorted(rng.sample(range(total), 4))
    kills, states = kill_at(points, lambda: start(sandbox, out), out, rng, jitter=0.02)
    finish(start(sandbox, out))
    # Killed at different points, once at least with documents written.
    assert kills >= 2 and len(states) >= 2 and max(states) > 0, (kills, states)
    assert corpus_files(out) == expected
    # Each run that found the manifest of an earlier one counts itself.
    assert 2 <= json.loads((out / "manifest.json").read_text())["runs"] <= kills + 1


def test_the_command_line_harvests_a_corpus(sandbox, catalogue, tmp_path, monkeypatch, capsys):
    from paperlens.cli import main
    from paperlens.cli.exit_codes import EXIT_OUTPUT, EXIT_USAGE

    monkeypatch.setenv("PAPERLENS_API_TOKEN", sandbox.token)
    monkeypatch.setenv("PAPERLENS_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    listed = tmp_path / "ids.txt"
    listed.write_text(f"# seeds\n{catalogue[0]['unique_id']}\n\n{catalogue[3]['unique_id']}\nW9999999999\n")
    out = tmp_path / "corpus"
    argv = ["harvest", "--ids", str(listed), "--texts", "--figures", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    printed = capsys.readouterr()
    assert f"2 records, 2 texts, {len(list(out.rglob('*.png')))} figures written" in printed.out
    assert "1 ids not found: W9999999999" in printed.err
    assert list(records(out).unique_id) == [catalogue[0]["unique_id"], catalogue[3]["unique_id"]]
    capsys.readouterr()
    assert main([*argv, "--limit", "1"]) == EXIT_OUTPUT  # the output holds another call
    assert "other parameters" in capsys.readouterr().err
    assert main(["harvest", "--figures", "--out", str(tmp_path / "x")]) == EXIT_USAGE
    assert main(["harvest", "--texts", "--format", "jsonl", "--out", str(tmp_path / "x")]) == EXIT_USAGE
    assert "not with --texts" in capsys.readouterr().err


def test_figure_names_and_folder_names_stay_inside_the_document_folder():
    from paperlens.harvests.corpus import figure_names, folder_name

    text = (
        "![Figure 1: a](figures/W1/fig1.png)\n![again](figures/W1/fig1.png)\n![b](<figures/W1/fig 2.png>)\n"
        '![c](figures/W1/fig3.png "a title")\n![web](https://example.org/x.png)\n![up](../secret.png)\n'
        "![abs](/etc/passwd)\n![win](figures\\\\x.png)\n![self](text.md)\n[Table S1](supplementary/W1/table1.csv)\n"
    )
    assert figure_names(text) == ["figures/W1/fig1.png", "figures/W1/fig 2.png", "figures/W1/fig3.png"]
    assert folder_name("66aa2aece45e") == "66aa2aece45e"
    assert folder_name("a/b") == "a%2Fb" and folder_name(".hidden") == "%2Ehidden"
    assert folder_name("x" * 300).startswith("sha256-") and len(folder_name("x" * 300)) == 71


def test_progress_counts_documents(client, tmp_path, capsys):
    pytest.importorskip("tqdm")
    result = harvest_corpus(client, tmp_path / "corpus", limit=7, progress=True)
    err = capsys.readouterr().err
    assert result.records == 7 and "7/7" in err and "documents" in err


def test_an_output_that_is_a_file_is_refused(sandbox, client, tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("mine")
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError, match="out: must be a directory") as caught:
        harvest_corpus(client, taken, limit=3)
    assert caught.value.param == "out" and sandbox.requests() == [] and taken.read_text() == "mine"
