"""``pip install "paperlens[graph]"`` draws what the docs draw: a depth-2 snowball of more than
500 papers laid out with ``nx.spring_layout`` (which needs scipy above 500 nodes) and drawn with
matplotlib, as ``notebooks/snowball-corpus.ipynb`` does, with what the extra installs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from tests.test_pandas import PYTHON_DIR

ROOT = Path(__file__).resolve().parents[1]

# The notebook's drawing, over a network larger than networkx's 500-node dense limit.
DRAWING = """
import sys
before = set(sys.modules)  # what the interpreter's start imported (site hooks) is not the drawing's
import io, json
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import networkx as nx
import paperlens
from paperlens.sandbox import Sandbox

with Sandbox(papers=2000, seed=0) as sandbox:
    client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url)
    seeds = [r.unique_id for r in client.meta_search("", sort=["citation_count"], page_size=3).results]
    network = client.snowball(seeds, direction="both", depth=2, max_per_paper=30, limit=700)
graph = network.to_networkx()
depth = nx.get_node_attributes(graph, "depth")
colors = [{0: "tab:red", 1: "tab:orange"}.get(depth.get(n), "lightgrey") for n in graph]
sizes = [8 + 6 * graph.in_degree(n) for n in graph]
fig, ax = plt.subplots(figsize=(8, 6))
position = nx.spring_layout(graph, seed=1, k=0.5)
nx.draw_networkx_edges(graph, position, ax=ax, width=0.3, alpha=0.4, arrowsize=4, node_size=sizes)
nx.draw_networkx_nodes(graph, position, ax=ax, node_color=colors, node_size=sizes, linewidths=0)
png = io.BytesIO()
fig.savefig(png, format="png")
modules = sorted({name.split(".")[0] for name in set(sys.modules) - before})
print(json.dumps({
    "nodes": graph.number_of_nodes(),
    "placed": len(position),
    "depths": sorted(set(depth.values())),
    "png": png.getvalue()[:8].hex(),
    "modules": modules,
}))
"""


def draw() -> dict:
    import json

    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
    done = subprocess.run([sys.executable, "-c", DRAWING], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def requirement_name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0].lower()


def test_the_documented_drawing_of_a_depth_2_snowball_of_more_than_500_papers_works():
    drawn = draw()
    assert drawn["nodes"] > 500 and drawn["placed"] == drawn["nodes"]
    assert drawn["depths"] == [0, 1, 2]
    assert drawn["png"] == b"\x89PNG\r\n\x1a\n".hex()
    # What the drawing imports itself (networkx, matplotlib) and what spring_layout imports past
    # 500 nodes (scipy) was imported, and comes with paperlens[graph].
    extra_line = re.search(r"^graph = \[(.*)\]$", (ROOT / "pyproject.toml").read_text(), re.M)
    assert extra_line is not None
    extra = re.findall(r'"([^"]+)"', extra_line.group(1))
    distributions = metadata.packages_distributions()
    imported = {d.lower() for m in drawn["modules"] for d in distributions.get(m, [])}
    assert {"networkx", "matplotlib", "scipy"} <= imported & {requirement_name(r) for r in extra}
