"""Another user on the machine, for the tests of what paperlens does with files and folders that
someone else made first: the tests run as root and become ``nobody``."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to become another user"
)


@contextmanager
def shared_folder() -> Iterator[Path]:
    """A new folder in /tmp that every user may enter and write in (mode 1777), removed afterwards."""
    base = Path(tempfile.mkdtemp(prefix="paperlens-other-user-"))
    try:
        base.chmod(0o1777)
        yield base
    finally:
        shutil.rmtree(base)


def as_nobody(script: str, *args: str) -> None:
    """Runs the shell ``script`` with the positional parameters ``args`` as the user nobody; the
    test fails if it does."""
    done = subprocess.run(["sh", "-c", script, "sh", *args], user="nobody", capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
