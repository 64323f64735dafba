"""The arguments of every ``paperlens`` command, and the examples of ``paperlens --help``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from paperlens.base import _contract as c
from paperlens.cli import commands
from paperlens.cli.bibliography_commands import add_bibliography_commands
from paperlens.cli.convert import csv_list, filter_arg, json_arg, rate_limit_arg, sort_arg
from paperlens.cli.demo import run_demo
from paperlens.cli.map_command import DESCRIPTION as MAP_DESCRIPTION
from paperlens.cli.map_command import add_arguments as add_map_arguments
from paperlens.cli.map_command import run as run_map
from paperlens.cli.mcp_command import DESCRIPTION as MCP_DESCRIPTION
from paperlens.cli.mcp_command import add_arguments as add_mcp_arguments
from paperlens.cli.mcp_command import run as run_mcp
from paperlens.cli.options import (
    add_paging_flags,
    add_progress_flag,
    add_repeatable,
    output_options,
    record_output_options,
)
from paperlens.cli.schema_commands import add_schema_commands
from paperlens.cli.serve import serve
from paperlens.cli.snowball_command import DESCRIPTION as SNOWBALL_DESCRIPTION
from paperlens.cli.snowball_command import add_arguments as add_snowball_arguments
from paperlens.cli.snowball_command import run as run_snowball
from paperlens.cli.update_command import DESCRIPTION as UPDATE_DESCRIPTION
from paperlens.cli.update_command import add_arguments as add_update_arguments
from paperlens.cli.update_command import run as run_update
from paperlens.cli.verify_command import DESCRIPTION as VERIFY_DESCRIPTION
from paperlens.cli.verify_command import add_arguments as add_verify_arguments
from paperlens.cli.verify_command import run as run_verify

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
  paperlens lookup --by doi < dois.txt --format bibtex > refs.bib
  paperlens match < references.txt       the best record of each reference, with its confidence
  paperlens verify refs.bib              is every entry a real work, as cited? (exit 7 when not)
  paperlens harvest "quantum error correction" --out qec/ --format parquet
  paperlens update qec/ --digest md -o new.md   add what the service gained since; a digest of it
  paperlens snowball W4000000000 W4000000001 --depth 2 --max-per-paper 100 --out network/ --graphml
  paperlens map co-citation qec/ --min-weight 2 -o qec-map/    VOSviewer map.txt and network.txt
  paperlens schema search "diffusion models" --size 5
  paperlens schema citation-graph SCHEMA_ID --depth 2 --format json
  paperlens sandbox --port 8765          serve a sandbox until Ctrl-C
  paperlens demo                         a guided research session against a sandbox
  paperlens mcp --tools all              serve the tools to an agent (MCP over stdio)

environment:
  PAPERLENS_API_TOKEN, PAPERLENS_BASE_URL   the service to use (the token is never an argument);
                                            when neither is set, a fresh local sandbox is used
  PAPERLENS_CACHE_DIR                       cache successful answers there (one hour)
  PAPERLENS_SHARED_PACING                   harvests share the quota pacing through this Redis
                                            (redis://host:6379/0) with every machine, not a file

output (--format): table (plain text, the default on a terminal... and elsewhere), json (the
whole answer), jsonl (one record per line), csv (one record per row, nested values as JSON);
where records are printed (meta-search, relations, lookup, match) also bibtex, ris, csl-json.

exit codes:
  0 success                1 other error            2 usage (bad arguments or parameters, 400/422)
  3 authentication (401, 403, token or base URL settings)
  4 not found (404; lookup and match: none of the ids or references, the misses listed on stderr)
  5 rate limited (429)     6 server or connection (5xx, timeouts, unreachable)
  7 verify: an entry is not verified (mismatch, not found, ambiguous or unverifiable)
  8 output (disk full, read-only or unwritable folder, another run writing the same output,
    an output holding something else); harvest: run the same command again to resume
  130 interrupted (harvest, snowball --checkpoint: run the same command again to resume)
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paperlens",
        description="Python SDK of the paperlens scholarly literature platform: search, read and harvest papers.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(title="commands", required=True, metavar="COMMAND", dest="command")
    output = output_options()
    record_output = record_output_options()

    def command(name: str, help: str, run: Callable[[argparse.Namespace], int], **kw: Any) -> argparse.ArgumentParser:
        sub = subparsers.add_parser(
            name, help=help, description=kw.pop("description", help), parents=kw.pop("parents", [output]), **kw
        )
        sub.set_defaults(run=run)
        return sub

    _search(command("search", "agentic (semantic) search over paper chunks", commands.search))
    _read(command("read", "the full text of a document (or one page of it with --offset/--limit)", commands.read))
    _download(command("download", "download a resource (a figure or attachment) to disk", commands.download))
    _catalog(command("catalog", "the metadata fields this token may search, filter, sort and facet", commands.catalog))
    _meta_search(
        command(
            "meta-search",
            "bibliographic metadata search with filters, sort and facets",
            commands.meta_search,
            parents=[record_output],
        )
    )
    _relations(
        command(
            "relations",
            "citations, references or related works of a paper",
            commands.relations,
            parents=[record_output],
        )
    )
    add_bibliography_commands(command, record_output)
    add_verify_arguments(
        command(
            "verify",
            "check a reference list (BibTeX or free text): verified, mismatch, not found",
            run_verify,
            parents=[],
            description=VERIFY_DESCRIPTION,
        )
    )
    _harvest(
        command(
            "harvest",
            "write every record of a metadata search to Parquet or JSONL, resumably",
            commands.harvest,
            parents=[],
            description=(
                "Write every record of a metadata search to Parquet part files (a directory) or a JSONL "
                "file, in chunks, paced to the quota. A checkpoint beside the output (<out>.checkpoint.json) "
                "is updated after each chunk: run the same command again after an interruption to resume "
                "with nothing lost or duplicated."
            ),
        )
    )
    add_update_arguments(
        command(
            "update",
            "bring harvest outputs up to date and print a digest of the new records",
            run_update,
            parents=[],
            description=UPDATE_DESCRIPTION,
        )
    )
    add_snowball_arguments(
        command(
            "snowball",
            "the citation network around seed papers, to Parquet (and GraphML)",
            run_snowball,
            parents=[],
            description=SNOWBALL_DESCRIPTION,
        )
    )
    add_map_arguments(
        command(
            "map",
            "a bibliometric network of a harvest, for VOSviewer, Gephi or Pajek",
            run_map,
            parents=[],
            description=MAP_DESCRIPTION,
        )
    )
    add_schema_commands(subparsers, output)
    _sandbox(
        command(
            "sandbox",
            "serve a local sandbox of the service until interrupted",
            serve,
            parents=[],
            description=(
                "Serve a local, contract-faithful sandbox of the service in the foreground. "
                "The first line printed is `base_url=... token=...`; Ctrl-C or SIGTERM stops it."
            ),
        )
    )
    command("demo", "a guided research session against a sandbox", lambda _args: run_demo(sys.stdout), parents=[])
    add_mcp_arguments(
        command("mcp", "a Model Context Protocol server for agents", run_mcp, parents=[], description=MCP_DESCRIPTION)
    )
    return parser


def _search(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", help="a question or topic, in natural language")
    parser.add_argument("--top-k", type=int, help="how many hits")
    parser.add_argument("--retrieval", help=f"retrieval mode: {', '.join(c.RETRIEVAL_MODES)}")
    parser.add_argument("--sub-queries", type=int, help="how many sub-queries the service may derive")
    parser.add_argument(
        "--source-type",
        action="append",
        dest="source_types",
        help=f"restrict to a source type: {' or '.join(c.SOURCE_TYPES)} (repeatable)",
    )
    parser.add_argument("--filters", type=json_arg, help="filters as a JSON object")


def _read(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("doc_id", nargs="?", help="the document id (doc_id of a search hit)")
    parser.add_argument("--source", help="the source URL instead of a doc_id")
    parser.add_argument("--offset", type=int, help="first code point of a page")
    parser.add_argument("--limit", type=int, help="code points in the page")


def _download(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file_name", help="the resource name, as it appears in the text")
    parser.add_argument("--out", default=".", help="a file path, or a directory to put it in (default: .)")
    parser.add_argument("--overwrite", action="store_true", help="replace a file already there (default: refuse)")
    add_progress_flag(parser)


def _catalog(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--collection", help=f"a collection other than the default: {', '.join(c.COLLECTIONS)}")
    parser.add_argument("--sample-values", action="store_true", help="include sample values of each field")
    parser.add_argument("--field-stats", action="store_true", help="include statistics of each field")


def _meta_search(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", nargs="?", help="keywords (omit to filter only)")
    _search_options(parser)
    add_repeatable(parser, "--facet", "facet on a field", metavar="FIELD[:N]")
    parser.add_argument("--page", type=int, help=f"page number (page paging, up to the {c.PAGE_DEPTH_CAP} cap)")
    parser.add_argument("--page-size", type=int, help=f"records per page (1-{c.PAGE_SIZE_MAX})")
    parser.add_argument("--cursor", help="continue from a next_cursor")
    for boost in c.BOOSTS:
        words = boost.replace("_", " ")
        parser.add_argument(
            f"--{boost.replace('_', '-')}", help=f"{words} of the relevance ranking: {', '.join(c.BOOST_LEVELS)}"
        )
    add_paging_flags(parser)


def _relations(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("unique_id", help="the paper's unique_id (e.g. W4000000000)")
    parser.add_argument("relation", help=" or ".join(c.PAPER_RELATIONS) + " (any case: citations works too)")
    parser.add_argument("--page", type=int, help="page number")
    parser.add_argument("--page-size", type=int, help="items per page")
    add_paging_flags(parser)


def _harvest(parser: argparse.ArgumentParser) -> None:
    from paperlens.harvests.corpus import BY

    parser.add_argument("query", nargs="?", help="keywords (omit to filter only)")
    parser.add_argument("--out", required=True, help="output directory (parquet) or file (jsonl)")
    parser.add_argument(
        "--format", choices=("parquet", "jsonl"), default="parquet", help="file format (default parquet)"
    )
    _search_options(parser)
    parser.add_argument("--chunk-size", type=int, default=1000, help="records per chunk and checkpoint (default 1000)")
    parser.add_argument(
        "--page-size",
        type=int,
        default=c.PAGE_SIZE_MAX,
        help=f"records per request (default {c.PAGE_SIZE_MAX}, the most)",
    )
    parser.add_argument("--limit", type=int, help="stop after this many records")
    corpus = parser.add_argument_group(
        "full-text corpora",
        "--texts or --ids make --out a corpus directory: records/ (Parquet parts), documents/<doc_id>/text.md "
        "(one Markdown file per document, with its figures) and manifest.json; --chunk-size and --page-size "
        "do not apply (one page of 200 records per chunk)",
    )
    corpus.add_argument("--texts", action="store_true", help="also write the full text of each record")
    corpus.add_argument("--figures", action="store_true", help="with --texts: also download the figures of each text")
    corpus.add_argument(
        "--ids", metavar="FILE", help="harvest these identifiers (one a line; '-' for stdin) instead of a search"
    )
    corpus.add_argument("--by", choices=BY, default="unique_id", help="the field --ids names (default unique_id)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print what the harvest would cost (requests per operation, quota resources, time at the client's "
        "rates), from a couple of requests, and write nothing",
    )
    parser.add_argument(
        "--sample-texts",
        type=int,
        metavar="N",
        help="with --dry-run and --texts: read N texts (up to 200) to estimate the figures and text pages "
        "(default: one with --figures); the more, the closer the figure count",
    )
    parser.add_argument(
        "--shared-pacing",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="share the quota pacing with the other paperlens processes of this machine that use the same "
        "token and service (of every machine, through PAPERLENS_SHARED_PACING=redis://...), so harvests "
        "run side by side stay within the quota together (default: on)",
    )
    add_progress_flag(parser)


def _search_options(parser: argparse.ArgumentParser) -> None:
    """The query options of ``meta-search`` and ``harvest``."""
    parser.add_argument("--collection", help=f"a collection other than the default: {', '.join(c.COLLECTIONS)}")
    add_repeatable(
        parser,
        "--filter",
        "a condition such as 'citation_count>=100', 'language in en,zh' or 'title match graph'",
        type=filter_arg,
        dest="filters",
        metavar="EXPR",
    )
    parser.add_argument("--filters-json", type=json_arg, help="filters as the wire JSON list")
    add_repeatable(parser, "--sort", "sort order", type=sort_arg, metavar="FIELD[:asc|desc]")
    parser.add_argument("--fields", type=csv_list, help="comma-separated fields to return")


def _sandbox(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="interface (default: loopback)")
    parser.add_argument("--port", type=int, default=0, help="TCP port (default: a free one)")
    parser.add_argument("--papers", type=int, default=2000, help="corpus size, 1 to 1000000 (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    parser.add_argument("--token", help="the full-access token (default: generated)")
    add_repeatable(
        parser,
        "--rate-limit",
        "requests per minute for meta-search or paper-schema",
        type=rate_limit_arg,
        metavar="RESOURCE=N",
    )
    parser.add_argument(
        "--rate-limit-kind",
        choices=("sliding", "fixed", "bucket"),
        default="sliding",
        help="how a rate limit is counted: sliding window, fixed window or token bucket (default sliding)",
    )
    parser.add_argument(
        "--content-latency",
        type=float,
        metavar="SECONDS",
        help="a fixed wait before every /content and /resource answer, as across a network (default none)",
    )
    parser.add_argument(
        "--hidden-share",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="a corpus that grows: hide this share (0-1) of the papers from /meta-search until --reveal-after",
    )
    parser.add_argument(
        "--reveal-after",
        type=int,
        metavar="N",
        help="reveal the hidden papers once N requests have been answered (default: never)",
    )
