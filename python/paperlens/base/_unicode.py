"""Text that every writer can encode: a Python ``str`` may hold an unpaired surrogate
(``"\\ud83d"``, as ``json.loads`` or a user's own data give), which UTF-8 cannot encode."""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """``text`` with each unpaired surrogate replaced by U+FFFD (a pair held as two code
    points becomes the one character it stands for)."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def escape_surrogates(json_text: str) -> str:
    """JSON text (``ensure_ascii=False``) with each surrogate as its ``\\uXXXX`` escape, which
    a JSON reader turns back into the same string: nothing lost, and UTF-8 can encode it."""
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", json_text)
