"""Measuring in a child process: each figure is the child's own, not the parent's carried over."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def peak_rss() -> int:
    """This process's peak resident set in bytes (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise SystemExit("no VmHWM in /proc/self/status: this benchmark measures memory on Linux")


def run_child(script: str, args: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Runs ``script`` with ``args`` in a new interpreter; the JSON object it prints."""
    argv = [sys.executable, script, *args]
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE)
    assert process.stdout is not None
    printed = process.stdout.read()
    if process.wait() != 0:
        raise SystemExit(f"the child failed ({process.returncode}): {argv}")
    figures: dict[str, Any] = json.loads(printed)
    return figures


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"
