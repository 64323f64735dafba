"""The base of every result type: frozen dataclasses built straight from wire dicts."""

from __future__ import annotations

import copy
import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from paperlens.errors import ResponseDecodeError

M = TypeVar("M", bound="Model")
_REPR_TEXT = 60


@dataclass(frozen=True, kw_only=True, repr=False)
class Model:
    """A resource of the spec. Fields are the wire fields (``None`` when absent); properties
    the spec does not name are kept in ``extra``; ``to_dict()`` gives the wire JSON back."""

    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    _plan: ClassVar[_Plan | None] = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON object this result was decoded from (a deep copy)."""
        return copy.deepcopy(self.__dict__["_raw"])

    def __repr__(self) -> str:
        shown = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None or f.name in ("extra", "request_id"):
                continue
            text = repr(value)
            if len(text) > _REPR_TEXT:
                text = text[: _REPR_TEXT - 3] + "..."
            shown.append(f"{f.name}={text}")
        return f"{type(self).__name__}({', '.join(shown)})"

    @classmethod
    def _from_wire(cls: type[M], raw: Any, request_id: str | None = None) -> M:
        if not isinstance(raw, dict):
            raise ResponseDecodeError(
                f"expected a JSON object for {cls.__name__}, got {type(raw).__name__}",
                request_id=request_id,
            )
        plan = cls.__dict__.get("_plan") or _Plan.of(cls)
        values = dict(plan.defaults)
        extra = {}
        for key, value in raw.items():
            if key in plan.names:
                convert = plan.convert.get(key)
                values[key] = convert(value, request_id) if convert is not None and value is not None else value
            else:
                extra[key] = value
        for name, factory in plan.factories.items():
            if values[name] is None:
                values[name] = factory()
        values["extra"] = extra
        values["_raw"] = raw
        if request_id is not None:
            values["request_id"] = request_id
        obj = object.__new__(cls)
        obj.__dict__.update(values)
        return obj


@dataclass(frozen=True, kw_only=True, repr=False)
class Response(Model):
    """A whole response; carries the request id of the call that produced it."""

    request_id: str | None = field(default=None, compare=False)


class _Plan:
    """How to build one class from wire dicts, computed once per class."""

    def __init__(self, cls: type[Model]) -> None:
        hints = typing.get_type_hints(cls)
        fields = [f for f in dataclasses.fields(cls) if f.name != "extra"]
        self.names = frozenset(f.name for f in fields)
        self.defaults = {f.name: None if f.default is dataclasses.MISSING else f.default for f in fields}
        self.factories = {f.name: f.default_factory for f in fields if f.default_factory is not dataclasses.MISSING}
        self.convert: dict[str, Any] = {}
        for f in fields:
            convert = _converter(hints[f.name], f.name, cls.__name__)
            if convert is not None:
                self.convert[f.name] = convert

    @staticmethod
    def of(cls: type[Model]) -> _Plan:
        plan = _Plan(cls)
        cls._plan = plan
        return plan


def _converter(hint: Any, name: str, owner: str) -> Any:
    """A function turning the wire value of a field into its Python value, or None if as is."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType) and len(args) == 1:
        return _converter(args[0], name, owner)
    if origin is list and args and _is_model(args[0]):
        item = args[0]

        def models(value: Any, request_id: str | None) -> list[Any]:
            if not isinstance(value, list):
                raise ResponseDecodeError(
                    f"{owner}.{name} must be a list, got {type(value).__name__}", request_id=request_id
                )
            return [item._from_wire(v) for v in value]

        return models
    if _is_model(hint):
        return lambda value, request_id: hint._from_wire(value)
    if hint is int:
        return _int64
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
