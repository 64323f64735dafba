"""Progress bars (tqdm, an optional extra), imported only when asked for."""

from __future__ import annotations

from typing import Any


def progress_bar(*, total: int | None, unit: str, desc: str | None = None) -> Any:
    try:
        from tqdm.auto import tqdm
    except ImportError as e:
        raise ImportError('progress=True needs tqdm: pip install "paperlens[progress]"') from e
    return tqdm(total=total, unit=unit, desc=desc, dynamic_ncols=True)
