"""The :class:`WeightedNetwork` the bibliometric networks return."""

from __future__ import annotations

import contextlib
import gc
import html
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperlens.base import _checks as checks
from paperlens.bibliometrics._counting import modules
from paperlens.bibliometrics._writers import write

__all__ = ["WeightedNetwork"]
_PICTURE_NODES = 60  # the strongest nodes drawn by _repr_html_
_PICTURE_LABELS = 12  # of which this many are labelled
_TABLE_ROWS = 20


@dataclass(eq=False, repr=False, kw_only=True)
class WeightedNetwork:
    """A weighted network of documents, cited works, authors or terms, as
    :mod:`paperlens.bibliometrics` builds it.

    Attributes:
        kind: ``"co-citation"``, ``"bibliographic-coupling"``, ``"direct-citation"``,
            ``"co-authorship"`` or ``"co-occurrence"``.
        directed: True for direct citation (citing -> cited); the others are undirected.
        min_weight: the least weight of a link kept.
        truncated: True when a reference list it used is shorter than its record's
            ``reference_count`` (the service truncates the ``references`` field: build with
            ``complete=True`` for whole lists); ``short_lists`` names those records.
        short_lists: the ``unique_id`` s of the records whose list was shorter.
        requests: the request id of every ``/meta-paper-relations`` page the reference lists
            came from (``complete=True``; a page replayed from a checkpoint counts).
        count_name: the node column counting the documents behind each node
            (``"citations"``, ``"references"``, ``"documents"`` or ``"occurrences"``).
        ids, labels, counts: the nodes, in order (:attr:`nodes` is their frame).
        source, target, weight, groups, group_ids: the links as numpy arrays, strongest first
            (:attr:`edges` is their frame): node indexes, weights, and the indexes into
            ``group_ids`` of the records of each link, link after link.

    >>> from paperlens.bibliometrics import co_citation
    >>> network = co_citation(client.iter_meta_search("coral reef"), min_weight=3)
    >>> network
    WeightedNetwork(co-citation, 1576 nodes, 946 edges, min_weight=3, truncated)
    >>> network.edges[["source", "target", "weight"]].head(2)
            source       target  weight
    0  W4000004752  W4000005019      15
    1  W4000004752  W4000005985      15
    """

    kind: str
    directed: bool
    min_weight: int
    count_name: str
    ids: list[str]
    labels: list[str]
    counts: Any
    source: Any
    target: Any
    weight: Any
    groups: Any
    group_ids: Any
    truncated: bool = False
    short_lists: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    _clustered: tuple[int, ...] | None = field(default=None, init=False, repr=False)

    # -- tables ----------------------------------------------------------------------------------

    def _records(self) -> list[list[str]]:
        """Each link's records (``groups`` holds them link after link, ``weight`` of each)."""
        names = self.group_ids[self.groups].tolist() if len(self.groups) else []
        ends = self.weight.cumsum().tolist()
        return [names[end - w : end] for end, w in zip(ends, self.weight.tolist(), strict=True)]

    def _link_rows(self) -> Iterator[tuple[int, int, int]]:
        """``(source, target, weight)`` of each link (node indexes), strongest first."""
        return zip(self.source.tolist(), self.target.tolist(), self.weight.tolist(), strict=True)

    def _degrees(self) -> tuple[Any, Any]:
        np, _sparse = modules()
        n = len(self.ids)
        links = np.bincount(self.source, minlength=n) + np.bincount(self.target, minlength=n)
        strength = np.bincount(self.source, self.weight, minlength=n) + np.bincount(
            self.target, self.weight, minlength=n
        )
        return links.astype(np.int64), strength.astype(np.int64)

    @property
    def nodes(self) -> Any:
        """The nodes as a pandas DataFrame: ``id``, ``label``, the documents behind each
        (:attr:`count_name`), ``links`` (its links kept) and ``strength`` (their weights'
        sum: VOSviewer's total link strength).

        Raises:
            ImportError: pandas is not installed (``pip install "paperlens[bibliometrics]"``).
        """
        pd = _pandas()
        links, strength = self._degrees()
        return pd.DataFrame(
            {
                "id": self.ids,
                "label": self.labels,
                self.count_name: self.counts,
                "links": links,
                "strength": strength,
            }
        )

    @property
    def edges(self) -> Any:
        """The links as a pandas DataFrame, strongest first: ``source``, ``target``,
        ``weight`` and ``records``: the ``unique_id`` s of the documents that make the link
        (for bibliographic coupling, the works both documents cite).

        Raises:
            ImportError: pandas is not installed (``pip install "paperlens[bibliometrics]"``).
        """
        pd = _pandas()
        np, _sparse = modules()
        ids = np.asarray(self.ids, dtype=object)
        with _no_collection():
            return pd.DataFrame(
                {
                    "source": ids[self.source] if len(self.source) else [],
                    "target": ids[self.target] if len(self.target) else [],
                    "weight": self.weight,
                    "records": self._records(),
                },
                columns=["source", "target", "weight", "records"],
            )

    # -- graphs and clusters ---------------------------------------------------------------------

    def to_networkx(self) -> Any:
        """A ``networkx.Graph`` (``DiGraph`` for direct citation): nodes keyed by ``id`` with
        ``label`` and the count, edges with ``weight`` and ``records``; ``graph.graph`` holds
        ``kind``, ``min_weight`` and ``truncated``.

        Raises:
            ImportError: networkx is not installed (``pip install "paperlens[bibliometrics]"``).
        """
        nx = _networkx()
        graph = (nx.DiGraph if self.directed else nx.Graph)(
            kind=self.kind, min_weight=self.min_weight, truncated=self.truncated
        )
        for key, label, count in zip(self.ids, self.labels, self.counts.tolist(), strict=True):
            graph.add_node(key, label=label, **{self.count_name: count})
        ids = self.ids
        for (s, t, w), records in zip(self._link_rows(), self._records(), strict=True):
            graph.add_edge(ids[s], ids[t], weight=w, records=records)
        return graph

    def clusters(self, *, resolution: float = 1.0, seed: int = 0) -> Any:
        """Weighted communities (Louvain, networkx's ``louvain_communities``, links as
        undirected with their weights summed): the same ``seed`` gives the same clusters.

        Args:
            resolution: above 1 favours smaller clusters, below 1 larger ones.
            seed: the seed of the random order the method visits nodes in.

        Returns:
            A pandas DataFrame ``id``, ``label``, ``cluster``, in node order; clusters are
            numbered from 1, largest first (ties: the one holding the earliest node first). A
            node without links is a cluster of its own.

        Raises:
            ValidationError: a ``resolution`` that is not a positive finite number, or a
                ``seed`` that is not an integer (before any computing).
            ImportError: networkx or pandas is not installed.

        >>> from paperlens.bibliometrics import co_citation
        >>> network = co_citation(client.iter_meta_search("coral reef"), min_weight=3)
        >>> network.clusters().groupby("cluster").size().head(3)  # nodes per cluster, largest first
        cluster
        1    66
        2    51
        3    32
        dtype: int64
        """
        _check_clustering(resolution, seed)
        pd = _pandas()
        numbers = self._cluster_numbers(resolution, seed)
        return pd.DataFrame({"id": self.ids, "label": self.labels, "cluster": numbers})

    def _cluster_numbers(self, resolution: float = 1.0, seed: int = 0) -> list[int]:
        if (resolution, seed) == (1.0, 0) and self._clustered is not None:
            return list(self._clustered)
        nx = _networkx()
        np, sparse = modules()
        n = len(self.ids)
        low, high = np.minimum(self.source, self.target), np.maximum(self.source, self.target)
        summed = sparse.coo_matrix((self.weight, (low, high)), shape=(n, n)).tocsr().tocoo()  # sums a->b and b->a
        graph = nx.Graph()
        graph.add_nodes_from(range(n))
        graph.add_weighted_edges_from(zip(summed.row.tolist(), summed.col.tolist(), summed.data.tolist(), strict=True))
        communities = nx.community.louvain_communities(graph, weight="weight", resolution=resolution, seed=seed)
        ranked = sorted((sorted(c) for c in communities), key=lambda members: (-len(members), members[0]))
        numbers = [0] * n
        for number, members in enumerate(ranked, start=1):
            for member in members:
                numbers[member] = number
        if (resolution, seed) == (1.0, 0):
            self._clustered = tuple(numbers)
        return numbers

    # -- output ----------------------------------------------------------------------------------

    def write(self, path: str | os.PathLike[str], format: str | None = None) -> Path:
        """Writes the network for another tool; a failure leaves no partial file.

        Formats (``format=None``: from the suffix of ``path``: ``.json``, ``.net``,
        ``.gexf``, ``.graphml``):

        - ``"vosviewer"``: a folder with ``map.txt`` and ``network.txt``, VOSviewer's map and
          network files (tab-separated): the map file has a header line ``id``, ``label``,
          ``description`` (the node's id), ``cluster`` and ``weight<Links>``,
          ``weight<Total link strength>`` and ``weight<...>`` of the count; ids are the
          integers 1 to N; the network file has no header and one line per link: the two
          ids and the strength.
        - ``"vosviewer-json"``: one VOSviewer JSON file: ``network`` with ``items`` (``id``,
          ``label``, ``description``, ``cluster``, ``weights``), ``links`` (``source_id``,
          ``target_id``, ``strength``) and ``clusters`` (``cluster``, ``label``: the label of
          its strongest node), and ``info`` (a title and a description).
        - ``"pajek"``: a Pajek ``.net`` file: ``*Vertices`` (the node ids, quoted), then
          ``*Edges`` (or ``*Arcs`` for direct citation) with weights.
        - ``"gexf"``, ``"graphml"``: :meth:`to_networkx` written by networkx (``records`` as
          a JSON list in text).
        - ``"csv"``: a folder with ``nodes.csv`` and ``edges.csv`` (``records`` as a JSON list).

        Clusters are those of :meth:`clusters` with its defaults; VOSviewer takes clusters 1 to
        1000, so clusters past the 999th (the smallest: single nodes without links, usually)
        are written as cluster 1000.

        Args:
            path: the file, or the folder for ``"vosviewer"`` and ``"csv"`` (created if needed;
                its two files are replaced, each at once).
            format: one of :data:`FORMATS`.

        Returns:
            The path written.

        Raises:
            ValidationError: an unknown format, or none given and none told by the suffix.
            ImportError: networkx (pandas for ``csv``) is not installed, for the formats that
                need it.
        """
        return write(self, Path(path), format)

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        short = ", truncated" if self.truncated else ""
        return (
            f"WeightedNetwork({self.kind}, {len(self.ids)} nodes, {len(self.weight)} edges, "
            f"min_weight={self.min_weight}{short})"
        )

    def _repr_html_(self) -> str:
        """A small drawing of the strongest nodes, coloured by cluster, and a table of them."""
        from paperlens.results._display import _dicts_table, _frame

        title = html.escape(repr(self).removeprefix("WeightedNetwork(").removesuffix(")"))
        head = f"<strong>WeightedNetwork</strong> · {title}"
        try:
            nodes = self.nodes.sort_values(["strength", self.count_name], ascending=False, kind="stable")
            table = _dicts_table(nodes.head(_TABLE_ROWS).assign(cluster=self._top_clusters(nodes.index)))
        except ImportError:
            return _frame(head, '<p class="pl-note">pip install "paperlens[bibliometrics]" for the table</p>', "")
        return _frame(head, self._picture(list(nodes.index[:_PICTURE_NODES])) + table, "")

    def _top_clusters(self, order: Any) -> list[int]:
        numbers = self._cluster_numbers()
        return [numbers[i] for i in order[:_TABLE_ROWS]]

    def _picture(self, shown: list[int]) -> str:
        """An inline SVG of the ``shown`` nodes and their links, or "" without matplotlib."""
        try:
            from matplotlib.figure import Figure
        except ImportError:
            return ""
        nx = _networkx()
        numbers = self._cluster_numbers()
        wanted = set(shown)
        graph = nx.Graph()
        graph.add_nodes_from(shown)
        for s, t, w in self._link_rows():
            if s in wanted and t in wanted:
                graph.add_edge(s, t, weight=w)
        if graph.number_of_nodes() == 0:
            return ""
        return _svg(Figure, nx, graph, numbers, self.labels, shown[:_PICTURE_LABELS])


def _svg(figure: Any, nx: Any, graph: Any, numbers: list[int], labels: list[str], labelled: list[int]) -> str:
    import matplotlib

    from paperlens.results._display import blank_axes, plot_lines, svg_block

    position = nx.spring_layout(graph, seed=7, weight="weight")
    fig, ax = blank_axes(figure, (4.8, 3.4))
    plot_lines(ax, graph.edges(), position, linewidth=0.5, alpha=0.6)
    palette = matplotlib.colormaps["tab10"]
    strength = dict(graph.degree(weight="weight"))
    top = max(strength.values()) or 1
    for node in graph.nodes:
        colour = palette((numbers[node] - 1) % 10)
        ax.plot(*position[node], marker="o", markersize=4 + 10 * (strength[node] / top) ** 0.5, color=colour)
    for node in labelled:
        text = labels[node] if len(labels[node]) <= 28 else labels[node][:27] + "…"
        ax.annotate(
            text, position[node], fontsize=7, ha="center", va="bottom", xytext=(0, 5), textcoords="offset points"
        )
    ax.margins(0.12)
    return svg_block(fig, f"the {graph.number_of_nodes()} strongest nodes; colour: cluster; size: total link strength")


@contextlib.contextmanager
def _no_collection() -> Iterator[None]:
    """The cyclic garbage collector paused: lists of strings hold no cycles, and the collector,
    run again and again while millions of them are made, would triple the time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _check_clustering(resolution: Any, seed: Any) -> None:
    """The arguments of :meth:`WeightedNetwork.clusters`, checked before networkx sees them
    (it would take a negative or NaN ``resolution`` without a word)."""
    checks.positive("resolution", resolution)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise checks.invalid("seed", "must be an integer", seed)


def _pandas() -> Any:
    try:
        import pandas as pd
    except ImportError as error:
        raise ImportError('WeightedNetwork tables need pandas: pip install "paperlens[bibliometrics]"') from error
    return pd


def _networkx() -> Any:
    try:
        import networkx as nx
    except ImportError as error:
        raise ImportError('WeightedNetwork graphs need networkx: pip install "paperlens[bibliometrics]"') from error
    return nx
