"""Declarations of the native module ``paperlens._paperlens``."""

__version__: str

# --- sandbox (src/sandbox.rs) -------------------------------------------------------

class NativeSandbox:
    """A running sandbox server; ``paperlens.sandbox.Sandbox`` is the public face."""

    def __init__(
        self,
        papers: int,
        seed: int,
        rate_limits: list[tuple[str, int]] | None,
        token: str | None,
        int64_as_string: bool,
        host: str,
        port: int,
    ) -> None: ...
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
    def close(self) -> None: ...

# --- end sandbox --------------------------------------------------------------------
