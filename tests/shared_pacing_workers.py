"""The work of the worker processes of tests/test_pacing_shared.py, in a module of its own so
that spawned workers can import it."""

from __future__ import annotations

import logging
import re

import paperlens

WAITING = re.compile(r"pacing: waiting ([\d.]+) s to stay within (\d+) requests/minute")


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
