"""Answers the contract allows but our sandbox never sends: each decodes, nothing is dropped,
and ``to_dict()`` gives the wire JSON back (digit strings of integer fields as ints)."""

from __future__ import annotations

import copy
import pickle
import warnings

import pytest
from pytest_httpserver import HTTPServer

import paperlens
from paperlens import types as t

from fixtures import agentic_result, hit, meta_search_page

CARD = {"schema_id": "s2", "title": "Target"}


def test_a_citation_relation_of_any_shape_decodes(client, httpserver: HTTPServer):
    items = [
        {"relation": "cites", "reference": None, "resolution": {"status": "unresolved", "target_schema_id": None}},
        {"relation": {"relation_id": "c1", "relation_type": "cites", "provenance": None}, "target_schema": CARD},
        {"relation": ["a", 1], "resolution": None},
    ]
    body = {"total": "3", "items": items, "next_cursor": None}
    httpserver.expect_request("/paper-schema/schemas/s1/citations").respond_with_json(body)

    page = client.schema.citations("s1")

    assert [item.relation for item in page.items] == ["cites", items[1]["relation"], ["a", 1]]
    assert page.items[0].typed_relation is None
    assert page.items[1].typed_relation == t.Relation(relation_id="c1", relation_type="cites")
    assert page.items[1].target_schema == t.PaperCard(schema_id="s2", title="Target")
    assert page.total == 3
    assert page.to_dict() == {**body, "total": 3}


@pytest.mark.parametrize(
    "levels",
    [
        {"1": {"frontier": 2, "new_edges": "2"}, "2": {"frontier": ["s3"], "new_edges": 1}},
        [{"depth": 1, "frontier": None}, None, 3],
        None,
        "not shown",
        # Levels that cannot be typed (counts that are not integers) are left out of the views.
        {"1": {"frontier": 2, "new_edges": "2"}, "3": {"frontier": "many"}, "²": {}, " 2 ": {"frontier": ["s3"]}},
    ],
    ids=["keyed-by-level", "nulls-inside", "explicit-null", "a-string", "untypable-levels"],
)
def test_citation_graph_levels_of_any_shape(client, httpserver: HTTPServer, levels):
    body = {"root_schema_id": "s1", "direction": "outbound", "nodes": [], "edges": [], "levels": levels}
    httpserver.expect_request("/paper-schema/schemas/s1/citation-graph").respond_with_json(body)

    graph = client.schema.citation_graph("s1")

    assert graph.levels == levels
    assert graph.to_dict() == body  # an explicit null stays
    if isinstance(levels, dict):
        typed = [(lv.depth, lv.frontier, lv.new_edges) for lv in graph.typed_levels]
        assert typed[0] == (1, 2, 2) and typed[1][:2] == (2, ["s3"]) and len(typed) == 2
        assert graph.levels["1"]["new_edges"] == "2"  # the value of no given shape is left as sent
    elif isinstance(levels, list):
        assert [lv.depth for lv in graph.typed_levels] == [1]
    else:
        assert graph.typed_levels == []


def test_a_resource_field_that_is_not_an_object_is_kept_as_sent(client, httpserver: HTTPServer):
    # `schema_paper` is a paper card in entity search only: elsewhere an extra property of any shape.
    entity = {"entity_id": "e1", "name": "U-Net", "schema_paper": ["not", "a", "card"], "provenance": None}
    body = {"items": [{"schema_id": "s1", "schema_paper": "s1", "matched_entities": [entity]}], "next_cursor": None}
    httpserver.expect_request("/paper-schema/entities/related-papers", method="POST").respond_with_json(body)

    page = client.schema.entity_related_papers("u-net")

    item = page.items[0]
    assert item.schema_paper == "s1" and item.matched_entities[0].schema_paper == ["not", "a", "card"]
    assert item.matched_entities[0].provenance == [] and page.to_dict() == body
    assert pickle.loads(pickle.dumps(page)).to_dict() == body
    frame = page.to_pandas()
    assert list(frame["schema_paper"]) == ["s1"]  # kept as sent, in a column of its own
    assert "schema_paper.title" in frame.columns and frame["schema_paper.title"].isna().all()


def test_a_null_row_of_a_resource_list_still_fails(client, httpserver: HTTPServer):
    body = {"items": [{"schema_id": "s1", "matched_entities": [None]}]}
    httpserver.expect_request("/paper-schema/entities/related-papers", method="POST").respond_with_json(body)
    with pytest.raises(paperlens.ResponseDecodeError, match="expected a JSON object for Entity"):
        client.schema.entity_related_papers("u-net")


def test_relation_search_total_reads_like_the_other_pages(client, httpserver: HTTPServer):
    body = {"items": [], "total": {"value": "12", "relation": "eq"}}
    httpserver.expect_request("/paper-schema/relations/search", method="POST").respond_with_json(body)

    page = client.schema.search_relations(filters={"schema_ids": ["s1"]})

    assert page.total == t.Total(value=12, relation="eq")
    assert page.to_dict() == {"items": [], "total": {"value": 12, "relation": "eq"}}


@pytest.mark.parametrize("year", ["2021", "n.d.", 2021.0, None, [2020, 2021]])
def test_a_reference_year_is_kept_as_sent(client, httpserver: HTTPServer, year):
    body = {"items": [{"relation": "cites", "reference": {"title": "T", "year": year}}]}
    httpserver.expect_request("/paper-schema/schemas/s1/citations").respond_with_json(body)

    page = client.schema.citations("s1")

    assert page.items[0].reference.year == year and page.to_dict() == body


@pytest.mark.parametrize(
    ("answer", "warned"),
    [
        ({"items": [], "partial": True, "warnings": ["slow shard"]}, "slow shard"),
        ({"items": [], "partial": True, "warnings": "one warning, not a list"}, "one warning, not a list"),
        ({"items": [], "partial": True, "warnings": None}, "no warnings given"),
        ({"items": [], "partial": True, "warnings": [{"code": 7}, "b"]}, "{'code': 7}; b"),
        ({"items": [], "partial": "true"}, None),  # not the boolean true
        ({"items": [], "partial": 1}, None),
        ({"items": [], "partial": False, "warnings": ["a note"]}, None),
    ],
)
def test_only_partial_true_warns(client, httpserver: HTTPServer, answer, warned):
    httpserver.expect_request("/paper-schema/search", method="POST").respond_with_json(answer)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = client.schema.search("q")

    messages = [str(w.message) for w in caught if issubclass(w.category, paperlens.PartialResultWarning)]
    wanted = f"PaperSearchPage is partial (request_id={page.request_id}): {warned}"
    assert messages == ([] if warned is None else [wanted])
    assert page.to_dict() == answer


def test_a_partial_property_outside_paper_schema_is_an_extra_one(client, httpserver: HTTPServer):
    body = {**agentic_result(1), "partial": True, "warnings": 3}
    httpserver.expect_request("/agentic-search").respond_with_json(body)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = client.agentic_search("q")

    assert result.extra == {"partial": True, "warnings": 3} and result.to_dict() == body


#: Class attributes that cannot be data descriptors: properties of these names are moved aside.
CLASS_LEVEL = {"__module__": 1, "__doc__": None, "_plan": [], "__getattribute__": "x", "__new__": {}, "__slots__": 2}


def test_extra_properties_named_like_class_level_attributes(client, httpserver: HTTPServer):
    body = {**agentic_result(1), **CLASS_LEVEL, "__str__": "s", "__subclasshook__": 0}
    body["hits"][0].update(CLASS_LEVEL)
    httpserver.expect_request("/agentic-search").respond_with_json(body)

    result = client.agentic_search("q")

    assert result.__module__ == t.AgenticSearchResult.__module__ == "paperlens.results._types_open_platform"
    assert result.__doc__ == t.AgenticSearchResult.__doc__ and result.__slots__ == t.AgenticSearchResult.__slots__
    assert result.__subclasshook__ == t.AgenticSearchResult.__subclasshook__
    assert result.extra == {**CLASS_LEVEL, "__str__": "s", "__subclasshook__": 0}
    assert result.hits[0].extra == CLASS_LEVEL and result.hits[0].to_dict() == body["hits"][0]
    assert result.to_dict() == body and str(result) == repr(result)
    for restored in (pickle.loads(pickle.dumps(result)), copy.copy(result), copy.deepcopy(result)):
        assert restored == result and restored.to_dict() == body and restored.extra == result.extra


def test_integer_fields_accept_digit_strings(client, httpserver: HTTPServer):
    body = agentic_result(2)
    body["hits"][0].update(offset="9007199254740993", chunk_no="4", publication_published_year="2021")
    body["request_tokens"] = "17"
    httpserver.expect_request("/agentic-search").respond_with_json(body)

    result = client.agentic_search("q")

    first = result.hits[0]
    assert (first.offset, first.chunk_no, first.publication_published_year) == (9007199254740993, 4, 2021)
    assert result.request_tokens == 17
    wire = copy.deepcopy(body)
    wire["hits"][0].update(offset=9007199254740993, chunk_no=4, publication_published_year=2021)
    wire["request_tokens"] = 17
    assert result.to_dict() == wire


COLLIDING = {
    "to_dict": "a",
    "extra": [1],
    "request_id": "wire-request-id",
    "to_pandas": None,
    "_from_wire": 0,
    "_raw": "x",
    "_absent": "y",
    "__class__": "z",
    "__dict__": {},
}


def test_extra_properties_with_any_name_never_hide_methods(client, httpserver: HTTPServer):
    body = {**agentic_result(1), **COLLIDING}
    body["hits"][0].update(COLLIDING)
    httpserver.expect_request("/agentic-search").respond_with_json(body, headers={"X-Request-ID": "rid-1"})

    result = client.agentic_search("q", top_k=1)

    assert result.request_id == "rid-1"
    assert result.extra == COLLIDING and result.hits[0].extra == COLLIDING
    assert result.to_dict() == body
    assert type(result) is t.AgenticSearchResult and callable(result.to_pandas)
    assert result.hits[0].to_dict() == body["hits"][0]
    restored = pickle.loads(pickle.dumps(result))
    assert restored == result and restored.request_id == "rid-1" and restored.to_dict() == body
    with pytest.raises(AttributeError):
        result.to_dict = None  # type: ignore[method-assign]


def test_colliding_names_in_undecoded_rows(client, httpserver: HTTPServer):
    body = meta_search_page(3)
    body["results"][0].update(COLLIDING)
    httpserver.expect_request("/meta-search").respond_with_json(body)

    page = client.meta_search("q")

    row = page.results[0]
    assert row.to_dict() == body["results"][0] and row.extra == COLLIDING
    assert row.title == body["results"][0]["title"] and row.to_dict() == body["results"][0]


def test_explicit_nulls_and_absent_lists(client, httpserver: HTTPServer):
    body = {"hits": None, "request_tokens": None}
    httpserver.expect_request("/agentic-search").respond_with_json(body)

    result = client.agentic_search("q")

    assert result.hits == [] and result.request_tokens is None
    assert result.to_dict() == body
    assert copy.deepcopy(result).to_dict() == body


def test_absent_lists_stay_absent(client, httpserver: HTTPServer):
    httpserver.expect_request("/agentic-search").respond_with_json({})
    result = client.agentic_search("q")
    assert result.hits == [] and result.to_dict() == {}


def test_meta_search_rows_to_dict_turn_integer_strings_into_ints(client, httpserver: HTTPServer):
    body = meta_search_page(2, total="12345")
    body["results"][1]["citation_count"] = "42"
    httpserver.expect_request("/meta-search").respond_with_json(body)

    page = client.meta_search("q")

    assert page.results[1].to_dict()["citation_count"] == 42  # undecoded row: decoded afresh
    assert page.results[1].citation_count == 42
    assert page.to_dict()["total_count"] == 12345
    assert page.to_dict()["results"][1]["citation_count"] == 42


@pytest.mark.parametrize(
    ("disposition", "filename"),
    [
        ("attachment; filename=\"_ 2.jpg\"; filename*=UTF-8''%E5%9B%BE%202.jpg", "图 2.jpg"),
        ("attachment; filename*=UTF-8''%E5%9B%BE%202.jpg; filename=\"_ 2.jpg\"", "图 2.jpg"),
        ('attachment; filename="fig;1.png"', "fig;1.png"),
        ('attachment; filename="../../x"', "x"),
        ('attachment; filename="..\\\\..\\\\evil.png"', "evil.png"),
        ('attachment; filename=".."', "fig1.png"),
        ("attachment; filename*=iso-8859-1'en'%A3%20rates.png", "£ rates.png"),
        # An escaped backslash ends a quoted name: the parameters after it are read too.
        ("attachment; filename=\"\\\\\"; filename*=UTF-8''a%20b.png", "a b.png"),
        ('attachment; filename="a\\\\"; size=1', "fig1.png"),
        ('attachment; filename="say \\"hi\\".png"; x-note="a;b=c"', "say _hi_.png"),
        ("attachment; filename*0*=UTF-8''%E5%9B%BE; filename*1=\" 2.jpg\"", "图 2.jpg"),
        ("inline", "fig1.png"),
        (None, "fig1.png"),
    ],
)
def test_resource_filename_follows_rfc_6266_and_is_a_safe_base_name(
    client, httpserver: HTTPServer, disposition, filename
):
    headers = {"Content-Disposition": disposition} if disposition is not None else {}
    httpserver.expect_request("/resource").respond_with_data(b"\x89PNG", content_type="image/png", headers=headers)

    resource = client.resource("figures/doc/fig1.png")

    assert resource.filename == filename
    assert resource.content_disposition == disposition
    assert resource.data == b"\x89PNG"


@pytest.mark.parametrize(
    ("name", "header_bytes"),
    [("£ rates.png", "£ rates.png".encode("latin-1")), ("图 2.jpg", "图 2.jpg".encode())],
    ids=["latin-1", "utf-8"],
)
def test_content_disposition_bytes_are_read_as_utf8_else_latin1(client, httpserver: HTTPServer, name, header_bytes):
    header = b'attachment; filename="' + header_bytes + b'"'
    # werkzeug sends a header's text as ISO-8859-1: this text goes as exactly these bytes.
    httpserver.expect_request("/resource").respond_with_data(
        b"x", headers={"Content-Disposition": header.decode("latin-1")}
    )

    resource = client.resource("figures/doc/fig1.png")

    assert resource.content_disposition == f'attachment; filename="{name}"' and resource.filename == name


def _relations_body(**envelope):
    return {
        "items": [{"id": "W1", "id_type": "openalex", "title": "x"}],
        "total_count": 1,
        "page": 1,
        "page_size": 25,
        "total_pages": 1,
        **envelope,
    }


@pytest.mark.parametrize(
    "envelope", [{"code": "INTERNAL", "message": "boom", "biz_code": 0}, {"code": "SUCCESS", "biz_code": "5001"}]
)
def test_a_failed_relations_envelope_raises(client, httpserver: HTTPServer, envelope):
    httpserver.expect_request("/meta-paper-relations").respond_with_json(_relations_body(**envelope))

    with pytest.raises(paperlens.APIError) as raised:
        client.paper_relations("W0", "CITATIONS")
    assert raised.value.status == 200 and raised.value.code == envelope["code"]
    with pytest.raises(paperlens.APIError):
        list(client.iter_paper_relations("W0", "CITATIONS"))


async def test_a_failed_relations_envelope_raises_async(aclient, httpserver: HTTPServer):
    httpserver.expect_request("/meta-paper-relations").respond_with_json(_relations_body(code="ERR", biz_code=7))
    with pytest.raises(paperlens.APIError, match="biz_code=7"):
        await aclient.paper_relations("W0", "CITATIONS")


def test_a_successful_relations_envelope_reads(client, httpserver: HTTPServer):
    body = _relations_body(code="SUCCESS", message="ok", biz_code="0")
    httpserver.expect_request("/meta-paper-relations").respond_with_json(body)
    page = client.paper_relations("W0", "CITATIONS")
    assert page.biz_code == 0 and page.items[0].id == "W1"


@pytest.mark.parametrize(("page", "page_size"), [(2**62, 4), (2**63 - 1, 200)])
def test_page_depth_cannot_overflow(client, httpserver: HTTPServer, page, page_size):
    with pytest.raises(paperlens.ValidationError) as raised:
        client.meta_search("q", page=page, page_size=page_size)
    assert raised.value.param == "page"
    assert httpserver.log == []


def test_hit_is_a_plain_result(client, httpserver: HTTPServer):
    httpserver.expect_request("/agentic-search").respond_with_json({"hits": [hit(0)]})
    result = client.agentic_search("q")
    assert result.hits[0].to_dict() == hit(0) and result.hits[0].extra == {}


def test_results_compare_and_hash_by_their_fields_in_order_as_dataclasses_do():
    total = t.Total(value=12, relation="eq")
    assert total == t.Total._from_wire({"relation": "eq", "value": "12", "unnamed": 1})  # extras aside
    assert total != t.Total(value=13, relation="eq") and total != (12, "eq")
    assert hash(total) == hash(t.Total(value=12, relation="eq")) == hash((12, "eq"))
    assert t.FacetBucket(key="2020", doc_count=3) != t.Total(value=3)  # another type is never equal
    with pytest.raises(TypeError, match="unhashable"):
        hash(t.MetadataRecord(keywords=["x"]))  # a list field, as a dataclass would say


def test_a_truncated_answer_without_notes_says_what_the_flag_means(client, httpserver: HTTPServer):
    answer = {"items": [], "truncated": True}
    httpserver.expect_request("/paper-schema/search", method="POST").respond_with_json(answer)

    with pytest.warns(paperlens.PartialResultWarning) as caught:
        page = client.schema.search("q")

    assert [str(w.message) for w in caught] == [
        f"PaperSearchPage is truncated (request_id={page.request_id}): a cap was hit: the lists are not the whole set"
    ]
