"""`import paperlens` stays light: the workflows, asyncio and the result types load on first
use, and every public name still resolves (a fresh interpreter each, so nothing is imported
already)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.test_pandas import PYTHON_DIR


def run(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_import_leaves_the_workflows_asyncio_and_the_result_types_for_later() -> None:
    heavy = (
        "asyncio",
        "dataclasses",
        "inspect",
        "pathlib",
        "paperlens.results._model",
        "paperlens.results._types_open_platform",
        "paperlens.workflows.deduplication",
        "paperlens.results.export",
        "paperlens.results._formats",
        "paperlens.base._citation",
        "paperlens.workflows.matching",
        "paperlens.workflows.snowball",
        "paperlens.workflows.estimate",
        "paperlens.bibliometrics",
        "numpy",
        "scipy",
        "pandas",
        "paperlens.integrations",
        "langchain_core",
        "llama_index",
        "pydantic",
    )
    # What the interpreter's own start imported (site hooks may import pathlib) is not ours.
    code = (
        "import sys\nbefore = set(sys.modules)\nimport paperlens\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules and m not in before))"
    )
    assert run(code) == "[]"


def test_every_public_name_resolves_and_the_functions_stay_functions() -> None:
    code = (
        "import paperlens, paperlens.deduplication, paperlens.export, paperlens.pandas\n"
        "missing = [n for n in paperlens.__all__ if getattr(paperlens, n, None) is None]\n"
        "assert not missing, missing\n"
        "assert set(paperlens.__all__) <= set(dir(paperlens))\n"
        "print(paperlens.dedupe.__module__, paperlens.to_pandas.__module__, paperlens.to_bibtex.__module__,"
        " paperlens.to_bibtex is paperlens.export.to_bibtex)"
    )
    # Each is defined in its folder's module (paperlens.deduplication, paperlens.pandas and
    # paperlens.export are doors); the formats are written in paperlens.results._formats, below
    # the result types, and paperlens.results.export re-exports them.
    assert run(code) == "paperlens.workflows.deduplication paperlens.results.pandas paperlens.results._formats True"


def test_the_first_read_of_a_method_defines_its_result_type() -> None:
    code = (
        "import inspect, sys, typing, paperlens\n"
        "client = paperlens.Client(api_token='t', base_url='http://127.0.0.1:9')\n"
        "search = client.meta_search\n"
        "assert 'paperlens.results._types_open_platform' in sys.modules\n"
        "from paperlens.types import MetaSearchPage\n"
        "assert inspect.signature(search).return_annotation is MetaSearchPage\n"
        "assert typing.get_type_hints(paperlens.Client.meta_search)['return'] is MetaSearchPage\n"
        "print(inspect.signature(paperlens.AsyncClient.iter_meta_search).return_annotation)"
    )
    assert (
        run(code) == "paperlens.machinery._pagination.Paginator[paperlens.results._types_open_platform.MetadataRecord]"
    )


def test_each_public_submodule_is_an_attribute_of_paperlens_on_first_read() -> None:
    # A member each that only that module defines, read through the package alone.
    members = {
        "bibliometrics": "WeightedNetwork",
        "cache": "ResponseCache",
        "client": "Client",
        "deduplication": "normalize_title",
        "errors": "APIError",
        "estimate": "Estimate",
        "export": "CITATION_FIELDS",
        "filters": "FilterSpec",
        "harvest": "harvest_corpus",
        "lookup": "normalize_doi",
        "matching": "parse_reference",
        "pandas": "to_pandas",
        "sandbox": "Sandbox",
        "schema": "Schema",
        "snowball": "CitationNetwork",
        "types": "MetaSearchPage",
    }
    code = (
        "import sys, paperlens\n"
        f"members = {members!r}\n"
        "assert set(members) <= set(dir(paperlens))\n"
        "for name, member in members.items():\n"
        "    module = getattr(paperlens, name)\n"
        "    assert module is sys.modules['paperlens.' + name], name\n"
        "    assert hasattr(module, member), (name, member)\n"
        "print(paperlens.export.CITATION_FIELDS == sys.modules['paperlens.export'].CITATION_FIELDS)"
    )
    assert run(code) == "True"


def test_no_submodule_hides_a_function_of_the_same_package() -> None:
    # Every submodule imported first, then every public name read: each is still what the
    # module that defines it holds, never a module that an import bound over it.
    code = (
        "import importlib, types, paperlens\n"
        "for name in paperlens._SUBMODULES:\n"
        "    importlib.import_module('paperlens.' + name)\n"
        "modules = [n for n in paperlens.__all__ if isinstance(getattr(paperlens, n), types.ModuleType)]\n"
        "print(modules, callable(paperlens.dedupe), paperlens.to_bibtex.__name__)"
    )
    assert run(code) == "['types'] True to_bibtex"


def test_the_documented_citation_fields_work_after_a_bare_import() -> None:
    code = (
        "import paperlens\n"
        "from paperlens.sandbox import Sandbox\n"
        "with Sandbox(papers=30) as sandbox:\n"
        "    client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url)\n"
        "    page = client.meta_search('', fields=paperlens.export.CITATION_FIELDS, page_size=3)\n"
        "    sent = sandbox.requests()[-1].json()['fields']\n"
        "print(sent == list(paperlens.export.CITATION_FIELDS), len(page.results))"
    )
    assert run(code) == "True 3"
