"""``Client`` and ``AsyncClient``: the same methods, sync and async, over one Rust core.

Each method gathers its parameters (``None`` means "not sent"), the core validates them
against the spec, sends them with retries and pacing, and decodes the answer; the method
then builds the typed result.
"""

from paperlens.clients import client as _module
from paperlens.clients.client import *  # noqa: F403

__all__ = _module.__all__
