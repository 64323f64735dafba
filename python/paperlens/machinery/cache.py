"""The opt-in response cache: ``Client(cache_dir=...)``; ``client.cache`` describes and clears it.

A successful read answer is stored on disk under a key made of the base URL, a token
*identity* (a salted, truncated SHA-256: never the token itself), the operation's method,
path, query and body. A call whose answer is cached sends nothing and so costs no quota: a
re-run notebook cell is free. Entries older than ``cache_ttl`` seconds are ignored, as are
corrupt ones; several processes may share one directory (entries are written to a temporary
file and renamed into place). Partial answers (``partial=true``) are never stored.
Cache hits are logged at DEBUG on the ``paperlens`` logger.

The cache is the user's own. Each entry carries an HMAC-SHA256 under a per-user secret
(``$XDG_CONFIG_HOME/paperlens/cache-key``, else ``~/.config/paperlens/cache-key``: a 0600
file of a 0700 folder, made on first use), so an entry written by anybody else (another
user forging one from its file name) is never served: it is deleted and the call goes to
the service. The directory is made with mode 0700; one that belongs to another user or that
others may write (group or world write permission) is not used: the client works without a
cache and logs a WARNING naming the folder and why (``client.cache.enabled`` is then False).
"""

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
