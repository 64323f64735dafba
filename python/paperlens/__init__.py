"""paperlens: the Python SDK of the paperlens scholarly literature platform.

>>> import paperlens
>>> client = paperlens.Client()  # PAPERLENS_API_TOKEN and PAPERLENS_BASE_URL from the environment
>>> for record in client.iter_meta_search("protein folding", limit=50):
...     print(record.title)
"""

import importlib
from typing import TYPE_CHECKING

from paperlens._pagination import AsyncPaginator, PageCapWarning, Paginator
from paperlens._paperlens import __version__
from paperlens.client import AsyncClient, Client
from paperlens.errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    GatewayTimeoutError,
    NotFoundError,
    PaperlensError,
    PartialResultWarning,
    PermissionDeniedError,
    RateLimitError,
    ResourceWriteError,
    ResponseDecodeError,
    ServerError,
    ValidationError,
)
from paperlens.filters import Filter

if TYPE_CHECKING:
    from paperlens.deduplication import Deduped, dedupe
    from paperlens.export import to_bibtex, to_csl_json, to_ris
    from paperlens.lookup import Lookup
    from paperlens.matching import ReferenceMatch
    from paperlens.pandas import to_pandas, to_polars
    from paperlens.snowball import CitationNetwork

__all__ = [
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AsyncClient",
    "AsyncPaginator",
    "AuthenticationError",
    "BadRequestError",
    "CitationNetwork",
    "Client",
    "ConfigurationError",
    "Deduped",
    "Filter",
    "GatewayTimeoutError",
    "Lookup",
    "NotFoundError",
    "PageCapWarning",
    "Paginator",
    "PaperlensError",
    "PartialResultWarning",
    "PermissionDeniedError",
    "RateLimitError",
    "ReferenceMatch",
    "ResourceWriteError",
    "ResponseDecodeError",
    "ServerError",
    "ValidationError",
    "__version__",
    "dedupe",
    "to_bibtex",
    "to_csl_json",
    "to_pandas",
    "to_polars",
    "to_ris",
    "types",
]


#: The workflows' names, imported on first use so that ``import paperlens`` stays light.
_LAZY = {
    "CitationNetwork": "paperlens.snowball",
    "Deduped": "paperlens.deduplication",
    "Lookup": "paperlens.lookup",
    "ReferenceMatch": "paperlens.matching",
    "dedupe": "paperlens.deduplication",
    "to_bibtex": "paperlens.export",
    "to_csl_json": "paperlens.export",
    "to_pandas": "paperlens.pandas",
    "to_polars": "paperlens.pandas",
    "to_ris": "paperlens.export",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    # The result types of the 18 paper-schema operations are defined on first use.
    if name == "types":
        import paperlens.types

        return paperlens.types
    raise AttributeError(f"module 'paperlens' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
