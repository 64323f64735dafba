"""MkDocs hooks of the documentation site (mkdocs.yml loads them; not part of paperlens).

- The notebooks live in ``notebooks/`` at the root of the repository, where the tests run
  them; they join the site as ``notebooks/<name>.ipynb`` before mkdocs-jupyter sees the files,
  and the nav's "Notebooks" section lists every one (titled by its first heading), the
  quickstart first, so a new notebook needs no change here.
- A notebook's link to another notebook (``citation-graph.ipynb``) leads to that notebook's page.
- After the build, every internal ``href``/``src`` of every page (those written in Markdown,
  and those mkdocstrings and the notebooks produce) must name a file of the site and, with a
  ``#fragment``, an ``id`` on that page. A broken one is a warning, so ``--strict`` fails.
"""

from __future__ import annotations

import json
import logging
import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.paperlens")
NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def _title(notebook: Path) -> str:
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "markdown":
            heading = re.search(r"^#+\s+(.+)$", "".join(cell["source"]), re.MULTILINE)
            if heading:
                return heading.group(1).strip()
    return notebook.stem.replace("-", " ").capitalize()


def on_config(config: Any) -> Any:
    notebooks = sorted(NOTEBOOKS.glob("*.ipynb"), key=lambda path: (path.stem != "quickstart", path.stem))
    for section in config["nav"]:
        if isinstance(section, dict) and "Notebooks" in section:
            section["Notebooks"] = [{_title(path): f"notebooks/{path.name}"} for path in notebooks]
    return config


@event_priority(100)  # before mkdocs-jupyter wraps the notebooks
def on_files(files: Files, config: Any) -> Files:
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        path = f"notebooks/{notebook.name}"
        files.append(File(path, str(NOTEBOOKS.parent), config["site_dir"], config["use_directory_urls"]))
    return files


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    if not page.file.src_uri.endswith(".ipynb"):
        return html

    def page_of(match: re.Match[str]) -> str:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), match.group(2)))
        target = files.get_file_from_path(path)
        if target is None:
            return match.group(0)  # left as written: the link check reports it
        return f'{match.group(1)}"{target.url_relative_to(page.file)}{match.group(3) or ""}"'

    return re.sub(r'(href=)"([^":#]+\.ipynb)(#[^"]*)?"', page_of, html)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif name in ("href", "src"):
                self.links.append(value)


def _parse(path: Path, cache: dict[Path, _Links]) -> _Links:
    if path not in cache:
        parser = _Links()
        parser.feed(path.read_text(encoding="utf-8"))
        cache[path] = parser
    return cache[path]


def on_post_build(config: Any) -> None:
    site = Path(config["site_dir"])
    cache: dict[Path, _Links] = {}
    broken = 0
    for page in sorted(site.rglob("*.html")):
        if page.name == "404.html":
            continue  # its links are absolute, made for any depth
        for link in _parse(page, cache).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("//", "data:", "mailto:")):
                continue
            target = page if not parts.path else page.parent / unquote(parts.path)
            target = Path(posixpath.normpath(target.as_posix()))
            if target.is_dir():
                target = target / "index.html"
            problem = None
            if not target.is_file():
                problem = "no such file"
            elif (
                parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _parse(target, cache).ids
            ):
                problem = f"no anchor #{parts.fragment}"
            if problem:
                broken += 1
                log.warning("broken link in %s: %s (%s)", page.relative_to(site), link, problem)
    log.info("link check: %d pages, %d broken internal links", len(cache), broken)
