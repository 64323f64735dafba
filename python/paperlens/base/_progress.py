"""Progress bars (tqdm, an optional extra), imported only when asked for.

A bar can listen to a client's transport while it is open, so that a wait for pacing or
before a retry shows on the bar ("waiting 12 s (rate limit)") instead of looking like a hang.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

#: ``listen(callback)`` registers ``callback(kind, wait_seconds, message)`` with a client's
#: transport and returns a function that unregisters it.
Listen = Callable[[Callable[[str, float, str], None]], Callable[[], None]]

_RETRY = re.compile(r"retry (\d+) of (\d+)")
_RATE = re.compile(r"(\d+) requests/minute")


def _tqdm() -> Any:
    try:
        from tqdm.auto import tqdm
    except ImportError as e:
        raise ImportError('progress=True needs tqdm: pip install "paperlens[progress]"') from e
    return tqdm


def progress_bar(*, total: int | None, unit: str, desc: str | None = None, **options: Any) -> Any:
    return _tqdm()(total=total, unit=unit, desc=desc, dynamic_ncols=True, **options)


def wait_note(kind: str, wait: float, message: str) -> str | None:
    """The bar's note for a transport event: a text while waiting, "" to clear it, None to keep it."""
    if kind == "paced" and wait > 0:
        # The message tells the pause of a 429 apart from the rate it keeps to (the learned one).
        why = "the service asked" if "a 429" in message else "rate limit"
        rate = _RATE.search(message)
        return f"waiting {wait:.0f} s ({why}, {rate.group(1)}/min)" if rate else f"waiting {wait:.0f} s ({why})"
    if kind == "retry":
        match = _RETRY.search(message)
        which = f"retry {match.group(1)}/{match.group(2)}" if match else "retry"
        return f"waiting {wait:.0f} s ({which})"
    if kind in ("request", "cache_hit"):
        return ""
    return None


class Progress:
    """A tqdm bar that shows the transport's waits while it is open."""

    def __init__(
        self, *, total: int | None, unit: str, listen: Listen | None = None, desc: str | None = None, **options: Any
    ) -> None:
        self.bar = progress_bar(total=total, unit=unit, desc=desc, **options)
        self.note = ""
        self._unlisten = listen(self._on_event) if listen is not None else None

    def _on_event(self, kind: str, wait: float, message: str) -> None:
        note = wait_note(kind, wait, message)
        if note is None or note == self.note:
            return
        self.note = note
        self.bar.set_postfix_str(note, refresh=True)

    def set_total(self, total: int | None) -> None:
        if total is not None and total != self.bar.total:
            self.bar.total = total
            self.bar.refresh()

    def update(self, n: int = 1) -> None:
        self.bar.update(n)

    def close(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        self.bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
