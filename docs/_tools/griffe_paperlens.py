"""A griffe extension for the API reference (mkdocs.yml loads it; it is not part of paperlens).

Operations are written once as definitions that return their parameters (``-> Params``) and
are turned into methods by ``@operation(Model)``, ``@pages(Model, Item, ...)`` and
``@workflow`` (``paperlens.machinery._operation``). Static analysis sees the definitions, so this
extension gives each the return type its method has, and an ``iter_`` definition the
``Args:`` entries that ``@pages`` completes its docstring with; it gives a result type the
``Attributes:`` entries of its bases, as ``Model.__init_subclass__`` does; a function decorated
``@parameters_of(prototype)`` (``paperlens.base._signatures``) the prototype's parameters and the
``Args:`` entry "as for" it that the decorator writes. It also renders
the docstrings' reST roles (``:class:`Client```) as code and fences bare ``>>>`` examples,
which Markdown would otherwise read as block quotes.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

from paperlens.base import _docstrings as docstrings
from paperlens.machinery._operation import paged_doc

_ROLE = re.compile(r":(?:class|meth|func|mod|data|attr|exc|obj):`~?([^`]+)`")
_DOUBLE = re.compile(r"``([^`]+?)``")
_JOINED = re.compile(r"^(\s+)(\w+(?:,\s*\w+)+):\s+(.*)$")


def _decorator_call(obj: griffe.Object, name: str) -> griffe.ExprCall | None:
    """The decorator ``@name(...)`` of ``obj``, a function; None when it has none."""
    if not isinstance(obj, griffe.Function):
        return None
    calls = (decorator.value for decorator in obj.decorators if isinstance(decorator.value, griffe.ExprCall))
    return next((call for call in calls if str(call.function) == name), None)


def _returns(func: griffe.Function) -> Any:
    operation, pages = _decorator_call(func, "operation"), _decorator_call(func, "pages")
    if operation is not None and operation.arguments:
        return operation.arguments[0]
    if pages is not None and len(pages.arguments) > 1:
        module = func.package["machinery._pagination"]
        return griffe.ExprSubscript(griffe.ExprName("Paginator", parent=module), pages.arguments[1])
    workflow = any(str(decorator.value) == "workflow" for decorator in func.decorators)
    if workflow and isinstance(func.returns, griffe.ExprSubscript):
        return func.returns.slice  # Plan[R] -> R
    return None


def _prototype(obj: griffe.Object) -> griffe.Function | None:
    """The function whose parameters ``@parameters_of(...)`` gives ``obj``, a sibling of it."""
    call = _decorator_call(obj, "parameters_of")
    if call is None or obj.parent is None:
        return None
    prototype = obj.parent.members[str(call.arguments[0])]
    assert isinstance(prototype, griffe.Function)
    return prototype


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


def _inherit_attributes(cls: griffe.Class, done: set[str]) -> None:
    """As ``paperlens.results._model.Model.__init_subclass__``, bases first."""
    if cls.path in done:
        return
    done.add(cls.path)
    bases = [base for base in cls.resolved_bases if base.docstring is not None]
    for base in bases:
        _inherit_attributes(base, done)
    if cls.docstring is not None and any(klass.path == "paperlens.results._model.Model" for klass in cls.mro()):
        theirs = [base.docstring.value for base in bases if base.docstring is not None]
        cls.docstring.value = docstrings.inherited(cls.docstring.value, theirs, "Attributes:")


def _classes(obj: griffe.Object) -> list[griffe.Class]:
    found: list[griffe.Class] = []
    for member in obj.members.values():
        if isinstance(member, griffe.Class):
            found.append(member)
        if isinstance(member, griffe.Module | griffe.Class):
            found.extend(_classes(member))
    return found


class PaperlensDocs(griffe.Extension):
    """Return types of operation definitions; inherited attributes; docstrings in Markdown."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.name == "paperlens":
            # Model's hook that writes the inherited attribute entries is machinery, not part of a result.
            pkg["results._model.Model"].members.pop("__init_subclass__", None)
            done: set[str] = set()
            for cls in _classes(pkg):
                _inherit_attributes(cls, done)

    def on_function(self, *, func: griffe.Function, **kwargs: Any) -> None:
        returns = _returns(func)
        if returns is not None:
            func.returns = returns
        prototype = _prototype(func)
        if prototype is not None:
            func.parameters = griffe.Parameters(
                *(
                    griffe.Parameter(p.name, annotation=p.annotation, kind=p.kind, default=p.default)
                    for p in prototype.parameters
                )
            )
            for parameter in func.parameters:
                parameter.function = func

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is None:
            return
        text = obj.docstring.value
        if _decorator_call(obj, "pages") is not None:
            names = [parameter.name for parameter in obj.parameters][1:]  # after ``self``
            text = paged_doc(text, names, obj.name.removeprefix("iter_"))
        prototype = _prototype(obj)
        if prototype is not None:
            text = docstrings.as_for(text, [parameter.name for parameter in prototype.parameters], prototype.name)
        obj.docstring.value = _markdown(text)
