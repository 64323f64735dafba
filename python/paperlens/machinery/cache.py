"""The code of :mod:`paperlens.cache`, the public module that re-exports it and documents it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paperlens._paperlens import NativeClient

__all__ = ["ResponseCache"]


class ResponseCache:
    """``client.cache``: where the response cache lives, its TTL, and :meth:`clear`.

    Made by the client (``Client(cache_dir=..., cache_ttl=...)``), not directly.

    Examples:
        >>> client = paperlens.Client(cache_dir="paperlens-cache", cache_ttl=24 * 3600)
        >>> client.cache.enabled, client.cache.path, client.cache.ttl
        (True, PosixPath('paperlens-cache'), 86400.0)
    """

    def __init__(self, native: NativeClient) -> None:
        self._native = native

    @property
    def enabled(self) -> bool:
        """True when the client was made with ``cache_dir=``."""
        return self._native.cache_dir is not None

    @property
    def path(self) -> Path | None:
        """The cache directory, or None when caching is off."""
        directory = self._native.cache_dir
        return None if directory is None else Path(directory)

    @property
    def ttl(self) -> float | None:
        """Seconds an answer is served from the cache; None: forever (or caching is off)."""
        return self._native.cache_ttl

    def clear(self) -> int:
        """Removes every cached answer (of every token) in the directory.

        Files in the directory that are not cache entries are left alone.

        Returns:
            How many answers were removed (0 when caching is off).

        Examples:
            >>> removed = client.cache.clear()
        """
        return self._native.clear_cache()

    def __repr__(self) -> str:
        if not self.enabled:
            return "paperlens.ResponseCache(disabled)"
        return f"paperlens.ResponseCache(path={str(self.path)!r}, ttl={self.ttl})"
