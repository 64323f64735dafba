"""Manifests that grow with the run, not with its square: request ids appended to a side file,
the manifest itself rewritten at run boundaries (and every few minutes), memory flat; manifests
of version 1 (ids inline) stay readable and are continued."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path, PurePath
from typing import Any

import pytest

from paperlens.harvest import harvest, manifest_path, read_records
from paperlens.harvests._harvesting import checkpoint_beside
from paperlens.storage._manifest import ManifestRecorder, read_manifest
from paperlens.storage._store import LocalStore

from fixtures import harvested_growing, sandbox_client

pytest.importorskip("pyarrow")

SANDBOX = dict(papers=500)


class CountingStore(LocalStore):
    """A local store that counts the bytes of every object it writes whole."""

    def __init__(self) -> None:
        self.written = 0
        self.writes = 0

    def write(self, path: PurePath, fill: Any, *, prefix: str) -> None:
        def counted(file: Any) -> None:
            start = file.tell()
            fill(file)
            self.written += file.tell() - start

        self.writes += 1
        super().write(path, counted, prefix=prefix)


class Service:
    base_url = "https://api.example.org"


def test_a_100000_document_run_writes_its_manifest_within_a_small_multiple_of_its_final_size(tmp_path):
    store = CountingStore()
    recorder = ManifestRecorder(tmp_path, "harvest_corpus", {"query": "reefs"}, Service(), store=store)
    recorder.save_every = 0  # the worst case: a save after every page
    pages, per_page = 500, 200
    tracemalloc.start()
    try:
        for page in range(pages):
            recorder.request(f"page-{page:06d}-8c9d0f1e-2a3b-4c5d-9e8f")
            for document in range(per_page):
                recorder.request(f"text-{page * per_page + document:09d}-7b6a-4c3d-8e9f")
            recorder.count("records", (page + 1) * per_page)
            recorder.save_if_due()
        recorder.save(finished=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    log = tmp_path / "manifest.requests.jsonl"
    final = (tmp_path / "manifest.json").stat().st_size + log.stat().st_size
    written = store.written + log.stat().st_size  # the side file is only ever appended to
    assert store.writes == pages + 1
    assert final <= written <= 2 * final
    # Memory stays flat: far less than the ids themselves (about 5 MB of them).
    assert peak < 1_000_000 < log.stat().st_size
    manifest = read_manifest(tmp_path)
    assert manifest is not None and manifest["requests"] == len(manifest["request_ids"]) == pages * (per_page + 1)
    assert manifest["request_ids"][:2] == ["page-000000-8c9d0f1e-2a3b-4c5d-9e8f", "text-000000000-7b6a-4c3d-8e9f"]
    assert manifest["counts"] == {"records": pages * per_page}


def test_within_a_run_the_manifest_is_saved_every_few_minutes_not_every_page(sandbox, tmp_path, monkeypatch):
    import paperlens.storage._manifest as manifests

    saves: list[int] = []
    write = LocalStore.write

    def counted(self: LocalStore, path: PurePath, fill: Any, *, prefix: str) -> None:
        if path.name.endswith("manifest.json"):
            saves.append(1)
        write(self, path, fill, prefix=prefix)

    monkeypatch.setattr(LocalStore, "write", counted)
    monkeypatch.setattr(manifests, "SAVE_EVERY", 3600.0)
    out = tmp_path / "papers"
    sandbox.clear_requests()
    harvest(sandbox_client(sandbox), None, out=out, page_size=20, chunk_size=20)
    assert len(saves) == 2  # its start and its end, not 25 pages
    manifest = read_manifest(tmp_path, manifest_path(out).name)
    assert manifest is not None
    assert manifest["request_ids"] == [r.headers["x-request-id"] for r in sandbox.requests()]
    assert manifest["counts"] == {"records": 500, "chunks": 25} and manifest["finished"]


def test_a_crash_between_a_chunk_and_its_checkpoint_leaves_no_request_id_of_a_page_not_kept(
    sandbox, tmp_path, monkeypatch
):
    import paperlens.harvests.harvest as harvesting

    out = tmp_path / "papers"
    real = harvesting.write_json_atomically
    calls = {"n": 0}

    def crash_on_the_third_checkpoint(path: Any, value: Any, store: Any = None) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        real(path, value) if store is None else real(path, value, store)

    sandbox.clear_requests()
    monkeypatch.setattr(harvesting, "write_json_atomically", crash_on_the_third_checkpoint)
    with pytest.raises(OSError):
        harvest(sandbox_client(sandbox), None, out=out, page_size=100, chunk_size=100)
    monkeypatch.setattr(harvesting, "write_json_atomically", real)
    lost = sandbox.requests()[-1].headers["x-request-id"]  # its page was never checkpointed
    harvest(sandbox_client(sandbox), None, out=out, page_size=100, chunk_size=100)
    manifest = read_manifest(tmp_path, manifest_path(out).name)
    assert manifest is not None
    sent = [r.headers["x-request-id"] for r in sandbox.requests()]
    assert manifest["request_ids"] == [request_id for request_id in sent if request_id != lost]
    assert len(manifest["request_ids"]) == manifest["requests"] == 5
    assert len(read_records(out)) == 500


def as_version_1(out: Path) -> dict[str, Any]:
    """Rewrites the manifest and checkpoint of the harvest at ``out`` as paperlens wrote them
    before run entries and side files (ids inline, no run in the checkpoint)."""
    where = manifest_path(out)
    manifest = read_manifest(where.parent, where.name)
    assert manifest is not None
    for name in ("request_log", "requests", "run_entries"):
        manifest.pop(name)
    manifest["manifest_version"] = 1
    where.write_text(json.dumps(manifest, indent=2))
    where.with_name(where.name.removesuffix(".json") + ".requests.jsonl").unlink()
    state = json.loads(checkpoint_beside(out).read_text())
    for name in ("run", "request_log"):
        state.pop(name)
    checkpoint_beside(out).write_text(json.dumps(state))
    return manifest


def test_a_version_1_manifest_stays_readable_and_is_updated(tmp_path):
    out = tmp_path / "papers"
    with harvested_growing(out, papers=300) as (sandbox, client):
        old = as_version_1(out)
        assert read_manifest(tmp_path, manifest_path(out).name) == old  # version 1, read as it is
        held = read_records(out)
        assert read_records(out, run=-1) == held  # one run: the harvest
        sandbox.reveal()
        sandbox.clear_requests()
        result = harvest(client, None, out=out, page_size=100, update=True)
        assert result.added == 300 - len(held) == len(read_records(out, run=-1)) > 0
        updated = [r.headers["x-request-id"] for r in sandbox.requests()]
    manifest = read_manifest(tmp_path, manifest_path(out).name)
    assert manifest is not None and manifest["manifest_version"] == 2
    assert manifest["request_ids"] == old["request_ids"] + updated
    first, update = manifest["run_entries"]
    assert (first["kind"], first["added"], first["requests"], first["started"]) == (
        "harvest",
        len(held),
        len(old["request_ids"]),
        old["started"],
    )
    assert (update["kind"], update["added"], update["requests"]) == ("update", result.added, len(updated))
