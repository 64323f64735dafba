"""Citation snowballing: the network around seed papers, breadth first over ``/meta-paper-relations``.

>>> network = client.snowball(["W4000000150"], direction="both", depth=2, max_per_paper=50)
>>> network.nodes.sort_values("depth")[["id", "depth"]].head(3)  # one row per paper, with its depth
            id  depth
0  W4000000150      0
1  W4000002586      1
2  W4000005097      1
>>> seed = network.node_rows()[0]                    # a seed carries its record's fields
>>> seed["title"], seed["publication_published_year"]
('On the role of bleaching in loss of marine biodiversity', 2021)
>>> graph = network.to_networkx()                   # citing -> cited
>>> network.write("network/", graphml=True)         # Parquet (and GraphML) plus manifest.json
PosixPath('network')

The seeds (depth 0) carry the fields the relation items carry (:data:`SEED_FIELDS`: ``title``,
``doi``, ``publication_published_year``, and ``doc_id`` when the service adds it), read from
their records first: one ``/meta-search`` per 200 seeds (``client.lookup(seeds,
by="unique_id")``), at any ``depth``, 0 included; a seed the service does not know keeps only
its ``id`` and ``id_type``. Then each paper is expanded once, level after level; each relation
list is read in pages of the largest size the contract allows, or fewer items when
``max_per_paper`` wants fewer. Items whose ``id_type`` is not ``unique_id`` (works outside the
service, named by a DOI) are nodes but not expanded: ``/meta-paper-relations`` takes a
``unique_id``. Requests: ``ceil(seeds / 200)`` to ``/meta-search``, then one or more per
expanded paper and direction to ``/meta-paper-relations``.

With ``checkpoint=PATH`` every page answered (the seeds' records too) is appended to that file
(JSON Lines, flushed to disk) before it is used: a run interrupted anywhere (an error, Ctrl-C,
a crash) and started again with the same call replays those answers and sends only the
requests still missing; a finished run is returned from the file without any request.
Appending one line per page keeps each save small (rewriting the whole state would grow with
the network); a line cut by a crash is dropped on resume, so a page is saved whole or not at
all.
"""

from paperlens.workflows import snowball as _module
from paperlens.workflows.snowball import *  # noqa: F403

__all__ = _module.__all__
