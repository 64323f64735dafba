"""The rows of a `meta_search` page are decoded when read: a field read decodes that value
alone, and what needs the whole object decodes the rest. Whatever a user does with a row, it
behaves exactly as an eagerly built one."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer

import paperlens
from paperlens import types as t
from paperlens._paperlens import Row

from fixtures import meta_search_page
from json_oracle import json_text, lone_surrogates_replaced, same


def eager_page(body: dict) -> t.MetaSearchPage:
    return t.MetaSearchPage._from_wire(json.loads(json.dumps(body)), "req-1")


@pytest.fixture
def body() -> dict:
    page = meta_search_page(3)
    page["results"][1]["citation_count"] = 9007199254740993  # past float precision
    page["results"][1]["brand_new_field"] = {"nested": ["ü", "数据", "🧬"]}
    return page


@pytest.fixture
def page(client, httpserver: HTTPServer, body: dict) -> t.MetaSearchPage:
    httpserver.expect_request("/meta-search").respond_with_json(body)
    return client.meta_search("q")


def test_a_field_read_decodes_that_value_and_the_whole_object_decodes_the_rest(page):
    row = page.results[1]
    assert isinstance(row, t.MetadataRecord) and type(row) is not t.MetadataRecord
    assert row.citation_count == 9007199254740993
    keywords = row.keywords
    assert type(row) is not t.MetadataRecord and set(row._raw.get("title") or "") == set(row.title or "")
    assert row.extra == {"brand_new_field": {"nested": ["ü", "数据", "🧬"]}}
    assert type(row) is t.MetadataRecord
    assert row.keywords is keywords  # the values read before are kept
    assert type(page.results[0]) is not t.MetadataRecord  # reading one row leaves the others alone


@pytest.mark.parametrize(
    "text, field, expected",
    [
        (b'{"title": "first", "title": "last"}', "title", "last"),  # as a decoder keeps it
        (b'{"ti\\u0074le": "escaped name"}', "title", "escaped name"),  # decoded whole
        (b'{"citation_count": "42"}', "citation_count", 42),
        (b'{"citation_count": null, "title": "x"}', "citation_count", None),
        (b'{ "title" :  "spaced" , "doi":"10.1/x" }', "doi", "10.1/x"),
        (b'{"author": [{"name": "\\u00e9mile"}]}', "author", [{"name": "émile"}]),
    ],
)
def test_a_field_read_alone_is_what_the_whole_object_says(text: bytes, field: str, expected: object):
    lazy = t.MetadataRecord._from_wire(Row(text))
    assert getattr(lazy, field) == expected
    assert getattr(t.MetadataRecord._from_wire(Row(text)), field) == expected
    assert lazy == t.MetadataRecord._from_wire(json.loads(text))
    assert lazy.to_dict() == {**json.loads(text), **({field: expected} if field == "citation_count" else {})}


def test_list_and_nested_fields_read_alone_are_typed():
    facet = t.FacetResult._from_wire(Row(b'{"field": "year", "buckets": [{"key": 2020, "doc_count": "3"}]}'))
    assert facet.buckets[0].doc_count == 3 and type(facet.buckets[0]) is t.FacetBucket
    assert t.FacetResult._from_wire(Row(b'{"field": "year"}')).buckets == []
    assert t.FacetResult._from_wire(Row(b'{"buckets": null}')).to_dict() == {"buckets": None}


def test_a_bad_integer_string_fails_the_read_that_meets_it():
    row = t.MetadataRecord._from_wire(Row(b'{"citation_count": "many", "title": "x"}'), "req-9")
    assert row.title == "x"
    with pytest.raises(paperlens.ResponseDecodeError, match="expected an integer, got 'many'") as caught:
        _ = row.citation_count
    assert caught.value.request_id == "req-9"
    with pytest.raises(paperlens.ResponseDecodeError, match="'many'") as caught:
        t.MetadataRecord._from_wire(Row(b'{"citation_count": "many"}'), "req-9").to_dict()
    assert caught.value.request_id == "req-9"


def test_to_dict_of_an_undecoded_row_turns_its_integer_strings_into_ints():
    text = b'{"citation_count": "12", "reference_count": 3, "publication_pages": null, "title": "7", "x": "8"}'
    wire = t.MetadataRecord._from_wire(Row(text)).to_dict()
    assert wire == {"citation_count": 12, "reference_count": 3, "publication_pages": None, "title": "7", "x": "8"}
    assert Row(text).loads(("citation_count", "absent"), lambda v, rid: (v, rid), "r")["citation_count"] == ("12", "r")


def test_a_row_is_its_json_text_and_pickles_as_it():
    row = Row(b'{"title": "x", "n": [1, 2]}')
    assert bytes(row) == b'{"title": "x", "n": [1, 2]}' and row.loads() == {"title": "x", "n": [1, 2]}
    assert row.get("n") == [1, 2] and row.get("missing") is None and row.get("missing", 0) == 0
    assert bytes(pickle.loads(pickle.dumps(row))) == bytes(row)
    with pytest.raises(ValueError, match="object"):
        Row(b"[1]")


def test_an_undecoded_row_behaves_like_an_eager_one(page, body):
    eager = eager_page(body).results
    assert page.results == eager  # == decodes both sides
    fresh = list(_fresh_rows(page, body))
    assert [r.to_dict() for r in fresh[0]] == [r.to_dict() for r in eager]
    assert [r.extra for r in fresh[1]] == [r.extra for r in eager]
    assert [repr(r) for r in fresh[2]] == [repr(r) for r in eager]
    assert [dataclasses.asdict(r) for r in fresh[3]] == [dataclasses.asdict(r) for r in eager]
    assert [vars(r) for r in fresh[4]] == [vars(r) for r in eager]
    assert [pickle.loads(pickle.dumps(r)) for r in fresh[5]] == eager
    assert [copy.deepcopy(r) for r in fresh[6]] == eager
    replaced = dataclasses.replace(fresh[7][0], title="changed")
    assert type(replaced) is t.MetadataRecord and replaced.title == "changed" and replaced.doi == eager[0].doi
    assert fresh[8][2] == eager[2] and eager[2] == fresh[9][2]  # either side of == may be undecoded
    assert fresh[10][1].extra == {"brand_new_field": {"nested": ["ü", "数据", "🧬"]}}
    assert fresh[11][0].publication_published_date is None  # absent on the wire


def _fresh_rows(page, body, copies: int = 12):
    """Undecoded copies of the page's rows, one list per check (reading decodes a row)."""
    raw = json.dumps(body["results"][0]), json.dumps(body["results"][1]), json.dumps(body["results"][2])
    for _ in range(copies):
        yield [t.MetadataRecord._from_wire(Row(text.encode()), page.request_id) for text in raw]


def test_class_attributes_and_dataclass_fields_are_those_of_the_plain_class(page):
    cls = type(page.results[0])
    assert dataclasses.fields(cls) == dataclasses.fields(t.MetadataRecord)
    assert cls.title is None and cls.__name__ == "MetadataRecord"


def test_rows_decode_once_when_many_threads_read_them(client, httpserver: HTTPServer):
    httpserver.expect_request("/meta-search").respond_with_json(meta_search_page(200))
    page = client.meta_search("q")
    seen: list[list[str]] = []

    def read() -> None:
        seen.append([row.doi for row in page.results])
        seen.append([vars(row)["doi"] for row in page.results])

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 16 and all(dois == seen[0] for dois in seen)
    assert seen[0] == [f"10.1234/plens.{i}" for i in range(200)]
    assert {type(row) for row in page.results} == {t.MetadataRecord}


async def test_async_pages_have_the_same_rows(aclient, httpserver: HTTPServer, body):
    httpserver.expect_request("/meta-search").respond_with_json(body)
    page = await aclient.meta_search("q")
    assert page.results == eager_page(body).results


def test_to_pandas_of_an_undecoded_page_equals_the_eager_frame(page, body):
    assert page.to_pandas().equals(eager_page(body).to_pandas())


ODD_ROWS = [
    b'{"title": "a", "citation_count": "12", "to_dict": 1, "zz_extra": {"k": [1, "\\u00fc"]}}',
    b'{"ti\\u0074le": "escaped", "citation_count": null, "title": "dup", "title": "last"}',
    b'{"primary_topic": {"id": "T1", "score": "0.5"}, "extra": null, "keywords": ["x"]}',
    b"{}",
    b'{"doi": "10.1/\\u00e9\\n\\"q\\"", "language": 5, "abstract": "\xf0\x9f\xa7\xac x"}',
]


def test_a_frame_from_the_rows_text_equals_the_frame_from_their_dicts():
    def rows(read: bool) -> list[t.MetadataRecord]:
        built = [t.MetadataRecord._from_wire(Row(text), "req-2") for text in ODD_ROWS]
        if read:  # some fields read already, one row decoded whole
            _ = built[0].title, built[2].keywords, built[1].extra
        return built

    eager = [t.MetadataRecord._from_wire(json.loads(text), "req-2") for text in ODD_ROWS]
    expected = paperlens.to_pandas(eager)
    for read in (False, True):
        frame = paperlens.to_pandas(rows(read))
        assert frame.equals(expected) and list(frame.columns) == list(expected.columns)
    assert expected["citation_count"].tolist()[0] == 12 and expected["title"].tolist()[:2] == ["a", "last"]
    assert {"to_dict", "zz_extra", "extra"} <= set(expected.columns)  # no wire property dropped
    assert expected["doi"].tolist()[-1] == '10.1/é\n"q"' and expected["abstract"].tolist()[-1] == "🧬 x"
    assert expected["language"].tolist()[-1] == 5  # not a string: the column keeps it as sent
    polars = paperlens.to_polars(rows(False))
    assert polars.columns == paperlens.to_polars(eager).columns
    assert polars["doi"].to_list() == paperlens.to_polars(eager)["doi"].to_list()


@pytest.mark.parametrize(
    "rows, error",
    [
        (b'[{"title": "bad \\q escape"}]', "invalid escape"),
        (b'[{"title": "x"} {"title": "y"}]', "expected `,` or `]`"),
        (b'[{"title": "x"}, null]', "expected a JSON object for MetadataRecord, got NoneType"),
        (b'[{"title": "\xff"}]', "not valid JSON"),
    ],
)
def test_a_bad_row_fails_the_call_not_a_later_read(client, httpserver: HTTPServer, rows: bytes, error: str):
    httpserver.expect_request("/meta-search").respond_with_data(
        b'{"total_count": 1, "results": ' + rows + b"}", content_type="application/json"
    )
    with pytest.raises(paperlens.ResponseDecodeError, match=error) as caught:
        client.meta_search("q")
    assert caught.value.request_id


# Text, and text with surrogates in it: lone ones, and pairs when a high one meets a low one.
_strings = st.text(max_size=40) | st.lists(st.text(max_size=3) | st.integers(0xD800, 0xDFFF).map(chr), max_size=8).map(
    "".join
)
_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _strings,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_strings, inner, max_size=5),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None)
@given(value=_json_values, key=_strings, ensure_ascii=st.booleans(), indent=st.sampled_from([None, 0, 2]))
def test_a_row_decodes_as_the_json_module_does(value: object, key: str, ensure_ascii: bool, indent: int | None):
    text = json_text({key: value, "n": [value]}, ensure_ascii, indent)
    expected = lone_surrogates_replaced(json.loads(text))
    row = Row(text)
    assert same(row.loads(), expected)
    name = next(iter(expected))  # the key as decoded (a high and a low surrogate make one character)
    assert same(row.get(name), expected[name])


@pytest.mark.parametrize(
    "text",
    [
        b'{"a": "\\u0000\\ud83e\\udddc\\u00e9\\/\\b\\f\\n\\r\\t\\"\\\\"}',
        '{"ключ": "значение", "🧬": "数据"}'.encode(),
        b'{"big": 123456789012345678901234567890, "neg": -9223372036854775809, "edge": 999999999999999999}',
        b'{"f": [1e400, -1e400, 1.5e-400, -0.0, 5e-324, 1E+2, 0.1]}',
        b'{"dup": 1, "dup": 2, "e": {}, "l": [], "s": ""}',
        b' \n\t{ "spaced" :\r\n [ 1 , { } ] } \n',
        b'{"k": "' + b"x" * 100 + b"\\n" + "é".encode() * 40 + b'"}',
    ],
)
def test_a_row_decodes_what_the_json_module_decodes(text: bytes):
    assert same(Row(text).loads(), json.loads(text))


def test_many_distinct_keys_decode_right_through_the_key_cache():
    keys = [f"k{i}" for i in range(5000)] + ["k" * n for n in range(1, 40)]
    rows = [Row(json.dumps({k: i, "title": k}).encode()) for i, k in enumerate(keys)]
    for _ in range(2):
        assert [r.loads() for r in rows] == [{k: i, "title": k} for i, k in enumerate(keys)]


@pytest.mark.parametrize("text", [b'{"a": "\xff"}', b'{"\xed\xa0\x80": 1}', b'{"a": "\\ud800\\x"}', b'{"a": "\\udc0"}'])
def test_a_row_that_is_not_json_text_fails_with_a_value_error(text: bytes):
    with pytest.raises(ValueError):
        Row(text).loads()
