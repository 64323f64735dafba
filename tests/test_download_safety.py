"""Downloads against a hostile service: a name it chooses never replaces a file of the user's
(``overwrite=False`` by default) and is stripped of what could disguise or hide it."""

from __future__ import annotations

import errno
from pathlib import Path
from urllib.parse import quote

import pytest
from pytest_httpserver import HTTPServer

import paperlens
from paperlens.base._disposition import safe_filename

DATA = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
MINE = b"the user's own file\n"


def serve(httpserver: HTTPServer, name: str) -> None:
    """Every ``/resource`` answers DATA, named ``name`` (as RFC 5987 UTF-8, any character)."""
    disposition = f"attachment; filename*=UTF-8''{quote(name, safe='')}"
    httpserver.expect_request("/resource").respond_with_data(
        DATA, content_type="application/octet-stream", headers={"Content-Disposition": disposition}
    )


async def download(client, name: str, dest, **options) -> Path:
    """``download_resource`` of the sync client or, for an ``AsyncClient``, awaited."""
    if isinstance(client, paperlens.AsyncClient):
        return await client.download_resource(name, dest, **options)
    return client.download_resource(name, dest, **options)


@pytest.fixture(params=["sync", "async"])
def any_client(request, client, aclient):
    return client if request.param == "sync" else aclient


@pytest.mark.parametrize("served", ["notes.txt", ".bashrc"])
async def test_a_name_the_service_chooses_never_replaces_a_file(any_client, httpserver, tmp_path, served):
    serve(httpserver, served)
    mine = tmp_path / served.lstrip(".")
    mine.write_bytes(MINE)
    with pytest.raises(FileExistsError, match=f"{mine} exists: pass overwrite=True to replace it") as refused:
        await download(any_client, "files/x", tmp_path)
    assert refused.value.errno == errno.EEXIST
    assert mine.read_bytes() == MINE and [p.name for p in tmp_path.iterdir()] == [mine.name]
    path = await download(any_client, "files/x", tmp_path, overwrite=True)
    assert path == mine and mine.read_bytes() == DATA and [p.name for p in tmp_path.iterdir()] == [mine.name]


async def test_a_file_named_by_the_caller_is_refused_before_any_request(any_client, httpserver, tmp_path):
    serve(httpserver, "fig.png")
    mine = tmp_path / "fig.png"
    mine.write_bytes(MINE)
    dangling = tmp_path / "link.png"
    dangling.symlink_to(tmp_path / "nowhere")
    for dest in (mine, dangling):
        with pytest.raises(FileExistsError, match=f"{dest} exists: pass overwrite=True"):
            await download(any_client, "figures/fig.png", dest)
    assert httpserver.log == [] and mine.read_bytes() == MINE


async def test_overwrite_replaces_a_link_never_its_target(any_client, httpserver, tmp_path):
    serve(httpserver, "fig.png")
    victim = tmp_path / "victim.txt"
    victim.write_bytes(MINE)
    link = tmp_path / "folder" / "fig.png"
    link.parent.mkdir()
    link.symlink_to(victim)
    with pytest.raises(FileExistsError):
        await download(any_client, "figures/fig.png", link.parent)
    assert link.is_symlink()
    path = await download(any_client, "figures/fig.png", link.parent, overwrite=True)
    assert path == link and not link.is_symlink() and link.read_bytes() == DATA and victim.read_bytes() == MINE


@pytest.mark.parametrize(
    ("served", "written"),
    [
        ("invoice\u202egnp.exe", "invoicegnp.exe"),  # shows as invoiceexe.png
        ("\u2066report\u2069\u200b.pdf", "report.pdf"),
        ("..hidden", "hidden"),
        ("CON", "_CON"),
        ("nul.txt", "_nul.txt"),
        ("COM1.png", "_COM1.png"),
        ("trailing. . ", "trailing"),
        ("../../etc/passwd", "passwd"),
        ("a" * 300 + ".png", "a" * 255),
    ],
)
async def test_a_served_name_is_made_safe_before_it_is_written(any_client, httpserver, tmp_path, served, written):
    serve(httpserver, served)
    path = await download(any_client, "files/x", tmp_path)
    assert path == tmp_path / written and path.read_bytes() == DATA
    assert [p.name for p in tmp_path.iterdir()] == [written]
    resource = any_client.resource("files/x")
    assert (await resource if isinstance(any_client, paperlens.AsyncClient) else resource).filename == written


def test_names_left_empty_fall_back():
    assert [safe_filename(name) for name in ["\u202e", "...", ". .", "/", "a/\u200b"]] == [None] * 5
    assert safe_filename("CONSOLE.txt") == "CONSOLE.txt" and safe_filename("con.tar.gz") == "_con.tar.gz"
