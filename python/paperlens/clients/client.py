"""The code of :mod:`paperlens.client`, the public module that re-exports it and documents it."""

from __future__ import annotations

import errno
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from paperlens._paperlens import NativeClient, __version__, check_params
from paperlens.base import _checks as checks
from paperlens.base._contract import CONTENT_PAGE_MAX
from paperlens.base._disposition import download_name
from paperlens.base._lazy import LazyModule
from paperlens.base._progress import Progress
from paperlens.base.filters import FacetSpec, FilterSpec, SortSpec, facets_to_wire, filters_to_wire, sort_to_wire
from paperlens.errors import PaperlensError, PartialResultWarning, ResourceWriteError, ResponseDecodeError
from paperlens.machinery._operation import AsyncCaller, Params, Plan, SyncCaller, operation, pages, params, workflow
from paperlens.machinery._pagination import MetaSearchPaging, OffsetPaging, PageNumberPaging

# The result types, the cache and paths load on first use: ``import paperlens`` stays light.
if TYPE_CHECKING:
    from pathlib import Path

    from paperlens.clients.schema import AsyncSchema, Schema
    from paperlens.machinery.cache import ResponseCache
    from paperlens.results import _types_open_platform as t
    from paperlens.results._model import Response
    from paperlens.workflows.estimate import Estimate
    from paperlens.workflows.lookup import Lookup
    from paperlens.workflows.matching import ReferenceMatch
    from paperlens.workflows.snowball import CitationNetwork
    from paperlens.workflows.verification import Verification
else:
    t = LazyModule("paperlens.results._types_open_platform")

if sys.version_info >= (3, 11):
    from typing import Self
else:
    Self = Any

__all__ = ["AsyncClient", "Client"]

M = TypeVar("M", bound="Response")
_C = TypeVar("_C", bound="_ClientBase")
_USER_AGENT = f"paperlens/{__version__} python/{'.'.join(map(str, sys.version_info[:3]))}"


def meta_search_params(given: Params) -> Params:
    """``/meta-search`` parameters with filters, sort and facets in their wire form."""
    return {
        **given,
        "filters": filters_to_wire(given["filters"]),
        "sort": sort_to_wire(given["sort"]),
        "facets": facets_to_wire(given["facets"]),
    }


def relation_params(given: Params) -> Params:
    """``/meta-paper-relations`` parameters with ``relation`` in the contract's upper case
    (``"citations"`` as :meth:`Client.snowball` spells it); anything else is left to the core's check."""
    relation = given["relation"]
    return {**given, "relation": relation.upper() if isinstance(relation, str) else relation}


def _checked(result: M, stacklevel: int) -> M:
    """Raises the error a successful status may still carry (``RelationsPage``); warns about an
    answer that is not the whole set (``partial`` or truncated): usable, but not a complete
    success. ``stacklevel`` counts the frames from here to the user's call: this one,
    ``_call``, the public method, the caller."""
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


def check_as_sent(client: object, operation: str, params: Params) -> None:
    """``params`` of ``operation`` refused as ``client`` refuses them before it sends (the
    core's rules; nothing is sent), unless it is a client made with ``validate=False``, which
    sends them as given. Anything but a client (None: the default one) is checked."""
    if not isinstance(client, _ClientBase) or client._core.validate:
        check_params(operation, params)


def _destination(dest: str | os.PathLike[str], overwrite: bool) -> str:
    """``dest`` as a path; one ending in a separator names a folder, created if missing. A
    file already at ``dest`` is a ``FileExistsError`` unless ``overwrite`` (before any request)."""
    path = os.fspath(dest)
    if path.endswith(("/", os.sep)):
        os.makedirs(path, exist_ok=True)
    elif not overwrite and os.path.lexists(path) and not os.path.isdir(path):
        raise FileExistsError(errno.EEXIST, f"{path} exists: pass overwrite=True to replace it", path)
    return path


class _Settings(dict[str, Any]):
    """A client's constructor arguments; its repr hides the token and the passwords of URLs."""

    def __repr__(self) -> str:
        return repr({name: _hidden(name, value) for name, value in self.items()})


def _hidden(name: str, value: Any) -> Any:
    if name == "api_token" and value:
        return "***"
    if isinstance(value, str):
        return _URL_PASSWORD.sub(r"\1***@", value)
    return value


#: The password of a ``scheme://user:password@host`` URL (a proxy's, a Redis server's).
_URL_PASSWORD = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://[^:/@]*:)[^@/]*@")


def _unpickled(cls: type[_C], settings: dict[str, Any], overrides: dict[str, Any], closed: bool) -> _C:
    client = cls(**settings)
    if overrides:
        client = client.with_options(**overrides)
    if closed:
        client._native = None
    return client


class _ClientBase:
    _native: NativeClient | None
    _settings: _Settings
    _overrides: dict[str, Any]

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
        deadline: float | None = None,
        max_response_bytes: int = 256 * 2**20,
        max_download_bytes: int = 2**30,
        max_compression_ratio: int = 100,
    ) -> None:
        """Creates a client; no request is sent until the first call.

        Args:
            api_token: the API token; default: the ``PAPERLENS_API_TOKEN`` environment variable.
                It is sent only to ``base_url`` and never appears in a ``repr``, a log line or
                an exception message; a pickled client holds it (treat the bytes like the token).
            base_url: the service's base URL; default: ``PAPERLENS_BASE_URL``. Plain ``http://``
                is refused unless the host is a loopback address (a sandbox).
            timeout: seconds for one attempt of a request, answer included. Each retry has
                its own: with ``max_retries=3`` a call may take four timeouts plus the backoff
                waits (``deadline`` bounds the whole).
            connect_timeout: seconds to establish a connection.
            max_retries: retries of a 429, 502, 503, 504 or a failed connection (exponential
                backoff with jitter, about 1 s, 2 s, 4 s).
            deadline: seconds a whole call may take, every attempt, retry wait and pacing wait
                included; past it the call raises ``APITimeoutError`` saying so. None: no bound
                but ``timeout`` per attempt. (A paginator or workflow makes one call per
                request: each has its own deadline.)
            service_source: the ``X-Service-Source`` label of every request.
            rate_limits: client-side quota pacing, in requests per minute per quota resource:
                ``"default"`` (30 to ``/meta-search``, 30 shared by all ``/paper-schema``
                operations), a dict such as ``{"meta-search": 120, "paper-schema": 60}``, or
                None to disable pacing.
            validate: check every bound of the contract before sending (a violation raises
                ``ValidationError``); False sends parameters as given.
            max_rate_limit_wait: the longest wait, in seconds, a 429 may ask for before the
                request is retried; a longer one raises ``QuotaExhaustedError`` at once.
            retry_backoff: the first backoff of retries, in seconds (doubled after each).
            cache_dir: store successful read answers in this directory and answer repeated
                calls from it (no request, no quota); off by default. See ``paperlens.cache``.
            cache_ttl: seconds a cached answer is served; None: forever.
            ca_bundle: a PEM file of CAs trusted on top of the system store, ``SSL_CERT_FILE`` /
                ``REQUESTS_CA_BUNDLE`` and the bundled roots.
            proxy: a proxy URL; default: ``HTTPS_PROXY`` / ``ALL_PROXY`` (``NO_PROXY``
                applies). A plain-http (loopback) base URL is always reached directly.
            shared_pacing: True (a file in a per-user directory) or a file path: the processes
                of this machine using the same token and base URL share one quota pacing state
                (the file holds a hash of the token, never the token). A Redis URL
                (``redis://[:password@]host:port/db``, ``rediss://`` for TLS, ``unix:///path``):
                the processes of every machine using that server share it (its keys hold the
                hash); the server must answer when the client is made (ConfigurationError
                otherwise), and a request that finds it gone raises APIConnectionError. Connecting
                and each command are bounded by ``connect_timeout``.
            max_concurrency: at most this many requests of this client (and of the clients
                ``with_options`` derives from it) in flight at once; None: 16.
            max_response_bytes: the largest answer read into memory (decompressed bytes), 256 MiB
                by default; a larger one raises ``ResponseTooLargeError`` having kept nothing.
            max_download_bytes: the largest resource a download writes to disk, 1 GiB by default;
                past it the download raises ``ResponseTooLargeError`` and leaves no file.
            max_compression_ratio: how many times its compressed size a gzip answer may grow
                (past its first MiB); more is a compression bomb: ``ResponseTooLargeError``.

        Raises:
            ConfigurationError: a missing token or base URL (the message names the variable),
                a plain-http base URL that is not loopback, an invalid ``service_source``, a
                CA bundle that cannot be read, or a ``shared_pacing`` store that cannot be used
                (a URL of another scheme than Redis's included), or a duration that is negative,
                not finite or beyond 1e9 s, or a read bound below 1 (the message names it).
        """
        self._settings = _Settings((name, value) for name, value in locals().items() if name != "self")
        self._overrides = {}
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
            deadline=deadline,
            max_response_bytes=max_response_bytes,
            max_download_bytes=max_download_bytes,
            max_compression_ratio=max_compression_ratio,
        )

    @property
    def _core(self) -> NativeClient:
        if self._native is None:
            raise PaperlensError(f"this {type(self).__name__} is closed")
        return self._native

    @property
    def base_url(self) -> str:
        """The base URL every request goes to, without a trailing slash."""
        return self._core.base_url

    @property
    def cache(self) -> ResponseCache:
        """The response cache (``Client(cache_dir=...)``): ``.path``, ``.ttl``, ``.clear()``.

        Examples:
            >>> client = paperlens.Client(cache_dir="paperlens-cache")
            >>> client.cache.clear()  # the number of answers removed
            0
        """
        from paperlens.machinery.cache import ResponseCache

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
        self, file_name: str, dest: str | os.PathLike[str], progress: bool, overwrite: bool
    ) -> Iterator[tuple[Params, str, Callable[[int, int | None], None] | None]]:
        """The arguments of the core's download, with a progress bar closed afterwards; the
        core's refusal to replace a file (``errno.EEXIST``) as a ``FileExistsError``."""
        path = _destination(dest, checks.flag("overwrite", overwrite))
        bar = self._download_bar(checks.flag("progress", progress), file_name)
        try:
            yield {"file_name": file_name, "overwrite": overwrite}, path, _bytes_callback(bar) if bar else None
        except ResourceWriteError as error:
            if error.errno != errno.EEXIST:
                raise
            raise FileExistsError(errno.EEXIST, str(error)) from error
        finally:
            if bar is not None:
                bar.close()

    def _derive(self, native: NativeClient, overrides: dict[str, Any]) -> Self:
        clone = object.__new__(type(self))
        clone._native = native
        clone._settings = self._settings
        clone._overrides = {**self._overrides, **overrides}
        return clone

    def _twin(self, cls: type[_C]) -> _C:
        """A client of class ``cls`` (``Client`` or ``AsyncClient``) over this one's core: the
        same connections, pacing, cache and settings (an adapter's sync and async paths)."""
        twin = object.__new__(cls)
        twin._native = self._core
        twin._settings = self._settings
        twin._overrides = self._overrides
        return twin

    def with_options(
        self,
        *,
        timeout: float | None = None,
        max_retries: int | None = None,
        max_rate_limit_wait: float | None = None,
        validate: bool | None = None,
        retry_backoff: float | None = None,
        deadline: float | None = None,
        max_response_bytes: int | None = None,
        max_download_bytes: int | None = None,
        max_compression_ratio: int | None = None,
    ) -> Self:
        """A client with other call settings, sharing this one's connections, pacing and cache.

        Args:
            timeout: seconds for one attempt of a request; None keeps this client's.
            max_retries: retries of retryable failures; None keeps this client's.
            max_rate_limit_wait: the longest 429 wait retried, in seconds; None keeps this client's.
            validate: check the contract's bounds before sending; None keeps this client's.
            retry_backoff: the first retry backoff, in seconds; None keeps this client's.
            deadline: seconds a whole call may take, retries and waits included; None keeps
                this client's, ``math.inf`` removes it.
            max_response_bytes: the largest answer read into memory; None keeps this client's.
            max_download_bytes: the largest download written to disk; None keeps this client's.
            max_compression_ratio: how far a gzip answer may grow; None keeps this client's.

        Returns:
            A client of the same class (``Client`` or ``AsyncClient``).

        Examples:
            >>> patient = client.with_options(timeout=120.0, max_retries=5)
            >>> doc_id = client.meta_search("coral bleaching").results[2].doc_id
            >>> patient.read_text(doc_id)[:48]
            '# On the role of bleaching in loss of marine bio'
        """
        given = {name: value for name, value in locals().items() if name != "self"}
        overrides = {name: value for name, value in given.items() if value is not None}
        return self._derive(self._core.with_options(**given), overrides)

    def __reduce__(self) -> tuple[Any, ...]:
        """A client pickles to its settings (the constructor's arguments, the token and base URL
        in use, and ``with_options`` overrides), never its connections, cache entries or pacing
        state: unpickled, in a worker process for instance, it is a new client with its own.
        A pickled client holds its token: treat the bytes like the token."""
        settings = self._settings
        if self._native is not None:
            settings = _Settings(settings, api_token=self._native.api_token(), base_url=self._native.base_url)
        return (_unpickled, (type(self), settings, self._overrides, self._native is None))

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

    @operation(lambda: t.AgenticSearchResult)
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
        """Semantic search over the chunks of full texts (``POST /agentic-search``).

        Each hit carries ``doc_id`` (or ``source``) and the code-point ``offset`` of its chunk,
        which lead to :meth:`content`.

        Args:
            query: a natural-language question, 1-4096 characters (not blank).
            top_k: the most hits to return, 1-100 (service default 10).
            retrieval: ``"hybrid"`` (default: vector and keyword recall fused), ``"vector"`` or
                ``"es"`` (keyword only).
            sub_queries: model-generated rewrites of the query to add, 0-4 (default 0).
            filters: the wire filter object, e.g. ``{"lang": "en", "publication_published_year":
                {"gte": 2020}}`` (fields ``lang``, ``title``, ``author``,
                ``publication_venue_name_unified``, ``publication_venue_type``,
                ``publication_published_date``, ``publication_published_year``,
                ``citation_count``, ``influential_citation_count``, ``topics``).
            source_types: restrict to ``"web"`` and/or ``"pdf"`` sources.

        Returns:
            The hits, best first (``.hits``), with the service's token estimates.

        Raises:
            ValidationError: a parameter breaks a bound (nothing is sent).
            AuthenticationError: the token is missing or invalid (401).
            QuotaExhaustedError: a 429 whose wait exceeds ``max_rate_limit_wait`` (a ``RateLimitError``).
            ServerError: a 5xx answer after the retries (507: vectorization resources exhausted).
            APIConnectionError: the connection failed after the retries.

        Examples:
            >>> found = client.agentic_search("retrieval augmented generation", top_k=3)
            >>> for hit in found.hits:
            ...     print(hit.score, hit.title)
            0.9427 Revisiting retrieval augmented generation: a retrieval augmented generation perspective
            0.9345 Towards long-context reasoning with retrieval augmented generation
            0.899 Retrieval augmented generation for hallucination in generated text
        """
        return params(locals())

    @operation(lambda: t.Content)
    def content(
        self,
        doc_id: str | None = None,
        *,
        source: str | None = None,
        offset: int | None = None,
        limit: int | None = None,
    ) -> Params:
        """A document's full text, or with ``offset`` one page of it (``GET /content``).

        Args:
            doc_id: the document's ``doc_id`` (from a search hit or a metadata record).
            source: the document's ``source`` address (``http(s)://`` or ``s3://``), the fallback
                when there is no ``doc_id``. One of ``doc_id`` and ``source`` is required.
            offset: start of the page in Unicode code points (0 included: paged mode); None
                returns the whole text.
            limit: the most code points of a page, 1-524288 (service default 700); paged mode only.

        Returns:
            The text (``.text``), with ``.more`` and ``.next_offset`` in paged mode and
            ``.text_length``, the length of the whole text.

        Raises:
            ValidationError: neither ``doc_id`` nor ``source``, or a bound broken (nothing is sent).
            BadRequestError: no document has this ``doc_id`` or ``source`` (400).
            PermissionDeniedError: the token may not read this full text (403).

        Examples:
            >>> hit = client.agentic_search("retrieval augmented generation", top_k=1).hits[0]
            >>> page = client.content(hit.doc_id, offset=max(0, hit.offset - 200), limit=1000)
            >>> page.text[:60], page.more, page.next_offset
            ('# Revisiting retrieval augmented generation: a retrieval aug', True, 1000)
        """
        return params(locals())

    @pages(lambda: t.Content, lambda: t.Content, OffsetPaging, unit="pages", options=())
    def iter_content(
        self, doc_id: str | None = None, *, source: str | None = None, offset: int = 0, limit: int | None = None
    ) -> Params:
        """The pages of a text from ``offset``, following ``next_offset`` until ``more`` is false.

        Args:
            doc_id: the document's ``doc_id``.
            source: the document's ``source`` address, when there is no ``doc_id``.
            offset: the code point to start from.
            limit: code points per page, 1-524288 (service default 700).

        Returns:
            A paginator of ``Content`` pages; one request per page, sent as you iterate.

        Raises:
            ValidationError: neither ``doc_id`` nor ``source``, or a bound broken.
            BadRequestError: no document has this ``doc_id`` or ``source`` (400), while iterating.

        Examples:
            >>> hit = client.agentic_search("retrieval augmented generation", top_k=1).hits[0]
            >>> for page in client.iter_content(hit.doc_id, limit=10_000):
            ...     print(page.next_offset, page.text[:60])
            6371 # Revisiting retrieval augmented generation: a retrieval aug
        """
        return params(locals())

    @operation(lambda: t.Catalog)
    def meta_catalog(
        self,
        *,
        collection: str | None = None,
        include_sample_values: bool | None = None,
        include_field_stats: bool | None = None,
    ) -> Params:
        """The metadata fields this token may filter, sort, search and project (``GET /meta-catalog``).

        Args:
            collection: ``"papers"`` (the default), ``"authors"`` or ``"sources"``.
            include_sample_values: also list sample values of enumeration-like fields.
            include_field_stats: also give the cardinality of keyword fields and min, max,
                mean, median and p95 of numeric fields.

        Returns:
            The catalog: ``.fields`` (one ``CatalogField`` each, with what it may be used
            for), ``.default_fields`` and ``.filter_operators``.

        Raises:
            AuthenticationError: the token is missing or invalid (401).

        Examples:
            >>> catalog = client.meta_catalog(include_sample_values=True)
            >>> [f.name for f in catalog.fields if f.filterable][:6]
            ['doc_id', 'unique_id', 'metadata_type', 'title', 'abstract', 'language']
        """
        return params(locals())

    @operation(lambda: t.MetaSearchPage)
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
        """One page of bibliographic metadata search (``POST /meta-search``).

        Args:
            query: full-text keywords; None or empty: no full-text search (filters only).
            collection: ``"papers"`` (the default), ``"authors"`` or ``"sources"``.
            filters: conditions, all of which must hold: a ``paperlens.Filter``
                (``Filter("citation_count", ">=", 100)``), a ``(field, op, value)`` tuple, a
                wire dict, or a list of them. Operators: ``== != > >= < <= in not_in contains
                match match_phrase`` or the wire ``FILTER_OP_*`` names.
            sort: a field name, a ``(field, "asc"|"desc")`` tuple, a wire dict, or a list of
                them; sortable fields are listed by :meth:`meta_catalog`.
            fields: the fields to return (a projection); None: the default set.
            page: the page number, from 1; ``page * page_size`` may not exceed 10000.
            page_size: records per page, 1-200 (service default 25).
            cursor: the ``next_cursor`` of the previous page, for deep paging (not with
                ``page`` > 1, nor while a boost is active).
            facets: a field name, a ``(field, size)`` tuple, a wire dict, or a list of them.
            freshness_boost: ``"NONE"``, ``"MILD"`` (last 10 years) or ``"STRONG"`` (last 3).
            impact_boost: ``"NONE"``, ``"MILD"`` or ``"STRONG"``: re-rank by citation count.
            language_affinity: ``"NONE"``, ``"MILD"`` or ``"STRONG"``: lower results not in
                the query's language.

        Returns:
            The page: ``.results`` (``MetadataRecord``), ``.total_count`` (capped at 10000),
            ``.next_cursor``, ``.facets`` (``.facets_to_pandas()`` for a tidy frame).

        Raises:
            ValidationError: a bound broken, e.g. ``page * page_size > 10000`` or an unknown
                operator (nothing is sent).
            BadRequestError: a field that cannot be sorted on, or ``cursor`` with ``page`` > 1 (400).
            PermissionDeniedError: the token may not see a requested field (403).
            QuotaExhaustedError: a 429 whose wait exceeds ``max_rate_limit_wait`` (a ``RateLimitError``).

        Examples:
            >>> from paperlens import Filter
            >>> page = client.meta_search(
            ...     "coral bleaching",
            ...     filters=[Filter("publication_published_year", ">=", 2015)],
            ...     sort=[("citation_count", "desc")],
            ...     facets=["publication_published_year"],
            ...     page_size=20,
            ... )
            >>> page.total_count, page.results[1].title
            (49, 'Species distribution modeling for mass coral bleaching')
        """
        return meta_search_params(params(locals()))

    @pages(lambda: t.MetaSearchPage, lambda: t.MetadataRecord, MetaSearchPaging)
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
        """Every record of a search, page after page.

        Pages with cursors, which go past the 10000 cap of page numbers; while a boost is
        active the service refuses cursors, so it pages by number up to the cap and then stops
        with a ``PageCapWarning``. Pages are as large as the contract allows (200) unless
        ``page_size`` is given or ``limit`` needs fewer.

        Args:
            page: the page number to start from.
            page_size: records per request, 1-200.
            cursor: a ``next_cursor`` to resume from (``paginator.next_cursor`` of a partial run).
            facets: as for :meth:`meta_search` (they arrive on each page: ``.pages()``).
            limit: stop after this many records.
            progress: show a tqdm progress bar sized by ``total_count`` (the ``progress`` extra).

        Returns:
            A paginator of ``MetadataRecord``; requests are sent as you iterate.

        Raises:
            ValidationError: a bound broken (when the paginator is created: nothing is sent).
            APIError: an error answer of the service, while iterating (see :meth:`meta_search`).

        Examples:
            >>> records = client.iter_meta_search("coral reef", fields=["unique_id", "title"], limit=1000)
            >>> frame = records.to_pandas()  # or: for record in records: ...
        """
        return meta_search_params(params(locals()))

    @operation(lambda: t.RelationsPage)
    def paper_relations(
        self, unique_id: str, relation: str, *, page: int | None = None, page_size: int | None = None
    ) -> Params:
        """One page of the citations, references or related works of a paper
        (``POST /meta-paper-relations``).

        Args:
            unique_id: the paper's ``unique_id`` (from :meth:`meta_search` or
                :meth:`agentic_search`), never a ``doc_id``.
            relation: ``"CITATIONS"`` (who cites it), ``"REFERENCES"`` (whom it cites) or
                ``"RELATED_WORKS"``, in any case (``"citations"`` as ``snowball`` spells it);
                sent in upper case.
            page: the page number, from 1.
            page_size: items per page, 1-200 (service default 25).

        Returns:
            The page: ``.items`` (``RelationItem``), ``.total_count``, ``.total_pages``.

        Raises:
            ValidationError: an unknown ``relation`` or a bound broken (nothing is sent).
            NotFoundError: no paper has this ``unique_id`` (404).
            APIError: the answer's envelope reports a failure (``code`` not ``SUCCESS``)
                although its status is 200.

        Examples:
            >>> record = client.meta_search("coral bleaching").results[2]
            >>> citing = client.paper_relations(record.unique_id, "CITATIONS", page_size=50)
            >>> citing.total_count, citing.items[1].title
            (8, 'Marine biodiversity under plankton: a large-scale study')
        """
        return relation_params(params(locals()))

    @pages(lambda: t.RelationsPage, lambda: t.RelationItem, PageNumberPaging)
    def iter_paper_relations(
        self,
        unique_id: str,
        relation: str,
        *,
        page_size: int | None = None,
        limit: int | None = None,
        progress: bool = False,
    ) -> Params:
        """Every relation item of a paper, page after page until ``total_pages``.

        Args:
            unique_id: the paper's ``unique_id``.
            relation: ``"CITATIONS"``, ``"REFERENCES"`` or ``"RELATED_WORKS"``, in any case.
            page_size: items per request, 1-200 (default: 200, or fewer when ``limit`` needs fewer).

        Returns:
            A paginator of ``RelationItem``; requests are sent as you iterate.

        Raises:
            ValidationError: an unknown ``relation`` or a bound broken.
            NotFoundError: no paper has this ``unique_id`` (404), while iterating.

        Examples:
            >>> record = client.meta_search("coral bleaching").results[2]
            >>> references = client.iter_paper_relations(record.unique_id, "REFERENCES").to_list()
            >>> len(references), references[0].id
            (29, 'W4000000126')
        """
        return relation_params(params(locals()))


class _Workflows:
    """The research workflows of many requests, paced and cached like every call (each plan
    lives in its own module)."""

    _listen: Callable[..., Any]  # the client's transport events, for the plans' progress bars

    if TYPE_CHECKING:

        @property
        def base_url(self) -> str: ...  # the client's (a snowball's network remembers it)

        @property
        def _core(self) -> NativeClient: ...  # the client's core (an estimate reads the pacing's rates)

    @workflow
    def lookup(
        self, ids: Iterable[str], *, by: str = "doi", fields: list[str] | None = None, progress: bool = False
    ) -> Plan[Lookup]:
        """Records for many identifiers, in as few ``/meta-search`` requests as the contract's
        bounds allow (see :mod:`paperlens.lookup`).

        Each distinct id is asked for once, in ``IN`` filters of up to 200 values; DOIs are
        normalised (case, ``https://doi.org/`` and ``doi:`` prefixes, whitespace).

        Args:
            ids: the identifiers, in the order the answer keeps.
            by: what they are: ``"doi"``, ``"unique_id"``, ``"doc_id"`` or ``"isbn13"``.
            fields: the record fields to fetch (the ``by`` field is always added); None: the
                service's default set (``paperlens.export.CITATION_FIELDS`` for full citations).
            progress: show a progress bar of the ids answered.

        Returns:
            A :class:`~paperlens.Lookup`: ``.records`` (one per input id, in order: the record
            or None), ``.found`` (id to record), ``.not_found`` (the ids with no record).

        Raises:
            ValidationError: before any request, for an empty id, a DOI that is not one
                (``ids[3]: ...``) or an unknown ``by``.
            APIError: what the service answers (after retries), as for any call.

        Examples:
            >>> found = client.lookup(["10.5056/PL.2021.50", "doi:10.9999/MISSING"])
            >>> found.not_found, found.records[0].title
            (['doi:10.9999/MISSING'], 'On the role of bleaching in loss of marine biodiversity')
        """
        from paperlens.workflows.lookup import lookup_plan

        return lookup_plan(**params(locals(), "lookup_plan"), listen=self._listen)

    @workflow
    def match_reference(self, text: str, *, top: int = 5) -> Plan[list[ReferenceMatch]]:
        """Candidate records for a free-text citation, best first (see :mod:`paperlens.matching`).

        The citation is parsed (authors, year, title, venue, DOI) and searched for in as few
        requests as it takes, usually one.

        Args:
            text: one citation in any common style (APA, MLA, Vancouver, "Smith et al., ...").
            top: how many candidates to return at most.

        Returns:
            A list of :class:`~paperlens.ReferenceMatch` (``record``, ``score``, ``confidence``:
            ``"high"``, ``"medium"`` or ``"low"``, ``reasons``), best first; empty when nothing
            resembles the citation.

        Raises:
            ValidationError: before any request, for an empty text or ``top`` below 1.

        Examples:
            >>> best = client.match_reference("Okafor P, Zhang L. Bleaching and coral reef. 2002.")[0]
            >>> best.confidence, best.reasons
            ('low', ['title words 3/7', 'first author Okafor', 'authors 2/5', 'year 2002 (+0)'])
        """
        from paperlens.workflows.matching import match_plan

        return match_plan(**params(locals(), "match_plan"))

    @workflow
    def match_references(
        self, texts: Iterable[str], *, top: int = 5, progress: bool = False
    ) -> Plan[list[list[ReferenceMatch]]]:
        """:meth:`match_reference` for each text, in order, paced; repeated texts are matched
        once, and the DOIs of all texts are looked up together.

        Args:
            texts: the citations, one per entry.
            top: how many candidates per citation at most.
            progress: show a progress bar of the citations matched.

        Returns:
            One list of candidates per text, in the input order.

        Raises:
            ValidationError: before any request, naming the position (``texts[2]``) of an
                empty text.

        Examples:
            >>> references = [  # open("references.txt").read().splitlines(), say
            ...     "Okafor P, Zhang L. Bleaching and coral reef: evidence from Global Coral Reef Monitoring Network.",
            ...     "Nobody N. Nothing at all. 1850.",
            ... ]
            >>> matches = client.match_references(references)
            >>> unmatched = [m for m in matches if not m or m[0].confidence != "high"]
            >>> [m[0].confidence if m else None for m in matches]
            ['medium', None]
        """
        from paperlens.workflows.matching import match_many_plan

        return match_many_plan(**params(locals(), "match_many_plan"), listen=self._listen)

    @workflow
    def verify_citations(self, references: Any, *, progress: bool = False) -> Plan[Verification]:
        """Checks a reference list against the service: per reference, in input order, whether
        a record says the same (see :mod:`paperlens.verification`).

        The DOIs are looked up together (200 per request); every reference that its DOI does
        not settle costs one ``/meta-search``.

        Args:
            references: BibTeX text, the path of a file of references (read by what it holds:
                BibTeX, CSL-JSON, RIS or one a line), a list of free-text
                citations, a list of CSL-JSON items, or a DataFrame with ``title``,
                ``author``/``authors``, ``year``, ``venue`` (or ``journal``), ``doi`` and
                ``key`` columns (those present).
            progress: show a progress bar of the references checked, with the requests left and
                the time the quota implies.

        Returns:
            A :class:`~paperlens.Verification`: ``.items[i]`` has ``.status`` (``"verified"``,
            ``"mismatch"``, ``"not_found"``, ``"ambiguous"``, ``"unverifiable"``), ``.record``,
            ``.differences`` (field to ``(given, found)``), ``.confidence`` and ``.reasons``;
            ``to_pandas()``, ``to_bibtex()`` (corrected entries, keys kept).

        Raises:
            ValidationError: before any request, for input of no such kind, input holding no
                reference, malformed BibTeX (naming the entry and line), or an item with
                neither title nor DOI.
            APIError: what the service answers (after retries), as for any call.

        Examples:
            >>> import pathlib, tempfile
            >>> bib = pathlib.Path(tempfile.mkdtemp()) / "references.bib"
            >>> _ = bib.write_text('''@inproceedings{lindqvist94,
            ...   author = {Lindqvist, Grace and Zhang, Tamara},
            ...   title = {Gate Fidelity under Quantum Advantage: A Large-Scale Study},
            ...   year = 1995}''')
            >>> checked = client.verify_citations(bib)
            >>> [(item.key, item.status, item.differences) for item in checked if item.status != "verified"]
            [('lindqvist94', 'mismatch', {'year': (1995, 1994)})]
        """
        from paperlens.workflows.verification import verify_plan

        rate = self._core.pacing_rates().get("meta-search")  # the rate in force, a learned one too
        return verify_plan(**params(locals(), "verify_plan", "rate"), listen=self._listen, rate=rate)

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
        ``/meta-paper-relations`` (see :mod:`paperlens.snowball`).

        The seeds' records come first, one ``/meta-search`` per 200 seeds (the seeds carry
        their title, DOI and year as the other nodes do), at any depth; then each paper is
        expanded once, level by level, with pages no larger than needed.

        Args:
            seeds: ``unique_id`` s of the seed papers (depth 0).
            direction: ``"citations"`` (papers citing each node), ``"references"`` (papers
                each node cites) or ``"both"``.
            depth: how many levels to expand beyond the seeds.
            max_per_paper: at most this many items per paper and direction (None: all).
            limit: at most this many nodes in the network (None: no cap).
            checkpoint: a file where each answered page is saved: a run interrupted and
                started again with the same call resumes without repeating a request.
            progress: show a progress bar with the frontier size.

        Returns:
            A :class:`~paperlens.CitationNetwork`: ``.nodes`` and ``.edges`` (DataFrames),
            ``.to_networkx()``, ``.write(out_dir)`` (Parquet, GraphML, ``manifest.json``).

        Raises:
            ValidationError: before any request, for no seeds, an unknown direction, a
                negative depth or a cap below 1.
            paperlens.harvest.OutputInUseError: another run is using ``checkpoint`` (it is
                locked, ``<checkpoint>.lock``, while a run writes it).
            paperlens.harvest.HarvestWriteError: ``checkpoint`` cannot be written (a full
                disk, a read-only folder); an ``OSError``. Call again to resume.

        Examples:
            >>> network = client.snowball(["W4000000150"], depth=2, max_per_paper=50)
            >>> network.nodes.sort_values("depth")["id"].head(2).tolist()
            ['W4000000150', 'W4000002586']
        """
        from paperlens.workflows.snowball import snowball_plan

        return snowball_plan(**params(locals(), "snowball_plan"), listen=self._listen, base_url=self.base_url)

    @workflow
    def estimate_harvest(
        self,
        query: str | None = None,
        *,
        ids: Iterable[str] | None = None,
        by: str = "unique_id",
        filters: FilterSpec | list[FilterSpec] | None = None,
        texts: bool = False,
        figures: bool = False,
        limit: int | None = None,
        collection: str | None = None,
        page_size: int | None = None,
        sample_texts: int | None = None,
        update: str | os.PathLike[str] | None = None,
    ) -> Plan[Estimate]:
        """What a harvest with these arguments will cost, from a couple of requests, before
        anything is written (see :mod:`paperlens.estimate`).

        Args:
            query, ids, by, filters, texts, figures, limit: as for
                :func:`~paperlens.harvest.harvest_corpus` (``texts=False``: records only, as
                :func:`~paperlens.harvest.harvest` writes them).
            collection, page_size: as for :func:`~paperlens.harvest.harvest` (None: 200 records
                per request, the most).
            sample_texts: texts (0 to 200, of the first page of records) to read for their
                figures and lengths: one ``/content`` request each, no quota the contract
                states; the more, the closer the ``/resource`` estimate. None: one when
                ``figures=True``, none otherwise.
            update: a harvest's output (path or URL): what bringing it up to date
                (``update=True``) will cost, from the call its manifest records (the other
                arguments may be left out; given, they must be the recorded ones). The
                ``records`` of the estimate are then the new ones, ``held`` those it holds.

        Returns:
            An :class:`~paperlens.estimate.Estimate`: ``.records``, ``.texts``, ``.figures``,
            ``.operations`` (requests per operation, the quota resource each draws on, the
            rate and the least time it allows), ``.requests`` and ``.seconds`` in all; it
            prints as a table.

        Raises:
            ValidationError: a bad argument, before any request (as the harvest would raise it).

        Examples:
            >>> estimate = client.estimate_harvest("coral bleaching", texts=True)
            >>> estimate.by_resource(), estimate.seconds
            ({'meta-search': 1, None: ...}, 0.0)
        """
        from paperlens.workflows.estimate import estimate_plan

        return estimate_plan(**params(locals(), "estimate_plan"), rates=self._core.pacing_rates)


class Client(_ClientBase, _OpenPlatform, _Workflows, SyncCaller):
    """The synchronous client. Safe to share across threads; the GIL is released while waiting.

    A context manager (``with paperlens.Client() as client:``). Its Structured Paper
    operations are under :attr:`schema`. Usable in a forked child (``multiprocessing``,
    ``ProcessPoolExecutor``), where it opens its own connections; picklable to its settings,
    token included (see ``__reduce__``), so it can be sent to worker processes.

    Examples:
        >>> client = paperlens.Client()  # token and base URL from the environment
        >>> client.meta_search("coral bleaching", page_size=5).results[0].title
        'Bleaching and coral reef: evidence from Global Coral Reef Monitoring Network'
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

    def _start(self, operation: str, model: type[M], params: Params, *, stacklevel: int = 4) -> Callable[[], M]:
        """``_call`` begun now and finished by calling what it returns (a paginator's next page,
        asked for while its caller works on this one); dropped uncalled, the request is stopped."""
        pending = self._core.start(operation, params)

        def finish() -> M:
            raw, request_id = pending.wait()
            return _checked(model._from_wire(raw, request_id), stacklevel)

        return finish

    @cached_property
    def schema(self) -> Schema:
        """The 18 Structured Paper operations (``/paper-schema``): ``client.schema.search(...)``.

        Examples:
            >>> cards = client.schema.search("CRISPR off-target", size=5)
        """
        from paperlens.clients.schema import Schema

        return Schema(self)

    def read_text(self, doc_id: str | None = None, *, source: str | None = None) -> str:
        """The whole text of a document, reassembled exactly from pages of the largest size.

        Args:
            doc_id: the document's ``doc_id``.
            source: the document's ``source`` address, when there is no ``doc_id``.

        Returns:
            The full text (Markdown).

        Raises:
            ValidationError: neither ``doc_id`` nor ``source`` given (nothing is sent).
            BadRequestError: no document has this ``doc_id`` or ``source`` (400).
            PermissionDeniedError: the token may not read this full text (403).
            ResponseDecodeError: the pages do not add up to the ``text_length`` the service reports.

        Examples:
            >>> hit = client.agentic_search("retrieval augmented generation", top_k=1).hits[0]
            >>> text = client.read_text(hit.doc_id)
            >>> text[:48]
            '# Revisiting retrieval augmented generation: a r'
        """
        return _joined_text(self.iter_content(doc_id, source=source, limit=CONTENT_PAGE_MAX).to_list())

    def resource(self, file_name: str) -> t.Resource:
        """A binary attachment (a figure...) in memory (``GET /resource``).

        Args:
            file_name: the object's relative path, as named in a full text
                (``figures/W4000004932/fig1.png``).

        Returns:
            The resource: ``.data`` (bytes), ``.content_type`` and ``.filename`` (from
            ``Content-Disposition``, reduced to a safe base name).

        Raises:
            ValidationError: an absolute path, ``..`` or a backslash (nothing is sent).
            BadRequestError: no object has this name (400).

        Examples:
            >>> figure = client.resource("figures/W4000004932/fig1.png")
            >>> figure.content_type, len(figure.data)
            ('image/png', 192278)
        """
        return _resource_model(*_unpack(self._core.fetch({"file_name": file_name}), file_name))

    def download_resource(
        self, file_name: str, dest: str | os.PathLike[str], *, progress: bool = False, overwrite: bool = False
    ) -> Path:
        """Streams an attachment to disk (``GET /resource``).

        The bytes go to a temporary file renamed into place, so a failure leaves nothing behind.
        An existing file is never replaced unless ``overwrite=True``.

        Args:
            file_name: the object's relative path, as named in a full text.
            dest: a file path, or a directory (existing, or ending in a separator) to put the
                file in under the name the service gives (``Resource.filename``: its
                ``Content-Disposition`` name without path, control or format characters such
                as bidi overrides, without leading dots, a Windows reserved name such as
                ``CON`` prefixed with ``_``).
            progress: show a tqdm bar of the bytes written, sized by ``Content-Length``.
            overwrite: replace a file already there (symbolic links are replaced, never
                followed).

        Returns:
            The path of the written file.

        Raises:
            FileExistsError: a file is already there and ``overwrite`` is False: before any
                request when ``dest`` names the file, else once the service has named it
                (the download is then dropped, nothing written).
            ValidationError: an invalid ``file_name`` (nothing is sent).
            BadRequestError: no object has this name (400).
            ResourceWriteError: the file could not be written.

        Examples:
            >>> path = client.download_resource("figures/W4000004932/fig1.png", "figures/")
        """
        with self._download(file_name, dest, progress, overwrite) as args:
            path = self._core.download(*args)[0]
        from pathlib import Path

        return Path(path)


class AsyncClient(_ClientBase, _OpenPlatform, _Workflows, AsyncCaller):
    """The asyncio client: the methods of :class:`Client` as coroutines, ``iter_*`` as async
    iterators. Safe to share across tasks.

    It takes the arguments of :class:`Client` and is an async context manager.

    Examples:
        >>> async with paperlens.AsyncClient() as client:
        ...     page = await client.meta_search("coral bleaching")
        ...     records = [record async for record in client.iter_meta_search("coral bleaching", limit=500)]
    """

    async def aclose(self) -> None:
        """Releases the client; its connections close once no derived client uses them."""
        self._native = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _call(self, operation: str, model: type[M], params: Params, *, stacklevel: int = 4) -> M:
        from paperlens.machinery import _bridge  # asyncio is imported by the first async call, not by paperlens

        raw, request_id = await _bridge.call(self._core, operation, params)
        return _checked(model._from_wire(raw, request_id), stacklevel)

    @cached_property
    def schema(self) -> AsyncSchema:
        """The 18 Structured Paper operations (``/paper-schema``) as coroutines.

        Examples:
            >>> cards = await client.schema.search("CRISPR off-target", size=5)
        """
        from paperlens.clients.schema import AsyncSchema

        return AsyncSchema(self)

    async def read_text(self, doc_id: str | None = None, *, source: str | None = None) -> str:
        """The whole text of a document: :meth:`Client.read_text`, awaited.

        Examples:
            >>> hit = (await client.agentic_search("retrieval augmented generation", top_k=1)).hits[0]
            >>> text = await client.read_text(hit.doc_id)
        """
        return _joined_text(await self.iter_content(doc_id, source=source, limit=CONTENT_PAGE_MAX).to_list())

    async def resource(self, file_name: str) -> t.Resource:
        """A binary attachment in memory: :meth:`Client.resource`, awaited.

        Examples:
            >>> figure = await client.resource("figures/W4000004932/fig1.png")
        """
        from paperlens.machinery import _bridge

        return _resource_model(*_unpack(await _bridge.fetch(self._core, {"file_name": file_name}), file_name))

    async def download_resource(
        self, file_name: str, dest: str | os.PathLike[str], *, progress: bool = False, overwrite: bool = False
    ) -> Path:
        """Streams an attachment to disk: :meth:`Client.download_resource`, awaited.

        Examples:
            >>> path = await client.download_resource("figures/W4000004932/fig1.png", "figures/")
        """
        from paperlens.machinery import _bridge

        with self._download(file_name, dest, progress, overwrite) as args:
            path = (await _bridge.download(self._core, *args))[0]
        from pathlib import Path

        return Path(path)


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
