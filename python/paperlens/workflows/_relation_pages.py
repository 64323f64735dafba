"""Relation lists read page by page into a growing network, and the checkpoint journal that
keeps each page answered: the snowball's (:mod:`paperlens.snowball`) and the bibliometric maps'
whole reference lists (:mod:`paperlens.bibliometrics`, ``complete=True``) read them alike.
"""

from __future__ import annotations

import contextlib
import json
import os
import reprlib
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from paperlens.base._contract import PAGE_SIZE_MAX
from paperlens.errors import ValidationError
from paperlens.machinery._operation import Call
from paperlens.storage._manifest import now
from paperlens.storage._records import to_json

__all__ = ["Growth", "Journal", "relation_plan", "seeds_key"]

_FOUND_BY = {"CITATIONS": "citations", "REFERENCES": "references"}
_CHECKPOINT_VERSION = 1
#: The most characters of a checkpoint's parameters an error shows (they may hold every
#: document id of a bibliometric map).
_SHOWN_CHARS = 300
_SHORT = reprlib.Repr()
_SHORT.maxlist = _SHORT.maxdict = 5
_SHORT.maxstring = _SHORT.maxother = 40


class Journal:
    """The checkpoint file: a header line (version, parameters, start time), then one line per
    page answered (a chunk of seeds' records, or a page of a relation list), and a last line
    once the run finished.

    ``workflow`` names the call whose checkpoint it is in the errors a user reads ("snowball",
    "bibliometrics"). The header's key stays ``paperlens_snowball`` whatever the workflow (the
    format began as the snowball's), so every checkpoint written before still loads."""

    def __init__(self, path: str | os.PathLike[str], parameters: dict[str, Any], *, workflow: str) -> None:
        self.path = Path(path)
        self.workflow = workflow
        self.answers: dict[str, dict[str, Any]] = {}
        self.started = now()
        self.finished: str | None = None
        self._file: BinaryIO | None = None
        kept = self._read(parameters)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Unbuffered: a failed write leaves nothing behind to be flushed later.
        self._file = open(self.path, "r+b" if kept else "wb", buffering=0)  # noqa: SIM115 (closed by close())
        self._file.truncate(kept)
        self._file.seek(kept)
        if not kept:
            self._append({"paperlens_snowball": _CHECKPOINT_VERSION, "parameters": parameters, "started": self.started})

    def _read(self, parameters: dict[str, Any]) -> int:
        """Loads an earlier run's answers; returns the length of its complete lines (0: none)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return 0
        lines = data.split(b"\n")
        # The last piece has no newline: empty, or a line cut by a crash (dropped).
        complete = lines[:-1]
        if not complete:
            return 0
        try:
            header = json.loads(complete[0])
            entries = [json.loads(line) for line in complete[1:]]
        except ValueError as error:
            raise self._refused(f"is not a {self.workflow} checkpoint ({error})") from None
        if not isinstance(header, dict) or header.get("paperlens_snowball") != _CHECKPOINT_VERSION:
            raise self._refused(f"is not a {self.workflow} checkpoint of this version")
        if header.get("parameters") != parameters:
            raise self._refused(
                f"does not record this {self.workflow} call (it records {_recorded(header.get('parameters'))})"
            )
        self.started = header.get("started") or self.started
        for entry in entries:
            if "finished" in entry:
                self.finished = entry["finished"]
            elif "seeds" in entry:
                self.answers[seeds_key(entry["seeds"])] = entry
            else:
                self.answers[_page_key(entry["unique_id"], entry["relation"], entry["page"], entry["page_size"])] = (
                    entry
                )
        return sum(len(line) + 1 for line in complete)

    def _refused(self, why: str) -> ValidationError:
        return ValidationError(
            f"checkpoint {self.path} {why}: use another path, or remove it to start over",
            param="checkpoint",
            rule="a checkpoint of the same call",
            value=str(self.path),
        )

    def _append(self, entry: dict[str, Any]) -> None:
        assert self._file is not None
        line = memoryview(to_json(entry).encode() + b"\n")
        kept = self._file.tell()
        try:
            while line:
                line = line[self._file.write(line) :]
            os.fsync(self._file.fileno())
        except BaseException:  # a full disk: the file ends at its last whole line
            with contextlib.suppress(OSError):
                self._file.truncate(kept)
                self._file.seek(kept)
            raise

    def record(self, key: str, entry: dict[str, Any]) -> None:
        self.answers[key] = entry
        self._append(entry)

    def finish(self, finished: str) -> None:
        if self.finished is None:
            self.finished = finished
            self._append({"finished": finished})

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _recorded(parameters: Any) -> str:
    """A checkpoint's parameters as a refusal shows them: whole when short, else how many
    items each list holds and a shortened repr, at most :data:`_SHOWN_CHARS` characters."""
    whole = str(parameters)
    if len(whole) <= _SHOWN_CHARS:
        return whole
    lists = parameters.items() if isinstance(parameters, dict) else ()
    counts = [f"{len(value)} items in {_SHORT.repr(name)}" for name, value in lists if isinstance(value, list)]
    shown = ", ".join([*counts, _SHORT.repr(parameters)])
    return shown if len(shown) <= _SHOWN_CHARS else shown[: _SHOWN_CHARS - 3] + "..."


def _page_key(unique_id: str, relation: str, page: int, page_size: int) -> str:
    return json.dumps([unique_id, relation, page, page_size])


def seeds_key(chunk: list[str]) -> str:
    return json.dumps({"seeds": chunk})


@dataclass
class Growth:
    """The network while it grows."""

    limit: int | None
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: dict[tuple[str, str], str] = field(default_factory=dict)
    request_ids: list[str] = field(default_factory=list)

    @property
    def full(self) -> bool:
        return self.limit is not None and len(self.nodes) >= self.limit

    def add(self, paper: str, relation: str, items: list[dict[str, Any]]) -> None:
        """The items of one page of ``paper``'s ``relation`` list: new nodes one level deeper
        (while the limit allows), and their edges."""
        depth = self.nodes[paper]["depth"] + 1
        found_by = _FOUND_BY[relation]
        for item in items:
            other = item.get("id")
            if not isinstance(other, str) or not other:
                continue
            node = self.nodes.get(other)
            if node is None:
                if self.full:
                    continue
                self.nodes[other] = {"depth": depth, "item": dict(item)}
            else:
                known = node["item"]
                for name, value in item.items():
                    if known.get(name) is None:
                        known[name] = value
            edge = (other, paper) if relation == "CITATIONS" else (paper, other)
            before = self.edges.get(edge)
            self.edges[edge] = found_by if before in (None, found_by) else "both"


def _next_page(start: int, need: int) -> tuple[int, int, int]:
    """``(page, page_size, skip)`` of the request for items ``start`` to ``start + need - 1``:
    the smallest page size of at least ``need`` (at most the contract's largest) on whose page
    boundary ``start`` falls, so that no item before ``start`` is sent again; failing that,
    the largest size, skipping the items of the page already had."""
    low = min(need, PAGE_SIZE_MAX)
    for size in range(low, PAGE_SIZE_MAX + 1):
        if start % size == 0:
            return start // size + 1, size, 0
    return start // PAGE_SIZE_MAX + 1, PAGE_SIZE_MAX, start % PAGE_SIZE_MAX


def relation_plan(
    paper: str, relation: str, cap: int | None, growth: Growth, journal: Journal | None
) -> Generator[Call, Any, None]:
    """Reads ``paper``'s ``relation`` list, up to ``cap`` items, page after page."""
    start, wanted = 0, cap
    page, size, skip = _next_page(0, cap or PAGE_SIZE_MAX)
    while True:
        key = _page_key(paper, relation, page, size)
        entry = journal.answers.get(key) if journal is not None else None
        if entry is None:
            result = yield Call("paper_relations", (paper, relation), {"page": page, "page_size": size})
            entry = {
                "unique_id": paper,
                "relation": relation,
                "page": page,
                "page_size": size,
                "items": [item.to_dict() for item in result.items],
                "total_count": result.total_count,
                "total_pages": result.total_pages,
                "request_id": result.request_id,
            }
            if journal is not None:
                journal.record(key, entry)
        if entry["request_id"]:
            growth.request_ids.append(entry["request_id"])
        total = entry["total_count"]
        if total is not None:
            wanted = min(cap, total) if cap is not None else total
        items = entry["items"][skip:]
        if wanted is not None:
            items = items[: wanted - start]
        growth.add(paper, relation, items)
        start += len(items)
        if growth.full or not items or (wanted is not None and start >= wanted) or page >= (entry["total_pages"] or 0):
            return
        page, size, skip = _next_page(start, (wanted - start) if wanted is not None else PAGE_SIZE_MAX)
