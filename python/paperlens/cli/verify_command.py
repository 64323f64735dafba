"""``paperlens verify refs.bib|-``: checks a reference list (BibTeX, CSL-JSON, RIS or free-text
citations one a line, read by what the file holds) against the service; exit 0 when every
entry is verified, 7 when any is not, 2 when the input holds no reference."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from paperlens.cli.exit_codes import EXIT_NOT_VERIFIED, EXIT_OK, UsageError
from paperlens.cli.options import add_progress_flag, show_progress
from paperlens.cli.output import emit, format_table, write_text
from paperlens.cli.session import Session

DESCRIPTION = (
    "Check a reference list against the service: a file read by what it holds, whatever its name: "
    "BibTeX (Zotero, JabRef, Mendeley exports: @string macros, crossref, escapes), CSL-JSON, RIS, "
    "or free-text references one a line; '-' reads any of them from stdin. Each entry is verified "
    "(every field it gives agrees with a record), mismatch (a record, but some fields differ: the "
    "given and the found value are shown), not_found (no such work: an invented or unknown "
    "reference), ambiguous (several records fit) or unverifiable (a web page, software, a dataset "
    "or a standard, which the service does not index, or too little to search for). The DOIs are "
    "looked up together; each other entry costs one request (the bar shows the time the quota "
    "implies). --format bibtex prints the entries corrected from their records where the record is "
    "the same work, keys kept. Malformed input, or input holding no reference, is refused before "
    "any request (exit 2). Exit 0 when every entry is verified, 7 when any is not."
)
_COLUMNS = ["#", "key", "status", "confidence", "differs", "record", "why"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a .bib file, a text file of references one a line, or - for stdin")
    parser.add_argument(
        "--format",
        choices=("table", "json", "bibtex"),
        default="table",
        help="table (default): one line per entry; json: every verdict with its differences and "
        "reasons; bibtex: the entries corrected from their records",
    )
    add_progress_flag(parser)


def references(source: str) -> Any:
    """The path of the file, or stdin's references read by what they hold."""
    if source == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("give a file, or the references on stdin with -")
        from paperlens.workflows._given import read_text

        return read_text(sys.stdin.read())
    path = Path(source)
    if not path.is_file():
        raise UsageError(f"{source}: no such file")
    return path


def run(args: argparse.Namespace) -> int:
    given = references(args.source)
    with Session() as client:
        checked = client.verify_citations(given, progress=show_progress(args))
    if args.format == "bibtex":
        write_text(checked.to_bibtex())
    elif args.format == "json":
        emit("json", checked.rows())
    else:
        print(format_table(_COLUMNS, [_cells(n, row) for n, row in enumerate(checked.rows(), 1)], max_width=70))
    counts = ", ".join(f"{n} {status}" for status, n in checked.counts.items() if n)
    print(f"paperlens verify: {len(checked)} entries: {counts or 'none'}", file=sys.stderr)
    return EXIT_OK if checked.all_verified else EXIT_NOT_VERIFIED


def _cells(n: int, row: dict[str, Any]) -> list[Any]:
    return [
        n,
        row["key"] or "",
        row["status"],
        row["confidence"],
        ", ".join(row["differs"]),
        row["unique_id"] or "",
        row["reasons"][0] if row["reasons"] else "",
    ]
