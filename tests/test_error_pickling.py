"""Every paperlens error pickles with its attributes and notes: a worker process (multiprocessing,
ProcessPoolExecutor, dask) sends its exceptions back pickled."""

from __future__ import annotations

import errno
import pickle
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

import paperlens
from paperlens.harvest import HarvestError, HarvestWriteError, OutputInUseError

ERRORS = [
    paperlens.ConfigurationError("PAPERLENS_API_TOKEN is not set"),
    paperlens.ValidationError("page_size must be 1-200, got 0", param="page_size", rule="1-200", value="0"),
    paperlens.BadRequestError("400", status=400, code="INVALID_REQUEST", request_id="r1", details={"p": 1}),
    paperlens.RateLimitError("429", status=429, code="RATE_LIMITED", request_id="r2", retry_after=3.0),
    paperlens.QuotaExhaustedError(
        "429",
        status=429,
        request_id="r3",
        retry_after=3600.0,
        retry_at=datetime(2026, 11, 25, 18, 0, tzinfo=timezone.utc),
    ),
    paperlens.APIConnectionError("connection refused", request_id="r4"),
    paperlens.APITimeoutError("no answer within the timeout of 1.0 s per attempt", request_id="r5"),
    paperlens.ResponseDecodeError("not JSON", request_id="r6"),
    paperlens.ResourceWriteError("cannot write /x: No space left on device", request_id="r7", errno=errno.ENOSPC),
    HarvestError("the checkpoint belongs to another harvest"),
    OutputInUseError("h is being written by another run", out=Path("h"), pid=42, host="node-1"),
    HarvestWriteError("cannot write h: No space left on device", errno=errno.ENOSPC, out=Path("h")),
]


@pytest.mark.parametrize("error", ERRORS, ids=[type(e).__name__ for e in ERRORS])
def test_an_error_pickles_with_its_attributes_and_notes(error: BaseException) -> None:
    if sys.version_info >= (3, 11):
        error.add_note("paperlens: run the same call again to resume")
    restored = pickle.loads(pickle.dumps(error))
    assert type(restored) is type(error)
    assert str(restored) == str(error) and restored.args == error.args
    assert vars(restored) == vars(error)
    if isinstance(error, OSError):
        assert isinstance(restored, OSError)
        assert (restored.errno, restored.filename) == (error.errno, error.filename)
