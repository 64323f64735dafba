"""The benchmark target: a sandbox in its own process, and its CPU time per request."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass


@dataclass
class SandboxProcess:
    process: subprocess.Popen[str]
    base_url: str
    token: str

    def cpu_seconds(self) -> float:
        """CPU time the sandbox process has used so far, in nanosecond resolution: the sum over
        its threads of /proc schedstat run time (the clock-tick counters of /proc/PID/stat
        would move in 10 ms steps)."""
        total = 0
        for task in os.listdir(f"/proc/{self.process.pid}/task"):
            try:
                with open(f"/proc/{self.process.pid}/task/{task}/schedstat") as stat:
                    total += int(stat.read().split()[0])
            except FileNotFoundError:  # a thread that ended meanwhile
                continue
        return total / 1e9

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def start_sandbox(papers: int = 2000) -> SandboxProcess:
    command = [sys.executable, "-m", "paperlens.cli", "sandbox", "--port", "0", "--papers", str(papers)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    first = dict(part.split("=", 1) for part in process.stdout.readline().split())
    return SandboxProcess(process, first["base_url"], first["token"])
