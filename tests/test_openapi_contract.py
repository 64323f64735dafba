"""schemathesis against the sandbox: the OpenAPI document, written from the spec, and the
sandbox that implements it agree (bounded examples, deterministic generation)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from paperlens.sandbox import Sandbox

OPEN_PLATFORM = "^/(agentic-search|content|resource|meta-catalog|meta-search|meta-paper-relations)$"

# positive_data_acceptance is left out: the spec has rules that OpenAPI cannot express, so
# some schema-valid requests are rightly refused (at least one of doc_id/source;
# field names taken from the catalog; page * page_size <= 10000; calendar dates).
EXCLUDED_CHECKS = "positive_data_acceptance"


def run_schemathesis(sandbox: Sandbox, paths: str, examples: int) -> subprocess.CompletedProcess[str]:
    executable = shutil.which("schemathesis") or shutil.which("st")
    assert executable, "schemathesis is part of the test extra"
    command = [
        executable,
        "run",
        f"{sandbox.base_url}/openapi.json",
        "--header",
        f"Authorization: Bearer {sandbox.token}",
        "--include-path-regex",
        paths,
        "--max-examples",
        str(examples),
        "--generation-deterministic",
        "--exclude-checks",
        EXCLUDED_CHECKS,
        "--phases",
        "examples,coverage,fuzzing",
        "--workers",
        "1",
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


PAPER_SCHEMA = "^/paper-schema"


@pytest.mark.parametrize(("paths", "operations"), [(OPEN_PLATFORM, 6), (PAPER_SCHEMA, 18)], ids=["open", "schema"])
def test_sandbox_conforms_to_its_openapi_document(paths, operations):
    with Sandbox(papers=300) as sandbox:
        result = run_schemathesis(sandbox, paths, examples=25)
    summary = result.stdout[-3000:]
    assert f"Tested: {operations}" in result.stdout, summary
    assert result.returncode == 0, summary
