"""The client used when none is given: the service the environment names, or a fresh sandbox.

The ``paperlens`` commands and the agent integrations (``client=None``) share this choice:
``PAPERLENS_API_TOKEN`` and ``PAPERLENS_BASE_URL`` (and ``PAPERLENS_CACHE_DIR``, and
``PAPERLENS_SHARED_PACING``, a ``redis://`` URL where shared pacing goes beyond this machine) from the
environment; when neither the token nor the URL is set, a local sandbox over a generated
corpus, said on stderr, so that anyone can try paperlens in one command.
"""

from __future__ import annotations

import os
import sys
import weakref
from typing import Any

from paperlens.base.sandbox import Sandbox
from paperlens.clients.client import Client

__all__ = ["BASE_URL_ENV", "CACHE_ENV", "SHARED_PACING_ENV", "TOKEN_ENV", "close_default_client", "default_client"]

TOKEN_ENV, BASE_URL_ENV, CACHE_ENV = "PAPERLENS_API_TOKEN", "PAPERLENS_BASE_URL", "PAPERLENS_CACHE_DIR"
# A URL, not a command-line argument: a Redis password would show in the process list.
SHARED_PACING_ENV = "PAPERLENS_SHARED_PACING"
# The stop of the sandbox behind each default client that has one.
_SANDBOX_STOPS: weakref.WeakKeyDictionary[Client, weakref.finalize[Any, Any]] = weakref.WeakKeyDictionary()


def default_client(*, shared_pacing: bool = False) -> Client:
    """A client of the environment's service, or of a fresh sandbox that lives as long as the
    client object (it stops when the client is garbage-collected, or at exit).

    ``shared_pacing`` applies to the environment's service (no other process shares a fresh
    sandbox's token): through ``PAPERLENS_SHARED_PACING`` (a ``redis://`` URL) when it is set,
    else through this machine's file. Raises :class:`~paperlens.ConfigurationError` when only one of the token
    and the URL is set (the message names the missing variable)."""
    token, base_url = os.environ.get(TOKEN_ENV, "").strip(), os.environ.get(BASE_URL_ENV, "").strip()
    settings: dict[str, Any] = {"cache_dir": os.environ.get(CACHE_ENV) or None}
    if token or base_url:
        shared_url = os.environ.get(SHARED_PACING_ENV, "").strip()
        return Client(**settings, shared_pacing=(shared_url or True) if shared_pacing else False)
    sandbox = Sandbox()
    print(
        f"paperlens: {TOKEN_ENV} and {BASE_URL_ENV} are not set: using a fresh local sandbox "
        f"with a generated corpus ({sandbox.base_url})",
        file=sys.stderr,
    )
    try:
        client = Client(**settings, api_token=sandbox.token, base_url=sandbox.base_url)
    except BaseException:
        sandbox.close()
        raise
    _SANDBOX_STOPS[client] = weakref.finalize(client, sandbox.close)
    return client


def close_default_client(client: Client) -> None:
    """Closes ``client`` and stops its sandbox now, if it has one."""
    client.close()
    stop = _SANDBOX_STOPS.pop(client, None)
    if stop is not None:
        stop()
