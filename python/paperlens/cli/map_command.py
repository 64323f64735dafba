"""``paperlens map``: a bibliometric network of a harvest output, written for VOSviewer and others."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from paperlens.bibliometrics._writers import FORMATS
from paperlens.cli.exit_codes import EXIT_OK
from paperlens.cli.session import Session

#: The kinds of network, each to the :mod:`paperlens.bibliometrics` function that builds it.
KINDS = {
    "co-citation": "co_citation",
    "coupling": "bibliographic_coupling",
    "direct-citation": "direct_citation",
    "co-authorship": "co_authorship",
    "co-occurrence": "co_occurrence",
}
_CITATION_KINDS = ("co-citation", "coupling", "direct-citation")

DESCRIPTION = (
    "Build a bibliometric network from a harvest output (the --out of `paperlens harvest`) and write it to -o: "
    "co-citation (works cited together), coupling (documents citing the same works), direct-citation, "
    "co-authorship (authors by ORCID, else name) or co-occurrence (of keywords, or --field). "
    "--format vosviewer writes a folder with VOSviewer's map.txt and network.txt; without --format, a .json, "
    ".net, .gexf or .graphml suffix of -o tells it. Reference lists come from the records (they may be "
    "truncated); --complete reads them whole from /meta-paper-relations (one request per 200 references of each "
    "record, from the environment's service), --dry-run prints what that costs."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``paperlens map``."""
    parser.add_argument("kind", choices=list(KINDS), metavar="KIND", help=", ".join(KINDS))
    parser.add_argument("out", metavar="OUT", help="a harvest output (a Parquet folder, a JSONL file, or a URL)")
    parser.add_argument(
        "-o", "--output", metavar="PATH", help="where to write the network (required but with --dry-run)"
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="vosviewer (a folder; the default), vosviewer-json, pajek, gexf, graphml or csv (a folder)",
    )
    parser.add_argument("--min-weight", type=int, default=1, metavar="N", help="keep links of weight N or more")
    parser.add_argument("--field", default="keywords", help="co-occurrence: the field of the terms (default keywords)")
    parser.add_argument("--complete", action="store_true", help="whole reference lists from /meta-paper-relations")
    parser.add_argument(
        "--checkpoint", metavar="FILE", help="with --complete: save each page answered there, to resume"
    )
    parser.add_argument("--dry-run", action="store_true", help="print what --complete will cost; send nothing")


def run(args: argparse.Namespace) -> int:
    """Runs ``paperlens map``; prints one summary line (and the truncation, when lists were short)."""
    from paperlens import bibliometrics
    from paperlens.cli.exit_codes import UsageError

    citing = args.kind in _CITATION_KINDS
    if (args.complete or args.checkpoint or args.dry_run) and not citing:
        raise UsageError(f"--complete, --checkpoint and --dry-run are for {', '.join(_CITATION_KINDS)}")
    if args.dry_run:
        print(bibliometrics.estimate_references(args.out))
        return EXIT_OK
    if args.output is None:
        raise UsageError("-o PATH is required: where to write the network")
    build: Callable[..., Any] = getattr(bibliometrics, KINDS[args.kind])
    options: dict[str, Any] = {"min_weight": args.min_weight}
    if args.kind == "co-occurrence":
        options["field"] = args.field
    if args.complete:
        with Session() as client:
            network = build(args.out, client=client, complete=True, checkpoint=args.checkpoint, **options)
    else:
        network = build(args.out, **options)
    fmt = args.format
    if fmt is None and not args.output.lower().endswith((".json", ".net", ".gexf", ".graphml")):
        fmt = "vosviewer"
    written = network.write(args.output, format=fmt)
    print(f"{args.kind}: {len(network)} nodes and {len(network.weight)} links written to {written}")
    if network.truncated:
        print(
            f"{len(network.short_lists)} reference lists are shorter than their reference_count "
            "(the service truncates them): --complete reads them whole",
            file=sys.stderr,
        )
    return EXIT_OK
