"""Each operation defined once, for the sync and the async clients alike.

An operation is written as a function that names its parameters (their types, defaults and
documentation) and returns them as they go to the core, usually ``params(locals())``:

    @operation(lambda: t.Catalog)
    def meta_catalog(self, *, collection: str | None = None) -> Params:
        \"\"\"The metadata fields this token may use (``GET /meta-catalog``).\"\"\"
        return params(locals())

The result type is named by a function, called when the method is first read from a caller:
``import paperlens`` defines no result class (nor imports ``dataclasses`` and ``inspect``, a
third of its time); the first use does. The decorator makes the definition a descriptor.
Read from a :class:`SyncCaller` (``Client``, ``Schema``) it is a method returning the typed
result; from an :class:`AsyncCaller`, one returning an awaitable of it. :func:`pages` does the
same for the ``iter_`` forms, which return a ``Paginator`` or an ``AsyncPaginator``. Read from
the class, the descriptor keeps the definition's signature and documentation, with the result
type as its return annotation.

A workflow of many requests (``lookup``, ``snowball``...) is written once as a generator, a
:data:`Plan`: it yields a :class:`Call` of one of the client's methods and receives its result
(or has its error raised at the ``yield``). :func:`workflow` runs it with plain calls for
``Client`` and with awaits for ``AsyncClient``.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from paperlens.base import _docstrings as docstrings
from paperlens.machinery._pagination import AsyncPaginator, Paginator, Paging

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")
Params = dict[str, Any]
Definition = Callable[Concatenate[Any, P], Params]
#: A result type named lazily (see the module's docstring): ``lambda: t.Catalog``.
Named = Callable[[], type[T]]

if TYPE_CHECKING:
    from inspect import Signature

__all__ = [
    "AsyncCaller",
    "Call",
    "Params",
    "Plan",
    "SyncCaller",
    "operation",
    "paged_doc",
    "pages",
    "params",
    "workflow",
]

#: What an ``iter_`` definition's parameters that the paginator takes, or that it starts from,
#: mean unless its docstring says otherwise (see :func:`paged_doc`).
_PAGED_ARGS = {
    "cursor": "a ``next_cursor`` to resume from.",
    "limit": "stop after this many items.",
    "progress": "show a tqdm progress bar (the ``progress`` extra).",
}


def params(scope: dict[str, Any], *drop: str) -> Params:
    """A definition's parameters from its ``locals()``, without ``self`` and the named ones."""
    return {k: v for k, v in scope.items() if k != "self" and k not in drop}


class SyncCaller:
    """A client or schema whose operations return their results. ``_call(name, model,
    params)`` sends one request; ``_start`` (the same arguments) starts it and returns what
    finishes it; ``_listen`` feeds progress bars."""

    _paginator: Any = Paginator
    _call: Callable[..., Any]
    _start: Callable[..., Any]
    _listen: Callable[..., Any]


class AsyncCaller:
    """A client or schema whose operations return awaitables of their results."""

    _paginator: Any = AsyncPaginator
    _call: Callable[..., Any]
    _listen: Callable[..., Any]


async def _awaited(call: Awaitable[T]) -> T:
    # One frame for the method, as an ``async def`` method has: a PartialResultWarning then
    # points at the caller's line in the sync and the async client alike.
    return await call


class _Described(Generic[P, R]):
    """``returns``: the return annotation, computed when first needed."""

    def __init__(self, define: Callable[Concatenate[Any, P], Any], name: str, returns: Callable[[], Any]) -> None:
        functools.update_wrapper(self, define, assigned=("__module__", "__name__", "__qualname__", "__doc__"))
        self._define = define
        self._name = name
        self._returns = returns

    @functools.cached_property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]
        return {**self._define.__annotations__, "return": self._returns()}

    @functools.cached_property
    def __signature__(self) -> Signature:
        import inspect

        return inspect.signature(self._define).replace(return_annotation=self._returns())

    @functools.cached_property
    def _bound_signature(self) -> Signature:
        signature = self.__signature__
        return signature.replace(parameters=list(signature.parameters.values())[1:])

    def __get__(self, obj: Any, owner: type[Any]) -> Any:
        raise NotImplementedError

    def __call__(self, obj: SyncCaller | AsyncCaller, /, *args: Any, **kwargs: Any) -> Any:
        """Read from the class, called as a plain function: ``Client.meta_search(client, ...)``."""
        return self.__get__(obj, type(obj))(*args, **kwargs)

    def _bind(self, obj: SyncCaller | AsyncCaller, run: Callable[..., Any]) -> Callable[..., Any]:
        run.__name__ = run.__qualname__ = self._define.__name__
        run.__doc__ = self.__doc__
        run.__signature__ = self._bound_signature  # type: ignore[attr-defined]
        # Kept on the instance, so the next read finds it without this descriptor.
        obj.__dict__[self._define.__name__] = run
        return run


class _Answers(_Described[P, R]):
    """A method answering ``R`` on a :class:`SyncCaller` and an awaitable of it on an
    :class:`AsyncCaller`; ``_runner`` makes the method for one caller."""

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> _Answers[P, R]: ...
    @overload
    def __get__(self, obj: AsyncCaller, owner: type[Any]) -> Callable[P, Coroutine[Any, Any, R]]: ...
    @overload
    def __get__(self, obj: SyncCaller, owner: type[Any]) -> Callable[P, R]: ...
    def __get__(self, obj: SyncCaller | AsyncCaller | None, owner: type[Any]) -> Any:
        if obj is None:
            return self
        return self._bind(obj, self._runner(obj))

    def _runner(self, obj: SyncCaller | AsyncCaller) -> Callable[..., Any]:
        raise NotImplementedError


class Operation(_Answers[P, R]):
    """One request, its answer typed as ``model()`` (see :func:`operation`)."""

    def __init__(self, define: Definition[P], model: Named[R], name: str | None) -> None:
        super().__init__(define, name or define.__name__, model)
        self._model = model

    def _runner(self, obj: SyncCaller | AsyncCaller) -> Callable[..., Any]:
        define, call, name, model = self._define, obj._call, self._name, self._model()
        if isinstance(obj, AsyncCaller):
            return lambda *args, **kwargs: _awaited(call(name, model, define(obj, *args, **kwargs)))
        return lambda *args, **kwargs: call(name, model, define(obj, *args, **kwargs))


class Pages(_Described[P, R]):
    """Every item of an operation's pages (see :func:`pages`); its docstring is the
    definition's, completed by :func:`paged_doc`."""

    def __init__(
        self,
        define: Definition[P],
        model: Named[Any],
        item: Named[R],
        paging: Callable[[Params], Paging[Any]],
        unit: str,
        options: tuple[str, ...],
        name: str | None,
    ) -> None:
        super().__init__(define, name or define.__name__.removeprefix("iter_"), lambda: Paginator[item()])  # type: ignore[misc]
        self._model, self._paging, self._unit, self._options = model, paging, unit, options
        code = define.__code__
        parameters = list(code.co_varnames[1 : code.co_argcount + code.co_kwonlyargcount])  # after ``self``
        self.__doc__ = paged_doc(define.__doc__ or "", parameters, define.__name__.removeprefix("iter_"))

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Pages[P, R]: ...
    @overload
    def __get__(self, obj: AsyncCaller, owner: type[Any]) -> Callable[P, AsyncPaginator[R]]: ...
    @overload
    def __get__(self, obj: SyncCaller, owner: type[Any]) -> Callable[P, Paginator[R]]: ...
    def __get__(self, obj: SyncCaller | AsyncCaller | None, owner: type[Any]) -> Any:
        if obj is None:
            return self
        define, model = self._define, self._model()
        fetch = functools.partial(obj._call, self._name, model)
        if isinstance(obj, SyncCaller):
            start = functools.partial(obj._start, self._name, model)
            options = {"start": start}
        else:
            options = {}

        def run(*args: Any, **kwargs: Any) -> Any:
            sent = define(obj, *args, **kwargs)
            given = {key: sent.pop(key) for key in self._options}
            return obj._paginator(fetch, self._paging(sent), unit=self._unit, listen=obj._listen, **given, **options)

        return self._bind(obj, run)


def operation(model: Named[R], *, name: str | None = None) -> Callable[[Definition[P]], Operation[P, R]]:
    """An operation answering ``model()``; ``name``: the core's name of it (default: the
    function's)."""
    return lambda define: Operation(define, model, name)


def pages(
    model: Named[Any],
    item: Named[R],
    paging: Callable[[Params], Paging[Any]],
    *,
    unit: str = "records",
    options: tuple[str, ...] = ("limit", "progress"),
    name: str | None = None,
) -> Callable[[Definition[P]], Pages[P, R]]:
    """The ``iter_`` form of an operation answering pages of ``model()``, yielding ``item()``s:
    ``paging`` walks the pages; ``options`` are the parameters that go to the paginator
    rather than to the service."""
    return lambda define: Pages(define, model, item, paging, unit, options, name)


def paged_doc(doc: str, parameters: list[str], operation: str) -> str:
    """The docstring of an ``iter_`` form with an ``Args:`` entry for each of its
    ``parameters`` that it does not document itself: the paginator's (``cursor``, ``limit``,
    ``progress``) as in :data:`_PAGED_ARGS`, any other "as for" the method ``operation``. The
    entries stand in the order of ``parameters``."""
    own = docstrings.entries(doc, "Args:")
    written = {
        name: own.pop(name) if name in own else [f"    {name}: {_PAGED_ARGS.get(name, f'as for :meth:`{operation}`.')}"]
        for name in parameters
    }
    return docstrings.with_entries(doc, "Args:", {**written, **own})


class Call:
    """One call a :data:`Plan` asks for: ``getattr(client, method)(*args, **kwargs)``, awaited on an
    ``AsyncClient``. ``method`` names a coroutine method there (not an ``iter_`` one)."""

    __slots__ = ("args", "kwargs", "method")

    def __init__(self, method: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> None:
        self.method, self.args, self.kwargs = method, args, {} if kwargs is None else kwargs

    def __repr__(self) -> str:
        return f"Call({self.method!r}, {self.args!r}, {self.kwargs!r})"


Plan = Generator[Call, Any, R]
PlanDefinition = Callable[Concatenate[Any, P], Plan[R]]


class Workflow(_Answers[P, R]):
    """A :data:`Plan` run for a sync or an async caller (see :func:`workflow`)."""

    def __init__(self, define: PlanDefinition[P, R]) -> None:
        returns = define.__annotations__.get("return")
        if isinstance(returns, str) and returns.startswith("Plan[") and returns.endswith("]"):
            returns = returns[5:-1]  # what the method gives (the definition is lazily annotated)
        super().__init__(define, define.__name__, lambda: returns)

    def _runner(self, obj: SyncCaller | AsyncCaller) -> Callable[..., Any]:
        define = self._define
        if isinstance(obj, AsyncCaller):

            async def run_async(*args: Any, **kwargs: Any) -> Any:
                return await _run_async(obj, define(obj, *args, **kwargs))

            return run_async
        return lambda *args, **kwargs: _run_sync(obj, define(obj, *args, **kwargs))


class _Steps(Generic[R]):
    """Walks a plan: ``call`` is the call it waits on (None once it returned ``value``);
    ``settle`` gives it the call's result, or raises the call's error at its ``yield``. Leaving
    the ``with`` block closes the plan, so an interruption (Ctrl-C) runs its ``finally``s."""

    def __init__(self, plan: Plan[R]) -> None:
        self._plan = plan
        self.call: Call | None = None
        self.value: R | None = None
        self._move(lambda: next(plan))

    def _move(self, step: Callable[[], Call]) -> None:
        try:
            self.call = step()
        except StopIteration as stop:
            self.call, self.value = None, stop.value

    def __enter__(self) -> _Steps[R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self._plan.close()

    def settle(self, result: Any, error: Exception | None) -> None:
        if error is None:
            self._move(lambda: self._plan.send(result))
        else:
            self._move(lambda: self._plan.throw(error))


def _attempt(call: Call, method: Callable[..., Any]) -> tuple[Any, Exception | None]:
    try:
        return method(*call.args, **call.kwargs), None
    except Exception as error:
        return None, error


async def _attempt_async(call: Call, method: Callable[..., Any]) -> tuple[Any, Exception | None]:
    try:
        return await method(*call.args, **call.kwargs), None
    except Exception as error:
        return None, error


def _run_sync(obj: Any, plan: Plan[R]) -> R:
    with _Steps(plan) as steps:
        while (call := steps.call) is not None:
            steps.settle(*_attempt(call, getattr(obj, call.method)))
    return steps.value  # type: ignore[return-value]


async def _run_async(obj: Any, plan: Plan[R]) -> R:
    with _Steps(plan) as steps:
        while (call := steps.call) is not None:
            steps.settle(*await _attempt_async(call, getattr(obj, call.method)))
    return steps.value  # type: ignore[return-value]


def workflow(define: PlanDefinition[P, R]) -> Workflow[P, R]:
    """A method of many requests, written once as a :data:`Plan` for both clients."""
    return Workflow(define)
