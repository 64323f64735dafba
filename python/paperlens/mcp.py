"""A Model Context Protocol server over a paperlens client (the ``mcp`` extra).

>>> import paperlens, paperlens.mcp
>>> server = paperlens.mcp.server(paperlens.Client(), tools="default", max_chars=8000)

The tools are those of :mod:`paperlens.agents._tools` (their names, descriptions and input
schemas exactly), on the SDK's low-level ``Server``: every failure is a tool result with
``isError`` that a model can read (a validation error names the parameter and the rule, a
429 says when to retry), never a protocol error or a dead server. Calls run concurrently as
coroutines of an ``AsyncClient`` (for a ``Client``, one over its connections, pacing and
cache), so a call the client cancels, or abandons by going away (over HTTP, its connection
closed), cancels its request and gives back its place in the pacing. Each session
(connection) keeps the answers it computed (:class:`~paperlens.agents._memory.Memory`):
continuing a list sends no request. The token is masked in everything the server sends (the
tools' runs mask it, for every integration alike).

``paperlens mcp`` serves one over stdio or streamable HTTP (see ``docs/guides/agents.md``);
:func:`http_app` is its HTTP application, with the Host/Origin checks of the SDK always on and
an optional bearer token of the server's own.
"""

from paperlens.agents import mcp as _module
from paperlens.agents.mcp import *  # noqa: F403

__all__ = _module.__all__
