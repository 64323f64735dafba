"""Real file-system failures for tests: small tmpfs mounts (ENOSPC), read-only mounts (EROFS).

Mounting needs root (CI runs as root); root ignores permission bits, so a read-only mount is
the way a folder refuses writes here."""

from __future__ import annotations

import subprocess
from pathlib import Path


class Mounts:
    """Mounts made by one test, all undone by :meth:`close` (latest first)."""

    def __init__(self) -> None:
        self._made: list[Path] = []

    def tmpfs(self, where: Path, size: int) -> Path:
        """A tmpfs of ``size`` bytes (rounded up to pages) at ``where`` (created)."""
        where.mkdir(parents=True, exist_ok=True)
        _run("mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where))
        self._made.append(where)
        return where

    def resize(self, where: Path, size: int) -> None:
        _run("mount", "-o", f"remount,size={size}", str(where))

    def read_only(self, where: Path) -> None:
        _run("mount", "-o", "remount,ro", str(where))

    def bind(self, source: Path, where: Path) -> None:
        _run("mount", "--bind", str(source), str(where))
        self._made.append(where)

    def unmount(self, where: Path) -> None:
        _run("umount", str(where))
        self._made.remove(where)

    def close(self) -> None:
        while self._made:
            self.unmount(self._made[-1])


def _run(*command: str) -> None:
    subprocess.run(command, check=True, capture_output=True, text=True)
