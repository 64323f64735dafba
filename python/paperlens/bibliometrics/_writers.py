"""The files of :meth:`WeightedNetwork.write <paperlens.bibliometrics.WeightedNetwork.write>`.

The VOSviewer files follow VOSviewer's documentation of its file types
(https://app.vosviewer.com/docs/file-types/): map and network files are tab-separated, the map
file with a header line naming each column (``id``, ``label``, ``description``, ``cluster``,
``weight<...>``), the network file without one (two ids and a positive strength per line); a
label or description holding a comma or a semicolon is enclosed in double quotes; a cluster
is an integer from 1 to 1000. The JSON file has a ``network`` object with ``items``,
``links`` and ``clusters``, and an ``info`` object.

Every file is written to a temporary file beside it and renamed into place, so a failure
leaves the old file or none, never part of one; a folder (``vosviewer``, ``csv``) that does not
exist yet is filled under a temporary name and renamed into place whole.
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from paperlens.base import _checks as checks
from paperlens.storage._store import replace_atomically

__all__ = ["FORMATS", "VOSVIEWER_CLUSTERS", "write"]

#: The formats of :meth:`WeightedNetwork.write <paperlens.bibliometrics.WeightedNetwork.write>`.
FORMATS = ("vosviewer", "vosviewer-json", "pajek", "gexf", "graphml", "csv")

#: The clusters VOSviewer takes (1 to 1000).
VOSVIEWER_CLUSTERS = 1000
_SUFFIXES = {".json": "vosviewer-json", ".net": "pajek", ".gexf": "gexf", ".graphml": "graphml"}
_KIND_TITLES = {
    "co-citation": "Co-citation network",
    "bibliographic-coupling": "Bibliographic coupling network",
    "direct-citation": "Direct citation network",
    "co-authorship": "Co-authorship network",
    "co-occurrence": "Co-occurrence network",
}


# The network is a WeightedNetwork (typed Any: its module imports this one).
WeightedNetwork = Any


def write(network: WeightedNetwork, path: Path, format: str | None) -> Path:
    """Writes ``network`` to ``path`` in ``format`` (see ``WeightedNetwork.write``)."""
    if format is None:
        format = _SUFFIXES.get(path.suffix.lower())
        if format is None:
            raise checks.invalid("format", f"must be one of {', '.join(FORMATS)} (the suffix of path tells none)")
    checks.choice("format", format, FORMATS)
    if format == "vosviewer":
        return _folder(path, {"map.txt": _map_file, "network.txt": _network_file}, network)
    if format == "csv":
        return _folder(path, {"nodes.csv": _nodes_csv, "edges.csv": _edges_csv}, network)
    fill = {"vosviewer-json": _json_file, "pajek": _pajek_file, "gexf": _gexf_file, "graphml": _graphml_file}[format]
    path.parent.mkdir(parents=True, exist_ok=True)
    _replace(path, fill(network))
    return path


def _replace(path: Path, data: bytes) -> None:
    replace_atomically(path, lambda file: file.write(data), prefix=f".{path.name}.")


def _folder(path: Path, files: dict[str, Callable[[Any], bytes]], network: WeightedNetwork) -> Path:
    contents = {name: fill(network) for name, fill in files.items()}  # everything made before a byte is written
    if path.is_dir():
        for name, data in contents.items():
            _replace(path / name, data)
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        for name, data in contents.items():
            (temp / name).write_bytes(data)
        os.replace(temp, path)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    return path


# -- VOSviewer --------------------------------------------------------------------------------------


def vosviewer_clusters(network: WeightedNetwork) -> list[int]:
    """Each node's cluster as VOSviewer takes it: 1 to 1000, the smallest clusters past the
    999th sharing 1000."""
    return [min(number, VOSVIEWER_CLUSTERS) for number in network._cluster_numbers()]


def _weights(network: WeightedNetwork) -> dict[str, list[int]]:
    links, strength = network._degrees()
    return {
        "Links": links.tolist(),
        "Total link strength": strength.tolist(),
        network.count_name.capitalize(): network.counts.tolist(),
    }


def _cell(text: str) -> str:
    """A map file's text cell: one line, quoted when it holds a comma, a semicolon or a quote."""
    one_line = " ".join(text.split())
    if any(c in one_line for c in ',;"'):
        return '"' + one_line.replace('"', '""') + '"'
    return one_line


def _map_file(network: WeightedNetwork) -> bytes:
    weights = _weights(network)
    clusters = vosviewer_clusters(network)
    head = ["id", "label", "description", "cluster", *(f"weight<{name}>" for name in weights)]
    lines = ["\t".join(head)]
    for i, (key, label) in enumerate(zip(network.ids, network.labels, strict=True)):
        cells = [str(i + 1), _cell(label), _cell(html.escape(key)), str(clusters[i])]
        cells += [str(values[i]) for values in weights.values()]
        lines.append("\t".join(cells))
    return ("\n".join(lines) + "\n").encode()


def _network_file(network: WeightedNetwork) -> bytes:
    rows = network._link_rows()
    return "".join(f"{s + 1}\t{t + 1}\t{w}\n" for s, t, w in rows).encode()


def _json_file(network: WeightedNetwork) -> bytes:
    weights = _weights(network)
    clusters = vosviewer_clusters(network)
    items = [
        {
            "id": i + 1,
            "label": label,
            "description": html.escape(key),
            "cluster": clusters[i],
            "weights": {name: values[i] for name, values in weights.items()},
        }
        for i, (key, label) in enumerate(zip(network.ids, network.labels, strict=True))
    ]
    links = [{"source_id": s + 1, "target_id": t + 1, "strength": w} for s, t, w in network._link_rows()]
    strongest: dict[int, int] = {}
    for i, cluster in enumerate(clusters):
        best = strongest.get(cluster)
        if best is None or weights["Total link strength"][i] > weights["Total link strength"][best]:
            strongest[cluster] = i
    named = [{"cluster": c, "label": network.labels[strongest[c]]} for c in sorted(strongest)]
    title = _KIND_TITLES.get(network.kind, network.kind)
    info = {
        "title": title,
        "description": f"{title} by paperlens: {len(items)} items, {len(links)} links, min_weight "
        f"{network.min_weight}{'; some reference lists were truncated' if network.truncated else ''}.",
    }
    document = {"network": {"items": items, "links": links, "clusters": named}, "info": info}
    return json.dumps(document, ensure_ascii=False, indent=1).encode()


# -- other tools ----------------------------------------------------------------------------------


def _pajek_name(key: str) -> str:
    return '"' + " ".join(key.split()).replace('"', "'") + '"'


def _pajek_file(network: WeightedNetwork) -> bytes:
    lines = [f"*Vertices {len(network.ids)}"]
    lines += [f"{i + 1} {_pajek_name(key)}" for i, key in enumerate(network.ids)]
    lines.append("*Arcs" if network.directed else "*Edges")
    rows = network._link_rows()
    lines += [f"{s + 1} {t + 1} {w}" for s, t, w in rows]
    return ("\r\n".join(lines) + "\r\n").encode()


def _plain_graph(network: WeightedNetwork) -> Any:
    """:meth:`to_networkx` with ``records`` as JSON text (GEXF and GraphML take scalars)."""
    graph = network.to_networkx()
    for _a, _b, attributes in graph.edges(data=True):
        attributes["records"] = json.dumps(attributes["records"], ensure_ascii=False)
    return graph


def _gexf_file(network: WeightedNetwork) -> bytes:
    import networkx as nx

    out = io.BytesIO()
    nx.write_gexf(_plain_graph(network), out)
    return out.getvalue()


def _graphml_file(network: WeightedNetwork) -> bytes:
    import networkx as nx

    out = io.BytesIO()
    nx.write_graphml(_plain_graph(network), out)
    return out.getvalue()


def _nodes_csv(network: WeightedNetwork) -> bytes:
    out = io.StringIO()
    network.nodes.to_csv(out, index=False)
    return out.getvalue().encode()


def _edges_csv(network: WeightedNetwork) -> bytes:
    edges = network.edges
    edges["records"] = [json.dumps(records, ensure_ascii=False) for records in edges["records"]]
    out = io.StringIO()
    edges.to_csv(out, index=False, quoting=csv.QUOTE_MINIMAL)
    return out.getvalue().encode()
