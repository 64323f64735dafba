"""``paperlens sandbox``: serve a local sandbox in the foreground until interrupted."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from paperlens.base.sandbox import Sandbox


def serve(args: argparse.Namespace) -> int:
    try:
        sandbox = Sandbox(
            papers=args.papers,
            seed=args.seed,
            rate_limits=dict(args.rate_limit) or None,
            rate_limit_kind=args.rate_limit_kind,
            token=args.token,
            host=args.host,
            port=args.port,
            content_latency=args.content_latency,
            hidden_share=args.hidden_share,
            reveal_after=args.reveal_after,
        )
    except (ValueError, OSError, OverflowError) as error:
        print(f"paperlens sandbox: {error}", file=sys.stderr)
        return 1
    stop = threading.Event()

    def request_stop(_signum: int, _frame: object) -> None:
        stop.set()

    stop_signals = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.signal(signum, request_stop) for signum in stop_signals}
    with sandbox:
        print(f"base_url={sandbox.base_url} token={sandbox.token}", flush=True)
        print(f"restricted_token={sandbox.restricted_token}", flush=True)
        print(
            f"paperlens sandbox: {args.papers} papers (seed {args.seed}); Ctrl-C stops it",
            file=sys.stderr,
            flush=True,
        )
        # A timed wait keeps the main thread responsive to signals on every platform.
        while not stop.wait(0.5):
            pass
    for signum, handler in previous.items():
        signal.signal(signum, handler)
    print("paperlens sandbox: stopped", file=sys.stderr, flush=True)
    return 0
