"""``paperlens mcp``: a Model Context Protocol server over stdio or streamable HTTP."""

from __future__ import annotations

import argparse
import os
import socket
import sys
from typing import Any

from paperlens.agents._tools import DEFAULT_MAX_CHARS
from paperlens.agents.mcp import TOKEN_MIN_CHARS, check_auth_token, checked_allowed_hosts, is_loopback
from paperlens.cli.exit_codes import EXIT_OK, UsageError
from paperlens.cli.session import Session

#: The environment variable holding the bearer token of ``--transport http`` (its own, not the
#: API token), read when ``--auth-token`` is not given.
TOKEN_VARIABLE = "PAPERLENS_MCP_TOKEN"

DESCRIPTION = (
    "Serve paperlens tools to an agent over the Model Context Protocol: stdio by default (a host such as "
    "Claude Desktop, Claude Code, Cursor or VS Code starts this command), or streamable HTTP at "
    "http://HOST:PORT/mcp with --transport http. The service is the environment's (PAPERLENS_API_TOKEN, "
    "PAPERLENS_BASE_URL), or a fresh local sandbox when neither is set. Needs the mcp extra. Over HTTP it "
    "listens on loopback; another address needs --allow-remote and a bearer token of the server's own "
    f"(--auth-token, or {TOKEN_VARIABLE} in the environment), which clients send as Authorization: Bearer."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``paperlens mcp``."""
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="stdio (default) or http")
    parser.add_argument("--host", default="127.0.0.1", help="http: the address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="http: the port (default 8000; 0: any free port)")
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="http: allow a --host that is not a loopback address (needs a bearer token)",
    )
    parser.add_argument(
        "--auth-token",
        default=None,
        help=f"http: the bearer token clients must send (at least {TOKEN_MIN_CHARS} characters; default: "
        f"${TOKEN_VARIABLE}); prefer the variable, an argument shows in process lists",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="http: another name or address clients reach the server by (the Host header, without a port; repeatable)",
    )
    parser.add_argument(
        "--tools",
        default="default",
        help="default (the guide's tools), all (also one per operation) or tool names separated by commas",
    )
    parser.add_argument(
        "--max-chars",
        type=int,
        default=DEFAULT_MAX_CHARS,
        help=f"the most characters of a tool's text answer (default {DEFAULT_MAX_CHARS})",
    )


def run(args: argparse.Namespace) -> int:
    """Serves until the client disconnects (stdio) or until interrupted (http)."""
    import anyio

    from paperlens.agents.mcp import server

    token = _http_token(args) if args.transport == "http" else None
    with Session() as client:
        if token is not None and token == client._core.api_token():
            raise UsageError("auth_token: must be the server's own token, not the paperlens API token")
        app = server(client, tools=args.tools, max_chars=args.max_chars)
        if args.transport == "stdio":
            anyio.run(_serve_stdio, app)
        else:
            anyio.run(_serve_http, app, args, token)
    return EXIT_OK


def _http_token(args: argparse.Namespace) -> str | None:
    """The bearer token the HTTP server requires (None: none), after checking that a host
    beyond loopback is allowed and has one, and that the token and the allowed hosts are ones
    ``http_app`` takes (before the client or a sandbox starts)."""
    checked_allowed_hosts(args.allowed_host)
    token = args.auth_token if args.auth_token is not None else os.environ.get(TOKEN_VARIABLE) or None
    if not is_loopback(args.host):
        if not args.allow_remote:
            raise UsageError(
                f"host: {args.host} is not a loopback address; anyone who reaches it could spend your token "
                f"and quota: pass --allow-remote with a bearer token (--auth-token or {TOKEN_VARIABLE})"
            )
        if token is None:
            raise UsageError(f"auth_token: --allow-remote needs a bearer token: --auth-token or {TOKEN_VARIABLE}")
    if token is not None:
        check_auth_token(token)
    return token


async def _serve_stdio(app: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await app.run(read, write, app.create_initialization_options())


async def _serve_http(app: Any, args: argparse.Namespace, token: str | None) -> None:
    import uvicorn

    from paperlens.agents.mcp import http_app

    host = args.host
    asgi = http_app(app, host=host, auth_token=token, allowed_hosts=args.allowed_host)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.create_server((host, args.port), family=family)  # bound here: --port 0 says its port
    bound = listener.getsockname()[1]
    config = uvicorn.Config(asgi, log_level="warning")
    shown = f"[{host}]" if ":" in host else host
    guarded = "; clients send Authorization: Bearer <its token>" if token is not None else ""
    print(f"paperlens mcp: serving streamable HTTP at http://{shown}:{bound}/mcp{guarded}", file=sys.stderr, flush=True)
    await uvicorn.Server(config).serve(sockets=[listener])
