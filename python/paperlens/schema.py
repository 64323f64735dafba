"""``client.schema``: the 18 Structured Paper operations (``/paper-schema``, beta).

Papers pre-parsed into entities, relations, evidence and citations, with exact locations
back to source paragraphs. ``schema_id`` (from ``items[].schema_id`` of the discovery
operations) is the key of a paper; entity, relation and evidence ids are stable only inside
their paper. Every parameter left ``None`` is not sent (the service's default applies).

Every operation raises ``ValidationError`` before sending when a parameter breaks a bound
of the contract, ``AuthenticationError`` (401) and ``PermissionDeniedError`` (403) for the
token, ``QuotaExhaustedError`` when a 429 asks for a wait beyond ``max_rate_limit_wait``, and
``ServerError`` / ``APIConnectionError`` after the retries; the operations on one paper raise
``NotFoundError`` (404) for an unknown id.

>>> page = client.schema.search("diffusion models", filters={"has_code": True}, size=5)
>>> graph = client.schema.citation_graph(page.items[0].schema_id, depth=2).to_networkx()
"""

from paperlens.clients import schema as _module
from paperlens.clients.schema import *  # noqa: F403

__all__ = _module.__all__
