"""The base of every result type: frozen dataclasses over the wire JSON.

An instance's ``__dict__`` is the decoded wire object itself (no copy): fields are plain
attribute reads from it, and properties the spec does not name stay in it too (``extra``).
The instance's own state (request id, which list fields were filled in, the row's JSON
text) lives in slots, out of the wire's reach, and every method is a data descriptor, so
no wire name (``to_dict``, ``extra``, ``request_id``...) can hide a method or attribute.
The few class attributes that cannot be data descriptors (``__module__``, ``__doc__``,
``__new__``, ``__getattribute__``...) are protected the other way round: a wire property
of such a name is moved out of ``__dict__`` into a slot, and ``extra`` and ``to_dict()``
put it back.

Liberal in what it accepts: a field that is absent or null reads as ``None`` (a list of
resources as ``[]``), an integer field may arrive as a digit string and reads as an
``int``, nested resources are typed in place (a value that is not a JSON object where one
resource is expected is kept as sent: the contract shows some of those fields only in some
answers, and elsewhere they are extra properties of any shape; a list of resources stays
strict), and ``to_dict()`` gives back exactly the wire JSON (those digit strings as ints,
explicit nulls and extra properties included).

The rows of a large page arrive from the Rust core undecoded, as a ``Row`` (their JSON
text and where each property is in it, see ``src/rows.rs``): such an instance belongs to a
hidden subclass whose fields are ``LazyField`` descriptors. Reading a field decodes that
value alone and keeps it in the instance ``__dict__``, where every later read finds it as an
ordinary attribute; anything that needs the whole object (``__dict__``, ``extra``, ``==``,
pickling) decodes the rest and turns the instance into its plain class, keeping the values
already read. The text is kept: ``to_dict()`` of such a row decodes it afresh instead of
copying objects.
"""

from __future__ import annotations

import copy
import dataclasses
import gc
import math
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from paperlens._paperlens import LazyField, Row, columns, undecoded_rows
from paperlens.base import _docstrings as docstrings
from paperlens.errors import ResponseDecodeError
from paperlens.results._result import Listing, Result, plain

M = TypeVar("M", bound="Model")
_REPR_TEXT = 60
#: The list fields filled in with ``[]``, each with whether the wire had it as null (else absent).
_NOTHING: tuple[tuple[str, bool], ...] = ()


class _Sealed:
    """A class attribute as a data descriptor: found before the instance ``__dict__`` (the
    wire object), so that no wire name hides it from ``getattr`` (pickle, copy, dataclasses,
    pandas and the user all look attributes up on the instance)."""

    __slots__ = ("__wrapped__", "bind")

    def __init__(self, value: Any) -> None:
        self.__wrapped__ = value
        self.bind = hasattr(value, "__get__")

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        value = self.__wrapped__
        return value.__get__(obj, owner) if self.bind else value

    def __set__(self, obj: Any, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to {type(obj).__name__} attributes")


#: Class attributes that only the class itself reads (never through an instance), left as they are.
_CLASS_ONLY = frozenset(
    {
        "__module__",
        "__qualname__",
        "__doc__",
        "__annotations__",
        "__dict__",
        "__weakref__",
        "__slots__",
        "__new__",
        "__init_subclass__",
        "__class_getitem__",
        "__orig_bases__",
        "__parameters__",
        "__abstractmethods__",
        "__firstlineno__",
        "__static_attributes__",
        "_plan",
    }
)


#: Attributes of ``object`` left as they are: sealing ``__getattribute__`` would send every
#: attribute read through Python code (a wire property of that name is moved aside instead).
_OBJECT_KEPT = frozenset({"__getattribute__"})


def _seal(cls: type[Model], fields: frozenset[str]) -> None:
    """Turns every attribute ``cls`` has (its own and inherited, ``object``'s included,
    fields aside) into a data descriptor on ``cls``."""
    resolved: dict[str, Any] = {}
    for klass in cls.__mro__:
        for name, value in vars(klass).items():
            if klass is not object or name not in _OBJECT_KEPT:
                resolved.setdefault(name, value)
    for name, value in resolved.items():
        if name in fields or name in _CLASS_ONLY or value is None or isinstance(value, _Sealed):
            continue
        if _is_data_descriptor(value):
            continue  # properties, slots
        setattr(cls, name, _Sealed(value))


def _is_data_descriptor(value: Any) -> bool:
    return hasattr(type(value), "__set__") or hasattr(type(value), "__delete__")


def _shadowable(cls: type[Model], fields: frozenset[str]) -> frozenset[str]:
    """The attributes of (sealed) ``cls`` that a key of the instance ``__dict__`` would hide:
    those that are not data descriptors."""
    names = set()
    for name in dir(cls):
        if name in fields:
            continue
        value = next(vars(klass)[name] for klass in cls.__mro__ if name in vars(klass))
        if not _is_data_descriptor(value):
            names.add(name)
    return frozenset(names)


class _State(Result):
    """The slots of a result: its own state, out of the wire's reach (not dataclass fields)."""

    __slots__ = ("__dict__", "_absent", "_moved", "_raw", "_request_id")
    #: The list fields filled in with ``[]`` (see ``_NOTHING``).
    _absent: tuple[tuple[str, bool], ...]
    #: The wire properties moved out of ``__dict__`` (see the module's docstring), or ``None``.
    _moved: dict[str, Any] | None
    #: The JSON text of a row not decoded yet (or kept for ``to_dict()``), else ``None``.
    _raw: Row | None
    _request_id: str | None


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Model(_State):
    """A resource of the spec. Fields are the wire fields (``None`` when absent);
    properties the spec does not name are in ``extra``; ``to_dict()`` gives the JSON back.

    Result types are frozen dataclasses made with ``eq=False``: equality and hashing, those of
    a dataclass (the fields in order), are written once here rather than compiled per class
    (``dataclasses`` compiles each function it makes: a fifth of ``import paperlens``)."""

    __slots__ = ()
    _plan: ClassVar[_Plan | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # A result type documents its bases' fields too, in their words: its ``Attributes:``
        # lists theirs first, as a dataclass orders the fields.
        super().__init_subclass__(**kwargs)
        if cls.__doc__:
            bases = [base.__doc__ or "" for base in cls.__bases__]
            cls.__doc__ = docstrings.inherited(cls.__doc__, bases, "Attributes:")

    def __post_init__(self) -> None:
        _plan(type(self))
        _set_state(self, None, _NOTHING, None)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        names = _plan(type(self)).order
        return [getattr(self, n) for n in names] == [getattr(other, n) for n in names]

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in _plan(type(self)).order))

    @property
    def extra(self) -> dict[str, Any]:
        """Properties of the answer that the spec does not name (kept, never dropped)."""
        names = _plan(type(self)).names
        extra = {k: v for k, v in self.__dict__.items() if k not in names}
        if self._moved is not None:
            extra.update(self._moved)
        return extra

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this result, as it came (a fresh copy; integer strings as ints)."""
        if self._raw is not None:
            return _plan(type(self)).row_to_dict(self)
        wire = {k: plain(v) for k, v in self.__dict__.items()}
        for name, was_null in self._absent:
            if was_null:
                wire[name] = None
            else:
                del wire[name]
        if self._moved is not None:
            wire.update({k: plain(v) for k, v in self._moved.items()})
        return wire

    def __repr__(self) -> str:
        shown = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            text = repr(value)
            if len(text) > _REPR_TEXT:
                text = text[: _REPR_TEXT - 3] + "..."
            shown.append(f"{f.name}={text}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def _repr_html_(self) -> str:
        """The result as HTML for Jupyter: a compact table of its rows (list-shaped results)
        or of its fields, every text escaped (see :mod:`paperlens.results._display`); terminals keep
        ``repr()``."""
        from paperlens.results._display import model_html

        return model_html(self)

    def __reduce_ex__(self, protocol: typing.SupportsIndex) -> Any:
        return _restore, (type(self), self.__dict__, self._absent, self._raw, self._request_id, self._moved)

    def __copy__(self: M) -> M:
        return _restore(type(self), self.__dict__, self._absent, self._raw, self._request_id, self._moved)

    def __deepcopy__(self: M, memo: dict[int, Any]) -> M:
        state, moved = copy.deepcopy((self.__dict__, self._moved), memo)
        return _restore(type(self), state, self._absent, self._raw, self._request_id, moved)

    @classmethod
    def _field_names(cls) -> frozenset[str]:
        return field_names(cls)

    @classmethod
    def _wire_columns(cls, items: list[Any], strings: frozenset[str]) -> dict[str, Any] | None:
        return wire_columns(cls, items, strings)

    @classmethod
    def _from_wire(cls: type[M], raw: Any, request_id: str | None = None) -> M:
        if type(raw) is Row:
            return _undecoded(cls, raw, request_id)
        absent, moved = _typed(cls, raw, request_id)
        obj = object.__new__(cls)
        _DICT.__set__(obj, raw)
        _set_state(obj, None, absent, request_id)
        if moved is not None:
            _set_slot(obj, "_moved", moved)
        return obj


_set_slot = object.__setattr__


def _set_state(obj: Model, raw: Row | None, absent: tuple[tuple[str, bool], ...], request_id: str | None) -> None:
    _set_slot(obj, "_raw", raw)
    _set_slot(obj, "_absent", absent)
    _set_slot(obj, "_request_id", request_id)
    _set_slot(obj, "_moved", None)


def _restore(
    cls: type[M],
    state: dict[str, Any],
    absent: tuple[tuple[str, bool], ...],
    raw: Row | None,
    request_id: str | None,
    moved: dict[str, Any] | None = None,
) -> M:
    _plan(cls)
    obj = object.__new__(cls)
    _DICT.__set__(obj, dict(state))
    _set_state(obj, raw, absent, request_id)
    _set_slot(obj, "_moved", None if moved is None else dict(moved))
    return obj


def _typed(
    cls: type[Model], raw: Any, request_id: str | None
) -> tuple[tuple[tuple[str, bool], ...], dict[str, Any] | None]:
    """Types the wire dict in place (nested resources, integer strings, absent lists) and
    takes out the properties that would hide a class attribute; returns how each filled-in
    list field was on the wire, and those properties (``None``: none)."""
    if type(raw) is not dict:
        raise ResponseDecodeError(
            f"expected a JSON object for {cls.__name__}, got {type(raw).__name__}", request_id=request_id
        )
    plan = cls.__dict__.get("_plan") or _plan(cls)
    for name in plan.ints:
        if type(raw.get(name)) in _NOT_INT:
            raw[name] = _int(raw[name], request_id)
    for name, convert in plan.nested_convert:
        value = raw.get(name)
        if value is not None:
            raw[name] = convert(value, request_id)
    absent = _NOTHING
    for name in plan.lists:
        if raw.get(name) is not None:
            continue
        absent = (*absent, (name, name in raw))
        raw[name] = []
    if raw.keys().isdisjoint(plan.shadowable):
        return absent, None
    return absent, {name: raw.pop(name) for name in list(raw) if name in plan.shadowable}


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Response(Model):
    """A whole response; carries the request id of the call that produced it."""

    __slots__ = ()

    @property
    def request_id(self) -> str | None:
        """The ``X-Request-ID`` of the call (one per logical call, across its retries)."""
        return self._request_id

    def _failure(self) -> Exception | None:
        """An error that a successful status still reports (see ``RelationsPage``), if any."""
        return None

    def _partial_warning(self) -> str | None:
        """The text of the ``PartialResultWarning`` this answer calls for, if any: only an
        answer whose contract has ``partial`` and ``truncated`` flags can be partial or
        truncated (see ``SchemaResponse``); elsewhere such a property is an extra one and means
        nothing to the SDK."""
        return None


#: The instance dict itself, past the ``__dict__`` property of undecoded rows.
_DICT = _State.__dict__["__dict__"]


def _undecoded(cls: type[M], raw: Row, request_id: str | None) -> M:
    # The hidden subclass of cls: an M.
    obj = typing.cast(M, object.__new__(_plan(cls).undecoded()))
    _set_state(obj, raw, _NOTHING, request_id)
    return obj


def _decode(obj: Model) -> None:
    """Turns an undecoded row into a plain instance of its class (once; a no-op after),
    keeping the values of the fields read already."""
    cls = type(obj)
    plan = cls.__dict__.get("_plan")
    if plan is None or not plan.is_hidden(cls):
        return
    plain = cls.__mro__[1]
    raw, request_id = typing.cast(Row, obj._raw), obj._request_id
    data = raw.loads()
    absent, moved = _typed(plain, data, request_id)
    data.update(_DICT.__get__(obj))
    _DICT.__set__(obj, data)
    _set_slot(obj, "_absent", absent)
    _set_slot(obj, "_moved", moved)
    _set_slot(obj, "__class__", plain)


def _row_to_dict_of(plan: _Plan) -> Callable[[Model], dict[str, Any]]:
    """``to_dict()`` of a result of ``plan``'s class that still has its row's JSON text:
    decoded afresh, its integers sent as strings made ints (one core call a row when the class
    has no nested resources, which ``normalised`` then walks)."""
    # Only JSON objects are left undecoded (see ``src/decode.rs``).
    if plan.nested:

        def nested_to_dict(self: Model) -> dict[str, Any]:
            raw = typing.cast(Row, self._raw)
            return typing.cast(dict[str, Any], plan.normalised(raw.loads(), self._request_id))

        return nested_to_dict
    ints = plan.ints

    def to_dict(self: Model) -> dict[str, Any]:
        return self._raw.loads(ints, _int, self._request_id)  # type: ignore[union-attr]

    return to_dict


def _read_whole(obj: Model | None, owner: type[Model], name: str) -> Any:
    """A field of an undecoded row read by decoding the whole row (see ``LazyField``), or
    read on the class."""
    if obj is None:
        return getattr(owner.__mro__[1], name)
    _decode(obj)
    return getattr(obj, name)


def _decoded_dict(self: Model) -> dict[str, Any]:
    _decode(self)
    return typing.cast(dict[str, Any], _DICT.__get__(self))


def _decoded_eq(self: Model, other: object) -> bool:
    _decode(self)
    return self == other


def _decoded_reduce_ex(self: Model, protocol: typing.SupportsIndex) -> Any:
    _decode(self)
    return self.__reduce_ex__(protocol)


def _undecoded_class(cls: type[Model], plan: _Plan) -> type[Model]:
    converters = {**dict(plan.nested_convert), **dict.fromkeys(plan.ints, _int)}
    namespace: dict[str, Any] = {
        name: LazyField(name, name in plan.lists, converters.get(name), name in plan.ints, _read_whole)
        for name in plan.names
    }
    namespace.update(
        # Built anew (``dataclasses.replace``, ``copy.replace``): a plain instance.
        __new__=lambda _cls, *args, **kwargs: cls(*args, **kwargs),
        __slots__=(),
        __dict__=property(_decoded_dict),
        __eq__=_decoded_eq,
        __hash__=cls.__hash__,
        __reduce_ex__=_decoded_reduce_ex,
        # While a row is undecoded its instance dict holds fields only (what LazyField read),
        # so a plain function is safe here (no wire name can hide it) and skips the seal.
        to_dict=plan.row_to_dict,
        __module__=cls.__module__,
        __qualname__=cls.__qualname__,
        _plan=plan,
    )
    return type(cls.__name__, (cls,), namespace)


class ListResult(Listing):
    """A list-shaped result: ``to_pandas()`` and ``to_polars()`` convert the list that the
    class names in ``_rows``, one row per item (see :mod:`paperlens.pandas`)."""

    __slots__ = ()

    def to_pandas(self) -> Any:
        """The items as a pandas DataFrame, one row per item (needs the ``pandas`` extra)."""
        from paperlens.results.pandas import to_pandas

        return to_pandas(self)

    def to_polars(self) -> Any:
        """The items as a polars DataFrame, one row per item (needs the ``polars`` extra)."""
        from paperlens.results.pandas import to_polars

        return to_polars(self)


class _Plan:
    """How to build one class from wire dicts, computed once per class."""

    def __init__(self, cls: type[Model]) -> None:
        self.cls = cls
        self._undecoded: type[Model] | None = None
        hints = typing.get_type_hints(cls)
        fields = dataclasses.fields(cls)
        self.names = frozenset(f.name for f in fields)
        #: The field names in order (equality and hashing compare them so).
        self.order = tuple(f.name for f in fields)
        _seal(cls, self.names)
        #: Wire names moved out of the instance ``__dict__`` (see the module's docstring).
        self.shadowable = _shadowable(cls, self.names)
        self.lists = tuple(f.name for f in fields if f.default_factory is not dataclasses.MISSING)
        #: Whether a field has a default other than ``None`` (``[]`` aside).
        self.defaults = any(f.default is not None and f.default is not dataclasses.MISSING for f in fields)
        convert = [(f.name, _converter(hints[f.name], f.name, cls.__name__)) for f in fields]
        self.ints = tuple(name for name, c in convert if c is _int)
        self.nested_convert = tuple((name, c) for name, c in convert if c is not None and c is not _int)
        #: Each field holding resources: name, resource type, whether a list of them.
        self.nested = tuple(
            (f.name, model, typing.get_origin(_members(hints[f.name])[0]) is list)
            for f in fields
            if (model := _model_of(hints[f.name])) is not None
        )
        #: ``to_dict()`` of an instance that still has its row's text.
        self.row_to_dict = _row_to_dict_of(self)

    def undecoded(self) -> type[Model]:
        """The subclass of undecoded rows of this class."""
        if self._undecoded is None:
            self._undecoded = _undecoded_class(self.cls, self)
        return self._undecoded

    def is_hidden(self, cls: type[Model]) -> bool:
        return cls is self._undecoded

    def normalised(self, wire: Any, request_id: str | None) -> Any:
        """A freshly decoded wire object with its integer strings turned into ints, nested
        resources included (what ``to_dict()`` returns)."""
        if type(wire) is not dict:
            return wire
        for name in self.ints:
            value = wire.get(name)
            if type(value) in _NOT_INT:
                wire[name] = _int(value, request_id)
        for name, nested, many in self.nested:
            value = wire.get(name)
            if many and type(value) is list:
                plan = _plan(nested)
                wire[name] = [plan.normalised(v, request_id) for v in value]
            elif not many and type(value) is dict:
                wire[name] = _plan(nested).normalised(value, request_id)
        return wire


def _plan(cls: type[Model]) -> _Plan:
    plan = cls.__dict__.get("_plan")
    if plan is None:
        plan = _Plan(cls)
        cls._plan = plan
    return plan


def _members(hint: Any) -> list[Any]:
    """The types of a hint, ``None`` left out (``X | None`` gives ``[X]``)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return [a for a in typing.get_args(hint) if a is not type(None)]
    return [hint]


def _model_of(hint: Any) -> type[Model] | None:
    """The resource type of a field typed ``X`` or ``list[X]`` (``None`` allowed), if any."""
    members = _members(hint)
    if len(members) != 1:
        return None
    member = members[0]
    if typing.get_origin(member) is list:
        args = typing.get_args(member)
        member = args[0] if args else None
    return member if _is_model(member) else None


def _converter(hint: Any, name: str, owner: str) -> Any:
    """A function turning the wire value of a field into its typed value, or ``None`` when
    the value stays as it came."""
    members = _members(hint)
    if int in members and str not in members and bool not in members:
        return _int
    if len(members) != 1:
        return None
    member = members[0]
    if typing.get_origin(member) is list and typing.get_args(member) and _is_model(typing.get_args(member)[0]):
        item: type[Model] = typing.get_args(member)[0]
        build = item._from_wire

        def models(value: Any, request_id: str | None) -> list[Any]:
            if type(value) is not list:
                raise ResponseDecodeError(
                    f"{owner}.{name} must be a list, got {type(value).__name__}", request_id=request_id
                )
            # The rows of a large page arrive undecoded: made in one call.
            return undecoded_rows(_plan(item).undecoded(), value, request_id, _NOTHING, build)

        return models
    if _is_model(member):
        build_one = member._from_wire

        def model(value: Any, request_id: str | None) -> Any:
            # Typed when an object; anything else is kept as sent (see the module's docstring).
            return build_one(value, request_id) if type(value) is dict else value

        return model
    return None


def _is_model(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, Model)


#: The types of an integer field's wire values that :func:`_int` turns into ints (or refuses).
_NOT_INT = frozenset((str, float))


def _int(value: Any, request_id: str | None) -> Any:
    """Integers may arrive as JSON strings of digits, or as numbers with an exponent or a zero
    fraction (``1e3``, ``12.0``); they become ints. A number too large for a float (``1e400``
    reads as infinity) is the service's error; another fraction (``12.5``) is kept as sent,
    as any odd value is (an output keeps it in ``extra_json``)."""
    if type(value) is float:
        if value.is_integer():
            return int(value)
        if math.isfinite(value):
            return value
        raise ResponseDecodeError(
            f"expected an integer, got {value!r} (request_id={request_id})", request_id=request_id
        )
    if type(value) is str:
        try:
            return int(value)
        except ValueError:
            raise ResponseDecodeError(f"expected an integer, got {value!r}", request_id=request_id) from None
    return value


def wire_columns(cls: type[Model], items: list[Any], strings: frozenset[str] = frozenset()) -> dict[str, Any] | None:
    """The wire properties of ``items`` (instances of ``cls``) as columns decoded straight from
    their rows' JSON text, ``{name: values}`` in first-seen order, with the field types'
    conversions (integer strings, ``[]`` for a missing list); a column named in ``strings``
    whose values are all strings or null comes as Arrow buffers, ``(null_count, (validity,
    offsets, data))`` of a ``large_string`` array. ``None`` unless every item still has its
    text and ``cls`` has no nested resources (typed row by row) and no default other than
    ``None`` (a column cannot tell an absent value from a null one)."""
    plan = _plan(cls)
    if not items or plan.nested or plan.defaults:
        return None
    hidden = plan.undecoded()
    rows = []
    for item in items:
        raw = item._raw if type(item) is cls or type(item) is hidden else None
        if raw is None:
            return None
        rows.append(raw)
    # JSON values hold no reference cycles: collecting while hundreds of thousands of them
    # are made would only walk the objects alive again and again (a third of the time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        wire = columns(rows, strings)
    finally:
        if collecting:
            gc.enable()
    if wire is None:
        return None
    for name in plan.ints:
        values = wire.get(name)
        if values is not None and not _NOT_INT.isdisjoint(map(type, values)):
            wire[name] = [_int(v, item._request_id) for v, item in zip(values, items, strict=True)]
    for name in plan.lists:
        values = wire.get(name)
        wire[name] = [[] for _ in items] if values is None else [[] if v is None else v for v in values]
    return wire


def field_names(cls: type[Model]) -> frozenset[str]:
    """The names of the fields ``cls`` declares."""
    return _plan(cls).names
