"""The code of :mod:`paperlens.filters`, the public module that re-exports it and documents it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from paperlens.base._contract import FILTER_OPERATOR_PREFIX, FILTER_OPERATORS, OPERATOR_ALIASES, SORT_ORDERS
from paperlens.base._ids import normalize_doi, strip_doi
from paperlens.errors import ValidationError

__all__ = ["FacetSpec", "Filter", "FilterSpec", "SortSpec"]


def operator_name(op: str, *, param: str = "operator") -> str:
    """The wire name (``FILTER_OP_GTE``) of ``>=``, ``GTE``, ``gte`` or ``FILTER_OP_GTE``."""
    name = OPERATOR_ALIASES.get(op.lower(), op.upper())
    name = name.removeprefix(FILTER_OPERATOR_PREFIX)
    if name not in FILTER_OPERATORS:
        known = " ".join(OPERATOR_ALIASES)
        raise ValidationError(
            f"{param}: unknown operator {op!r}; use one of {known}, the catalog names (GTE...) or "
            f"{FILTER_OPERATOR_PREFIX}*",
            param=param,
            rule="unknown operator",
            value=repr(op),
        )
    return FILTER_OPERATOR_PREFIX + name


class Filter(NamedTuple):
    """One ``meta_search`` condition: ``Filter("publication_published_year", ">=", 2020)``, also
    the ``(field, op, value)`` tuple it stands for.

    Attributes:
        field: a field the token may filter on (``client.meta_catalog()`` lists them).
        op: ``== != > >= < <= in not_in contains match match_phrase``, a catalog short name
            (``GTE``) or a wire name (``FILTER_OP_GTE``).
        value: the value to compare with; a list for ``in`` and ``not_in``.

    Examples:
        >>> from paperlens import Filter
        >>> cited = [Filter("citation_count", ">=", 30), Filter("language", "in", ["en"])]
        >>> page = client.meta_search("coral", filters=cited)
        >>> min(record.citation_count for record in page.results)
        33
    """

    field: str
    op: str
    value: Any

    def to_wire(self, param: str = "filters[0]") -> dict[str, Any]:
        """The wire dict of this filter.

        Args:
            param: the name of this filter in the call, for the message of an error.

        Returns:
            ``{"field": ..., "operator": "FILTER_OP_...", "value": ...}``.

        Raises:
            ValidationError: an unknown operator.

        Examples:
            >>> from paperlens import Filter
            >>> Filter("citation_count", ">=", 100).to_wire()
            {'field': 'citation_count', 'operator': 'FILTER_OP_GTE', 'value': 100}
        """
        return {"field": self.field, "operator": operator_name(self.op, param=f"{param}.operator"), "value": self.value}


FilterSpec = Filter | tuple[str, str, Any] | dict[str, Any]
"""A filter: a :class:`Filter`, a ``(field, op, value)`` tuple, or the wire dict."""
SortSpec = str | tuple[str, str] | dict[str, Any]
"""A sort key: a field name (descending), a ``(field, "asc"|"desc")`` tuple, or the wire dict."""
FacetSpec = str | tuple[str, int] | dict[str, Any]
"""A facet: a field name, a ``(field, size)`` tuple (``size`` buckets), or the wire dict."""


def _shape_error(param: str, expected: str, item: Any) -> ValidationError:
    return ValidationError(
        f"{param}: expected {expected}, got {item!r}", param=param, rule=f"expected {expected}", value=repr(item)
    )


def _filter_item(item: Any, param: str) -> dict[str, Any] | None:
    if isinstance(item, Filter):
        return item.to_wire(param)
    if isinstance(item, tuple) and len(item) == 3 and isinstance(item[0], str):
        return Filter(*item).to_wire(param)
    return item if isinstance(item, dict) else None


def _sort_item(item: Any, param: str) -> dict[str, Any] | None:
    if isinstance(item, str):
        return {"field": item}
    if isinstance(item, tuple) and len(item) == 2 and str(item[1]).lower() in SORT_ORDERS:
        return {"field": item[0], "order": SORT_ORDERS[str(item[1]).lower()]}
    return item if isinstance(item, dict) else None


def _facet_item(item: Any, param: str) -> dict[str, Any] | None:
    if isinstance(item, str):
        return {"field": item}
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], int):
        return {"field": item[0], "size": item[1]}
    return item if isinstance(item, dict) else None


def _to_wire(
    spec: Any, name: str, convert: Callable[[Any, str], dict[str, Any] | None], expected: str
) -> list[dict[str, Any]] | None:
    """One item or a list of items, each in a short form or already a wire dict."""
    if spec is None:
        return None
    single = convert(spec, f"{name}[0]") if not isinstance(spec, list) else None
    if single is not None:
        return [single]
    if not isinstance(spec, (list, tuple)):
        raise _shape_error(name, f"a list of {expected}", spec)
    wire = []
    for i, item in enumerate(spec):
        converted = convert(item, f"{name}[{i}]")
        if converted is None:
            raise _shape_error(f"{name}[{i}]", expected, item)
        wire.append(converted)
    return wire


def doi_spellings(doi: Any) -> list[Any]:
    """The spellings of a DOI that ``lookup`` sends: normalised (no ``https://doi.org/`` or
    ``doi:`` prefix, lower case), then as given without its prefix where its case differs; a
    service comparing DOIs case-sensitively finds either. Anything but a string is kept."""
    if not isinstance(doi, str):
        return [doi]
    return list(dict.fromkeys([normalize_doi(doi), strip_doi(doi)]))


#: The equality operators on a field, each to the list operator it becomes for two spellings.
_DOI_EQUALITY = {"FILTER_OP_EQ": "FILTER_OP_IN", "FILTER_OP_IN": "FILTER_OP_IN"}
_DOI_EQUALITY.update({"FILTER_OP_NE": "FILTER_OP_NIN", "FILTER_OP_NIN": "FILTER_OP_NIN"})


def _doi_condition(wire: dict[str, Any]) -> dict[str, Any]:
    """An equality condition on ``doi`` with its DOIs spelled as ``lookup`` spells them
    (``==`` and ``!=`` become ``in`` and ``not_in`` when a DOI has two spellings); any other
    condition as it is."""
    operator = wire.get("operator")
    if wire.get("field") != "doi" or operator not in _DOI_EQUALITY:
        return wire
    value = wire.get("value")
    given = value if isinstance(value, list) else [value]
    spelled = list(dict.fromkeys(s for doi in given for s in doi_spellings(doi)))
    if not isinstance(value, list) and len(spelled) == 1:
        return {**wire, "value": spelled[0]}
    return {**wire, "operator": _DOI_EQUALITY[operator], "value": spelled}


def filters_to_wire(filters: FilterSpec | list[FilterSpec] | None) -> list[dict[str, Any]] | None:
    """The wire list of ``filters`` (one or a list), or None; raises ``ValidationError`` on a bad
    item. DOIs of an equality condition on ``doi`` are normalised as ``lookup`` does."""
    wire = _to_wire(filters, "filters", _filter_item, "a Filter, a (field, op, value) tuple or a dict")
    return None if wire is None else [_doi_condition(item) for item in wire]


def sort_to_wire(sort: SortSpec | list[SortSpec] | None) -> list[dict[str, Any]] | None:
    """The wire list of ``sort`` (one or a list), or None; raises ``ValidationError`` on a bad item."""
    return _to_wire(sort, "sort", _sort_item, "a field name, a (field, 'asc'|'desc') tuple or a dict")


def facets_to_wire(facets: FacetSpec | list[FacetSpec] | None) -> list[dict[str, Any]] | None:
    """The wire list of ``facets`` (one or a list), or None; raises ``ValidationError`` on a bad item."""
    return _to_wire(facets, "facets", _facet_item, "a field name, a (field, size) tuple or a dict")


def schema_search_filters(filters: Any) -> Any:
    """``filters`` of the Structured Paper search with its ``dois`` normalised as ``lookup``
    normalises them (the service normalises only their case); anything else as given, for the
    core's checks."""
    if not isinstance(filters, dict) or not isinstance(filters.get("dois"), list):
        return filters
    return {**filters, "dois": [normalize_doi(doi) if isinstance(doi, str) else doi for doi in filters["dois"]]}
