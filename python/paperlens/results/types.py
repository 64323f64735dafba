"""The code of :mod:`paperlens.types`, the public module that re-exports it and documents it."""

from paperlens.results._model import Model, Response
from paperlens.results._types_open_platform import *  # noqa: F403
from paperlens.results._types_open_platform import __all__ as _open_platform
from paperlens.results._types_paper_schema import *  # noqa: F403
from paperlens.results._types_paper_schema import __all__ as _paper_schema

__all__ = ["Model", "Response", *_open_platform, *_paper_schema]
