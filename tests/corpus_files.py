"""What a corpus harvest wrote, to compare one run with another: a run resumed after a kill, on
an executor, or brought up to date, with the run it must equal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def corpus_files(out: Path, *, request_counts: bool = False) -> dict[str, Any]:
    """Every file of the corpus harvest at ``out`` (and its checkpoint) by relative path, a folder
    as ``name/``: its bytes, but the manifest as its JSON without its times and runs. The requests
    (the manifest's counts and the side file of request ids) are kept as counts when
    ``request_counts``, else left out: a run killed and resumed sends more than one that was not."""
    files: dict[str, Any] = {"<checkpoint>": out.with_name(out.name + ".checkpoint.json").read_bytes()}
    volatile = ("started", "finished") if request_counts else ("started", "finished", "requests")
    for path in sorted(out.rglob("*")):
        name = path.relative_to(out).as_posix()
        if path.is_dir():
            files[name + "/"] = None
            continue
        data: Any = path.read_bytes()
        if name == "manifest.json":
            data = json.loads(data)
            for key in ("runs", *volatile):
                data.pop(key)
            data["run_entries"] = [{**entry, **dict.fromkeys(volatile)} for entry in data["run_entries"]]
        elif name == "manifest.requests.jsonl":
            data = len(data.splitlines()) if request_counts else None  # the request ids differ from run to run
        files[name] = data
    return files
