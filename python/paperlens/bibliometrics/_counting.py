"""Sparse counting: the links of a network from an incidence matrix, with no Python loop per
pair.

An incidence matrix has one row per *group* (a document, or for bibliographic coupling a cited
work) and one column per *member* (a cited work, an author, a term, a document), 1 where the
member is in the group. Two members are linked as often as groups hold both: the upper triangle
of ``A.T @ A``, a sparse product whose memory grows with the links, not with the pairs
counted. The groups behind each kept link (the ``records`` of an edge) are found by listing
the member pairs of the groups with numpy, a bounded chunk of groups at a time, and keeping
those that fall on a kept link: memory grows with what is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Links", "co_links", "incidence", "modules"]

# Member pairs listed at once while finding the groups of each link (about 100 MB of arrays).
_CHUNK_PAIRS = 4_000_000


def modules() -> tuple[Any, Any]:
    """numpy and scipy.sparse, or an ImportError naming the extra to install."""
    try:
        import numpy as np
        import scipy.sparse as sparse
    except ImportError as error:
        raise ImportError(
            'paperlens.bibliometrics needs numpy and scipy: pip install "paperlens[bibliometrics]"'
        ) from error
    return np, sparse


@dataclass(frozen=True)
class Links:
    """Links between members, strongest first (then by member order).

    Attributes:
        source, target: member indexes (``source < target`` for undirected links).
        weight: how many groups make each link.
        groups: the indexes of the groups that make each link, link after link (the first
            ``weight[0]`` are the first link's, and so on), in group order within a link.
    """

    source: Any
    target: Any
    weight: Any
    groups: Any


def incidence(groups: list[list[int]], members: int) -> Any:
    """The binary CSR matrix of ``groups`` (each a list of distinct member indexes) over
    ``members`` columns, its column indexes sorted within each row."""
    np, sparse = modules()
    lengths = np.fromiter((len(g) for g in groups), dtype=np.int64, count=len(groups))
    indptr = np.zeros(len(groups) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    indices = np.fromiter((m for g in groups for m in g), dtype=np.int64, count=int(indptr[-1]))
    data = np.ones(len(indices), dtype=np.int64)
    matrix = sparse.csr_matrix((data, indices, indptr), shape=(len(groups), members))
    matrix.sort_indices()
    return matrix


def co_links(matrix: Any, min_weight: int) -> Links:
    """The links of the members (columns) of ``matrix`` that at least ``min_weight`` groups
    (rows) share, with those groups."""
    np, _sparse = modules()
    members = matrix.shape[1]
    product = (matrix.T @ matrix).tocsr()
    product.sort_indices()  # then its entries, row after row, are in (source, target) order
    rows = np.repeat(np.arange(members, dtype=np.int64), np.diff(product.indptr))
    columns = product.indices.astype(np.int64)
    kept = (columns > rows) & (product.data >= min_weight)
    source, target, weight = rows[kept], columns[kept], product.data[kept].astype(np.int64)
    keys = source * members + target  # sorted
    strongest = np.argsort(-weight, kind="stable")  # ties stay in (source, target) order
    rank = np.empty(len(keys), dtype=np.int64)
    rank[strongest] = np.arange(len(keys))
    links, groups = _groups_of(matrix, keys, members)
    by_rank = np.argsort(rank[links], kind="stable")  # groups stay in order within a link
    return Links(source[strongest], target[strongest], weight[strongest], groups[by_rank])


def _groups_of(matrix: Any, keys: Any, members: int) -> tuple[Any, Any]:
    """The groups holding both members of each link (``keys``: sorted ``source * members +
    target``): ``(link, group)`` pairs as two arrays, in group order."""
    np, _sparse = modules()
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    indptr, indices = matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64)
    lengths = np.diff(indptr)
    pairs = lengths * (lengths - 1) // 2
    bounds = np.cumsum(pairs)
    found_links, found_groups = [], []
    start = 0
    while start < len(lengths):
        # The groups from start whose pairs fit in one chunk (at least one group).
        before = bounds[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(bounds, before + _CHUNK_PAIRS, side="right")))
        group, first, second = _pairs(indptr, indices, start, stop)
        pair_keys = first * members + second
        position = np.searchsorted(keys, pair_keys)
        position[position == len(keys)] = 0
        hit = keys[position] == pair_keys
        found_links.append(position[hit])
        found_groups.append(group[hit])
        start = stop
    return np.concatenate(found_links), np.concatenate(found_groups)


def _pairs(indptr: Any, indices: Any, start: int, stop: int) -> tuple[Any, Any, Any]:
    """Every pair of members within groups ``start`` to ``stop - 1``: its group and its two
    members (the first the smaller: indexes are sorted within a group)."""
    np, _sparse = modules()
    lengths = np.diff(indptr[start : stop + 1])
    positions = np.arange(indptr[start], indptr[stop])
    ends = np.repeat(indptr[start + 1 : stop + 1], lengths)
    groups = np.repeat(np.arange(start, stop), lengths)
    follow = ends - positions - 1  # the positions after each one in its group
    first = np.repeat(positions, follow)
    offsets = np.arange(len(first)) - np.repeat(np.cumsum(follow) - follow, follow)
    return np.repeat(groups, follow), indices[first], indices[first + 1 + offsets]
