"""Optional and heavy modules, kept out of ``import paperlens``: a module imported when one
of its names is first read, and a pandas DataFrame recognised without importing pandas."""

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


def is_data_frame(obj: Any) -> bool:
    """Whether ``obj`` is a pandas DataFrame, without importing pandas."""
    return type(obj).__name__ == "DataFrame" and type(obj).__module__.startswith("pandas")
