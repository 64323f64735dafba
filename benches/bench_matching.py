"""Reference matching (issue 15): top-1 accuracy and wrong "high" matches on citations made
from sandbox records, then degraded.

Run:  python benches/bench_matching.py                 (400 citations, about a minute: the figures of RESULTS.md)
      python benches/bench_matching.py -n 2000 --seed 7 (more, another sample)
      python benches/bench_matching.py --show 20        (also print the first 20 citations and their best match)

A ``Sandbox(papers=2000, seed=0)`` without rate limits, and a ``Client(rate_limits=None)`` (no
pacing: the requests are counted, not waited for). ``n`` records are drawn with
``random.Random(seed)``; each is written in one of eight citation styles (APA, MLA, Chicago,
Harvard, IEEE, Vancouver, Nature, informal "Smith et al., Venue 2019, title"; APA carries the
DOI) and degraded in one of eight ways, the styles and degradations cycling independently so
every pair occurs: none, abbreviated authors (the first author's surname and "et al."), missing
title words (a quarter, at least one), typos (a third of the title's longer words and the first
author's surname get one edit each), the year off by one, the venue dropped, and two
combinations. All of them go to one ``client.match_references(texts, top=5)``; a citation is
right when its best match is the record it was made from. "wrong high" is the share of the
"high" best matches that are not that record; requests are what the sandbox received.
Deterministic for ``n`` and ``seed``.
"""

from __future__ import annotations

import argparse
import random
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace

import paperlens
from paperlens.matching import ReferenceMatch
from paperlens.sandbox import Sandbox

PAPERS = 2000
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
SMALL = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "of",
        "on",
        "or",
        "the",
        "to",
        "under",
        "with",
        "via",
    ]
)


@dataclass(frozen=True)
class Source:
    """What a citation is written from (a record's fields, degraded step by step)."""

    authors: list[tuple[str, str]]  # (given names, surname)
    cjk: bool
    et_al: bool
    year: int
    title: str
    venue: str | None
    doi: str | None


def _person(name: str) -> tuple[str, str]:
    parts = name.split()
    if len(parts) == 1:
        return "", parts[0]
    if CJK.search(parts[0]):  # "加藤 健一": family name first
        return parts[1], parts[0]
    if len(parts) > 2 and parts[-2].lower() in ("van", "de", "von", "da"):
        return " ".join(parts[:-2]), " ".join(parts[-2:])
    return " ".join(parts[:-1]), parts[-1]


def source_of(record: paperlens.types.MetadataRecord) -> Source:
    names = [str(a["name"]) for a in record.author or []]
    return Source(
        authors=[_person(n) for n in names],
        cjk=any(CJK.search(n) for n in names),
        et_al=False,
        year=int(record.publication_published_year or 0),
        title=str(record.title),
        venue=record.publication_venue_name_unified,
        doi=record.doi,
    )


# -- styles -------------------------------------------------------------------------------------


def initials(given: str, dot: bool = True) -> str:
    letters = [g[0] for g in given.replace("-", " ").split() if g]
    return " ".join(f"{x}." for x in letters) if dot else "".join(letters)


def full(p: tuple[str, str], cjk: bool) -> str:
    return f"{p[1]} {p[0]}".strip() if cjk else f"{p[0]} {p[1]}".strip()


def title_case(title: str) -> str:
    words = title.split(" ")
    return " ".join(
        w if (w in SMALL and i) or not w[:1].islower() else w[:1].upper() + w[1:] for i, w in enumerate(words)
    )


def joined(names: list[str], last: str, et_al: bool, etal_text: str = "et al.") -> str:
    if et_al:
        return f"{names[0]} {etal_text}"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + f"{last}{names[-1]}"


def apa(s: Source) -> str:
    names = [f"{p[1]}, {initials(p[0])}".rstrip(", ") if not s.cjk else full(p, True) for p in s.authors]
    venue = f" {s.venue}." if s.venue else ""
    doi = f" https://doi.org/{s.doi}" if s.doi else ""
    return f"{joined(names, ', & ', s.et_al)} ({s.year}). {s.title}.{venue}{doi}"


def first_inverted(s: Source) -> list[str]:
    """The first author as "Family, Given", the others in full (MLA and Chicago)."""
    first = s.authors[0]
    return [f"{first[1]}, {first[0]}".rstrip(", ") if not s.cjk else full(first, True)] + [
        full(p, s.cjk) for p in s.authors[1:]
    ]


def mla(s: Source) -> str:
    names = first_inverted(s)
    venue = f" {s.venue}," if s.venue else ""
    return f'{joined(names, ", and ", s.et_al)}. "{title_case(s.title)}."{venue} {s.year}.'


def chicago(s: Source) -> str:
    names = first_inverted(s)
    venue = f" {s.venue}." if s.venue else ""
    return f'{joined(names, ", and ", s.et_al)}. {s.year}. "{title_case(s.title)}."{venue}'


def harvard(s: Source) -> str:
    names = [f"{p[1]}, {initials(p[0])}".rstrip(", ") if not s.cjk else full(p, True) for p in s.authors]
    venue = f", {s.venue}" if s.venue else ""
    return f"{joined(names, ' and ', s.et_al)} ({s.year}) '{s.title}'{venue}."


def ieee(s: Source) -> str:
    names = [f"{initials(p[0])} {p[1]}".strip() if not s.cjk else full(p, True) for p in s.authors]
    venue = f" in {s.venue}," if s.venue else ""
    return f'{joined(names, " and ", s.et_al)}, "{s.title},"{venue} {s.year}.'


def vancouver(s: Source) -> str:
    names = [f"{p[1]} {initials(p[0], dot=False)}".strip() if not s.cjk else full(p, True) for p in s.authors]
    venue = f" {s.venue}." if s.venue else ""
    return f"{joined(names, ', ', s.et_al)}. {s.title}.{venue} {s.year};12(3):45-67."


def nature(s: Source) -> str:
    names = [f"{p[1]}, {initials(p[0])}".rstrip(", ") if not s.cjk else full(p, True) for p in s.authors]
    venue = f" {abbreviated(s.venue)}" if s.venue else ""
    who = joined(names, " & ", s.et_al)
    return f"{who}{'' if who.endswith('.') else '.'} {s.title}.{venue} 12, 45-67 ({s.year})."


def informal(s: Source) -> str:
    first = s.authors[0][1] if not s.cjk else full(s.authors[0], True)
    who = first if len(s.authors) == 1 else f"{first} et al."
    venue = f" {s.venue}" if s.venue else ""
    return f"{who},{venue} {s.year}, {s.title.lower() if s.title.isascii() else s.title}"


def abbreviated(venue: str) -> str:
    """``Journal of Marine Ecology`` as ``J. Mar. Ecol.``"""
    words = [w for w in venue.split() if w.lower() not in SMALL]
    return " ".join(w if len(w) <= 5 or not w.isascii() else w[:4] + "." for w in words)


STYLES: dict[str, Callable[[Source], str]] = {
    "APA (+DOI)": apa,
    "MLA": mla,
    "Chicago": chicago,
    "Harvard": harvard,
    "IEEE": ieee,
    "Vancouver": vancouver,
    "Nature": nature,
    "informal": informal,
}

# -- degradations -------------------------------------------------------------------------------


def typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 1)
    kind = rng.choice(("swap", "drop", "replace", "double"))
    if kind == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "drop":
        return word[:i] + word[i + 1 :]
    if kind == "replace":
        return word[:i] + rng.choice("aeiourstnl") + word[i + 1 :]
    return word[:i] + word[i] + word[i:]


def abbreviate_authors(s: Source, rng: random.Random) -> Source:
    return replace(s, et_al=len(s.authors) > 1)


def drop_words(s: Source, rng: random.Random) -> Source:
    words = s.title.split()
    n = max(1, len(words) // 4) if len(words) > 2 else 0
    for _ in range(n):
        words.pop(rng.randrange(1, len(words)))
    return replace(s, title=" ".join(words))


def add_typos(s: Source, rng: random.Random) -> Source:
    words = s.title.split()
    long = [i for i, w in enumerate(words) if len(w) >= 5 and w.isascii()]
    for i in rng.sample(long, max(1, len(long) // 3)) if long else []:
        words[i] = typo(words[i], rng)
    given, surname = s.authors[0]
    if len(surname) >= 5 and surname.isascii():
        surname = typo(surname, rng)
    return replace(s, title=" ".join(words), authors=[(given, surname), *s.authors[1:]])


def shift_year(s: Source, rng: random.Random) -> Source:
    return replace(s, year=s.year + rng.choice((-1, 1)))


def drop_venue(s: Source, rng: random.Random) -> Source:
    return replace(s, venue=None)


DEGRADATIONS: dict[str, list[Callable[[Source, random.Random], Source]]] = {
    "none": [],
    "abbreviated authors": [abbreviate_authors],
    "missing words": [drop_words],
    "typos": [add_typos],
    "year off by one": [shift_year],
    "venue dropped": [drop_venue],
    "authors+words+typos+year": [abbreviate_authors, drop_words, add_typos, shift_year],
    "typos+year+no venue": [add_typos, shift_year, drop_venue],
}


@dataclass
class Case:
    gold: str
    style: str
    degradation: str
    text: str
    work: tuple[str, str, int]  # the cited work: title, first author, year


def work_of(record: paperlens.types.MetadataRecord) -> tuple[str, str, int]:
    first = str(record.author[0]["name"]) if record.author else ""
    return str(record.title).lower(), first, int(record.publication_published_year or 0)


def cases(records: list[paperlens.types.MetadataRecord], n: int, seed: int) -> list[Case]:
    rng = random.Random(seed)
    styles, degradations = list(STYLES), list(DEGRADATIONS)
    out = []
    for k, record in enumerate(rng.sample(records, n)):
        style, degradation = styles[k % len(styles)], degradations[(k // len(styles) + k) % len(degradations)]
        source = source_of(record)
        if style != "APA (+DOI)":
            source = replace(source, doi=None)
        for step in DEGRADATIONS[degradation]:
            source = step(source, rng)
        out.append(Case(str(record.unique_id), style, degradation, STYLES[style](source), work_of(record)))
    return out


# -- the run ------------------------------------------------------------------------------------


@dataclass
class Tally:
    """Answers counted: how many, how many right, how many the answer was sure of (a match of high
    confidence here, a verified reference in bench_verify) and how many of those were wrong."""

    total: int = 0
    right: int = 0
    sure: int = 0
    wrong_sure: int = 0

    def add(self, right: bool, sure: bool) -> None:
        self.total += 1
        self.right += right
        self.sure += sure
        self.wrong_sure += sure and not right

    def shares(self) -> str:
        """The table cells of the count, the share right and the share sure."""
        return f"{self.total} | {self.right / self.total:.3f} | {self.sure / self.total:.3f}"

    def row(self, name: str) -> str:
        wrong = self.wrong_sure / self.sure if self.sure else 0.0
        return f"| {name} | {self.shares()} | {self.wrong_sure} ({wrong:.3f}) |"


def run(
    client: paperlens.Client, sandbox: Sandbox, work: list[Case]
) -> tuple[list[list[ReferenceMatch]], Counter[str]]:
    """The matches of every citation, in one call, and the requests it sent by path."""
    sandbox.clear_requests()
    results = client.match_references([c.text for c in work], top=5)
    return results, Counter(r.path for r in sandbox.requests())


def show(mark: str, case: Case, best: ReferenceMatch | None) -> None:
    print(f"{mark} [{case.style} / {case.degradation}] {case.text}")
    if best is not None:
        print(f"      -> {best.record.unique_id} (made from {case.gold}) {best.confidence} {best.score} {best.reasons}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=400, help="citations (default 400)")
    parser.add_argument("--seed", type=int, default=1, help="sample and degradation seed (default 1)")
    parser.add_argument("--show", type=int, default=0, help="print this many citations and their best match")
    parser.add_argument("--misses", action="store_true", help="print every citation whose best match is wrong")
    args = parser.parse_args()

    with Sandbox(papers=PAPERS, seed=1) as other:
        client = paperlens.Client(api_token=other.token, base_url=other.base_url, rate_limits=None)
        elsewhere = cases(client.iter_meta_search(page_size=200).to_list(), args.n // 4, args.seed)
    with Sandbox(papers=PAPERS, seed=0) as sandbox:
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
        records = client.iter_meta_search(page_size=200).to_list()
        work = cases(records, args.n, args.seed)
        # Citations of the other corpus's papers, but not of a work this corpus has too.
        here = {work_of(r) for r in records}
        absent = [c for c in elsewhere if c.work not in here]
        started = time.perf_counter()
        results, sent = run(client, sandbox, work)
        elapsed = time.perf_counter() - started
        absent_results, absent_sent = run(client, sandbox, absent)

    overall = Tally()
    by: dict[str, dict[str, Tally]] = {"style": defaultdict(Tally), "degradation": defaultdict(Tally)}
    confidences: Counter[str] = Counter()
    for k, (case, matches) in enumerate(zip(work, results, strict=True)):
        best = matches[0] if matches else None
        right = best is not None and best.record.unique_id == case.gold
        high = best is not None and best.confidence == "high"
        confidences[best.confidence if best else "none"] += 1
        for tally in (overall, by["style"][case.style], by["degradation"][case.degradation]):
            tally.add(right, high)
        if k < args.show or (high and not right) or (args.misses and not right):
            show("ok " if right else "BAD" if high else "no ", case, best)
    absent_confidences: Counter[str] = Counter()
    for case, matches in zip(absent, absent_results, strict=True):
        best = matches[0] if matches else None
        absent_confidences[best.confidence if best else "none"] += 1
        if best is not None and best.confidence == "high":
            show("BAD", case, best)

    requests = sum(sent.values())
    print(f"\n{args.n} citations, seed {args.seed}, sandbox papers={PAPERS} seed=0; {elapsed:.1f} s")
    print(f"requests: {requests} ({requests / args.n:.2f} per citation): {dict(sent)}")
    print(f"best-match confidence: {dict(confidences)}\n")
    print("| | citations | top-1 | high | wrong high (of high) |\n|---|---|---|---|---|")
    print(overall.row("**all**"))
    for kind, tallies in by.items():
        for name in STYLES if kind == "style" else DEGRADATIONS:
            print(tallies[name].row(f"{kind}: {name}"))
    absent_requests = sum(absent_sent.values())
    print(
        f"\nnot in the corpus: {len(absent)} citations of seed-1 papers; best-match confidence "
        f"{dict(absent_confidences)} (every high one is wrong); requests: {absent_requests} "
        f"({absent_requests / max(len(absent), 1):.2f} per citation): {dict(absent_sent)}"
    )


if __name__ == "__main__":
    main()
