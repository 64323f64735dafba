"""``paperlens schema <op>``: one subcommand per structured-paper operation, its arguments
read from the signature and type hints of the :class:`~paperlens.schema.Schema` method."""

from __future__ import annotations

import argparse
import inspect
import re
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

from paperlens.base import _docstrings as docstrings
from paperlens.base._contract import DIRECTIONS, EVIDENCE_GROUPS, GOALS, GROUP_OPERATORS, SIGNALS
from paperlens.cli.convert import csv_list, int_list, json_arg
from paperlens.cli.exit_codes import EXIT_OK
from paperlens.cli.options import add_paging_flags
from paperlens.cli.output import emit
from paperlens.cli.session import Session
from paperlens.clients.schema import Schema

#: The 18 structured-paper operations, as ``paperlens schema <name>``.
SCHEMA_OPERATIONS = (
    "capabilities",
    "search",
    "entity_related_papers",
    "related_papers",
    "search_entities",
    "entities",
    "entity",
    "search_relations",
    "relation",
    "citation_summary",
    "citations",
    "citation_graph",
    "search_evidence",
    "evidence",
    "resolve_provenance",
    "search_in_paper",
    "hydrate_items",
    "materials",
)

_SCALARS: dict[Any, type] = {str: str, int: int, float: float}
# A list is comma-separated as an option (``--ids a,b``), one word per element as a positional.
_LISTS: dict[Any, tuple[type, Callable[[str], list[Any]]]] = {list[str]: (str, csv_list), list[int]: (int, int_list)}
_JSON = (dict[str, Any], list[dict[str, Any]])
#: The values a parameter takes, by name, as the contract lists them.
_CHOICES: dict[str, tuple[str, ...]] = {
    "direction": DIRECTIONS,
    "goal": GOALS,
    "group_operator": GROUP_OPERATORS,
    "signals": SIGNALS,
    "groups": EVIDENCE_GROUPS,
}
#: The table columns of an operation whose rows' first columns would not say what they hold.
_COLUMNS: dict[str, tuple[str, ...]] = {
    "search_evidence": (
        "evidence_id",
        "key",
        "value_text",
        "value_number",
        "value_bool",
        "groups",
        "source_entity_id",
        "schema_id",
    ),
}
_ROLE = re.compile(r":[a-z]+:`~?(?:[\w.]*\.)?([\w]+)`|:[a-z]+:`([^`]+)`")
_SAME_AS = re.compile(r"^as for :meth:`(\w+)`\.?$")


def add_schema_commands(commands: Any, output: argparse.ArgumentParser) -> None:
    """The ``schema`` command and its operations, under ``commands`` (a subparsers action)."""
    schema = commands.add_parser(
        "schema",
        help="the structured-paper operations (entities, relations, evidence, citations)",
        description="The 18 structured-paper operations of client.schema; `paperlens schema OP --help` for one.",
    )
    ops = schema.add_subparsers(title="operations", required=True, metavar="OP", dest="operation")
    for name in SCHEMA_OPERATIONS:
        _add_operation(ops, name, output)


def plain(text: str) -> str:
    """Docstring text as a terminal shows it: ``code`` and :role:`~module.name` markup
    reduced to the text they mark."""
    text = _ROLE.sub(lambda m: m.group(1) or m.group(2), text)
    return text.replace("``", "")


def argument_docs(method: Callable[..., Any]) -> dict[str, str]:
    """The ``Args:`` entries of a method's docstring by parameter name, each on one line;
    an entry "as for :meth:`other`" is the entry of ``other``."""
    entries = docstrings.arguments(inspect.getdoc(method) or "")
    for name, text in entries.items():
        same = _SAME_AS.match(text)
        if same is not None:
            entries[name] = argument_docs(getattr(Schema, same.group(1))).get(name, text)
    return entries


def _add_operation(ops: Any, name: str, output: argparse.ArgumentParser) -> None:
    method = getattr(Schema, name)
    # The description is the docstring's prose, without its Args/Returns/Examples sections.
    doc = plain(docstrings.summary(inspect.getdoc(method) or name))
    summary = doc.split("\n\n")[0].replace("\n", " ")
    described = argument_docs(method)
    sub = ops.add_parser(name.replace("_", "-"), help=summary, description=doc, parents=[output])
    hints = typing.get_type_hints(method, globalns=vars(sys.modules[Schema.__module__]))
    params = list(inspect.signature(method).parameters.values())[1:]  # without self
    for param in params:
        keyword = param.kind is param.KEYWORD_ONLY
        options = _value_options(_without_none(hints[param.name]), keyword, param.default)
        if options is None:
            raise TypeError(f"Schema.{name}: no command-line form for {param.name}: {hints[param.name]}")
        options["help"] = f"{plain(described.get(param.name, param.name)).rstrip('.')} [{options['help']}]"
        choices = _CHOICES.get(param.name)
        if choices is not None and "type" in options and options["type"] is str:
            options["choices"] = choices
        elif choices is not None:
            options["help"] += f"; choices: {', '.join(choices)}"
        if keyword:
            sub.add_argument(f"--{param.name.replace('_', '-')}", dest=param.name, **options)
        else:
            sub.add_argument(param.name, **options)
    if hasattr(Schema, f"iter_{name}"):
        add_paging_flags(sub)
    # Underscored, so that no parameter name of an operation can clash with them.
    sub.set_defaults(run=run_operation, _method=name, _parameters=[p.name for p in params])


def _value_options(kind: Any, keyword: bool, default: Any) -> dict[str, Any] | None:
    """``add_argument`` options of a parameter of type ``kind``; ``help`` names the type. A
    parameter without a ``default`` (``inspect.Parameter.empty``) must be given."""
    has_default = default is not inspect.Parameter.empty
    if kind is bool:
        options: dict[str, Any] = {"action": argparse.BooleanOptionalAction, "help": "bool"}
    elif kind in _SCALARS:
        options = {"type": _SCALARS[kind], "help": kind.__name__}
    elif kind in _LISTS and keyword:
        element, comma_separated = _LISTS[kind]
        options = {"type": comma_separated, "help": f"comma-separated {element.__name__}s"}
    elif kind in _LISTS:
        element, comma_separated = _LISTS[kind]
        options = {
            "type": comma_separated,
            "nargs": "*" if has_default else "+",
            "action": _Joined,
            "help": f"{element.__name__}s, comma-separated or one per word",
        }
    elif kind in _JSON:
        options = {"type": json_arg, "help": "JSON"}
    else:
        return None
    if has_default:
        options["default"] = default
        if not keyword:
            options.setdefault("nargs", "?")
    elif keyword:
        options["required"] = True
    return options


class _Joined(argparse.Action):
    """The lists of the words of a positional argument (``a,b c``) as one list."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option: str | None = None) -> None:
        setattr(namespace, self.dest, [item for word in values for item in word])


def _without_none(hint: Any) -> Any:
    """``X`` of ``X | None`` (or ``Optional[X]``); any other annotation as it is."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        members = [m for m in typing.get_args(hint) if m is not type(None)]
        if len(members) == 1:
            return members[0]
    return hint


def run_operation(args: argparse.Namespace) -> int:
    params = {name: getattr(args, name) for name in args._parameters}
    with Session() as client:
        columns = _COLUMNS.get(args._method)
        if getattr(args, "all", False):
            params.pop("cursor", None)
            found = getattr(client.schema, f"iter_{args._method}")(**params, limit=args.limit)
            emit(args.format, found, columns=columns)
        else:
            emit(args.format, getattr(client.schema, args._method)(**params), columns=columns)
    return EXIT_OK
