"""The row decoder under misuse and memory exhaustion: a wrong class is a TypeError (its raw
allocation would crash), and a failed allocation a MemoryError (never a PanicException, which
``except Exception`` misses), after which decoding goes on as before."""

from __future__ import annotations

import _testcapi
import json
from collections.abc import Callable
from typing import Any

import pytest

from paperlens import types as t
from paperlens._paperlens import Row, columns, undecoded_rows
from paperlens.results._model import _NOTHING


class DictRow(dict):  # type: ignore[type-arg]
    pass


@pytest.mark.parametrize("wrong", [dict, DictRow, int, tuple, type, Row, BaseException])
def test_undecoded_rows_refuses_a_class_whose_instances_it_cannot_make(wrong: type):
    rows = [Row(b'{"title": "x"}')]
    with pytest.raises(TypeError, match=f"undecoded class of a result type.*, not ([a-z_.]+\\.)?{wrong.__qualname__}:"):
        undecoded_rows(wrong, rows, "req", _NOTHING, lambda value, request_id: value)


TEXT = json.dumps(
    {
        "title": "Protein structure prediction",
        "author": [{"name": f"Author {i}", "ids": [i, str(i)]} for i in range(4)],
        "citation_count": "12",
        "keywords": ["a" * 40, "é" * 20, "数据"],
        "extra": {"nested": [1.5, None, True, {"k": "v"}]},
    }
).encode()


def reads() -> list[Callable[[], Any]]:
    return [
        lambda: Row(TEXT).loads(),
        lambda: Row(TEXT).get("author"),
        lambda: t.MetadataRecord._from_wire(Row(TEXT), "req").to_dict(),
        lambda: columns([Row(TEXT), Row(TEXT)], {"title"}),
        lambda: bytes(Row(TEXT)),
    ]


@pytest.mark.parametrize("read", range(len(reads())))
def test_a_failed_allocation_is_a_memory_error_and_decoding_goes_on(read: int):
    expected = reads()[read]()
    outcomes = set()
    for nth in range(120):  # the nth allocation fails: every one the read makes, in turn
        attempt = reads()[read]
        _testcapi.set_nomemory(nth, nth + 1)
        try:
            attempt()
            outcome = "ok"
        except MemoryError:
            outcome = "MemoryError"
        finally:
            _testcapi.remove_mem_hooks()
        outcomes.add(outcome)
        assert reads()[read]() == expected  # the key cache is sound and in use
    assert outcomes == {"ok", "MemoryError"}
