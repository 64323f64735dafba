"""Harvests into fsspec URLs: an S3 API on loopback (moto's server, a subprocess on a free
port, dummy credentials) and fsspec's memory file system. What lands there, read back with
pyarrow and DuckDB, holds the values and text bytes a local run writes; an interrupted run
resumes; a second run into the same URL on this machine is refused."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import paperlens
from paperlens.harvest import OutputInUseError, harvest, harvest_corpus, read_records
from paperlens.storage._output_guard import OutputLock

from fixtures import sandbox_client

pd = pytest.importorskip("pandas")
pq = pytest.importorskip("pyarrow.parquet")
fsspec = pytest.importorskip("fsspec")
pytest.importorskip("s3fs")

SANDBOX = dict(papers=260)
LIMIT = 220


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def s3(tmp_path_factory) -> Iterator[Any]:
    """An S3 API on loopback (moto's server mode) with a bucket; the environment points
    boto/s3fs at it with dummy credentials. Yields an s3fs file system of it."""
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    log = tmp_path_factory.mktemp("moto") / "server.log"
    with open(log, "wb") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], stdout=sink, stderr=sink
        )
    env = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
    }
    before = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        import s3fs

        fs = s3fs.S3FileSystem(client_kwargs={"endpoint_url": endpoint}, skip_instance_cache=True)
        fs.mkdir("corpora")
        yield fs
    finally:
        server.terminate()
        server.wait(timeout=30)
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(scope="module")
def local(sandbox, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("local") / "corpus"
    harvest_corpus(sandbox_client(sandbox, max_retries=0), out, figures=True, limit=LIMIT)
    return out


def local_files(out: Path) -> dict[str, bytes]:
    """The files of ``out`` but the side file of the manifest's request ids (they differ from
    run to run; an object store holds them in segments)."""
    files = (p for p in out.rglob("*") if p.is_file() and ".requests." not in p.name)
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in files}


def remote_files(fs: Any, root: str) -> dict[str, bytes]:
    fs.invalidate_cache()
    return {path[len(root) + 1 :]: fs.cat_file(path) for path in fs.find(root) if ".requests." not in path}


def without_times(manifest: bytes) -> dict[str, Any]:
    data = json.loads(manifest)
    for volatile in ("started", "finished", "runs", "requests"):
        data.pop(volatile)
    data["run_entries"] = [
        {**entry, "started": None, "finished": None, "requests": None} for entry in data["run_entries"]
    ]
    return data


def test_a_corpus_harvest_into_s3_holds_what_a_local_run_writes(sandbox, s3, local):
    url = "s3://corpora/reefs"
    result = harvest_corpus(sandbox_client(sandbox, max_retries=0), url, figures=True, limit=LIMIT)
    assert result.done and result.url == url and result.texts > 100
    written, expected = remote_files(s3, "corpora/reefs"), local_files(local)
    assert set(written) == set(expected)
    for name, data in expected.items():
        if name == "manifest.json":
            assert without_times(written[name]) == without_times(data)
        elif not name.startswith("records/"):
            assert written[name] == data, name  # texts and figures, byte for byte
    # The records read back from S3 by pyarrow and by DuckDB hold the local run's values.
    frame = pq.read_table("corpora/reefs/records", filesystem=s3).to_pandas()
    local_frame = pd.read_parquet(local / "records")
    pd.testing.assert_frame_equal(frame, local_frame)
    duckdb = pytest.importorskip("duckdb")
    connection = duckdb.connect()
    connection.register_filesystem(s3)  # DuckDB reads s3:// through s3fs (its httpfs needs a download)
    query = "SELECT * FROM read_parquet('{}/records/*.parquet') ORDER BY unique_id"
    rows = connection.execute(query.format(url)).fetchall()
    assert rows == connection.execute(query.format(local)).fetchall() and len(rows) == LIMIT
    # Run again: finished, nothing fetched.
    sandbox.clear_requests()
    again = harvest_corpus(sandbox_client(sandbox, max_retries=0), url, figures=True, limit=LIMIT)
    assert again.done and again.resumed and sandbox.requests() == []


def test_an_interrupted_harvest_into_a_url_resumes_to_the_same_files(sandbox, local):
    url = "memory://interrupted/corpus"
    client = sandbox_client(sandbox, max_retries=0)
    sandbox.inject_fault("/content", delay=0.0, times=90)
    sandbox.inject_fault("/content", status=500)
    with pytest.raises(paperlens.ServerError):
        harvest_corpus(client, url, figures=True, limit=LIMIT)
    fs = fsspec.filesystem("memory")
    assert fs.exists("/interrupted/corpus.checkpoint.json")
    result = harvest_corpus(client, url, figures=True, limit=LIMIT)
    assert result.resumed and result.done
    written, expected = remote_files(fs, "/interrupted/corpus"), local_files(local)
    assert set(written) == set(expected)
    for name, data in expected.items():
        if name == "manifest.json":
            assert without_times(written[name]) == without_times(data)
        else:
            assert written[name] == data, name


def test_a_metadata_harvest_into_s3_holds_the_records_of_a_local_one(sandbox, s3, tmp_path):
    client = sandbox_client(sandbox, max_retries=0)
    harvest(client, out=tmp_path / "local", chunk_size=100, page_size=100, limit=250)
    url = "s3://corpora/metadata"
    result = harvest(client, out=url, chunk_size=100, page_size=100, limit=250)
    assert result.done and result.chunks == 3 and result.url == url
    assert sorted(s3.ls("corpora/metadata", detail=False)) == [
        f"corpora/metadata/part-0000{i}.parquet" for i in range(3)
    ]
    frame = pq.read_table("corpora/metadata", filesystem=s3).to_pandas()
    pd.testing.assert_frame_equal(frame, pd.read_parquet(tmp_path / "local"))
    assert len(read_records(tmp_path / "local")) == len(frame) == 250
    checkpoint = json.loads(s3.cat_file("corpora/metadata.checkpoint.json"))
    assert checkpoint["records"] == 250 and checkpoint["next"] is None
    assert json.loads(s3.cat_file("corpora/metadata.manifest.json"))["counts"] == {"records": 250, "chunks": 3}


def test_read_records_reads_a_url_as_a_local_output(sandbox, s3, local, tmp_path):
    client = sandbox_client(sandbox, max_retries=0)
    url = "s3://corpora/read-back"
    harvest(client, out=url, chunk_size=100, limit=250)
    harvest(client, out=tmp_path / "local", chunk_size=100, limit=250)
    remote = read_records(url)
    assert remote == read_records(tmp_path / "local") and len(remote) == 250
    assert remote == [r.to_dict() for r in client.iter_meta_search(None, limit=250)]
    harvest_corpus(client, "s3://corpora/read-back-corpus", limit=LIMIT)
    assert read_records("s3://corpora/read-back-corpus/records") == read_records(local / "records")
    with pytest.raises(FileNotFoundError, match="s3://corpora/nothing-here"):
        read_records("s3://corpora/nothing-here")


def test_read_records_of_an_interrupted_url_harvest_reads_what_its_checkpoint_counts(sandbox, tmp_path):
    url = "memory://interrupted/metadata"
    client = sandbox_client(sandbox, max_retries=0)
    harvest(client, out=url, chunk_size=100, limit=200)
    fs = fsspec.filesystem("memory")
    parts = fs.find("/interrupted/metadata")
    assert parts == ["/interrupted/metadata/part-00000.parquet"]
    # a part written after the checkpoint's last save (a run killed between the two)
    fs.pipe_file("/interrupted/metadata/part-00001.parquet", fs.cat_file(parts[0]))
    assert read_records(url) == [r.to_dict() for r in client.iter_meta_search(None, limit=200)]


def test_jsonl_into_a_url_is_refused_before_any_request(sandbox):
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError, match=r"out.*parquet"):
        harvest(sandbox_client(sandbox, max_retries=0), out="memory://refused/records.jsonl", format="jsonl")
    assert sandbox.requests() == []


def test_a_second_run_into_the_same_url_on_this_machine_is_refused(sandbox):
    url = "memory://locked/corpus"
    holder = OutputLock(url)
    holder.acquire()
    try:
        with pytest.raises(OutputInUseError, match="memory://locked/corpus") as caught:
            harvest_corpus(sandbox_client(sandbox, max_retries=0), url, limit=5)
        assert caught.value.pid == os.getpid()
    finally:
        holder.release()
    assert harvest_corpus(sandbox_client(sandbox, max_retries=0), url, limit=5).done


def test_the_command_line_harvests_into_a_url(sandbox, monkeypatch, capsys):
    from paperlens.cli import main

    monkeypatch.setenv("PAPERLENS_API_TOKEN", sandbox.token)
    monkeypatch.setenv("PAPERLENS_BASE_URL", sandbox.base_url)
    assert main(["harvest", "--out", "memory://cli/records", "--limit", "30", "--no-progress"]) == 0
    assert "30 records in 1 chunks written to memory://cli/records" in capsys.readouterr().out
    table = pq.read_table("/cli/records", filesystem=fsspec.filesystem("memory"))
    expected = [record.unique_id for record in sandbox_client(sandbox, max_retries=0).iter_meta_search(None, limit=30)]
    assert table.column("unique_id").to_pylist() == expected
