"""The bibliography commands: ``paperlens lookup`` (records by identifier) and ``paperlens
match`` (free-text references to records), plus the records behind relation items for
``paperlens relations --format bibtex``. Each run function returns the exit code: 0 when
anything was found (what was not is listed on stderr), 4 when nothing was."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from paperlens.base import _contract as c
from paperlens.cli.convert import csv_list
from paperlens.cli.exit_codes import EXIT_NOT_FOUND, EXIT_OK, UsageError
from paperlens.cli.options import CITATION_FORMATS, add_progress_flag, show_progress
from paperlens.cli.output import emit
from paperlens.cli.session import Session
from paperlens.results.export import CITATION_FIELDS
from paperlens.workflows.lookup import LOOKUP_FIELDS

CONFIDENCES = ("high", "medium", "low")
_LOOKUP_COLUMNS = ["input_id", "unique_id", "doi", "publication_published_year", "title"]
_MATCH_COLUMNS = ["line", "confidence", "score", "unique_id", "publication_published_year", "title", "reference"]

Command = Callable[..., argparse.ArgumentParser]


def add_bibliography_commands(command: Command, output: argparse.ArgumentParser) -> None:
    """``lookup`` and ``match``, added with ``command(name, help, run, **options)`` (the
    parser's helper); ``output`` is the ``--format`` parent with the citation formats."""
    lookup_parser = command(
        "lookup",
        "records for a list of DOIs (or unique_ids, doc_ids, ISBN-13s), in input order",
        lookup,
        parents=[output],
        description=(
            "Records for many identifiers, read from the arguments or from stdin (one a line, blank lines "
            f"skipped), in as few requests as the service allows ({c.PAGE_SIZE_MAX} ids a request). DOIs may "
            "come in any case, as doi.org URLs or with doi:. The records print in input order; the ids with "
            "no record are listed on stderr. Exit 0 when any id is found, 4 when none is."
        ),
    )
    lookup_parser.add_argument("ids", nargs="*", help="identifiers (default: read from stdin, one a line)")
    lookup_parser.add_argument(
        "--by", choices=LOOKUP_FIELDS, default="doi", help="the field the ids are values of (default doi)"
    )
    lookup_parser.add_argument(
        "--fields",
        type=csv_list,
        help="comma-separated fields to return (default: the service's default set; the citation fields "
        "for bibtex, ris and csl-json)",
    )
    add_progress_flag(lookup_parser)

    match_parser = command(
        "match",
        "match free-text references (a bibliography) to records",
        match,
        parents=[output],
        description=(
            "Match free-text references, read from the arguments or from stdin (one a line, blank lines "
            "skipped), to records. Prints the best match of each line with its confidence (high: almost never "
            "wrong; medium: probably; low: a guess) and why; the lines with no match of at least "
            "--min-confidence are listed on stderr and left out of bibtex, ris and csl-json. Exit 0 when any "
            "line is matched, 4 when none is."
        ),
    )
    match_parser.add_argument("references", nargs="*", help="references (default: read from stdin, one a line)")
    match_parser.add_argument(
        "--min-confidence",
        choices=CONFIDENCES,
        default="medium",
        help="the least confidence that counts as matched (default medium)",
    )
    match_parser.add_argument("--top", type=int, default=5, help="candidates to weigh per reference (default 5)")
    add_progress_flag(match_parser)


def lookup(args: argparse.Namespace) -> int:
    ids = _inputs(args.ids, "ids")
    fields = args.fields or (CITATION_FIELDS if args.format in CITATION_FORMATS else None)
    with Session() as client:
        result = client.lookup(ids, by=args.by, fields=fields, progress=show_progress(args))
    if args.format in CITATION_FORMATS:
        emit(args.format, result)
    else:
        rows = [{"input_id": i, **r.to_dict()} for i, r in zip(result.ids, result.records, strict=True) if r]
        emit(args.format, rows, columns=_LOOKUP_COLUMNS)
    if result.not_found:
        print(f"paperlens lookup: {len(result.not_found)} of {len(ids)} ids not found:", file=sys.stderr)
        for value in result.not_found:
            print(f"  {value}", file=sys.stderr)
    return EXIT_OK if result.found or not ids else EXIT_NOT_FOUND


def match(args: argparse.Namespace) -> int:
    references = _inputs(args.references, "references")
    least = CONFIDENCES.index(args.min_confidence)
    with Session() as client:
        candidates = client.match_references(references, top=args.top, progress=show_progress(args))
    best = [found[0] if found else None for found in candidates]
    matched = [m is not None and CONFIDENCES.index(m.confidence) <= least for m in best]
    if args.format in CITATION_FORMATS:
        emit(args.format, [m.record for m, ok in zip(best, matched, strict=True) if m is not None and ok])
    elif args.format in ("json", "jsonl"):
        emit(args.format, [_match_row(n, text, m) for n, (text, m) in enumerate(zip(references, best, strict=True), 1)])
    else:
        rows = [_match_cells(n, text, m) for n, (text, m) in enumerate(zip(references, best, strict=True), 1)]
        emit(args.format, rows, columns=_MATCH_COLUMNS)
    unmatched = [
        (n, text, m) for n, (text, m, ok) in enumerate(zip(references, best, matched, strict=True), 1) if not ok
    ]
    if unmatched:
        print(
            f"paperlens match: {len(unmatched)} of {len(references)} references not matched "
            f"with {args.min_confidence} confidence or more:",
            file=sys.stderr,
        )
        for n, text, m in unmatched:
            why = f"best {m.confidence}: {m.record.unique_id}" if m is not None else "no candidate"
            print(f"  line {n} ({why}): {text}", file=sys.stderr)
    return EXIT_OK if any(matched) or not references else EXIT_NOT_FOUND


def relation_records(client: Any, items: list[Any]) -> list[Any]:
    """The records behind relation items, looked up by ``unique_id`` and by DOI with the
    citation fields (one request per 200 ids); an item with no record stays itself (its title
    and identifier are what the export has)."""
    records: dict[tuple[str, str], Any] = {}
    for by in ("unique_id", "doi"):
        ids = list(dict.fromkeys(i.id for i in items if i.id_type == by and i.id))
        if ids:
            found = client.lookup(ids, by=by, fields=CITATION_FIELDS).found
            records.update(((by, value), record) for value, record in found.items())
    return [records.get((item.id_type, item.id), item) for item in items]


def _match_row(line: int, text: str, best: Any) -> dict[str, Any]:
    return {
        "line": line,
        "reference": text,
        "confidence": best and best.confidence,
        "score": best and round(best.score, 4),
        "reasons": best.reasons if best else [],
        "record": best.record.to_dict() if best else None,
    }


def _match_cells(line: int, text: str, best: Any) -> dict[str, Any]:
    record = best.record if best else None
    return {
        "line": line,
        "confidence": best and best.confidence,
        "score": best and round(best.score, 3),
        "unique_id": record and record.unique_id,
        "doi": record and record.doi,
        "publication_published_year": record and record.publication_published_year,
        "title": record and record.title,
        "reference": text,
        "reasons": "; ".join(best.reasons) if best else "",
    }


def _inputs(given: list[str], what: str) -> list[str]:
    """The arguments, else stdin's non-blank lines."""
    if given:
        return list(given)
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError(f"give the {what} as arguments or on stdin, one a line")
    return [line.strip() for line in sys.stdin if line.strip()]
