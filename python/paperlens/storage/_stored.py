"""What a harvest stored, read back: the records of a span of its parts (or JSONL bytes), the
keys of every record it holds (what an update leaves out) and the schema of its parts (what an
update writes in). Shared by :mod:`paperlens.harvest`, :mod:`paperlens.corpus` and, below them,
the estimate of an update (:mod:`paperlens.estimate`)."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from paperlens.storage._records import RecordSchema, read_table_records
from paperlens.storage._store import Store, location

__all__ = [
    "checkpoint_beside",
    "held_keys",
    "output_keys",
    "own_schema",
    "part_index",
    "parts",
    "pyarrow_modules",
    "record_key",
    "stored_records",
]


def checkpoint_beside(out: PurePath) -> PurePath:
    """Where the checkpoint of a harvest into ``out`` (a path in any store) lives:
    ``<out>.checkpoint.json``."""
    return out.with_name(out.name + ".checkpoint.json")


def record_key(record: dict[str, Any]) -> str:
    """What tells two records apart for an update: the ``unique_id``; for a record without one,
    its ``doc_id``, or else its whole JSON."""
    for name in ("unique_id", "doc_id"):
        value = record.get(name)
        if isinstance(value, str) and value:
            return f"{name}:{value}"
    return "json:" + json.dumps(record, sort_keys=True, ensure_ascii=False, default=str)


def part_index(name: str) -> int:
    try:
        return int(name.removeprefix("part-").removesuffix(".parquet"))
    except ValueError:
        return -1


def pyarrow_modules() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as e:
        hint = 'pip install "paperlens[pandas]" (or use format="jsonl")'
        raise ImportError(f'format="parquet" needs pyarrow: {hint}') from e
    return pa, pq


def stored_records(store: Store, path: PurePath, fmt: str, span: tuple[int, int | None]) -> Iterator[dict[str, Any]]:
    """The records of parts ``span[0]`` to ``span[1]`` (Parquet) or of those bytes (JSONL)
    of the output at ``path`` (None: to the end), part by part."""
    start, end = span
    if fmt == "jsonl":
        data = store.read(path)[start:end]
        yield from (json.loads(line) for line in data.splitlines() if line.strip())
        return
    _pa, pq = pyarrow_modules()
    for name in parts(store, path, start, end):
        source = str(path / name) if store.local else io.BytesIO(store.read(path / name))
        yield from read_table_records(pq.read_table(source))


def parts(store: Store, path: PurePath, start: int, end: int | None) -> list[str]:
    """The names of the part files ``start`` to ``end`` (None: the last) in the folder ``path``."""
    names = sorted(name for name in store.names(path) if part_index(name) >= 0)
    return [name for name in names if start <= part_index(name) and (end is None or part_index(name) < end)]


def held_keys(store: Store, path: PurePath, fmt: str, state: dict[str, Any]) -> set[str]:
    """The :func:`record_key` of every record the checkpoint ``state`` counts in the output: a
    Parquet part whose ``unique_id`` column is whole is read by that column alone."""
    if fmt == "jsonl":
        return set(map(record_key, stored_records(store, path, fmt, (0, int(state["bytes"])))))
    _pa, pq = pyarrow_modules()
    keys: set[str] = set()
    for name in parts(store, path, 0, int(state["chunks"])):
        part = pq.ParquetFile(str(path / name) if store.local else io.BytesIO(store.read(path / name)))
        if "unique_id" in part.schema_arrow.names:
            values = part.read(columns=["unique_id"]).column(0).to_pylist()
            if all(values):  # each a non-empty string: the key of its record
                keys.update(f"unique_id:{value}" for value in values)
                continue
        keys.update(map(record_key, read_table_records(part.read())))
    return keys


def own_schema(store: Store, path: PurePath, state: dict[str, Any]) -> RecordSchema | None:
    """The schema of the parts an output holds (an update writes in it, whatever this
    version of paperlens would choose); None when it holds none."""
    names = parts(store, path, 0, int(state["chunks"]))
    if not names:
        return None
    _pa, pq = pyarrow_modules()
    source = str(path / names[0]) if store.local else io.BytesIO(store.read(path / names[0]))
    return RecordSchema.of_arrow(pq.read_schema(source))


def output_keys(out: str | os.PathLike[str], call: str, fmt: str) -> set[str]:
    """The :func:`record_key` of every record the finished harvest at ``out`` holds (``call``:
    ``"harvest"`` or ``"harvest_corpus"``, whose records are in its ``records`` folder)."""
    store, path = location(out)
    try:
        state = json.loads(store.read(checkpoint_beside(path)))
    except (FileNotFoundError, ValueError):
        return set()
    return held_keys(store, path / "records" if call == "harvest_corpus" else path, fmt, state)
