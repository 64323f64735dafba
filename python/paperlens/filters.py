"""Short forms of ``meta_search`` filters, sort and facets, turned into the wire dicts.

>>> Filter("citation_count", ">=", 100).to_wire()
{'field': 'citation_count', 'operator': 'FILTER_OP_GTE', 'value': 100}
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from paperlens.errors import ValidationError

__all__ = ["FacetSpec", "Filter", "FilterSpec", "SortSpec"]

_SYMBOLS = {
    "==": "EQ",
    "!=": "NE",
    ">": "GT",
    ">=": "GTE",
    "<": "LT",
    "<=": "LTE",
    "in": "IN",
    "not_in": "NIN",
    "contains": "CONTAINS",
    "match": "MATCH",
    "match_phrase": "MATCH_PHRASE",
}
_SHORT = frozenset(_SYMBOLS.values())
_ORDERS = {"desc": "SORT_ORDER_DESC", "asc": "SORT_ORDER_ASC"}


def operator_name(op: str, *, param: str = "operator") -> str:
    """The wire name (``FILTER_OP_GTE``) of ``>=``, ``GTE``, ``gte`` or ``FILTER_OP_GTE``."""
    name = _SYMBOLS.get(op.lower(), op.upper())
    name = name.removeprefix("FILTER_OP_")
    if name not in _SHORT:
        known = " ".join(_SYMBOLS)
        raise ValidationError(
            f"{param}: unknown operator {op!r}; use one of {known}, the catalog names (GTE...) or FILTER_OP_*",
            param=param, rule="unknown operator", value=repr(op),
        )
    return "FILTER_OP_" + name


@dataclass(frozen=True)
class Filter:
    """One ``meta_search`` condition: ``Filter("publication_published_year", ">=", 2020)``."""

    field: str
    op: str
    value: Any

    def to_wire(self, param: str = "filters[0]") -> dict[str, Any]:
        return {"field": self.field, "operator": operator_name(self.op, param=f"{param}.operator"),
                "value": self.value}


FilterSpec = Filter | tuple[str, str, Any] | dict[str, Any]
SortSpec = str | tuple[str, str] | dict[str, Any]
FacetSpec = str | tuple[str, int] | dict[str, Any]


def _items(spec: Any, is_single: Any) -> list[Any]:
    if spec is None:
        return []
    if is_single(spec):
        return [spec]
    if isinstance(spec, Iterable):
        return list(spec)
    return [spec]


def filters_to_wire(filters: FilterSpec | Iterable[FilterSpec] | None) -> list[dict[str, Any]] | None:
    if filters is None:
        return None
    single = lambda f: isinstance(f, (Filter, dict)) or (isinstance(f, tuple) and len(f) == 3  # noqa: E731
                                                         and isinstance(f[0], str))
    wire = []
    for i, item in enumerate(_items(filters, single)):
        param = f"filters[{i}]"
        if isinstance(item, Filter):
            wire.append(item.to_wire(param))
        elif isinstance(item, tuple) and len(item) == 3:
            wire.append(Filter(*item).to_wire(param))
        elif isinstance(item, dict):
            wire.append(item)
        else:
            raise ValidationError(f"{param}: expected a Filter, a (field, op, value) tuple or a dict, got {item!r}",
                                  param=param, rule="filter shape", value=repr(item))
    return wire


def sort_to_wire(sort: SortSpec | Iterable[SortSpec] | None) -> list[dict[str, Any]] | None:
    if sort is None:
        return None
    single = lambda s: isinstance(s, (str, dict)) or (isinstance(s, tuple) and len(s) == 2  # noqa: E731
                                                      and str(s[1]).lower() in _ORDERS)
    wire = []
    for i, item in enumerate(_items(sort, single)):
        param = f"sort[{i}]"
        if isinstance(item, str):
            wire.append({"field": item})
        elif isinstance(item, tuple) and len(item) == 2:
            order = str(item[1])
            wire_order = _ORDERS.get(order.lower(), order.upper())
            if wire_order not in _ORDERS.values():
                raise ValidationError(f"{param}.order: must be 'asc' or 'desc', got {order!r}",
                                      param=f"{param}.order", rule="sort order", value=repr(order))
            wire.append({"field": item[0], "order": wire_order})
        elif isinstance(item, dict):
            wire.append(item)
        else:
            raise ValidationError(f"{param}: expected a field name, a (field, order) tuple or a dict, got {item!r}",
                                  param=param, rule="sort shape", value=repr(item))
    return wire


def facets_to_wire(facets: FacetSpec | Iterable[FacetSpec] | None) -> list[dict[str, Any]] | None:
    if facets is None:
        return None
    single = lambda f: isinstance(f, (str, dict)) or (isinstance(f, tuple) and len(f) == 2  # noqa: E731
                                                      and isinstance(f[1], int))
    wire = []
    for i, item in enumerate(_items(facets, single)):
        param = f"facets[{i}]"
        if isinstance(item, str):
            wire.append({"field": item})
        elif isinstance(item, tuple) and len(item) == 2:
            wire.append({"field": item[0], "size": item[1]})
        elif isinstance(item, dict):
            wire.append(item)
        else:
            raise ValidationError(f"{param}: expected a field name, a (field, size) tuple or a dict, got {item!r}",
                                  param=param, rule="facet shape", value=repr(item))
    return wire
