"""`import paperlens` stays light: the workflows and asyncio load on first use, and every
public name still resolves (a fresh interpreter each, so nothing is imported already)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.test_pandas import PYTHON_DIR


def run(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_import_leaves_the_workflows_and_asyncio_for_later() -> None:
    heavy = (
        "asyncio",
        "paperlens.deduplication",
        "paperlens.export",
        "paperlens._citation",
        "paperlens.matching",
        "paperlens.snowball",
    )
    code = f"import sys, paperlens\nprint(sorted(m for m in {heavy!r} if m in sys.modules))"
    assert run(code) == "[]"


def test_every_public_name_resolves_and_the_functions_stay_functions() -> None:
    code = (
        "import paperlens, paperlens.deduplication, paperlens.export, paperlens.pandas\n"
        "missing = [n for n in paperlens.__all__ if getattr(paperlens, n, None) is None]\n"
        "assert not missing, missing\n"
        "assert set(paperlens.__all__) <= set(dir(paperlens))\n"
        "print(paperlens.dedupe.__module__, paperlens.to_bibtex.__module__, paperlens.to_pandas.__module__)"
    )
    assert run(code) == "paperlens.deduplication paperlens.export paperlens.pandas"
