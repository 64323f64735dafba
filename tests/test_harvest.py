"""Resumable harvests: interrupted anywhere, resumed, the union equals one whole run."""

from __future__ import annotations

import json

import pytest

import paperlens
from paperlens.harvest import HarvestError, harvest, read_records
from paperlens.harvests import harvest as harvest_module
from paperlens.harvests._harvesting import checkpoint_beside
from paperlens.storage._manifest import read_manifest

from fixtures import resume_told, sandbox_client, strict_client  # noqa: F401 (the client fixture)

pytest.importorskip("pyarrow")

FIELDS = ["unique_id", "title", "publication_published_year", "citation_count"]


SANDBOX = dict(papers=600)


@pytest.fixture(scope="module")
def expected(sandbox):
    client = sandbox_client(sandbox)
    return [r.unique_id for r in client.iter_meta_search(None, fields=FIELDS, page_size=200)]


def ids(out, fmt):
    return [r["unique_id"] for r in read_records(out, fmt)]


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_whole_harvest(client, expected, tmp_path, fmt):
    out = tmp_path / ("papers" if fmt == "parquet" else "papers.jsonl")
    result = harvest(client, out=out, format=fmt, fields=FIELDS, chunk_size=100, page_size=50)
    assert result.done and not result.resumed
    assert result.records == len(expected) == 600 and result.chunks == 6
    assert ids(out, fmt) == expected
    state = json.loads(checkpoint_beside(out).read_text())
    assert state["next"] is None and state["records"] == 600
    # Run again: nothing to do, nothing sent.
    again = harvest(client, out=out, format=fmt, fields=FIELDS, chunk_size=100, page_size=50)
    assert again.resumed and again.records == 600 and ids(out, fmt) == expected


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_resume_after_a_server_error(sandbox, client, expected, tmp_path, fmt):
    out = tmp_path / ("papers" if fmt == "parquet" else "papers.jsonl")

    def fail_later(result):
        if result.chunks == 2:
            sandbox.inject_fault("/meta-search", status=503, times=1)

    with pytest.raises(paperlens.ServerError):
        harvest(client, out=out, format=fmt, fields=FIELDS, chunk_size=120, page_size=40, on_chunk=fail_later)
    assert len(ids(out, fmt)) == 240
    result = harvest(client, out=out, format=fmt, fields=FIELDS, chunk_size=120, page_size=40)
    assert result.resumed and result.done
    got = ids(out, fmt)
    assert got == expected and len(set(got)) == len(got)


def test_a_harvest_stopped_by_an_exhausted_quota_says_when_to_resume(sandbox, client, tmp_path, capsys):
    whole = tmp_path / "whole.jsonl"
    harvest(client, out=whole, format="jsonl", fields=FIELDS, chunk_size=120, page_size=40)
    out = tmp_path / "papers.jsonl"

    def exhaust_later(result):
        if result.chunks == 2:
            sandbox.inject_fault("/meta-search", status=429, retry_after=3600)

    with pytest.raises(paperlens.QuotaExhaustedError) as caught:
        harvest(client, out=out, format="jsonl", fields=FIELDS, chunk_size=120, page_size=40, on_chunk=exhaust_later)
    assert resume_told(caught.value, capsys)
    assert read_records(out, "jsonl") == read_records(whole, "jsonl")[:240]
    assert json.loads(checkpoint_beside(out).read_text())["records"] == 240
    result = harvest(client, out=out, format="jsonl", fields=FIELDS, chunk_size=120, page_size=40)
    assert result.resumed and result.done
    assert read_records(out, "jsonl") == read_records(whole, "jsonl")


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_resume_after_a_crash_between_a_chunk_and_its_checkpoint(client, expected, tmp_path, monkeypatch, fmt):
    out = tmp_path / ("papers" if fmt == "parquet" else "papers.jsonl")
    real = harvest_module.write_json_atomically
    calls = {"n": 0}

    def crash_on_third_checkpoint(path, value, *store):
        calls["n"] += 1
        if calls["n"] == 4:  # the initial checkpoint, two chunks, then the third chunk's
            raise KeyboardInterrupt
        real(path, value, *store)

    monkeypatch.setattr(harvest_module, "write_json_atomically", crash_on_third_checkpoint)
    with pytest.raises(KeyboardInterrupt):
        harvest(client, out=out, format=fmt, fields=FIELDS, chunk_size=100, page_size=100)
    monkeypatch.setattr(harvest_module, "write_json_atomically", real)
    # The third chunk reached the disk without its checkpoint: it does not count...
    assert len(ids(out, fmt)) == 200
    # ...and it is not written twice.
    result = harvest(client, out=out, format=fmt, fields=FIELDS, chunk_size=100, page_size=100)
    assert result.records == 600 and ids(out, fmt) == expected


def test_an_exception_from_the_progress_hook_interrupts_cleanly(client, expected, tmp_path):
    out = tmp_path / "papers"

    def stop(result):
        if result.chunks == 3:
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError):
        harvest(client, out=out, fields=FIELDS, chunk_size=50, page_size=50, on_chunk=stop)
    assert len(ids(out, "parquet")) == 150
    harvest(client, out=out, fields=FIELDS, chunk_size=50, page_size=50)
    assert ids(out, "parquet") == expected


def test_limit_and_chunks_round_up_to_pages(client, expected, tmp_path):
    out = tmp_path / "some.jsonl"
    result = harvest(client, out=out, format="jsonl", fields=FIELDS, chunk_size=70, page_size=50, limit=230)
    assert result.records == 230 and result.chunks == 3  # chunks of 100, 100, 30
    assert ids(out, "jsonl") == expected[:230]


def test_a_checkpoint_of_other_parameters_is_refused(client, tmp_path):
    out = tmp_path / "papers.jsonl"
    harvest(client, out=out, format="jsonl", fields=FIELDS, limit=10, page_size=10)
    with pytest.raises(HarvestError, match="other parameters"):
        harvest(client, "learning", out=out, format="jsonl", fields=FIELDS, limit=10, page_size=10)
    stray = tmp_path / "stray.jsonl"
    stray.write_text("{}\n")
    with pytest.raises(HarvestError, match="not a resumable harvest"):
        harvest(client, out=stray, format="jsonl")


def test_a_parquet_harvest_of_the_schema_per_chunk_format_is_not_continued(client, tmp_path):
    """Parts written by a version-2 checkpoint took their columns from their own records: continuing
    such a harvest would mix two schemas in one dataset, so it is refused with what to do."""
    out = tmp_path / "papers"
    kwargs = dict(format="parquet", fields=FIELDS, chunk_size=100, page_size=50, limit=300)

    def stop(result):
        if result.chunks == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        harvest(client, out=out, on_chunk=stop, **kwargs)
    ckpt = checkpoint_beside(out)
    state = json.loads(ckpt.read_text())
    assert state["version"] == 3
    ckpt.write_text(json.dumps({**state, "version": 2}))
    with pytest.raises(
        HarvestError, match=r"another version of paperlens \(checkpoint version 2, this one continues version 3\)"
    ):
        harvest(client, out=out, **kwargs)
    ckpt.write_text("[]")
    with pytest.raises(HarvestError, match=r"unreadable \(not a JSON object\)"):
        harvest(client, out=out, **kwargs)


def test_filters_and_progress(client, tmp_path, capsys):
    pytest.importorskip("tqdm")
    out = tmp_path / "recent"
    result = harvest(
        client,
        out=out,
        fields=FIELDS,
        filters=[paperlens.Filter("publication_published_year", ">=", 2020)],
        page_size=50,
        progress=True,
    )
    years = [r["publication_published_year"] for r in read_records(out)]
    assert result.records == len(years) > 0 and min(years) >= 2020
    assert "records" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_the_manifest_sits_beside_the_output(sandbox, client, tmp_path, fmt):
    pd = pytest.importorskip("pandas")
    out = tmp_path / ("papers" if fmt == "parquet" else "papers.jsonl")
    sandbox.clear_requests()
    result = harvest(client, out=out, format=fmt, fields=FIELDS, chunk_size=200, limit=450)
    assert result.manifest == harvest_module.manifest_path(out) == tmp_path / f"{out.name}.manifest.json"
    manifest = read_manifest(tmp_path, result.manifest.name)  # its request ids from the side file
    assert manifest["call"] == "harvest" and manifest["runs"] == 1 and manifest["finished"]
    assert manifest["parameters"]["fields"] == FIELDS and manifest["parameters"]["limit"] == 450
    assert manifest["parameters"]["format"] == fmt and manifest["total_count"] == 600
    assert manifest["counts"] == {"records": 450, "chunks": 3}
    assert manifest["request_ids"] == [r.headers["x-request-id"] for r in sandbox.requests()]
    assert manifest["sandbox"] == {"papers": 600, "seed": 0} and sandbox.token not in result.manifest.read_text()
    if fmt == "parquet":  # the directory holds part files only, so pandas reads it whole
        assert len(pd.read_parquet(out)) == 450
    # The same call continues (here: finds it done); another is refused.
    assert harvest(client, out=out, format=fmt, fields=FIELDS, chunk_size=200, limit=450).resumed
    with pytest.raises(HarvestError, match="limit=450 then 451"):
        harvest(client, out=out, format=fmt, fields=FIELDS, chunk_size=200, limit=451)
