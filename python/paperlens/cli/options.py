"""Options that several commands share."""

from __future__ import annotations

import argparse
import sys
from typing import Any

FORMATS = ("table", "json", "jsonl", "csv")
#: The citation formats of the commands that print bibliographic records.
CITATION_FORMATS = ("bibtex", "ris", "csl-json")


def output_options() -> argparse.ArgumentParser:
    """The parent parser of every command that prints results: ``--format``."""
    output = argparse.ArgumentParser(add_help=False)
    output.add_argument(
        "--format", choices=FORMATS, default="table", help="output: table (default), json, jsonl or csv"
    )
    return output


def record_output_options() -> argparse.ArgumentParser:
    """The parent parser of the commands that print bibliographic records: ``--format`` with
    the citation formats too."""
    output = argparse.ArgumentParser(add_help=False)
    output.add_argument(
        "--format",
        choices=FORMATS + CITATION_FORMATS,
        default="table",
        help="output: table (default), json, jsonl, csv, or a citation format: bibtex, ris, csl-json",
    )
    return output


def add_repeatable(parser: argparse.ArgumentParser, flag: str, help: str, **options: Any) -> None:
    """An option given any number of times, collected into a list (empty when not given)."""
    parser.add_argument(flag, action="append", default=[], help=f"{help} (repeatable)", **options)


def add_paging_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--all", action="store_true", help="follow every page (one request per page)")
    parser.add_argument("--limit", type=int, help="with --all: stop after this many items")


def add_progress_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a progress bar on stderr (default: when stderr is a terminal)",
    )


def show_progress(args: argparse.Namespace) -> bool:
    """``--progress`` / ``--no-progress``, else a bar when stderr is a terminal."""
    return bool(args.progress) if args.progress is not None else sys.stderr.isatty()
