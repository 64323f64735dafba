"""paperlens: the Python SDK of the paperlens scholarly literature platform.

>>> import paperlens
>>> client = paperlens.Client()  # PAPERLENS_API_TOKEN and PAPERLENS_BASE_URL from the environment
>>> for record in client.iter_meta_search("coral bleaching", limit=3):
...     print(record.title)
Bleaching and coral reef: evidence from Global Coral Reef Monitoring Network
Marine biodiversity and bleaching: evidence from NOAA Coral Reef Watch
On the role of bleaching in loss of marine biodiversity
"""

import importlib
from typing import TYPE_CHECKING

from paperlens import errors
from paperlens._paperlens import __version__
from paperlens.client import AsyncClient, Client
from paperlens.errors import *  # noqa: F403 (the exceptions: errors.__all__, public here too)
from paperlens.filters import Filter
from paperlens.machinery._pagination import AsyncPaginator, PageCapWarning, Paginator

if TYPE_CHECKING:
    from paperlens import cache as cache
    from paperlens import deduplication as deduplication
    from paperlens import estimate as estimate
    from paperlens import export as export
    from paperlens import harvest as harvest
    from paperlens import lookup as lookup
    from paperlens import matching as matching
    from paperlens import pandas as pandas
    from paperlens import sandbox as sandbox
    from paperlens import schema as schema
    from paperlens import snowball as snowball
    from paperlens import types as types
    from paperlens import verification as verification
    from paperlens.deduplication import Deduped, dedupe
    from paperlens.export import to_bibtex, to_csl_json, to_ris
    from paperlens.lookup import Lookup
    from paperlens.matching import ReferenceMatch
    from paperlens.pandas import to_pandas, to_polars
    from paperlens.snowball import CitationNetwork
    from paperlens.verification import Verification, VerifiedReference

__all__ = [
    "AsyncClient",
    "AsyncPaginator",
    "CitationNetwork",
    "Client",
    "Deduped",
    "Filter",
    "Lookup",
    "PageCapWarning",
    "Paginator",
    "ReferenceMatch",
    "Verification",
    "VerifiedReference",
    "__version__",
    "dedupe",
    "to_bibtex",
    "to_csl_json",
    "to_pandas",
    "to_polars",
    "to_ris",
    "types",
]
__all__ += errors.__all__


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
    "Verification": "paperlens.verification",
    "VerifiedReference": "paperlens.verification",
}


#: The public submodules (the reference documents each), imported on first read as well:
#: ``paperlens.export.CITATION_FIELDS`` works after a bare ``import paperlens``. None is named
#: like a function above (``dedupe`` lives in ``deduplication``), so none can hide one.
_SUBMODULES = frozenset(
    {
        "bibliometrics",
        "cache",
        "client",
        "deduplication",
        "errors",
        "estimate",
        "export",
        "filters",
        "harvest",
        "lookup",
        "matching",
        "pandas",
        "sandbox",
        "schema",
        "snowball",
        "types",
        "verification",
    }
)


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    # Importing a submodule binds it here too; the result types of the 18 paper-schema
    # operations (``types``) are defined on first use this way.
    if name in _SUBMODULES:
        return importlib.import_module(f"paperlens.{name}")
    raise AttributeError(f"module 'paperlens' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_SUBMODULES})
