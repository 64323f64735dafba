"""``manifest.json`` beside every harvest and snowball output: what was fetched, how and when.

A methods section can cite it: the call and its parameters, start and end times, the SDK
version, the base URL (never the token), the search's ``total_count``, the request ids of
every answer used, the counts written, and the sandbox corpus when run against one. Running
the same call into the same output again checks the manifest first: other parameters are an
error (the output belongs to another call), the same ones continue it, keeping its start time
and request ids.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path, PurePath
from typing import Any

from paperlens._paperlens import __version__
from paperlens._store import LOCAL, Store
from paperlens.errors import PaperlensError

__all__ = ["MANIFEST_NAME", "ManifestError", "ManifestRecorder", "read_manifest"]

MANIFEST_NAME = "manifest.json"
_VERSION = 1


class ManifestError(PaperlensError):
    """The output directory holds the manifest of another call (or an unreadable one)."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def read_manifest(
    directory: str | os.PathLike[str], name: str = MANIFEST_NAME, store: Store = LOCAL
) -> dict[str, Any] | None:
    """The manifest in ``directory`` (its file ``name``, in ``store``), or None when there is none."""
    path = (directory if isinstance(directory, PurePath) else Path(directory)) / name
    try:
        text = store.read(path).decode("utf-8")
    except FileNotFoundError:
        return None
    try:
        manifest = json.loads(text)
    except ValueError as error:
        raise ManifestError(f"{store.name(path)} is not valid JSON ({error}); move it away to start over") from None
    if not isinstance(manifest, dict):
        raise ManifestError(f"{store.name(path)} is not a paperlens manifest; move it away to start over")
    return manifest


class ManifestRecorder:
    """Keeps the manifest of one call writing into ``directory``: created (or checked against an
    earlier run of the same call) on construction, saved atomically by :meth:`save`.

    ``parameters`` must be JSON values and are compared as JSON; the client gives the base URL
    and, when it is a sandbox of this process, its corpus. ``name``: the file's name, for an
    output that cannot hold a ``manifest.json`` (``harvest`` writes ``<out>.manifest.json``)."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        call: str,
        parameters: dict[str, Any],
        client: Any,
        *,
        name: str = MANIFEST_NAME,
        store: Store = LOCAL,
    ) -> None:
        from paperlens.sandbox import corpus_of

        self.path = (directory if isinstance(directory, PurePath) else Path(directory)) / name
        self.store = store
        parameters = json.loads(json.dumps(parameters, default=str))
        earlier = read_manifest(directory, name, store)
        if earlier is not None:
            _check_same_call(store.name(self.path), earlier, call, parameters)
        base_url = client.base_url
        self._manifest: dict[str, Any] = {
            "manifest_version": _VERSION,
            "call": call,
            "parameters": parameters,
            "sdk": {"name": "paperlens", "version": __version__},
            "base_url": base_url,
            "sandbox": corpus_of(base_url),
            "started": earlier["started"] if earlier else _now(),
            "finished": earlier.get("finished") if earlier else None,
            "runs": earlier.get("runs", 1) if earlier else 1,
            "total_count": earlier.get("total_count") if earlier else None,
            "request_ids": list(earlier.get("request_ids", [])) if earlier else [],
            "counts": dict(earlier.get("counts", {})) if earlier else {},
        }
        self.resumed = earlier is not None
        self._earlier = earlier

    @property
    def manifest(self) -> dict[str, Any]:
        return self._manifest

    def request(self, request_id: str | None) -> None:
        """Records the request id of an answer used in the output."""
        if request_id:
            self._manifest["request_ids"].append(request_id)

    def total(self, total_count: int | None) -> None:
        if total_count is not None:
            self._manifest["total_count"] = total_count

    def count(self, name: str, value: int) -> None:
        """Sets a count written (``records``, ``texts``, ``nodes``...)."""
        self._manifest["counts"][name] = value

    def save(self, *, finished: bool = False) -> None:
        """Writes the manifest atomically (a temporary file renamed into place). A run that
        changes nothing it records (no request, count or end) leaves an earlier manifest as it
        is and is not counted in its ``runs``."""
        if finished and self._manifest["finished"] is None:
            self._manifest["finished"] = _now()
        earlier = self._earlier
        if earlier is not None:
            if _work(self._manifest) == _work(earlier):
                return
            self._manifest["runs"] = earlier.get("runs", 1) + 1
        self.store.make_dirs(self.path.parent)
        data = json.dumps(self._manifest, indent=2, ensure_ascii=False).encode("utf-8") + b"\n"
        self.store.write(self.path, lambda file: file.write(data), prefix=".manifest-")


def _work(manifest: dict[str, Any]) -> dict[str, Any]:
    """What a manifest records of the work done (not who did it)."""
    return {name: value for name, value in manifest.items() if name not in ("runs", "base_url", "sandbox", "sdk")}


def _check_same_call(path: str, earlier: dict[str, Any], call: str, parameters: dict[str, Any]) -> None:
    if earlier.get("call") != call:
        raise ManifestError(f"{path} records a {earlier.get('call')!r} call, not {call!r}; choose another output")
    before = earlier.get("parameters", {})
    changed = sorted(name for name in set(before) | set(parameters) if before.get(name) != parameters.get(name))
    if changed:
        shown = ", ".join(f"{name}={before.get(name)!r} then {parameters.get(name)!r}" for name in changed)
        raise ManifestError(f"{path} records the same call with other parameters ({shown}); choose another output")
