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

from paperlens.machinery import cache as _module
from paperlens.machinery.cache import *  # noqa: F403

__all__ = _module.__all__
