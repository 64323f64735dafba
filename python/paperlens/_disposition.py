"""The file name of a ``Content-Disposition`` header (RFC 6266), reduced to a safe base name.

The header is parsed by the standard library's MIME parser, which knows quoted strings
(a name may hold ``;``) and RFC 2231 extended values (``filename*=UTF-8''...``, also in
continuations). RFC 6266 makes ``filename*`` win over ``filename``.
"""

from __future__ import annotations

import re

__all__ = ["disposition_filename", "safe_filename"]

#: Path separators, and characters no file name may hold on some system of the users.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f<>:"|?*]')
_MAX_BYTES = 255


def disposition_filename(header: str | None) -> str | None:
    """The name the header gives (``filename*`` first), as a safe base name, or ``None``."""
    if not header:
        return None
    from email.message import Message  # the MIME parser is imported by the first resource call
    from email.utils import collapse_rfc2231_value

    message = Message()
    message["Content-Disposition"] = header
    names = [value for key, value in message.get_params([], header="content-disposition") if key == "filename"]
    extended = [value for value in names if isinstance(value, tuple)]
    for value in extended + [value for value in names if not isinstance(value, tuple)]:
        name = safe_filename(collapse_rfc2231_value(value))
        if name:
            return name
    return None


def safe_filename(name: str) -> str | None:
    """The last path component of ``name``, without characters unsafe in a file name; ``None``
    when nothing usable is left (empty, ``.`` or ``..``)."""
    base = re.split(r"[/\\]", name)[-1]
    base = _UNSAFE.sub("_", base).strip()
    if base in ("", ".", ".."):
        return None
    while len(base.encode()) > _MAX_BYTES:
        base = base[:-1]
    return base
