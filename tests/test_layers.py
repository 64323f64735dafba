"""No import cycle among the modules of python/paperlens, counting every import statement: those
inside functions (the lazy ones) and under TYPE_CHECKING too. The layers themselves are checked by
import-linter (``lint-imports``, pyproject's [tool.importlinter]; README, Development), over the
folders of python/paperlens."""

from __future__ import annotations

import grimp


def _cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in imports[module]:
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(imports):
        if module not in index:
            visit(module)
    return found


def _imports() -> dict[str, set[str]]:
    graph = grimp.build_graph("paperlens", cache_dir=None, exclude_type_checking_imports=False)
    return {m: {i for i in graph.find_modules_directly_imported_by(m) if i in graph.modules} for m in graph.modules}


def test_the_cycle_finder_finds_a_lazy_import_back() -> None:
    imports = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(imports) == [["a", "b", "c"]]


def test_no_module_of_paperlens_is_in_an_import_cycle() -> None:
    imports = _imports()
    # The graph is the package's: the lazy imports are in it (the client's workflow methods),
    # and the doors with what they re-export.
    assert "paperlens.workflows.lookup" in imports["paperlens.clients.client"]
    assert imports["paperlens.lookup"] == {"paperlens.workflows.lookup"}
    assert _cycles(imports) == []
