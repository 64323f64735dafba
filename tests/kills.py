"""Corpus harvests killed with SIGKILL at moments chosen by their progress, not by the clock: a busy
machine moves the moments in time but not in the work."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path


def documents(out: Path) -> int:
    """The documents committed so far (a document's folder is renamed into place whole)."""
    try:
        return sum(not name.startswith(".") for name in os.listdir(out / "documents"))
    except FileNotFoundError:
        return 0


def kill_at(
    points: Iterable[int],
    start: Callable[[], subprocess.Popen[bytes]],
    out: Path,
    rng: random.Random,
    jitter: float,
    kill: Callable[[int, int], None] = os.kill,
) -> tuple[int, set[int]]:
    """For each point in order, a run of ``start()`` killed (``kill(pid, SIGKILL)``; ``os.killpg``
    takes a run started in a session of its own with its children) once ``out`` holds that many
    documents and up to ``jitter`` seconds more; returns how many were killed and the document
    counts they left (a run that finished first ends the series)."""
    kills, states = 0, set()
    for point in points:
        process = start()
        while process.poll() is None and documents(out) < point:
            time.sleep(0.001)
        time.sleep(rng.uniform(0, jitter))
        if process.poll() is not None:
            break
        kill(process.pid, signal.SIGKILL)
        process.wait()
        kills += 1
        states.add(documents(out))
    return kills, states
