"""Citation verification measured as HALLMARK measures verifiers (issue 39), on sandbox corpora.

Run:  python benches/bench_hallmark.py                     (seeds 40 41, 100 entries per type: RESULTS.md)
      python benches/bench_hallmark.py --seeds 7 -n 50     (other seeds, fewer entries)
      python benches/bench_hallmark.py --show 5            (print the entries each type misses)

HALLMARK (Reizinger et al., https://github.com/rpatrik96/hallmark, ``hallmark/dataset/schema.py``
and ``hallmark/dataset/generators/tier{1,2,3}.py``) defines 14 types of hallucinated citation
in three tiers. Each is ported here onto a ``Sandbox(papers=2000, seed=seed)`` corpus, written
from HALLMARK's definitions (none of its code), with fresh seeds:

- tier 1: ``fabricated_doi`` (a DOI that resolves to nothing), ``nonexistent_venue`` (an invented
  venue), ``placeholder_authors`` (generic names), ``future_date`` (a year 4-10 years after 2026);
- tier 2: ``chimeric_title`` (real authors, invented title), ``wrong_venue`` (another real venue),
  ``swapped_authors`` (another paper's authors), ``preprint_as_published`` (a preprint cited at a
  conference), ``hybrid_fabrication`` (a real DOI, invented authors, a title with words replaced),
  ``merged_citation`` (authors of one paper, title and DOI of a second, venue and year of a
  third), ``partial_author_list`` (first and last authors kept, the middle dropped, no "et al.");
- tier 3: ``near_miss_title`` (a synonym, a plural, a spelling, a hyphen or an article changed),
  ``plausible_fabrication`` (everything invented, in the corpus's vocabulary).

``arxiv_version_mismatch`` (an arXiv identifier of another version) is the one the contract cannot
express: records carry no arXiv versions. ``n`` entries per type, and as many valid entries
(records as they are; a third of long author lists cut with "et al."), half of each with the
DOI; every entry is written in one of six forms in turn: BibTeX, APA, Vancouver, IEEE, Chicago
and GB/T 7714. Each form of a set goes to one ``client.verify_citations`` (rate limits off; the
requests are counted from the sandbox's log).

An entry is flagged when its status is not ``verified``. Detection per type is the share
flagged; FPR the share of valid entries flagged; F1 over all entries; tier-weighted F1 weighs a
type's detections by its tier (1, 2, 3) as HALLMARK does; ECE compares each level of confidence,
read as the probability that the verdict (verified: valid; any other: hallucinated) is right
(high 0.98, medium 0.8, low 0.5), with how often it is right, in three bins.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, replace

from bench_matching import STYLES, Source, initials, source_of

import paperlens
from paperlens.base._citation import terms
from paperlens.sandbox import Sandbox

PAPERS = 2000
REFERENCE_YEAR = 2026
TIERS = {
    "fabricated_doi": 1,
    "nonexistent_venue": 1,
    "placeholder_authors": 1,
    "future_date": 1,
    "chimeric_title": 2,
    "wrong_venue": 2,
    "swapped_authors": 2,
    "preprint_as_published": 2,
    "hybrid_fabrication": 2,
    "merged_citation": 2,
    "partial_author_list": 2,
    "near_miss_title": 3,
    "plausible_fabrication": 3,
}
PROBABILITY = {"high": 0.98, "medium": 0.8, "low": 0.5}
FAKE_VENUES = [
    "Journal of Advanced Computational Semantics",
    "International Symposium on Cognitive Data Fusion",
    "Transactions on Emergent Neural Systems",
    "Proceedings of the Workshop on Synthetic Intelligence",
    "Global Review of Applied Informatics",
    "Letters in Quantum Machine Reasoning",
]
PLACEHOLDERS = [[("John", "Doe")], [("Jane", "Doe"), ("John", "Smith")], [("A.", "Author"), ("B.", "Author")]]
HYBRID_WORDS = ["Enhanced", "Improved", "Advanced", "Novel", "Efficient"]
SYNONYMS = {
    "study": "analysis",
    "evidence": "proof",
    "role": "function",
    "model": "framework",
    "towards": "toward",
    "perspective": "viewpoint",
    "analysis": "examination",
    "revisiting": "reconsidering",
    "learning": "training",
    "large-scale": "broad",
    "under": "beneath",
    "for": "toward",
}
SPELLING = [("ization", "isation"), ("isation", "ization"), ("yze", "yse"), ("or ", "our "), ("eling", "elling")]


@dataclass
class Entry:
    kind: str  # "valid" or a hallucination type
    gold: str | None  # the record it was made from (valid entries)
    source: Source
    key: str
    form: str = ""


# -- the types -----------------------------------------------------------------------------------


class Corpus:
    def __init__(self, records: list[paperlens.types.MetadataRecord], rng: random.Random) -> None:
        self.rng = rng
        self.records = [r for r in records if r.title and r.author and r.publication_published_year]
        self.titles = {tuple(terms(str(r.title))) for r in self.records}
        self.venues = sorted(
            {str(r.publication_venue_name_unified) for r in records if r.publication_venue_name_unified}
        )
        self.dois = {str(r.doi).lower() for r in records if r.doi}
        english = [r for r in self.records if str(r.title).isascii()]
        self.given = sorted({str(a["name"]).split()[0] for r in english for a in r.author if " " in str(a["name"])})
        self.families = sorted({str(a["name"]).split()[-1] for r in english for a in r.author})
        self.words = sorted({w for r in english for w in str(r.title).lower().split() if len(w) > 4 and w.isalpha()})

    def pick(self, test=lambda r: True) -> paperlens.types.MetadataRecord:
        while True:
            record = self.rng.choice(self.records)
            if test(record):
                return record

    def people(self, n: int) -> list[tuple[str, str]]:
        return [(self.rng.choice(self.given), self.rng.choice(self.families)) for _ in range(n)]

    def fake_doi(self, year: int) -> str:
        doi = f"10.{self.rng.randrange(7000, 7999)}/fab.{year}.{self.rng.randrange(10000, 99999)}"
        assert doi.lower() not in self.dois
        return doi

    def new_title(self) -> str:
        while True:
            a, b = (str(self.pick(lambda r: str(r.title).isascii()).title).split() for _ in range(2))
            title = " ".join(a[: len(a) // 2] + b[len(b) // 2 :])
            if tuple(terms(title)) not in self.titles:
                return title

    def with_doi(self, s: Source) -> Source:
        return s if self.rng.random() < 0.5 else replace(s, doi=None)


def near_miss(title: str, rng: random.Random) -> str | None:
    """``title`` off by a word, as HALLMARK's near_miss_title changes it; None when none applies."""
    words = title.split()
    strategies = ["synonym", "plural", "spelling", "hyphen", "article"]
    rng.shuffle(strategies)
    for strategy in strategies:
        if strategy == "synonym":
            places = [i for i, w in enumerate(words) if w.lower() in SYNONYMS]
            if places:
                i = rng.choice(places)
                other = SYNONYMS[words[i].lower()]
                words[i] = other.capitalize() if words[i][0].isupper() else other
                return " ".join(words)
        elif strategy == "plural":
            places = [i for i, w in enumerate(words) if len(w) > 4 and w.isalpha() and w.islower()]
            if places:
                i = rng.choice(places)
                words[i] = words[i][:-1] if words[i].endswith("s") else words[i] + "s"
                return " ".join(words)
        elif strategy == "spelling":
            for old, new in SPELLING:
                if old in title:
                    return title.replace(old, new, 1)
        elif strategy == "hyphen" and "-" in title:
            return title.replace("-", " ", 1)
        elif strategy == "article":
            for article in ("a ", "the ", "A ", "The "):
                if f" {article}" in f" {title}":
                    return f" {title}".replace(f" {article}", " ", 1).strip()
    return None


def hallucinated(kind: str, c: Corpus) -> Source | None:
    rng = c.rng
    record = c.pick(lambda r: str(r.title).isascii() and bool(r.publication_venue_name_unified))
    s = c.with_doi(source_of(record))
    if kind == "fabricated_doi":
        return replace(s, doi=c.fake_doi(s.year))
    if kind == "nonexistent_venue":
        return replace(s, venue=rng.choice(FAKE_VENUES))
    if kind == "placeholder_authors":
        return replace(s, authors=rng.choice(PLACEHOLDERS), cjk=False)
    if kind == "future_date":
        return replace(s, year=REFERENCE_YEAR + rng.randint(4, 10))
    if kind == "chimeric_title":
        return replace(s, title=c.new_title())
    if kind == "wrong_venue":
        return replace(s, venue=rng.choice([v for v in c.venues if v != s.venue and v.isascii()]))
    if kind == "swapped_authors":
        donor = c.pick(lambda r: str(r.author[0]["name"]).split()[-1] != s.authors[0][1])
        return replace(s, authors=source_of(donor).authors, cjk=source_of(donor).cjk)
    if kind == "preprint_as_published":
        preprint = c.pick(lambda r: r.type == "preprint" and str(r.title).isascii())
        conferences = [v for v in c.venues if v.startswith("International Conference")]
        return replace(c.with_doi(source_of(preprint)), venue=rng.choice(conferences))
    if kind == "hybrid_fabrication":
        with_doi = c.pick(lambda r: bool(r.doi) and str(r.title).isascii())
        words = str(with_doi.title).split()
        for _ in range(rng.randint(2, 3)):
            words[rng.randrange(len(words))] = rng.choice(HYBRID_WORDS)
        title = " ".join(words) if " ".join(words) != with_doi.title else f"Improved {with_doi.title}"
        return replace(source_of(with_doi), authors=c.people(rng.randint(1, 3)), cjk=False, title=title)
    if kind == "merged_citation":
        a, b, v = (
            c.pick(lambda r: str(r.title).isascii() and bool(r.publication_venue_name_unified)) for _ in range(3)
        )
        if len({a.unique_id, b.unique_id, v.unique_id}) < 3 or str(a.author[0]["name"]) == str(b.author[0]["name"]):
            return None
        merged = replace(source_of(b), authors=source_of(a).authors, venue=v.publication_venue_name_unified)
        return c.with_doi(replace(merged, year=int(v.publication_published_year or merged.year)))
    if kind == "partial_author_list":
        if len(s.authors) < 2:
            return None
        if len(s.authors) == 2:
            return replace(s, authors=[rng.choice(s.authors)])
        middle = [rng.choice(s.authors[1:-1])] if rng.random() < 0.3 and len(s.authors) > 3 else []
        return replace(s, authors=[s.authors[0], *middle, s.authors[-1]])
    if kind == "near_miss_title":
        title = near_miss(s.title, rng)
        return replace(s, title=title) if title else None
    if kind == "plausible_fabrication":
        title = c.new_title()
        year = rng.randrange(1995, 2025)
        doi = c.fake_doi(year) if rng.random() < 0.5 else None
        return Source(c.people(rng.randint(1, 4)), False, False, year, title, rng.choice(c.venues), doi)
    raise ValueError(kind)


def valid(c: Corpus) -> tuple[str, Source]:
    record = c.pick()
    s = c.with_doi(source_of(record))
    if len(s.authors) > 3 and c.rng.random() < 1 / 3:
        s = replace(s, et_al=True)
    return str(record.unique_id), s


# -- the forms -----------------------------------------------------------------------------------


def bibtex(s: Source, key: str) -> str:
    people = [f"{p[1]} {p[0]}".strip() if s.cjk else f"{p[1]}, {p[0]}".rstrip(", ") for p in s.authors]
    people = [people[0], "others"] if s.et_al else people
    venue_field = "booktitle" if s.venue and s.venue.startswith("International Conference") else "journal"
    fields = [("author", " and ".join(people)), ("title", s.title), ("year", str(s.year))]
    fields += [(venue_field, s.venue)] if s.venue else []
    fields += [("doi", s.doi)] if s.doi else []
    kind = "inproceedings" if venue_field == "booktitle" else "article"
    return f"@{kind}{{{key},\n" + "".join(f"  {n} = {{{v}}},\n" for n, v in fields) + "}\n"


def gbt(s: Source) -> str:
    """GB/T 7714: up to three authors, then "et al." (等 for Chinese); a type marker after the title."""
    if s.cjk:
        names = [f"{p[1]}{p[0]}" for p in s.authors]
    else:
        names = [f"{p[1].upper()} {initials(p[0], dot=False)}".strip() for p in s.authors]
    more = s.et_al or len(names) > 3
    shown = names[:1] if s.et_al else names[:3] if more else names
    who = ", ".join(shown) + ((", 等" if s.cjk else ", et al") if more else "")
    marker = "[C]" if s.venue and s.venue.startswith("International Conference") else "[J]"
    venue = f" {s.venue}," if s.venue else ""
    doi = f" DOI: {s.doi}." if s.doi else ""
    return f"{who}. {s.title}{marker}.{venue} {s.year}, 12(3): 45-67.{doi}"


def written(s: Source) -> dict[str, str]:
    doi = f" https://doi.org/{s.doi}" if s.doi else ""
    plain = replace(s, doi=None)
    return {
        "APA": STYLES["APA (+DOI)"](s),
        "Vancouver": STYLES["Vancouver"](plain) + doi,
        "IEEE": STYLES["IEEE"](plain) + doi,
        "Chicago": STYLES["Chicago"](plain) + doi,
        "GB/T 7714": gbt(s),
    }


FORMS = ["BibTeX", "APA", "Vancouver", "IEEE", "Chicago", "GB/T 7714"]


def check(client: paperlens.Client, sandbox: Sandbox, entries: list[Entry]) -> tuple[list, int]:
    """The verdicts in the order of ``entries`` (one call per form), and the requests sent."""
    sandbox.clear_requests()
    verdicts: list = [None] * len(entries)
    for form in FORMS:
        mine = [(k, e) for k, e in enumerate(entries) if e.form == form]
        if not mine:
            continue
        if form == "BibTeX":
            given = "\n".join(bibtex(e.source, e.key) for _, e in mine)
        else:
            given = [written(e.source)[form] for _, e in mine]
        for (k, _), item in zip(mine, client.verify_citations(given), strict=True):
            verdicts[k] = item
    return verdicts, len(sandbox.requests())


# -- the run -------------------------------------------------------------------------------------


def entries_of(seed: int, n: int, records: list) -> list[Entry]:
    rng = random.Random(seed)
    c = Corpus(records, rng)
    out: list[Entry] = []
    for kind in TIERS:
        made = 0
        while made < n:
            s = hallucinated(kind, c)
            if s is not None:
                out.append(Entry(kind, None, s, f"{kind}{made}"))
                made += 1
    for k in range(n * len(TIERS)):
        gold, s = valid(c)
        out.append(Entry("valid", gold, s, f"valid{k}"))
    rng.shuffle(out)
    return [replace(e, form=FORMS[k % len(FORMS)]) for k, e in enumerate(out)]


@dataclass
class Scores:
    entries: list[tuple[Entry, object]]
    requests: int

    def report(self, seeds: str, shown: int) -> list[str]:
        by_kind: dict[str, list[bool]] = defaultdict(list)
        levels: dict[str, list[bool]] = defaultdict(list)
        misses: Counter[str] = Counter()
        for entry, item in self.entries:
            flagged = item.status != "verified"
            right_record = entry.kind != "valid" or (item.record is not None and item.record.unique_id == entry.gold)
            right = flagged if entry.kind != "valid" else (not flagged and right_record)
            by_kind[entry.kind].append(flagged if entry.kind != "valid" else not right)
            levels[item.confidence].append(right)
            if not right and misses[entry.kind] < shown:
                misses[entry.kind] += 1
                text = bibtex(entry.source, entry.key) if entry.form == "BibTeX" else written(entry.source)[entry.form]
                print(f"  [{entry.kind} / {entry.form}] {' '.join(text.split())}")
                print(f"      -> {item.status} {item.confidence} {dict(item.differences)} {item.reasons[:2]}")
        tp = sum(sum(v) for k, v in by_kind.items() if k != "valid")
        positives = sum(len(v) for k, v in by_kind.items() if k != "valid")
        fp = sum(by_kind["valid"])
        precision, recall = tp / max(tp + fp, 1), tp / positives
        f1 = 2 * precision * recall / (precision + recall)
        weighted_tp = sum(TIERS[k] * sum(v) for k, v in by_kind.items() if k != "valid")
        weighted_all = sum(TIERS[k] * len(v) for k, v in by_kind.items() if k != "valid")
        weighted_recall = weighted_tp / weighted_all
        weighted_f1 = 2 * precision * weighted_recall / (precision + weighted_recall)
        total = len(self.entries)
        ece = sum(len(v) / total * abs(sum(v) / len(v) - PROBABILITY[level]) for level, v in levels.items() if v)
        rows = [
            f"| {kind} (tier {tier}) | {seeds} | {len(by_kind[kind])} | {sum(by_kind[kind]) / len(by_kind[kind]):.3f} |"
            for kind, tier in TIERS.items()
        ]
        rows.append(
            f"| valid entries flagged (FPR) | {seeds} | {len(by_kind['valid'])} | {fp / len(by_kind['valid']):.3f} |"
        )
        summary = (
            f"| {seeds} | {total} | {f1:.3f} | {weighted_f1:.3f} | {precision:.3f} | {recall:.3f} | "
            f"{fp / len(by_kind['valid']):.3f} | {ece:.3f} | "
            + " / ".join(f"{level} {sum(v) / len(v):.3f} ({len(v)})" for level, v in sorted(levels.items()))
            + f" | {self.requests / total:.2f} |"
        )
        return [*rows, "", summary]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=100, help="entries per type and seed (default 100)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[40, 41], help="corpus and entry seeds (default 40 41)")
    parser.add_argument("--show", type=int, default=0, help="print this many misses per type")
    args = parser.parse_args()
    started = time.perf_counter()
    scores = Scores([], 0)
    for seed in args.seeds:
        with Sandbox(papers=PAPERS, seed=seed) as sandbox:
            client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
            records = client.iter_meta_search(page_size=200).to_list()
            entries = entries_of(seed, args.n, records)
            verdicts, requests = check(client, sandbox, entries)
            scores.entries += list(zip(entries, verdicts, strict=True))
            scores.requests += requests
    seeds = " ".join(map(str, args.seeds))
    print("| type | seeds | entries | detected |\n|---|---|---|---|")
    rows = scores.report(seeds, args.show)
    print("\n".join(rows[:-1]))
    columns = "seeds | entries | F1 | tier-weighted F1 | precision | recall | FPR | ECE | right per confidence (n)"
    print(f"| {columns} | requests per entry |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(rows[-1] + f"  <!-- {time.perf_counter() - started:.0f} s -->")


if __name__ == "__main__":
    main()
