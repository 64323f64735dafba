"""The file name of a ``Content-Disposition`` header (RFC 6266), reduced to a safe base name.

The parameters are split here, quoted strings read with their quoted-pairs (a name may
hold ``;``, ``"`` or a backslash: ``"a\\\\b"`` is ``a\\b``); the standard library's MIME
helpers then join RFC 2231 continuations and decode extended values
(``filename*=UTF-8''...``). RFC 6266 makes ``filename*`` win over ``filename``. (The
standard library's own parameter splitter is not used: it takes the ``\\"`` that ends
``"...\\\\"`` for an escaped quote and runs the parameter on past its ``;``.)
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["disposition_filename", "safe_filename"]

#: Path separators, and characters no file name may hold on some system of the users.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f<>:"|?*]')
_MAX_BYTES = 255
#: Unicode categories dropped from names: format characters (bidi controls, zero-width ones)
#: and the line and paragraph separators.
_INVISIBLE = frozenset({"Cf", "Zl", "Zp"})
#: The device names Windows reserves, with or without an extension (superscript digits too).
_RESERVED = re.compile(r"(?i)(CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|COM[0-9¹²³]|LPT[0-9¹²³])(\..*)?")
#: A quoted string (RFC 9110, 5.6.4), its closing quote optional; or an unquoted value up to ``;``.
_VALUE = re.compile(r'"((?:[^"\\]|\\.)*)"?|([^;]*)', re.S)
_QUOTED_PAIR = re.compile(r"\\(.)", re.S)


def disposition_filename(header: str | None) -> str | None:
    """The name the header gives (``filename*`` first), as a safe base name, or ``None``."""
    if not header:
        return None
    # The MIME helpers are imported by the first resource call.
    from email.utils import collapse_rfc2231_value, decode_params, unquote

    params = [("", "")] + [(name, _mime_quoted(value)) for name, value in _parameters(header)]
    names = [value for key, value in decode_params(params)[1:] if key == "filename"]
    # An extended value is (charset, language, quoted text); a plain one is quoted text.
    extended = [(value[0], value[1], unquote(value[2])) for value in names if isinstance(value, tuple)]
    for value in extended + [value for value in names if not isinstance(value, tuple)]:
        name = safe_filename(collapse_rfc2231_value(value))
        if name:
            return name
    return None


def _parameters(header: str) -> list[tuple[str, str]]:
    """The ``name=value`` parameters after the disposition type: names in lower case, values
    unquoted. A part without ``=`` is skipped."""
    params = []
    at = header.find(";")
    while at != -1:
        end = header.find(";", at + 1)
        part = header[at + 1 : len(header) if end == -1 else end]
        name, equals, _ = part.partition("=")
        if not equals:
            at = end
            continue
        start = at + 1 + len(name) + 1
        start += len(header[start:]) - len(header[start:].lstrip())
        match = _VALUE.match(header, start)
        assert match is not None  # the pattern matches the empty string
        if match.group(2) is None:
            value = _QUOTED_PAIR.sub(r"\1", match.group(1))
            at = header.find(";", match.end())
        else:
            value = match.group(2).strip()
            at = end
        params.append((name.strip().lower(), value))
    return params


def _mime_quoted(value: str) -> str:
    """``value`` quoted the way ``email.utils.unquote`` (used by ``decode_params``) reads it."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def safe_filename(name: str) -> str | None:
    """The last path component of ``name``, made safe to write: without characters unsafe in a
    file name, without format characters (bidi overrides such as U+202E, which make
    ``invoice\u202egnp.exe`` show as ``invoiceexe.png``; zero-width ones) and line separators,
    without leading dots (no hidden file such as ``.bashrc``) nor the trailing dots and spaces
    Windows drops, a Windows reserved device name (``CON``, ``NUL.txt``, ``COM1``...) prefixed
    with ``_``; at most 255 bytes. ``None`` when nothing usable is left."""
    base = re.split(r"[/\\]", name)[-1]
    base = "".join(c for c in base if unicodedata.category(c) not in _INVISIBLE)
    base = _UNSAFE.sub("_", base).strip().lstrip(".").rstrip(". ")
    if not base:
        return None
    if _RESERVED.fullmatch(base):
        base = "_" + base
    while len(base.encode("utf-8", "surrogatepass")) > _MAX_BYTES:
        base = base[:-1]
    return base


def download_name(disposition: str | None, file_name: str) -> str:
    """The name of a resource: its ``Content-Disposition`` file name, else the last segment of
    ``file_name``, made safe; ``resource`` when neither gives one. ``Resource.filename`` and
    ``download_resource`` into a directory both use it."""
    return disposition_filename(disposition) or safe_filename(file_name) or "resource"
