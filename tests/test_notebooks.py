"""The notebooks of ``notebooks/`` run end to end against a fresh sandbox.

Each notebook is executed in a temporary copy (kernel ``python3``, 120 s per cell) with no
token in the environment, so its first cell starts a ``Sandbox``; any cell error fails.

The outputs committed in the notebooks (so they read well on GitHub without running) are
refreshed the same way: ``python tests/test_notebooks.py [NOTEBOOK...]`` executes the named
notebooks (default: all) in place, after which PNG outputs are re-encoded losslessly to keep
the files small.
"""

from __future__ import annotations

import base64
import io
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT = 120
TOKEN_VARIABLES = ("PAPERLENS_API_TOKEN", "PAPERLENS_BASE_URL")


def kernel_environment(environ: dict[str, str]) -> dict[str, str]:
    """``environ`` with this tree's ``python/`` first on the kernel's import path."""
    paths = [str(ROOT / "python"), *filter(None, environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**environ, "PYTHONPATH": os.pathsep.join(paths)}


def execute(path: Path) -> Any:
    """Runs the notebook at ``path`` in its folder with the ``python3`` kernel of this
    interpreter (the kernel inherits ``os.environ``); returns the executed notebook. A cell
    that raises stops the run with ``nbclient.exceptions.CellExecutionError``."""
    import nbclient
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    return notebook


def errors_of(notebook: Any) -> list[str]:
    """The error outputs of an executed notebook, and the code cells that did not run."""
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        if cell.get("execution_count") is None:
            found.append(f"cell {index} did not run")
        found += [f"cell {index}: {o.ename}: {o.evalue}" for o in cell.outputs if o.output_type == "error"]
    return found


@pytest.mark.parametrize("source", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_against_the_sandbox(source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in TOKEN_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYTHONPATH", kernel_environment(dict(os.environ))["PYTHONPATH"])
    copy = tmp_path / source.name
    shutil.copyfile(source, copy)

    notebook = execute(copy)

    assert errors_of(notebook) == []
    setup = next(cell for cell in notebook.cells if cell.cell_type == "code")
    printed = "".join(o.get("text", "") for o in setup.outputs if o.output_type == "stream")
    assert "against a local sandbox" in printed, printed


def test_every_notebook_is_tested() -> None:
    assert {p.name for p in NOTEBOOKS} == {
        "quickstart.ipynb",
        "literature-analysis.ipynb",
        "citation-graph.ipynb",
        "bibliography.ipynb",
        "snowball-corpus.ipynb",
        "agent-review.ipynb",
        "bibliometric-map.ipynb",
        "living-review.ipynb",
    }


def _shrink_images(notebook: Any) -> None:
    """Re-encodes PNG outputs losslessly (same pixels, smaller files), when Pillow is there."""
    try:
        from PIL import Image
    except ImportError:
        return
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/png" not in data:
                continue
            raw = base64.b64decode(data["image/png"])
            buffer = io.BytesIO()
            Image.open(io.BytesIO(raw)).save(buffer, "PNG", optimize=True)
            if buffer.tell() < len(raw):
                data["image/png"] = base64.b64encode(buffer.getvalue()).decode("ascii")


def main(names: list[str]) -> int:
    """Executes notebooks in place against a sandbox and saves their outputs."""
    import nbformat

    for name in TOKEN_VARIABLES:
        os.environ.pop(name, None)
    os.environ.update(kernel_environment(dict(os.environ)))
    paths = [Path(n).resolve() for n in names] or NOTEBOOKS
    for path in paths:
        notebook = execute(path)
        problems = errors_of(notebook)
        if problems:
            print(f"{path.name}: {problems}", file=sys.stderr)
            return 1
        _shrink_images(notebook)
        nbformat.write(notebook, path)
        print(f"{path.relative_to(ROOT)}: executed and saved ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
