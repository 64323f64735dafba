"""The parts of a (Google-style) docstring that the command line's help and the agent tools'
descriptions show: the prose before the first section, and the ``Args:`` entries; and the
entries of a section as written, to complete one (``iter_`` forms, inherited attributes)."""

from __future__ import annotations

import re

__all__ = ["arguments", "as_for", "entries", "inherited", "summary", "with_entries"]

_SECTION = re.compile(r"^[A-Z][A-Za-z ]*:$")


def summary(doc: str) -> str:
    """The text before the docstring's first section (``Args:``, ``Returns:``...)."""
    lines = doc.splitlines()
    end = next((i for i, line in enumerate(lines) if _SECTION.match(line)), len(lines))
    return "\n".join(lines[:end]).strip()


def arguments(doc: str) -> dict[str, str]:
    """Each ``Args:`` entry by parameter name (``*`` of ``*args`` dropped), its continuation
    lines joined into one line."""
    return {
        name.lstrip("*"): " ".join(" ".join(lines).split()).partition(":")[2].strip()
        for name, lines in entries(doc, "Args:").items()
    }


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _section(lines: list[str], title: str) -> tuple[int, int, str]:
    """Where section ``title`` stands in ``lines``: its header, the line after its entries,
    and the header's indentation; where absent, both the line before which it would stand
    (the next section, else the end) and the indentation it takes there (that section's, else
    the body's)."""
    for start, line in enumerate(lines):
        if line.strip() == title:
            indent, end = _indent(line), start + 1
            while end < len(lines) and lines[end].strip() and len(_indent(lines[end])) > len(indent):
                end += 1
            return start, end, indent
    after = next((i for i, line in enumerate(lines[1:], 1) if _SECTION.match(line.strip())), len(lines))
    if after < len(lines):
        return after, after, _indent(lines[after])
    return after, after, min((_indent(line) for line in lines[1:] if line.strip()), key=len, default="")


def entries(doc: str, title: str) -> dict[str, list[str]]:
    """The entries of section ``title`` (``"Args:"``, ``"Attributes:"``) by name, each as its
    lines, indented as under a header at no indentation."""
    if title not in doc:
        return {}
    lines = doc.splitlines()
    start, end, indent = _section(lines, title)
    found: dict[str, list[str]] = {}
    for line in lines[start + 1 : end]:
        text = line[len(indent) :]
        if not text.startswith("     "):  # an entry's first line, not its continuation
            found[text.strip().split(":", 1)[0]] = []
        found[next(reversed(found))].append(text)
    return found


def with_entries(doc: str, title: str, section: dict[str, list[str]]) -> str:
    """``doc`` with section ``title`` holding ``section`` (entries as :func:`entries` gives
    them), in its order; a docstring without the section gains it before the next one."""
    lines = doc.splitlines()
    start, end, indent = _section(lines, title)
    body = [f"{indent}{title}", *(indent + line for entry in section.values() for line in entry)]
    if start == end:  # a new section, set off by a blank line from what follows
        body.append("")
    return "\n".join([*lines[:start], *body, *lines[end:]]) + ("\n" if doc.endswith("\n") else "")


def inherited(doc: str, bases: list[str], title: str) -> str:
    """``doc`` with section ``title`` holding first the entries of the ``bases``' docstrings
    (its own entry in the place of one it writes itself), then its own."""
    theirs: dict[str, list[str]] = {}
    for base in bases:
        theirs.update(entries(base, title))
    if not theirs:
        return doc
    return with_entries(doc, title, {**theirs, **entries(doc, title)})


def as_for(doc: str, names: list[str], function: str) -> str:
    """``doc`` with one ``Args:`` entry first, ``a, b: as for :func:`function`.``, naming those
    of ``names`` that it does not document itself (``doc`` as it is when it documents them all)."""
    own = entries(doc, "Args:")
    shared = ", ".join(name for name in names if name not in own)
    if not shared:
        return doc
    return with_entries(doc, "Args:", {shared: [f"    {shared}: as for :func:`{function}`."], **own})
