"""``manifest.json`` beside every harvest and snowball output: what was fetched, how and when.

A methods section can cite it: the call and its parameters, start and end times, the SDK
version, the base URL (never the token), the search's ``total_count``, the request ids of
every answer used, the counts written, the sandbox corpus when run against one, and for a
harvest its run entries (the harvest, then each update: time, records added, requests sent).
Running the same call into the same output again checks the manifest first: other parameters
are an error (the output belongs to another call), the same ones continue it, keeping its
start time and request ids.

A harvest's manifest grows with the run, not with its square: the request ids go to a side
file, ``<manifest>.requests.jsonl`` (one ``{"request_id": ..., "run": ...}`` line each,
appended as the answers are used; on an fsspec URL, one numbered segment object per flush,
since an object cannot be appended to), and the manifest itself, small, is rewritten at the
start and end of a run (an error ends one too) and every :data:`SAVE_EVERY` seconds between.
Its ``request_log`` names the side file; :func:`read_manifest` (and
:func:`paperlens.harvest.read_manifest`) gives the ids back as ``request_ids``, as manifests of
version 1 (which held them inline, and stay readable) did.
After a ``kill -9`` the counts of the manifest may lag behind the output until the next run
ends; the checkpoint and the side file never do.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path, PurePath
from typing import Any

from paperlens._paperlens import __version__
from paperlens.errors import PaperlensError
from paperlens.storage._store import LOCAL, Store, location

__all__ = [
    "MANIFEST_NAME",
    "SAVE_EVERY",
    "ManifestError",
    "ManifestRecorder",
    "RequestLog",
    "now",
    "output_manifest",
    "read_manifest",
]

MANIFEST_NAME = "manifest.json"
#: Seconds between two saves of a manifest within a run (its start and end always save).
SAVE_EVERY = 300.0
_VERSION = 2


class ManifestError(PaperlensError):
    """The output directory holds the manifest of another call (or an unreadable one).

    Attributes:
        changed: the parameters that differ from those the manifest records (none when the
            manifest is of another call or unreadable)."""

    def __init__(self, message: str, *, changed: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.changed = changed


def now() -> str:
    """The time as manifests record it: UTC, ISO 8601, milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def read_manifest(
    directory: str | os.PathLike[str],
    name: str = MANIFEST_NAME,
    store: Store = LOCAL,
    *,
    request_ids: bool = True,
) -> dict[str, Any] | None:
    """The manifest in ``directory`` (its file ``name``, in ``store``), or None when there is none.

    With ``request_ids`` (the default) its ``request_ids`` holds every request id it records,
    in order, each once: those of a version 1 manifest (inline) and those of its side file."""
    folder = directory if isinstance(directory, PurePath) else Path(directory)
    path = folder / name
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
    if request_ids and "request_log" in manifest:
        logged = (entry["request_id"] for entry in RequestLog(folder, name, store).entries())
        manifest["request_ids"] = list(dict.fromkeys([*manifest.get("request_ids", []), *logged]))
    return manifest


def output_manifest(out: str | os.PathLike[str], *, request_ids: bool = True) -> dict[str, Any] | None:
    """The manifest of the harvest (or snowball) output ``out``, a path or URL: the
    ``manifest.json`` in a directory that holds one, else ``<out>.manifest.json`` beside it;
    None when there is neither."""
    store, path = location(out)
    inside = None if store.is_file(path) else read_manifest(path, MANIFEST_NAME, store, request_ids=request_ids)
    return inside or read_manifest(path.parent, path.name + ".manifest.json", store, request_ids=request_ids)


class RequestLog:
    """The side file of a manifest's request ids, ``<manifest>.requests.jsonl``: appended to
    as answers are used, never rewritten. Locally one file (its :meth:`position` its size);
    in an object store numbered segments ``<manifest>.requests.NNNNNN.jsonl``, one per
    :meth:`flush` (its position their count). Nothing of it is held in memory but the lines
    not yet flushed."""

    def __init__(self, directory: PurePath, manifest_name: str, store: Store = LOCAL) -> None:
        self.directory, self.store = directory, store
        self.stem = manifest_name.removesuffix(".json") + ".requests"
        self.name = self.stem + ".jsonl"
        self._pending: list[bytes] = []

    def _segments(self) -> list[str]:
        prefix = self.stem + "."
        names = self.store.names(self.directory)
        return sorted(n for n in names if n.startswith(prefix) and n.endswith(".jsonl") and n != self.name)

    def add(self, request_id: str, run: int) -> None:
        """Adds one line, written at the next :meth:`flush`."""
        self._pending.append(json.dumps({"request_id": request_id, "run": run}).encode() + b"\n")

    def flush(self, *, segment: bool = True) -> None:
        """Writes the lines added since the last flush (synced: durable once it returns). In an
        object store only with ``segment`` (each flush there is an object of its own)."""
        if not self._pending or not (segment or self.store.local):
            return
        data, self._pending = b"".join(self._pending), []
        if self.store.local:
            path = Path(self.directory / self.name)
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "ab") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            return
        name = f"{self.stem}.{len(self._segments()):06d}.jsonl"
        self.store.write(self.directory / name, lambda file: file.write(data), prefix=".requests-")

    def position(self) -> int:
        """Where the log ends now (for :meth:`rewind`)."""
        if self.store.local:
            try:
                return Path(self.directory / self.name).stat().st_size
            except FileNotFoundError:
                return 0
        return len(self._segments())

    def rewind(self, position: int) -> None:
        """Drops what was logged after ``position`` (the ids of answers a checkpoint does not
        count, fetched again by the run that resumes)."""
        if self.store.local:
            path = Path(self.directory / self.name)
            if path.exists() and path.stat().st_size > position:
                with open(path, "r+b") as file:
                    file.truncate(position)
                    os.fsync(file.fileno())
            return
        for segment in self._segments()[position:]:
            self.store.delete(self.directory / segment)

    def entries(self) -> Iterator[dict[str, Any]]:
        """The lines logged, in order (a line cut short by a crash is skipped)."""
        if self.store.local:
            try:
                file = open(Path(self.directory / self.name), "rb")  # noqa: SIM115 (closed below)
            except FileNotFoundError:
                return
            with file:
                yield from _parsed(file)
            return
        for segment in self._segments():
            yield from _parsed(self.store.read(self.directory / segment).splitlines())


def _parsed(lines: Any) -> Iterator[dict[str, Any]]:
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("request_id"), str):
            yield entry


class ManifestRecorder:
    """Keeps the manifest of one call writing into ``directory``: created (or checked against an
    earlier run of the same call) on construction, saved atomically by :meth:`save`.

    ``parameters`` must be JSON values and are compared as JSON; the client gives the base URL
    and, when it is a sandbox of this process, its corpus. ``name``: the file's name, for an
    output that cannot hold a ``manifest.json`` (``harvest`` writes ``<out>.manifest.json``).
    Request ids go to its :class:`RequestLog`; a version 1 manifest continued moves its inline
    ids there first."""

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
        from paperlens.base.sandbox import corpus_of

        folder = directory if isinstance(directory, PurePath) else Path(directory)
        self.path = folder / name
        self.store = store
        self.log = RequestLog(folder, name, store)
        self.save_every = SAVE_EVERY
        self._saved_at: float | None = None
        parameters = json.loads(json.dumps(parameters, default=str))
        earlier = read_manifest(folder, name, store, request_ids=False)
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
            "started": earlier["started"] if earlier else now(),
            "finished": earlier.get("finished") if earlier else None,
            "runs": earlier.get("runs", 1) if earlier else 1,
            "total_count": earlier.get("total_count") if earlier else None,
            "request_log": self.log.name,
            "requests": _request_count(earlier),
            "counts": dict(earlier.get("counts", {})) if earlier else {},
        }
        if earlier is not None and "run_entries" in earlier:
            self._manifest["run_entries"] = [dict(entry) for entry in earlier["run_entries"]]
        self.resumed = earlier is not None
        self._earlier = earlier
        self._recorded = self._manifest["requests"]
        if earlier is not None and "request_log" not in earlier:
            # Version 1: its inline ids go first in the side file, written with the first new one.
            for request_id in earlier.get("request_ids", []):
                self.log.add(request_id, 0)

    @property
    def manifest(self) -> dict[str, Any]:
        return self._manifest

    @property
    def run(self) -> int:
        """The index of the run entry the request ids go to (0: the harvest itself)."""
        return max(0, len(self._manifest.get("run_entries", [])) - 1)

    def request(self, request_id: str | None) -> None:
        """Records the request id of an answer used in the output (written at the next
        :meth:`flush` or save)."""
        if request_id:
            self.log.add(request_id, self.run)
            self._manifest["requests"] += 1
            entries = self._manifest.get("run_entries")
            if entries:
                entries[-1]["requests"] = entries[-1].get("requests", 0) + 1

    def recount(self) -> None:
        """Counts the request ids of the side file again, in all and per run entry (one pass
        over it): after a resumed run, the counts a ``kill -9`` left behind are set right."""
        self.flush()
        per_run: dict[int, int] = {}
        for entry in self.log.entries():
            run = entry.get("run", 0)
            per_run[run] = per_run.get(run, 0) + 1
        self._manifest["requests"] = sum(per_run.values())
        for index, entry in enumerate(self._manifest.get("run_entries", [])):
            entry["requests"] = per_run.get(index, 0)

    def flush(self, *, segment: bool = True) -> None:
        """Makes the request ids recorded so far durable (before a checkpoint counts their
        answers); in an object store only with ``segment`` (see :meth:`RequestLog.flush`)."""
        if self._manifest["requests"] != self._recorded:
            self.log.flush(segment=segment)

    def total(self, total_count: int | None) -> None:
        if total_count is not None:
            self._manifest["total_count"] = total_count

    def count(self, name: str, value: int) -> None:
        """Sets a count written (``records``, ``texts``, ``nodes``...)."""
        self._manifest["counts"][name] = value

    def save_if_due(self) -> None:
        """:meth:`save` when :attr:`save_every` seconds have passed since the last one (the
        request ids are flushed at once all the same)."""
        if self._saved_at is not None and time.monotonic() - self._saved_at < self.save_every:
            self.flush()
            return
        self.save()

    def save(self, *, finished: bool = False) -> None:
        """Writes the manifest atomically (a temporary file renamed into place). A run that
        changes nothing it records (no request, count or end) leaves an earlier manifest as it
        is and is not counted in its ``runs``."""
        if finished and self._manifest["finished"] is None:
            self._manifest["finished"] = now()
        earlier = self._earlier
        if earlier is not None:
            if _work(self._manifest) == _work(earlier):
                return
            self._manifest["runs"] = earlier.get("runs", 1) + 1
        self.flush()
        self.store.make_dirs(self.path.parent)
        data = json.dumps(self._manifest, indent=2, ensure_ascii=False).encode("utf-8") + b"\n"
        self.store.write(self.path, lambda file: file.write(data), prefix=".manifest-")
        self._saved_at = time.monotonic()


def _request_count(earlier: dict[str, Any] | None) -> int:
    if earlier is None:
        return 0
    if "request_log" in earlier:
        return int(earlier.get("requests", 0))
    return len(earlier.get("request_ids", []))


def _work(manifest: dict[str, Any]) -> dict[str, Any]:
    """What a manifest records of the work done (not who did it, nor the format it is in)."""
    skip = ("runs", "base_url", "sandbox", "sdk", "manifest_version", "request_log", "request_ids", "requests")
    work = {name: value for name, value in manifest.items() if name not in skip}
    work["requests"] = _request_count(manifest)
    return work


def _check_same_call(path: str, earlier: dict[str, Any], call: str, parameters: dict[str, Any]) -> None:
    if earlier.get("call") != call:
        raise ManifestError(f"{path} records a {earlier.get('call')!r} call, not {call!r}; choose another output")
    before = earlier.get("parameters", {})
    changed = sorted(name for name in set(before) | set(parameters) if before.get(name) != parameters.get(name))
    if changed:
        shown = ", ".join(f"{name}={before.get(name)!r} then {parameters.get(name)!r}" for name in changed)
        raise ManifestError(
            f"{path} records the same call with other parameters ({shown}); choose another output",
            changed=tuple(changed),
        )
