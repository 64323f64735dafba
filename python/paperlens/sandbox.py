"""A local, contract-faithful paperlens service for examples, tests and benchmarks.

>>> import paperlens
>>> from paperlens.sandbox import Sandbox
>>> with Sandbox(papers=200) as sandbox:
...     client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url)

The server runs inside this process (Rust, on the extension's shared runtime) on a
loopback port; it implements all 24 operations over a generated corpus, deterministic
for ``papers`` and ``seed``.
"""

from paperlens.base import sandbox as _module
from paperlens.base.sandbox import *  # noqa: F403

__all__ = _module.__all__
