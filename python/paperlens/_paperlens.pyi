# Hand-kept stub of the Rust extension module `paperlens._paperlens`.
# Keep it true to src/*.rs (checked by `python -m mypy.stubtest paperlens._paperlens`).

from collections.abc import Awaitable, Callable, Mapping
from os import PathLike
from pathlib import Path
from typing import Any, Final, final

__all__ = [
    "CONTRACT",
    "Completions",
    "LazyField",
    "NativeClient",
    "NativeSandbox",
    "Pending",
    "Row",
    "__version__",
    "check_params",
    "columns",
    "read_bibtex",
    "redact",
    "undecoded_rows",
]
__version__: str

# -- the contract's facts (src/contract.rs) -------------------------------------------------

#: The facts of the core's contract table that ``paperlens.base._contract`` reads (and types), by its names.
CONTRACT: Final[Mapping[str, Any]]

# -- rows (src/rows.rs) ---------------------------------------------------------------------

@final
class Row:
    """A page row left undecoded (src/rows.rs): its JSON text, decoded when read."""

    def __new__(cls, text: bytes) -> Row: ...
    def loads(
        self,
        ints: tuple[str, ...] | None = None,
        convert: Callable[[str, str | None], Any] | None = None,
        request_id: str | None = None,
    ) -> dict[str, Any]: ...
    def get(self, name: str, default: Any = None) -> Any: ...
    def __bytes__(self) -> bytes: ...
    def __reduce__(self) -> tuple[type[Row], tuple[bytes]]: ...

def undecoded_rows(
    undecoded: type[Any],
    values: list[Any],
    request_id: str | None,
    nothing: Any,
    build: Callable[[Any, str | None], Any],
) -> list[Any]:
    """A page's rows as instances of ``undecoded`` holding each ``Row``; other values built."""

def columns(rows: list[Row], strings: set[str] | frozenset[str]) -> dict[str, Any] | None:
    """The rows' properties as columns, values decoded from each row's text; string columns
    named in ``strings`` as Arrow buffers; None when a row can only be decoded whole."""

@final
class LazyField:
    """A field of the result type of undecoded rows: reading it decodes that value alone."""

    def __new__(
        cls,
        name: str,
        empty_list: bool,
        convert: Callable[[Any, str | None], Any] | None,
        int_only: bool,
        whole: Callable[[Any, type[Any], str], Any],
    ) -> LazyField: ...
    def __get__(self, instance: Any, owner: type[Any] | None = None, /) -> Any: ...

# -- errors (src/errors.rs) ----------------------------------------------------------------

def redact(text: str) -> str: ...

# -- parameters checked without a request (src/client.rs) ------------------------------------

def check_params(operation: str, params: dict[str, Any]) -> None: ...

# -- BibTeX (src/bibtex.rs) ----------------------------------------------------------------

def read_bibtex(
    text: str,
    max_bytes: int,
    max_expanded_bytes: int,
    max_brace_depth: int,
) -> list[tuple[str, str, list[tuple[str, str]], list[str], bool, list[str], bool, int, str]]:
    """The entries of a BibTeX text: (key, entry_type, fields, authors, et_al, editors,
    editors_et_al, line, raw) each; a file that cannot be read, or is over a budget (its
    bytes, the bytes its macro uses add, its brace depth), raises
    ``ValueError(message, key, ordinal, line, rule)`` (``rule``: the budget's name,
    ``"macro parts"`` or ``"BibTeX syntax"``)."""

# -- client (src/client.rs) -----------------------------------------------------------------

@final
class NativeClient:
    def __new__(
        cls,
        *,
        api_token: str | None,
        base_url: str | None,
        timeout: float | None,
        connect_timeout: float | None,
        max_retries: int | None,
        retry_backoff: float | None,
        max_rate_limit_wait: float | None,
        service_source: str | None,
        rate_limits: str | dict[str, int] | None,
        validate: bool | None,
        user_agent: str | None,
        cache_dir: str | None = None,
        cache_ttl: float | None = None,
        ca_bundle: str | None = None,
        proxy: str | None = None,
        max_concurrency: int | None = None,
        shared_pacing: bool | str | PathLike[str] | None = None,
        deadline: float | None = None,
        max_response_bytes: int | None = None,
        max_download_bytes: int | None = None,
        max_compression_ratio: int | None = None,
    ) -> NativeClient: ...
    def with_options(
        self,
        *,
        timeout: float | None = None,
        max_retries: int | None = None,
        retry_backoff: float | None = None,
        max_rate_limit_wait: float | None = None,
        validate: bool | None = None,
        deadline: float | None = None,
        max_response_bytes: int | None = None,
        max_download_bytes: int | None = None,
        max_compression_ratio: int | None = None,
    ) -> NativeClient: ...
    @property
    def base_url(self) -> str: ...
    def api_token(self) -> str: ...
    def pacing_rates(self) -> dict[str, int]: ...
    @property
    def timeout(self) -> float: ...
    @property
    def max_retries(self) -> int: ...
    @property
    def validate(self) -> bool: ...
    @property
    def cache_dir(self) -> Path | None: ...
    @property
    def cache_ttl(self) -> float | None: ...
    def clear_cache(self) -> int: ...
    def add_listener(self, callback: Callable[[str, float, str], object]) -> int: ...
    def remove_listener(self, id: int) -> bool: ...
    def call(self, operation: str, params: dict[str, Any]) -> tuple[Any, str]: ...
    def start(self, operation: str, params: dict[str, Any]) -> Pending: ...
    def call_async(self, operation: str, params: dict[str, Any]) -> Awaitable[tuple[Any, str]]: ...
    def fetch(self, params: dict[str, Any]) -> tuple[bytes, str | None, str | None, str]: ...
    def fetch_async(self, params: dict[str, Any]) -> Awaitable[tuple[bytes, str | None, str | None, str]]: ...
    def submit(
        self,
        kind: str,
        operation: str,
        params: dict[str, Any],
        completions: Completions,
        id: int,
        dest: str | None = None,
        progress: Callable[[int, int | None], object] | None = None,
    ) -> None: ...
    # A download's params: {"file_name": str, "overwrite": bool}; without overwrite, a file
    # already at the target is a ResourceWriteError of errno EEXIST and is left as it was.
    def download(
        self, params: dict[str, Any], dest: str, progress: Callable[[int, int | None], object] | None = None
    ) -> tuple[Path, str]: ...
    def download_async(
        self, params: dict[str, Any], dest: str, progress: Callable[[int, int | None], object] | None = None
    ) -> Awaitable[tuple[Path, str]]: ...

# -- answers started ahead (src/operation.rs) -----------------------------------------------

@final
class Pending:
    """A JSON operation started ahead of need; dropped or cancelled unwaited, it is stopped."""

    def wait(self) -> tuple[Any, str]: ...
    def cancel(self) -> None: ...

# -- async answers (src/completions.rs) -----------------------------------------------------

@final
class Completions:
    def __new__(cls) -> Completions: ...
    @property
    def fd(self) -> int: ...
    def drain(self) -> list[tuple[int, bool, Any]]: ...
    def cancel(self, id: int) -> None: ...

# -- sandbox (src/sandbox.rs) --------------------------------------------------------------

@final
class NativeSandbox:
    """A running sandbox server; ``paperlens.sandbox.Sandbox`` is the public face."""

    def __new__(
        cls,
        papers: int,
        seed: int,
        rate_limits: list[tuple[str, int]] | None,
        rate_limit_kind: str,
        token: str | None,
        int64_as_string: bool,
        host: str,
        port: int,
        content_latency: float | None = None,
        hidden_share: float = 0.0,
        reveal_after: int | None = None,
    ) -> NativeSandbox: ...
    @property
    def base_url(self) -> str: ...
    @property
    def token(self) -> str: ...
    @property
    def restricted_token(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    def inject_fault(
        self,
        path: str,
        kind: str,
        status: int | None,
        times: int,
        retry_after: float | None,
        delay: float | None,
    ) -> None: ...
    def requests(
        self,
    ) -> list[tuple[str, str, list[tuple[str, str]], list[tuple[str, str]], bytes]]: ...
    def clear_requests(self) -> None: ...
    def reveal(self) -> None: ...
    @property
    def hidden(self) -> int: ...
    def close(self) -> None: ...
