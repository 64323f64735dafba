"""What a harvest will cost, known before it starts: ``client.estimate_harvest(...)`` and
``paperlens harvest ... --dry-run``.

>>> estimate = client.estimate_harvest("coral bleaching", texts=True)
>>> print(estimate)                 # requests per operation, quota resources, time
Harvest estimate: ... records, ... texts (~: estimated from a sample of ... records)
operation                   requests  quota resource    rate  time at the rate
meta_search (/meta-search)         1     meta-search  30/min               0 s
content (/content)               ~...     none stated       -     network-bound
total                            ~...                                       0 s
>>> estimate.requests, estimate.seconds
(..., 0.0)

The estimate sends at most two requests and writes nothing: one ``/meta-search`` page (the
harvest's first, of 200 records, when texts are asked for; of one record otherwise) gives
``total_count`` and, with ``texts=True``, how many records carry a ``doc_id``; with
``figures=True`` one ``/content`` request reads a sample text to count the figures it links
to. From them it counts what the harvest sends:

- ``/meta-search``: one request per page of ``page_size`` records (200, the most, unless
  given); with ``ids``, pages of 200 ids per ``IN`` filter. Exact for a search (from
  ``total_count``, and ``limit``), estimated for ``ids`` beyond the first 200 (from the share
  of them the sample page matched).
- ``/content``: one request per record with a ``doc_id`` (a text longer than 524,288 code
  points, about 1 MB, takes one more per such length). Exact when the records fit in the
  sample page, estimated from its share of records with a ``doc_id`` otherwise.
- ``/resource``: one request per figure the texts link to, estimated from the sample text.

The time is the least the client's pacing allows for the requests bound by a quota
(``/meta-search``, ``/paper-schema``), at the rate in force: the configured ``rate_limits``, or
a lower rate the client learned from 429s of the gateway. The first N requests of a resource
paced at N per minute go at once, each further N a minute later. It counts
neither the service's answer times nor other processes that share the pacing. ``/content``
and ``/resource`` have no quota the contract states (the client slows them only when the
service answers 429), so their time is that of the network and the service.
"""

from __future__ import annotations

import dataclasses
import html
import math
from collections.abc import Callable, Iterable, Mapping

from paperlens._checks import count, invalid
from paperlens._contract import CONTENT_PAGE_MAX, PAGE_DEPTH_CAP, PAGE_SIZE_MAX
from paperlens._corpus_rules import checked_arguments, figure_names
from paperlens._operation import Call, Plan
from paperlens.errors import BadRequestError, NotFoundError, PermissionDeniedError
from paperlens.filters import Filter, FilterSpec, filters_to_wire

__all__ = ["Estimate", "OperationEstimate", "estimate_plan"]


@dataclasses.dataclass(frozen=True)
class OperationEstimate:
    """The requests a harvest sends to one operation.

    Attributes:
        operation: the client method, e.g. ``"meta_search"``.
        path: the service's path, e.g. ``"/meta-search"``.
        requests: how many requests.
        resource: the quota resource they draw on (``"meta-search"``), or None: the contract
            states no quota for the operation.
        per_minute: the client's pacing rate for ``resource``; None: not paced.
        seconds: the least time the pacing allows for them; None when no quota binds them.
        estimated: True when ``requests`` is extrapolated from a sample, False when counted.
    """

    operation: str
    path: str
    requests: int
    resource: str | None
    per_minute: int | None
    seconds: float | None
    estimated: bool


@dataclasses.dataclass(frozen=True)
class Estimate:
    """What a harvest will cost (see :mod:`paperlens.estimate`).

    Attributes:
        records: the records it will write (a lower bound when ``at_least``).
        total_count: the search's ``total_count``, or for ``ids`` the records matched (None
            when the service did not say).
        at_least: ``total_count`` is at the service's cap (10,000): there may be more.
        texts: the records with a ``doc_id``, whose texts it reads (None: no texts asked for).
        texts_counted: ``texts`` was counted in the sample (all the records fit in it), not
            extrapolated from its share.
        figures: the figures it downloads (None: not asked for, or no sample text readable).
        operations: the requests per operation.
        sample: the records of the sample page the estimate read.
        request_ids: the ids of the estimate's own requests.
    """

    records: int
    total_count: int | None
    at_least: bool
    texts: int | None
    texts_counted: bool
    figures: int | None
    operations: tuple[OperationEstimate, ...]
    sample: int
    request_ids: tuple[str, ...]

    @property
    def requests(self) -> int:
        """The requests in all."""
        return sum(op.requests for op in self.operations)

    @property
    def seconds(self) -> float:
        """The least time the quota pacing allows (the harvest sends its requests in turn)."""
        return sum(op.seconds or 0.0 for op in self.operations)

    def by_resource(self) -> dict[str | None, int]:
        """Requests per quota resource (None: operations without a stated quota)."""
        totals: dict[str | None, int] = {}
        for op in self.operations:
            totals[op.resource] = totals.get(op.resource, 0) + op.requests
        return totals

    def _rows(self) -> list[tuple[str, str, str, str, str]]:
        rows = []
        for op in self.operations:
            approx = "~" if op.estimated else ""
            rate = f"{op.per_minute}/min" if op.per_minute else "not paced"
            rows.append(
                (
                    f"{op.operation} ({op.path})",
                    f"{approx}{op.requests:,}",
                    op.resource or "none stated",
                    rate if op.resource else "-",
                    _duration(op.seconds) if op.seconds is not None else "network-bound",
                )
            )
        approx = "~" if any(op.estimated for op in self.operations) else ""
        rows.append(("total", f"{approx}{self.requests:,}", "", "", _duration(self.seconds)))
        return rows

    def _summary(self) -> str:
        parts = [f"{'at least ' if self.at_least else ''}{self.records:,} records"]
        if self.texts is not None:
            parts.append(f"{self.texts:,} texts")
        if self.figures is not None:
            parts.append(f"~{self.figures:,} figures")
        return ", ".join(parts)

    def __str__(self) -> str:
        head = ("operation", "requests", "quota resource", "rate", "time at the rate")
        rows = [head, *self._rows()]
        widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
        lines = [f"Harvest estimate: {self._summary()}{self._sampled()}"]
        for row in rows:
            cells = [
                cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            ]
            lines.append("  ".join(cells).rstrip())
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = "".join(
            f"<th>{html.escape(h)}</th>" for h in ("operation", "requests", "quota resource", "rate", "time")
        )
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in self._rows())
        return (
            f"<div><strong>Estimate</strong> · {html.escape(self._summary())}"
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
            f"<p>{html.escape(self._sampled().strip(' ()'))}</p></div>"
        )

    def _sampled(self) -> str:
        if not any(op.estimated for op in self.operations):
            return ""
        return f" (~: estimated from a sample of {self.sample} record{'' if self.sample == 1 else 's'})"


def estimate_plan(
    query: str | None,
    ids: Iterable[str] | None,
    by: str,
    filters: FilterSpec | list[FilterSpec] | None,
    texts: bool,
    figures: bool,
    limit: int | None,
    collection: str | None,
    page_size: int | None,
    rates: Callable[[], Mapping[str, int]],
) -> Plan[Estimate]:
    """The estimate of ``client.estimate_harvest`` (arguments checked before any request);
    ``rates()`` gives the pacing's rates in force, read after the estimate's own requests (a
    429 they met counts)."""
    wanted = checked_arguments(query, ids, by, texts, figures, limit)
    count("page_size", page_size, 1, maximum=PAGE_SIZE_MAX, optional=True)
    if collection is not None and (texts or wanted is not None):
        raise invalid("collection", "not with texts or ids (a corpus harvest searches papers)", collection)
    wire_filters = filters_to_wire(filters)
    if limit == 0 or wanted == []:
        return _estimate(rates(), records=0, total=0, texts=0 if texts else None, figures=0 if figures else None)
    if wanted is None:
        sample_size = min(PAGE_SIZE_MAX, limit or PAGE_SIZE_MAX) if texts else 1
        search = {"collection": collection, "filters": wire_filters, "page_size": sample_size}
        first = yield Call("meta_search", (query,), {**search, "fields": ["doc_id"] if texts else None})
        total = first.total_count
        if total is None:  # not said: the records of the sample, or more when a cursor follows
            total = len(first.results) + (1 if first.next_cursor else 0)
        records = total if limit is None else min(limit, total)
        at_least = total >= PAGE_DEPTH_CAP and (limit is None or limit > total)
        pages, pages_estimated = max(1, math.ceil(records / (page_size or PAGE_SIZE_MAX))), False
    else:
        batch = wanted[:PAGE_SIZE_MAX]
        first = yield Call(
            "meta_search",
            (None,),
            {"filters": [Filter(by, "in", batch).to_wire(), *(wire_filters or [])], "page_size": PAGE_SIZE_MAX},
        )
        matched = first.total_count if first.total_count is not None else len(first.results)
        batches = math.ceil(len(wanted) / PAGE_SIZE_MAX)
        per_batch = max(1, math.ceil(matched / PAGE_SIZE_MAX))  # pages of one batch's records
        total = matched if batches == 1 else round(matched / len(batch) * len(wanted))
        records = total if limit is None else min(limit, total)
        needed = batches if matched == 0 else min(batches, math.ceil(records / matched))
        at_least, pages, pages_estimated = False, max(1, needed * per_batch), batches > 1
    request_ids = [first.request_id]
    sampled = first.results[:records]
    documents = [r.doc_id for r in sampled if isinstance(r.doc_id, str) and r.doc_id]
    counted = records <= len(first.results)
    share = len(documents) / len(sampled) if sampled else 1.0
    text_count = (len(documents) if counted else round(share * records)) if texts else None
    figure_count = None
    if figures and documents:
        per_text = yield from _figures_of(documents[0], request_ids)
        if per_text is not None and text_count is not None:
            figure_count = per_text * text_count
    return _estimate(
        rates(),
        records=records,
        total=total,
        texts=text_count,
        figures=figure_count,
        texts_counted=counted,
        at_least=at_least,
        pages=pages,
        pages_estimated=pages_estimated,
        sample=len(first.results),
        request_ids=request_ids,
    )


def _figures_of(doc_id: str, request_ids: list[str]) -> Plan[int | None]:
    """The figures one sample text links to; None when it cannot be read."""
    try:
        page = yield Call("content", (doc_id,), {"offset": 0, "limit": CONTENT_PAGE_MAX})
    except (PermissionDeniedError, NotFoundError, BadRequestError):
        return None
    request_ids.append(page.request_id)
    return len(figure_names(page.text))


def _estimate(
    rates: Mapping[str, int],
    *,
    records: int,
    total: int | None,
    texts: int | None,
    figures: int | None,
    texts_counted: bool = True,
    at_least: bool = False,
    pages: int = 0,
    pages_estimated: bool = False,
    sample: int = 0,
    request_ids: list[str] | None = None,
) -> Estimate:
    operations = [_operation("meta_search", "/meta-search", pages, "meta-search", rates, pages_estimated)]
    if texts is not None:
        # Estimated all the same: a text longer than one page (unknown before it is read) takes more.
        operations.append(_operation("content", "/content", texts, None, rates, True))
    if figures is not None:
        operations.append(_operation("download_resource", "/resource", figures, None, rates, True))
    return Estimate(
        records=records,
        total_count=total,
        at_least=at_least,
        texts=texts,
        texts_counted=texts_counted,
        figures=figures,
        operations=tuple(operations),
        sample=sample,
        request_ids=tuple(request_ids or ()),
    )


def _operation(
    name: str, path: str, requests: int, resource: str | None, rates: Mapping[str, int], estimated: bool
) -> OperationEstimate:
    per_minute = rates.get(resource) if resource else None
    seconds = None
    if resource is not None:
        # A fresh window lets N requests go at once; each further N waits a minute more.
        seconds = 60.0 * max(0, math.ceil(requests / per_minute) - 1) if per_minute else 0.0
    return OperationEstimate(name, path, requests, resource, per_minute, seconds, estimated)


def _duration(seconds: float | None) -> str:
    if not seconds:
        return "0 s"
    minutes, rest = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"
