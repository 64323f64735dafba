"""The client a research command uses: the environment's service, or a fresh sandbox."""

from __future__ import annotations

from paperlens.clients._default_client import close_default_client, default_client
from paperlens.clients.client import Client


class Session:
    """The client of a command (:func:`paperlens.clients._default_client.default_client`), closed on
    exit. ``shared_pacing`` applies to the environment's service (no other process shares a
    fresh sandbox's token)."""

    def __init__(self, *, shared_pacing: bool = False) -> None:
        self._shared_pacing = shared_pacing
        self._client: Client | None = None

    def __enter__(self) -> Client:
        self._client = default_client(shared_pacing=self._shared_pacing)
        return self._client

    def __exit__(self, *exc: object) -> None:
        if self._client is not None:
            close_default_client(self._client)
            self._client = None
