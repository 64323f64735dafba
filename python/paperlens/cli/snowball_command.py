"""``paperlens snowball``: the citation network around seed papers, written as Parquet (and GraphML)."""

from __future__ import annotations

import argparse

from paperlens.cli.exit_codes import EXIT_OK
from paperlens.cli.options import add_progress_flag, show_progress
from paperlens.cli.session import Session
from paperlens.workflows.snowball import DIRECTIONS

DESCRIPTION = (
    "Grow the citation network around seed papers breadth first over /meta-paper-relations, paced to the "
    "quota, and write nodes.parquet and edges.parquet (and network.graphml with --graphml) with manifest.json "
    "into --out. With --checkpoint FILE every page answered is saved there: run the same command again after an "
    "interruption to resume without repeating a request."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``paperlens snowball``."""
    parser.add_argument("seeds", nargs="+", metavar="UNIQUE_ID", help="the unique_id of each seed paper")
    parser.add_argument(
        "--direction", choices=DIRECTIONS, default="both", help="follow citations, references or both (default both)"
    )
    parser.add_argument("--depth", type=int, default=1, help="levels to expand from the seeds (default 1)")
    parser.add_argument(
        "--max-per-paper", type=int, metavar="N", help="at most N items of each paper's list, per direction"
    )
    parser.add_argument("--limit", type=int, metavar="N", help="stop growing at N nodes (seeds included)")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--graphml", action="store_true", help="also write network.graphml (needs networkx)")
    parser.add_argument("--checkpoint", metavar="FILE", help="save each page answered there, to resume")
    add_progress_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Runs ``paperlens snowball``; prints one summary line."""
    wanted = {name: getattr(args, name) for name in ("direction", "depth", "max_per_paper", "limit", "checkpoint")}
    with Session() as client:
        network = client.snowball(args.seeds, progress=show_progress(args), **wanted)
        out = network.write(args.out, graphml=args.graphml)
    capped = f" (limit {args.limit} reached)" if network.limit_reached else ""
    print(
        f"{len(network)} nodes and {len(network.edge_rows())} edges from {len(network.request_ids)} requests "
        f"written to {out}{capped}"
    )
    return EXIT_OK
