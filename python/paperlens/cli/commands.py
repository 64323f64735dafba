"""The research commands: ``search``, ``read``, ``download``, ``catalog``, ``meta-search``,
``relations`` and ``harvest``. Each takes the parsed arguments and returns the exit code."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from paperlens.cli.convert import facet_arg
from paperlens.cli.exit_codes import EXIT_OK, UsageError
from paperlens.cli.options import CITATION_FORMATS, show_progress
from paperlens.cli.output import emit, format_table, write_text
from paperlens.cli.session import Session
from paperlens.results.export import CITATION_FIELDS

_RECORD_COLUMNS = ["unique_id", "publication_published_year", "citation_count", "title"]


def search(args: argparse.Namespace) -> int:
    with Session() as client:
        result = client.agentic_search(
            args.query,
            top_k=args.top_k,
            retrieval=args.retrieval,
            sub_queries=args.sub_queries,
            filters=args.filters,
            source_types=args.source_types,
        )
        emit(args.format, result, columns=["score", "publication_published_year", "title", "doc_id", "offset"])
    return EXIT_OK


def read(args: argparse.Namespace) -> int:
    if not args.doc_id and not args.source:
        raise UsageError("give a doc_id or --source")
    with Session() as client:
        if args.offset is None and args.limit is None:
            text = client.read_text(args.doc_id, source=args.source)
            if args.format == "table":
                write_text(text)
            else:
                emit(args.format, {"doc_id": args.doc_id, "source": args.source, "text": text})
            return EXIT_OK
        page = client.content(args.doc_id, source=args.source, offset=args.offset, limit=args.limit)
        if args.format == "table":
            write_text(page.text)
            more = f"; next offset {page.next_offset}" if page.more else ""
            print(f"[{page.bytes_returned} bytes of {page.text_length} code points{more}]", file=sys.stderr)
        else:
            emit(args.format, page)
    return EXIT_OK


def download(args: argparse.Namespace) -> int:
    with Session() as client:
        path = client.download_resource(
            args.file_name, args.out, overwrite=args.overwrite, progress=show_progress(args)
        )
        size = path.stat().st_size
        if args.format == "table":
            print(f"{path}  ({size} bytes)")
        else:
            emit(args.format, {"file_name": args.file_name, "path": str(path), "bytes": size})
    return EXIT_OK


def catalog(args: argparse.Namespace) -> int:
    with Session() as client:
        result = client.meta_catalog(
            collection=args.collection,
            include_sample_values=args.sample_values or None,
            include_field_stats=args.field_stats or None,
        )
        emit(args.format, result, columns=["name", "type", "filterable", "sortable", "searchable", "description"])
    return EXIT_OK


def meta_search(args: argparse.Namespace) -> int:
    params: dict[str, Any] = {
        "collection": args.collection,
        "filters": _filters(args),
        "sort": list(args.sort) or None,
        "fields": args.fields,
        "page": args.page,
        "page_size": args.page_size,
        "cursor": args.cursor,
        "freshness_boost": args.freshness_boost,
        "impact_boost": args.impact_boost,
        "language_affinity": args.language_affinity,
    }
    facets: list[Any] | None = [facet_arg(f) for f in args.facet] or None
    columns = [c for c in _RECORD_COLUMNS if not args.fields or c in args.fields] or None
    if args.format in CITATION_FORMATS and not args.fields:
        params["fields"] = CITATION_FIELDS  # volume, issue and pages are not in the default set
    with Session() as client:
        if args.all:
            if facets:
                raise UsageError("--facet needs a single page: drop --all")
            records = client.iter_meta_search(args.query, **params, limit=args.limit)
            emit(args.format, records, columns=columns)
            return EXIT_OK
        page = client.meta_search(args.query, **params, facets=facets)
        emit(args.format, page, columns=columns)
        if args.format == "table":
            for facet in page.facets or []:
                print(f"\nfacet {facet.field}:")
                print(format_table(["value", "papers"], [[b.key, b.doc_count] for b in facet.buckets]))
            print(f"{len(page.results)} of {page.total_count} records", file=sys.stderr)
    return EXIT_OK


def relations(args: argparse.Namespace) -> int:
    columns = ["id_type", "id", "title"]
    with Session() as client:
        if args.format in CITATION_FORMATS:  # the records behind the items, looked up 200 at a time
            from paperlens.cli.bibliography_commands import relation_records

            if args.all:
                related = client.iter_paper_relations(
                    args.unique_id, args.relation, page_size=args.page_size, limit=args.limit
                ).to_list()
            else:
                page = client.paper_relations(args.unique_id, args.relation, page=args.page, page_size=args.page_size)
                related = page.items
            emit(args.format, relation_records(client, related))
            return EXIT_OK
        if args.all:
            items = client.iter_paper_relations(
                args.unique_id, args.relation, page_size=args.page_size, limit=args.limit
            )
            emit(args.format, items, columns=columns)
            return EXIT_OK
        page = client.paper_relations(args.unique_id, args.relation, page=args.page, page_size=args.page_size)
        emit(args.format, page, columns=columns)
        if args.format == "table":
            print(
                f"{len(page.items)} of {page.total_count} items, page {page.page} of {page.total_pages}",
                file=sys.stderr,
            )
    return EXIT_OK


def harvest(args: argparse.Namespace) -> int:
    from paperlens.harvests import harvest as harvesting

    if args.sample_texts is not None and not (args.dry_run and args.texts):
        raise UsageError("--sample-texts: only with --dry-run and --texts (the samples are texts of the harvest)")
    if args.texts or args.figures or args.ids is not None:
        return _harvest_corpus(args)
    wanted = dict(filters=_filters(args), limit=args.limit, collection=args.collection, page_size=args.page_size)
    with Session(shared_pacing=args.shared_pacing) as client:
        if args.dry_run:
            return _estimate(client, args.query, **wanted)
        result = harvesting.harvest(
            client,
            args.query,
            out=args.out,
            format=args.format,
            sort=list(args.sort) or None,
            fields=args.fields,
            chunk_size=args.chunk_size,
            progress=show_progress(args),
            **wanted,
        )
    resumed = " (resumed)" if result.resumed else ""
    print(f"{result.records} records in {result.chunks} chunks written to {result.url or result.out}{resumed}")
    return EXIT_OK


def _harvest_corpus(args: argparse.Namespace) -> int:
    """``harvest --texts [--figures]`` or ``--ids FILE``: a full-text corpus directory."""
    from pathlib import Path

    from paperlens.harvests.harvest import harvest_corpus

    given = [
        name for name, on in [("--sort", args.sort), ("--fields", args.fields), ("--collection", args.collection)] if on
    ]
    if args.format != "parquet":
        given.append("--format " + args.format)
    if given:
        raise UsageError(f"{', '.join(given)}: not with --texts or --ids (a corpus is Parquet of whole records)")
    if args.figures and not args.texts:
        raise UsageError("--figures needs --texts")
    ids = None
    if args.ids is not None:
        if args.query is not None:
            raise UsageError("give a query or --ids, not both")
        try:
            text = sys.stdin.read() if args.ids == "-" else Path(args.ids).read_text(encoding="utf-8")
        except OSError as error:
            raise UsageError(f"--ids: cannot read {args.ids}: {error.strerror or error}") from None
        ids = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    wanted = dict(ids=ids, by=args.by, filters=_filters(args), texts=args.texts, figures=args.figures, limit=args.limit)
    with Session(shared_pacing=args.shared_pacing) as client:
        if args.dry_run:
            return _estimate(client, args.query, **wanted, sample_texts=args.sample_texts)
        result = harvest_corpus(client, args.out, query=args.query, **wanted, progress=show_progress(args))
    resumed = " (resumed)" if result.resumed else ""
    print(
        f"{result.records} records, {result.texts} texts, {result.figures} figures written to "
        f"{result.url or result.out}{resumed}; {result.missing_texts} without a text"
    )
    if result.not_found:
        print(f"{len(result.not_found)} ids not found: {', '.join(result.not_found[:10])}", file=sys.stderr)
    return EXIT_OK


def _estimate(client: Any, query: str | None, **arguments: Any) -> int:
    """``harvest --dry-run``: what the harvest would cost, from a couple of requests; nothing is written."""
    print(client.estimate_harvest(query, **arguments))
    return EXIT_OK


def _filters(args: argparse.Namespace) -> Any:
    if args.filters and args.filters_json is not None:
        raise UsageError("give --filter or --filters-json, not both")
    if args.filters_json is not None:
        return args.filters_json
    return list(args.filters) or None
