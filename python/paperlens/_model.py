"""The base of every result type: frozen dataclasses built straight from wire dicts.

The decoded wire object becomes the instance's ``__dict__`` as it is (no copy): a field
the answer did not carry falls back to the dataclass default (``None``), and nested
resources are replaced by their typed instances in place.

The rows of a large page arrive from the Rust core as the ``bytes`` of their JSON text
(see ``src/decode.rs``) and stay that way until first read: such an instance belongs to
a hidden subclass whose field descriptors decode the row, fill ``__dict__`` and turn the
instance into its plain class, so every later read is an ordinary attribute lookup.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from paperlens._paperlens import loads
from paperlens.errors import ResponseDecodeError

M = TypeVar("M", bound="Model")
#: Key (in an instance's __dict__) naming the list fields the builder filled in.
_FILLED = "_paperlens_filled"
#: Key (in a row's __dict__ until it is decoded) holding its JSON text and request id.
_RAW = "_paperlens_raw"
_REPR_TEXT = 60


@dataclass(frozen=True, kw_only=True, repr=False)
class Model:
    """A resource of the spec. Fields are the wire fields (``None`` when absent);
    properties the spec does not name are in ``extra``; ``to_dict()`` gives the JSON back."""

    _plan: ClassVar[_Plan | None] = None
    #: Fields that are int64 on the wire and may arrive as JSON strings.
    _int64: ClassVar[tuple[str, ...]] = ()

    @property
    def extra(self) -> dict[str, Any]:
        """Properties of the answer that the spec does not name (kept, never dropped)."""
        names = _plan(type(self)).names
        return {k: v for k, v in self.__dict__.items() if k not in names and k != _FILLED}

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this result (a fresh copy; int64 strings as ints)."""
        skip = {"request_id", _FILLED, *self.__dict__.get(_FILLED, ())}
        return {k: _plain(v) for k, v in self.__dict__.items() if k not in skip}

    def __repr__(self) -> str:
        shown = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None or f.name == "request_id":
                continue
            text = repr(value)
            if len(text) > _REPR_TEXT:
                text = text[: _REPR_TEXT - 3] + "..."
            shown.append(f"{f.name}={text}")
        return f"{type(self).__name__}({', '.join(shown)})"

    @classmethod
    def _from_wire(cls: type[M], raw: Any, request_id: str | None = None) -> M:
        if type(raw) is bytes:
            return _undecoded(cls, raw, request_id)
        obj = object.__new__(cls)
        object.__setattr__(obj, "__dict__", _filled(cls, raw, request_id))
        return obj


def _filled(cls: type[Model], raw: Any, request_id: str | None) -> dict[str, Any]:
    """The wire dict, with nested resources typed and absent list fields filled in."""
    if type(raw) is not dict:
        raise ResponseDecodeError(
            f"expected a JSON object for {cls.__name__}, got {type(raw).__name__}", request_id=request_id
        )
    plan = cls.__dict__.get("_plan") or _plan(cls)
    for name, convert in plan.convert:
        value = raw.get(name)
        if value is not None:
            raw[name] = convert(value, request_id)
    filled = [name for name, _ in plan.factories if raw.get(name) is None]
    if filled:
        # Absent list fields get an empty list, which to_dict() and extra leave out.
        for name in filled:
            raw[name] = dict(plan.factories)[name]()
        raw[_FILLED] = tuple(filled)
    if request_id is not None and plan.is_response:
        raw["request_id"] = request_id
    return raw


@dataclass(frozen=True, kw_only=True, repr=False)
class Response(Model):
    """A whole response; carries the request id of the call that produced it."""

    request_id: str | None = dataclasses.field(default=None, compare=False)


#: The instance dict itself, past the ``__dict__`` property of undecoded rows.
_DICT = Model.__dict__["__dict__"]


def _undecoded(cls: type[M], raw: bytes, request_id: str | None) -> M:
    # The hidden subclass of cls: an M.
    obj = typing.cast(M, object.__new__(_plan(cls).undecoded()))
    _DICT.__set__(obj, {_RAW: (raw, request_id)})
    return obj


def _decode(obj: Model) -> None:
    """Turns an undecoded row into a plain instance of its class (once; a no-op after)."""
    state = _DICT.__get__(obj)
    pending = state.get(_RAW)
    if pending is None:
        return
    raw, request_id = pending
    cls = type(obj).__mro__[1]
    try:
        data = loads(raw)
    except ValueError as error:
        raise ResponseDecodeError(f"a row of the answer is not valid JSON: {error}", request_id=request_id) from None
    _DICT.__set__(obj, _filled(cls, data, request_id))
    object.__setattr__(obj, "__class__", cls)


class _DecodingField:
    """A field of an undecoded row: reading it decodes the row."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Model | None, owner: type[Model]) -> Any:
        if obj is None:
            return getattr(owner.__mro__[1], self.name)
        _decode(obj)
        return getattr(obj, self.name)


def _decoded_dict(self: Model) -> dict[str, Any]:
    _decode(self)
    return _DICT.__get__(self)


def _decoded_eq(self: Model, other: object) -> bool:
    _decode(self)
    return self == other


def _decoded_reduce_ex(self: Model, protocol: typing.SupportsIndex) -> Any:
    _decode(self)
    return self.__reduce_ex__(protocol)


def _undecoded_class(cls: type[Model], plan: _Plan) -> type[Model]:
    namespace: dict[str, Any] = {name: _DecodingField(name) for name in plan.names}
    namespace.update(
        __dict__=property(_decoded_dict),
        __eq__=_decoded_eq,
        __hash__=cls.__hash__,
        __reduce_ex__=_decoded_reduce_ex,
        __module__=cls.__module__,
        __qualname__=cls.__qualname__,
        _plan=plan,
    )
    return type(cls.__name__, (cls,), namespace)


class ListResult:
    """A list-shaped result: ``to_pandas()`` and ``to_polars()`` convert the list that the
    class names in ``_rows``, one row per item (see :mod:`paperlens.pandas`)."""

    #: The name of the list field converted to rows.
    _rows: ClassVar[str]

    def to_pandas(self) -> Any:
        """The items as a pandas DataFrame, one row per item (needs the ``pandas`` extra)."""
        from paperlens.pandas import to_pandas

        return to_pandas(self)

    def to_polars(self) -> Any:
        """The items as a polars DataFrame, one row per item (needs the ``polars`` extra)."""
        from paperlens.pandas import to_polars

        return to_polars(self)


class _Plan:
    """How to build one class from wire dicts, computed once per class."""

    def __init__(self, cls: type[Model]) -> None:
        self.cls = cls
        self._undecoded: type[Model] | None = None
        hints = typing.get_type_hints(cls)
        fields = dataclasses.fields(cls)
        self.names = frozenset(f.name for f in fields)
        self.is_response = "request_id" in self.names
        self.factories = [(f.name, f.default_factory) for f in fields if f.default_factory is not dataclasses.MISSING]
        convert = [(f.name, _converter(hints[f.name], f.name, cls.__name__)) for f in fields]
        convert += [(name, _int64) for name in cls._int64]
        self.convert = [(name, c) for name, c in convert if c is not None]

    def undecoded(self) -> type[Model]:
        """The subclass of undecoded rows of this class."""
        if self._undecoded is None:
            self._undecoded = _undecoded_class(self.cls, self)
        return self._undecoded


def _plan(cls: type[Model]) -> _Plan:
    plan = cls.__dict__.get("_plan")
    if plan is None:
        plan = _Plan(cls)
        cls._plan = plan
    return plan


def _converter(hint: Any, name: str, owner: str) -> Any:
    """A function turning the wire value of a nested resource field into typed instances."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType) and len(args) == 1:
        return _converter(args[0], name, owner)
    if origin is list and args and _is_model(args[0]):
        item: type[Model] = args[0]
        build = item._from_wire

        def models(value: Any, request_id: str | None) -> list[Any]:
            if type(value) is not list:
                raise ResponseDecodeError(
                    f"{owner}.{name} must be a list, got {type(value).__name__}", request_id=request_id
                )
            # The rows of a large page arrive undecoded: made here, without a call per row.
            undecoded, new, set_state = _plan(item).undecoded(), object.__new__, _DICT.__set__
            rows = []
            for v in value:
                if type(v) is bytes:
                    row = new(undecoded)
                    set_state(row, {_RAW: (v, request_id)})
                else:
                    row = build(v, request_id)
                rows.append(row)
            return rows

        return models
    if _is_model(hint):
        return hint._from_wire
    return None


def _is_model(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, Model)


def _int64(value: Any, request_id: str | None) -> Any:
    """int64 values may arrive as JSON strings; they become ints."""
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            raise ResponseDecodeError(f"expected an integer, got {value!r}", request_id=request_id) from None
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
