"""Quota pacing (issue 13): paced harvests against each kind of gateway, a stricter gateway
learned from its 429s, and four processes sharing one quota, each against a fresh sandbox.

Run:  python benches/bench_pacing.py          (about 10 minutes)
      python benches/bench_pacing.py --parts redis   (4 processes through Redis, each gateway kind: 4 minutes)
      python benches/bench_pacing.py --long   (adds the 20/min harvests, 9 minutes more: the figures of RESULTS.md)
      python benches/bench_pacing.py --quick  (a smoke run of about 3 minutes; not for RESULTS.md)

Every run starts a fresh in-process ``Sandbox(papers=2000, rate_limits=..., rate_limit_kind=...)``
with a ``/meta-search`` quota, so the quota is full when the run starts:
- "sequential": one sync ``Client`` with the same limit harvests ``iter_meta_search(page_size=1,
  limit=N)``, N = twice the limit (four times at 20/min; one request per record), against each
  ``rate_limit_kind``;
- "stricter gateway": 30 ``meta_search`` calls at once (``asyncio.gather``) on an ``AsyncClient``
  pacing at the documented 30/min, against a gateway allowing 10/min;
- "4 processes": 4 real processes (this script with ``--child``), one token,
  ``shared_pacing=<a temp file>``, each harvesting a quarter of twice the limit, released at one
  wall-clock instant;
- "4 processes, Redis": the same with ``shared_pacing="redis://..."``, a real ``redis-server``
  started on a free loopback port (tests/redis_server.py), at 60/min against each gateway kind.

The time the quota allows for N requests at L per minute, starting from a full quota, is
(N - L) / L minutes: the first L go at once, the others as the window frees (60 s for 240 at
120/min). N is always a multiple of L, so that this is also the time of the last request under a
sliding or fixed window, where request L + 1 can go no sooner than 60 s after the first. A window
lasts 60 s whatever the rate, so no run can be shorter than a minute: ``--quick`` runs fewer of
them. Elapsed is from the first call to the last answer (for the processes, the earliest
start to the latest end). "requests sent" is what the sandbox received (``Sandbox.requests()``);
the 429s and 200s are counted from the client's own ``paperlens`` log records ("answered 429" at
DEBUG; in the concurrent case, where DEBUG records would slow the burst down, the 200s are the
calls that succeeded and the 429s the WARNING retry records), and the two counts are checked
against each other. "429s (later)": of those, the 429s logged more than a second after the
first, i.e. not of the first burst (the issue: "after the first burst no request is refused
again").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import paperlens
from paperlens.sandbox import Sandbox

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from redis_server import RedisServer

KINDS = ("sliding", "fixed", "bucket")
PAPERS = 2000
RESOURCE = "meta-search"
PROCESSES = 4
ANSWERED = re.compile(r"answered (\d{3}) ")
WAITING = re.compile(r"pacing: waiting ([\d.]+) s")
REFUSED = re.compile(r"failed \(429 .*; retry \d+ of \d+ in ")
BURST = 1.0
"""Seconds: 429s logged within this of the first one are of the first burst."""


class Answers(logging.Handler):
    """Counts, from the records of the ``paperlens`` logger: the answers by status (the DEBUG
    "answered NNN" records, one per attempt; only with ``debug``), when each attempt was sent
    (DEBUG "attempt N"), the pacing waits (INFO) and the 429s retried (the WARNING "failed (429
    ...); retry" records, which the client logs once the resource's pause is in force).

    The refusals of one burst all come within milliseconds; after a 429 nothing goes before the
    advised time, a whole number of seconds later. A 429 logged more than ``BURST`` after the
    first is one of a later burst: one the pause and the learned limit should have prevented.

    DEBUG records are only asked for where requests go one at a time: each takes the GIL on the
    thread that received the answer, which would delay a concurrent burst's pause."""

    def __init__(self, debug: bool) -> None:
        super().__init__(logging.DEBUG)
        self.debug = debug
        self.statuses: Counter[int] = Counter()
        self.retries = 0
        self.waits: list[float] = []
        self.sent_at: list[float] = []
        self.refused_at: list[float] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if answered := ANSWERED.match(message):
            self.statuses[int(answered.group(1))] += 1
        elif waiting := WAITING.match(message):
            self.waits.append(float(waiting.group(1)))
        elif " attempt " in message:
            self.sent_at.append(record.created)
        elif "; retry " in message:
            self.retries += 1
            if REFUSED.search(message):
                self.refused_at.append(record.created)

    @property
    def later_refusals(self) -> int:
        return sum(1 for t in self.refused_at if t > self.refused_at[0] + BURST)

    def burst_note(self) -> str | None:
        if not self.refused_at:
            return None
        first = [t - self.refused_at[0] for t in self.refused_at if t <= self.refused_at[0] + BURST]
        later = [t - self.refused_at[0] for t in self.refused_at if t > self.refused_at[0] + BURST]
        note = f"{len(first)} 429s retried within {max(first) * 1000:.0f} ms of the first"
        if later:
            note += "; later ones at " + ", ".join(f"+{t:.1f} s" for t in later)
        return note


@contextmanager
def counting(debug: bool = True) -> Iterator[Answers]:
    logger = logging.getLogger("paperlens")
    answers, level = Answers(debug), logger.level
    logger.addHandler(answers)
    logger.setLevel(logging.DEBUG if debug else logging.INFO)
    try:
        yield answers
    finally:
        logger.removeHandler(answers)
        logger.setLevel(level)


@dataclass
class Run:
    case: str
    kind: str
    client_limit: int
    gateway_limit: int
    calls: int
    succeeded: int
    sent: int
    """Requests the sandbox received."""
    statuses: Counter[int]
    """Answers by status, as the clients logged them."""
    elapsed: float
    allowed: float
    waits: int = 0
    retries: int = 0
    later_refusals: int = 0
    """429s retried more than ``BURST`` after the first."""
    notes: list[str] = field(default_factory=list)

    @property
    def refused(self) -> int:
        return self.statuses[429]

    @property
    def ratio(self) -> float:
        return self.elapsed / self.allowed

    def check(self) -> None:
        logged = sum(self.statuses.values())
        if logged != self.sent:
            self.notes.append(f"the sandbox received {self.sent} requests, the clients logged {logged} answers")


def allowed_seconds(requests: int, per_minute: int) -> float:
    """The time a quota of ``per_minute`` allows for ``requests``, starting full."""
    return max(requests - per_minute, 0) / per_minute * 60.0


def received(sandbox: Sandbox) -> int:
    return sum(1 for r in sandbox.requests() if r.path == "/meta-search")


def sequential(kind: str, limit: int, requests: int) -> Run:
    with Sandbox(papers=PAPERS, rate_limits={RESOURCE: limit}, rate_limit_kind=kind) as sandbox, counting() as answers:
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits={RESOURCE: limit})
        start = time.perf_counter()
        records = sum(1 for _ in client.iter_meta_search(page_size=1, limit=requests))
        elapsed = time.perf_counter() - start
        client.close()
        run = Run(
            "sequential harvest",
            kind,
            limit,
            limit,
            requests,
            records,
            received(sandbox),
            answers.statuses,
            elapsed,
            allowed_seconds(requests, limit),
            len(answers.waits),
            answers.retries,
            answers.later_refusals,
        )
    if answers.sent_at:
        # When the request after the first minute's quota went, from the first request.
        later = sorted(answers.sent_at)
        if len(later) > limit:
            run.notes.append(f"request {limit + 1} sent {later[limit] - later[0]:.2f} s after the first")
    run.check()
    return run


def stricter_gateway(kind: str, client_limit: int, gateway_limit: int, calls: int) -> Run:
    with (
        Sandbox(papers=PAPERS, rate_limits={RESOURCE: gateway_limit}, rate_limit_kind=kind) as sandbox,
        counting(debug=False) as answers,
    ):

        async def gathered() -> tuple[int, float]:
            async with paperlens.AsyncClient(
                api_token=sandbox.token, base_url=sandbox.base_url, rate_limits={RESOURCE: client_limit}
            ) as client:
                start = time.perf_counter()
                pages = await asyncio.gather(
                    *(client.meta_search(f"q{n}", page_size=1) for n in range(calls)), return_exceptions=True
                )
                elapsed = time.perf_counter() - start
            failed = [p for p in pages if isinstance(p, BaseException)]
            for error in failed[:3]:
                run_notes.append(f"failed: {type(error).__name__}: {error}")
            return calls - len(failed), elapsed

        run_notes: list[str] = []
        succeeded, elapsed = asyncio.run(gathered())
        # Without DEBUG records: 200s are the calls that succeeded, 429s those retried.
        answers.statuses.update({200: succeeded, 429: len(answers.refused_at)})
        run = Run(
            f"{calls} concurrent calls, stricter gateway",
            kind,
            client_limit,
            gateway_limit,
            calls,
            succeeded,
            received(sandbox),
            answers.statuses,
            elapsed,
            allowed_seconds(calls, gateway_limit),
            len(answers.waits),
            answers.retries,
            answers.later_refusals,
            run_notes,
        )
    if note := answers.burst_note():
        run.notes.append(note)
    run.check()
    return run


def processes(kind: str, limit: int, requests: int, redis: str | None = None) -> Run:
    """``requests`` shared by the processes through a temporary file, or the Redis server at ``redis``."""
    each = requests // PROCESSES
    with (
        Sandbox(papers=PAPERS, rate_limits={RESOURCE: limit}, rate_limit_kind=kind) as sandbox,
        tempfile.TemporaryDirectory() as tmp,
    ):
        start_at = time.time() + 2.0  # all four have imported paperlens by then
        order = json.dumps(
            {
                "base_url": sandbox.base_url,
                "token": sandbox.token,
                "shared": redis or str(Path(tmp) / "pacing.json"),
                "limit": limit,
                "records": each,
                "start_at": start_at,
            }
        )
        children = [
            subprocess.Popen(
                [sys.executable, __file__, "--child", order], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            for _ in range(PROCESSES)
        ]
        reports, notes = [], []
        for child in children:
            out, err = child.communicate(timeout=600)
            if child.returncode != 0:
                notes.append(f"a child failed: {err.strip().splitlines()[-1:]}")
                continue
            reports.append(json.loads(out))
        statuses: Counter[int] = Counter()
        for report in reports:
            statuses.update({int(status): n for status, n in report["statuses"].items()})
        elapsed = max(r["ended"] for r in reports) - min(r["started"] for r in reports) if reports else float("nan")
        run = Run(
            f"{PROCESSES} processes, shared_pacing" + (" (Redis)" if redis else ""),
            kind,
            limit,
            limit,
            each * PROCESSES,
            sum(r["records"] for r in reports),
            received(sandbox),
            statuses,
            elapsed,
            allowed_seconds(each * PROCESSES, limit),
            sum(r["waits"] for r in reports),
            sum(r["retries"] for r in reports),
            sum(r["later_refusals"] for r in reports),
            notes,
        )
        spread = [r["ended"] - r["started"] for r in reports]
        if spread:
            run.notes.append("each process: " + ", ".join(f"{s:.1f} s" for s in spread))
    run.check()
    return run


def child(order_json: str) -> None:
    """One of the processes of ``processes()``: harvests its share, prints what it saw as JSON."""
    order = json.loads(order_json)
    with counting() as answers:
        client = paperlens.Client(
            api_token=order["token"],
            base_url=order["base_url"],
            rate_limits={RESOURCE: order["limit"]},
            shared_pacing=order["shared"],
        )
        time.sleep(max(order["start_at"] - time.time(), 0.0))
        started = time.time()
        records = sum(1 for _ in client.iter_meta_search(page_size=1, limit=order["records"]))
        ended = time.time()
        client.close()
    report = {
        "started": started,
        "ended": ended,
        "records": records,
        "statuses": answers.statuses,
        "waits": len(answers.waits),
        "retries": answers.retries,
        "later_refusals": answers.later_refusals,
    }
    print(json.dumps(report))


def target(run: Run) -> str:
    if run.case.startswith("sequential") or "processes" in run.case:
        met = run.ratio <= 1.05 and run.refused == 0 and run.succeeded == run.calls
        return f"<= 1.05x, 0 429s ({'met' if met else 'not met'})"
    most = run.calls + 20  # 50 for the 30 calls of the issue
    met = run.sent <= most and run.succeeded == run.calls and run.later_refusals == 0
    return f"<= {most} sent, all succeed, no later 429 ({'met' if met else 'not met'})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="a smoke run: the sliding kind only, 20 concurrent calls")
    size.add_argument("--long", action="store_true", help="add the sequential harvests at 20/min (180 s each)")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS), help="gateway kinds to run")
    parser.add_argument(
        "--parts",
        nargs="+",
        choices=("sequential", "concurrent", "processes", "redis"),
        default=["sequential", "concurrent", "processes"],
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return

    # (limit, requests) of the sequential harvests and the processes; (calls) of the concurrent case
    if args.quick:
        harvests, calls, args.kinds = [(120, 240)], 20, ["sliding"]
    else:
        harvests, calls = [(120, 240)], 30
        if args.long:
            harvests.append((20, 80))

    runs: list[Run] = []

    def done(run: Run) -> None:
        runs.append(run)
        print(
            f"  {run.case} [{run.kind}, {run.client_limit}/{run.gateway_limit} per min]: {run.elapsed:.1f} s "
            f"(allowed {run.allowed:.0f} s), sent {run.sent}, 429s {run.refused} ({run.later_refusals} later), "
            f"{run.succeeded}/{run.calls} ok",
            file=sys.stderr,
            flush=True,
        )

    if "sequential" in args.parts:
        for limit, requests in harvests:
            for kind in args.kinds:
                done(sequential(kind, limit, requests))
    if "concurrent" in args.parts:
        for kind in args.kinds:
            done(stricter_gateway(kind, 30, 10, calls))
    if "processes" in args.parts:
        limit, requests = harvests[0]
        done(processes(args.kinds[0], limit, requests))
    if "redis" in args.parts:
        for kind in args.kinds:
            # A fresh server per kind: no pacing state is carried from one run to the next.
            with RedisServer() as server:
                done(processes(kind, 60, 120, redis=server.url))

    print(f"Python {sys.version.split()[0]}, paperlens {paperlens.__version__}, sandbox of {PAPERS} papers\n")
    print(
        "| case | gateway kind | per minute (client / gateway) | calls | requests sent | 429s (later) | elapsed "
        "| quota allows | ratio | target |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for run in runs:
        print(
            f"| {run.case} | {run.kind} | {run.client_limit} / {run.gateway_limit} | {run.succeeded}/{run.calls} ok "
            f"| {run.sent} | {run.refused} ({run.later_refusals}) | {run.elapsed:.1f} s | {run.allowed:.0f} s "
            f"| {run.ratio:.3f}x | {target(run)} |"
        )
    notes = [(run, note) for run in runs for note in run.notes]
    if notes:
        print()
    for run, note in notes:
        print(f"- {run.case} [{run.kind}, {run.client_limit}/min]: {note}")


if __name__ == "__main__":
    main()
