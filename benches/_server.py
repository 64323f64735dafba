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
        """User + system CPU time the sandbox process has used so far (Linux /proc)."""
        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def start_sandbox(papers: int = 2000) -> SandboxProcess:
    command = [sys.executable, "-m", "paperlens.cli", "sandbox", "--port", "0", "--papers", str(papers)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    first = dict(part.split("=", 1) for part in process.stdout.readline().split())
    return SandboxProcess(process, first["base_url"], first["token"])
