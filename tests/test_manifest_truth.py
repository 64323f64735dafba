"""Manifests tell the truth: after an interruption and a resumed run their counts are what is on
disk, a run with nothing to do is not a run, and a snowball's network remembers its service."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from paperlens.corpus import harvest_corpus
from paperlens.errors import ServerError
from paperlens.harvest import harvest, manifest_path, read_records
from paperlens.sandbox import Sandbox
from paperlens.storage._manifest import read_manifest

from fixtures import sandbox_client
from kills import documents

pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def sandbox() -> Any:
    with Sandbox(papers=1200, seed=0) as sandbox:
        yield sandbox


class Stop(Exception):
    """Raised from ``on_chunk``: the caller interrupts the harvest."""


def manifest(path: Path) -> dict[str, Any]:
    """The manifest at ``path``, its request ids read from the side file."""
    read = read_manifest(path.parent, path.name)
    assert read is not None
    return read


def parquet_rows(directory: Path) -> int:
    return sum(pq.read_metadata(part).num_rows for part in directory.glob("part-*.parquet"))


def test_harvest_counts_after_interruptions_are_what_is_on_disk(sandbox, tmp_path):
    client = sandbox_client(sandbox, max_retries=0)
    out, where = tmp_path / "h", manifest_path(tmp_path / "h")
    search = {"out": out, "chunk_size": 200, "page_size": 100, "limit": 1000}

    def stop_at_two(result: Any) -> None:
        if result.chunks == 2:
            raise Stop

    with pytest.raises(Stop):
        harvest(client, None, **search, on_chunk=stop_at_two)
    first = manifest(where)
    assert first["counts"] == {"records": 400, "chunks": 2} and parquet_rows(out) == 400
    assert first["runs"] == 1 and first["finished"] is None

    def fault_after_one(result: Any) -> None:
        if result.chunks == 3:
            sandbox.inject_fault("/meta-search", 503)

    with pytest.raises(ServerError):
        harvest(client, None, **search, on_chunk=fault_after_one)
    second = manifest(where)
    assert second["counts"] == {"records": 600, "chunks": 3} and len(read_records(out)) == 600
    assert second["runs"] == 2 and len(second["request_ids"]) == 6

    sandbox.inject_fault("/meta-search", 503)
    with pytest.raises(ServerError):
        harvest(client, None, **search)  # fails before writing anything: not a run
    assert manifest(where) == second

    harvest(client, None, **search)
    done = manifest(where)
    assert done["counts"] == {"records": 1000, "chunks": 5} and len(read_records(out)) == parquet_rows(out) == 1000
    assert done["runs"] == 3 and done["finished"] and len(done["request_ids"]) == 10
    before = where.read_bytes()
    harvest(client, None, **search)
    assert where.read_bytes() == before


def test_corpus_counts_after_a_fault_mid_page_are_what_is_on_disk(sandbox, tmp_path):
    client = sandbox_client(sandbox, max_retries=0)
    out = tmp_path / "corpus"
    written = threading.Event()

    def fault_once_documents_are_written() -> None:
        # by progress, not by clock: the fault goes in once some documents of the first page are on disk
        while documents(out) < 20 and not written.is_set():
            written.wait(0.001)
        sandbox.inject_fault("/content", 503)

    watcher = threading.Thread(target=fault_once_documents_are_written)
    watcher.start()
    try:
        with pytest.raises(ServerError):
            harvest_corpus(client, out, limit=400)
    finally:
        written.set()
        watcher.join()
    interrupted = manifest(out / "manifest.json")
    assert interrupted["counts"]["texts"] == documents(out) >= 20
    assert interrupted["counts"]["records"] == parquet_rows(out / "records")
    assert interrupted["runs"] == 1 and interrupted["finished"] is None

    result = harvest_corpus(client, out, limit=400)
    done = manifest(out / "manifest.json")
    assert done["counts"]["texts"] == result.texts == documents(out)
    assert done["counts"]["records"] == parquet_rows(out / "records") == 400
    assert done["counts"]["missing_texts"] == 400 - documents(out)
    assert done["runs"] == 2 and done["finished"]
    before = (out / "manifest.json").read_bytes()
    harvest_corpus(client, out, limit=400)
    assert (out / "manifest.json").read_bytes() == before


def test_a_network_remembers_its_service_for_the_manifest(tmp_path):
    with Sandbox(papers=300, seed=4) as sandbox:
        client = sandbox_client(sandbox)
        seed = client.meta_search(None, page_size=1).results[0].unique_id
        network = client.snowball([seed], depth=1)
        base_url = client.base_url
    out = network.write(tmp_path / "network")  # the sandbox is gone: the network remembers it
    written = manifest(out / "manifest.json")
    assert written["base_url"] == base_url and written["sandbox"] == {"papers": 300, "seed": 4}
    assert written["runs"] == 1 and written["counts"]["nodes"] == len(network)
    before = (out / "manifest.json").read_bytes()
    network.write(out)
    assert (out / "manifest.json").read_bytes() == before
