"""The parts of a (Google-style) docstring that the command line's help and the agent tools'
descriptions show: the prose before the first section, and the ``Args:`` entries."""

from __future__ import annotations

import re

__all__ = ["arguments", "summary"]

_SECTION = re.compile(r"^[A-Z][A-Za-z ]*:$")
_ARG_LINE = re.compile(r"^(\s*)(\*{0,2}\w+):\s?(.*)$")


def summary(doc: str) -> str:
    """The text before the docstring's first section (``Args:``, ``Returns:``...)."""
    lines = doc.splitlines()
    end = next((i for i, line in enumerate(lines) if _SECTION.match(line)), len(lines))
    return "\n".join(lines[:end]).strip()


def arguments(doc: str) -> dict[str, str]:
    """Each ``Args:`` entry by parameter name (``*`` of ``*args`` dropped), its continuation
    lines joined into one line."""
    lines = doc.splitlines()
    if "Args:" not in lines:
        return {}
    entries: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines[lines.index("Args:") + 1 :]:
        if line and not line.startswith(" "):
            break
        match = _ARG_LINE.match(line)
        if match and len(match.group(1)) <= 4:
            current = entries.setdefault(match.group(2).lstrip("*"), [])
            current.append(match.group(3))
        elif current is not None:
            current.append(line)
    return {name: " ".join(" ".join(parts).split()) for name, parts in entries.items()}
