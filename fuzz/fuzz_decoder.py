"""Fuzz target: paperlens's row decoder (``Row``, its fields, ``columns`` and the lazy result
types) against Python's ``json`` module, on mutated JSON text and on generated documents.

Valid JSON must decode to what ``json.loads`` gives (lone surrogates as U+FFFD, see
docs/guides/errors.md), with the same types, key order and float signs; invalid text must
raise ``ValueError``; nothing may crash or raise anything else. An input starting with a NUL
byte (never valid JSON) is read as the recipe of a generated document; any other input is
itself the text. Run: ``python fuzz/fuzz_decoder.py NEW_CORPUS_DIR fuzz/corpus [libFuzzer
flags]`` (see fuzz/README.md).
"""

from __future__ import annotations

import copy
import json
import math
import sys
from pathlib import Path
from typing import Any

import atheris

# The oracle is the decoder tests' own.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from json_oracle import json_text, lone_surrogates_replaced, same

with atheris.instrument_imports():
    from paperlens import types as t
    from paperlens._paperlens import Row, columns
    from paperlens.errors import ResponseDecodeError

INVALID = object()
EDGE_INTS = [0, -1, 2**31, 2**53 + 1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 10**18 - 1, 10**18, -(10**19), 10**40]
EDGE_FLOATS = [0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1, -1e-7, 1e22, 123456789.125]
INT_FIELDS = ("citation_count", "reference_count", "publication_published_year")


class Mismatch(AssertionError):
    pass


def reference(text: bytes) -> Any:
    """What ``json`` decodes `text` to, lone surrogates replaced; INVALID when it refuses."""
    try:
        return lone_surrogates_replaced(json.loads(text.decode("utf-8"), parse_constant=refuse))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return INVALID


def refuse(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def check(text: bytes) -> None:
    expected = reference(text)
    shape(expected)
    check_row(text, expected)
    wrapped = b'{"v": ' + text + b"}"
    check_row(wrapped, reference(wrapped))


@atheris.instrument_func
def shape(value: Any, depth: int = 0) -> None:
    """Branches on the kinds of values decoded, so that the fuzzer keeps an input that brings
    a new kind (the Rust decoder is not instrumented, so this is its coverage feedback)."""
    if value is INVALID or value is None or isinstance(value, bool):
        return
    if depth > 3:
        return
    if isinstance(value, str):
        if "\ufffd" in value:
            return
        if any(ord(c) > 0xFFFF for c in value):
            return
        if not value.isascii():
            return
        if value.isdigit():
            return
        return
    if isinstance(value, int):
        if abs(value) >= 2**64:
            return
        if abs(value) >= 2**63:
            return
        if abs(value) >= 10**18:
            return
        return
    if isinstance(value, float):
        if math.isinf(value):
            return
        if value == 0:
            return
        return
    if isinstance(value, list):
        for item in value[:4]:
            shape(item, depth + 1)
        return
    for key, item in list(value.items())[:4]:
        shape(key, depth + 1)
        shape(item, depth + 1)


def check_row(text: bytes, expected: Any) -> None:
    try:
        row = Row(text)
        decoded = row.loads()
    except ValueError as error:
        if expected is INVALID or not isinstance(expected, dict) or "recursion limit" in str(error):
            return  # refused as json refuses (or nested deeper than a page may be)
        raise Mismatch(f"refused valid JSON {text!r}: {error}") from error
    if not same(decoded, expected):
        raise Mismatch(f"{text!r} decoded to {decoded!r}, json gives {expected!r}")
    for name in list(expected)[:8]:
        if not same(Row(text).get(name), expected[name]):
            raise Mismatch(f"{text!r}: property {name!r} read alone differs")
    check_columns(text, expected)
    check_result_type(text, expected)


def check_columns(text: bytes, expected: dict[str, Any]) -> None:
    found = columns([Row(text), Row(b"{}")], set(expected))
    if found is None:
        return  # a row with an escaped property name is decoded whole instead
    if list(found) != list(expected):
        raise Mismatch(f"{text!r}: columns {list(found)} for properties {list(expected)}")
    for name, column in found.items():
        values = arrow_strings(column) if isinstance(column, tuple) else column
        if not (same(values[0], expected[name]) and values[1] is None):
            raise Mismatch(f"{text!r}: column {name!r} holds {values!r}, json gives {expected[name]!r}")


def arrow_strings(column: tuple[int, tuple[bytes, bytes, bytes]]) -> list[str | None]:
    """The values of Arrow `large_string` buffers."""
    _nulls, (validity, offsets, data) = column
    bounds = [int.from_bytes(offsets[i : i + 8], "little", signed=True) for i in range(0, len(offsets), 8)]
    return [
        data[bounds[i] : bounds[i + 1]].decode() if validity[i // 8] >> (i % 8) & 1 else None
        for i in range(len(bounds) - 1)
    ]


def check_result_type(text: bytes, expected: dict[str, Any]) -> None:
    """A lazy record (fields read alone, then `to_dict()`) behaves as one built from json's dict."""
    lazy = t.MetadataRecord._from_wire(Row(text), "fuzz")
    try:
        eager = t.MetadataRecord._from_wire(copy.deepcopy(expected), "fuzz")
    except ResponseDecodeError:  # refused at once, where the lazy record refuses when read
        if outcome(lambda r: r.to_dict(), lazy)[0] != "error":
            raise Mismatch(f"{text!r}: the lazy record reads what the eager one refuses") from None
        return
    for read in (*[lambda r, n=name: getattr(r, n) for name in INT_FIELDS], lambda r: r.to_dict()):
        lazily, eagerly = outcome(read, lazy), outcome(read, eager)
        if lazily != eagerly:
            raise Mismatch(f"{text!r}: the lazy record reads {lazily!r}, the eager one {eagerly!r}")


def outcome(read: Any, record: t.MetadataRecord) -> Any:
    try:
        return ("value", json.dumps(read(record), sort_keys=False, default=repr))
    except ResponseDecodeError as error:
        return ("error", str(error))


def generated(data: atheris.FuzzedDataProvider, depth: int = 0) -> Any:
    kind = data.ConsumeIntInRange(0, 9 if depth < 4 else 5)
    if kind == 0:
        return data.PickValueInList([None, True, False])
    if kind == 1:
        return data.PickValueInList(EDGE_INTS) + data.ConsumeIntInRange(-2, 2)
    if kind == 2:
        return data.PickValueInList(EDGE_FLOATS) * data.PickValueInList([1, -1, 3, 0.5])
    if kind == 3:
        return str(data.PickValueInList(EDGE_INTS))  # an integer sent as digits
    if kind in (4, 5):
        return data.ConsumeUnicode(data.ConsumeIntInRange(0, 40))  # any code point, surrogates too
    if kind == 6:
        return [generated(data, depth + 1) for _ in range(data.ConsumeIntInRange(0, 4))]
    names = [*INT_FIELDS, "title", "author"]
    keys = [data.PickValueInList(names) if data.ConsumeBool() else data.ConsumeUnicode(12) for _ in range(4)]
    return {key: generated(data, depth + 1) for key in keys[: data.ConsumeIntInRange(0, 4)]}


def generated_text(recipe: bytes) -> bytes:
    data = atheris.FuzzedDataProvider(recipe)
    value = generated(data)
    return json_text(value, data.ConsumeBool(), data.PickValueInList([None, 0, 2]))


def test_one_input(data: bytes) -> None:
    check(generated_text(data[1:]) if data[:1] == b"\0" else data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
