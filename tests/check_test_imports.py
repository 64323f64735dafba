"""Every package a test imports is installed, and named in an extra that the test command installs.

Run by ``.ci/run`` right after ``pip install -e ".[test,docs]"``: a test that imports a module which
only happens to be installed (the system's Python, a transitive dependency of another tool) fails
here, loudly and before the suite, instead of passing on one machine and failing on a fresh one.
"""

from __future__ import annotations

import ast
import re
import sys
from importlib import metadata, util
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
EXTRAS = ("test", "docs")


def imported_top_modules(folder: Path) -> dict[str, set[str]]:
    """Each absolute import's top-level module, with the files that import it."""
    found: dict[str, set[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.partition(".")[0], set()).add(path.relative_to(ROOT).as_posix())
    return found


def requirement_name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def main() -> int:
    with open(ROOT / "pyproject.toml", "rb") as file:
        extras = tomllib.load(file)["project"]["optional-dependencies"]
    named = {requirement_name(r) for extra in EXTRAS for r in extras[extra]}
    local = {path.stem for path in TESTS.rglob("*.py")} | {"tests", "paperlens"}
    distributions = metadata.packages_distributions()
    problems = []
    for module, files in sorted(imported_top_modules(TESTS).items()):
        if module in sys.stdlib_module_names or module in local or module == "_testcapi":
            continue
        where = ", ".join(sorted(files))
        if util.find_spec(module) is None:
            problems.append(f"{module}: imported by {where}, but not installed")
            continue
        owners = {name.lower().replace("_", "-") for name in distributions.get(module, [])}
        if not owners & named:
            problems.append(
                f"{module}: imported by {where}, installed by {sorted(owners) or 'nothing known'}, "
                f"but named in none of the extras {', '.join(EXTRAS)} (pyproject.toml)"
            )
    for problem in problems:
        print(f"check_test_imports: {problem}", file=sys.stderr)
    if not problems:
        print("check_test_imports: every module the tests import comes from the test or docs extra")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
