"""The ``paperlens`` command line.

Research commands (``search``, ``read``, ``download``, ``catalog``, ``meta-search``,
``relations``, ``harvest``, ``schema <op>``) talk to the service named by the environment
(``PAPERLENS_API_TOKEN``, ``PAPERLENS_BASE_URL``; never a command-line argument, which would
land in shell history), or, when neither is set, to a fresh local sandbox. ``sandbox`` serves
one; ``demo`` tours the API.
"""

from __future__ import annotations

import argparse
import csv
import inspect
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import textwrap
import threading
import typing
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TextIO

import paperlens
from paperlens import errors
from paperlens.sandbox import Sandbox
from paperlens.schema import Schema

__all__ = ["main", "run_demo"]

EXIT_OK = 0
EXIT_OTHER = 1
EXIT_USAGE = 2
EXIT_AUTH = 3
EXIT_NOT_FOUND = 4
EXIT_RATE_LIMITED = 5
EXIT_SERVER = 6
EXIT_INTERRUPTED = 130

_EXAMPLES = """\
examples:
  paperlens search "graph neural networks for molecules" --top-k 5
  paperlens read DOC_ID > paper.md
  paperlens download figures/fig1.png --out ./figures/
  paperlens catalog --format csv > fields.csv
  paperlens meta-search "large language models" --filter "publication_published_year>=2022" \\
      --sort citation_count:desc --fields title,unique_id,citation_count --page-size 20
  paperlens meta-search --facet publication_published_year --format json
  paperlens relations W4000000000 CITATIONS --all --format jsonl
  paperlens harvest "quantum error correction" --out qec/ --format parquet
  paperlens schema search "diffusion models" --size 5
  paperlens schema citation-graph SCHEMA_ID --depth 2 --format json
  paperlens sandbox --port 8765          serve a sandbox until Ctrl-C
  paperlens demo                         a guided research session against a sandbox

environment:
  PAPERLENS_API_TOKEN, PAPERLENS_BASE_URL   the service to use (the token is never an argument);
                                            when neither is set, a fresh local sandbox is used
  PAPERLENS_CACHE_DIR                       cache successful answers there (one hour)

output (--format): table (plain text, the default on a terminal... and elsewhere), json (the
whole answer), jsonl (one record per line), csv (one record per row, nested values as JSON).

exit codes:
  0 success                1 other error            2 usage (bad arguments or parameters, 400/422)
  3 authentication (401, 403, token or base URL settings)        4 not found (404)
  5 rate limited (429)     6 server or connection (5xx, timeouts, unreachable)
  130 interrupted
"""


class _Usage(Exception):
    """A command-line mistake found after parsing (exit code 2)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``paperlens`` command; returns the process exit code (documented in ``--help``)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help, or a usage error argparse reported
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    try:
        return int(args.run(args))
    except _Usage as error:
        print(f"paperlens {args.command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"paperlens {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `paperlens ... | head`
        return EXIT_OK
    except Exception as error:
        code = exit_code(error)
        if code == EXIT_OTHER and not isinstance(error, (errors.PaperlensError, OSError, ImportError)):
            raise
        print(f"paperlens {args.command}: {type(error).__name__}: {error}", file=sys.stderr)
        return code


def exit_code(error: BaseException) -> int:
    """The exit code that tells this kind of failure apart."""
    if isinstance(error, errors.RateLimitError):
        return EXIT_RATE_LIMITED
    if isinstance(error, (errors.AuthenticationError, errors.PermissionDeniedError, errors.ConfigurationError)):
        return EXIT_AUTH
    if isinstance(error, errors.NotFoundError):
        return EXIT_NOT_FOUND
    if isinstance(error, (errors.ValidationError, errors.BadRequestError)):
        return EXIT_USAGE
    if isinstance(error, (errors.ServerError, errors.GatewayTimeoutError)):
        return EXIT_SERVER
    if isinstance(error, (errors.APIConnectionError, errors.APITimeoutError)):
        return EXIT_SERVER
    if isinstance(error, errors.APIError):
        return EXIT_SERVER if error.status >= 500 else EXIT_OTHER
    return EXIT_OTHER


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paperlens",
        description="Python SDK of the paperlens scholarly literature platform: search, read and harvest papers.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND", dest="command")
    _research_commands(commands)

    sandbox = commands.add_parser(
        "sandbox",
        help="serve a local sandbox of the service until interrupted",
        description=(
            "Serve a local, contract-faithful sandbox of the service in the foreground. "
            "The first line printed is `base_url=... token=...`; Ctrl-C or SIGTERM stops it."
        ),
    )
    sandbox.add_argument("--host", default="127.0.0.1", help="interface (default: loopback)")
    sandbox.add_argument("--port", type=int, default=0, help="TCP port (default: a free one)")
    sandbox.add_argument("--papers", type=int, default=2000, help="corpus size (default 2000)")
    sandbox.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    sandbox.add_argument("--token", help="the full-access token (default: generated)")
    sandbox.add_argument(
        "--rate-limit",
        action="append",
        default=[],
        type=_rate_limit,
        metavar="RESOURCE=N",
        help="requests per minute for meta-search or paper-schema (repeatable)",
    )
    sandbox.add_argument(
        "--rate-limit-kind",
        choices=("sliding", "fixed", "bucket"),
        default="sliding",
        help="how a rate limit is counted: sliding window, fixed window or token bucket (default sliding)",
    )
    sandbox.set_defaults(run=_serve)

    demo = commands.add_parser("demo", help="a guided research session against a sandbox")
    demo.set_defaults(run=lambda _args: run_demo(sys.stdout))
    return parser


# -- research commands ---------------------------------------------------------------------

FORMATS = ("table", "json", "jsonl", "csv")
_TOKEN_ENV, _BASE_URL_ENV, _CACHE_ENV = "PAPERLENS_API_TOKEN", "PAPERLENS_BASE_URL", "PAPERLENS_CACHE_DIR"

#: The 18 structured-paper operations, as ``paperlens schema <name>``.
SCHEMA_OPERATIONS = (
    "capabilities",
    "search",
    "entity_related_papers",
    "related_papers",
    "search_entities",
    "entities",
    "entity",
    "search_relations",
    "relation",
    "citation_summary",
    "citations",
    "citation_graph",
    "search_evidence",
    "evidence",
    "resolve_provenance",
    "search_in_paper",
    "hydrate_items",
    "materials",
)


def _research_commands(commands: Any) -> None:
    output = argparse.ArgumentParser(add_help=False)
    output.add_argument(
        "--format", choices=FORMATS, default="table", help="output: table (default), json, jsonl or csv"
    )

    def command(name: str, help: str, run: Callable[[argparse.Namespace], int], **kw: Any) -> argparse.ArgumentParser:
        sub = commands.add_parser(
            name, help=help, description=kw.pop("description", help), parents=kw.pop("parents", [output]), **kw
        )
        sub.set_defaults(run=run)
        return sub

    search = command("search", "agentic (semantic) search over paper chunks", _search)
    search.add_argument("query", help="a question or topic, in natural language")
    search.add_argument("--top-k", type=int, help="how many hits")
    search.add_argument("--retrieval", help="retrieval mode of the service")
    search.add_argument("--sub-queries", type=int, help="how many sub-queries the service may derive")
    search.add_argument(
        "--source-type", action="append", dest="source_types", help="restrict to a source type (repeatable)"
    )
    search.add_argument("--filters", type=_json_arg, help="filters as a JSON object")

    read = command("read", "the full text of a document (or one page of it with --offset/--limit)", _read)
    read.add_argument("doc_id", nargs="?", help="the document id (doc_id of a search hit)")
    read.add_argument("--source", help="the source URL instead of a doc_id")
    read.add_argument("--offset", type=int, help="first code point of a page")
    read.add_argument("--limit", type=int, help="code points in the page")

    download = command("download", "download a resource (a figure or attachment) to disk", _download)
    download.add_argument("file_name", help="the resource name, as it appears in the text")
    download.add_argument("--out", default=".", help="a file path, or a directory to put it in (default: .)")
    _progress_flag(download)

    catalog = command("catalog", "the metadata fields this token may search, filter, sort and facet", _catalog)
    catalog.add_argument("--collection", help="a collection other than the default")
    catalog.add_argument("--sample-values", action="store_true", help="include sample values of each field")
    catalog.add_argument("--field-stats", action="store_true", help="include statistics of each field")

    meta = command("meta-search", "bibliographic metadata search with filters, sort and facets", _meta_search)
    meta.add_argument("query", nargs="?", help="keywords (omit to filter only)")
    _search_options(meta)
    meta.add_argument("--facet", action="append", default=[], metavar="FIELD[:N]", help="facet on a field (repeatable)")
    meta.add_argument("--page", type=int, help="page number (page paging, up to the 10000 cap)")
    meta.add_argument("--page-size", type=int, help="records per page (1-200)")
    meta.add_argument("--cursor", help="continue from a next_cursor")
    for boost in ("freshness-boost", "impact-boost", "language-affinity"):
        meta.add_argument(f"--{boost}", help=f"{boost.replace('-', ' ')} of the relevance ranking")
    _all_flags(meta)

    relations = command("relations", "citations, references or related works of a paper", _relations)
    relations.add_argument("unique_id", help="the paper's unique_id (e.g. W4000000000)")
    relations.add_argument("relation", help="CITATIONS, REFERENCES or RELATED")
    relations.add_argument("--page", type=int, help="page number")
    relations.add_argument("--page-size", type=int, help="items per page")
    _all_flags(relations)

    harvest = command(
        "harvest",
        "write every record of a metadata search to Parquet or JSONL, resumably",
        _harvest,
        parents=[],
        description=(
            "Write every record of a metadata search to Parquet part files (a directory) or a JSONL "
            "file, in chunks, paced to the quota. A checkpoint beside the output (<out>.checkpoint.json) "
            "is updated after each chunk: run the same command again after an interruption to resume "
            "with nothing lost or duplicated."
        ),
    )
    harvest.add_argument("query", nargs="?", help="keywords (omit to filter only)")
    harvest.add_argument("--out", required=True, help="output directory (parquet) or file (jsonl)")
    harvest.add_argument(
        "--format", choices=("parquet", "jsonl"), default="parquet", help="file format (default parquet)"
    )
    _search_options(harvest)
    harvest.add_argument("--chunk-size", type=int, default=1000, help="records per chunk and checkpoint (default 1000)")
    harvest.add_argument("--page-size", type=int, default=200, help="records per request (default 200, the most)")
    harvest.add_argument("--limit", type=int, help="stop after this many records")
    harvest.add_argument(
        "--shared-pacing",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="share the quota pacing with the other paperlens processes of this machine that use the same "
        "token and service, so harvests run side by side stay within the quota together (default: on)",
    )
    _progress_flag(harvest)

    schema = commands.add_parser(
        "schema",
        help="the structured-paper operations (entities, relations, evidence, citations)",
        description="The 18 structured-paper operations of client.schema; `paperlens schema OP --help` for one.",
    )
    ops = schema.add_subparsers(title="operations", required=True, metavar="OP", dest="operation")
    for name in SCHEMA_OPERATIONS:
        _schema_command(ops, name, output)


def _progress_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a progress bar on stderr (default: when stderr is a terminal)",
    )


def _all_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--all", action="store_true", help="follow every page (one request per page)")
    parser.add_argument("--limit", type=int, help="with --all: stop after this many items")


def _search_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--collection", help="a collection other than the default")
    parser.add_argument(
        "--filter",
        action="append",
        default=[],
        type=_filter_arg,
        dest="filters",
        metavar="EXPR",
        help="a condition such as 'citation_count>=100', 'language in en,zh' or 'title match graph' (repeatable)",
    )
    parser.add_argument("--filters-json", type=_json_arg, help="filters as the wire JSON list")
    parser.add_argument(
        "--sort",
        action="append",
        default=[],
        type=_sort_arg,
        metavar="FIELD[:asc|desc]",
        help="sort order (repeatable)",
    )
    parser.add_argument("--fields", type=_csv_list, help="comma-separated fields to return")


_FILTER_SYMBOL = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*(==|!=|>=|<=|=|>|<)\s*(.*?)\s*$")
_FILTER_WORD = re.compile(r"^\s*([A-Za-z_][\w.]*)\s+(in|not_in|contains|match_phrase|match)\s+(.*?)\s*$", re.I)


def _scalar(text: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _filter_arg(text: str) -> paperlens.Filter:
    match = _FILTER_WORD.match(text) or _FILTER_SYMBOL.match(text)
    if not match:
        raise argparse.ArgumentTypeError(
            f"expected FIELD OP VALUE (OP one of == != > >= < <= in not_in contains match match_phrase), got {text!r}"
        )
    field, op, raw = match.groups()
    op = {"=": "=="}.get(op, op.lower())
    value = [_scalar(v) for v in raw.split(",") if v.strip()] if op in ("in", "not_in") else _scalar(raw)
    return paperlens.Filter(field, op, value)


def _sort_arg(text: str) -> tuple[str, str]:
    field, _, order = text.partition(":")
    order = (order or "desc").lower()
    if not field or order not in ("asc", "desc"):
        raise argparse.ArgumentTypeError(f"expected FIELD or FIELD:asc or FIELD:desc, got {text!r}")
    return field, order


def _facet_arg(text: str) -> Any:
    field, _, size = text.partition(":")
    if not field or (size and not size.isdigit()):
        raise _Usage(f"--facet: expected FIELD or FIELD:N, got {text!r}")
    return (field, int(size)) if size else field


def _json_arg(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"not valid JSON ({e}): {text!r}") from e


def _csv_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _int_list(text: str) -> list[int]:
    try:
        return [int(part) for part in _csv_list(text)]
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from e


def _filters(args: argparse.Namespace) -> Any:
    if args.filters and args.filters_json is not None:
        raise _Usage("give --filter or --filters-json, not both")
    if args.filters_json is not None:
        return args.filters_json
    return list(args.filters) or None


def _show_progress(args: argparse.Namespace) -> bool:
    if args.progress is not None:
        return bool(args.progress)
    return sys.stderr.isatty()


class _Session:
    """The client of a command: the environment's service, or a fresh sandbox.
    ``shared_pacing`` applies to the environment's service (no other process shares a fresh
    sandbox's token)."""

    def __init__(self, *, shared_pacing: bool = False) -> None:
        self._stack = ExitStack()
        self._shared_pacing = shared_pacing

    def __enter__(self) -> paperlens.Client:
        token, base_url = os.environ.get(_TOKEN_ENV, "").strip(), os.environ.get(_BASE_URL_ENV, "").strip()
        settings: dict[str, Any] = {"cache_dir": os.environ.get(_CACHE_ENV) or None}
        if not token and not base_url:
            sandbox = self._stack.enter_context(Sandbox())
            print(
                f"paperlens: {_TOKEN_ENV} and {_BASE_URL_ENV} are not set: using a fresh local sandbox "
                f"with a generated corpus ({sandbox.base_url})",
                file=sys.stderr,
            )
            settings.update(api_token=sandbox.token, base_url=sandbox.base_url)
        else:
            settings.update(shared_pacing=self._shared_pacing)
        try:
            client = paperlens.Client(**settings)
        except BaseException:
            self._stack.close()
            raise
        self._stack.callback(client.close)
        return client

    def __exit__(self, *exc: object) -> None:
        self._stack.close()


def _search(args: argparse.Namespace) -> int:
    with _Session() as client:
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


def _read(args: argparse.Namespace) -> int:
    if not args.doc_id and not args.source:
        raise _Usage("give a doc_id or --source")
    with _Session() as client:
        if args.offset is None and args.limit is None:
            text = client.read_text(args.doc_id, source=args.source)
            if args.format == "table":
                sys.stdout.write(text if text.endswith("\n") else text + "\n")
            else:
                emit(args.format, {"doc_id": args.doc_id, "source": args.source, "text": text})
            return EXIT_OK
        page = client.content(args.doc_id, source=args.source, offset=args.offset, limit=args.limit)
        if args.format == "table":
            sys.stdout.write(page.text if page.text.endswith("\n") else page.text + "\n")
            more = f"; next offset {page.next_offset}" if page.more else ""
            print(f"[{page.bytes_returned} bytes of {page.text_length} code points{more}]", file=sys.stderr)
        else:
            emit(args.format, page)
    return EXIT_OK


def _download(args: argparse.Namespace) -> int:
    with _Session() as client:
        path = client.download_resource(args.file_name, args.out, progress=_show_progress(args))
        size = path.stat().st_size
        if args.format == "table":
            print(f"{path}  ({size} bytes)")
        else:
            emit(args.format, {"file_name": args.file_name, "path": str(path), "bytes": size})
    return EXIT_OK


def _catalog(args: argparse.Namespace) -> int:
    with _Session() as client:
        catalog = client.meta_catalog(
            collection=args.collection,
            include_sample_values=args.sample_values or None,
            include_field_stats=args.field_stats or None,
        )
        emit(args.format, catalog, columns=["name", "type", "filterable", "sortable", "searchable", "description"])
    return EXIT_OK


_RECORD_COLUMNS = ["unique_id", "publication_published_year", "citation_count", "title"]


def _meta_search(args: argparse.Namespace) -> int:
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
    facets = [_facet_arg(f) for f in args.facet] or None
    columns = [c for c in _RECORD_COLUMNS if not args.fields or c in args.fields] or None
    with _Session() as client:
        if args.all:
            if facets:
                raise _Usage("--facet needs a single page: drop --all")
            records = client.iter_meta_search(args.query, **params, limit=args.limit)
            emit(args.format, records, columns=columns)
            return EXIT_OK
        page = client.meta_search(args.query, **params, facets=facets)
        emit(args.format, page, columns=columns)
        if args.format == "table":
            for facet in page.facets or []:
                print(f"\nfacet {facet.field}:")
                print(format_table(["value", "papers"], [[b.key, b.doc_count] for b in facet.buckets]))
            cursor = f"; next cursor: {page.next_cursor}" if page.next_cursor else ""
            print(f"{len(page.results)} of {page.total_count} records{cursor}", file=sys.stderr)
    return EXIT_OK


def _relations(args: argparse.Namespace) -> int:
    columns = ["id_type", "id", "title"]
    with _Session() as client:
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


def _harvest(args: argparse.Namespace) -> int:
    from paperlens.harvest import harvest

    with _Session(shared_pacing=args.shared_pacing) as client:
        result = harvest(
            client,
            args.query,
            out=args.out,
            format=args.format,
            filters=_filters(args),
            sort=list(args.sort) or None,
            fields=args.fields,
            collection=args.collection,
            chunk_size=args.chunk_size,
            page_size=args.page_size,
            limit=args.limit,
            progress=_show_progress(args),
        )
    resumed = " (resumed)" if result.resumed else ""
    print(f"{result.records} records in {result.chunks} chunks written to {result.out}{resumed}")
    return EXIT_OK


# -- schema <op>: generated from the signatures of client.schema ---------------------------


def _schema_command(ops: Any, name: str, output: argparse.ArgumentParser) -> None:
    method = getattr(Schema, name)
    doc = inspect.getdoc(method) or name
    summary = doc.split("\n\n")[0].replace("\n", " ")
    sub = ops.add_parser(name.replace("_", "-"), help=summary, description=doc, parents=[output])
    hints = typing.get_type_hints(method, globalns=vars(sys.modules[Schema.__module__]))
    for param in list(inspect.signature(method).parameters.values())[1:]:
        hint = str(hints.get(param.name, Any))
        kind, listed, optional = _param_kind(hint)
        flag = param.name.replace("_", "-")
        options: dict[str, Any] = {"help": f"{param.name} ({_describe(kind, listed)})"}
        if kind is bool:
            options["action"] = argparse.BooleanOptionalAction
        elif listed and kind in (str, int) and param.kind is not param.KEYWORD_ONLY:
            options.update(nargs="+", type=kind)
        else:
            options["type"] = _converter(kind, listed)
        if param.kind is param.KEYWORD_ONLY:
            sub.add_argument(f"--{flag}", dest=param.name, default=None, **options)
        else:
            if optional:
                options["nargs"] = "?"
            sub.add_argument(param.name, **options)
    if hasattr(Schema, f"iter_{name}"):
        _all_flags(sub)
    sub.set_defaults(run=_schema_run, method=name)


def _param_kind(hint: str) -> tuple[Any, bool, bool]:
    """``(element kind, is a list, may be None)`` of an annotation such as ``list[str] | None``."""
    optional = "None" in hint
    core = hint.replace(" | None", "").replace("typing.", "").replace("Optional[", "").strip()
    if core.startswith("list[dict") or core.startswith("dict") or core in ("Any",):
        return dict, False, optional
    listed = core.startswith("list[")
    inner = core[5:-1] if listed else core
    kind = {"str": str, "int": int, "float": float, "bool": bool}.get(
        inner.split("'")[-2] if "'" in inner else inner, str
    )
    return kind, listed, optional


def _describe(kind: Any, listed: bool) -> str:
    if kind is dict:
        return "JSON"
    name = kind.__name__
    return f"comma-separated {name}s" if listed else name


def _converter(kind: Any, listed: bool) -> Callable[[str], Any]:
    if kind is dict:
        return _json_arg
    if listed:
        return _int_list if kind is int else _csv_list
    return kind


def _schema_run(args: argparse.Namespace) -> int:
    skip = {"run", "method", "format", "command", "operation", "all", "limit"}
    params = {k: v for k, v in vars(args).items() if k not in skip}
    method = args.method
    with _Session() as client:
        if getattr(args, "all", False):
            params.pop("cursor", None)
            emit(args.format, getattr(client.schema, f"iter_{method}")(**params, limit=args.limit))
        else:
            emit(args.format, getattr(client.schema, method)(**params))
    return EXIT_OK


# -- output ----------------------------------------------------------------------------------

_LIST_KEYS = ("hits", "results", "items", "fields", "nodes", "segments", "citations", "papers")
_SCALARS = (str, int, float, bool, type(None))


def _plain(obj: Any) -> Any:
    """Wire JSON of a result, a list of results or a paginator."""
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if isinstance(obj, dict):
        return obj
    if isinstance(obj, (list, tuple)) or (hasattr(obj, "__iter__") and not isinstance(obj, (str, bytes))):
        return [_plain(x) for x in obj]
    return obj


def _rows(data: Any) -> tuple[list[dict[str, Any]], bool]:
    """The records of ``data`` and whether it is one object (shown as field/value lines)."""
    if isinstance(data, list):
        return [x if isinstance(x, dict) else {"value": x} for x in data], False
    if not isinstance(data, dict):
        return [{"value": data}], True
    for key in _LIST_KEYS:
        value = data.get(key)
        if isinstance(value, list) and all(isinstance(x, dict) for x in value):
            return value, False
    return [data], True


def emit(fmt: str, result: Any, *, columns: Sequence[str] | None = None, out: TextIO | None = None) -> None:
    """Prints ``result`` (a result, a list, a paginator or a dict) in ``fmt``."""
    out = out or sys.stdout
    data = _plain(result)
    if fmt == "json":
        json.dump(data, out, ensure_ascii=False, indent=2, default=str)
        out.write("\n")
        return
    rows, single = _rows(data)
    if fmt == "jsonl":
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        return
    if fmt == "csv":
        names = _all_keys(rows)
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(names)
        for row in rows:
            writer.writerow([_csv_cell(row.get(name)) for name in names])
        return
    if single:
        row = rows[0]
        print(format_table(["field", "value"], [[k, _compact(v)] for k, v in row.items()], max_width=100), file=out)
        return
    if not rows:
        print("(no results)", file=out)
        return
    names = [c for c in columns or () if any(c in r for r in rows)] or _auto_columns(rows)
    width = shutil.get_terminal_size((120, 24)).columns
    cell_width = max(12, min(60, (width - 2 * len(names)) // max(1, len(names)) * 2))
    print(format_table(names, [[_compact(r.get(c)) for c in names] for r in rows], max_width=cell_width), file=out)


def _all_keys(rows: list[dict[str, Any]]) -> list[str]:
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    return list(names)


def _auto_columns(rows: list[dict[str, Any]], most: int = 6) -> list[str]:
    names = [n for n in _all_keys(rows) if all(isinstance(r.get(n), _SCALARS) for r in rows[:50])]

    def rank(name: str) -> int:
        if name in ("id", "unique_id", "schema_id", "doc_id") or name.endswith("_id"):
            return 0
        if name in ("title", "name", "display_name", "text", "label", "key"):
            return 1
        return 2

    return sorted(names, key=rank)[:most] or _all_keys(rows)[:most]


def _compact(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    return _compact(value)


def _rate_limit(text: str) -> tuple[str, int]:
    resource, _, count = text.partition("=")
    if resource not in ("meta-search", "paper-schema") or not count.isdigit():
        raise argparse.ArgumentTypeError(f"expected meta-search=N or paper-schema=N, got {text!r}")
    return resource, int(count)


def _serve(args: argparse.Namespace) -> int:
    try:
        sandbox = Sandbox(
            papers=args.papers,
            seed=args.seed,
            rate_limits=dict(args.rate_limit) or None,
            rate_limit_kind=args.rate_limit_kind,
            token=args.token,
            host=args.host,
            port=args.port,
        )
    except (ValueError, OSError, OverflowError) as error:
        print(f"paperlens sandbox: {error}", file=sys.stderr)
        return 1
    stop = threading.Event()

    def request_stop(_signum: int, _frame: object) -> None:
        stop.set()

    stop_signals = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.signal(signum, request_stop) for signum in stop_signals}
    with sandbox:
        print(f"base_url={sandbox.base_url} token={sandbox.token}", flush=True)
        print(f"restricted_token={sandbox.restricted_token}", flush=True)
        print(
            f"paperlens sandbox: {args.papers} papers (seed {args.seed}); Ctrl-C stops it",
            file=sys.stderr,
            flush=True,
        )
        # A timed wait keeps the main thread responsive to signals on every platform.
        while not stop.wait(0.5):
            pass
    for signum, handler in previous.items():
        signal.signal(signum, handler)
    print("paperlens sandbox: stopped", file=sys.stderr, flush=True)
    return 0


_QUESTION = "Does retrieval augmented generation reduce hallucination in question answering?"
_TOPIC = "retrieval augmented generation"
_IMAGE_PLACEHOLDER = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def run_demo(out: TextIO = sys.stdout) -> int:
    """A guided research session against a fresh sandbox, printed as plain-text tables.

    Agentic search, the context around the best hit, a figure downloaded, a metadata
    search with facets, then the citations of the most cited paper found. Returns 0.
    """

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    with Sandbox() as sandbox:
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url)
        say(f"paperlens demo: a sandbox with a generated corpus at {sandbox.base_url}")

        say(f"\n1. Agentic search: {_QUESTION!r}")
        found = client.agentic_search(_QUESTION, top_k=5)
        say(
            format_table(
                ["#", "score", "recall", "year", "title"],
                [
                    [
                        rank,
                        f"{hit.score:.3f}",
                        hit.recall_source,
                        hit.publication_published_year,
                        hit.title,
                    ]
                    for rank, hit in enumerate(found.hits, 1)
                ],
            )
        )
        if not found.hits:
            say("no hits")
            return 0
        best = found.hits[0]

        say(f"\n2. The context around the best hit (doc {best.doc_id[:12]}..., offset {best.offset})")
        start = max(0, best.offset - 300)
        page = client.content(best.doc_id, offset=start, limit=1200)
        say(textwrap.indent(textwrap.fill(" ".join(page.text.split()), width=88), "    "))
        say(f"    [{page.bytes_returned} bytes of {page.text_length} code points]")

        say("\n3. A figure of that paper")
        figure = _first_figure(page.text) or _first_figure(client.read_text(best.doc_id))
        if figure is None:
            say("this paper has no figure")
        else:
            with tempfile.TemporaryDirectory() as folder:
                path = client.download_resource(figure, Path(folder) / Path(figure).name)
                data = path.read_bytes()
                kind = "PNG image" if data.startswith(b"\x89PNG") else "file"
                say(f"downloaded {figure}: {kind}, {len(data)} bytes")

        say(f"\n4. Metadata search with facets: {_TOPIC!r}")
        results = client.meta_search(
            _TOPIC,
            page_size=8,
            fields=[
                "title",
                "unique_id",
                "publication_published_year",
                "citation_count",
                "publication_venue_name_unified",
            ],
            facets=["publication_published_year", ("publication_venue_type", 10)],
        )
        say(f"{results.total_count} matching records; the first {len(results.results)}:")
        say(
            format_table(
                ["year", "cited", "venue", "title"],
                [
                    [
                        r.publication_published_year,
                        r.citation_count,
                        r.publication_venue_name_unified,
                        r.title,
                    ]
                    for r in results.results
                ],
            )
        )
        for facet in results.facets:
            say(f"\nfacet {facet.field}:")
            say(format_table(["value", "papers"], [[b.key, b.doc_count] for b in facet.buckets[:8]]))

        cited = max(results.results, key=lambda r: r.citation_count or 0, default=None)
        if cited is None:
            return 0
        say(f"\n5. Who cites {cited.title!r}?")
        citations = client.paper_relations(cited.unique_id, "CITATIONS", page_size=8)
        say(f"{citations.total_count} citing works; the first {len(citations.items)}:")
        say(format_table(["id type", "id", "title"], [[i.id_type, i.id, i.title] for i in citations.items]))
        say("\nDone: every call above went through paperlens.Client against the sandbox.")
    return 0


def _first_figure(markdown: str) -> str | None:
    match = _IMAGE_PLACEHOLDER.search(markdown)
    return match.group(1) if match else None


def format_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], max_width: int = 60) -> str:
    """A plain-text table: columns sized to their content, cells cut at ``max_width``."""

    def cell(value: Any) -> str:
        text = "" if value is None else " ".join(str(value).split())
        return text if len(text) <= max_width else text[: max_width - 3] + "..."

    cells = [[cell(value) for value in row] for row in rows]
    widths = [max([len(h), *(len(row[i]) for row in cells)]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in cells)])


if __name__ == "__main__":
    sys.exit(main())
