"""Typed results: one frozen dataclass per response and resource of the spec.

Attribute names are the wire names. A field the response did not carry is ``None``;
properties the spec does not name are kept in ``extra``; ``to_dict()`` returns the wire JSON;
every response carries the ``request_id`` of its call.
"""

from paperlens.results._model import Model, Response
from paperlens.results._types_open_platform import *  # noqa: F403
from paperlens.results._types_open_platform import __all__ as _open_platform
from paperlens.results._types_paper_schema import *  # noqa: F403
from paperlens.results._types_paper_schema import __all__ as _paper_schema

__all__ = ["Model", "Response", *_open_platform, *_paper_schema]
