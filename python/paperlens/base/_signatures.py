"""Functions that share a signature, written once: :func:`parameters_of` gives a function the
parameters of another (its prototype), for type checkers, ``inspect.signature`` and ``help()``."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from paperlens.base import _docstrings as docstrings

__all__ = ["parameters_of"]

P = ParamSpec("P")
R = TypeVar("R")


def parameters_of(prototype: Callable[P, R]) -> Callable[[Callable[..., R]], Callable[P, R]]:
    """Decorates ``def f(source, **options)`` to take the parameters of ``prototype``: a call is
    bound to the prototype's signature (a misspelt or missing argument is a ``TypeError``), and
    ``f`` gets every argument, the defaults filled in. ``f``'s docstring gains one ``Args:``
    entry, "as for" the prototype, for the parameters it does not document itself."""
    signature = inspect.signature(prototype)

    def decorate(function: Callable[..., R]) -> Callable[P, R]:
        @functools.wraps(function)
        def bound(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                arguments = signature.bind(*args, **kwargs)
            except TypeError as error:
                raise TypeError(f"{function.__name__}(): {error}") from None
            arguments.apply_defaults()
            return function(*arguments.args, **arguments.kwargs)

        bound.__signature__ = signature  # type: ignore[attr-defined]
        bound.__annotations__ = dict(prototype.__annotations__)
        bound.__doc__ = docstrings.as_for(function.__doc__ or "", list(signature.parameters), prototype.__name__)
        return bound

    return decorate
