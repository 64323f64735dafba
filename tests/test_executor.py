"""Corpus harvests on executors: worker processes of a ProcessPoolExecutor (spawn and fork),
joblib's loky executor and a Dask LocalCluster fetch the documents; the driver writes. The
output folder equals a run without executor file for file, byte for byte; an error of a
worker arrives as the same paperlens exception, and the run resumed afterwards ends as an
uninterrupted one."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import paperlens
from paperlens.harvest import harvest, harvest_corpus
from paperlens.harvests._executor import in_order

from corpus_files import corpus_files
from fixtures import sandbox_client, sandbox_environment
from kills import kill_at

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

SANDBOX = dict(papers=300)
LIMIT = 230  # two pages of records, the second cut by the limit


@pytest.fixture(scope="module")
def plain(sandbox, tmp_path_factory):
    """The files of a run without executor."""
    out = tmp_path_factory.mktemp("plain") / "corpus"
    result = harvest_corpus(sandbox_client(sandbox, max_retries=0), out, figures=True, limit=LIMIT)
    assert result.done and result.texts > 100 and result.figures > 100
    return corpus_files(out, request_counts=True)


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        yield client


@pytest.mark.parametrize("method", ["spawn", "fork", "forkserver"])
def test_a_process_pool_writes_what_a_plain_run_writes(sandbox, plain, tmp_path, method):
    client = sandbox_client(sandbox, max_retries=0)
    client.meta_catalog()  # a client that has sent a request before its process forks
    out = tmp_path / "corpus"
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context(method)) as pool:
        result = harvest_corpus(client, out, figures=True, limit=LIMIT, executor=pool)
    assert result.done and not result.resumed
    assert corpus_files(out, request_counts=True) == plain


def test_a_dask_local_cluster_writes_what_a_plain_run_writes(sandbox, plain, dask_client, tmp_path):
    out = tmp_path / "corpus"
    result = harvest_corpus(
        sandbox_client(sandbox, max_retries=0), out, figures=True, limit=LIMIT, executor=dask_client
    )
    assert result.done
    assert corpus_files(out, request_counts=True) == plain
    # The documents were fetched by the workers' processes, not this one.
    workers = {info["id"] for info in dask_client.scheduler_info()["workers"].values()}
    assert len(workers) == 2


def test_joblibs_loky_executor_writes_what_a_plain_run_writes(sandbox, plain, tmp_path):
    loky = pytest.importorskip("joblib.externals.loky")
    out = tmp_path / "corpus"
    harvest_corpus(
        sandbox_client(sandbox, max_retries=0), out, figures=True, limit=LIMIT, executor=loky.get_reusable_executor(2)
    )
    assert corpus_files(out, request_counts=True) == plain


def test_an_error_on_a_worker_is_the_same_exception_and_the_resumed_run_ends_as_a_plain_one(
    sandbox, plain, dask_client, tmp_path
):
    out = tmp_path / "corpus"
    client = sandbox_client(sandbox, max_retries=0)
    # Some documents are written, then a worker's /content answers 500 (no retries).
    sandbox.inject_fault("/content", delay=0.0, times=60)  # answered normally: documents pile up in flight
    sandbox.inject_fault("/content", status=500)
    with pytest.raises(paperlens.ServerError) as caught:
        harvest_corpus(client, out, figures=True, limit=LIMIT, executor=dask_client)
    assert caught.value.status == 500 and caught.value.request_id
    written = len(list((out / "documents").iterdir()))
    assert written >= 60 - 32  # what came before the failure in order is on disk
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        result = harvest_corpus(client, out, figures=True, limit=LIMIT, executor=pool)
    assert result.resumed and result.done
    assert corpus_files(out, request_counts=True) == plain


HARVEST = """
import multiprocessing, sys
from concurrent.futures import ProcessPoolExecutor
import paperlens
from paperlens.harvest import harvest_corpus
client = paperlens.Client(rate_limits=None, max_retries=0)
with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
    assert harvest_corpus(client, sys.argv[1], figures=True, limit=int(sys.argv[2]), executor=pool).done
"""


def start(sandbox: Any, out: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-c", HARVEST, str(out), str(LIMIT)]
    # A session of its own: the kill takes the driver and its worker processes at once.
    return subprocess.Popen(command, env=sandbox_environment(sandbox), stderr=subprocess.PIPE, start_new_session=True)


def across_processes(files: dict[str, Any]) -> dict[str, Any]:
    """``files`` without what a run in another process records otherwise: the sandbox's corpus
    (known to the process running it), and the request ids (a killed run's manifest lacks
    those of the documents it wrote after its last save)."""
    hidden = {"requests": None, "sandbox": None}
    entries = {"run_entries": [{**e, "requests": None} for e in files["manifest.json"]["run_entries"]]}
    shown = {name: {**data, **hidden, **entries} if name == "manifest.json" else data for name, data in files.items()}
    shown["manifest.requests.jsonl"] = None
    return shown


@pytest.mark.parametrize("seed", [1, 2])
def test_a_harvest_on_workers_killed_at_random_moments_ends_as_a_plain_one(sandbox, plain, tmp_path, seed):
    out = tmp_path / "corpus"
    rng = random.Random(seed)
    total = sum(1 for name in plain if name.endswith("/text.md"))
    points = sorted(rng.sample(range(total), 3))
    _, states = kill_at(points, lambda: start(sandbox, out), out, rng, jitter=0.02, kill=os.killpg)
    process = start(sandbox, out)
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err.decode()
    assert states and max(states) > 0, states
    assert across_processes(corpus_files(out, request_counts=True)) == across_processes(plain)


def test_an_executor_needs_a_sync_client_and_a_submit_method(sandbox, tmp_path):
    async_client = paperlens.AsyncClient(api_token=sandbox.token, base_url=sandbox.base_url)
    with ThreadPoolExecutor(1) as pool, pytest.raises(paperlens.ValidationError, match="executor"):
        harvest_corpus(async_client, tmp_path / "a", executor=pool)  # type: ignore[call-overload]
    with pytest.raises(paperlens.ValidationError, match=r"executor.*submit"):
        harvest_corpus(sandbox_client(sandbox, max_retries=0), tmp_path / "b", executor=object())  # type: ignore[arg-type]
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_progress_counts_the_documents_an_executor_fetches(sandbox, tmp_path, capsys):
    pytest.importorskip("tqdm")
    with ThreadPoolExecutor(3) as pool:
        result = harvest_corpus(
            sandbox_client(sandbox, max_retries=0), tmp_path / "corpus", limit=37, progress=True, executor=pool
        )
    err = capsys.readouterr().err
    assert result.records == 37 and "37/37" in err and "documents" in err


def files(folder: Path) -> dict[str, Any]:
    """The files under ``folder`` by relative path: bytes, a manifest's JSON without its times
    and with the number of its request ids."""
    found: dict[str, Any] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data: Any = path.read_bytes()
            if path.name.endswith("manifest.json"):
                data = json.loads(data)
                for volatile in ("started", "finished", "runs"):
                    data.pop(volatile)
                data["run_entries"] = [{**entry, "started": None, "finished": None} for entry in data["run_entries"]]
            elif path.name.endswith(".requests.jsonl"):
                data = len(data.splitlines())  # the request ids differ from run to run
            found[path.relative_to(folder).as_posix()] = data
    return found


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_a_metadata_harvest_with_an_executor_writes_the_same_files_and_resumes(sandbox, tmp_path, fmt):
    client = sandbox_client(sandbox, max_retries=0)
    name = "records" if fmt == "parquet" else "records.jsonl"
    options: dict[str, Any] = dict(format=fmt, chunk_size=60, page_size=30, limit=290)
    harvest(client, out=tmp_path / "plain" / name, **options)

    def stop_after_two(result: Any) -> None:
        if result.chunks == 2:
            raise KeyboardInterrupt  # the next chunk is encoding on a worker meanwhile

    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        with pytest.raises(KeyboardInterrupt):
            harvest(client, out=tmp_path / "pool" / name, on_chunk=stop_after_two, executor=pool, **options)
        result = harvest(client, out=tmp_path / "pool" / name, executor=pool, **options)
    assert result.resumed and result.done and result.records == 290 and result.chunks == 5
    assert files(tmp_path / "pool") == files(tmp_path / "plain")


def test_in_order_keeps_the_order_and_at_most_a_window_ahead():
    pulled: list[int] = []
    consumed: list[int] = []
    ahead: list[int] = []
    lock = threading.Lock()

    def inputs() -> Iterator[tuple[int] | None]:
        for i in range(200):
            with lock:
                pulled.append(i)
                ahead.append(len(pulled) - len(consumed))
            yield None if i % 7 == 0 else (i % 50,)  # repeats: one task for equal arguments in flight

    with ThreadPoolExecutor(4) as pool:
        for i, result in enumerate(in_order(pool, lambda x: x * x, inputs(), 8)):
            assert result == (None if i % 7 == 0 else (i % 50) ** 2)
            consumed.append(i)
    assert consumed == list(range(200)) and max(ahead) <= 8 + 1
