"""Reading a pandas or polars frame of records back as the records' ``to_dict()``, by the
documented layout (docs/guides/dataframes.md): a column per property, the flattened objects'
``field.key`` columns gathered back into ``field``, then the properties of ``extra_json`` over
them; a null property reads as absent."""

from __future__ import annotations

import datetime
import json
import math
from typing import Any

import numpy as np
import pandas as pd

#: The metadata record's objects flattened one level (``primary_topic.display_name``...).
FLATTENED = {"primary_topic", "citation_normalized_percentile", "cited_by_percentile_year"}


def cell(value: Any) -> Any:
    """A frame cell as the plain value it shows: missing (NA, NaN, NaT) as None, numpy scalars
    as Python ones, a date as its ``yyyy-MM-dd`` text."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, np.generic):
        return cell(value.item())
    if isinstance(value, (pd.Timestamp, datetime.date)):
        return value.strftime("%Y-%m-%d")
    return value


def frame_records(rows: list[dict[str, Any]], flattened: set[str] = FLATTENED) -> list[dict[str, Any]]:
    """The records of a frame's rows, by the documented layout: a column per property, the
    flattened objects' ``field.key`` columns gathered back, then ``extra_json`` over them."""
    records = []
    for row in rows:
        record: dict[str, Any] = {}
        for name, value in row.items():
            value = cell(value)
            if value is None or name == "extra_json":
                continue
            field, dot, key = name.partition(".")
            if dot and field in flattened:
                record.setdefault(field, {})[key] = value
            else:
                record[name] = value
        if cell(row.get("extra_json")) is not None:
            record.update(json.loads(row["extra_json"]))
        records.append(record)
    return records


def same(got: Any, want: Any) -> bool:
    """Equal, and of the same JSON type (a bool is not a number; an int may read as a float)."""
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(same(got[k], want[k]) for k in want)
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(same, got, want))
    return (type(got) in (int, float) and type(want) in (int, float) and got == want) or got == want


def assert_frame_holds(
    rows: list[dict[str, Any]], records: list[dict[str, Any]], flattened: set[str] = FLATTENED
) -> None:
    got, want = frame_records(rows, flattened), [{k: v for k, v in r.items() if v is not None} for r in records]
    assert len(got) == len(want)
    for read, sent in zip(got, want, strict=True):
        assert read.keys() == sent.keys()
        for name in sent:
            assert same(read[name], sent[name]), (name, read[name], sent[name])
