"""Every ```python block of README.md and docs/**/*.md runs against a fresh sandbox, so an
example cannot drift from what the code does.

- One test per page: its blocks run in order in one namespace, as a reader pastes them into a
  fresh interpreter (a new process, in a temporary working directory). A page starts where
  Getting started leaves the reader: ``paperlens`` imported and ``client = paperlens.Client()``,
  the token variables naming the sandbox. Any other name a block uses is defined on its page.
- Shown output: a ``# -> TEXT`` comment, at the end of a top-level statement or on the lines
  right after it, is what a Python prompt shows for that statement: what it prints, then the
  ``repr`` of its value unless that is None. ``...`` stands for any text and runs of whitespace
  compare equal (doctest's ELLIPSIS and NORMALIZE_WHITESPACE). Other comments are prose.
- A block that cannot run here by nature follows ``<!-- example: not run, REASON -->``.

``python tests/test_docs_examples.py PAGE`` runs one page against the service the token
variables name (what the test does in its process).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import doctest
import io
import os
import re
import subprocess
import sys
import tokenize
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import paperlens
from paperlens.sandbox import Sandbox

ROOT = Path(__file__).resolve().parents[1]
MARKDOWN = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SHOWN = "# ->"
NOT_RUN = re.compile(r"<!--\s*example:\s*not run,\s*(?P<reason>\S.*?)\s*-->")
FENCE = re.compile(r"^```(?P<info>\S*)\s*$")
OUTPUT_CHECK = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
# The corpus of `Sandbox()`, which README and Getting started start themselves: a shown output is
# what a reader sees.
SANDBOX = {"papers": 2000, "seed": 0}
PAGE_TIMEOUT = 600  # seconds: a guard against a hang (a page takes seconds), not a speed check


@dataclass(frozen=True)
class Block:
    """A ```python block: its code and the line of the page where the code starts."""

    code: str
    line: int
    not_run: str | None


def blocks_of(page: Path) -> list[Block]:
    """The ```python blocks of a Markdown page, with the reason of a not-run marker (the
    nearest non-blank line before the fence)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        end = next(i for i in range(index + 1, len(lines)) if lines[i].rstrip() == "```")
        if opening["info"] == "python":
            before = next((line for line in reversed(lines[:index]) if line.strip()), "")
            marker = NOT_RUN.fullmatch(before.strip())
            code = "\n".join(lines[index + 1 : end]) + "\n"
            found.append(Block(code, index + 2, marker["reason"] if marker else None))
        index = end + 1
    return found


def shown_outputs(code: str) -> dict[int, str]:
    """The ``# -> TEXT`` comments of a block by line (1-based), TEXT only."""
    shown = {}
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT and token.string.startswith(SHOWN):
            shown[token.start[0]] = token.string[len(SHOWN) :].strip()
    return shown


def statements_with_output(tree: ast.Module, shown: dict[int, str]) -> Iterator[tuple[ast.stmt, str | None]]:
    """Each top-level statement with the output shown for it (its ``# ->`` lines, joined), or
    None. A comment belongs to the last statement starting at or before its line."""
    starts = [statement.lineno for statement in tree.body]
    owned: dict[int, list[str]] = {}
    for line, text in sorted(shown.items()):
        owner = max((i for i, start in enumerate(starts) if start <= line), default=None)
        assert owner is not None, f"line {line}: a shown output before any statement"
        owned.setdefault(owner, []).append(text)
    for index, statement in enumerate(tree.body):
        yield statement, "\n".join(owned[index]) if index in owned else None


def run_statement(statement: ast.stmt, namespace: dict[str, Any], filename: str) -> str:
    """Runs one statement as a Python prompt does; returns what the prompt shows."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        if isinstance(statement, ast.Expr):
            value = eval(compile(ast.Expression(statement.value), filename, "eval"), namespace)
            if value is not None:
                print(repr(value))
        else:
            exec(compile(ast.Module([statement], type_ignores=[]), filename, "exec"), namespace)
    sys.stdout.write(printed.getvalue())
    return printed.getvalue()


def run_block(block: Block, namespace: dict[str, Any], page: Path) -> list[str]:
    """Runs a block statement by statement; returns the differences between shown and actual
    output, each naming its line of the page."""
    tree = ast.parse(block.code, str(page))
    ast.increment_lineno(tree, block.line - 1)
    shown = {line + block.line - 1: text for line, text in shown_outputs(block.code).items()}
    differences = []
    for statement, want in statements_with_output(tree, shown):
        got = run_statement(statement, namespace, str(page))
        if want is not None and not doctest.OutputChecker().check_output(want + "\n", got, OUTPUT_CHECK):
            differences.append(f"{page.relative_to(ROOT)}:{statement.lineno}: shows {want!r}, prints {got!r}")
    return differences


PAGES = [page for page in MARKDOWN if any(block.not_run is None for block in blocks_of(page))]


def test_every_page_with_python_examples_is_found() -> None:
    names = {str(page.relative_to(ROOT)) for page in PAGES}
    assert {"README.md", "docs/getting-started.md", "docs/workflows/lookup.md"} <= names


def test_a_marked_block_keeps_the_reason_it_is_not_run(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Text\n\n```python\na = 1\n```\n\n<!-- example: not run, needs a proxy -->\n```python\nb = 2\n```\n"
        "\n```bash\nls\n```\n"
    )
    assert blocks_of(page) == [Block("a = 1\n", 4, None), Block("b = 2\n", 9, "needs a proxy")]


def test_a_shown_output_belongs_to_the_statement_before_it() -> None:
    code = 'x = 1\nx + 1  # -> 2\nprint("a")\n# -> a\nfor i in (1, 2):\n    print(i)\n# -> 1\n# -> 2\n'
    tree = ast.parse(code)
    owned = [want for _, want in statements_with_output(tree, shown_outputs(code))]
    assert owned == [None, "2", "a", "1\n2"]


def run_page(page: Path) -> list[str]:
    """Runs the blocks of a page in order in one namespace, from the point Getting started
    leaves a reader; returns the differences of shown and actual output."""
    # The page's own __main__, as a pasted script has: what it defines is found there by pickle
    # (a function handed to a process pool).
    main = types.ModuleType("__main__")
    sys.modules["__main__"] = main
    namespace: dict[str, Any] = main.__dict__
    namespace.update({"__builtins__": builtins, "paperlens": paperlens})
    namespace["client"] = paperlens.Client()
    differences = []
    for block in blocks_of(page):
        if block.not_run is None:
            differences += run_block(block, namespace, page)
    return differences


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_examples_of_a_page_run_and_print_what_they_show(page: Path, sandbox: Sandbox, tmp_path: Path) -> None:
    environment = {
        **os.environ,
        "PAPERLENS_API_TOKEN": sandbox.token,
        "PAPERLENS_BASE_URL": sandbox.base_url,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]),
    }
    run = subprocess.run(
        [sys.executable, __file__, str(page)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=PAGE_TIMEOUT,
    )
    assert run.returncode == 0, run.stderr[-6000:]


if __name__ == "__main__":
    found = run_page(Path(sys.argv[1]).resolve())
    print(*found, sep="\n", file=sys.stderr)
    sys.exit(1 if found else 0)
