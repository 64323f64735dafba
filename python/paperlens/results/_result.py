"""What the conversions (``pandas``, ``_display``, the citation formats) know of results and
paginators: these bases and hooks, never the concrete classes (which sit in a layer above
and import the conversions lazily from their methods).

``Result`` is the base of every result type (``_model.Model``), ``Listing`` of the
list-shaped ones; a paginator is recognised by its ``_frame_rows`` hook."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar


class Result:
    """A result: a frozen dataclass of wire fields (see ``paperlens.results._model.Model``)."""

    __slots__ = ()
    if TYPE_CHECKING:
        __dataclass_fields__: ClassVar[dict[str, Any]]  # every result type is a dataclass
        # The properties a decoded row set aside because an attribute has their name, or None.
        _moved: dict[str, Any] | None

    @property
    def extra(self) -> dict[str, Any]:
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def _field_names(cls) -> frozenset[str]:
        raise NotImplementedError

    @classmethod
    def _wire_columns(cls, items: list[Any], strings: frozenset[str]) -> dict[str, Any] | None:
        raise NotImplementedError


class Listing:
    """A list-shaped result: one row per item of the list field named by ``_rows``."""

    __slots__ = ()
    #: The name of the list field converted to rows.
    _rows: ClassVar[str]
    #: A field of the result that leads each row in a frame of several such results (a facet's
    #: ``field``: its buckets alone cannot tell which facet they count), or None.
    _row_label: ClassVar[str | None] = None


def plain(value: Any) -> Any:
    """``value`` with every result in it turned into its wire dict."""
    kind = type(value)
    if kind is list:
        return [plain(v) for v in value]
    if kind is dict:
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, Result):
        return value.to_dict()
    return value


def rows_field(result: Any) -> str | None:
    """The field holding the rows of a list result (``to_pandas()`` makes one row of each
    item), or None for a result that is a row itself."""
    return result._rows if isinstance(result, Listing) else None


def row_label(cls: type[Any] | None) -> str | None:
    """The field leading each row of a frame of ``cls`` results (see ``Listing._row_label``)."""
    return cls._row_label if isinstance(cls, type) and issubclass(cls, Listing) else None


def field_names(cls: type[Result]) -> frozenset[str]:
    """The names of the fields ``cls`` declares."""
    return cls._field_names()


def wire_columns(cls: type[Result], items: list[Any], strings: frozenset[str] = frozenset()) -> dict[str, Any] | None:
    """The wire properties of ``items`` (instances of ``cls``) as columns decoded straight from
    their rows' JSON text, or None (see ``paperlens.results._model.wire_columns``)."""
    return cls._wire_columns(items, strings)


class Paged:
    """A paginator, as the conversions see it."""

    __slots__ = ()

    def _frame_rows(self) -> tuple[list[Any], Any]:
        """Every item, and the last page (it tells the item type when there is none); an async
        paginator raises ``TypeError`` (it needs awaiting)."""
        raise NotImplementedError
