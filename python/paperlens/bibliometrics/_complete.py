"""Whole reference lists from ``/meta-paper-relations`` (``complete=True``), and what they cost.

The ``references`` field of a record may be truncated (the contract says so); the relation
list ``REFERENCES`` of a paper is whole. Each document's list is read as
:func:`client.snowball <paperlens.Client.snowball>` reads one (its pages of 200 items, through
the client, so paced and retried as any call), and with ``checkpoint=`` each page answered is
appended to that file in the snowball's checkpoint format: the same call after an interruption
sends only the requests still missing.

:func:`estimate_references` tells the requests before anything is sent: one per 200 items of
each document's ``reference_count`` (at least one each: a record that leaves
``reference_count`` out may have none, or a projection may have dropped it: then the count is
marked estimated).
"""

from __future__ import annotations

import dataclasses
import html
import logging
import math
import os

from paperlens.base._contract import PAGE_SIZE_MAX
from paperlens.bibliometrics._sources import Documents, reference_count
from paperlens.errors import NotFoundError
from paperlens.machinery._operation import Plan
from paperlens.storage._manifest import now
from paperlens.storage._output_guard import guarded_plan
from paperlens.workflows._relation_pages import Growth, Journal, relation_plan
from paperlens.workflows.estimate import OperationEstimate

__all__ = ["ReferenceEstimate", "complete_plan", "estimate_documents"]

_LOG = logging.getLogger("paperlens")


@dataclasses.dataclass(frozen=True)
class ReferenceEstimate:
    """What reading the whole reference lists of a source will cost (``complete=True``).

    Attributes:
        documents: the documents whose lists are read.
        counted: the documents whose ``reference_count`` the estimate read (the others are
            counted as one page each).
        operation: the requests to ``/meta-paper-relations``, their quota resource (none the
            contract states) and rate.
    """

    documents: int
    counted: int
    operation: OperationEstimate

    @property
    def requests(self) -> int:
        """The requests in all."""
        return self.operation.requests

    def __str__(self) -> str:
        op = self.operation
        approx = "~" if op.estimated else ""
        time = op.time_text("network-bound (no quota stated)")
        return (
            f"Reference lists of {self.documents:,} documents: {approx}{op.requests:,} requests to "
            f"{op.path} ({self.counted:,} reference_count known); time: {time}"
        )

    def _repr_html_(self) -> str:
        return f"<div><strong>ReferenceEstimate</strong> · {html.escape(str(self))}</div>"


def asked(documents: Documents) -> list[str]:
    """The documents whose lists are asked for: papers of the service (a snowball's node named
    by a DOI is not: ``/meta-paper-relations`` takes a ``unique_id``)."""
    return [
        key
        for key, row in zip(documents.ids, documents.rows, strict=True)
        if str(row.get("id_type") or "unique_id").lower() == "unique_id"
    ]


def estimate_documents(documents: Documents) -> ReferenceEstimate:
    """The estimate for ``documents`` (no request). Its time is the network's: the contract
    states no quota for ``/meta-paper-relations``, so no pacing rate enters it."""
    requests, counted = 0, 0
    wanted = set(asked(documents))
    rows = [row for key, row in zip(documents.ids, documents.rows, strict=True) if key in wanted]
    for row in rows:
        count = reference_count(row)
        if count is not None:
            counted += 1
        requests += max(1, math.ceil((count or 0) / PAGE_SIZE_MAX))
    estimated = counted < len(rows)
    operation = OperationEstimate.at_rates("paper_relations", "/meta-paper-relations", requests, None, {}, estimated)
    return ReferenceEstimate(len(rows), counted, operation)


@guarded_plan("checkpoint")
def complete_plan(documents: Documents, *, checkpoint: str | os.PathLike[str] | None) -> Plan[list[str]]:
    """Replaces each document's reference list by its whole ``REFERENCES`` relation list (the
    relation items' ids; their titles and DOIs learned); returns the request ids of the
    pages. A document the service does not know (404) keeps its record's list.

    Raises:
        OutputInUseError: another run is writing ``checkpoint``.
        HarvestWriteError: ``checkpoint`` cannot be written (call again to resume).
        ValidationError: ``checkpoint`` records another call's pages."""
    _LOG.info("%s", estimate_documents(documents))
    journal = (
        Journal(checkpoint, {"references_of": documents.ids}, workflow="bibliometrics")
        if checkpoint is not None
        else None
    )
    growth = Growth(limit=None)
    for key in documents.ids:
        growth.nodes[key] = {"depth": 0, "item": {"id": key, "id_type": "unique_id"}}
    known = set()
    try:
        for key in asked(documents):
            try:
                yield from relation_plan(key, "REFERENCES", None, growth, journal)
            except NotFoundError:
                _LOG.warning("%s is not a paper of the service (404): its record's reference list is used", key)
                continue
            known.add(key)
        if journal is not None:
            journal.finish(now())
    finally:
        if journal is not None:
            journal.close()
    cites: dict[str, list[str]] = {key: [] for key in known}
    for citing, cited in growth.edges:
        cites[citing].append(cited)
    items = [(key, node["item"]) for key, node in growth.nodes.items()]
    for key, item in items:  # first the works of the service, which bring their DOIs
        if str(item.get("id_type", "")).lower() == "unique_id":
            documents.learn(key, item.get("title"), item.get("doi"))
    for key, item in items:
        work = documents.work_key(key)
        if work is not None:
            documents.learn(work, item.get("title"), None)
    for position, key in enumerate(documents.ids):
        if key in known:
            documents.references[position] = cites[key]
    return growth.request_ids
