"""``paperlens update``: bring harvest outputs up to date and write a digest of what is new."""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperlens.cli.exit_codes import EXIT_OK, UsageError
from paperlens.cli.options import add_progress_flag, show_progress
from paperlens.cli.session import Session
from paperlens.storage._manifest import now, output_manifest
from paperlens.storage._store import LOCAL, location, replace_atomically

DESCRIPTION = (
    "Bring each harvest output (the --out of paperlens harvest) up to date: search again with the "
    "parameters its manifest records and add only the records it does not hold, with their texts "
    "and figures for a corpus, as new parts; the files already there are not touched. Then write a "
    "digest of the new records (title, authors, year, venue, DOI, where to read each) to stdout or "
    "-o PATH, ready to mail or paste; 'nothing new' (exit 0) when there is none. An update reads "
    "every metadata page of the search (see --dry-run for its cost); interrupted, the same command "
    "resumes it."
)
DIGESTS = ("md", "html", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``paperlens update``."""
    parser.add_argument("outs", nargs="+", metavar="OUT", help="a harvest output (directory or JSONL file)")
    parser.add_argument("--digest", choices=DIGESTS, default="md", help="the digest's format (default md)")
    parser.add_argument("--dry-run", action="store_true", help="print what each update would cost; change nothing")
    parser.add_argument("-o", "--output", metavar="PATH", help="write the digest to PATH (default: stdout)")
    add_progress_flag(parser)


@dataclass(frozen=True)
class Update:
    """What one output gained: its path, the search it repeats, and the new records."""

    out: str
    search: str
    held: int
    records: list[dict[str, Any]]
    corpus: bool


def run(args: argparse.Namespace) -> int:
    """Runs ``paperlens update``; the digest on stdout (or in ``-o``), a line per output on stderr."""
    calls = [(out, _recorded(out)) for out in args.outs]  # every output checked before any request
    with Session() as client:
        if args.dry_run:
            for out, _manifest in calls:
                print(f"{out}:")
                print(client.estimate_harvest(update=out))
            return EXIT_OK
        updates = [_update(client, out, manifest, show_progress(args)) for out, manifest in calls]
    for update in updates:
        print(f"{update.out}: {len(update.records)} new records ({update.held} held before)", file=sys.stderr)
    text = render(updates, args.digest)
    if args.output is None:
        sys.stdout.write(text)
    else:
        target = Path(args.output)
        try:
            replace_atomically(target, lambda file: file.write(text.encode("utf-8")), prefix=f".{target.name}.")
        except OSError as error:
            raise UsageError(f"-o: cannot write {args.output}: {error.strerror or error}") from None
    return EXIT_OK


def _recorded(out: str) -> dict[str, Any]:
    """The manifest of the harvest at ``out``: a corpus's inside it, a harvest's beside it."""
    manifest = output_manifest(out, request_ids=False)
    if manifest is None or manifest.get("call") not in ("harvest", "harvest_corpus"):
        raise UsageError(f"{out}: not a harvest output (no manifest of paperlens harvest in or beside it)")
    if manifest["call"] == "harvest_corpus" and manifest["parameters"].get("ids") is not None:
        raise UsageError(
            f"{out}: a harvest of ids: its manifest holds only their digest; update it with "
            f"harvest_corpus(client, out, ids=..., update=True)"
        )
    return manifest


def _update(client: Any, out: str, manifest: dict[str, Any], progress: bool) -> Update:
    from paperlens.harvests.harvest import harvest, harvest_corpus, read_records

    recorded = manifest["parameters"]
    if manifest["call"] == "harvest_corpus":
        wanted = {name: recorded.get(name) for name in ("query", "filters", "texts", "figures", "limit")}
        result = harvest_corpus(client, out, **wanted, progress=progress, update=True)
    else:
        names = ("query", "format", "filters", "sort", "fields", "collection", "page_size", "limit")
        wanted = {name: recorded.get(name) for name in names}
        result = harvest(client, **wanted, out=out, progress=progress, update=True)
    records = read_records(out, run=-1) if result.added else []
    search = recorded.get("query") or "every record"
    if recorded.get("filters"):
        search += f" (filters {json.dumps(recorded['filters'], ensure_ascii=False)})"
    corpus = manifest["call"] == "harvest_corpus" and bool(recorded.get("texts"))
    return Update(out, search, result.records - result.added, records, corpus)


def entry(record: dict[str, Any], out: str, corpus: bool) -> dict[str, Any]:
    """A new record as the digest shows it: title, authors, year, venue, DOI, where to read it."""
    authors = [a.get("name") for a in record.get("author") or [] if isinstance(a, dict) and a.get("name")]
    year = record.get("publication_published_year")
    if year is None and isinstance(record.get("publication_published_date"), str):
        year = record["publication_published_date"][:4]
    return {
        "unique_id": record.get("unique_id"),
        "title": record.get("title"),
        "authors": authors,
        "year": year,
        "venue": record.get("publication_venue_name_unified"),
        "doi": record.get("doi"),
        "read": _where_to_read(record, out, corpus),
    }


def _where_to_read(record: dict[str, Any], out: str, corpus: bool) -> str | None:
    """The corpus's Markdown of the text, else the open-access URL, the DOI link, or the command."""
    doc_id, doi = record.get("doc_id"), record.get("doi")
    if corpus and isinstance(doc_id, str) and doc_id and location(out)[0] is LOCAL:
        from paperlens.harvests.corpus import folder_name

        text = Path(out) / "documents" / folder_name(doc_id) / "text.md"
        if text.is_file():
            return str(text)
    if isinstance(record.get("access_oa_url"), str) and record["access_oa_url"].startswith(("https://", "http://")):
        return str(record["access_oa_url"])
    if isinstance(doi, str) and doi:
        return "https://doi.org/" + doi.removeprefix("https://doi.org/")
    if isinstance(doc_id, str) and doc_id:
        return f"paperlens read {doc_id}"
    return None


def render(updates: list[Update], digest: str) -> str:
    """The digest of ``updates`` as Markdown, HTML or JSON."""
    outputs = [
        {
            "out": u.out,
            "search": u.search,
            "held": u.held,
            "new": len(u.records),
            "records": [entry(r, u.out, u.corpus) for r in u.records],
        }
        for u in updates
    ]
    new = sum(len(u.records) for u in updates)
    if digest == "json":
        return json.dumps({"date": now(), "new": new, "outputs": outputs}, indent=2, ensure_ascii=False) + "\n"
    if digest == "html":
        return _html(outputs, new)
    return _markdown(outputs, new)


def _citation(item: dict[str, Any]) -> tuple[str, str]:
    """The line of a record without its title, and its reading link."""
    authors = ", ".join(item["authors"][:3]) + (" et al" if len(item["authors"]) > 3 else "")
    byline = " ".join(part for part in (authors, f"({item['year']})" if item["year"] else "") if part)
    details = [part for part in (byline, item["venue"], f"doi:{item['doi']}" if item["doi"] else "") if part]
    return ". ".join(str(part).rstrip(".") for part in details), item["read"] or ""


def _md(text: Any) -> str:
    """``text`` as Markdown shows it literally: one line, its markup characters escaped (a
    record's title cannot make a link or a heading of its own)."""
    return re.sub(r"([\\`*_\[\]<>])", r"\\\1", " ".join(str(text).split()))


def _markdown(outputs: list[dict[str, Any]], new: int) -> str:
    if not new:
        return "nothing new\n"
    lines = [f"# What is new: {new} record{'s' if new != 1 else ''} ({now()[:10]})", ""]
    for output in outputs:
        if not output["new"]:
            continue
        lines += [f"## {_md(output['search'])}: {output['new']} new", "", f"In {_md(output['out'])}.", ""]
        for item in output["records"]:
            details, read = _citation(item)
            title = _md(item["title"] or item["unique_id"] or "untitled")
            link = f" Read: {_md(read)}" if read else ""
            if read.startswith(("https://", "http://")):
                link = f" [read](<{read.replace('>', '%3E').replace(' ', '%20')}>)"
            lines.append(f"- **{title}**. {_md(details)}.{link}")
        lines.append("")
    return "\n".join(lines)


def _html(outputs: list[dict[str, Any]], new: int) -> str:
    escape = html.escape
    if not new:
        return "<p>nothing new</p>\n"
    parts = [f"<h1>What is new: {new} record{'s' if new != 1 else ''} ({escape(now()[:10])})</h1>"]
    for output in outputs:
        if not output["new"]:
            continue
        parts.append(f"<h2>{escape(output['search'])}: {output['new']} new</h2><ul>")
        for item in output["records"]:
            details, read = _citation(item)
            title = escape(item["title"] or item["unique_id"] or "untitled")
            if read.startswith(("https://", "http://")):
                link = f' <a href="{escape(read, quote=True)}">read</a>'
            else:
                link = f" <code>{escape(read)}</code>" if read else ""
            parts.append(f"<li><strong>{title}</strong>. {escape(details)}.{link}</li>")
        parts.append("</ul>")
    return "\n".join(parts) + "\n"
