"""The client a research command uses: the environment's service, or a fresh sandbox."""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack
from typing import Any

from paperlens.client import Client
from paperlens.sandbox import Sandbox

_TOKEN_ENV, _BASE_URL_ENV, _CACHE_ENV = "PAPERLENS_API_TOKEN", "PAPERLENS_BASE_URL", "PAPERLENS_CACHE_DIR"


class Session:
    """The client of a command: the environment's service, or a fresh sandbox.
    ``shared_pacing`` applies to the environment's service (no other process shares a fresh
    sandbox's token)."""

    def __init__(self, *, shared_pacing: bool = False) -> None:
        self._stack = ExitStack()
        self._shared_pacing = shared_pacing

    def __enter__(self) -> Client:
        token, base_url = os.environ.get(_TOKEN_ENV, "").strip(), os.environ.get(_BASE_URL_ENV, "").strip()
        settings: dict[str, Any] = {"cache_dir": os.environ.get(_CACHE_ENV) or None}
        if not token and not base_url:
            sandbox = self._stack.enter_context(Sandbox())
            print(
                f"paperlens: {_TOKEN_ENV} and {_BASE_URL_ENV} are not set: using a fresh local sandbox "
                f"with a generated corpus ({sandbox.base_url})",
                file=sys.stderr,
            )
            settings.update(api_token=sandbox.token, base_url=sandbox.base_url)
        else:
            settings.update(shared_pacing=self._shared_pacing)
        try:
            client = Client(**settings)
        except BaseException:
            self._stack.close()
            raise
        self._stack.callback(client.close)
        return client

    def __exit__(self, *exc: object) -> None:
        self._stack.close()
