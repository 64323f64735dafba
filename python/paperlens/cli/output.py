"""The output formats: ``table`` (plain text), ``json`` (the whole answer), ``jsonl`` and
``csv`` (one record per line or row, nested values as JSON in csv), and for bibliographic
records the citation formats ``bibtex``, ``ris`` and ``csl-json`` (see :mod:`paperlens.export`)."""

from __future__ import annotations

import csv
import json
import shutil
import sys
from collections.abc import Collection, Iterable, Sequence
from typing import Any, TextIO

from paperlens.base._unicode import escape_surrogates, well_formed
from paperlens.results._result import rows_field

_SCALARS = (str, int, float, bool, type(None))


def emit(fmt: str, result: Any, *, columns: Sequence[str] | None = None, out: TextIO | None = None) -> None:
    """Prints ``result`` (a result, a list, a paginator or a dict) in ``fmt``."""
    out = out or sys.stdout
    if fmt in ("bibtex", "ris", "csl-json"):
        emit_citations(fmt, result, out=out)
        return
    data = _plain(result)
    if fmt == "json":
        out.write(_json(data, indent=2) + "\n")
        return
    parts = _parts(data, rows_field(result))
    if parts is not None:
        _emit_parts(fmt, data, parts, out)
        return
    rows, single = _rows(data, rows_field(result))
    if fmt == "jsonl":
        for row in rows:
            out.write(_json(row) + "\n")
        return
    if fmt == "csv":
        names = _all_keys(rows)
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(names)
        for row in rows:
            writer.writerow([_csv_cell(row.get(name)) for name in names])
        return
    if single:
        row = rows[0]
        lines = [[k, _compact(v)] for k, v in row.items()]
        print(
            format_table(["field", "value"], lines, max_width=100, whole_rows={k for k in row if pasted(k)}), file=out
        )
        return
    _print_cursors(data)
    if not rows:
        print("(no results)", file=out)
        return
    names = [c for c in columns or () if any(c in r for r in rows)] or _auto_columns(rows)
    width = shutil.get_terminal_size((120, 24)).columns
    cell_width = max(12, min(60, (width - 2 * len(names)) // max(1, len(names)) * 2))
    print(format_table(names, [[_compact(r.get(c)) for c in names] for r in rows], max_width=cell_width), file=out)


#: The flags of an answer that say whether it is the whole set, shown under its parts.
_WHOLENESS = ("partial", "truncated", "relations_truncated")


def _parts(data: Any, rows: str | None) -> list[tuple[str, Any]] | None:
    """The parts of an answer that holds more than its rows, each by name: its records (an
    object with an id, as an entity or a seed paper) and its lists of records (a graph's
    ``nodes``, ``edges`` and ``levels``; an entity's ``relations``). None for an answer of
    one list or one object."""
    if rows is None or not isinstance(data, dict) or not isinstance(data.get(rows), list):
        return None
    objects = [(name, value) for name, value in data.items() if _is_record(value)]
    lists = [(name, value) for name, value in data.items() if name != rows and _are_records(value)]
    return [*objects, (rows, data[rows]), *lists] if objects or lists else None


def _is_record(value: Any) -> bool:
    return isinstance(value, dict) and any(str(key).endswith("_id") for key in value)


def _are_records(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(item, dict) for item in value)


def _emit_parts(fmt: str, data: dict[str, Any], parts: list[tuple[str, Any]], out: TextIO) -> None:
    """The parts of an answer: in csv and jsonl, one row per record with its part's name
    (singular) as ``kind``; as tables, one per part, then the answer's wholeness flags (a
    ``PartialResultWarning`` on stderr says when it is not the whole set, in every format)."""
    flags = {name: data[name] for name in _WHOLENESS if name in data}
    if fmt in ("jsonl", "csv"):
        rows = [
            {"kind": name.removesuffix("s"), **row}
            for name, part in parts
            for row in (part if isinstance(part, list) else [part])
        ]
        emit(fmt, rows, out=out)
    else:
        for name, part in parts:
            count = f" ({len(part)})" if isinstance(part, list) else ""
            print(f"{name}{count}:", file=out)
            emit(fmt, part, out=out)
            print(file=out)
        for name, value in flags.items():
            print(f"{name}: {json.dumps(value)}", file=out)


def pasted(name: str) -> bool:
    """Whether column ``name`` holds what a user pastes into the next command (``read DOC_ID``,
    ``relations UNIQUE_ID``, ``--cursor``, ``read --source``): a table never cuts it."""
    return name in ("id", "source") or name.endswith(("_id", "cursor"))


def _print_cursors(data: Any) -> None:
    """The cursors of a page shown as a table (whose rows leave them out), whole, on stderr."""
    if isinstance(data, dict):
        for name, value in data.items():
            if name.endswith("cursor") and isinstance(value, str) and value:
                print(f"{name}: {value}", file=sys.stderr)


def emit_citations(fmt: str, records: Any, *, out: TextIO | None = None) -> None:
    """Prints the records of ``records`` as ``bibtex``, ``ris`` or ``csl-json`` (a JSON array)."""
    from paperlens.results import export

    out = out or sys.stdout
    if fmt == "csl-json":
        out.write(_json(export.to_csl_json(records), indent=2) + "\n")
    else:
        out.write(export.to_bibtex(records) if fmt == "bibtex" else export.to_ris(records))


def format_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    max_width: int = 60,
    *,
    whole_rows: Collection[str] = (),
) -> str:
    """A plain-text table: columns sized to their content, cells cut at ``max_width`` except
    in the columns that :func:`pasted` names and in the rows whose first cell ``whole_rows`` holds."""

    def cell(value: Any, whole: bool) -> str:
        text = "" if value is None else " ".join(well_formed(str(value)).split())
        return text if whole or len(text) <= max_width else text[: max_width - 3] + "..."

    whole_columns = [pasted(h) for h in headers]
    cells = [
        [cell(value, whole or str(row[0]) in whole_rows) for value, whole in zip(row, whole_columns, strict=True)]
        for row in rows
    ]
    widths = [max([len(h), *(len(row[i]) for row in cells)]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in cells)])


def _plain(obj: Any) -> Any:
    """Wire JSON of a result, a list of results or a paginator."""
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if isinstance(obj, dict):
        return obj
    if isinstance(obj, (list, tuple)) or (hasattr(obj, "__iter__") and not isinstance(obj, (str, bytes))):
        return [_plain(x) for x in obj]
    return obj


def _rows(data: Any, rows_field: str | None) -> tuple[list[dict[str, Any]], bool]:
    """The records of ``data`` and whether it is one object (shown as field/value lines).
    A result whose answer left out its rows field is one object: an entity asked for
    without its relations is that entity, not an empty list."""
    if isinstance(data, list):
        return [x if isinstance(x, dict) else {"value": x} for x in data], False
    if not isinstance(data, dict):
        return [{"value": data}], True
    if rows_field is not None and isinstance(data.get(rows_field), list):
        return data[rows_field], False
    return [data], True


def _all_keys(rows: list[dict[str, Any]]) -> list[str]:
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    return list(names)


def _auto_columns(rows: list[dict[str, Any]], most: int = 6) -> list[str]:
    names = [n for n in _all_keys(rows) if all(isinstance(r.get(n), _SCALARS) for r in rows[:50])]

    def rank(name: str) -> int:
        if name in ("id", "unique_id", "schema_id", "doc_id") or name.endswith("_id"):
            return 0
        if name in ("title", "name", "display_name", "text", "label", "key"):
            return 1
        return 2

    return sorted(names, key=rank)[:most] or _all_keys(rows)[:most]


def _compact(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    value = _compact(value)
    return well_formed(value) if isinstance(value, str) else value


def _json(data: Any, indent: int | None = None) -> str:
    """JSON text of ``data``, non-ASCII kept as is and unpaired surrogates as their escapes."""
    return escape_surrogates(json.dumps(data, ensure_ascii=False, indent=indent, default=str))


def write_text(text: str, out: TextIO | None = None) -> None:
    """``text`` (a Markdown document, say) as a whole line or more, an unpaired surrogate as U+FFFD."""
    text = well_formed(text)
    (out or sys.stdout).write(text if text.endswith("\n") else text + "\n")
