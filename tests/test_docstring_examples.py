"""Every ``>>>`` example of the docstrings of python/paperlens runs against a sandbox, and
prints what it shows, so that help() and the API reference cannot drift from the code.

- One test per docstring: its examples run in order in one namespace, in a temporary working
  directory, as test_docs_examples.py runs a page: ``paperlens`` imported and ``client`` a
  ``paperlens.Client()`` (an ``AsyncClient`` in a docstring that awaits), the token variables
  naming a ``Sandbox(papers=2000, seed=0)``; ``sid`` is a paper of its Structured Paper
  search. Any other name an example uses is defined in its docstring.
- An example's expected output is doctest's: what follows its ``>>>`` lines up to a blank
  line, compared with ELLIPSIS and NORMALIZE_WHITESPACE (``...`` stands for any text). An
  example raises nothing: one that shows an error catches it and prints it. A top-level
  ``await`` runs on the docstring's event loop.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import contextlib
import doctest
import importlib
import inspect
import io
import pkgutil
import types
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

import paperlens
from paperlens.sandbox import Sandbox

OUTPUT_CHECK = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
SANDBOX = {"papers": 2000, "seed": 0}


def public_modules() -> list[types.ModuleType]:
    """The modules of python/paperlens whose docstrings reach a reader (help(), the API
    reference): every module but the entry points and the extension."""
    names = (m.name for m in pkgutil.walk_packages(paperlens.__path__, "paperlens."))
    return [paperlens, *(importlib.import_module(n) for n in names if not n.endswith(("__main__", "._paperlens")))]


def docstrings() -> list[doctest.DocTest]:
    """Every docstring with examples, each found once (in the module that defines it)."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    found = {test.name: test for module in public_modules() for test in finder.find(module) if test.examples}
    return [found[name] for name in sorted(found)]


DOCSTRINGS = docstrings()


def test_the_docstrings_of_the_public_api_are_found() -> None:
    names = {test.name for test in DOCSTRINGS}
    assert {
        "paperlens",
        "paperlens.clients.schema._SchemaOperations.resolve_provenance",
        "paperlens.clients.client._Workflows.lookup",
    } <= names


def run_example(example: doctest.Example, namespace: dict[str, Any], loop: asyncio.AbstractEventLoop) -> str:
    """Runs one example as a Python prompt does (a top-level ``await`` on ``loop``); returns
    what the prompt shows."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = compile(example.source, "<example>", "single", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        result = eval(code, namespace)
        if inspect.iscoroutine(result):
            loop.run_until_complete(result)
    return printed.getvalue()


def differences(test: doctest.DocTest, namespace: dict[str, Any]) -> list[str]:
    checker = doctest.OutputChecker()
    found = []
    loop = asyncio.new_event_loop()
    try:
        for example in test.examples:
            got, want = run_example(example, namespace, loop), example.want
            if not checker.check_output(want, got, OUTPUT_CHECK):
                line = (test.lineno or 0) + example.lineno + 1
                found.append(f"{test.filename}:{line}: {example.source.strip()!r} shows {want!r}, prints {got!r}")
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
    return found


@pytest.fixture(scope="module")
def sid(sandbox: Sandbox) -> str:
    with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url) as client:
        return client.schema.search("model", size=1).items[0].schema_id


@pytest.fixture
def namespace(sandbox: Sandbox, sid: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[dict[str, Any]]:
    monkeypatch.setenv("PAPERLENS_API_TOKEN", sandbox.token)
    monkeypatch.setenv("PAPERLENS_BASE_URL", sandbox.base_url)
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        yield {"__builtins__": builtins, "__name__": "__main__", "paperlens": paperlens, "sid": sid}


@pytest.mark.parametrize("test", DOCSTRINGS, ids=[test.name for test in DOCSTRINGS])
def test_examples_of_a_docstring_run_and_print_what_they_show(test: doctest.DocTest, namespace: dict[str, Any]) -> None:
    awaits = any("await " in example.source or "async " in example.source for example in test.examples)
    namespace["client"] = paperlens.AsyncClient() if awaits else paperlens.Client()
    assert differences(test, namespace) == []
