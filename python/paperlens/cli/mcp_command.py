"""``paperlens mcp``: a Model Context Protocol server over stdio or streamable HTTP."""

from __future__ import annotations

import argparse
import socket
import sys
from typing import Any

from paperlens._agent_tools import DEFAULT_MAX_CHARS
from paperlens.cli.exit_codes import EXIT_OK
from paperlens.cli.session import Session

DESCRIPTION = (
    "Serve paperlens tools to an agent over the Model Context Protocol: stdio by default (a host such as "
    "Claude Desktop, Claude Code, Cursor or VS Code starts this command), or streamable HTTP at "
    "http://HOST:PORT/mcp with --transport http. The service is the environment's (PAPERLENS_API_TOKEN, "
    "PAPERLENS_BASE_URL), or a fresh local sandbox when neither is set. Needs the mcp extra."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``paperlens mcp``."""
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="stdio (default) or http")
    parser.add_argument("--host", default="127.0.0.1", help="http: the address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="http: the port (default 8000; 0: any free port)")
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

    from paperlens.mcp import server

    with Session() as client:
        app = server(client, tools=args.tools, max_chars=args.max_chars)
        if args.transport == "stdio":
            anyio.run(_serve_stdio, app)
        else:
            anyio.run(_serve_http, app, args.host, args.port)
    return EXIT_OK


async def _serve_stdio(app: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await app.run(read, write, app.create_initialization_options())


async def _serve_http(app: Any, host: str, port: int) -> None:
    import uvicorn

    listener = socket.create_server((host, port))  # bound here, so --port 0 can say which port it got
    bound = listener.getsockname()[1]
    config = uvicorn.Config(app.streamable_http_app(host=host), log_level="warning")
    print(f"paperlens mcp: serving streamable HTTP at http://{host}:{bound}/mcp", file=sys.stderr, flush=True)
    await uvicorn.Server(config).serve(sockets=[listener])
