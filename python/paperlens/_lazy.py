"""A module imported when one of its names is first read."""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for module ``name`` until a name of it is read, then imports it (under the import
    lock, so threads that read at once see it whole) and gives that name."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)
