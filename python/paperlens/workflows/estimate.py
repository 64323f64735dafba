"""The code of :mod:`paperlens.estimate`, the public module that re-exports it and documents it."""

from __future__ import annotations

import dataclasses
import hashlib
import html
import math
import os
import statistics
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from paperlens.base import _checks as checks
from paperlens.base._checks import count, invalid
from paperlens.base._contract import CONTENT_PAGE_MAX, PAGE_DEPTH_CAP, PAGE_SIZE_MAX
from paperlens.base.filters import Filter, FilterSpec, filters_to_wire
from paperlens.errors import BadRequestError, NotFoundError, PermissionDeniedError, ValidationError
from paperlens.machinery._operation import Call, Plan
from paperlens.storage._manifest import output_manifest
from paperlens.storage._stored import output_keys, record_key
from paperlens.workflows._corpus_rules import checked_arguments, figure_names
from paperlens.workflows._whole_text import whole_text

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
        likely: the range ``requests`` likely falls in (the sample's mean ± two standard
            errors), for figures estimated from two sample texts or more; None otherwise.
    """

    operation: str
    path: str
    requests: int
    resource: str | None
    per_minute: int | None
    seconds: float | None
    estimated: bool
    likely: tuple[int, int] | None = None

    @classmethod
    def at_rates(
        cls,
        operation: str,
        path: str,
        requests: int,
        resource: str | None,
        rates: Mapping[str, int],
        estimated: bool,
        likely: tuple[int, int] | None = None,
    ) -> OperationEstimate:
        """The estimate of ``requests`` to ``operation`` at the client's pacing ``rates``
        (requests per minute, by quota resource)."""
        per_minute = rates.get(resource) if resource else None
        seconds = None
        if resource is not None:
            # A fresh window lets N requests go at once; each further N waits a minute more.
            seconds = 60.0 * max(0, math.ceil(requests / per_minute) - 1) if per_minute else 0.0
        return cls(operation, path, requests, resource, per_minute, seconds, estimated, likely)

    def time_text(self, unpaced: str = "network-bound") -> str:
        """``seconds`` as text (``"1 min 00 s"``), or ``unpaced`` when no quota binds the requests."""
        return _duration(self.seconds) if self.seconds is not None else unpaced


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
        figures: the figures it downloads (None: not asked for, or no sample text read).
        operations: the requests per operation.
        sample: the records of the sample page the estimate read.
        request_ids: the ids of the estimate's own requests.
        sample_texts: the texts the estimate read (their figures and lengths).
        held: for ``update=out``, the records the output holds (``records`` is then the new
            ones it will add); None otherwise.
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
    sample_texts: int = 0
    held: int | None = None

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
            likely = f" ({op.likely[0]:,}-{op.likely[1]:,})" if op.likely else ""
            rate = f"{op.per_minute}/min" if op.per_minute else "not paced"
            rows.append(
                (
                    f"{op.operation} ({op.path})",
                    f"{approx}{op.requests:,}{likely}",
                    op.resource or "none stated",
                    rate if op.resource else "-",
                    op.time_text(),
                )
            )
        approx = "~" if any(op.estimated for op in self.operations) else ""
        rows.append(("total", f"{approx}{self.requests:,}", "", "", _duration(self.seconds)))
        return rows

    def _summary(self) -> str:
        parts = [f"{'at least ' if self.at_least else ''}{self.records:,} records"]
        if self.held is not None:
            approx = "" if self.texts_counted else "~"
            parts = [
                f"update: {approx}{self.records:,} new records ({self.held:,} held, total_count {self.total_count})"
            ]
        if self.texts is not None:
            parts.append(f"{self.texts:,} texts")
        if self.figures is not None:
            approx = "~" if any(op.estimated for op in self.operations if op.path == "/resource") else ""
            parts.append(f"{approx}{self.figures:,} figures")
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
        if self.sample_texts == 1 and any(op.estimated for op in self.operations if op.path == "/resource"):
            lines.append("/resource from one sample text is rough: sample_texts=n (--sample-texts N) reads more")
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
        texts = f", {self.sample_texts} text{'' if self.sample_texts == 1 else 's'}" if self.sample_texts else ""
        return f" (~: estimated from a sample of {self.sample} record{'' if self.sample == 1 else 's'}{texts})"


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
    sample_texts: int | None,
    rates: Callable[[], Mapping[str, int]],
    update: str | os.PathLike[str] | None = None,
) -> Plan[Estimate]:
    """The estimate of ``client.estimate_harvest`` (arguments checked before any request);
    ``rates()`` gives the pacing's rates in force, read after the estimate's own requests (a
    429 they met counts)."""
    held: set[str] | None = None
    if update is not None:
        given: dict[str, Any] = {"query": query, "ids": ids, "by": by, "filters": filters, "texts": texts}
        given["figures"] = figures
        given.update(limit=limit, collection=collection, page_size=page_size)
        recorded, held = recorded_call(update, given)
        query, ids, by, filters = recorded["query"], recorded["ids"], recorded["by"], recorded["filters"]
        texts, figures, limit = recorded["texts"], recorded["figures"], recorded["limit"]
        collection, page_size = recorded["collection"], recorded["page_size"]
    wanted = checked_arguments(query, ids, by, texts, figures, limit)
    count("page_size", page_size, 1, maximum=PAGE_SIZE_MAX, optional=True)
    count("sample_texts", sample_texts, 0, maximum=PAGE_SIZE_MAX, optional=True)
    if sample_texts and not texts:
        raise invalid("sample_texts", "needs texts=True (the samples are texts of the harvest)", sample_texts)
    if collection is not None and (texts or wanted is not None):
        raise invalid("collection", "not with texts or ids (a corpus harvest searches papers)", collection)
    wire_filters = filters_to_wire(filters)
    if limit == 0 or wanted == []:
        return _estimate(rates(), records=0, total=0, texts=0 if texts else None, figures=figures)
    if wanted is None:
        # An update samples a whole page (one request either way): its new records tell the rest.
        sample_size = min(PAGE_SIZE_MAX, limit or PAGE_SIZE_MAX) if texts or held is not None else 1
        search = {"collection": collection, "filters": wire_filters, "page_size": sample_size}
        # An update tells new records from held ones by unique_id, which a projection may leave out.
        fields = ["doc_id", "unique_id"] if held is not None else ["doc_id"] if texts else None
        if collection not in (None, "papers"):  # authors and sources have no such fields
            fields = None
        first = yield Call("meta_search", (query,), {**search, "fields": fields})
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
    counted = records <= len(first.results)
    if held is not None:
        # The sample's new records tell which are new where the search fits in it; beyond, the
        # new ones are those the service gained (total_count less those held), with their share.
        fresh = [r for r in sampled if record_key(r.to_dict()) not in held]
        if counted:
            records = len(fresh)
        elif limit is not None and limit < total:  # the first `limit` records: their share of new ones
            records = round(records * len(fresh) / len(sampled)) if sampled else 0
        else:
            records = max(0, records - len(held))
        sampled = fresh if counted or fresh else first.results
    documents = [r.doc_id for r in sampled if isinstance(r.doc_id, str) and r.doc_id]
    share = len(documents) / len(sampled) if sampled else 1.0
    text_count = (len(documents) if counted else round(share * records)) if texts else None
    wanted_samples = (1 if figures else 0) if sample_texts is None else sample_texts
    samples = yield from _sample_texts(_spread(documents, wanted_samples), request_ids)
    return _estimate(
        rates(),
        records=records,
        total=total,
        texts=text_count,
        figures=figures,
        samples=samples,
        texts_counted=counted,
        at_least=at_least,
        pages=pages,
        pages_estimated=pages_estimated,
        sample=len(first.results),
        request_ids=request_ids,
        held=None if held is None else len(held),
    )


def recorded_call(out: str | os.PathLike[str], given: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """The arguments of the harvest whose output is ``out`` (as ``estimate_plan`` takes
    them), from its manifest, and the keys of the records it holds. ``given``: the arguments of the
    estimate, each left at its default or equal to the recorded one."""
    manifest = output_manifest(checks.path("update", out), request_ids=False)
    if manifest is None or manifest.get("call") not in ("harvest", "harvest_corpus"):
        raise invalid("update", "names no harvest output (no manifest of a harvest there or beside it)", str(out))
    recorded = dict(manifest.get("parameters", {}))
    arguments: dict[str, Any] = {"ids": None, "by": "unique_id", "texts": False, "figures": False}
    arguments.update(collection=None, page_size=None)
    arguments.update({name: recorded.get(name) for name in ("query", "filters", "limit")})
    if manifest["call"] == "harvest":
        arguments.update(collection=recorded.get("collection"), page_size=recorded.get("page_size"))
    else:
        arguments.update(texts=recorded.get("texts", True), figures=recorded.get("figures", False))
        if recorded.get("ids") is not None:
            arguments["by"] = recorded.get("by") or "unique_id"
            arguments["ids"] = _recorded_ids(given.get("ids"), arguments["by"], recorded["ids"])
    defaults = {"query": None, "ids": None, "by": "unique_id", "filters": None, "texts": False, "figures": False}
    defaults.update(limit=None, collection=None, page_size=None)
    for name, value in given.items():
        if name == "ids" or value == defaults[name]:
            continue
        value = filters_to_wire(value) if name == "filters" else value
        if value != arguments[name]:
            shown = f"{arguments[name]!r} is what {out} records: an update repeats the harvest's call"
            raise invalid(name, f"differs from the harvest's ({shown})", value)
    return arguments, output_keys(out, manifest["call"], recorded.get("format") or "parquet")


def _recorded_ids(given: Iterable[str] | None, by: str, recorded: dict[str, Any]) -> list[str]:
    """The ``ids`` of a harvest of ids, which its manifest records by their count and digest."""
    if given is None:
        raise invalid("ids", "needed: the harvest's ids (its manifest holds only their digest)")
    wanted = checked_arguments(None, given, by, False, False, None) or []
    digest = hashlib.sha256("\n".join(wanted).encode("utf-8")).hexdigest()
    if digest != recorded.get("sha256"):
        raise invalid("ids", f"are not the harvest's ({recorded.get('count')} ids of another digest)")
    return wanted


@dataclasses.dataclass(frozen=True)
class _Sample:
    """What one sample text tells: the figures it links to and the /content requests the
    harvest sends for it."""

    figures: int
    pages: int


def _spread(documents: list[str], wanted: int) -> list[str]:
    """``wanted`` of ``documents`` spread evenly over them (all of them when there are fewer)."""
    if wanted >= len(documents):
        return documents
    return [documents[i * len(documents) // wanted] for i in range(wanted)]


def _sample_texts(documents: list[str], request_ids: list[str]) -> Plan[list[_Sample]]:
    """Each text read whole, as the harvest reads it; as in the harvest, a text the service
    refuses is one request and no figures, a ``doc_id`` that cannot be asked for none."""
    samples = []
    for doc_id in documents:
        try:
            text, page_ids = yield from whole_text(doc_id)
        except (PermissionDeniedError, NotFoundError, BadRequestError):
            samples.append(_Sample(figures=0, pages=1))
            continue
        except ValidationError:
            samples.append(_Sample(figures=0, pages=0))
            continue
        request_ids.extend(page_ids)
        samples.append(_Sample(len(figure_names(text)), max(1, math.ceil(len(text) / CONTENT_PAGE_MAX))))
    return samples


def _estimate(
    rates: Mapping[str, int],
    *,
    records: int,
    total: int | None,
    texts: int | None,
    figures: bool,
    samples: list[_Sample] | None = None,
    texts_counted: bool = True,
    at_least: bool = False,
    pages: int = 0,
    pages_estimated: bool = False,
    sample: int = 0,
    request_ids: list[str] | None = None,
    held: int | None = None,
) -> Estimate:
    samples = samples or []
    operations = [
        OperationEstimate.at_rates("meta_search", "/meta-search", pages, "meta-search", rates, pages_estimated)
    ]
    every_text = texts_counted and texts is not None and len(samples) == texts
    if texts is not None:
        # The further pages of the sample texts are known; those of the others are not.
        requests = texts + sum(s.pages - 1 for s in samples)
        operations.append(OperationEstimate.at_rates("content", "/content", requests, None, rates, not every_text))
    figure_count = None
    if figures and texts is not None and (samples or texts == 0):
        figure_count, likely = _figures(texts, [s.figures for s in samples])
        operations.append(
            OperationEstimate.at_rates(
                "download_resource",
                "/resource",
                figure_count,
                None,
                rates,
                not every_text,
                None if every_text else likely,
            )
        )
    return Estimate(
        records=records,
        total_count=total,
        at_least=at_least,
        texts=texts,
        texts_counted=texts_counted,
        figures=figure_count,
        operations=tuple(operations),
        sample=sample,
        request_ids=tuple(request_ids or ()),
        sample_texts=len(samples),
        held=held,
    )


def _figures(texts: int, counts: list[int]) -> tuple[int, tuple[int, int] | None]:
    """The figures of ``texts`` texts from the figure counts of a sample of them, and the range
    they likely fall in (the mean ± two standard errors, corrected for a sample that is a large
    part of the texts; None from fewer than two samples)."""
    if not counts:
        return 0, None
    mean = statistics.fmean(counts)
    estimate = round(mean * texts)
    if len(counts) < 2 or texts <= 1:
        return estimate, None
    finite = math.sqrt(max(0, texts - len(counts)) / (texts - 1))
    margin = 2 * texts * statistics.stdev(counts) / math.sqrt(len(counts)) * finite
    return estimate, (max(0, math.floor(mean * texts - margin)), math.ceil(mean * texts + margin))


def _duration(seconds: float | None) -> str:
    if not seconds:
        return "0 s"
    minutes, rest = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"
