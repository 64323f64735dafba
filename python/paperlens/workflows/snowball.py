"""The code of :mod:`paperlens.snowball`, the public module that re-exports it and documents it."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperlens.base import _checks as checks
from paperlens.base._contract import PAGE_SIZE_MAX
from paperlens.base._progress import Listen
from paperlens.machinery._operation import Call, Plan
from paperlens.results._types_open_platform import RelationItem
from paperlens.storage._manifest import now
from paperlens.storage._output_guard import guarded_plan
from paperlens.storage._records import INTEGER, relation_schema
from paperlens.workflows._relation_pages import Growth, Journal, relation_plan, seeds_key

__all__ = ["DIRECTIONS", "SEED_FIELDS", "CitationNetwork", "snowball_plan"]

#: The values of ``direction``.
DIRECTIONS = ("citations", "references", "both")
_RELATIONS = {"citations": ("CITATIONS",), "references": ("REFERENCES",), "both": ("CITATIONS", "REFERENCES")}
#: The record fields asked for the seeds: those the relation items of the other nodes carry
#: (``unique_id`` matches a record to its seed, and is the seed node's ``id``).
SEED_FIELDS = ["unique_id", "title", "doi", "publication_published_year"]
_FILES = ("nodes.parquet", "edges.parquet", "network.graphml")


@dataclass(eq=False, repr=False, kw_only=True)
class CitationNetwork:
    """The citation network around seed papers, as :meth:`Client.snowball
    <paperlens.Client.snowball>` returns it.

    Nodes are papers keyed by their relation item ``id`` (a ``unique_id`` for papers of the
    service), carrying the item's fields (a seed: its record's :data:`SEED_FIELDS`) and their
    ``depth`` (seeds 0, then the level at which a paper was first found). Edges go from the
    citing paper to the cited one; ``direction`` tells how an edge was found: ``"citations"``
    (listed among the cited paper's citations), ``"references"`` (among the citing paper's
    references) or ``"both"``.

    Attributes:
        seeds: the seed ``unique_id`` s, in order, without repeats.
        direction, depth, max_per_paper, limit: the call's parameters.
        request_ids: the request id of every page the network was built from (the seeds'
            ``/meta-search`` pages first).
        limit_reached: True when ``limit`` stopped the growth (no request was sent after that).
        started, finished: when the snowball started and finished (UTC, ISO 8601).
        base_url: the base URL of the service that answered (None when not known).
        sandbox: the corpus of the sandbox that answered (``{"papers": ..., "seed": ...}``), or None.

    >>> network = client.snowball(["W4000000150"], depth=1)
    >>> len(network), network.edges["direction"].value_counts().to_dict()
    (38, {'references': 29, 'citations': 8})
    """

    seeds: list[str]
    direction: str
    depth: int
    max_per_paper: int | None
    limit: int | None
    _nodes: dict[str, dict[str, Any]]
    _edges: dict[tuple[str, str], str]
    request_ids: list[str]
    limit_reached: bool
    started: str
    finished: str
    base_url: str | None = None
    sandbox: dict[str, int] | None = None

    @property
    def parameters(self) -> dict[str, Any]:
        """The call's parameters, as the manifest and the checkpoint record them."""
        return _parameters(self.seeds, self.direction, self.depth, self.max_per_paper, self.limit)

    def node_rows(self) -> list[dict[str, Any]]:
        """One dict per node, in the order they were found: ``id``, ``depth``, then the relation
        item's fields."""
        return [{**node["item"], "id": key, "depth": node["depth"]} for key, node in self._nodes.items()]

    def edge_rows(self) -> list[dict[str, Any]]:
        """One dict per edge, in the order they were found: ``source`` (citing), ``target``
        (cited) and ``direction``."""
        return [{"source": s, "target": t, "direction": d} for (s, t), d in self._edges.items()]

    @property
    def nodes(self) -> Any:
        """The nodes as a pandas DataFrame (see :meth:`node_rows`; integer columns as ``Int64``).

        Raises:
            ImportError: pandas is not installed (``pip install "paperlens[pandas]"``).
        """
        return _frame(self.node_rows(), ["id", "depth", "id_type", "title"])

    @property
    def edges(self) -> Any:
        """The edges as a pandas DataFrame with columns ``source``, ``target``, ``direction``.

        Raises:
            ImportError: pandas is not installed (``pip install "paperlens[pandas]"``).
        """
        return _frame(self.edge_rows(), ["source", "target", "direction"])

    def to_networkx(self) -> Any:
        """A ``networkx.DiGraph``: edges citing -> cited with their ``direction``, nodes with
        their fields and ``depth`` (absent values left out); ``graph.graph`` holds the call's
        parameters.

        Raises:
            ImportError: networkx is not installed (``pip install networkx``).
        """
        try:
            import networkx as nx
        except ImportError as error:
            raise ImportError("CitationNetwork.to_networkx needs networkx: pip install networkx") from error
        graph = nx.DiGraph(**self.parameters)
        for row in self.node_rows():
            key = row.pop("id")
            graph.add_node(key, **{name: value for name, value in row.items() if value is not None})
        for (source, target), direction in self._edges.items():
            graph.add_edge(source, target, direction=direction)
        return graph

    def write(self, out_dir: str | os.PathLike[str], graphml: bool = False, *, client: Any = None) -> Path:
        """Writes ``nodes.parquet`` and ``edges.parquet`` (and ``network.graphml``) into
        ``out_dir``, each file replaced atomically, then ``manifest.json``: the call and its
        parameters, start and end times, counts, the request ids, the base URL of the service
        and the sandbox corpus (of the client that ran the snowball).

        ``nodes.parquet`` has the columns ``id``, ``id_type``, ``title`` (the relation item's),
        ``depth`` (int64) and ``extra_json``: the JSON text of the item's other properties, and
        of a value whose type does not fit its column (see :mod:`paperlens.storage._records`).

        Args:
            out_dir: the output directory (created if needed).
            graphml: also write ``network.graphml`` (needs networkx).
            client: unused but for the base URL, when the network was not built by a client
                (the base URL and sandbox the network remembers are recorded otherwise).

        Returns:
            The output directory.

        Raises:
            ManifestError: ``out_dir`` holds the manifest of another call.
            ImportError: pyarrow (or networkx for ``graphml``) is not installed.

        >>> client.snowball(["W4000000150"], depth=2).write("network/", graphml=True)
        PosixPath('network')
        """
        from paperlens.storage._manifest import ManifestRecorder

        out = Path(out_dir)
        recorder = ManifestRecorder(out, "snowball", self.parameters, _NoClient())
        out.mkdir(parents=True, exist_ok=True)
        _replace(out / "nodes.parquet", lambda path: _write_parquet(self._node_table(), path))
        _replace(out / "edges.parquet", lambda path: _write_parquet(self._edge_table(), path))
        if graphml:
            import networkx as nx

            _replace(out / "network.graphml", lambda path: nx.write_graphml(_graphml_ready(self.to_networkx()), path))
        base_url = client.base_url if client is not None else self.base_url
        manifest = recorder.manifest
        manifest.update(
            started=self.started,
            finished=self.finished,
            request_ids=list(self.request_ids),
            base_url=base_url,
            sandbox=self.sandbox if client is None else _corpus_of(base_url),
        )
        files = [name for name in _FILES if name != "network.graphml" or graphml]
        manifest["counts"] = {"nodes": len(self._nodes), "edges": len(self._edges), "requests": len(self.request_ids)}
        manifest["files"] = files
        manifest["limit_reached"] = self.limit_reached
        recorder.save()
        return out

    def _node_table(self) -> Any:
        nodes = self._nodes.values()
        return NODE_SCHEMA.table([node["item"] for node in nodes], [{"depth": node["depth"]} for node in nodes])

    def _edge_table(self) -> Any:
        import pyarrow as pa

        rows = self.edge_rows()
        names = ("source", "target", "direction")
        return pa.table({name: pa.array([row[name] for row in rows], pa.string()) for name in names})

    def __len__(self) -> int:
        return len(self._nodes)

    def __repr__(self) -> str:
        seeds = self.seeds if len(self.seeds) <= 3 else [*self.seeds[:3], f"... {len(self.seeds)} seeds"]
        return (
            f"CitationNetwork({len(self._nodes)} nodes, {len(self._edges)} edges, seeds={seeds!r}, "
            f"direction={self.direction!r}, depth={self.depth})"
        )

    def _repr_html_(self) -> str:
        from paperlens.results._display import network_html

        return network_html(self)


class _NoClient:
    """Stands for an unknown client in the manifest (no base URL, no sandbox)."""

    base_url = ""


#: The columns of ``nodes.parquet``.
NODE_SCHEMA = relation_schema(RelationItem, added={"depth": INTEGER})


def _corpus_of(base_url: str | None) -> dict[str, int] | None:
    from paperlens.base.sandbox import corpus_of

    return corpus_of(base_url) if base_url else None


def _write_parquet(table: Any, path: Path) -> None:
    try:
        import pyarrow.parquet as pq
    except ImportError as error:
        raise ImportError('CitationNetwork.write needs pyarrow: pip install "paperlens[pandas]"') from error
    pq.write_table(table, path)


def _parameters(
    seeds: list[str], direction: str, depth: int, max_per_paper: int | None, limit: int | None
) -> dict[str, Any]:
    return {"seeds": seeds, "direction": direction, "depth": depth, "max_per_paper": max_per_paper, "limit": limit}


def _frame(rows: list[dict[str, Any]], lead: list[str]) -> Any:
    try:
        import pandas as pd
    except ImportError as error:
        raise ImportError('CitationNetwork frames need pandas: pip install "paperlens[pandas]"') from error
    columns = list(dict.fromkeys([*lead, *(name for row in rows for name in row)]))
    frame = pd.DataFrame(rows, columns=columns)
    for name in columns:
        values = [row[name] for row in rows if row.get(name) is not None]
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            frame[name] = frame[name].astype("Int64")
    return frame


def _replace(path: Path, write: Any) -> None:
    """``write(temporary path)``, then the file renamed into place: never half written."""
    temp = path.with_name(f".{path.name}.tmp")
    try:
        write(temp)
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


def _graphml_ready(graph: Any) -> Any:
    """GraphML takes scalars of one type per attribute: others (lists, mixed types) as JSON."""
    graph.graph = {name: value for name, value in graph.graph.items() if value is not None}
    for items in (list(graph.nodes.values()), [graph.graph]):
        kinds: dict[str, set[type]] = {}
        for attributes in items:
            for name, value in attributes.items():
                kinds.setdefault(name, set()).add(type(value))
        for attributes in items:
            for name, value in attributes.items():
                if len(kinds[name]) > 1 or not isinstance(value, (str, int, float, bool)):
                    attributes[name] = json.dumps(value, ensure_ascii=False, default=str)
    return graph


# -- validation ---------------------------------------------------------------------------------


def _checked_seeds(seeds: Iterable[str] | str) -> list[str]:
    given = [seeds] if isinstance(seeds, str) else checks.listed("seeds", seeds, "unique_ids")
    if not given:
        raise checks.invalid("seeds", "must name at least one unique_id", given)
    return list(dict.fromkeys(checks.non_empty_text(f"seeds[{i}]", seed).strip() for i, seed in enumerate(given)))


def _checked(
    seeds: Iterable[str] | str, direction: str, depth: int, max_per_paper: int | None, limit: int | None
) -> dict[str, Any]:
    wanted = _checked_seeds(seeds)
    checks.choice("direction", direction, DIRECTIONS)
    checks.count("depth", depth, 0)
    checks.count("max_per_paper", max_per_paper, 1, optional=True)
    checks.count("limit", limit, 1, optional=True)
    if limit is not None and limit < len(wanted):
        rule = f"must be at least the number of distinct seeds ({len(wanted)}): seeds are nodes"
        raise checks.invalid("limit", rule, limit)
    return _parameters(wanted, direction, depth, max_per_paper, limit)


# -- the plan -----------------------------------------------------------------------------------


def _expandable(node: dict[str, Any]) -> bool:
    return str(node["item"].get("id_type", "")).lower() == "unique_id"


def _seeds_plan(seeds: list[str], growth: Growth, journal: Journal | None) -> Plan[None]:
    """The seeds' records, :data:`PAGE_SIZE_MAX` seeds per ``lookup``: each seed found carries
    its record's fields (its ``unique_id`` as the node's ``id``)."""
    for start in range(0, len(seeds), PAGE_SIZE_MAX):
        chunk = seeds[start : start + PAGE_SIZE_MAX]
        key = seeds_key(chunk)
        entry = journal.answers.get(key) if journal is not None else None
        if entry is None:
            found = yield Call("lookup", (chunk,), {"by": "unique_id", "fields": SEED_FIELDS})
            records = {seed: record.to_dict() for seed, record in found.found.items()}
            entry = {"seeds": chunk, "records": records, "request_ids": found.request_ids}
            if journal is not None:
                journal.record(key, entry)
        growth.request_ids.extend(entry["request_ids"])
        for seed, record in entry["records"].items():
            item = growth.nodes[seed]["item"]
            kept = {"unique_id", *item}  # its id and id_type, whatever the record's extras say
            item.update((name, value) for name, value in record.items() if name not in kept)


class _Bar:
    """The progress bar: papers expanded at the current depth, out of its frontier."""

    def __init__(self, depth: int, listen: Listen | None) -> None:
        from paperlens.base._progress import Progress

        self.depth = depth
        self.progress = Progress(total=None, unit="papers", desc="snowball", listen=listen)

    def level(self, level: int, frontier: int, nodes: int) -> None:
        self.progress.bar.reset(total=frontier)
        self.progress.bar.set_description(f"depth {level + 1}/{self.depth}, frontier {frontier}")
        self.progress.bar.set_postfix_str(f"{nodes} nodes")

    def expanded(self, nodes: int) -> None:
        self.progress.bar.set_postfix_str(f"{nodes} nodes", refresh=False)
        self.progress.update(1)

    def close(self) -> None:
        self.progress.close()


@guarded_plan("checkpoint")
def snowball_plan(
    seeds: Iterable[str],
    *,
    direction: str,
    depth: int,
    max_per_paper: int | None,
    limit: int | None,
    checkpoint: str | os.PathLike[str] | None,
    progress: bool,
    listen: Listen | None = None,
    base_url: str | None = None,
) -> Plan[CitationNetwork]:
    """The :data:`~paperlens.machinery._operation.Plan` of ``client.snowball``: every argument is checked
    before any request, then the network grows breadth first.

    Args:
        seeds: ``unique_id`` s of the papers to start from (read once; repeats answered once;
            a single string is one seed).
        direction: ``"citations"`` (papers citing each paper), ``"references"`` (papers each
            paper cites) or ``"both"``.
        depth: how many levels to expand (0: the seeds alone, with their records).
        max_per_paper: at most this many items of each paper's list, per direction (the
            requests ask for no more); ``None`` for every item.
        limit: at most this many nodes, seeds included; the growth stops, and no further
            relation request is sent, once it is reached (the seeds' records are always
            asked for). ``None`` for no limit.
        checkpoint: a file where every page answered (the seeds' records too) is saved, to
            resume an interrupted run without repeating a request (see :mod:`paperlens.snowball`).
        progress: a progress bar of the papers expanded and the frontier of each depth
            (needs the ``progress`` extra).
        listen: the client's transport events, so the bar shows pacing and retry waits.
        base_url: the client's base URL, which the network remembers for its manifest.

    Returns:
        A :class:`CitationNetwork`.

    Requests: one ``/meta-search`` per :data:`PAGE_SIZE_MAX` (200) seeds for their records,
    then the pages of the relation lists (``/meta-paper-relations``).

    Raises:
        ValidationError: no seeds, an empty or non-string seed (named by position,
            ``seeds[2]``), an unknown ``direction``, ``depth`` < 0, ``max_per_paper`` or
            ``limit`` < 1, ``limit`` below the number of seeds, or a ``checkpoint`` that is no
            path or records another call. Nothing was sent.
        NotFoundError: a seed is not a paper of the service, when it is expanded (the
            checkpoint keeps the pages answered before); at ``depth=0`` it is a node with
            only its ``id`` and ``id_type``.

    >>> network = client.snowball(["W4000000150", "W4000000000"], direction="references", depth=2, limit=500)
    >>> len(network), network.limit_reached
    (500, True)
    """
    parameters = _checked(seeds, direction, depth, max_per_paper, limit)
    checks.flag("progress", progress)
    journal = Journal(checkpoint, parameters, workflow="snowball") if checkpoint is not None else None
    growth = Growth(limit)
    for seed in parameters["seeds"]:
        growth.nodes[seed] = {"depth": 0, "item": {"id": seed, "id_type": "unique_id"}}
    bar = _Bar(depth, listen) if progress and depth > 0 else None
    started = journal.started if journal is not None else now()
    try:
        yield from _seeds_plan(parameters["seeds"], growth, journal)
        frontier = list(parameters["seeds"])
        for level in range(depth):
            if not frontier or growth.full:
                break
            if bar is not None:
                bar.level(level, len(frontier), len(growth.nodes))
            for paper in frontier:
                for relation in _RELATIONS[direction]:
                    yield from relation_plan(paper, relation, max_per_paper, growth, journal)
                    if growth.full:
                        break
                if bar is not None:
                    bar.expanded(len(growth.nodes))
                if growth.full:
                    break
            frontier = [key for key, node in growth.nodes.items() if node["depth"] == level + 1 and _expandable(node)]
        finished = now()
        if journal is not None:
            journal.finish(finished)
            finished = journal.finished or finished
    finally:
        if bar is not None:
            bar.close()
        if journal is not None:
            journal.close()
    return CitationNetwork(
        seeds=parameters["seeds"],
        direction=direction,
        depth=depth,
        max_per_paper=max_per_paper,
        limit=limit,
        _nodes=growth.nodes,
        _edges=growth.edges,
        request_ids=growth.request_ids,
        limit_reached=growth.full,
        started=started,
        finished=finished,
        base_url=base_url,
        sandbox=_corpus_of(base_url),
    )
