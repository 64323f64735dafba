"""What Python's ``json`` module makes of a text, as paperlens's row decoder must give it back:
the oracle of the decoder's tests and of its fuzz target (fuzz/fuzz_decoder.py), kept to the
standard library."""

from __future__ import annotations

import json
import math
import re
from typing import Any

#: A surrogate code point: in a str that ``json.loads`` gave, one without its pair.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogates_replaced(value: Any) -> Any:
    """``value`` (as ``json.loads`` gives it) with each lone surrogate as U+FFFD, as paperlens reads it."""
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [lone_surrogates_replaced(item) for item in value]
    if isinstance(value, dict):
        return {lone_surrogates_replaced(key): lone_surrogates_replaced(item) for key, item in value.items()}
    return value


def json_text(value: Any, ensure_ascii: bool, indent: int | None) -> bytes:
    """JSON text of ``value``; surrogates, which UTF-8 cannot hold, always as escapes."""
    text = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
    return LONE_SURROGATE.sub(lambda found: f"\\u{ord(found[0]):04x}", text).encode()


def same(a: Any, b: Any) -> bool:
    """Equal, with the same types (1, 1.0 and True differ), key order and sign of zero."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(value, b[key]) for key, value in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return bool(a == b)
