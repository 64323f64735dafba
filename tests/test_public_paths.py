"""Every public import path of paperlens still gives the names it gave: ``public_surface.json``
was recorded from the tree before its modules moved into the folders of their layers (for each
public module its ``__all__``, or the functions and classes it defines when it has none, and
the facade's ``__all__``)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

import paperlens
from tests.test_import import run

SURFACE: dict[str, list[str]] = json.loads((Path(__file__).parent / "public_surface.json").read_text())


def test_the_surface_lists_the_facade_and_every_public_module() -> None:
    assert SURFACE["paperlens"] == sorted(paperlens.__all__)
    assert {"paperlens.client", "paperlens.errors", "paperlens.harvest", "paperlens.types"} <= set(SURFACE)
    assert "Client" in SURFACE["paperlens.client"]
    assert "harvest_corpus" in SURFACE["paperlens.harvest"]


@pytest.mark.parametrize("path", sorted(SURFACE))
def test_a_public_path_imports_and_gives_every_name_it_gave(path: str) -> None:
    module = importlib.import_module(path)
    missing = [name for name in SURFACE[path] if not hasattr(module, name)]
    assert missing == []
    exported = getattr(module, "__all__", None)
    if exported is not None:
        assert sorted(exported) == SURFACE[path]


@pytest.mark.parametrize("path", sorted(set(SURFACE) - {"paperlens"}))
def test_a_name_the_facade_has_too_is_the_same_object(path: str) -> None:
    module = importlib.import_module(path)
    shared = [name for name in SURFACE[path] if name in paperlens.__all__]
    assert [name for name in shared if getattr(module, name) is not getattr(paperlens, name)] == []


def test_each_lazily_exposed_public_submodule_is_the_facades_attribute_in_a_fresh_interpreter() -> None:
    # In this process an earlier import may have bound the attribute already (an imported
    # submodule always is one); a fresh interpreter reads every attribute before importing any.
    paths = sorted(f"paperlens.{name}" for name in paperlens._SUBMODULES if f"paperlens.{name}" in SURFACE)
    assert paths
    code = (
        "import importlib, paperlens\n"
        f"paths = {paths!r}\n"
        "read = {path: getattr(paperlens, path.rpartition('.')[2]) for path in paths}\n"
        "print([path for path in paths if read[path] is importlib.import_module(path)])"
    )
    assert run(code) == repr(paths)
