"""The work of the default agent tools (:func:`paperlens.agents._tools.default_tools`): one
:data:`~paperlens.machinery._operation.Plan` per tool, whose signature and docstring are the tool's
input schema and description (:mod:`paperlens.agents._schema`). A plan yields the client calls
it needs and returns the parts of its answer, or for a list a
:class:`~paperlens.agents._memory.Listing` of every row, which the tool shows a bounded piece at
a time. Summaries are the server's words and numbers; what the service sent goes in the rows.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from paperlens.agents._memory import Listing
from paperlens.agents._output import ImagePart, Part, TextPart, compact, continue_with, fit, render
from paperlens.agents._schema import Choices
from paperlens.base import _contract as c
from paperlens.base._ids import normalize_doi, normalize_id
from paperlens.base.filters import FilterSpec, SortSpec
from paperlens.errors import PaperlensError, ValidationError
from paperlens.machinery._operation import Call, Plan
from paperlens.workflows._given import _BIBTEX  # what the client takes for BibTeX text rather than a path
from paperlens.workflows.lookup import LOOKUP_FIELDS

__all__ = ["PLANS", "Result", "id_kind", "image"]

#: What a plan returns: the parts of its answer, or every row of a list.
Result = list[Part] | Listing


_RELATION = Choices(c.PAPER_RELATIONS, case_insensitive=True)
_LOOKUP_BY = Choices(LOOKUP_FIELDS)


def search_papers(
    max_chars: int,
    query: str,
    top_k: int = 10,
    year_from: int | None = None,
    year_to: int | None = None,
) -> Plan[Listing]:
    """Semantic search over the full texts of papers: the passages that best answer a question.

    Use it first for a research question in natural language. Each hit is a passage with its
    paper's doc_id and the code-point offset where it starts (read on with read_paper), the
    unique_id (for paper_relations and get_papers), title, year, authors and score.

    Args:
        query: the question or topic in natural language, 1-4096 characters.
        top_k: how many passages, 1-100.
        year_from: only papers published in or after this year.
        year_to: only papers published in or before this year.
    """
    years = {op: year for op, year in (("gte", year_from), ("lte", year_to)) if year is not None}
    filters = {"publication_published_year": years} if years else None
    found = yield Call("agentic_search", (query,), {"top_k": top_k, "filters": filters})
    hits = [compact(_hit(hit.to_dict())) for hit in found.hits]
    return Listing(f"search_papers {query!r}", hits)


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
    facets: list[str] | None = None,
    count_only: bool = False,
    *,
    cursor: str | None = None,
) -> Plan[Result]:
    """Bibliographic search: papers by keywords, filters (year, venue, citations...) and sort.

    Use it to find papers by metadata rather than by meaning (a venue, an author, the most
    cited since a year) and to get their ids: unique_id for paper_relations and get_papers,
    doc_id for read_paper, doi to cite. For "how many papers ..." questions, count_only
    answers the total (and the facets) without records.

    Args:
        query: keywords; omit to filter only.
        filters: conditions that must all hold, each [field, op, value] (op one of == != > >=
            < <= in not_in contains match match_phrase), e.g. [["publication_published_year",
            ">=", 2020], ["citation_count", ">", 50]].
        sort: fields to sort by, each a name or [name, "asc"|"desc"], e.g. [["citation_count", "desc"]].
        fields: the record fields to return; omit for the usual ones.
        page_size: records per page, 1-200.
        facets: fields to count the matching records by (their 10 most frequent values each),
            e.g. ["publication_published_year"]; at most 5.
        count_only: true for the number of matching records (and the facets) only, no records.
    """
    options = {"filters": filters, "sort": sort, "facets": facets}
    if count_only:
        page = yield Call("meta_search", (query,), {**options, "fields": ["unique_id"], "page_size": 1})
        return [TextPart(render(_count_summary(page.total_count), _counts(page)))]
    page = yield Call("meta_search", (query,), {**options, "fields": fields, "page_size": page_size, "cursor": cursor})
    records = [_record(record.to_dict(), fields) for record in page.results]
    following = {"cursor": page.next_cursor} if page.next_cursor and records else None
    summary = f"search_metadata: {page.total_count} records match; this page"
    if facets:
        return Listing(summary, records, following, rows_key="records", envelope=_counts(page))
    return Listing(summary, records, following)


def _count_summary(total: int | None) -> str:
    at_cap = " (the service counts to 10000: 10000 or more)" if total == c.PAGE_DEPTH_CAP else ""
    return f"search_metadata, count only: {total} records match{at_cap}; no records are listed."


def _counts(page: Any) -> dict[str, Any]:
    """The total and the facets of a ``meta_search`` page."""
    counts: dict[str, Any] = compact({"total_count": page.total_count, "facets": [f.to_dict() for f in page.facets]})
    return counts


def get_papers(max_chars: int, ids: list[str], by: Annotated[str, _LOOKUP_BY] | None = None) -> Plan[Listing]:
    """Metadata records of known papers by their ids (DOI, unique_id, doc_id or ISBN-13).

    Use it to get the citable details (title, authors, year, venue, DOI, abstract) of papers
    whose ids you have, e.g. from paper_relations or a reference list. Each id's kind is told
    from its shape unless `by` says it (DOIs bare, with doi: or as https://doi.org/ links;
    ISBN-13 with or without hyphens; a doc_id is 64 hex digits; anything else a unique_id);
    kinds may be mixed.

    Args:
        ids: the ids.
        by: what all the ids are: "unique_id", "doi", "doc_id" or "isbn13"; omit to tell each
            id's kind from its shape.
    """
    kinds = [by or id_kind(value) for value in ids]
    groups: dict[str, list[int]] = {}
    for position, kind in enumerate(kinds):
        groups.setdefault(kind, []).append(position)
    records: dict[int, Any] = {}
    for kind, positions in groups.items():
        try:
            found = yield Call("lookup", ([ids[i] for i in positions],), {"by": kind})
        except ValidationError as error:  # its ids[n] counts within the kind: name the position given
            raise _renumbered(error, positions) from None
        records.update(zip(positions, found.records, strict=True))
    rows = [_looked_up(ids[i], kinds[i], records[i], by is None) for i in range(len(ids))]
    missing = sum(1 for row in rows if "record" not in row)
    found_note = f"{len(ids) - missing} of {len(ids)} found" + (
        "; each row not found says which kind of id was assumed and what to try" if missing else ""
    )
    return Listing(f"get_papers ({found_note}); ids", rows)


_DOI_LIKE = re.compile(r"^10\.\d{4,9}/\S+$")
_ISBN13_LIKE = re.compile(r"^(?:97[89])\d{10}$")
_DOC_ID_LIKE = re.compile(r"^[0-9a-fA-F]{64}$")


def id_kind(value: str) -> str:
    """The kind of id ``value`` looks like: ``doi`` (bare, ``doi:``, a doi.org link),
    ``isbn13`` (978 or 979 and ten more digits, hyphens and spaces allowed), ``doc_id`` (64
    hex digits), else ``unique_id``."""
    if _DOI_LIKE.match(normalize_doi(value)):
        return "doi"
    if _ISBN13_LIKE.match(normalize_id(value, "isbn13")):
        return "isbn13"
    if _DOC_ID_LIKE.match(value.strip()):
        return "doc_id"
    return "unique_id"


def _looked_up(value: str, kind: str, record: Any, guessed: bool) -> dict[str, Any]:
    if record is not None:
        return {"id": value, "by": kind, "record": _record(record.to_dict(), None)}
    others = ", ".join(f'"{k}"' for k in LOOKUP_FIELDS if k != kind)
    how = "assumed from its shape" if guessed else "as by says"
    return {
        "id": value,
        "by": kind,
        "not_found": f"no record has this {kind} ({how}); if it is another kind of id, call again with by set to "
        f"one of {others}; or find the paper with search_metadata or search_papers by its title",
    }


def _renumbered(error: ValidationError, positions: list[int]) -> ValidationError:
    """``error`` about ``ids[n]`` of a group, about the position that id had in ``ids``."""
    found = re.match(r"ids\[(\d+)\]", error.param or "")
    if found is None:
        return error
    param = f"ids[{positions[int(found.group(1))]}]"
    message = str(error).replace(error.param, param, 1)
    return ValidationError(message, param=param, rule=error.rule)


def paper_relations(
    max_chars: int,
    unique_id: str,
    relation: Annotated[str, _RELATION],
    page: int = 1,
    page_size: int = 25,
) -> Plan[Listing]:
    """The citations, references or related works of a paper (citation snowballing).

    Use it to follow the literature from a paper: who cites it ("citations"), whom it cites
    ("references") or similar work ("related_works"). Items give ids and titles; get_papers
    gives their details.

    Args:
        unique_id: the paper's unique_id (from search_metadata or search_papers), not a doc_id.
        relation: "citations", "references" or "related_works".
        page: the page number, from 1.
        page_size: items per page, 1-200.
    """
    answer = yield Call("paper_relations", (unique_id, relation), {"page": page, "page_size": page_size})
    items = [compact(item.to_dict()) for item in answer.items]
    last = answer.total_pages is None or page >= answer.total_pages or not items
    following = None if last else {"page": page + 1}
    summary = f"paper_relations {relation} of {unique_id}: {answer.total_count} in all; page {page}"
    return Listing(summary, items, following)


def search_evidence(
    max_chars: int,
    groups: list[str],
    query: str | None = None,
    schema_ids: list[str] | None = None,
    size: int = 10,
    *,
    cursor: str | None = None,
) -> Plan[Listing]:
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
    """
    answer = yield Call(
        "schema_search_evidence",
        (groups,),
        {"query": query, "schema_ids": schema_ids, "size": size, "cursor": cursor},
    )
    items = [compact(item.to_dict()) for item in answer.items]
    following = {"cursor": answer.next_cursor} if answer.next_cursor and items else None
    return Listing("search_evidence", items, following)


def resolve_provenance(
    max_chars: int,
    schema_id: str | None = None,
    marker_nums: list[int] | None = None,
    paragraph_ids: list[str] | None = None,
    window: int = 0,
) -> Plan[Listing]:
    """The source paragraphs of evidence: the exact text to quote and cite.

    Use it after search_evidence: pass the paper's schema_id with the marker numbers of the
    evidence's provenance items (or paragraph_ids instead). Each paragraph comes with its id;
    what could not be resolved is listed in "missing".

    Args:
        schema_id: the paper of marker_nums.
        marker_nums: provenance markers, passed back unchanged, at most 100.
        paragraph_ids: paragraph ids instead of schema_id and marker_nums, at most 100.
        window: neighbouring paragraphs to add before and after each, 0-5.
    """
    answer = yield Call(
        "schema_resolve_provenance",
        (),
        {"schema_id": schema_id, "marker_nums": marker_nums, "paragraph_ids": paragraph_ids, "window": window},
    )
    segments = [compact(segment.to_dict()) for segment in answer.segments]
    missing = {"missing": answer.missing} if answer.missing else {}
    summary = "resolve_provenance" + (" (some not resolved: see missing)" if missing else "") + "; paragraphs"
    return Listing(summary, segments, rows_key="segments", envelope=missing)


def get_figure(max_chars: int, file_name: str) -> Plan[list[Part]]:
    """A figure of a paper, as an image.

    Use it to look at a figure a paper's text links to, e.g. figures/W4000005640/fig1.png
    in "![...](figures/W4000005640/fig1.png)".

    Args:
        file_name: the figure's path as the text names it, e.g. figures/W4000005640/fig1.png.
    """
    resource = yield Call("resource", (file_name,))
    return image(max_chars, file_name, resource)


def image(max_chars: int, file_name: str, resource: Any) -> list[Part]:
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
) -> Plan[Listing]:
    """Check a reference list against the service: does each cited work exist, and are its
    title, authors, year, venue and DOI right?

    Use it before citing references from a draft, a paper or memory. Each comes back
    verified, mismatch (with each differing field as [given, found]), not_found (invented or
    absent), ambiguous, or unverifiable (a web page, software, a dataset or a standard, which the
    service does not index, or too little given to search), with a confidence, the reasons and
    the record's unique_id and DOI.

    Args:
        references: the references, each a free-text citation or a CSL-JSON item.
        bibtex: BibTeX entries (the text), instead of references.
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
    checked = yield Call("verify_citations", (references if references is not None else bibtex,))
    rows = [{"reference": i, **compact(row)} for i, row in enumerate(checked.rows())]
    counts = ", ".join(f"{status} {n}" for status, n in checked.counts.items() if n)
    return Listing(f"verify_citations ({counts or 'nothing to check'}); references", rows)


#: The default tools' plans, in the order an agent would use them; the first two answer
#: parts (a text read by offset, a figure), the others lists.
PLANS = (
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
