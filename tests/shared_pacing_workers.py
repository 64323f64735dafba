"""The work of the worker processes of tests/test_pacing_shared.py and tests/test_pacing_stalls.py,
in a module of its own so that spawned workers can import it (and run as a program, for the fork
scenario, so that a regression hangs a child process instead of the test run)."""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
import time

import paperlens

#: A pacing wait told: its seconds, and the requests per minute in force (after a 429's pause,
#: the rate that follows it).
WAITING = re.compile(
    r"pacing: waiting ([\d.]+) s (?:until the time a 429 .* advised, then within|to stay within) (\d+)"
)


class Waits(logging.Handler):
    """The pacing waits the ``paperlens`` logger tells: ``(seconds, requests per minute)``."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.told: list[tuple[float, int]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if waiting := WAITING.match(record.getMessage()):
            self.told.append((float(waiting.group(1)), int(waiting.group(2))))


def search(job: tuple[paperlens.Client, int]) -> tuple[list[str], list[tuple[float, int]]]:
    """``count`` meta-searches with the client given (pickled to its settings, so each worker
    builds its own): how each ended (``"ok"`` or the error's class) and the pacing waits told."""
    client, count = job
    waits = Waits()
    logger = logging.getLogger("paperlens")
    logger.addHandler(waits)
    logger.setLevel(logging.INFO)
    outcomes = []
    try:
        for n in range(count):
            try:
                client.meta_search(f"q{n}", page_size=1)
                outcomes.append("ok")
            except paperlens.PaperlensError as error:
                outcomes.append(type(error).__name__)
    finally:
        logger.removeHandler(waits)
    return outcomes, waits.told


def fork_while_held(base_url: str, token: str, path: str) -> dict[str, object]:
    """With another process holding the pacing file's lock: a call (``deadline=2``) waits on a
    thread while this process forks. How the call ended, how long each took, and whether the
    call was still waiting when ``fork()`` returned."""
    client = paperlens.Client(api_token=token, base_url=base_url, shared_pacing=path, deadline=2, max_retries=0)
    found: dict[str, object] = {}

    def call() -> None:
        started = time.monotonic()
        try:
            client.meta_search("q", page_size=1)
            found["call"] = "ok"
        except paperlens.PaperlensError as error:
            found["call"] = type(error).__name__
            found["message"] = str(error)
        found["call_seconds"] = time.monotonic() - started

    waiting = threading.Thread(target=call)
    waiting.start()
    time.sleep(0.5)
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    found["fork_seconds"] = time.monotonic() - started
    found["call_waiting_at_fork"] = waiting.is_alive()
    os.waitpid(pid, 0)
    waiting.join()
    return found


if __name__ == "__main__":
    print(json.dumps(fork_while_held(*sys.argv[1:4])))
