"""The extension's allocator, side by side: builds that differ only in their ``#[global_allocator]``,
each measured in an interpreter of its own, in interleaved rounds against one sandbox process.

Run:  python benches/bench_allocator.py NAME=PATH [NAME=PATH ...] [--rounds N]

Each PATH is a built extension (``_paperlens.cpython-*.so``): build a variant with
``maturin develop --release --skip-install`` and copy ``python/paperlens/_paperlens*.so`` aside before
building the next. Each variant runs this tree's Python layer with its own extension, the figures of
``bench_client.py`` that the allocator moves: async calls per second at 64 in flight against
aiohttp + orjson, and the sync client's 8 threads over 1 thread. Rounds alternate the variants, so
that the machine's noise falls on all of them; the table gives each figure's median and range.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent / "python" / "paperlens"
FIGURES = {
    "async 10 hits vs aiohttp": ("/agentic-search", "async"),
    "async 200 records vs aiohttp": ("/meta-search", "async"),
    "8 threads over 1, 10 hits": ("/agentic-search", "threads"),
    "8 threads over 1, 200 records": ("/meta-search", "threads"),
}


def child(base_url: str, token: str, pid: int) -> dict[str, float]:
    """This interpreter's figures (its paperlens is the variant's)."""
    sys.path.insert(0, str(HERE))
    from _server import SandboxProcess
    from bench_client import CALLS, async_throughput, thread_scaling

    server = SandboxProcess(types.SimpleNamespace(pid=pid), base_url, token)  # type: ignore[arg-type]
    bodies = {path: body for path, body in CALLS.values()}
    figures = {}
    for name, (path, kind) in FIGURES.items():
        if kind == "async":
            rates, _ = asyncio.run(async_throughput(server, path, bodies[path], only=("paperlens", "aiohttp + orjson")))
            figures[name] = rates["paperlens"] / rates["aiohttp + orjson"]
        else:
            one, many = thread_scaling(server, path, bodies[path])
            figures[name] = many / one
    return figures


def variant_tree(root: Path, name: str, extension: Path) -> Path:
    """A copy of this tree's Python package with the variant's extension in it."""
    target = root / name
    shutil.copytree(PACKAGE, target / "paperlens", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    shutil.copy2(extension, target / "paperlens" / extension.name)
    return target


def main(argv: list[str]) -> None:
    rounds = 3
    if "--rounds" in argv:
        at = argv.index("--rounds")
        rounds = int(argv[at + 1])
        del argv[at : at + 2]
    variants = dict(arg.split("=", 1) for arg in argv)
    if not variants:
        raise SystemExit(__doc__)
    sys.path.insert(0, str(HERE))
    from _server import start_sandbox

    server = start_sandbox()
    results: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    try:
        with tempfile.TemporaryDirectory() as folder:
            trees = {name: variant_tree(Path(folder), name, Path(path)) for name, path in variants.items()}
            for _ in range(rounds):
                for name, tree in trees.items():
                    env = {**os.environ, "PYTHONPATH": str(tree)}
                    command = [
                        sys.executable,
                        __file__,
                        "--child",
                        server.base_url,
                        server.token,
                        str(server.process.pid),
                    ]
                    run = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
                    if run.returncode != 0:
                        raise SystemExit(f"{name} failed ({run.returncode}):\n{run.stderr}")
                    results[name].append(json.loads(run.stdout))
    finally:
        server.stop()
    print(f"python {sys.version.split()[0]}; {rounds} interleaved rounds; median (range)\n")
    print("| figure | " + " | ".join(variants) + " |")
    print("|---|" + "---|" * len(variants))
    for figure in FIGURES:
        cells = []
        for name in variants:
            values = [run[figure] for run in results[name]]
            cells.append(f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f})")
        print(f"| {figure} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        base_url, token, pid = sys.argv[2:5]
        print(json.dumps(child(base_url, token, int(pid))))
    else:
        main(sys.argv[1:])
