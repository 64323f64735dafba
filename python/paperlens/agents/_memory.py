"""The answers an agent session has computed, kept so that continuing one costs no request.

A list tool computes its whole answer once (a :class:`Listing`: every row, and what the next
upstream page would need), and a model sees it a bounded piece at a time. The pieces after
the first, and the next upstream page, are reached through continuation tokens: opaque
strings of this memory's own (an HMAC of what they stand for under a key of this memory, so
the same point of the same answer always has the same token, and no token can be made up),
never the service's cursors. Following a token to a piece of a kept answer sends nothing.

A :class:`Memory` belongs to one session (an MCP connection, one set of LangChain tools). It is
bounded in bytes (the JSON of the rows) and in time, and drops the oldest answers first; the
newest answer is always kept whole, so its own continuations work even when it alone is
larger than the bound. A token of a dropped answer is refused with a message saying how to
start again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from paperlens.errors import ValidationError

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_TTL", "Listing", "Memory", "Target"]

#: The bytes of answers a session keeps (the JSON of their rows) when none is given.
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: How long an answer is kept, in seconds, when no other time is given.
DEFAULT_TTL = 1800.0
#: The parameter a continuation token is passed back in.
CONTINUATION = "continuation"


@dataclass(frozen=True)
class Listing:
    """A list answer computed once. ``summary``: the first words of its summary line (ours,
    never the service's text); ``rows``: every row; ``following``: the arguments that change
    for the next upstream page (None: nothing follows); ``rows_key`` and ``envelope``: when
    set, the payload is ``{**envelope, rows_key: rows shown}`` rather than the list."""

    summary: str
    rows: list[Any]
    following: dict[str, Any] | None = None
    rows_key: str | None = None
    envelope: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Target:
    """What a token stands for: a tool's call (``arguments`` as the model gave them, and
    ``internal`` ones of the next upstream page, such as the service's cursor, never shown)
    and the first row to show."""

    tool: str
    arguments: dict[str, Any]
    internal: dict[str, Any]
    position: int

    @property
    def key(self) -> str:
        """The key of the answer this call computes."""
        return answer_key(self.tool, {**self.arguments, **self.internal})


def answer_key(tool: str, arguments: Mapping[str, Any]) -> str:
    """The key of a tool's answer: the tool and its arguments (nulls left out), canonical."""
    given = {name: value for name, value in arguments.items() if value is not None}
    return json.dumps([tool, given], sort_keys=True, ensure_ascii=False, default=str)


@dataclass
class _Kept:
    listing: Listing
    size: int
    stored: float
    tokens: list[str] = field(default_factory=list)


class Memory:
    """The answers of one session (see the module docstring).

    Args:
        max_bytes: the most bytes of rows kept (the newest answer is kept whatever its size).
        ttl: seconds an answer is kept.
        clock: the monotonic clock (seconds).
    """

    def __init__(
        self,
        max_bytes: int = DEFAULT_MAX_BYTES,
        ttl: float = DEFAULT_TTL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_bytes, self.ttl, self._clock = max_bytes, ttl, clock
        self._key = secrets.token_bytes(32)
        self._answers: OrderedDict[str, _Kept] = OrderedDict()  # oldest first
        self._targets: dict[str, tuple[str, Target]] = {}  # token -> (the answer offering it, target)
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        """The bytes of rows kept now."""
        return self._bytes

    def get(self, key: str) -> Listing | None:
        """The answer kept under ``key``, if it has not expired."""
        with self._lock:
            self._expire()
            kept = self._answers.get(key)
            return None if kept is None else kept.listing

    def put(self, key: str, listing: Listing) -> None:
        """Keeps ``listing`` under ``key``, dropping the oldest answers past the bounds."""
        size = len(json.dumps(listing.rows, ensure_ascii=False, default=str).encode("utf-8"))
        with self._lock:
            self._drop(key)
            self._answers[key] = _Kept(listing, size, self._clock())
            self._bytes += size
            self._expire()
            while self._bytes > self.max_bytes and len(self._answers) > 1:
                self._drop(next(iter(self._answers)))

    def token(self, target: Target) -> str:
        """The token of ``target``: the same for the same target, unguessable without this
        memory's key. It stands for nothing until :meth:`offer` ed."""
        named = json.dumps([target.key, target.position], ensure_ascii=False, default=str).encode("utf-8")
        return "c" + hmac.new(self._key, named, hashlib.sha256).hexdigest()[:31]

    def offer(self, key: str, target: Target) -> None:
        """Makes :meth:`token` of ``target`` valid for as long as the answer under ``key`` is kept."""
        token = self.token(target)
        with self._lock:
            kept = self._answers.get(key)
            if kept is not None and token not in self._targets:
                self._targets[token] = (key, target)
                kept.tokens.append(token)

    def resolve(self, tool: str, token: Any) -> Target:
        """What ``token`` stands for; raises ``ValidationError`` (param ``continuation``) for a
        token that is not a string, of another tool, or whose answer was dropped or never kept."""
        if not isinstance(token, str):
            raise ValidationError(
                f"{CONTINUATION}: expected the string a previous answer gave, got {token!r}",
                param=CONTINUATION,
                rule="a continuation token of this session",
            )
        with self._lock:
            self._expire()
            found = self._targets.get(token)
        if found is None:
            minutes = f"{self.ttl / 60:g} minutes"
            raise ValidationError(
                f"{CONTINUATION}: this continuation has expired or is unknown (a session keeps answers for "
                f"{minutes} and {self.max_bytes // (1024 * 1024)} MiB, the oldest dropped first); call {tool} "
                f"again without {CONTINUATION} to start again",
                param=CONTINUATION,
                rule="a continuation token of this session, still kept",
            )
        target = found[1]
        if target.tool != tool:
            raise ValidationError(
                f"{CONTINUATION}: this continuation belongs to {target.tool}, not {tool}; call {target.tool} with it",
                param=CONTINUATION,
                rule="a continuation token of this tool",
            )
        return target

    def _expire(self) -> None:
        oldest = self._clock() - self.ttl
        while self._answers:
            key, kept = next(iter(self._answers.items()))
            if kept.stored > oldest:
                return
            self._drop(key)

    def _drop(self, key: str) -> None:
        kept = self._answers.pop(key, None)
        if kept is None:
            return
        self._bytes -= kept.size
        for token in kept.tokens:
            self._targets.pop(token, None)
