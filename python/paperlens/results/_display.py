"""Rich display in Jupyter: the ``_repr_html_`` of results, paginators, networks and graphs.

Jupyter calls ``_repr_html_`` when a result ends a cell; terminals keep the plain
``__repr__``. A list-shaped result shows a compact table of its rows (the first
:data:`ROWS`, then "... N more"), a single record a table of its fields, a paginator what
it will walk (never fetching anything), and a citation graph, relation graph or
:class:`~paperlens.CitationNetwork` also a small SVG picture, drawn where networkx and
matplotlib are installed (imported only then: ``import paperlens`` imports neither).

Every text from the service is escaped: a title may hold ``<``, ``&`` or quotes. Only the
rows shown are read, so a page of 200 records renders as fast as one of 20.

>>> page = client.meta_search("coral bleaching")
>>> paperlens.results._display.model_html(page)  # what Jupyter shows of ``page``: a table of the first 20 records
'<div class="paperlens-result">...'
"""

from __future__ import annotations

import dataclasses
import html
import importlib
import io
import json
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from paperlens.results._result import Result, rows_field

#: Rows shown of a list, and nodes drawn in a picture.
ROWS = 20
PICTURE_NODES = 300
_WIDTH = 80  # characters of a table cell
_FIELD_WIDTH = 240  # characters of a field of a single record
_COLUMNS_MAX = 8

#: The columns shown for rows of these types (those no shown row fills are left out).
_COLUMNS: dict[str, tuple[str, ...]] = {
    "MetadataRecord": (
        "unique_id",
        "title",
        "author",
        "publication_published_year",
        "publication_venue_name_unified",
        "citation_count",
        "doi",
    ),
    "Hit": ("title", "score", "chunk", "publication_published_year", "doc_id", "offset"),
    "RelationItem": ("id", "id_type", "title"),
    "CatalogField": ("name", "type", "filterable", "sortable", "searchable", "description"),
    "FacetBucket": ("key", "doc_count"),
    "FacetResult": ("field", "buckets"),
    "PaperCard": ("schema_id", "title", "authors", "venue", "year"),
    "GraphNode": ("schema_id", "title", "authors", "venue", "year", "availability"),
    "GraphEdge": ("source_schema_id", "target_schema_id", "citation_count"),
    "Entity": ("entity_id", "entity_type", "name", "text", "section"),
    "Relation": ("relation_type", "source_entity", "target_entity", "source_entity_id", "target_entity_id"),
    "Evidence": ("evidence_id", "group", "key", "value_text", "value_number", "value_bool", "schema_id"),
    "ParagraphSegment": ("paragraph_id", "relative_position", "section", "text", "score"),
    "CitationItem": ("reference", "resolution", "target_schema"),
    "EntityRelatedPaper": ("schema_id", "schema_paper", "matched_entities", "match_reasons"),
    "RelatedPaper": ("schema_id", "schema_paper", "score", "reasons"),
    "HydratedItem": ("schema_id", "hydration_method", "segments", "reason"),
    "PaperMaterials": ("schema_id", "schema_paper", "entities", "relations", "evidence"),
}
#: The leading columns of other types, then their other fields (as in ``paperlens.pandas``).
_LEAD = ("unique_id", "doc_id", "schema_id", "id", "entity_id", "relation_id", "name", "title", "field")
#: Names of a nested object, in the order a short text of it prefers them.
_NAMES = (
    "title",
    "display_name",
    "name",
    "field",
    "schema_id",
    "unique_id",
    "id",
    "entity_id",
    "relation_id",
    "evidence_id",
    "paragraph_id",
    "status",
    "source_name",
)
#: Shorter headers of long field names (the header's tooltip gives the field's name).
_HEADERS = {
    "publication_published_year": "year",
    "publication_venue_name_unified": "venue",
    "citation_count": "cited by",
    "source_entity_id": "source id",
    "target_entity_id": "target id",
    "source_schema_id": "source",
    "target_schema_id": "target",
}
_LABEL_NODES = 12  # nodes are labelled in pictures of at most this many
_LABEL_WIDTH = 24

_STYLE = (
    "<style>.paperlens-result table{border-collapse:collapse;font-size:12px}"
    ".paperlens-result th,.paperlens-result td{text-align:left;vertical-align:top;padding:2px 6px}"
    ".paperlens-result .pl-note{color:#666;font-size:11px}</style>"
)


# -- entry points -----------------------------------------------------------------------------


def model_html(obj: Result) -> str:
    """The HTML of a result: a table of its rows when it is list-shaped (with the other
    fields above it), else a table of its fields.

    Args:
        obj: any paperlens result (``MetaSearchPage``, ``MetadataRecord``, ``Catalog``...).

    Returns:
        An HTML fragment (a ``<div>``), every text escaped.

    >>> from paperlens.results._display import model_html
    >>> model_html(client.meta_catalog())
    '<div class="paperlens-result">...'
    """
    rows = rows_field(obj)
    if rows is None:
        return _frame(_title(obj), _fields_table(obj), _note(obj))
    items = getattr(obj, rows)
    count = f"{len(items)} {rows}" if isinstance(items, list) else rows
    return _frame(_title(obj, count, _summary(obj, skip={rows})), rows_table(items), _note(obj))


def verification_html(verification: Any) -> str:
    """A ``Verification``: the counts per status, then a table of the references (status,
    key, the fields that differ, the first reason)."""
    summary = [f"{status}={n}" for status, n in verification.counts.items() if n]
    rows = [
        {
            "status": row["status"],
            "key": row["key"],
            "input": row["input"],
            "differs": ", ".join(row["differs"]),
            "confidence": row["confidence"],
            "why": row["reasons"][0] if row["reasons"] else "",
            "record": row["unique_id"],
        }
        for row in verification.rows()
    ]
    return _frame(_title(verification, f"{len(rows)} references", summary), _dicts_table(rows), "")


def graph_html(graph: Any) -> str:
    """The HTML of a paper-schema ``CitationGraph``: its fields, a picture of the graph (the
    root outlined) where networkx and matplotlib are installed, and a table of its nodes.

    Args:
        graph: a :class:`~paperlens.types.CitationGraph`.

    Returns:
        An HTML fragment; without networkx or matplotlib, the same without the picture.
    """
    summary = _summary(graph, skip={"nodes", "edges", "levels"})
    levels = graph.typed_levels
    if levels:
        summary.append(f"{len(levels)} levels")
    title = _title(graph, f"{len(graph.nodes)} nodes, {len(graph.edges)} edges", summary)
    picture = _picture(lambda: graph.to_networkx(), roots={graph.root_schema_id})
    return _frame(title, picture + rows_table(graph.nodes), _note(graph))


def relations_html(result: Any) -> str:
    """The HTML of relations between entities (``RelationSearchPage``, ``EntityDetail``): its
    fields, a picture of the entities linked by their relations where networkx and
    matplotlib are installed, and a table of the relations.

    Args:
        result: a result whose ``_rows`` field lists :class:`~paperlens.types.Relation`\\ s.

    Returns:
        An HTML fragment; without networkx or matplotlib, the same without the picture.
    """
    rows = rows_field(result) or "relations"
    relations = getattr(result, rows)
    title = _title(result, f"{len(relations)} {rows}", _summary(result, skip={rows}))
    entity = getattr(result, "entity", None)
    known: list[Any] = [entity] if isinstance(entity, Result) else []
    roots = {e.entity_id for e in known}
    picture = _picture(lambda: _relations_graph(relations, known), roots=roots) if relations else ""
    return _frame(title, picture + rows_table(relations), _note(result))


def network_html(network: Any) -> str:
    """The HTML of a network: any object with ``.nodes`` and ``.edges`` (DataFrames or lists
    of rows) and ``.to_networkx()``, such as :class:`~paperlens.CitationNetwork`. A picture
    (nodes coloured by their ``depth`` when they have one, sized by how often they are
    cited in it) where networkx and matplotlib are installed, and a table of the nodes.

    Args:
        network: the network; ``seeds``, ``direction`` and ``depth`` are shown when it has them.

    Returns:
        An HTML fragment; without networkx or matplotlib, the same without the picture.

    >>> network = client.snowball(["W4000000150"], depth=2)
    >>> network._repr_html_()  # what Jupyter shows: the picture and the first 20 nodes
    '<div class="paperlens-result">...'
    """
    nodes, edges = _rows_of(network, "nodes"), _rows_of(network, "edges")
    node_count = len(nodes) if nodes is not None else len(network) if hasattr(network, "__len__") else None
    counts = [f"{node_count} nodes"] if node_count is not None else []
    counts += [f"{len(edges)} edges"] if edges is not None else []
    facts = [(name, getattr(network, name, None)) for name in ("seeds", "direction", "depth")]
    summary = [f"{name}={_text(value, 60)}" for name, value in facts if value is not None]
    title = _title(network, ", ".join(counts), summary)
    seeds = getattr(network, "seeds", None)
    roots = set(seeds) if isinstance(seeds, (list, tuple, set, frozenset)) else set()
    table = _dicts_table(nodes) if nodes is not None else ""
    return _frame(title, _picture(network.to_networkx, roots=roots) + table, "")


def paginator_html(paginator: Any) -> str:
    """The HTML of a paginator, without fetching anything: the operation and parameters it
    walks, its limit and page size, and how far its latest pass got.

    Args:
        paginator: a :class:`~paperlens.Paginator` or :class:`~paperlens.AsyncPaginator`.

    Returns:
        An HTML fragment.

    >>> paginator = client.iter_meta_search("coral", limit=500)
    >>> paginator  # Jupyter shows its HTML: not started, 0 yielded
    Paginator(MetaSearchPaging, limit=500)
    """
    paging = paginator._paging
    first = paging.first(paginator._limit)
    fetch = paginator._fetch
    operation = fetch.args[0] if getattr(fetch, "args", None) else type(paging).__name__
    params = {k: v for k, v in paging.params.items() if v is not None}
    walk, page = paginator._walked, paginator._page
    rows: list[tuple[str, str]] = [("parameters", ", ".join(f"{k}={_text(v, 60)}" for k, v in params.items()))]
    rows.append(("limit", "none" if paginator._limit is None else str(paginator._limit)))
    if paging.size_param is not None and first.get(paging.size_param) is not None:
        rows.append(("page size", str(first[paging.size_param])))
    if walk is None:
        rows.append(("state", "not started: nothing fetched yet"))
    else:
        total = paging.total(page) if page is not None else None
        if total is not None and paginator._limit is not None:
            total = min(total, paginator._limit)
        of = "" if total is None else f" of {total}"
        left = "more to fetch" if paginator._next is not None else "no page left"
        rows.append(("state", f"{walk.taken}{of} {paginator._unit} yielded in the latest pass; {left}"))
    if paginator._next is not None:
        rows.append(("next_cursor", _text(paginator._next, _WIDTH)))
    title = f"<strong>{html.escape(type(paginator).__name__)}</strong> over {html.escape(str(operation))}"
    return _frame(title, _pairs_table(rows), "")


# -- tables -----------------------------------------------------------------------------------


def rows_table(items: Sequence[Any]) -> str:
    """A table of the first :data:`ROWS` results of ``items`` (columns chosen by their type),
    then "... N more"; a note when there are none."""
    if not items:
        return '<p class="pl-note">no rows</p>'
    shown = list(items[:ROWS])
    columns = _columns(shown)
    head = _head(columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_cell(getattr(row, c, None))}</td>" for c in columns) + "</tr>"
        if isinstance(row, Result)
        else f'<tr><td colspan="{len(columns)}">{_cell(row)}</td></tr>'
        for row in shown
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{_more(len(items))}"


def _columns(rows: list[Any]) -> list[str]:
    kind = next((type(row) for row in rows if isinstance(row, Result)), None)
    if kind is None:
        return ["value"]
    filled = {f.name for row in rows if isinstance(row, Result) for f in _fields(row) if _shown(getattr(row, f.name))}
    preferred = [c for c in _COLUMNS.get(kind.__name__, ()) if c in filled]
    if preferred:
        return preferred
    names = [f.name for f in dataclasses.fields(kind) if f.name in filled]
    lead = [c for c in _LEAD if c in names]
    return (lead + [c for c in names if c not in lead])[:_COLUMNS_MAX] or ["value"]


def _head(columns: list[str]) -> str:
    return "".join(
        f'<th title="{html.escape(c)}">{html.escape(_HEADERS[c])}</th>'
        if c in _HEADERS
        else f"<th>{html.escape(c)}</th>"
        for c in columns
    )


def _dicts_table(rows: Any) -> str:
    """A table of rows given as a DataFrame or a list (of dicts or results)."""
    total = len(rows)
    if hasattr(rows, "columns") and hasattr(rows, "head"):
        records = rows.head(ROWS).to_dict("records")
        columns = [str(c) for c in rows.columns]
    else:
        records = [r.to_dict() if isinstance(r, Result) else r for r in list(rows)[:ROWS]]
        columns = list(dict.fromkeys(k for r in records if isinstance(r, dict) for k in r))
    if not records:
        return '<p class="pl-note">no rows</p>'
    lead = [c for c in ("id", *_LEAD, "depth") if c in columns]
    columns = (lead + [c for c in columns if c not in lead])[:_COLUMNS_MAX]
    head = _head(columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_cell(r.get(c) if isinstance(r, dict) else r)}</td>" for c in columns) + "</tr>"
        for r in records
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{_more(total)}"


def _fields_table(obj: Result) -> str:
    pairs = [(f.name, getattr(obj, f.name)) for f in _fields(obj)]
    rows = [(name, _text(value, _FIELD_WIDTH)) for name, value in pairs if _shown(value)]
    extra = obj.extra
    if extra:
        rows.append(("extra", ", ".join(html.escape(k) for k in extra)))
    return _pairs_table(rows) if rows else '<p class="pl-note">no fields</p>'


def _pairs_table(rows: Iterable[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows)
    return f"<table><tbody>{body}</tbody></table>"


def _more(total: int) -> str:
    return f'<p class="pl-note">... {total - ROWS} more</p>' if total > ROWS else ""


# -- texts ------------------------------------------------------------------------------------


def _frame(title: str, body: str, note: str) -> str:
    return f'<div class="paperlens-result">{_STYLE}<div>{title}</div>{body}{note}</div>'


def _title(obj: Any, count: str = "", summary: Sequence[str] = ()) -> str:
    parts = [f"<strong>{html.escape(type(obj).__name__)}</strong>"]
    if count:
        parts.append(html.escape(count))
    parts.extend(html.escape(s) for s in summary)
    return " · ".join(parts)


def _summary(obj: Result, *, skip: set[str]) -> list[str]:
    """``name=value`` of the fields of a list-shaped result other than its rows."""
    out = []
    for f in _fields(obj):
        value = getattr(obj, f.name)
        if f.name in skip or not _shown(value) or (f.default is not dataclasses.MISSING and value == f.default):
            continue
        out.append(f"{f.name}={_text(value, 60)}")
    return out


def _note(obj: Any) -> str:
    request_id = getattr(obj, "request_id", None)
    return f'<p class="pl-note">request_id {html.escape(request_id)}</p>' if isinstance(request_id, str) else ""


def _cell(value: Any) -> str:
    return html.escape(_text(value, _WIDTH))


def _text(value: Any, width: int) -> str:
    """A short plain text of a field's value (escaped by the caller)."""
    if _missing(value):
        return ""
    if isinstance(value, bool):
        return "✓" if value else "✗"
    if isinstance(value, float):
        # Integers in a float column (a frame's column with gaps) read as integers.
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.4g}"
    if isinstance(value, (bytes, bytearray)):
        return f"{len(value):,} bytes"
    if isinstance(value, Result):
        text = _short(value.__dict__)
    elif isinstance(value, dict):
        text = _short(value)
    elif isinstance(value, (list, tuple)):
        text = _listed(value)
    else:
        text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _missing(value: Any) -> bool:
    """None, or a missing value of a DataFrame cell (NaN, ``pd.NA``, ``NaT``)."""
    if value is None:
        return True
    if isinstance(value, float):
        return value != value
    return type(value).__name__ in ("NAType", "NaTType")


def _short(wire: dict[str, Any]) -> str:
    name = next((wire[k] for k in _NAMES if isinstance(wire.get(k), (str, int)) and wire.get(k) != ""), None)
    if name is not None:
        return str(name)
    if set(wire) <= {"value", "relation"} and "value" in wire:  # a Total
        return f"{'≥ ' if wire.get('relation') == 'gte' else ''}{wire['value']}"
    return json.dumps(wire, ensure_ascii=False, default=str)


def _listed(values: Sequence[Any]) -> str:
    if all(isinstance(v, (str, int, float)) for v in values[:4]) or not values:
        shown = [str(v) for v in values[:4]]
    else:
        shown = [_text(v, 40) for v in values[:4]]
    more = f" +{len(values) - 4}" if len(values) > 4 else ""
    return ", ".join(shown) + more


def _fields(obj: Result) -> tuple[dataclasses.Field[Any], ...]:
    return dataclasses.fields(obj)


def _shown(value: Any) -> bool:
    return value is not None and value != [] and value != {} and value != ""


def _rows_of(network: Any, name: str) -> Any:
    """``network.nodes`` (or ``.edges``), or None when it cannot be read (no pandas)."""
    try:
        return getattr(network, name)
    except ImportError:
        return None


# -- pictures ---------------------------------------------------------------------------------


def _optional(name: str) -> Any:
    """The module ``name``, or None when it is not installed (tests make it absent here)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _picture(build: Any, *, roots: set[Any]) -> str:
    """A small inline SVG of the graph ``build()`` returns, or "" without networkx or
    matplotlib. Nodes are sized by in-degree, coloured by ``depth`` when they carry one;
    ``roots`` (and nodes of depth 0) are outlined."""
    nx, figure = _optional("networkx"), _optional("matplotlib.figure")
    if nx is None or figure is None:
        return ""
    try:
        graph = build()
        if graph.number_of_nodes() == 0:
            return ""
        note = ""
        if graph.number_of_nodes() > PICTURE_NODES:
            graph = graph.subgraph(list(graph.nodes)[:PICTURE_NODES])
            note = f'<p class="pl-note">the picture shows the first {PICTURE_NODES} nodes</p>'
        return _draw(nx, figure, graph, roots) + note
    except ImportError:
        return ""
    except Exception as error:  # the table still shows: a picture is a bonus
        return f'<p class="pl-note">no picture: {html.escape(f"{type(error).__name__}: {error}")}</p>'


def _draw(nx: Any, figure: Any, graph: Any, roots: set[Any]) -> str:
    matplotlib = importlib.import_module("matplotlib")
    nodes = list(graph.nodes)
    position = nx.spring_layout(graph, seed=7, k=None if len(nodes) > 2 else 1.0)
    fig, ax = blank_axes(figure.Figure, (4.5, 3.2))
    # Nodes as markers in a few groups: SVG writes a marker once per group, so a picture of
    # hundreds of nodes stays small.
    small = len(nodes) <= _LABEL_NODES
    if small:  # few enough for arrows (citing -> cited)
        arrow = {"arrowstyle": "-|>", "color": "#9aa5b1", "linewidth": 0.7, "shrinkA": 5, "shrinkB": 5}
        for a, b in graph.edges():
            ax.annotate("", xy=position[b], xytext=position[a], arrowprops=arrow)
    else:
        plot_lines(ax, graph.edges(), position, linewidth=0.6, alpha=0.7)
    indegree = dict(graph.in_degree()) if graph.is_directed() else dict(graph.degree())
    depth = {n: graph.nodes[n].get("depth") for n in nodes}
    roots = roots | {n for n, d in depth.items() if d == 0 and not isinstance(d, bool)}
    by_depth = all(isinstance(d, int) and not isinstance(d, bool) for d in depth.values())
    deepest = max([d for d in depth.values() if by_depth] or [1]) or 1
    groups: dict[tuple[Any, ...], list[Any]] = {}
    for n in nodes:
        cited = min(indegree.get(n, 0), 27)
        size = 4 + 2 * (cited.bit_length() if n not in roots else max(cited.bit_length(), 2))
        colour = matplotlib.colormaps["viridis"](depth[n] / deepest) if by_depth else "#4c78a8"
        groups.setdefault((size, colour, n in roots), []).append(n)
    for (size, colour, root), members in groups.items():
        ax.plot(
            [position[n][0] for n in members],
            [position[n][1] for n in members],
            linestyle="none",
            marker="o",
            markersize=size,
            markerfacecolor=colour,
            markeredgecolor="#d62728" if root else "white",
            markeredgewidth=1.5 if root else 0.4,
        )
    if small:
        for n in nodes:
            label = graph.nodes[n].get("label") or graph.nodes[n].get("title") or str(n)
            ax.annotate(
                _text(label, _LABEL_WIDTH),
                position[n],
                fontsize=7,
                ha="center",
                va="bottom",
                xytext=(0, 4),
                textcoords="offset points",
                color="#333",
            )
    ax.margins(0.2 if small else 0.06)
    colour = "colour: depth (dark: 0); " if by_depth else ""
    return svg_block(fig, f"{colour}size: cited within the picture; outlined red: root or seeds")


def blank_axes(figure: Any, size: tuple[float, float]) -> tuple[Any, Any]:
    """A matplotlib ``figure`` of ``size`` inches and its one axes, filling it, without axis lines."""
    fig = figure(figsize=size)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    return fig, ax


def plot_lines(ax: Any, pairs: Iterable[tuple[Any, Any]], position: Any, *, linewidth: float, alpha: float) -> None:
    """A grey line between the ``position`` of each pair's two ends, all as one path (gaps
    between them): SVG writes one element however many lines there are."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    for a, b in pairs:
        xs += [position[a][0], position[b][0], None]
        ys += [position[a][1], position[b][1], None]
    if xs:
        ax.plot(xs, ys, color="#9aa5b1", linewidth=linewidth, alpha=alpha)


def svg_block(fig: Any, key: str) -> str:
    """A matplotlib figure as inline SVG with ``key`` (what its marks mean) below it."""
    matplotlib = importlib.import_module("matplotlib")
    out = io.StringIO()
    # Text stays text (the browser's fonts draw any script); matplotlib's own fonts lack
    # some glyphs, which would only warn.
    with warnings.catch_warnings(), matplotlib.rc_context({"svg.fonttype": "none"}):
        warnings.simplefilter("ignore", UserWarning)
        fig.savefig(out, format="svg", metadata={"Date": None})
    svg = out.getvalue()
    return f'<div>{svg[svg.index("<svg") :]}<p class="pl-note">{html.escape(key)}</p></div>'


def _relations_graph(relations: Sequence[Any], known: Sequence[Any]) -> Any:
    """A networkx ``MultiDiGraph`` of entities linked by ``relations``, labelled by name (from
    the relations' entities, or the ``known`` entities)."""
    nx = importlib.import_module("networkx")
    graph = nx.MultiDiGraph()
    names = {entity.entity_id: entity.name for entity in known}
    for relation in relations:
        source, target = relation.source_entity_id, relation.target_entity_id
        if source is None or target is None:
            continue
        for key, entity in ((source, relation.source_entity), (target, relation.target_entity)):
            name = getattr(entity, "name", None) if isinstance(entity, Result) else None
            graph.add_node(key, label=name or names.get(key) or key)
        graph.add_edge(source, target, relation_type=relation.relation_type)
    return graph
