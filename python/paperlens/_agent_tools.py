"""The tools an agent reaches paperlens through, defined once for every integration (the MCP
server, the LangChain and LlamaIndex tools).

A tool is a name, a description saying when to use it, the JSON Schema of its input and a
plan: a generator that yields :class:`~paperlens._operation.Call` s of client methods and
returns the parts of its answer (:class:`TextPart`, :class:`ImagePart`), run with plain
calls for a ``Client`` (:meth:`AgentTool.run`) and with awaits for an ``AsyncClient``
(:meth:`AgentTool.arun`). A run gives an :class:`Answer`: the parts, or the text of its
failure; either way the client's token is masked in every text, here once for every
integration. The schema and the description come from the plan's signature and
docstring (:mod:`paperlens._agent_schema`), so each is written once.

:func:`default_tools` are the tools of ``docs/guides/agents.md``, shaped for a model's
context; :func:`operation_tools` are one per operation of the service, generated from the
definitions the clients are built from (``--tools all``). Every text part is bounded by
``max_chars`` and says how to continue exactly (a code-point offset, a cursor or a ``skip``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from paperlens import _contract as c
from paperlens._agent_output import (
    ImagePart,
    Part,
    TextPart,
    compact,
    continue_with,
    describe_error,
    fit,
    masked,
    render,
)
from paperlens._agent_schema import Choices, Signature, signature_of
from paperlens._given import _BIBTEX  # what the client takes for BibTeX text rather than a path
from paperlens._operation import Call, Operation, Plan, _run_async, _run_sync
from paperlens.client import AsyncClient, Client
from paperlens.errors import PaperlensError, ValidationError
from paperlens.filters import FilterSpec, SortSpec
from paperlens.lookup import LOOKUP_FIELDS
from paperlens.schema import Schema

__all__ = [
    "AgentTool",
    "Answer",
    "ImagePart",
    "Part",
    "TextPart",
    "default_tools",
    "failed",
    "operation_tools",
    "select_tools",
]

#: The ``max_chars`` of a tool's text when none is given.
DEFAULT_MAX_CHARS = 8000
#: The least ``max_chars``: room for the notes of an answer and some of its content.
MIN_MAX_CHARS = 1000
_SCHEMA_PREFIX = "schema_"


@dataclass(frozen=True)
class Answer:
    """What a tool call gives the model: its parts, or (``is_error``) one text saying what
    went wrong and what to do. The client's token is masked in every text."""

    parts: list[Part]
    is_error: bool

    @property
    def text(self) -> str:
        """The text parts, one after another."""
        return "\n\n".join(part.text for part in self.parts if isinstance(part, TextPart))


def failed(error: BaseException, client: Client | AsyncClient) -> Answer:
    """The answer of a call that failed with ``error`` (:func:`describe_error`)."""
    return _answer(client, [TextPart(describe_error(error))], is_error=True)


def _answer(client: Client | AsyncClient, parts: list[Part], *, is_error: bool) -> Answer:
    """``parts`` as an answer, with the client's token masked in every text (images are
    the service's bytes, passed on unchanged)."""
    secret = client._core.api_token()
    shown = [TextPart(masked(part.text, secret)) if isinstance(part, TextPart) else part for part in parts]
    return Answer(shown, is_error)


@dataclass(frozen=True)
class AgentTool:
    """One tool: ``plan(max_chars, **arguments)`` is its work (see the module docstring)."""

    name: str
    description: str
    signature: Signature
    plan: Callable[..., Plan[list[Part]]]

    @property
    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the tool's arguments object."""
        return self.signature.input_schema()

    def run(self, client: Client, arguments: Mapping[str, Any] | None, max_chars: int = DEFAULT_MAX_CHARS) -> Answer:
        """The tool's answer with ``client``: a failure (bad arguments, refused before any
        request, or the client's errors) is an answer too, saying what to do (:func:`failed`)."""
        try:
            parts = _run_sync(_Methods(client), self._plan(arguments, max_chars))
        except Exception as error:  # every failure goes back to the model as an answer
            return failed(error, client)
        return _answer(client, parts, is_error=False)

    async def arun(
        self, client: AsyncClient, arguments: Mapping[str, Any] | None, max_chars: int = DEFAULT_MAX_CHARS
    ) -> Answer:
        """:meth:`run` with an ``AsyncClient``, awaited."""
        try:
            parts = await _run_async(_Methods(client), self._plan(arguments, max_chars))
        except Exception as error:  # as in run
            return failed(error, client)
        return _answer(client, parts, is_error=False)

    def _plan(self, arguments: Mapping[str, Any] | None, max_chars: int) -> Plan[list[Part]]:
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < MIN_MAX_CHARS:
            raise ValidationError(
                f"max_chars: expected an integer of at least {MIN_MAX_CHARS}, got {max_chars!r}",
                param="max_chars",
                rule=f"an integer of at least {MIN_MAX_CHARS}",
            )
        return self.plan(max_chars, **self.signature.bind(arguments))


class _Methods:
    """A client's methods by tool name: ``schema_search`` is ``client.schema.search``."""

    def __init__(self, client: Client | AsyncClient) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        if name.startswith(_SCHEMA_PREFIX):
            return getattr(self._client.schema, name.removeprefix(_SCHEMA_PREFIX))
        return getattr(self._client, name)


def _tool(plan: Callable[..., Plan[list[Part]]]) -> AgentTool:
    signature = signature_of(plan, skip=1)
    return AgentTool(plan.__name__, signature.summary, signature, plan)


def _continue(summary: str, shown: int, total: int, after: dict[str, Any] | None) -> str:
    """The summary line of a list, with the arguments that continue it."""
    if after is None:
        return f"{summary}: {shown} of {total} shown, nothing follows."
    return f"{summary}: {shown} of {total} shown; {continue_with(after)}"


def _page(
    max_chars: int,
    summary: str,
    rows: list[Any],
    *,
    skip: int,
    following: dict[str, Any] | None,
    skipped: bool = False,
) -> list[Part]:
    """A page of ``rows`` (after ``skip``; ``skipped``: the rows start there already) fitted
    to ``max_chars``: continued with the same arguments and a larger ``skip`` when not all of
    it fits, else with ``following`` (what changes for the next page, None at the end)."""
    rest = rows if skipped else rows[skip:]

    def build(kept: list[Any], n: int) -> tuple[str, Any]:
        after = {"skip": skip + n} if n < len(rest) else following
        return _continue(summary, n, len(rest), after), kept

    return [TextPart(fit(max_chars, rest, build))]


# -- the default tools ---------------------------------------------------------------------

_RELATION = Choices(c.PAPER_RELATIONS, case_insensitive=True)
_LOOKUP_BY = Choices(LOOKUP_FIELDS)


def search_papers(
    max_chars: int,
    query: str,
    top_k: int = 10,
    year_from: int | None = None,
    year_to: int | None = None,
    skip: int = 0,
) -> Plan[list[Part]]:
    """Semantic search over the full texts of papers: the passages that best answer a question.

    Use it first for a research question in natural language. Each hit is a passage with its
    paper's doc_id and the code-point offset where it starts (read on with read_paper), the
    unique_id (for paper_relations and get_papers), title, year, authors and score.

    Args:
        query: the question or topic in natural language, 1-4096 characters.
        top_k: how many passages, 1-100.
        year_from: only papers published in or after this year.
        year_to: only papers published in or before this year.
        skip: hits already seen (a previous answer says when to use it); from 0.
    """
    years = {op: year for op, year in (("gte", year_from), ("lte", year_to)) if year is not None}
    filters = {"publication_published_year": years} if years else None
    found = yield Call("agentic_search", (query,), {"top_k": top_k, "filters": filters})
    hits = [compact(_hit(hit.to_dict())) for hit in found.hits]
    return _page(max_chars, f"search_papers {query!r}", hits, skip=skip, following=None)


_HIT_KEYS = (
    "doc_id",
    "offset",
    "unique_id",
    "title",
    "publication_published_year",
    "author",
    "publication_venue_name_unified",
    "score",
    "chunk",
)


def _hit(hit: dict[str, Any]) -> dict[str, Any]:
    return {key: hit.get(key) for key in _HIT_KEYS}


def read_paper(max_chars: int, doc_id: str, offset: int = 0) -> Plan[list[Part]]:
    """Read a paper's full text (Markdown), one bounded piece at a time.

    Use it to read a paper found by search_papers or search_metadata, from the offset of a
    passage or from the start. The answer holds the text from `offset` and, when more
    follows, `next_offset`: call again with it to read on (offsets count Unicode code points).

    Args:
        doc_id: the paper's doc_id (from search_papers, search_metadata or get_papers).
        offset: where to start, in code points: 0 for the start, or a passage's offset or
            the next_offset of the previous call; from 0.
    """
    page = yield Call("content", (doc_id,), {"offset": offset, "limit": min(max_chars, c.CONTENT_PAGE_MAX)})
    text, length = page.text, page.text_length

    def build(kept: int) -> str:
        end = offset + kept
        more = kept < len(text) or bool(page.more)
        payload = {"doc_id": doc_id, "offset": offset, "text": text[:kept], "text_length": length}
        if more:
            payload["next_offset"] = end
        step = continue_with({"offset": end}) if more else "the end of the text."
        return render(f"read_paper {doc_id}: code points {offset} to {end} of {length}; {step}", payload)

    low, high, best = 0, len(text), build(0)
    while low <= high:  # the most code points whose text fits
        middle = (low + high) // 2
        candidate = build(middle)
        if len(candidate) <= max_chars:
            best, low = candidate, middle + 1
        else:
            high = middle - 1
    return [TextPart(best)]


_RECORD_KEYS = (
    "unique_id",
    "doc_id",
    "doi",
    "title",
    "publication_published_year",
    "author",
    "publication_venue_name_unified",
    "type",
    "citation_count",
    "reference_count",
    "access_oa_url",
    "abstract",
)


def _record(record: dict[str, Any], fields: list[str] | None) -> dict[str, Any]:
    """A metadata record for a model: the fields asked for, else the ones to cite and
    follow; authors by name."""
    kept = record if fields else {key: record.get(key) for key in _RECORD_KEYS}
    authors = kept.get("author")
    if isinstance(authors, list) and not fields:
        kept = {**kept, "author": [a.get("name", a) if isinstance(a, dict) else a for a in authors]}
    shown: dict[str, Any] = compact(kept)
    return shown


def search_metadata(
    max_chars: int,
    query: str | None = None,
    filters: list[FilterSpec] | None = None,
    sort: list[SortSpec] | None = None,
    fields: list[str] | None = None,
    page_size: int = 10,
    cursor: str | None = None,
    skip: int = 0,
) -> Plan[list[Part]]:
    """Bibliographic search: papers by keywords, filters (year, venue, citations...) and sort.

    Use it to find papers by metadata rather than by meaning (a venue, an author, the most
    cited since a year) and to get their ids: unique_id for paper_relations and get_papers,
    doc_id for read_paper, doi to cite.

    Args:
        query: keywords; omit to filter only.
        filters: conditions that must all hold, each [field, op, value] (op one of == != > >=
            < <= in not_in contains match match_phrase), e.g. [["publication_published_year",
            ">=", 2020], ["citation_count", ">", 50]].
        sort: fields to sort by, each a name or [name, "asc"|"desc"], e.g. [["citation_count", "desc"]].
        fields: the record fields to return; omit for the usual ones.
        page_size: records per page, 1-200.
        cursor: the cursor a previous answer said to continue with.
        skip: records of this page already seen (a previous answer says when to use it); from 0.
    """
    page = yield Call(
        "meta_search",
        (query,),
        {"filters": filters, "sort": sort, "fields": fields, "page_size": page_size, "cursor": cursor},
    )
    records = [_record(record.to_dict(), fields) for record in page.results]
    following = {"cursor": page.next_cursor, "skip": 0} if page.next_cursor and records else None
    summary = f"search_metadata: {page.total_count} records match; this page"
    return _page(max_chars, summary, records, skip=skip, following=following)


def get_papers(
    max_chars: int, ids: list[str], by: Annotated[str, _LOOKUP_BY] = "unique_id", skip: int = 0
) -> Plan[list[Part]]:
    """Metadata records of known papers by their ids (unique_id, DOI, doc_id or ISBN-13).

    Use it to get the citable details (title, authors, year, venue, DOI, abstract) of papers
    whose ids you have, e.g. from paper_relations or a reference list.

    Args:
        ids: the ids, all of one kind.
        by: what the ids are: "unique_id", "doi", "doc_id" or "isbn13".
        skip: ids already seen (a previous answer says when to use it); from 0.
    """
    found = yield Call("lookup", (ids,), {"by": by})
    rows = [
        {"id": i, "record": _record(r.to_dict(), None) if r is not None else None}
        for i, r in zip(ids, found.records, strict=True)
    ]
    return _page(max_chars, f"get_papers by {by}", rows, skip=skip, following=None)


def paper_relations(
    max_chars: int,
    unique_id: str,
    relation: Annotated[str, _RELATION],
    page: int = 1,
    page_size: int = 25,
    skip: int = 0,
) -> Plan[list[Part]]:
    """The citations, references or related works of a paper (citation snowballing).

    Use it to follow the literature from a paper: who cites it ("citations"), whom it cites
    ("references") or similar work ("related_works"). Items give ids and titles; get_papers
    gives their details.

    Args:
        unique_id: the paper's unique_id (from search_metadata or search_papers), not a doc_id.
        relation: "citations", "references" or "related_works".
        page: the page number, from 1.
        page_size: items per page, 1-200.
        skip: items of this page already seen (a previous answer says when to use it); from 0.
    """
    answer = yield Call("paper_relations", (unique_id, relation), {"page": page, "page_size": page_size})
    items = [compact(item.to_dict()) for item in answer.items]
    last = answer.total_pages is None or page >= answer.total_pages or not items
    following = None if last else {"page": page + 1, "skip": 0}
    summary = f"paper_relations {relation} of {unique_id}: {answer.total_count} in all; page {page}"
    return _page(max_chars, summary, items, skip=skip, following=following)


def search_evidence(
    max_chars: int,
    groups: list[str],
    query: str | None = None,
    schema_ids: list[str] | None = None,
    size: int = 10,
    cursor: str | None = None,
    skip: int = 0,
) -> Plan[list[Part]]:
    """Structured evidence from parsed papers (claims and results, tables, formulas,
    resources), each with its provenance.

    Use it to find what papers report, with locators to cite: pass an item's schema_id and
    its provenance markers to resolve_provenance for the exact source paragraphs.

    Args:
        groups: 1-5 evidence groups, e.g. ["core_claim_result"], ["table_evidence"],
            ["formula"], ["resource"].
        query: text the evidence must match.
        schema_ids: only evidence of these papers, at most 100.
        size: evidence per page, 1-100.
        cursor: the cursor a previous answer said to continue with.
        skip: items of this page already seen (a previous answer says when to use it); from 0.
    """
    answer = yield Call(
        "schema_search_evidence",
        (groups,),
        {"query": query, "schema_ids": schema_ids, "size": size, "cursor": cursor},
    )
    items = [compact(item.to_dict()) for item in answer.items]
    following = {"cursor": answer.next_cursor, "skip": 0} if answer.next_cursor and items else None
    return _page(max_chars, "search_evidence", items, skip=skip, following=following)


def resolve_provenance(
    max_chars: int,
    schema_id: str | None = None,
    marker_nums: list[int] | None = None,
    paragraph_ids: list[str] | None = None,
    window: int = 0,
    skip: int = 0,
) -> Plan[list[Part]]:
    """The source paragraphs of evidence: the exact text to quote and cite.

    Use it after search_evidence: pass the paper's schema_id with the marker numbers of the
    evidence's provenance items (or paragraph_ids instead). Each paragraph comes with its id.

    Args:
        schema_id: the paper of marker_nums.
        marker_nums: provenance markers, passed back unchanged, at most 100.
        paragraph_ids: paragraph ids instead of schema_id and marker_nums, at most 100.
        window: neighbouring paragraphs to add before and after each, 0-5.
        skip: paragraphs already seen (a previous answer says when to use it); from 0.
    """
    answer = yield Call(
        "schema_resolve_provenance",
        (),
        {"schema_id": schema_id, "marker_nums": marker_nums, "paragraph_ids": paragraph_ids, "window": window},
    )
    segments = [compact(segment.to_dict()) for segment in answer.segments]
    summary = "resolve_provenance" + (f" (not resolved: {answer.missing})" if answer.missing else "")
    return _page(max_chars, summary, segments, skip=skip, following=None)


def get_figure(max_chars: int, file_name: str) -> Plan[list[Part]]:
    """A figure of a paper, as an image.

    Use it to look at a figure a paper's text links to, e.g. figures/W4000005640/fig1.png
    in "![...](figures/W4000005640/fig1.png)".

    Args:
        file_name: the figure's path as the text names it, e.g. figures/W4000005640/fig1.png.
    """
    resource = yield Call("resource", (file_name,))
    return _image(max_chars, file_name, resource)


def _image(max_chars: int, file_name: str, resource: Any) -> list[Part]:
    import filetype  # the mcp extra's; read from the bytes, whatever the name or header says

    mime = filetype.guess_mime(resource.data)
    if mime is None or not mime.startswith("image/"):
        raise PaperlensError(f"{file_name} is not an image ({mime or 'unknown type'}, {len(resource.data)} bytes)")
    about = {"file_name": file_name, "filename": resource.filename, "mime_type": mime, "bytes": len(resource.data)}
    return [
        TextPart(fit(max_chars, [about], lambda kept, n: (f"get_figure {file_name}", kept[0] if kept else {}))),
        ImagePart(resource.data, mime),
    ]


def verify_citations(
    max_chars: int,
    references: list[str | dict[str, Any]] | None = None,
    bibtex: str | None = None,
    skip: int = 0,
) -> Plan[list[Part]]:
    """Check a reference list against the service: does each cited work exist, and are its
    title, authors, year, venue and DOI right?

    Use it before citing references from a draft, a paper or memory. Each comes back
    verified, mismatch (with each differing field as [given, found]), not_found or ambiguous,
    with a confidence, the reasons and the record's unique_id and DOI.

    Args:
        references: the references, each a free-text citation or a CSL-JSON item.
        bibtex: BibTeX entries (the text), instead of references.
        skip: references already reported (a previous answer says when to use it); from 0.
    """
    if (references is None) == (bibtex is None):
        raise ValidationError(
            "references: give references or bibtex, not both or neither",
            param="references",
            rule="exactly one of references and bibtex",
        )
    if bibtex is not None and not _BIBTEX.search(bibtex):  # the client would read a file of that name
        raise ValidationError(
            "bibtex: expected BibTeX entries such as @article{key, title={...}, ...}",
            param="bibtex",
            rule="BibTeX text",
        )
    checked = yield Call("verify_citations", (references[skip:] if references is not None else bibtex,))
    first = skip if references is not None else 0
    rows = [{"reference": first + i, **compact(row)} for i, row in enumerate(checked.rows())]
    counts = ", ".join(f"{status} {n}" for status, n in checked.counts.items() if n)
    summary = f"verify_citations ({counts or 'nothing to check'}); references"
    return _page(max_chars, summary, rows, skip=skip, following=None, skipped=references is not None)


def default_tools() -> list[AgentTool]:
    """The tools of ``--tools default``, in the order an agent would use them."""
    plans = (
        search_papers,
        read_paper,
        search_metadata,
        get_papers,
        paper_relations,
        search_evidence,
        resolve_provenance,
        verify_citations,
        get_figure,
    )
    return [_tool(plan) for plan in plans]


# -- one tool per operation ----------------------------------------------------------------


def operation_tools() -> list[AgentTool]:
    """One tool per operation of the service, named after its method (``schema_`` before a
    ``client.schema`` one), from the operations' definitions: parameters, bounds and
    documentation as the clients have them. A list answer gains a ``skip`` parameter."""
    tools = []
    for prefix, owner in (("", Client), (_SCHEMA_PREFIX, Schema)):
        for name, member in inspect.getmembers(owner):
            if isinstance(member, Operation):
                tools.append(_operation_tool(prefix + name, member._define, member._model()))
    tools.append(_operation_tool("resource", Client.resource, None))
    tools.append(_operation_tool(_SCHEMA_PREFIX + "capabilities", Schema.capabilities, None))
    return sorted(tools, key=lambda tool: tool.name)


_SKIP = "skip"


def _operation_tool(name: str, function: Callable[..., Any], model: type | None) -> AgentTool:
    signature = signature_of(function, skip=1)
    rows = getattr(model, "_rows", None)
    if rows is not None:
        signature = signature.with_parameter(
            _SKIP, int, 0, f"items of the answer's {rows} already seen (a previous answer says when to use it); from 0."
        )

    def plan(max_chars: int, **arguments: Any) -> Plan[list[Part]]:
        skip = arguments.pop(_SKIP, 0)
        result = yield Call(name, (), arguments)
        if name == "resource":
            return _image(max_chars, arguments["file_name"], result)
        payload = compact(result.to_dict())
        if rows is None:
            return [TextPart(fit(max_chars, [payload], lambda kept, n: (name, kept[0] if kept else {})))]
        items = payload.pop(rows, [])
        rest = items[skip:]

        def build(kept: list[Any], n: int) -> tuple[str, Any]:
            after = {_SKIP: skip + n} if n < len(rest) else None
            return _continue(f"{name}: {rows}", n, len(rest), after), {**payload, rows: kept}

        return [TextPart(fit(max_chars, rest, build))]

    return AgentTool(name, signature.summary, signature, plan)


def select_tools(spec: str) -> list[AgentTool]:
    """The tools ``--tools`` names: ``default``, ``all`` (the default ones and one per
    operation) or a comma-separated list of names of either."""
    defaults = default_tools()
    if spec == "default":
        return defaults
    taken = {tool.name for tool in defaults}  # paper_relations: the default tool is the operation's
    every = defaults + [tool for tool in operation_tools() if tool.name not in taken]
    if spec == "all":
        return every
    by_name = {tool.name: tool for tool in every}
    names = [name.strip() for name in spec.split(",") if name.strip()]
    unknown = [name for name in names if name not in by_name]
    if unknown or not names:
        raise ValidationError(
            f"tools: unknown tool {', '.join(unknown) or spec!r} "
            f"(expected default, all or names among: {', '.join(sorted(by_name))})",
            param="tools",
            rule="default, all or tool names",
        )
    return [by_name[name] for name in dict.fromkeys(names)]
