"""A griffe extension for the API reference (mkdocs.yml loads it; it is not part of paperlens).

Operations are written once as definitions that return their parameters (``-> Params``) and
are turned into methods by ``@operation(Model)``, ``@pages(Model, Item, ...)`` and
``@workflow`` (``paperlens.machinery._operation``). Static analysis sees the definitions, so this
extension gives each the return type its method has. It also renders the docstrings' reST
roles (``:class:`Client```) as code and fences bare ``>>>`` examples, which Markdown would
otherwise read as block quotes.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:class|meth|func|mod|data|attr|exc|obj):`~?([^`]+)`")
_DOUBLE = re.compile(r"``([^`]+?)``")
_JOINED = re.compile(r"^(\s+)(\w+(?:,\s*\w+)+):\s+(.*)$")


def _returns(func: griffe.Function) -> Any:
    for decorator in func.decorators:
        value = decorator.value
        if not isinstance(value, griffe.ExprCall):
            if str(value) == "workflow" and isinstance(func.returns, griffe.ExprSubscript):
                return func.returns.slice  # Plan[R] -> R
            continue
        name = str(value.function)
        if name == "operation" and value.arguments:
            return value.arguments[0]
        if name == "pages" and len(value.arguments) > 1:
            module = func.package["machinery._pagination"]
            return griffe.ExprSubscript(griffe.ExprName("Paginator", parent=module), value.arguments[1])
    return None


def _fence_examples(text: str) -> str:
    """Wraps runs of unindented ``>>>``/``...`` lines in a fenced ``pycon`` block."""
    out: list[str] = []
    in_example = False
    in_fence = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        prompt = not in_fence and (line.startswith(">>>") or (in_example and line.startswith("...")))
        if prompt and not in_example:
            out.append("```pycon")
        elif not prompt and in_example:
            out.append("```")
        in_example = prompt
        out.append(line)
    if in_example:
        out.append("```")
    return "\n".join(out)


def _split_names(text: str) -> str:
    """``a, b: description`` in a parameters section as one entry per name, which the Google
    parser expects (the description is repeated)."""
    out: list[str] = []
    section = False
    for line in text.splitlines():
        if line and not line[0].isspace():
            section = line.rstrip() in ("Args:", "Arguments:", "Parameters:", "Params:")
        joined = _JOINED.match(line) if section else None
        if joined:
            indent, names, rest = joined.groups()
            out.extend(f"{indent}{name.strip()}: {rest}" for name in names.split(","))
        else:
            out.append(line)
    return "\n".join(out)


def _markdown(text: str) -> str:
    # Napoleon reads "Example:" as the examples section; griffe knows only "Examples:".
    text = re.sub(r"^Example:$", "Examples:", text, flags=re.MULTILINE)
    text = _split_names(text)
    return _fence_examples(_DOUBLE.sub(r"`\1`", _ROLE.sub(r"`\1`", text)))


class PaperlensDocs(griffe.Extension):
    """Return types of operation definitions; docstrings in Markdown."""

    def on_function(self, *, func: griffe.Function, **kwargs: Any) -> None:
        returns = _returns(func)
        if returns is not None:
            func.returns = returns

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _markdown(obj.docstring.value)
