"""``Client`` and ``AsyncClient``: the same methods, sync and async, over one Rust core.

Each method gathers its parameters (``None`` means "not sent"), the core validates them
against the spec, sends them with retries and pacing, and decodes the answer; the method
then builds the typed result.
"""

from __future__ import annotations

import os
import platform
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from paperlens import _types_open_platform as t
from paperlens._disposition import download_name
from paperlens._model import Response
from paperlens._operation import AsyncCaller, Params, Plan, SyncCaller, operation, pages, params, workflow
from paperlens._pagination import MetaSearchPaging, OffsetPaging, PageNumberPaging
from paperlens._paperlens import NativeClient, __version__
from paperlens._progress import Progress
from paperlens.cache import ResponseCache
from paperlens.errors import PaperlensError, PartialResultWarning, ResponseDecodeError
from paperlens.filters import FacetSpec, FilterSpec, SortSpec, facets_to_wire, filters_to_wire, sort_to_wire

if TYPE_CHECKING:
    from paperlens.lookup import Lookup
    from paperlens.matching import ReferenceMatch
    from paperlens.schema import AsyncSchema, Schema
    from paperlens.snowball import CitationNetwork

if sys.version_info >= (3, 11):
    from typing import Self
else:
    Self = Any

__all__ = ["AsyncClient", "Client"]

M = TypeVar("M", bound=Response)
_MAX_PAGE = 524_288
_USER_AGENT = f"paperlens/{__version__} python/{platform.python_version()}"


def meta_search_params(given: Params) -> Params:
    """``/meta-search`` parameters with filters, sort and facets in their wire form."""
    return {
        **given,
        "filters": filters_to_wire(given["filters"]),
        "sort": sort_to_wire(given["sort"]),
        "facets": facets_to_wire(given["facets"]),
    }


def _checked(result: M, stacklevel: int) -> M:
    """Raises the error a successful status may still carry (``RelationsPage``); warns about a
    ``partial=true`` answer: usable, but not a complete success. ``stacklevel`` counts the
    frames from here to the user's call: this one, ``_call``, the public method, the caller."""
    failure = result._failure()
    if failure is not None:
        raise failure
    partial = result._partial_warning()
    if partial is not None:
        warnings.warn(partial, PartialResultWarning, stacklevel=stacklevel)
    return result


def _joined_text(pages: list[t.Content]) -> str:
    text = "".join(page.text for page in pages)
    expected = pages[-1].text_length if pages else 0
    if expected is not None and len(text) != expected:
        raise ResponseDecodeError(
            f"reassembled {len(text)} code points but the service reports text_length={expected}",
            request_id=pages[-1].request_id if pages else None,
        )
    return text


def _resource_model(
    data: bytes, content_type: str | None, filename: str, disposition: str | None, request_id: str
) -> t.Resource:
    raw = {"data": data, "content_type": content_type, "filename": filename, "content_disposition": disposition}
    return t.Resource._from_wire(raw, request_id)


def _destination(dest: str | os.PathLike[str]) -> str:
    """``dest`` as a path; one ending in a separator names a folder, created if missing."""
    path = os.fspath(dest)
    if path.endswith(("/", os.sep)):
        os.makedirs(path, exist_ok=True)
    return path


class _ClientBase:
    _native: NativeClient | None

    def __init__(
        self,
        *,
        api_token: str | None = None,
        base_url: str | None = None,
        timeout: float = 30.0,
        connect_timeout: float = 10.0,
        max_retries: int = 3,
        service_source: str | None = None,
        rate_limits: str | dict[str, int] | None = "default",
        validate: bool = True,
        max_rate_limit_wait: float = 60.0,
        retry_backoff: float = 1.0,
        cache_dir: str | os.PathLike[str] | None = None,
        cache_ttl: float | None = 3600.0,
        ca_bundle: str | os.PathLike[str] | None = None,
        proxy: str | None = None,
        shared_pacing: bool | str | os.PathLike[str] = False,
        max_concurrency: int | None = None,
    ) -> None:
        """See ``paperlens.Client``. ``cache_dir``: store successful read answers there and
        serve repeated calls from it (no request, no quota) for ``cache_ttl`` seconds (None:
        forever); off by default. See :mod:`paperlens.cache`. ``ca_bundle``: a PEM file of CAs
        trusted on top of the system store, ``SSL_CERT_FILE`` / ``REQUESTS_CA_BUNDLE`` and the
        bundled roots. ``proxy``: a proxy URL, else ``HTTPS_PROXY`` / ``ALL_PROXY``; ``NO_PROXY``
        applies. A plain-http (loopback) base URL is always reached without a proxy.
        ``shared_pacing``: True (a file in a per-user directory) or a file path: the processes of
        this machine using the same token and base URL share one quota pacing state (the file
        holds a hash of the token, never the token). ``max_concurrency``: at most this many
        requests of this client (and those ``with_options`` derives) in flight at once; None: 16."""
        self._native = NativeClient(
            api_token=api_token,
            base_url=base_url,
            timeout=timeout,
            connect_timeout=connect_timeout,
            max_retries=max_retries,
            retry_backoff=retry_backoff,
            max_rate_limit_wait=max_rate_limit_wait,
            service_source=service_source,
            rate_limits=rate_limits,
            validate=validate,
            user_agent=_USER_AGENT,
            cache_dir=None if cache_dir is None else os.fspath(cache_dir),
            cache_ttl=cache_ttl,
            ca_bundle=None if ca_bundle is None else os.fspath(ca_bundle),
            proxy=proxy,
            shared_pacing=shared_pacing,
            max_concurrency=max_concurrency,
        )

    @property
    def _core(self) -> NativeClient:
        if self._native is None:
            raise PaperlensError(f"this {type(self).__name__} is closed")
        return self._native

    @property
    def base_url(self) -> str:
        return self._core.base_url

    @property
    def cache(self) -> ResponseCache:
        """The response cache (``Client(cache_dir=...)``): ``.path``, ``.ttl``, ``.clear()``."""
        return ResponseCache(self._core)

    def _listen(self, callback: Any) -> Any:
        """Registers ``callback(kind, wait, message)`` for this client's transport events;
        returns the function that unregisters it (progress bars show waits this way)."""
        native = self._core
        listener = native.add_listener(callback)
        return lambda: native.remove_listener(listener)

    def _download_bar(self, progress: bool, file_name: str) -> Progress | None:
        if not progress:
            return None
        name = file_name.rsplit("/", 1)[-1]
        return Progress(total=None, unit="B", listen=self._listen, desc=name, unit_scale=True, unit_divisor=1024)

    @contextmanager
    def _download(
        self, file_name: str, dest: str | os.PathLike[str], progress: bool
    ) -> Iterator[tuple[Params, str, Callable[[int, int | None], None] | None]]:
        """The arguments of the core's download, with a progress bar closed afterwards."""
        bar = self._download_bar(progress, file_name)
        try:
            yield {"file_name": file_name}, _destination(dest), _bytes_callback(bar) if bar else None
        finally:
            if bar is not None:
                bar.close()

    def _derive(self, native: NativeClient) -> Self:
        clone = object.__new__(type(self))
        clone._native = native
        return clone

    def with_options(
        self,
        *,
        timeout: float | None = None,
        max_retries: int | None = None,
        max_rate_limit_wait: float | None = None,
        validate: bool | None = None,
        retry_backoff: float | None = None,
    ) -> Self:
        """A client with other call settings, sharing this one's connections and pacing."""
        return self._derive(
            self._core.with_options(
                timeout=timeout,
                max_retries=max_retries,
                max_rate_limit_wait=max_rate_limit_wait,
                validate=validate,
                retry_backoff=retry_backoff,
            )
        )

    def __repr__(self) -> str:
        if self._native is None:
            return f"paperlens.{type(self).__name__}(closed)"
        core = self._native
        return (
            f"paperlens.{type(self).__name__}(base_url={core.base_url!r}, timeout={core.timeout}, "
            f"max_retries={core.max_retries})"
        )


class _OpenPlatform:
    """The six Open Platform operations, for :class:`Client` and :class:`AsyncClient`."""

    @operation(t.AgenticSearchResult)
    def agentic_search(
        self,
        query: str,
        *,
        top_k: int | None = None,
        retrieval: str | None = None,
        sub_queries: int | None = None,
        filters: dict[str, Any] | None = None,
        source_types: list[str] | None = None,
    ) -> Params:
        """Semantic search over paper chunks (``POST /agentic-search``)."""
        return params(locals())

    @operation(t.Content)
    def content(
        self,
        doc_id: str | None = None,
        *,
        source: str | None = None,
        offset: int | None = None,
        limit: int | None = None,
    ) -> Params:
        """A document's full text, or with ``offset`` one page of it in code points (``GET /content``)."""
        return params(locals())

    @pages(t.Content, t.Content, OffsetPaging, unit="pages", options=())
    def iter_content(
        self, doc_id: str | None = None, *, source: str | None = None, offset: int = 0, limit: int | None = None
    ) -> Params:
        """The pages of a text from ``offset``, following ``next_offset`` until ``more`` is false."""
        return params(locals())

    @operation(t.Catalog)
    def meta_catalog(
        self,
        *,
        collection: str | None = None,
        include_sample_values: bool | None = None,
        include_field_stats: bool | None = None,
    ) -> Params:
        """The metadata fields this token may use (``GET /meta-catalog``)."""
        return params(locals())

    @operation(t.MetaSearchPage)
    def meta_search(
        self,
        query: str | None = None,
        *,
        collection: str | None = None,
        filters: FilterSpec | list[FilterSpec] | None = None,
        sort: SortSpec | list[SortSpec] | None = None,
        fields: list[str] | None = None,
        page: int | None = None,
        page_size: int | None = None,
        cursor: str | None = None,
        facets: FacetSpec | list[FacetSpec] | None = None,
        freshness_boost: str | None = None,
        impact_boost: str | None = None,
        language_affinity: str | None = None,
    ) -> Params:
        """One page of bibliographic metadata search (``POST /meta-search``)."""
        return meta_search_params(params(locals()))

    @pages(t.MetaSearchPage, t.MetadataRecord, MetaSearchPaging)
    def iter_meta_search(
        self,
        query: str | None = None,
        *,
        collection: str | None = None,
        filters: FilterSpec | list[FilterSpec] | None = None,
        sort: SortSpec | list[SortSpec] | None = None,
        fields: list[str] | None = None,
        page: int | None = None,
        page_size: int | None = None,
        cursor: str | None = None,
        facets: FacetSpec | list[FacetSpec] | None = None,
        freshness_boost: str | None = None,
        impact_boost: str | None = None,
        language_affinity: str | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> Params:
        """Every record of a search: cursor deep paging, or page numbers up to the 10000 cap
        while a boost is active (the spec forbids cursors then)."""
        return meta_search_params(params(locals()))

    @operation(t.RelationsPage)
    def paper_relations(
        self, unique_id: str, relation: str, *, page: int | None = None, page_size: int | None = None
    ) -> Params:
        """Citations, references or related works of a paper (``POST /meta-paper-relations``)."""
        return params(locals())

    @pages(t.RelationsPage, t.RelationItem, PageNumberPaging)
    def iter_paper_relations(
        self,
        unique_id: str,
        relation: str,
        *,
        page_size: int | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> Params:
        """Every relation item, page after page until ``total_pages``."""
        return params(locals())


class _Workflows:
    """The research workflows of many requests, paced and cached like every call (each plan
    lives in its own module)."""

    @workflow
    def lookup(
        self, ids: Iterable[str], *, by: str = "doi", fields: list[str] | None = None, progress: bool = False
    ) -> Plan[Lookup]:
        """Records for many identifiers, in as few ``/meta-search`` requests as the contract's
        bounds allow (see :mod:`paperlens.lookup`)."""
        from paperlens.lookup import lookup_plan

        return lookup_plan(ids, by=by, fields=fields, progress=progress)

    @workflow
    def match_reference(self, text: str, *, top: int = 5) -> Plan[list[ReferenceMatch]]:
        """Candidate records for a free-text citation, best first (see :mod:`paperlens.matching`)."""
        from paperlens.matching import match_plan

        return match_plan(text, top=top)

    @workflow
    def match_references(
        self, texts: Iterable[str], *, top: int = 5, progress: bool = False
    ) -> Plan[list[list[ReferenceMatch]]]:
        """:meth:`match_reference` for each text, in order."""
        from paperlens.matching import match_many_plan

        return match_many_plan(texts, top=top, progress=progress)

    @workflow
    def snowball(
        self,
        seeds: Iterable[str],
        *,
        direction: str = "both",
        depth: int = 1,
        max_per_paper: int | None = None,
        limit: int | None = None,
        checkpoint: str | os.PathLike[str] | None = None,
        progress: bool = False,
    ) -> Plan[CitationNetwork]:
        """The citation network around ``unique_id`` seeds, breadth first over
        ``/meta-paper-relations`` (see :mod:`paperlens.snowball`)."""
        from paperlens.snowball import snowball_plan

        return snowball_plan(
            seeds,
            direction=direction,
            depth=depth,
            max_per_paper=max_per_paper,
            limit=limit,
            checkpoint=checkpoint,
            progress=progress,
        )


class Client(_ClientBase, _OpenPlatform, _Workflows, SyncCaller):
    """The synchronous client. Safe to share across threads; the GIL is released while waiting.

    >>> client = paperlens.Client()          # token and base URL from the environment
    >>> client.meta_search("protein folding", page_size=5).results[0].title
    """

    def close(self) -> None:
        """Releases the client; its connections close once no derived client uses them."""
        self._native = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, operation: str, model: type[M], params: Params, *, stacklevel: int = 4) -> M:
        raw, request_id = self._core.call(operation, params)
        return _checked(model._from_wire(raw, request_id), stacklevel)

    @cached_property
    def schema(self) -> Schema:
        """The Structured Paper operations (``/paper-schema``): ``client.schema.search(...)``."""
        from paperlens.schema import Schema

        return Schema(self)

    def read_text(self, doc_id: str | None = None, *, source: str | None = None) -> str:
        """The whole text, reassembled exactly from pages of the largest size."""
        return _joined_text(self.iter_content(doc_id, source=source, limit=_MAX_PAGE).to_list())

    def resource(self, file_name: str) -> t.Resource:
        """A binary attachment in memory (``GET /resource``)."""
        return _resource_model(*_unpack(self._core.fetch({"file_name": file_name}), file_name))

    def download_resource(self, file_name: str, dest: str | os.PathLike[str], *, progress: bool = False) -> Path:
        """Streams an attachment to ``dest`` (a file path, or a directory to put it in). The
        bytes go to a temporary file renamed into place, so a failure leaves nothing behind.
        ``progress=True`` shows a tqdm bar of the bytes written (sized by Content-Length)."""
        with self._download(file_name, dest, progress) as args:
            return Path(self._core.download(*args)[0])


class AsyncClient(_ClientBase, _OpenPlatform, _Workflows, AsyncCaller):
    """The asyncio client: the methods of :class:`Client` as coroutines, ``iter_*`` as async
    iterators. Safe to share across tasks.

    >>> async with paperlens.AsyncClient() as client:
    ...     page = await client.meta_search("protein folding")
    """

    async def aclose(self) -> None:
        """Releases the client; its connections close once no derived client uses them."""
        self._native = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _call(self, operation: str, model: type[M], params: Params, *, stacklevel: int = 4) -> M:
        from paperlens import _bridge  # asyncio is imported by the first async call, not by paperlens

        raw, request_id = await _bridge.call(self._core, operation, params)
        return _checked(model._from_wire(raw, request_id), stacklevel)

    @cached_property
    def schema(self) -> AsyncSchema:
        """The Structured Paper operations (``/paper-schema``): ``await client.schema.search(...)``."""
        from paperlens.schema import AsyncSchema

        return AsyncSchema(self)

    async def read_text(self, doc_id: str | None = None, *, source: str | None = None) -> str:
        """The whole text, reassembled exactly from pages of the largest size."""
        return _joined_text(await self.iter_content(doc_id, source=source, limit=_MAX_PAGE).to_list())

    async def resource(self, file_name: str) -> t.Resource:
        """A binary attachment in memory (``GET /resource``)."""
        from paperlens import _bridge

        return _resource_model(*_unpack(await _bridge.fetch(self._core, {"file_name": file_name}), file_name))

    async def download_resource(self, file_name: str, dest: str | os.PathLike[str], *, progress: bool = False) -> Path:
        """Streams an attachment to ``dest`` (a file path, or a directory to put it in). The
        bytes go to a temporary file renamed into place, so a failure leaves nothing behind.
        ``progress=True`` shows a tqdm bar of the bytes written (sized by Content-Length)."""
        from paperlens import _bridge

        with self._download(file_name, dest, progress) as args:
            return Path((await _bridge.download(self._core, *args))[0])


def _bytes_callback(bar: Progress) -> Any:
    """``(written, content_length)`` from the transport, as updates of a bar of bytes."""
    done = 0

    def on_bytes(written: int, total: int | None) -> None:
        nonlocal done
        bar.set_total(total)
        if written > done:
            bar.update(written - done)
            done = written

    return on_bytes


def _unpack(
    answer: tuple[bytes, str | None, str | None, str], file_name: str
) -> tuple[bytes, str | None, str, str | None, str]:
    data, content_type, disposition, request_id = answer
    filename = download_name(disposition, file_name)
    return data, content_type, filename, disposition, request_id
