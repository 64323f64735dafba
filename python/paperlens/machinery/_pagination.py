"""Paginators: items across pages, lazily, one request per page (sync and async twins).

Each operation's paging rule is a small strategy object; the paginators only loop.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from paperlens.base import _checks as checks
from paperlens.base._contract import (
    BOOSTS,
    NO_BOOST,
    PAGE_DEPTH_CAP,
    PAGE_SIZE_DEFAULT,
    PAGE_SIZE_MAX,
    SCHEMA_PAGE_SIZE_MAX,
)
from paperlens.base._progress import Listen, Progress
from paperlens.errors import PagingLoopError, ResponseDecodeError
from paperlens.results._citable import Citable
from paperlens.results._result import Paged

T = TypeVar("T")
P = TypeVar("P")


class PageCapWarning(UserWarning):
    """Iteration stopped at the service's 10000-record cap of page-numbered paging
    (:data:`PAGE_DEPTH_CAP`)."""


class Trail:
    """Where one walk over pages has been: the cursors it followed (``ordered=False``), or the
    offset it reached (``ordered=True``). The service answering a cursor the walk already
    followed, or an offset that does not advance, leads it in a loop: :meth:`follows` refuses
    that step, and :attr:`error` says why.

    Args:
        name: the answer's field that gives the next position (``next_cursor``, ``next_offset``).
        start: the position of the walk's first request (a cursor to resume from, an offset).
        ordered: positions must grow (offsets), rather than never repeat (cursors).
    """

    def __init__(self, name: str, start: Any = None, *, ordered: bool = False) -> None:
        self.name = name
        self.ordered = ordered
        self.error: PagingLoopError | None = None
        self._last = start
        self._seen = set() if start is None or ordered else {_key(start)}

    def follows(self, position: Any, request_id: str | None) -> bool:
        """Whether the walk may go on to ``position``, which the answer of ``request_id`` gave;
        False (and :attr:`error` set) when that would loop."""
        if self.ordered and (type(position) is not int or (self._last is not None and position <= self._last)):
            after = "" if self._last is None else f" past offset {self._last}"
            why = f"which does not advance{after}: reading on would fetch the same text again"
        elif not self.ordered and _key(position) in self._seen:
            why = "a position this walk already followed: following it would fetch the same pages again"
        else:
            self._seen.add(_key(position))
            self._last = position
            return True
        self.error = PagingLoopError(
            f"the service answered {self.name}={_shown(position)}, {why} (stopped; what came before was "
            f"delivered once) (request_id={request_id})",
            request_id=request_id,
        )
        return False

    def check(self) -> None:
        """Raises the loop that ended the walk, if one did."""
        if self.error is not None:
            raise self.error


def _key(position: Any) -> str:
    """A cursor as a set keeps it (a hostile one may be a list)."""
    return position if isinstance(position, str) else repr(position)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."


class Paging(Generic[P]):
    """How one operation pages: the first request, the next one, and what a page holds."""

    #: The parameter that sets the page size, and the largest size the contract allows: asked
    #: for unless the caller gives a size (or wants fewer items), since every page costs quota.
    size_param: str | None = None
    max_size = 0
    #: The page's field holding its items, the one holding the number of them all (a count,
    #: or an object with a ``value``), and the parameter that says where a request starts.
    items_field = "items"
    total_field: str | None = None
    position_param: str | None = None

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params

    def first(self, limit: int | None = None) -> dict[str, Any]:
        params = dict(self.params)
        if self.size_param is not None and params.get(self.size_param) is None and self.fills_pages(params):
            params[self.size_param] = self.max_size if limit is None else max(1, min(self.max_size, limit))
        return params

    def fills_pages(self, params: dict[str, Any]) -> bool:
        """Whether the page size is free to choose (a page number fixes which items it means)."""
        return (params.get("page") or 1) == 1

    def after(self, params: dict[str, Any], page: P) -> dict[str, Any] | None:
        """The parameters of the request after ``page``, or None when it was the last."""
        raise NotImplementedError

    def items(self, page: P) -> list[Any]:
        items: list[Any] = getattr(page, self.items_field)
        return items

    def total(self, page: P) -> int | None:
        total = None if self.total_field is None else getattr(page, self.total_field, None)
        total = getattr(total, "value", total)
        return total if isinstance(total, int) else None

    def resume_token(self, params: dict[str, Any] | None) -> Any:
        """What the caller passes back to continue at ``params`` (None: nothing left)."""
        return None if params is None or self.position_param is None else params.get(self.position_param)

    def trail(self, first: dict[str, Any]) -> Trail | None:
        """The trail of a walk starting at ``first``; None when its positions cannot repeat
        (page numbers, counted here)."""
        return None


class MetaSearchPaging(Paging[Any]):
    """Cursor deep paging; page numbers up to the cap while a boost forbids cursors."""

    size_param, max_size = "page_size", PAGE_SIZE_MAX
    items_field, total_field = "results", "total_count"

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.boosted = boost_active(params)
        self.position_param = "page" if self.boosted else "cursor"

    def after(self, params: dict[str, Any], page: Any) -> dict[str, Any] | None:
        if not page.results:
            return None
        if not self.boosted:
            return {**params, "page": None, "cursor": page.next_cursor} if page.next_cursor else None
        number, size = params.get("page") or 1, params.get("page_size") or PAGE_SIZE_DEFAULT
        more = page.total_pages is not None and number < page.total_pages
        if (number + 1) * size <= PAGE_DEPTH_CAP:
            return {**params, "page": number + 1} if more else None
        if more or (page.total_count or 0) >= PAGE_DEPTH_CAP:
            warnings.warn(
                f"iter_meta_search stopped after {number * size} records: a boost is active "
                f"({boost_names(params)}), the service forbids cursor paging while it is, and page "
                f"paging ends at page * page_size = {PAGE_DEPTH_CAP}. Drop the boost (or add a sort) "
                f"to page deeper with cursors.",
                PageCapWarning,
                stacklevel=4,
            )
        return None

    def trail(self, first: dict[str, Any]) -> Trail | None:
        return None if self.boosted else Trail("next_cursor", first.get("cursor"))


class PageNumberPaging(Paging[Any]):
    """Page numbers until ``total_pages`` (``/meta-paper-relations``)."""

    size_param, max_size = "page_size", PAGE_SIZE_MAX
    total_field, position_param = "total_count", "page"

    def after(self, params: dict[str, Any], page: Any) -> dict[str, Any] | None:
        number = params.get("page") or 1
        if not page.items or page.total_pages is None or number >= page.total_pages:
            return None
        return {**params, "page": number + 1}


class OffsetPaging(Paging[Any]):
    """``/content`` pages: follows ``next_offset`` until ``more`` is false."""

    position_param = "offset"

    def after(self, params: dict[str, Any], page: Any) -> dict[str, Any] | None:
        if not page.more:
            return None
        if page.next_offset is None:
            raise ResponseDecodeError(
                f"the service answered more=true without a next_offset (request_id={page.request_id})",
                request_id=page.request_id,
            )
        return {**params, "offset": page.next_offset}

    def items(self, page: Any) -> list[Any]:
        return [page]

    def trail(self, first: dict[str, Any]) -> Trail | None:
        return Trail("next_offset", first.get("offset") or 0, ordered=True)


class CursorPaging(Paging[Any]):
    """Opaque ``next_cursor`` tokens passed back unchanged until a null or empty one
    (the ``/paper-schema`` list operations)."""

    size_param, max_size = "size", SCHEMA_PAGE_SIZE_MAX
    total_field, position_param = "total", "cursor"

    def after(self, params: dict[str, Any], page: Any) -> dict[str, Any] | None:
        cursor = page.next_cursor
        return {**params, "cursor": cursor} if cursor else None

    def trail(self, first: dict[str, Any]) -> Trail | None:
        return Trail("next_cursor", first.get("cursor"))


def _onward(walk: _Walk, following: dict[str, Any] | None, trail: Trail | None) -> dict[str, Any] | None:
    """``following``, the parameters of the next request, when a walk that asks ahead goes on
    after the page it just yielded; None when it ends: it holds what it wants, or no page
    follows (the loop that stopped it, if one did, is raised)."""
    if walk.done:
        return None
    if following is None and trail is not None:
        trail.check()
    return following


class _Base(Paged, Generic[T]):
    def __init__(
        self,
        fetch: Callable[[dict[str, Any]], Any],
        paging: Paging[Any],
        *,
        limit: int | None = None,
        progress: bool = False,
        unit: str = "records",
        listen: Listen | None = None,
    ) -> None:
        """``fetch(params)`` answers one page (an awaitable of it for the async paginator);
        ``paging`` knows the first request, the next one and the items of a page."""
        checks.count("limit", limit, 0, optional=True)
        self._fetch = fetch
        self._paging = paging
        self._limit = limit
        self._progress = checks.flag("progress", progress)
        self._unit = unit
        self._listen = listen
        self._next: Any = None
        self._page: Any = None  # the last page fetched
        self._trail: Trail | None = None  # of the latest walk of ``pages()``

    @property
    def next_cursor(self) -> Any:
        """Where to resume after a partial run: the cursor (or page number, or offset) of the
        page after the last one fetched; None when nothing is left. Pass it back unchanged."""
        return self._next

    def _bar(self) -> Progress | None:
        """A bar opened before the first request, so that a wait for it shows too."""
        if not self._progress:
            return None
        return Progress(total=self._limit, unit=self._unit, listen=self._listen)

    def _size(self, bar: Progress | None, page: Any) -> None:
        if bar is None:
            return
        total = self._paging.total(page)
        if self._limit is not None:
            total = self._limit if total is None else min(total, self._limit)
        bar.set_total(total)

    def _received(self, params: dict[str, Any], page: Any, trail: Trail | None) -> dict[str, Any] | None:
        """Records a fetched page; returns the parameters of the next request (None: last, or
        a step that would loop: ``trail.error`` says so, and nothing is left to resume)."""
        self._page = page
        following = self._paging.after(params, page)
        if following is not None and trail is not None:
            position = self._paging.resume_token(following)
            if not trail.follows(position, getattr(page, "request_id", None)):
                following = None
        self._next = self._paging.resume_token(following)
        return following

    def _raise_loop(self) -> None:
        """Raises the loop that ended the latest walk of ``pages()``, for a caller that stops
        taking pages once ``next_cursor`` is None (a loop also makes it None)."""
        if self._trail is not None:
            self._trail.check()

    @contextmanager
    def _walk(self) -> Iterator[_Walk]:
        walk = _Walk(self)
        try:
            yield walk
        finally:
            if walk.bar is not None:
                walk.bar.close()

    def _frame(self, items: list[T], backend: str) -> Any:
        from paperlens.results.pandas import paginated_frame

        return paginated_frame(self, items, backend)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({type(self._paging).__name__}, limit={self._limit})"

    #: The latest pass over the items (the rich display tells how far it got), None before one.
    _walked: _Walk | None = None

    def _repr_html_(self) -> str:
        """A table for Jupyter, fetching nothing: what it walks and how far it got."""
        from paperlens.results._display import paginator_html

        return paginator_html(self)


class _Walk:
    """One pass over a paginator's items: how many were taken, within its ``limit``, and the
    progress bar (opened before the first request, so that a wait for it shows too)."""

    def __init__(self, paginator: _Base[Any]) -> None:
        self._paginator = paginator
        self.taken = 0
        self.bar = paginator._bar()
        paginator._walked = self

    def items(self, page: Any) -> Iterator[Any]:
        """The items of ``page`` still within the limit, counted as they go."""
        paginator, bar = self._paginator, self.bar
        if self.taken == 0 and paginator._page is page:
            paginator._size(bar, page)
        items = paginator._paging.items(page)
        if paginator._limit is not None:
            items = items[: max(paginator._limit - self.taken, 0)]
        for item in items:
            self.taken += 1
            if bar is not None:
                bar.update(1)
            yield item

    @property
    def done(self) -> bool:
        return self._paginator._limit is not None and self.taken >= self._paginator._limit

    def filled_by(self, page: Any) -> bool:
        """Whether the items of ``page`` reach the limit."""
        limit = self._paginator._limit
        return limit is not None and self.taken + len(self._paginator._paging.items(page)) >= limit


class Paginator(_Base[T], Citable):
    """Iterates items across pages; ``pages()`` iterates the pages themselves. Paginators of
    records export them: ``to_bibtex()``, ``to_ris()``, ``to_csl_json()`` (every item)."""

    _fetch: Callable[[dict[str, Any]], Any]

    def __init__(
        self,
        fetch: Callable[[dict[str, Any]], Any],
        paging: Paging[Any],
        *,
        start: Callable[[dict[str, Any]], Callable[[], Any]] | None = None,
        **options: Any,
    ) -> None:
        """``start(params)``, when given, starts the request of a page and returns what
        finishes it: the methods that take every item (``to_list()``, ``to_pandas()``...) then
        ask for the next page while they work on this one."""
        super().__init__(fetch, paging, **options)
        self._start = start

    def pages(self) -> Iterator[Any]:
        """The pages themselves (typed results: ``MetaSearchPage``...), one request each, from
        the first to the last; ``limit`` is not applied to pages.

        Raises:
            APIError: what a page's request answers (the pages already yielded stay yours).

        Examples:
            >>> for page in client.iter_meta_search("coral bleaching").pages():
            ...     print(page.total_count, len(page.results))
            97 97
        """
        first = self._paging.first(self._limit)
        trail = self._trail = self._paging.trail(first)
        params: dict[str, Any] | None = first
        while params is not None:
            page = self._fetch(params)
            params = self._received(params, page, trail)
            yield page
        if trail is not None:
            trail.check()

    def _pages_ahead(self, walk: _Walk) -> Iterator[Any]:
        """``pages()`` for a walk that takes every item: the request of the next page starts
        as soon as a page arrives, before the walk works on it, unless that page fills the
        walk's limit (no request is made that the walk would not use). An iteration that the
        user can stop at any item (``for``) never asks ahead."""
        params = self._paging.first(self._limit)
        trail = self._paging.trail(params)
        page = self._fetch(params)
        while True:
            following = self._received(params, page, trail)
            ahead = None
            if following is not None and self._start is not None and not walk.filled_by(page):
                ahead = self._start(following)
            yield page
            following = _onward(walk, following, trail)
            if following is None:
                return
            page = self._fetch(following) if ahead is None else ahead()
            params = following

    def __iter__(self) -> Iterator[T]:
        if self._limit == 0:
            return  # nothing wanted: no request
        with self._walk() as walk:
            for page in self.pages():
                yield from walk.items(page)
                if walk.done:
                    return

    def _batches(self) -> Iterator[list[T]]:
        """The items of each page, within the limit, the next page asked for ahead (see
        ``_pages_ahead``)."""
        if self._limit == 0:
            return  # nothing wanted: no request
        with self._walk() as walk:
            for page in self._pages_ahead(walk):
                yield list(walk.items(page))
                if walk.done:
                    return

    def to_list(self) -> list[T]:
        """Every item (up to ``limit``) in a list; each page is asked for while the one before
        is read.

        Examples:
            >>> records = client.iter_meta_search("coral", limit=500).to_list()
        """
        return [item for batch in self._batches() for item in batch]

    def to_pandas(self) -> Any:
        """All items as a pandas DataFrame (needs the ``pandas`` extra); each page is turned
        into columns while the next one is on its way."""
        from paperlens.results.pandas import PagedFrame

        with PagedFrame("pandas") as paged:
            for batch in self._batches():
                paged.add(batch)
            return paged.frame(self._page)

    def to_polars(self) -> Any:
        """All items as a polars DataFrame (needs the ``polars`` extra)."""
        return self._frame(self.to_list(), "polars")

    def _frame_rows(self) -> tuple[list[Any], Any]:
        items = self.to_list()
        return items, self._page


class AsyncPaginator(_Base[T]):
    """The async twin of :class:`Paginator`: ``async for item in it``."""

    _fetch: Callable[[dict[str, Any]], Awaitable[Any]]

    async def pages(self) -> AsyncIterator[Any]:
        """The pages themselves, one request each: ``async for page in it.pages()``."""
        first = self._paging.first(self._limit)
        trail = self._trail = self._paging.trail(first)
        params: dict[str, Any] | None = first
        while params is not None:
            page = await self._fetch(params)
            params = self._received(params, page, trail)
            yield page
        if trail is not None:
            trail.check()

    async def _pages_ahead(self, walk: _Walk) -> AsyncIterator[Any]:
        """``Paginator._pages_ahead``, awaited: the next page's request is a task, sent before
        this page is worked on."""
        import asyncio  # imported by the first async call, not by paperlens

        params = self._paging.first(self._limit)
        trail = self._paging.trail(params)
        page = await self._fetch(params)
        ahead: asyncio.Future[Any] | None = None
        try:
            while True:
                following = self._received(params, page, trail)
                if following is not None and not walk.filled_by(page):
                    ahead = asyncio.ensure_future(self._fetch(following))
                    await asyncio.sleep(0)  # the task's first step sends the request
                yield page
                following = _onward(walk, following, trail)
                if following is None:
                    return
                page = await self._fetch(following) if ahead is None else await ahead
                ahead, params = None, following
        finally:
            if ahead is not None:
                ahead.cancel()

    async def __aiter__(self) -> AsyncIterator[T]:
        if self._limit == 0:
            return  # nothing wanted: no request
        with self._walk() as walk:
            async for page in self.pages():
                for item in walk.items(page):
                    yield item
                if walk.done:
                    return

    async def _batches(self) -> AsyncIterator[list[T]]:
        """``Paginator._batches``, awaited."""
        if self._limit == 0:
            return  # nothing wanted: no request
        with self._walk() as walk:
            async for page in self._pages_ahead(walk):
                yield list(walk.items(page))
                if walk.done:
                    return

    async def to_list(self) -> list[T]:
        """Every item (up to ``limit``) in a list: ``await it.to_list()``; each page is asked for
        while the one before is read."""
        return [item async for batch in self._batches() for item in batch]

    def _frame_rows(self) -> tuple[list[Any], Any]:
        raise TypeError("an AsyncPaginator needs awaiting: use `await paginator.to_pandas()` (or .to_polars())")

    def _citable_rows(self) -> Any:
        raise TypeError("an AsyncPaginator needs awaiting first: paperlens.to_bibtex(await paginator.to_list())")

    async def to_pandas(self) -> Any:
        """All items as a pandas DataFrame (needs the ``pandas`` extra); each page is turned
        into columns while the next one is on its way."""
        from paperlens.results.pandas import PagedFrame

        with PagedFrame("pandas") as paged:
            async for batch in self._batches():
                paged.add(batch)
            return paged.frame(self._page)

    async def to_polars(self) -> Any:
        """All items as a polars DataFrame (needs the ``polars`` extra)."""
        return self._frame(await self.to_list(), "polars")


def boost_active(params: dict[str, Any]) -> bool:
    """Boosts re-rank only a relevance ranking (a query and no sort); cursors are then refused."""
    query = params.get("query")
    # A query of another type is refused when the first page is prepared, naming it.
    relevance = isinstance(query, str) and bool(query.strip()) and not params.get("sort")
    return relevance and any(params.get(b) not in (None, NO_BOOST) for b in BOOSTS)


def boost_names(params: dict[str, Any]) -> str:
    return ", ".join(f"{b}={params[b]}" for b in BOOSTS if params.get(b) not in (None, NO_BOOST))
