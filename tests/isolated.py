"""A Python program of the tests run in an interpreter of its own, with this tree's paperlens.

Its whole process group is killed when it outlives its timeout, so a regression that hangs fails
its test instead of the run, and one that crashes fails it naming the signal.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_json(program: Path, *args: str, timeout: float) -> Any:
    """The JSON value `program` prints, run with `args`; the test fails on a hang, a signal or an exit."""
    path = [str(ROOT / "python"), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    process = subprocess.Popen(
        [sys.executable, str(program), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    what = " ".join([program.name, *args[:2]])
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"{what} hung (killed after {timeout} s); stderr:\n{err}")
    if process.returncode < 0:
        pytest.fail(f"{what} crashed: {signal.Signals(-process.returncode).name}; stderr:\n{err}")
    assert process.returncode == 0, err
    return json.loads(out)
