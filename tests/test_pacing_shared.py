"""``shared_pacing``: real processes using one token keep to one quota together.

Two processes fill a quota of 10 per minute side by side, then a third is held back by
their requests: without the shared file each would have paced alone and the sandbox would
have refused the third. Time is kept short: the held request is only shown to wait, then
the process is killed.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paperlens.sandbox import Sandbox

ROOT = Path(__file__).resolve().parents[1]

# Sends `calls` meta-search requests (max_retries=0: a 429 exits non-zero) with INFO logs on stderr.
CHILD = """
import logging, sys
import paperlens
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
base_url, token, shared, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
client = paperlens.Client(api_token=token, base_url=base_url, rate_limits={"meta-search": 10},
                          shared_pacing=shared, max_retries=0)
for n in range(calls):
    client.meta_search(f"q{n}", page_size=1)
    print("sent", n, flush=True)
"""


def child(sandbox: Sandbox, shared: Path, calls: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")])}
    argv = [sys.executable, "-c", CHILD, sandbox.base_url, sandbox.token, str(shared), str(calls)]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture
def sandbox():
    with Sandbox(papers=50, rate_limits={"meta-search": 10}) as sandbox:
        yield sandbox


def test_processes_sharing_a_token_stay_within_one_quota(sandbox, tmp_path):
    shared = tmp_path / "pacing.json"
    first, second = child(sandbox, shared, 5), child(sandbox, shared, 5)
    for process in (first, second):
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        assert out.count("sent") == 5
    assert len(sandbox.requests()) == 10

    third = child(sandbox, shared, 1)
    try:
        waits = []
        deadline = time.monotonic() + 30
        assert third.stderr is not None
        while not waits and time.monotonic() < deadline:
            line = third.stderr.readline()
            if not line:
                break
            waits += [float(w) for w in re.findall(r"pacing: waiting ([\d.]+) s", line)]
        # Held until a slot of the other processes frees, a minute after its answer.
        assert waits and waits[0] > 50, waits
        assert len(sandbox.requests()) == 10, "the held request was not sent"
    finally:
        third.send_signal(signal.SIGKILL)
        third.wait()

    text = shared.read_text()
    assert sandbox.token not in text
    assert json.loads(text)


def test_a_process_without_the_shared_file_paces_alone(sandbox, tmp_path):
    filled = child(sandbox, tmp_path / "one.json", 10)
    _, err = filled.communicate(timeout=60)
    assert filled.returncode == 0, err
    alone = child(sandbox, tmp_path / "other.json", 1)
    _, err = alone.communicate(timeout=60)
    # Its own pacing let it go at once, and the sandbox refused it: what sharing prevents.
    assert alone.returncode != 0 and ("429" in err or "RateLimit" in err), err
    assert "pacing: waiting" not in err
