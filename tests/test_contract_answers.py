"""Issue 12, proved: for each of the 24 operations, answers that the contract allows (see
``contract_answers``) come from a loopback server; the SDK must decode each one, every
attribute must be readable, no extra property may hide a method or attribute of the result,
and ``to_dict()`` must give the answer back. The same for ``/resource`` headers and for the
``details`` of error bodies."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import pickle
import re
import string
import types
import typing
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response
from werkzeug.datastructures import Headers

import paperlens
from paperlens import types as t
from paperlens.schema import Schema

from contract_answers import COMPONENTS, DOCUMENT, PROFILE, SHAPES, TEXT, Answers, expected, response_component

IDS = {"schema_id": "s1", "entity_id": "e1", "relation_id": "r1", "evidence_id": "ev1"}


@dataclass(frozen=True)
class Operation:
    name: str
    http: str
    document_path: str
    call: Callable[[Any], Any]

    @property
    def path(self) -> str:
        return self.document_path.format(**IDS)

    @property
    def component(self) -> str:
        return response_component(self.document_path, self.http.lower())

    @property
    def result(self) -> type[t.Response]:
        owner = Schema if self.document_path.startswith("/paper-schema") else paperlens.Client
        return typing.get_type_hints(getattr(owner, self.name))["return"]


OPERATIONS = [
    Operation("agentic_search", "POST", "/agentic-search", lambda c: c.agentic_search("q")),
    Operation("content", "GET", "/content", lambda c: c.content("d1")),
    Operation("meta_catalog", "GET", "/meta-catalog", lambda c: c.meta_catalog()),
    Operation("meta_search", "POST", "/meta-search", lambda c: c.meta_search("q")),
    Operation("paper_relations", "POST", "/meta-paper-relations", lambda c: c.paper_relations("W1", "CITATIONS")),
    Operation("capabilities", "GET", "/paper-schema", lambda c: c.schema.capabilities()),
    Operation("search", "POST", "/paper-schema/search", lambda c: c.schema.search("q")),
    Operation(
        "entity_related_papers",
        "POST",
        "/paper-schema/entities/related-papers",
        lambda c: c.schema.entity_related_papers("q"),
    ),
    Operation(
        "related_papers",
        "POST",
        "/paper-schema/schemas/{schema_id}/related-papers",
        lambda c: c.schema.related_papers("s1"),
    ),
    Operation("search_entities", "POST", "/paper-schema/entities/search", lambda c: c.schema.search_entities("q")),
    Operation("entities", "GET", "/paper-schema/schemas/{schema_id}/entities", lambda c: c.schema.entities("s1")),
    Operation(
        "entity",
        "GET",
        "/paper-schema/schemas/{schema_id}/entities/{entity_id}",
        lambda c: c.schema.entity("s1", "e1"),
    ),
    Operation(
        "search_relations",
        "POST",
        "/paper-schema/relations/search",
        lambda c: c.schema.search_relations(filters={"schema_ids": ["s1"]}),
    ),
    Operation(
        "relation",
        "GET",
        "/paper-schema/schemas/{schema_id}/relations/{relation_id}",
        lambda c: c.schema.relation("s1", "r1"),
    ),
    Operation(
        "citation_summary",
        "GET",
        "/paper-schema/schemas/{schema_id}/citation-summary",
        lambda c: c.schema.citation_summary("s1"),
    ),
    Operation("citations", "GET", "/paper-schema/schemas/{schema_id}/citations", lambda c: c.schema.citations("s1")),
    Operation(
        "citation_graph",
        "GET",
        "/paper-schema/schemas/{schema_id}/citation-graph",
        lambda c: c.schema.citation_graph("s1"),
    ),
    Operation(
        "search_evidence",
        "POST",
        "/paper-schema/evidence/search",
        lambda c: c.schema.search_evidence(["formula"], query="q"),
    ),
    Operation(
        "evidence",
        "GET",
        "/paper-schema/schemas/{schema_id}/evidence/{evidence_id}",
        lambda c: c.schema.evidence("s1", "ev1"),
    ),
    Operation(
        "resolve_provenance",
        "POST",
        "/paper-schema/resolve-provenance",
        lambda c: c.schema.resolve_provenance(paragraph_ids=["p1"]),
    ),
    Operation(
        "search_in_paper",
        "POST",
        "/paper-schema/search-in-schema",
        lambda c: c.schema.search_in_paper("s1", "q"),
    ),
    Operation(
        "hydrate_items",
        "POST",
        "/paper-schema/hydrate-items",
        lambda c: c.schema.hydrate_items([{"schema_id": "s1", "marker_nums": [1]}]),
    ),
    Operation("materials", "POST", "/paper-schema/materials", lambda c: c.schema.materials(["s1"])),
]
RESOURCE = Operation("resource", "GET", "/resource", lambda c: c.resource("figures/doc/fig 1.png"))
ASYNC_OPERATIONS = ["agentic_search", "meta_search", "citations", "citation_graph", "materials"]


def _model_classes() -> list[type[t.Model]]:
    return [c for c in vars(t).values() if isinstance(c, type) and issubclass(c, t.Model)]


#: Extra property names that collide with what the result classes are made of (named in issue 12).
COLLIDING = ["to_dict", "extra", "request_id", "_raw", "_absent", "__dict__", "__class__"]
COLLIDING += ["to_pandas", "_from_wire", "items", "keys"]
# What the client reads on any result after the call (a partial answer warns).
COLLIDING += ["partial", "warnings"]
CLASS_NAMES = sorted({name for cls in _model_classes() for name in dir(cls)})
PUBLIC_NAMES = [name for name in CLASS_NAMES if not name.startswith("_")]
PRIVATE_NAMES = [name for name in CLASS_NAMES if name.startswith("_")]


class Replies:
    """What the loopback server answers next: one server, many examples."""

    def __init__(self) -> None:
        self.status = 200
        self.body = b""
        self.headers = Headers()
        self.request_ids: list[str | None] = []

    def __call__(self, request: Request) -> Response:
        self.request_ids.append(request.headers.get("X-Request-ID"))
        response = Response(self.body, status=self.status, headers=self.headers.copy())
        if "Content-Type" not in self.headers:  # werkzeug would add one
            del response.headers["Content-Type"]
        return response

    def json(self, data: st.DataObject, wire: Any, status: int = 200) -> None:
        """Sends ``wire`` next, encoded in one of the ways JSON may be."""
        compact = data.draw(st.booleans(), label="compact")
        text = json.dumps(
            wire, ensure_ascii=data.draw(st.booleans(), label="ascii"), separators=(",", ":") if compact else None
        )
        self.status, self.body = status, text.encode()
        self.headers = Headers({"Content-Type": data.draw(st.sampled_from(_JSON_TYPES), label="content type")})
        request_id = data.draw(
            st.none() | st.text(string.ascii_letters + string.digits + "-", min_size=1), "X-Request-ID"
        )
        if request_id is not None:
            self.headers["X-Request-ID"] = request_id

    def answered_request_id(self) -> str | None:
        return self.headers.get("X-Request-ID") or self.request_ids[-1]


_JSON_TYPES = ["application/json", "application/json; charset=utf-8", "application/problem+json"]


@pytest.fixture
def replies(httpserver: HTTPServer) -> Replies:
    replies = Replies()
    for operation in [*OPERATIONS, RESOURCE]:
        httpserver.expect_request(operation.path, method=operation.http).respond_with_handler(replies)
    return replies


def _client(base_url: str, kind: type[Any] = paperlens.Client) -> Any:
    return kind(api_token="t", base_url=base_url, rate_limits=None, max_retries=0)


@pytest.fixture
def client(httpserver: HTTPServer) -> paperlens.Client:
    return _client(httpserver.url_for(""))


# -- what a decoded answer must be ------------------------------------------------------------

_ABSENT = object()


def assert_same(actual: Any, wanted: Any, where: str) -> None:
    """Equal and of the same JSON types all the way down (``1``, ``1.0`` and ``True`` differ)."""
    assert type(actual) is type(wanted), f"{where}: {actual!r} is not {wanted!r}"
    if isinstance(wanted, dict):
        assert actual.keys() == wanted.keys(), f"{where}: keys {list(actual)} are not {list(wanted)}"
        for key in wanted:
            assert_same(actual[key], wanted[key], f"{where}[{key!r}]")
    elif isinstance(wanted, list):
        assert len(actual) == len(wanted), f"{where}: {actual!r} is not {wanted!r}"
        for i, (a, w) in enumerate(zip(actual, wanted, strict=True)):
            assert_same(a, w, f"{where}[{i}]")
    else:
        assert actual == wanted, f"{where}: {actual!r} is not {wanted!r}"


@functools.cache
def _layout(cls: type[t.Model]) -> list[tuple[str, Any, type[t.Model] | None, bool]]:
    """Each field of ``cls``: name, default, the resource type it holds, whether a list of them."""
    hints = typing.get_type_hints(cls)
    layout = []
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        layout.append((f.name, default, *_resource_of(hints[f.name])))
    return layout


def _resource_of(hint: Any) -> tuple[type[t.Model] | None, bool]:
    members = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) not in (typing.Union, types.UnionType):
        members = [hint]
    if len(members) != 1:
        return None, False
    member, many = members[0], typing.get_origin(members[0]) is list
    if many:
        member = (typing.get_args(member) or [None])[0]
    return (member, many) if isinstance(member, type) and issubclass(member, t.Model) else (None, False)


def check_model(obj: t.Model, wanted: dict[str, Any], where: str, strict: bool = False) -> None:
    assert isinstance(wanted, dict), f"{where}: {type(obj).__name__} decoded from {wanted!r}"
    assert_same(obj.to_dict(), wanted, f"{where}.to_dict()")  # an undecoded row: from its JSON text
    extra = obj.extra  # decodes a row
    layout = _layout(type(obj))
    names = {name for name, *_ in layout}
    assert_same(extra, {k: v for k, v in wanted.items() if k not in names}, f"{where}.extra")
    for name, default, resource, many in layout:
        value, sent, at = getattr(obj, name), wanted.get(name, _ABSENT), f"{where}.{name}"
        if sent is _ABSENT or sent is None:
            allowed = [default] if sent is _ABSENT else [None, default]
            assert any(type(value) is type(d) and value == d for d in allowed), f"{at}: {value!r} for {sent!r}"
        elif resource is not None and many:
            assert type(value) is list and len(value) == len(sent), f"{at}: {value!r}"
            for i, (item, item_sent) in enumerate(zip(value, sent, strict=True)):
                assert isinstance(item, resource), f"{at}[{i}]: {item!r} is not a {resource.__name__}"
                check_model(item, item_sent, f"{at}[{i}]", strict)
        elif resource is not None and isinstance(sent, dict):
            assert isinstance(value, resource), f"{at}: {value!r} is not a {resource.__name__}"
            check_model(value, sent, at, strict)
        else:
            # Also a value that is not an object where one resource is expected: kept as sent
            # (an extra property of any shape there, e.g. `schema_paper` of an entity outside search).
            assert_same(value, sent, at)
    check_class_attributes(obj, wanted, names, where, strict)
    assert repr(obj)
    assert_same(pickle.loads(pickle.dumps(obj)).to_dict(), wanted, f"{where} after pickling")
    if isinstance(obj, t.PaperMaterials) and isinstance(wanted.get("counts"), dict):
        for key in wanted["counts"]:
            obj.count(key)


def check_class_attributes(obj: t.Model, wanted: dict[str, Any], fields: set[str], where: str, strict: bool) -> None:
    """Every property reads; an extra property never hides a method or attribute of the class
    (``strict``: nor a private or dunder one beyond those the issue names)."""
    cls = type(obj)
    for name in dir(cls):
        if not name.startswith("_") and name not in fields and isinstance(_class_attribute(cls, name), property):
            getattr(obj, name)
    for name in wanted.keys() - fields:
        attribute = _class_attribute(cls, name)
        if attribute is _ABSENT or not (strict or not name.startswith("_") or name in COLLIDING):
            continue
        bound = attribute.__get__(obj, cls) if hasattr(type(attribute), "__get__") else attribute
        assert getattr(obj, name) == bound, f"{where}: the extra property {name!r} hides {cls.__name__}.{name}"


def _class_attribute(cls: type, name: str) -> Any:
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return _ABSENT


def not_whole(wanted: dict[str, Any]) -> bool:
    """Whether a ``/paper-schema`` answer says it is not the whole set: ``partial``,
    ``truncated``, ``relations_truncated`` or a materials count ``truncated``, each ``true``."""
    items = wanted.get("items")
    counts = [
        count
        for item in (items if isinstance(items, list) else [])
        if isinstance(item, dict) and isinstance(item.get("counts"), dict)
        for count in item["counts"].values()
    ]
    flags = [wanted.get("partial"), wanted.get("truncated"), wanted.get("relations_truncated")]
    return any(flag is True for flag in flags) or any(
        isinstance(c, dict) and c.get("truncated") is True for c in counts
    )


def _leaves_out_a_locator(operation: Operation, result: Any) -> bool:
    """Whether the answer has a locator the call asked for in neither its segments nor its
    ``missing`` (the call of ``operation`` asks for paragraph ``p1`` or marker 1)."""

    def left_out(requested: str, returned: list[Any], missing: Any) -> bool:
        accounted = {str(value) for value in returned}
        accounted |= {str(value) for value in missing} if isinstance(missing, list) else set()
        return requested not in accounted

    if operation.name == "resolve_provenance":
        return left_out("p1", [s.paragraph_id for s in result.segments], result.missing)
    if operation.name == "hydrate_items":
        item = result.items[0] if result.items else None
        if item is None:
            return True
        return left_out("1", [s.marker for s in item.segments], item.extra.get("missing"))
    return False


def check_answer(
    operation: Operation,
    result: t.Response,
    wire: Any,
    replies: Replies,
    caught: list[warnings.WarningMessage],
    strict: bool = False,
) -> None:
    wanted = expected(wire)
    assert type(result) is operation.result
    assert result.request_id == replies.answered_request_id()
    told = [str(w.message) for w in caught if issubclass(w.category, paperlens.PartialResultWarning)]
    unreturned = [message for message in told if "neither in segments nor in missing" in message]
    # Only the /paper-schema answers have `partial` and `truncated` flags; elsewhere they are
    # extra properties. Any of them true means the answer is not the whole set.
    flagged = isinstance(result, t.SchemaResponse) and not_whole(wanted)
    assert len(told) - len(unreturned) == flagged, told
    assert bool(unreturned) == _leaves_out_a_locator(operation, result), told
    check_model(result, wanted, type(result).__name__, strict)
    assert_same(result.to_dict(), wanted, "to_dict() after every read")


def _call_sync(operation: Operation, client: paperlens.Client) -> tuple[Any, list[warnings.WarningMessage]]:
    if operation.name == "capabilities":
        client = _client(client.base_url)  # capabilities() is cached per client
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = operation.call(client)
    return result, caught


def _call_async(operation: Operation, base_url: str) -> tuple[Any, list[warnings.WarningMessage]]:
    async def call() -> Any:
        return await operation.call(_client(base_url, paperlens.AsyncClient))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = asyncio.run(call())
    return result, caught


def _by_name(names: list[str]) -> list[Operation]:
    return [o for o in OPERATIONS if o.name in names]


def _fields_beyond_contract() -> dict[str, list[str]]:
    """Per object path of the generator, the fields of the result class that decodes the
    object there which the contract does not give there: extra properties may have those names."""
    found: dict[str, set[str]] = {}

    def walk(schema: dict[str, Any], path: str, cls: type[t.Model]) -> None:
        properties = schema.get("properties", {})
        found.setdefault(path, set()).update(f.name for f in dataclasses.fields(cls) if f.name not in properties)
        hints = typing.get_type_hints(cls)
        for name, shape in properties.items():
            where = f"{path}.{name}"
            target = _object_schema(SHAPES.get(where, shape), where)
            resource = _resource_of(hints[name])[0] if name in hints else None
            if target is not None and resource is not None:
                walk(*target, resource)

    for operation in OPERATIONS:
        walk(COMPONENTS[operation.component], operation.component, operation.result)
    return {path: sorted(names) for path, names in found.items() if names}


def _object_schema(schema: dict[str, Any], path: str) -> tuple[dict[str, Any], str] | None:
    """The object schema (and its path) that a property holds, through references, lists and nulls."""
    while True:
        if "$ref" in schema:
            path = schema["$ref"].rsplit("/", 1)[1]
            schema = COMPONENTS[path]
        elif schema.get("type") == "array":
            schema = schema.get("items", {})
        elif "oneOf" in schema:
            branches = [branch for branch in schema["oneOf"] if branch.get("type") != "null"]
            if len(branches) != 1:
                return None
            schema = branches[0]
        else:
            return (schema, path) if schema.get("type") == "object" else None


def _answers(names: list[str]) -> tuple[Answers, Answers]:
    """Answers with extra properties named ``names`` (or any text), as generated and full."""
    beyond = _fields_beyond_contract()
    strategy = TEXT | st.sampled_from(names)
    return Answers(strategy, beyond), Answers(strategy, beyond, full=True)


WITH_COLLIDING_NAMES = _answers(COLLIDING)
WITH_PUBLIC_NAMES = _answers(PUBLIC_NAMES)
WITH_PRIVATE_NAMES = _answers(PRIVATE_NAMES)


def draw_answer(data: st.DataObject, answers: tuple[Answers, Answers], operation: Operation) -> Any:
    full = data.draw(st.booleans(), label="every field present")
    return data.draw(answers[full].component(operation.component), label="answer")


# -- the JSON answers of 23 operations ----------------------------------------------------------


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda o: o.name)
@PROFILE
@given(data=st.data())
def test_every_answer_the_contract_allows_decodes(operation, client, replies, data):
    wire = draw_answer(data, WITH_COLLIDING_NAMES, operation)
    replies.json(data, wire)
    result, caught = _call_sync(operation, client)
    check_answer(operation, result, wire, replies, caught)


@pytest.mark.parametrize("operation", _by_name(ASYNC_OPERATIONS), ids=lambda o: o.name)
@settings(PROFILE, max_examples=10)
@given(data=st.data())
def test_every_answer_the_contract_allows_decodes_async(operation, client, replies, data):
    wire = draw_answer(data, WITH_COLLIDING_NAMES, operation)
    replies.json(data, wire)
    result, caught = _call_async(operation, client.base_url)
    check_answer(operation, result, wire, replies, caught)


@settings(PROFILE, max_examples=40)
@given(data=st.data())
def test_a_frame_of_undecoded_rows_equals_the_frame_of_their_dicts(client, replies, data):
    """``to_pandas()`` of a page builds its columns from the rows' JSON text (src/rows.rs):
    the same frame as from the decoded rows, for every answer the contract allows."""
    operation = _by_name(["meta_search"])[0]
    wire = draw_answer(data, WITH_COLLIDING_NAMES, operation)
    replies.json(data, wire)
    page, _ = _call_sync(operation, client)
    eager = t.MetaSearchPage._from_wire(json.loads(replies.body), page.request_id)
    frame, expected = page.to_pandas(), eager.to_pandas()
    # A property moved aside for a shadowing name comes last in the dict path's column order.
    assert frame.sort_index(axis=1).equals(expected.sort_index(axis=1))


@pytest.mark.parametrize(
    ("answers", "strict"),
    [(WITH_PUBLIC_NAMES, False), (WITH_PRIVATE_NAMES, True)],
    ids=["public-class-names", "private-and-dunder-names"],
)
@settings(PROFILE, max_examples=60)
@given(data=st.data())
def test_extra_properties_named_like_class_attributes(answers, strict, client, replies, data):
    operation = data.draw(st.sampled_from(OPERATIONS), label="operation")
    wire = draw_answer(data, answers, operation)
    replies.json(data, wire)
    result, caught = _call_sync(operation, client)
    check_answer(operation, result, wire, replies, caught, strict)


@settings(PROFILE, max_examples=60)
@given(data=st.data())
def test_error_bodies_keep_details_of_any_shape(client, replies, data):
    operation = data.draw(st.sampled_from([*OPERATIONS, RESOURCE]), label="operation")
    body = data.draw(WITH_COLLIDING_NAMES[1].component("Error"), label="error body")
    replies.json(data, body, status=401)
    with pytest.raises(paperlens.AuthenticationError) as raised:
        operation.call(client)
    error = raised.value
    assert (error.status, error.code, error.message, error.request_id) == (
        401,
        body["code"],
        body["message"],
        body["request_id"],
    )
    assert_same(error.details, body.get("details"), "details")


# -- /resource: the bytes and the headers ---------------------------------------------------------

_TOKEN_CHARS = string.ascii_letters + string.digits + "!#$%&'+-.^_`~"
_UNSAFE = set('/\\<>:"|?*')
#: Windows' reserved device names, which the SDK prefixes with ``_``.
_RESERVED = re.compile(r"(?i)(CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|COM[0-9¹²³]|LPT[0-9¹²³])(\..*)?")
#: A name that is already a safe base name: the SDK must give it back unchanged. Not one: names
#: with format characters or line separators (dropped), a leading dot (a hidden file), trailing
#: dots or spaces (Windows drops them), a reserved device name.
_SAFE_TEXT = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Cf", "Zl", "Zp"), blacklist_characters=_UNSAFE),
    min_size=1,
    max_size=16,
).filter(lambda s: s == s.strip() and not s.startswith(".") and not s.endswith(".") and not _RESERVED.fullmatch(s))
_SAFE_ASCII = _SAFE_TEXT.filter(lambda s: s.isascii())
#: A quoted name may hold any ISO-8859-1 text (RFC 6266, 4.3). The SDK reads a header's bytes
#: as UTF-8 when they are, else as ISO-8859-1: a name whose ISO-8859-1 bytes are also valid
#: UTF-8 (``Ã©``, bytes C3 A9) cannot be told from the UTF-8 name (``é``) and reads as that.
_SAFE_LATIN_1 = st.text(
    st.characters(max_codepoint=0xFF, blacklist_categories=("Cc", "Cf"), blacklist_characters=_UNSAFE),
    min_size=1,
    max_size=16,
).filter(
    lambda s: (
        s == s.strip()
        and not s.startswith(".")
        and not s.endswith(".")
        and not s.isascii()
        and not _is_utf_8(s.encode("latin-1"))
    )
)
#: A name beyond ISO-8859-1, sent as raw UTF-8 bytes in a quoted ``filename`` (common in practice).
_SAFE_UTF_8 = _SAFE_TEXT.filter(lambda s: not _is_latin_1(s))
#: Fallback names that need quoted-pair escapes (``filename*`` must still win).
_ESCAPED_FALLBACKS = ["fig\\", 'say "hi".png', "..\\..\\x.png", "\\"]
_SAFE_TOKEN = st.text(_TOKEN_CHARS, min_size=1, max_size=16).filter(lambda s: s not in (".", ".."))
_UNUSABLE = st.sampled_from(["", ".", "..", "../", "a/..", "/", "\\", " "])
FALLBACK = "fig 1.png"  # the last component of RESOURCE's file_name
_ATTR_CHARS = string.ascii_letters + string.digits + "!#$&+-.^_`|~"


def _is_latin_1(text: str) -> bool:
    return all(ord(c) <= 0xFF for c in text)


def _is_utf_8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _quoted(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _extended(name: str, charset: str, language: str) -> str:
    return f"{charset}'{language}'{quote(name.encode(charset), safe=_ATTR_CHARS)}"


@st.composite
def dispositions(draw: st.DrawFn) -> tuple[str | None, str | None]:
    """A Content-Disposition header (or none) and the file name it must give (None: any safe name)."""
    kinds = ["none", "plain", "latin-1", "utf-8", "extended", "both", "path", "unusable", "junk"]
    kind = draw(st.sampled_from(kinds))
    if kind == "none":
        return None, FALLBACK
    if kind == "junk":
        junk = st.text(string.printable.strip("\r\n\x0b\x0c"), max_size=40).map(str.strip).filter(bool)
        return draw(junk), None  # (a field value has no surrounding white space)
    wanted: str | None
    if kind == "path":
        parts = draw(st.lists(st.sampled_from(["..", ".", "", "etc", "C:", "a b"]), min_size=1, max_size=3))
        wanted = draw(_SAFE_ASCII)
        name = draw(st.sampled_from("/\\")).join([*parts, wanted])
    elif kind == "unusable":
        name, wanted = draw(_UNUSABLE), FALLBACK
    elif kind == "latin-1":
        name = wanted = draw(_SAFE_LATIN_1)
    elif kind == "utf-8":
        name = wanted = draw(_SAFE_UTF_8)
    else:
        name = wanted = draw(_SAFE_TEXT)
    params = []
    if kind in ("latin-1", "utf-8") or (kind in ("plain", "path", "unusable") and name.isascii()):
        token = name != "" and all(c in _TOKEN_CHARS for c in name) and draw(st.booleans())
        params.append(f"{_case(draw, 'filename')}={name if token else _quoted(name)}")
    else:
        charset = draw(st.sampled_from(["UTF-8", "utf-8", "ISO-8859-1"] if _is_latin_1(name) else ["UTF-8", "utf-8"]))
        language = draw(st.sampled_from(["", "en", "zh-CN"]))
        params.append(f"{_case(draw, 'filename*')}={_extended(name, charset, language)}")
        if kind == "both":
            fallback = _quoted(draw(_SAFE_ASCII | st.sampled_from(_ESCAPED_FALLBACKS)))
            params.insert(draw(st.integers(0, 1)), f"{_case(draw, 'filename')}={fallback}")
    others = draw(
        st.lists(st.sampled_from(["size=1234", 'creation-date="Wed, 12 Feb 1997 16:29:51 -0500"', 'x-note="a;b=c"']))
    )
    params = draw(st.permutations([*params, *others]))
    separator = draw(st.sampled_from(["; ", ";", " ; "]))
    kind_word = draw(st.sampled_from(["attachment", "inline", "Attachment"]))
    return separator.join([kind_word, *params]), wanted


def _case(draw: st.DrawFn, name: str) -> str:
    return draw(st.sampled_from([name, name.upper(), name.capitalize()]))


def _check_resource(resource: t.Resource, body: bytes, content_type: str | None, disposition: str | None, wanted):
    assert resource.data == body
    assert resource.content_type == content_type
    assert resource.content_disposition == disposition
    name = resource.filename
    assert isinstance(name, str) and name not in ("", ".", "..")
    assert "/" not in name and "\\" not in name, name
    assert not any(ord(c) < 0x20 or c == "\x7f" for c in name), name
    if wanted is not None:
        assert name == wanted, f"{disposition!r} gave {name!r}"
    check_model(resource, resource.to_dict(), "Resource")


_CONTENT_TYPES = st.none() | st.sampled_from(
    ["image/png", "application/octet-stream", "image/svg+xml; charset=utf-8", 'text/plain;charset="UTF-8"']
)


def _resource_reply(data: st.DataObject, replies: Replies) -> tuple[bytes, str | None, str | None, str | None]:
    body = data.draw(st.binary(max_size=64), label="body")
    content_type = data.draw(_CONTENT_TYPES, label="content type")
    disposition, wanted = data.draw(dispositions(), label="content disposition")
    headers = Headers({"Cache-Control": "private, no-store"})
    if content_type is not None:
        headers["Content-Type"] = content_type
    if disposition is not None:
        # A header is sent as ISO-8859-1 (werkzeug): text beyond it goes as its UTF-8 bytes.
        sent = disposition if _is_latin_1(disposition) else disposition.encode().decode("latin-1")
        headers["Content-Disposition"] = sent
    replies.status, replies.body, replies.headers = 200, body, headers
    return body, content_type, disposition, wanted


@settings(PROFILE, max_examples=150)
@given(data=st.data())
def test_resource_headers(client, replies, data):
    body, content_type, disposition, wanted = _resource_reply(data, replies)
    resource = RESOURCE.call(client)
    _check_resource(resource, body, content_type, disposition, wanted)
    assert resource.request_id == replies.answered_request_id()


@settings(PROFILE, max_examples=20)
@given(data=st.data())
def test_resource_headers_async(client, replies, data):
    body, content_type, disposition, wanted = _resource_reply(data, replies)
    resource, _ = _call_async(RESOURCE, client.base_url)
    _check_resource(resource, body, content_type, disposition, wanted)


def test_every_operation_is_covered():
    documented = {
        (path, method) for path, ops in DOCUMENT["paths"].items() for method in ops if method in ("get", "post")
    }
    tested = {(o.document_path, o.http.lower()) for o in [*OPERATIONS, RESOURCE]}
    assert tested == documented and len(tested) == 24
