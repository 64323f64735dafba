"""The output lock against hostile files and dead runs: planted links, a lock folder another
user made, workers forked during a run, a holder that died, one output under several names.
Real processes, real files, a real other uid where the test runs as root (as CI does)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

import paperlens
from paperlens.harvest import HarvestError, OutputInUseError, harvest, harvest_corpus, read_records
from paperlens.storage._output_guard import OutputLock, lock_folder, lock_path

from fixtures import strict_client  # noqa: F401 (the client fixture)
from other_user import as_nobody, needs_root, shared_folder

pytest.importorskip("pyarrow")
pytest.importorskip("fsspec")

SANDBOX = dict(papers=60)
PACKAGE_ROOT = Path(paperlens.__file__).resolve().parent.parent
VICTIM = b"the user's own file\n"


def run_python(code: str, *args: str, **options) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)}
    command = [sys.executable, "-c", textwrap.dedent(code), *args]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **options)


def wait_for(path: Path, child: subprocess.Popen[str]) -> None:
    """A handshake with a child (not a timed assertion: the bound only ends a hang)."""
    for _ in range(6000):
        if path.exists():
            return
        assert child.poll() is None, child.communicate()
        time.sleep(0.01)
    raise AssertionError(f"{path} never came")


@pytest.mark.parametrize("planted", ["symlink", "hard link", "fifo"])
def test_a_planted_lock_file_is_refused_and_its_target_left_untouched(sandbox, client, tmp_path, planted):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)
    out = tmp_path / "out.jsonl"
    lock = tmp_path / "out.jsonl.lock"
    if planted == "symlink":
        lock.symlink_to(victim)
    elif planted == "hard link":
        os.link(victim, lock)
    else:
        os.mkfifo(lock)
    sandbox.clear_requests()
    why = {"symlink": "is a symbolic link", "hard link": "has 2 hard links", "fifo": "is not a regular file"}[planted]
    with pytest.raises(HarvestError, match=f"the lock file {lock} {why}") as refused:
        harvest(client, out=out, format="jsonl")
    assert not isinstance(refused.value, OSError)
    assert victim.read_bytes() == VICTIM
    assert sandbox.requests() == [] and not out.exists()


def test_a_lock_folder_with_room_for_others_is_refused_then_made_private(sandbox, client, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = lock_folder()
    assert folder.parent == tmp_path
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    url = "memory://locks/mode"
    with pytest.raises(HarvestError, match=f"the lock folder {folder} has mode 0777, not 0700"):
        harvest_corpus(client, url, limit=3)
    folder.rmdir()
    assert harvest_corpus(client, url, limit=3).records == 3
    assert oct(folder.stat().st_mode & 0o777) == "0o700" and list(folder.iterdir()) == []


@needs_root
def test_a_lock_folder_another_user_made_first_is_refused_and_its_links_never_followed(sandbox, client, monkeypatch):
    with shared_folder() as base:
        victim = base / "victim.txt"
        victim.write_bytes(VICTIM)
        monkeypatch.setattr(tempfile, "tempdir", str(base))
        url = "memory://locks/other-user"
        folder, lock = lock_folder(), lock_path(url)
        assert lock.parent == folder
        # Another user, knowing the names, makes the folder open to all and plants a link.
        as_nobody('mkdir "$1" && chmod 777 "$1" && ln -s "$3" "$2"', str(folder), str(lock), str(victim))
        assert folder.stat().st_uid != 0 and lock.is_symlink()
        sandbox.clear_requests()
        with pytest.raises(HarvestError, match=f"the lock folder {folder} belongs to uid {folder.stat().st_uid}"):
            harvest_corpus(client, url, limit=3)
        assert victim.read_bytes() == VICTIM and sandbox.requests() == []


def test_workers_forked_during_a_run_never_hold_its_lock_and_the_rerun_starts_at_once(tmp_path):
    out = tmp_path / "out.jsonl"
    driver = run_python(
        """
        import json, multiprocessing, os, sys, time
        from concurrent.futures import ProcessPoolExecutor
        from pathlib import Path
        from paperlens.storage._output_guard import writing

        out, signals = Path(sys.argv[1]), Path(sys.argv[2])
        with writing(out):
            pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork"))
            busy = [pool.submit(time.sleep, 600) for _ in range(2)]
            while len(pool._processes) < 2:
                time.sleep(0.01)
            (signals / "workers.json").write_text(json.dumps(list(pool._processes)))
            (signals / "ready").touch()
            time.sleep(600)
        """,
        str(out),
        str(tmp_path),
    )
    workers: list[int] = []
    try:
        wait_for(tmp_path / "ready", driver)
        workers = json.loads((tmp_path / "workers.json").read_text())
        lock = tmp_path / "out.jsonl.lock"
        assert json.loads(lock.read_text())["pid"] == driver.pid
        # No worker has the lock file open: it was closed in each of them when forked.
        for pid in workers:
            opened = {os.path.realpath(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
            assert str(lock) not in opened
        inode = lock.stat().st_ino
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=60)
        for pid in workers:
            os.kill(pid, 0)  # the orphaned workers still run
        rerun = OutputLock(out)
        rerun.acquire()
        assert lock.stat().st_ino == inode  # free, not taken over
        assert json.loads(lock.read_text())["pid"] == os.getpid()
        rerun.release()
        assert not lock.exists()
    finally:
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if driver.poll() is None:
            driver.kill()
            driver.wait()


def holder_of(lock: Path, pid: int, tmp_path: Path) -> subprocess.Popen[str]:
    """A process that locks ``lock`` and records ``pid`` of this host as its holder."""
    holder = run_python(
        """
        import fcntl, json, os, socket, sys, time
        from pathlib import Path
        lock, pid, ready = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, json.dumps({"pid": pid, "host": socket.gethostname()}).encode())
        ready.touch()
        time.sleep(600)
        """,
        str(lock),
        str(pid),
        str(tmp_path / f"holding-{pid}"),
    )
    wait_for(tmp_path / f"holding-{pid}", holder)
    return holder


def test_a_lock_held_for_a_dead_run_is_taken_over_and_one_held_for_a_live_one_is_not(sandbox, client, tmp_path):
    out = tmp_path / "out.jsonl"
    lock = tmp_path / "out.jsonl.lock"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    orphan = holder_of(lock, dead.pid, tmp_path)
    try:
        done = harvest(client, out=out, format="jsonl")
        assert done.done and done.records == 60
        alone = tmp_path / "alone.jsonl"
        harvest(client, out=alone, format="jsonl")
        assert read_records(out) == read_records(alone)
        assert orphan.poll() is None  # still holding the old lock file, which no longer counts
    finally:
        orphan.kill()
        orphan.wait()
    alive = holder_of(lock, 1, tmp_path)  # pid 1 runs as long as the machine
    try:
        with pytest.raises(OutputInUseError, match=f"pid 1 on host {socket.gethostname()}") as refused:
            harvest(client, out=tmp_path / "out.jsonl", format="jsonl")
        assert refused.value.pid == 1
    finally:
        alive.kill()
        alive.wait()


def test_a_path_its_resolved_form_and_its_file_url_share_one_lock(sandbox, client, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    out = real / "corpus"
    names = [out, link / "corpus", f"file://{out}", f"file://{link}/corpus", str(real / "." / "corpus")]
    assert {lock_path(name) for name in names} == {real / "corpus.lock"}
    for held, other in [(str(out), f"file://{link}/corpus"), (f"file://{out}", str(link / "corpus"))]:
        holder = OutputLock(held)
        holder.acquire()
        try:
            with pytest.raises(OutputInUseError, match=f"pid {os.getpid()}"):
                harvest_corpus(client, other, limit=3)
        finally:
            holder.release()
    assert harvest_corpus(client, f"file://{link}/corpus", limit=3).records == 3
    assert harvest_corpus(client, out, limit=3).records == 3  # the same harvest, finished


def test_the_lock_of_a_url_is_named_by_its_hash_in_the_private_folder():
    url = "memory://bucket/prefix/"
    digest = hashlib.sha256(b"memory://bucket/prefix").hexdigest()[:32]
    assert lock_path(url) == lock_folder() / f"{digest}.lock"
    assert lock_folder().name == f"paperlens-locks-{os.geteuid()}"
