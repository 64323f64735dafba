"""A function's parameters as a tool's input: JSON Schema from the typed signature and the
docstring's ``Args:``, and the JSON arguments a model sends checked and converted back to
the Python values the function takes.

The schema is derived, never written twice: each parameter's annotation gives its type
(``str | None`` is optional, ``list[str]`` an array, ``tuple[str, int]`` an array of two
items, ``dict[str, Any]`` an object), its default makes it optional, its ``Args:`` entry
its description, and its bounds come from ``Annotated[int, Range(1, 100)]`` /
``Choices(...)`` metadata or from the bounds the docstring states (``1-100``,
``1-500 characters``, ``from 1``), the form every operation of the contract documents
them in.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from paperlens.base import _docstrings as docstrings
from paperlens.errors import ValidationError

__all__ = ["Choices", "Parameter", "Range", "Signature", "signature_of"]

_INT_RANGE = re.compile(r"\b(\d[\d_]*)-(\d[\d_]*)\b")
_TEXT_RANGE = re.compile(r"\b(\d[\d_]*)-(\d[\d_]*) characters\b")
_FROM = re.compile(r"\bfrom (\d+)\b")
_COUNT_RANGE = re.compile(r"^(\d+)-(\d+)\b")
_AT_MOST = re.compile(r"\bat most (\d+)\b")
_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


@dataclass(frozen=True)
class Range:
    """``Annotated`` metadata: an integer's (or a string's length) least and greatest values."""

    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True)
class Choices:
    """``Annotated`` metadata: the values a string may take (``case_insensitive``: in any case)."""

    values: tuple[str, ...]
    case_insensitive: bool = False


@dataclass(frozen=True)
class Parameter:
    name: str
    annotation: Any
    required: bool
    default: Any
    description: str
    schema: dict[str, Any]


@dataclass(frozen=True)
class Signature:
    """The parameters of a function as a tool takes them; ``summary``: the docstring's text
    before its sections."""

    summary: str
    parameters: tuple[Parameter, ...]

    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments object."""
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {p.name: p.schema for p in self.parameters},
            "additionalProperties": False,
        }
        required = [p.name for p in self.parameters if p.required]
        if required:
            schema["required"] = required
        return schema

    def with_parameter(self, name: str, annotation: Any, default: Any, description: str) -> Signature:
        """This signature with one more optional parameter (bounds read from ``description``)."""
        schema = {**_schema(annotation, description), "description": description, "default": default}
        return Signature(
            self.summary, (*self.parameters, Parameter(name, annotation, False, default, description, schema))
        )

    def without(self, *names: str) -> Signature:
        """This signature without the parameters ``names``."""
        return Signature(self.summary, tuple(p for p in self.parameters if p.name not in names))

    def bind(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """``arguments`` (JSON values) as keyword arguments of the function: checked against the
        schema, JSON arrays turned into tuples where a tuple is expected; a null or absent
        optional one is left out (its default applies). Raises ``ValidationError`` naming the
        parameter and the rule."""
        given = dict(arguments or {})
        known = {p.name for p in self.parameters}
        for name in given:
            if name not in known:
                raise ValidationError(
                    f"{name}: unknown parameter (expected one of: {', '.join(sorted(known))})",
                    param=name,
                    rule="unknown parameter",
                )
        bound: dict[str, Any] = {}
        for p in self.parameters:
            value = given.get(p.name)
            if value is None:
                if p.required:
                    raise ValidationError(f"{p.name}: required", param=p.name, rule="required")
                continue
            bound[p.name] = _convert(p.annotation, value, p.name)
            _check_bounds(p.schema, bound[p.name], p.name)
        return bound


def signature_of(
    function: Callable[..., Any], *, skip: int = 0, namespace: Mapping[str, Any] | None = None
) -> Signature:
    """The tool signature of ``function``, leaving out its first ``skip`` parameters (``self``);
    ``namespace`` resolves names its string annotations use beyond its module's globals."""
    hints = typing.get_type_hints(function, localns=dict(namespace or {}), include_extras=True)
    doc = inspect.getdoc(function) or ""
    summary, described = docstrings.summary(doc), docstrings.arguments(doc)
    parameters = []
    for p in list(inspect.signature(function).parameters.values())[skip:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        annotation = hints.get(p.name, Any)
        description = described.get(p.name, "")
        schema = _schema(annotation, description)
        if description:
            schema["description"] = description
        required = p.default is p.empty
        if not required and p.default is not None:
            schema["default"] = p.default
        parameters.append(Parameter(p.name, annotation, required, None if required else p.default, description, schema))
    return Signature(summary, tuple(parameters))


def _strip_optional(annotation: Any) -> Any:
    if _is_union(annotation):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        return members[0] if len(members) == 1 else typing.Union[tuple(members)]  # noqa: UP007
    return annotation


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _schema(annotation: Any, description: str) -> dict[str, Any]:
    """The JSON Schema of one parameter."""
    annotation = _strip_optional(annotation)
    metadata: tuple[Any, ...] = ()
    if typing.get_origin(annotation) is typing.Annotated:
        annotation, *rest = typing.get_args(annotation)
        metadata = tuple(rest)
    schema = _type_schema(_strip_optional(annotation))
    _documented_range(schema, description)
    for item in metadata:
        if isinstance(item, Choices):
            schema["enum" if not item.case_insensitive else "examples"] = list(item.values)
        elif isinstance(item, Range):
            _set_range(schema, item.minimum, item.maximum)
    return schema


def _set_range(schema: dict[str, Any], minimum: int | None, maximum: int | None) -> None:
    low, high = {"string": ("minLength", "maxLength"), "array": ("minItems", "maxItems")}.get(
        schema.get("type", ""), ("minimum", "maximum")
    )
    if minimum is not None:
        schema[low] = minimum
    if maximum is not None:
        schema[high] = maximum


def _documented_range(schema: dict[str, Any], description: str) -> None:
    """The bounds a contract docstring states: ``1-100`` of an integer, ``1-500 characters``
    of a string, ``from 1``; ``1-5 groups`` or ``at most 100`` of an array."""
    if schema.get("type") == "integer":
        if match := _INT_RANGE.search(description):
            _set_range(schema, int(match.group(1)), int(match.group(2)))
        elif match := _FROM.search(description):
            _set_range(schema, int(match.group(1)), None)
    elif schema.get("type") == "string" and (match := _TEXT_RANGE.search(description)):
        _set_range(schema, int(match.group(1)), int(match.group(2)))
    elif schema.get("type") == "array":
        if match := _COUNT_RANGE.search(description):
            _set_range(schema, int(match.group(1)), int(match.group(2)))
        elif match := _AT_MOST.search(description):
            _set_range(schema, None, int(match.group(1)))


def _type_schema(annotation: Any) -> dict[str, Any]:
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if _is_union(annotation):
        options: list[dict[str, Any]] = []
        for member in args:
            schema = _type_schema(member)
            if schema not in options:
                options.append(schema)
        return options[0] if len(options) == 1 else {"anyOf": options}
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (list, Iterable, typing.Sequence) or annotation is list:
        return {"type": "array", "items": _type_schema(args[0]) if args else {}}
    if origin is tuple or _is_named_tuple(annotation):
        items = _tuple_items(annotation)
        return {
            "type": "array",
            "prefixItems": [_type_schema(a) for a in items],
            "minItems": len(items),
            "maxItems": len(items),
        }
    if origin is dict or annotation is dict:
        return {"type": "object"}
    return {}


def _is_named_tuple(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, tuple) and hasattr(annotation, "_fields")


def _tuple_items(annotation: Any) -> list[Any]:
    if _is_named_tuple(annotation):
        hints = typing.get_type_hints(annotation)
        return [hints.get(name, Any) for name in annotation._fields]
    return list(typing.get_args(annotation))


def _convert(annotation: Any, value: Any, name: str) -> Any:
    """``value`` as ``annotation`` wants it, or ``ValidationError``."""
    annotation = _strip_optional(annotation)
    if typing.get_origin(annotation) is typing.Annotated:
        annotation, *metadata = typing.get_args(annotation)
        value = _convert(annotation, value, name)
        for item in metadata:
            if isinstance(item, Choices):
                _check_choice(item, value, name)
        return value
    if annotation is Any:
        return value
    if annotation in _JSON_TYPES:
        return _scalar(annotation, value, name)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if _is_union(annotation):
        errors = []
        for member in args:
            try:
                return _convert(member, value, name)
            except ValidationError as error:
                errors.append(error.rule)
        raise _wrong(name, " or ".join(dict.fromkeys(errors)), value)
    if origin is typing.Literal:
        if value not in args:
            raise _wrong(name, f"one of {', '.join(map(repr, args))}", value)
        return value
    if origin in (list, Iterable, typing.Sequence) or annotation is list:
        if not isinstance(value, list):
            raise _wrong(name, "an array", value)
        return [_convert(args[0], item, f"{name}[{i}]") if args else item for i, item in enumerate(value)]
    if origin is tuple or _is_named_tuple(annotation):
        items = _tuple_items(annotation)
        if not isinstance(value, (list, tuple)) or len(value) != len(items):
            raise _wrong(name, f"an array of {len(items)} items", value)
        return tuple(_convert(a, item, f"{name}[{i}]") for i, (a, item) in enumerate(zip(items, value, strict=True)))
    if origin is dict or annotation is dict:
        if not isinstance(value, dict):
            raise _wrong(name, "an object", value)
        return value
    return value


def _scalar(kind: type, value: Any, name: str) -> Any:
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return value
    expected = _JSON_TYPES[kind]
    return _raise(_wrong(name, f"{'an' if expected[0] in 'aeiou' else 'a'} {expected}", value))


def _check_choice(choices: Choices, value: Any, name: str) -> None:
    allowed = [v.lower() for v in choices.values] if choices.case_insensitive else list(choices.values)
    given = value.lower() if choices.case_insensitive and isinstance(value, str) else value
    if given not in allowed:
        raise _wrong(name, f"one of {', '.join(map(repr, choices.values))}", value)


def _check_bounds(schema: dict[str, Any], value: Any, name: str) -> None:
    size = len(value) if isinstance(value, (str, list)) else value
    if not isinstance(size, (int, float)) or isinstance(size, bool):
        return
    bounds: dict[type, tuple[str, str, str]] = {
        str: (" characters", "minLength", "maxLength"),
        list: (" items", "minItems", "maxItems"),
    }
    unit, low_key, high_key = bounds.get(type(value), ("", "minimum", "maximum"))
    low, high = schema.get(low_key), schema.get(high_key)
    if low is not None and size < low:
        raise _wrong(name, f"at least {low}{unit}", value)
    if high is not None and size > high:
        raise _wrong(name, f"at most {high}{unit}", value)


def _wrong(name: str, expected: str, value: Any) -> ValidationError:
    shown = repr(value)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return ValidationError(
        f"{name}: expected {expected}, got {shown}", param=name, rule=f"expected {expected}", value=shown
    )


def _raise(error: Exception) -> Any:
    raise error
