"""Harvests when the machine misbehaves: two writers of one output, a full disk, a read-only
folder, a Ctrl-C. Real processes and real file systems (tmpfs mounts: see ``disks.py``)."""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from werkzeug import Response

import paperlens
from paperlens import cli
from paperlens.harvest import (
    HarvestError,
    HarvestWriteError,
    OutputInUseError,
    harvest,
    harvest_corpus,
    read_records,
)
from paperlens.harvests._harvesting import checkpoint_beside

from disks import Mounts
from fixtures import sandbox_client, strict_client  # noqa: F401 (the client fixture)

pytest.importorskip("pyarrow")

SANDBOX = dict(papers=200)
CHUNK = dict(chunk_size=50, page_size=50)
PACKAGE_ROOT = Path(paperlens.__file__).resolve().parent.parent
RESUMES = "run the same call again to resume"

# A harvest in its own process. It waits for the file `start`; once it holds the output (after
# its first chunk) it creates `holding-<pid>` and waits for `release`. Exit 3: the output was
# in use (the error printed as JSON).
CHILD = """
import json, os, sys, time
from pathlib import Path
import paperlens
from paperlens.harvest import OutputInUseError, harvest

base_url, token, out, query, signals = sys.argv[1:6]
signals = Path(signals)

def wait_for(name):
    deadline = time.monotonic() + 60
    while not (signals / name).exists():
        if time.monotonic() > deadline:
            sys.exit(f"{name} never came")
        time.sleep(0.005)

def hold(result):
    (signals / f"holding-{os.getpid()}").touch()
    wait_for("release")

wait_for("start")
client = paperlens.Client(api_token=token, base_url=base_url, rate_limits=None)
try:
    result = harvest(client, query or None, out=out, format="jsonl", chunk_size=50, page_size=50, on_chunk=hold)
except OutputInUseError as error:
    print(json.dumps({"message": str(error), "pid": error.pid, "host": error.host}))
    sys.exit(3)
print(json.dumps({"records": result.records}))
"""


@pytest.fixture
def mounts():
    made = Mounts()
    yield made
    made.close()


@pytest.fixture(scope="module")
def reference(sandbox, tmp_path_factory):
    """The records of one uninterrupted JSONL harvest of everything."""
    out = tmp_path_factory.mktemp("reference") / "all.jsonl"
    harvest(sandbox_client(sandbox), out=out, format="jsonl", **CHUNK)
    return read_records(out)


@pytest.fixture(scope="module")
def parquet_reference(sandbox, tmp_path_factory):
    """The records of one uninterrupted Parquet harvest of everything, as read back."""
    out = tmp_path_factory.mktemp("reference") / "parts"
    harvest(sandbox_client(sandbox), out=out, **CHUNK)
    return read_records(out)


def start_child(sandbox, tmp_path: Path, out: Path, query: str = "") -> subprocess.Popen[str]:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)}
    command = [sys.executable, str(script), sandbox.base_url, sandbox.token, str(out), query, str(tmp_path)]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_until(condition, what: str) -> None:
    """A handshake with a child process (not a timed assertion: the bound only ends a hang)."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, f"{what} never happened"
        time.sleep(0.005)


def finish(child: subprocess.Popen[str]) -> tuple[int, dict]:
    stdout, stderr = child.communicate(timeout=60)
    lines = stdout.strip().splitlines()
    assert lines, stderr
    return child.returncode, json.loads(lines[-1])


def holders(tmp_path: Path) -> list[int]:
    return [int(path.name.removeprefix("holding-")) for path in tmp_path.glob("holding-*")]


@pytest.mark.parametrize("other_query", ["", "coral"], ids=["same parameters", "other parameters"])
@pytest.mark.parametrize("together", [True, False], ids=["started together", "staggered"])
def test_a_second_writer_fails_at_once_and_the_first_writes_every_record_once(
    sandbox, client, tmp_path, together, other_query
):
    out = tmp_path / "h.jsonl"
    first = start_child(sandbox, tmp_path, out)
    queries = {first.pid: ""}
    if together:
        second = start_child(sandbox, tmp_path, out, other_query)
        queries[second.pid] = other_query
        (tmp_path / "start").touch()
        wait_until(lambda: first.poll() is not None or second.poll() is not None, "a child ending")
        loser, winner = (first, second) if first.poll() is not None else (second, first)
    else:
        (tmp_path / "start").touch()
        wait_until(lambda: holders(tmp_path) == [first.pid], "the first child holding the output")
        winner, loser = first, start_child(sandbox, tmp_path, out, other_query)
    code, refused = finish(loser)
    assert code == 3, refused
    wait_until(lambda: holders(tmp_path) == [winner.pid], "the winner holding the output")
    assert refused["pid"] == winner.pid and refused["host"] == socket.gethostname()
    assert str(out) in refused["message"] and f"pid {winner.pid}" in refused["message"]
    (tmp_path / "release").touch()
    code, done = finish(winner)
    alone = tmp_path / "alone.jsonl"
    harvest(client, queries[winner.pid] or None, out=alone, format="jsonl", **CHUNK)
    assert code == 0 and done["records"] == len(read_records(alone))
    assert read_records(out) == read_records(alone)
    assert not (tmp_path / "h.jsonl.lock").exists()


def test_the_lock_of_a_killed_writer_is_free(sandbox, client, reference, tmp_path):
    out = tmp_path / "h.jsonl"
    child = start_child(sandbox, tmp_path, out)
    (tmp_path / "start").touch()
    wait_until(lambda: holders(tmp_path) == [child.pid], "the child holding the output")
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    # The lock file stays, naming the dead holder; the operating system released its lock.
    assert json.loads((tmp_path / "h.jsonl.lock").read_text())["pid"] == child.pid
    result = harvest(client, out=out, format="jsonl", **CHUNK)
    assert result.resumed and result.done
    assert read_records(out) == reference


def test_a_lock_in_this_process_refuses_a_second_call_too(sandbox, client, tmp_path):
    out = tmp_path / "parts"
    seen = []

    def nested(result):
        if not seen:
            with pytest.raises(OutputInUseError) as refused:
                harvest(client, out=out, **CHUNK)
            seen.append(refused.value)

    harvest(client, out=out, on_chunk=nested, **CHUNK)
    assert seen[0].pid == os.getpid() and isinstance(seen[0], HarvestError)


def lines_are_whole(out: Path) -> list[dict]:
    """Every line of the JSONL file parses (what pandas.read_json(lines=True) needs)."""
    data = out.read_bytes() if out.exists() else b""
    assert data == b"" or data.endswith(b"\n")
    return [json.loads(line) for line in data.splitlines()]


def test_a_full_disk_leaves_jsonl_readable_at_every_point_and_the_rerun_completes(client, reference, tmp_path, mounts):
    disk = tmp_path / "disk"
    whole = sum(len(json.dumps(r, ensure_ascii=False)) + 1 for r in reference)
    failures = 0
    for size in range(4096, whole + 64 * 1024, 20 * 1024):
        mounts.tmpfs(disk, size)
        out = disk / "h.jsonl"
        try:
            harvest(client, out=out, format="jsonl", **CHUNK)
        except HarvestWriteError as error:
            failures += 1
            assert error.errno == errno.ENOSPC and isinstance(error, OSError)
            assert str(out) in str(error) and RESUMES in str(error) and ".tmp" not in str(error)
            kept = lines_are_whole(out)
            assert kept == reference[: len(kept)]
            state = checkpoint_beside(out)
            assert out.stat().st_size == (json.loads(state.read_text())["bytes"] if state.exists() else 0)
            mounts.resize(disk, 4 << 20)
            assert harvest(client, out=out, format="jsonl", **CHUNK).done
        assert lines_are_whole(out) == reference
        mounts.unmount(disk)
    assert failures >= 20


def test_a_full_disk_during_a_parquet_harvest_says_what_to_do(client, parquet_reference, tmp_path, mounts):
    disk, size, failures = tmp_path / "disk", 4096, 0
    while True:  # failure points from the first file on, until the disk is large enough
        mounts.tmpfs(disk, size)
        out = disk / "parts"
        try:
            harvest(client, out=out, **CHUNK)
        except HarvestWriteError as error:
            failures += 1
            assert error.errno == errno.ENOSPC and error.out == out
            assert str(error).startswith(f"cannot write {out}: ") and RESUMES in str(error)
            mounts.resize(disk, 8 << 20)
            assert harvest(client, out=out, **CHUNK).done
            assert read_records(out) == parquet_reference
            mounts.unmount(disk)
            size += 8192
            continue
        assert read_records(out) == parquet_reference
        break
    assert failures >= 8


@pytest.mark.parametrize("size", [4096, 12 * 1024, 64 * 1024, 160 * 1024])
def test_a_full_disk_during_a_corpus_harvest_says_what_to_do(client, tmp_path, mounts, size):
    expected = harvest_corpus(client, tmp_path / "whole", limit=60)
    disk = mounts.tmpfs(tmp_path / "disk", size)
    out = disk / "corpus"
    with pytest.raises(HarvestWriteError) as failed:
        harvest_corpus(client, out, limit=60)
    assert failed.value.errno == errno.ENOSPC and str(out) in str(failed.value) and ".tmp" not in str(failed.value)
    mounts.resize(disk, 16 << 20)
    again = harvest_corpus(client, out, limit=60)
    assert again.done and (again.records, again.texts) == (expected.records, expected.texts)
    assert read_records(out / "records") == read_records(tmp_path / "whole" / "records")


def test_a_read_only_folder_is_named_with_its_errno(client, tmp_path, mounts):
    disk = mounts.tmpfs(tmp_path / "disk", 1 << 20)
    mounts.read_only(disk)
    for call, out in [
        (lambda out: harvest(client, out=out, format="jsonl"), disk / "h.jsonl"),
        (lambda out: harvest(client, out=out), disk / "parts"),
        (lambda out: harvest_corpus(client, out, limit=5), disk / "corpus"),
        (lambda out: client.snowball(["W4000000000"], checkpoint=out), disk / "snowball.jsonl"),
    ]:
        with pytest.raises(HarvestWriteError) as failed:
            call(out)
        assert failed.value.errno == errno.EROFS and failed.value.filename == str(out)
        assert str(failed.value).startswith(f"cannot write {out}: Read-only file system [Errno {errno.EROFS}]")


def test_an_unwritable_parent_is_named_by_the_output_not_a_temporary_file(client, tmp_path, mounts):
    disk = mounts.tmpfs(tmp_path / "disk", 1 << 20)
    (disk / "corpus").mkdir()
    mounts.read_only(disk)
    writable = tmp_path / "writable"
    writable.mkdir()
    mounts.bind(writable, disk / "corpus")
    with pytest.raises(HarvestWriteError) as failed:
        harvest_corpus(client, disk / "corpus", limit=5)
    assert str(failed.value).startswith(f"cannot write {disk / 'corpus'}: ")
    assert ".checkpoint.json." not in str(failed.value)


def test_a_file_given_as_a_parquet_output_is_a_file(client, tmp_path):
    out = tmp_path / "h.jsonl"
    out.write_text("mine\n")
    with pytest.raises(HarvestError, match="is a file; format='parquet' writes part files into a directory"):
        harvest(client, out=out)
    assert out.read_text() == "mine\n"


def test_an_empty_jsonl_without_its_first_checkpoint_starts_over(client, reference, tmp_path):
    out = tmp_path / "h.jsonl"
    out.touch()  # what a disk full at the first checkpoint left
    result = harvest(client, out=out, format="jsonl", **CHUNK)
    assert result.done and not result.resumed and read_records(out) == reference


def test_a_ctrl_c_says_that_the_same_call_resumes_and_jsonl_stays_whole(client, reference, tmp_path, capsys):
    out = tmp_path / "h.jsonl"

    def interrupt(result):
        if result.chunks == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as stopped:
        harvest(client, out=out, format="jsonl", on_chunk=interrupt, **CHUNK)
    if sys.version_info >= (3, 11):
        assert any(RESUMES in note for note in stopped.value.__notes__)
    else:  # no exception notes: a line on stderr
        assert RESUMES in capsys.readouterr().err
    assert lines_are_whole(out) == reference[:100]
    assert harvest(client, out=out, format="jsonl", **CHUNK).resumed
    assert read_records(out) == reference


def test_the_cli_prints_the_same_sentence_and_exits_7(sandbox, tmp_path, mounts, monkeypatch, capsys):
    monkeypatch.setenv("PAPERLENS_API_TOKEN", sandbox.token)
    monkeypatch.setenv("PAPERLENS_BASE_URL", sandbox.base_url)
    disk = mounts.tmpfs(tmp_path / "disk", 1 << 20)
    mounts.read_only(disk)
    out = disk / "h.jsonl"
    code = cli.main(["harvest", "--format", "jsonl", "--limit", "10", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == cli.EXIT_OUTPUT == 8
    assert f"paperlens harvest: HarvestWriteError: cannot write {out}: Read-only file system" in err
    assert RESUMES in err


def test_a_ctrl_c_of_the_cli_says_that_the_same_command_resumes(httpserver, tmp_path):
    """A harvest waiting on a hung service gets SIGINT: exit 130 and the sentence."""
    entered, leave = threading.Event(), threading.Event()

    def hang(request):
        entered.set()
        leave.wait(60)
        return Response("{}", status=503)

    httpserver.expect_request("/meta-search").respond_with_handler(hang)
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT), "PAPERLENS_API_TOKEN": "sk-test"}
    env["PAPERLENS_BASE_URL"] = httpserver.url_for("")
    command = [sys.executable, "-m", "paperlens", "harvest", "--format", "jsonl", "--out", str(tmp_path / "h.jsonl")]
    child = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert entered.wait(60), "the harvest never sent its request"
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        leave.set()
    assert child.returncode == cli.EXIT_INTERRUPTED
    assert "paperlens harvest: interrupted; run the same command again to resume" in err


def test_a_download_into_a_read_only_folder_keeps_its_errno(client, tmp_path, mounts):
    texts = (client.read_text(r.doc_id) for r in client.meta_search(None, page_size=50).results if r.doc_id)
    name = next(m.group(1) for text in texts if (m := re.search(r"!\[[^\]]*\]\(([^)\s]+)", text)))
    disk = mounts.tmpfs(tmp_path / "disk", 1 << 20)
    mounts.read_only(disk)
    with pytest.raises(paperlens.ResourceWriteError) as failed:
        client.download_resource(name, disk / "figure.png")
    assert failed.value.errno == errno.EROFS and str(disk) in str(failed.value)


def test_a_bad_argument_leaves_no_lock_and_no_folder(client, tmp_path):
    with pytest.raises(ValueError, match="chunk_size"):
        harvest(client, out=tmp_path / "new" / "deeper" / "h.jsonl", format="jsonl", chunk_size=0)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("given", [42, b"h.jsonl", "", ["h.jsonl"]], ids=repr)
@pytest.mark.parametrize("workflow", ["harvest", "harvest_corpus", "snowball"])
def test_an_output_that_is_no_path_is_refused_before_any_request(
    sandbox, client, tmp_path, monkeypatch, workflow, given
):
    monkeypatch.chdir(tmp_path)
    calls = {
        "harvest": lambda: harvest(client, query="coral", out=given, format="jsonl"),
        "harvest_corpus": lambda: harvest_corpus(client, given, query="coral"),
        "snowball": lambda: client.snowball(["W1"], checkpoint=given),
    }
    param = "checkpoint" if workflow == "snowball" else "out"
    sandbox.clear_requests()
    with pytest.raises(paperlens.ValidationError) as caught:
        calls[workflow]()
    assert str(caught.value) == f"{param}: must be a path (a non-empty str or os.PathLike, without NUL) (got {given!r})"
    assert caught.value.param == param
    assert sandbox.requests() == [] and list(tmp_path.iterdir()) == []
