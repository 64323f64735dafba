"""``Client`` and ``AsyncClient``: the same methods, sync and async, over one Rust core.

Each method gathers its parameters (``None`` means "not sent"), the core validates them
against the spec, sends them with retries and pacing, and decodes the answer; the method
then builds the typed result.
"""

from paperlens.clients.client import AsyncClient, Client

__all__ = ["AsyncClient", "Client"]
