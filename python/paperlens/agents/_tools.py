"""The tools an agent reaches paperlens through, defined once for every integration (the MCP
server, the LangChain and LlamaIndex tools).

A tool is a name, a description saying when to use it, the JSON Schema of its input and a
plan: a generator that yields :class:`~paperlens.machinery._operation.Call` s of client methods and
returns its answer: the parts (:class:`TextPart`, :class:`ImagePart`), or for a list a
:class:`~paperlens.agents._memory.Listing` of every row. It is run with plain calls for a
``Client`` (:meth:`AgentTool.run`) and with awaits for an ``AsyncClient``
(:meth:`AgentTool.arun`); cancelling the await cancels the request in flight. A run gives an
:class:`Answer`: the parts, or the text of its failure; either way the client's token is
masked in every text, here once for every integration, and an answer that waited on the
client's quota pacing says how long. The schema and the description come from the plan's
signature and docstring (:mod:`paperlens.agents._schema`), so each is written once.

:func:`default_tools` are the tools of ``docs/guides/agents.md``, shaped for a model's
context (their plans are :mod:`paperlens.agents._plans`); :func:`operation_tools` are one per
operation of the service, generated from the definitions the clients are built from
(``--tools all``). Every text part is bounded by
``max_chars`` and says how to continue exactly: ``read_paper`` by a code-point offset, a list
by a ``continuation`` token of the session's :class:`~paperlens.agents._memory.Memory`, which
serves the rest of a computed list with no request.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from paperlens.agents._memory import CONTINUATION, Listing, Memory, Target
from paperlens.agents._output import ImagePart, Part, TextPart, compact, continue_with, error_text, fit, masked
from paperlens.agents._plans import PLANS, Result, get_figure, image, read_paper
from paperlens.agents._schema import Signature, signature_of
from paperlens.base import _checks as checks
from paperlens.clients.client import AsyncClient, Client
from paperlens.clients.schema import Schema
from paperlens.errors import ValidationError
from paperlens.machinery._operation import Call, Operation, Plan, _run_async, _run_sync

__all__ = [
    "AgentTool",
    "Answer",
    "ImagePart",
    "Memory",
    "Part",
    "TextPart",
    "check_max_chars",
    "default_tools",
    "failed",
    "operation_tools",
    "select_tools",
]

#: The ``max_chars`` of a tool's text when none is given.
DEFAULT_MAX_CHARS = 8000
#: The least ``max_chars``: room for the notes of an answer and some of its content.
MIN_MAX_CHARS = 1000
_SCHEMA_PREFIX = "schema_"
_CONTINUATION_DOC = "the continuation token a previous answer gave, to see more of it (nothing is sent again)."
#: Parameters of plans that only a continuation sets (the service's cursor), never a model.
_INTERNAL = ("cursor",)


def check_max_chars(max_chars: object) -> None:
    """``max_chars`` is an integer of at least :data:`MIN_MAX_CHARS` (a ``ValidationError`` before anything runs)."""
    checks.count("max_chars", max_chars, MIN_MAX_CHARS)


@dataclass(frozen=True)
class Answer:
    """What a tool call gives the model: its parts, or (``is_error``) one text saying what
    went wrong and what to do. The client's token is masked in every text."""

    parts: list[Part]
    is_error: bool

    @property
    def text(self) -> str:
        """The text parts, one after another."""
        return "\n\n".join(part.text for part in self.parts if isinstance(part, TextPart))


def failed(error: BaseException, client: Client | AsyncClient) -> Answer:
    """The answer of a call that failed with ``error`` (:func:`~paperlens.agents._output.error_text`)."""
    return _answer(client, [TextPart(error_text(error))], is_error=True)


def _answer(client: Client | AsyncClient, parts: list[Part], *, is_error: bool) -> Answer:
    """``parts`` as an answer, with the client's token masked in every text (images are
    the service's bytes, passed on unchanged)."""
    secret = client._core.api_token()
    shown = [TextPart(masked(part.text, secret)) if isinstance(part, TextPart) else part for part in parts]
    return Answer(shown, is_error)


@dataclass(frozen=True)
class AgentTool:
    """One tool: ``plan(max_chars, **arguments)`` is its work (see the module docstring);
    ``lists``: its answer is a list, continued from the session's memory."""

    name: str
    description: str
    signature: Signature
    plan: Callable[..., Plan[Result]]
    lists: bool = False

    @property
    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the tool's arguments object."""
        return self.signature.input_schema()

    def run(
        self,
        client: Client,
        arguments: Mapping[str, Any] | None,
        max_chars: int = DEFAULT_MAX_CHARS,
        memory: Memory | None = None,
    ) -> Answer:
        """The tool's answer with ``client``: a failure (bad arguments, refused before any
        request, or the client's errors) is an answer too, saying what to do (:func:`failed`).
        ``memory``: the session's answers, which continuations are served from (None: a new
        one, so that no continuation of an earlier call is known)."""
        return _run_sync(_Methods(client), self._answering(client, arguments, max_chars, memory))

    async def arun(
        self,
        client: AsyncClient,
        arguments: Mapping[str, Any] | None,
        max_chars: int = DEFAULT_MAX_CHARS,
        memory: Memory | None = None,
    ) -> Answer:
        """:meth:`run` with an ``AsyncClient``, awaited; cancelled, it cancels its request."""
        return await _run_async(_Methods(client), self._answering(client, arguments, max_chars, memory))

    def _answering(
        self,
        client: Client | AsyncClient,
        arguments: Mapping[str, Any] | None,
        max_chars: int,
        memory: Memory | None,
    ) -> Plan[Answer]:
        """The plan of :meth:`run` and :meth:`arun`: the tool's plan, its failure an answer."""
        try:
            with _Waits(client) as waits:
                turn = _Turn(self, arguments, max_chars, memory or Memory())
                result = turn.kept if turn.plan is None else (yield from turn.plan)
                parts = turn.finish(result)
        except Exception as error:  # every failure goes back to the model as an answer
            return failed(error, client)
        return _answer(client, waits.noted(parts), is_error=False)


class _Turn:
    """One call of a tool: its arguments checked (those a continuation stands for, when one is
    given), and the kept answer it continues (``kept``) or the plan that computes it."""

    def __init__(self, tool: AgentTool, arguments: Mapping[str, Any] | None, max_chars: int, memory: Memory) -> None:
        check_max_chars(max_chars)
        self.tool, self.max_chars, self.memory = tool, max_chars, memory
        given = dict(arguments or {})
        token = given.pop(CONTINUATION, None) if tool.lists else None
        if token is None:
            self.target = Target(tool.name, given, {}, 0)
        else:
            self.target = memory.resolve(tool.name, token)
        bound = {**tool.signature.bind(self.target.arguments), **self.target.internal}
        self.kept = memory.get(self.target.key) if tool.lists else None
        self.plan = None if self.kept is not None else tool.plan(max_chars, **bound)

    def finish(self, result: Result | None) -> list[Part]:
        """The parts of the answer: a list kept, then shown from the target's position."""
        if not isinstance(result, Listing):
            return result or []
        key = self.target.key
        if self.kept is None:
            self.memory.put(key, result)
        return [TextPart(self._page(key, result))]

    def _page(self, key: str, listing: Listing) -> str:
        start, tool = self.target.position, self.tool.name
        rest, offered = listing.rows[start:], {}

        def build(kept: list[Any], n: int) -> tuple[str, Any]:
            if n < len(rest):
                after: Target | None = Target(tool, self.target.arguments, self.target.internal, start + n)
            elif listing.following is not None:
                after = Target(tool, self.target.arguments, {**self.target.internal, **listing.following}, 0)
            else:
                after = None
            token = None
            if after is not None:
                token = self.memory.token(after)
                offered[token] = after
            summary = _continue(listing.summary, n, len(rest), None if token is None else {CONTINUATION: token})
            return summary, {**listing.envelope, listing.rows_key: kept} if listing.rows_key else kept

        text = fit(self.max_chars, rest, build)
        for token, target in offered.items():
            if token in text:
                self.memory.offer(key, target)
        return text


class _Waits:
    """The waits of the client's pacing and retries while a call runs (the client's events,
    so a call running beside others in the same client may hear theirs too)."""

    def __init__(self, client: Client | AsyncClient) -> None:
        self._client = client
        self.paced = self.retried = 0.0

    def __enter__(self) -> _Waits:
        self._stop = self._client._listen(self._heard)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop()

    def _heard(self, kind: str, wait: float, message: str) -> None:
        if kind == "paced":
            self.paced += wait
        elif kind == "retry":
            self.retried += wait

    def noted(self, parts: list[Part]) -> list[Part]:
        """``parts`` with a line after the first line of the first text saying how long the
        call waited, when it did."""
        waits = [f"{self.paced:.1f} s on the quota pacing"] if self.paced >= 0.05 else []
        waits += [f"{self.retried:.1f} s before retries"] if self.retried >= 0.05 else []
        if not waits or not parts or not isinstance(parts[0], TextPart):
            return parts
        first, _, rest = parts[0].text.partition("\n")
        note = f"This call waited {' and '.join(waits)} (the service's quota sets the pace)."
        return [TextPart(f"{first}\n{note}\n{rest}"), *parts[1:]]


class _Methods:
    """A client's methods by tool name: ``schema_search`` is ``client.schema.search``."""

    def __init__(self, client: Client | AsyncClient) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        if name.startswith(_SCHEMA_PREFIX):
            return getattr(self._client.schema, name.removeprefix(_SCHEMA_PREFIX))
        return getattr(self._client, name)


def _tool(plan: Callable[..., Plan[Result]], *, lists: bool = True) -> AgentTool:
    signature = signature_of(plan, skip=1).without(*_INTERNAL)
    if lists:
        signature = signature.with_parameter(CONTINUATION, str, None, _CONTINUATION_DOC)
    return AgentTool(plan.__name__, signature.summary, signature, plan, lists)


def _continue(summary: str, shown: int, total: int, after: dict[str, Any] | None) -> str:
    """The summary line of a list, with the arguments that continue it."""
    if after is None:
        return f"{summary}: {shown} of {total} shown, nothing follows."
    return f"{summary}: {shown} of {total} shown; {continue_with(after)}"


def default_tools() -> list[AgentTool]:
    """The tools of ``--tools default``, in the order an agent would use them."""
    return [_tool(plan, lists=plan not in (read_paper, get_figure)) for plan in PLANS]


# -- one tool per operation ----------------------------------------------------------------


def operation_tools() -> list[AgentTool]:
    """One tool per operation of the service, named after its method (``schema_`` before a
    ``client.schema`` one), from the operations' definitions: parameters, bounds and
    documentation as the clients have them. A list answer gains a ``continuation`` parameter."""
    tools = []
    for prefix, owner in (("", Client), (_SCHEMA_PREFIX, Schema)):
        for name, member in inspect.getmembers(owner):
            if isinstance(member, Operation):
                tools.append(_operation_tool(prefix + name, member._define, member._model()))
    tools.append(_operation_tool("resource", Client.resource, None))
    tools.append(_operation_tool(_SCHEMA_PREFIX + "capabilities", Schema.capabilities, None))
    return sorted(tools, key=lambda tool: tool.name)


def _operation_tool(name: str, function: Callable[..., Any], model: type | None) -> AgentTool:
    signature = signature_of(function, skip=1)
    rows = getattr(model, "_rows", None)
    if rows is not None:
        signature = signature.with_parameter(CONTINUATION, str, None, _CONTINUATION_DOC)

    def plan(max_chars: int, **arguments: Any) -> Plan[Result]:
        result = yield Call(name, (), arguments)
        if name == "resource":
            return image(max_chars, arguments["file_name"], result)
        payload = compact(result.to_dict())
        if rows is None:
            return [TextPart(fit(max_chars, [payload], lambda kept, n: (name, kept[0] if kept else {})))]
        items = payload.pop(rows, [])
        return Listing(f"{name}: {rows}", items, rows_key=rows, envelope=payload)

    return AgentTool(name, signature.summary, signature, plan, lists=rows is not None)


def select_tools(spec: str) -> list[AgentTool]:
    """The tools ``--tools`` names: ``default``, ``all`` (the default ones and one per
    operation) or a comma-separated list of names of either."""
    defaults = default_tools()
    if spec == "default":
        return defaults
    taken = {tool.name for tool in defaults}  # paper_relations: the default tool is the operation's
    every = defaults + [tool for tool in operation_tools() if tool.name not in taken]
    if spec == "all":
        return every
    by_name = {tool.name: tool for tool in every}
    names = [name.strip() for name in spec.split(",") if name.strip()]
    unknown = [name for name in names if name not in by_name]
    if unknown or not names:
        raise ValidationError(
            f"tools: unknown tool {', '.join(unknown) or spec!r} "
            f"(expected default, all or names among: {', '.join(sorted(by_name))})",
            param="tools",
            rule="default, all or tool names",
        )
    return [by_name[name] for name in dict.fromkeys(names)]
