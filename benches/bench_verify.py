"""Citation verification (issue 27): genuine, altered and invented references checked against
sandboxes whose ground truth made them; the statuses and the requests per reference.

Run:  python benches/bench_verify.py                 (seeds 0 1 2, then the held-out seed 3: RESULTS.md)
      python benches/bench_verify.py --seeds 5 -n 300 (other seeds, more references)
      python benches/bench_verify.py --show 10        (print the references of each set that miss)

For each seed, a ``Sandbox(papers=2000, seed=seed)`` without rate limits and a
``Client(rate_limits=None)`` (the requests are counted, not waited for). ``n`` records are
drawn with ``random.Random(seed)`` and written as references in three sets:

- genuine: the record as it is, with realistic noise: abbreviated venues (``J. Quan. Comp.``),
  initials, "et al." (or BibTeX ``and others``), LaTeX escapes of accents in BibTeX, and half
  with a DOI written plain, as ``doi:`` or as a ``https://doi.org/`` URL;
- altered: one field changed, cycling: the year by +-1..3, another first author (a name of the
  corpus no author of the record has), another venue of the corpus, another record's DOI;
- invented: titles recombined from two of the corpus's titles (the first part of one, the rest
  of another; never a title the corpus has), authors recombined from the corpus's given names
  and surnames, a venue of the corpus, a year from 1990 to 2025, and half with a DOI of the
  corpus's registrants that resolves to nothing.

Each reference is free text, in one of the eight citation styles of ``bench_matching.py``
cycling (a DOI appended where the style has none), or a BibTeX entry (every other reference,
when ``paperlens.workflows._bibtex`` is there). Each set goes to one ``client.verify_citations``; a
genuine reference is right when ``verified`` with its record, an altered one when ``mismatch``
naming the altered field, an invented one when ``not_found``. Seed 3 is held out: the
thresholds were tuned on seeds 0-2, and no rule was chosen with it. Deterministic for ``n`` and seeds.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass, replace

from bench_matching import STYLES, Source, Tally, abbreviated, initials, source_of

import paperlens
from paperlens.base._citation import terms
from paperlens.sandbox import Sandbox

PAPERS = 2000
ALTERATIONS = ("year", "authors", "venue", "doi")
_ESCAPES = {"ä": '{\\"a}', "ö": '{\\"o}', "ü": '{\\"u}', "é": "{\\'e}", "è": "{\\`e}", "ç": "{\\c c}", "ø": "{\\o}"}


def has_bibtex() -> bool:
    try:
        import paperlens.workflows._bibtex  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class Reference:
    gold: str | None  # the record it was made from (None: invented)
    altered: str | None  # the field changed
    form: str  # the citation style, or "BibTeX"
    source: Source
    key: str


def noisy(source: Source, rng: random.Random) -> Source:
    """Et al. for long author lists, half of the time; the DOI for half of the references."""
    et_al = len(source.authors) > 3 and rng.random() < 0.5
    return replace(source, et_al=et_al, doi=source.doi if rng.random() < 0.5 else None)


def with_doi_prefix(doi: str, k: int) -> str:
    return (doi, f"doi:{doi}", f"https://doi.org/{doi}")[k % 3]


def free_text(ref: Reference, k: int) -> str:
    s = ref.source
    text = STYLES[ref.form](replace(s, doi=None) if ref.form != "APA (+DOI)" else s)
    if ref.form == "APA (+DOI)" and s.doi:
        text = text.replace(f"https://doi.org/{s.doi}", with_doi_prefix(s.doi, k))
    elif s.doi:
        text += f" {with_doi_prefix(s.doi, k)}"
    return text


def escaped(text: str) -> str:
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


def bibtex(ref: Reference, k: int) -> str:
    s = ref.source
    people = [f"{escaped(p[1])}, {initials(p[0]) if k % 2 else p[0]}".rstrip(", ") for p in s.authors]
    if s.cjk:
        people = [f"{p[1]} {p[0]}".strip() for p in s.authors]
    if s.et_al:
        people = [people[0], "others"]
    fields = [("author", " and ".join(people)), ("title", "{" + escaped(s.title) + "}"), ("year", str(s.year))]
    if s.venue:
        fields.append(("journal", abbreviated(s.venue) if k % 3 == 0 else escaped(s.venue)))
    if s.doi:
        fields.append(("doi", with_doi_prefix(s.doi, k)))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@article{{{ref.key},\n{body}\n}}\n"


# -- the sets -----------------------------------------------------------------------------------


def genuine(records: list[paperlens.types.MetadataRecord], rng: random.Random) -> list[Reference]:
    return [Reference(r.unique_id, None, "", noisy(source_of(r), rng), f"g{k}") for k, r in enumerate(records)]


def altered(records: list[paperlens.types.MetadataRecord], corpus: list, rng: random.Random) -> list[Reference]:
    venues = sorted({str(r.publication_venue_name_unified) for r in corpus if r.publication_venue_name_unified})
    people = sorted({str(a["name"]) for r in corpus for a in r.author or [] if str(a["name"]).isascii()})
    out = []
    for k, record in enumerate(records):
        field = ALTERATIONS[k % len(ALTERATIONS)]
        s = noisy(source_of(record), rng)
        if field == "year":
            s = replace(s, year=s.year + rng.choice((-3, -2, -1, 1, 2, 3)))
        elif field == "authors":
            surnames = {p[1].lower() for p in s.authors}
            other = rng.choice([p for p in people if p.split()[-1].lower() not in surnames])
            s = replace(s, authors=[(" ".join(other.split()[:-1]), other.split()[-1]), *s.authors[1:]], cjk=False)
        elif field == "venue":
            s = replace(s, venue=rng.choice([v for v in venues if v != s.venue]))
        else:
            other = rng.choice([r for r in corpus if r.doi and r.doi != record.doi and r.title != record.title])
            s = replace(s, doi=other.doi)
        out.append(Reference(record.unique_id, field, "", s, f"a{k}"))
    return out


def invented(corpus: list, n: int, rng: random.Random) -> list[Reference]:
    titles = [str(r.title) for r in corpus if r.title and r.title.isascii() and len(r.title.split()) >= 4]
    known = {tuple(terms(t)) for t in titles}  # the words compared: "in" or "of", case, repeats aside
    dois = {str(r.doi).lower() for r in corpus if r.doi}
    given = sorted({str(a["name"]).split()[0] for r in corpus for a in r.author or [] if str(a["name"]).isascii()})
    families = sorted({str(a["name"]).split()[-1] for r in corpus for a in r.author or [] if str(a["name"]).isascii()})
    venues = sorted({str(r.publication_venue_name_unified) for r in corpus if r.publication_venue_name_unified})
    out: list[Reference] = []
    while len(out) < n:
        first, second = rng.sample(titles, 2)
        a, b = first.split(), second.split()
        title = " ".join(a[: len(a) // 2] + b[len(b) // 2 :])
        if tuple(terms(title)) in known:
            continue
        known.add(tuple(terms(title)))
        year = rng.randrange(1990, 2026)
        doi = f"10.{rng.randrange(5000, 5040)}/pl.{year}.{rng.randrange(90000, 99999)}"
        authors = [(rng.choice(given), rng.choice(families)) for _ in range(rng.randrange(1, 5))]
        source = Source(authors, False, False, year, title, rng.choice(venues), doi if rng.random() < 0.5 else None)
        assert doi.lower() not in dois
        out.append(Reference(None, None, "", source, f"i{len(out)}"))
    return out


def in_forms(refs: list[Reference], bib: bool) -> list[Reference]:
    styles = list(STYLES)
    return [replace(r, form="BibTeX" if bib and k % 2 else styles[k % len(styles)]) for k, r in enumerate(refs)]


# -- the run ------------------------------------------------------------------------------------


@dataclass
class SetTally(Tally):
    """A set's references (sure: verified), and the /meta-search requests they took."""

    requests: int = 0


def row(name: str, seeds: str, tally: Tally, per: str = "") -> str:
    return f"| {name} | {seeds} | {tally.shares()} | {per} |"


def check(client: paperlens.Client, sandbox: Sandbox, refs: list[Reference]) -> tuple[list, int]:
    """The verdicts of the free-text references and of the BibTeX ones (one call each), in
    the order of ``refs``, and the requests sent."""
    sandbox.clear_requests()
    texts = [(k, free_text(r, k)) for k, r in enumerate(refs) if r.form != "BibTeX"]
    bib = [(k, bibtex(r, k)) for k, r in enumerate(refs) if r.form == "BibTeX"]
    verdicts: list = [None] * len(refs)
    if texts:
        for (k, _), item in zip(texts, client.verify_citations([t for _, t in texts]), strict=True):
            verdicts[k] = item
    if bib:
        for (k, _), item in zip(bib, client.verify_citations("\n".join(t for _, t in bib)), strict=True):
            verdicts[k] = item
    return verdicts, sum(1 for r in sandbox.requests() if r.path == "/meta-search")


def right(kind: str, ref: Reference, item: paperlens.VerifiedReference) -> bool:
    if kind == "genuine":
        return item.status == "verified" and item.record is not None and item.record.unique_id == ref.gold
    if kind == "altered":
        return item.status == "mismatch" and ref.altered in item.differences
    return item.status == "not_found"


def show(ref: Reference, item: paperlens.VerifiedReference, k: int) -> None:
    text = bibtex(ref, k) if ref.form == "BibTeX" else free_text(ref, k)
    print(f"  [{ref.form} / {ref.altered or '-'}] {' '.join(text.split())}")
    print(f"      -> {item.status} {item.confidence} {dict(item.differences)} {item.reasons[:3]}")


def run_seed(
    seed: int, n: int, bib: bool, shown: int, tallies: dict[str, SetTally], by_field: dict[str, Tally]
) -> None:
    rng = random.Random(seed)
    with Sandbox(papers=PAPERS, seed=seed) as sandbox:
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
        corpus = client.iter_meta_search(page_size=200).to_list()
        usable = [r for r in corpus if r.title and r.author and r.publication_published_year]
        sample = rng.sample(usable, 2 * n)
        sets = {
            "genuine": in_forms(genuine(sample[:n], rng), bib),
            "altered": in_forms(altered(sample[n:], corpus, rng), bib),
            "invented": in_forms(invented(corpus, n, rng), bib),
        }
        for kind, refs in sets.items():
            verdicts, requests = check(client, sandbox, refs)
            tallies[kind].requests += requests
            misses = 0
            for k, (ref, item) in enumerate(zip(refs, verdicts, strict=True)):
                ok, verified = right(kind, ref, item), item.status == "verified"
                tallies[kind].add(ok, verified)
                if kind == "altered" and ref.altered:
                    by_field[ref.altered].add(ok, verified)
                if not ok and misses < shown:
                    misses += 1
                    show(ref, item, k)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=200, help="references per set and seed (default 200)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="tuning seeds (default 0 1 2)")
    parser.add_argument("--held-out", type=int, nargs="*", default=[3], help="held-out seeds (default 3)")
    parser.add_argument("--show", type=int, default=0, help="print this many misses per set and seed")
    args = parser.parse_args()
    bib = has_bibtex()
    print(f"forms: eight free-text styles{' and BibTeX' if bib else ' (no BibTeX reader: free text only)'}")
    print("| set | seeds | references | right | verified | /meta-search per reference |\n|---|---|---|---|---|---|")
    for group, seeds in (("tuning", args.seeds), ("held out", args.held_out)):
        if not seeds:
            continue
        tallies = {k: SetTally() for k in ("genuine", "altered", "invented")}
        by_field = {f: Tally() for f in ALTERATIONS}
        started = time.perf_counter()
        for seed in seeds:
            run_seed(seed, args.n, bib, args.show, tallies, by_field)
        names = " ".join(map(str, seeds))
        for kind, tally in tallies.items():
            print(row(f"{kind} ({group})", names, tally, f"{tally.requests / tally.total:.2f}"))
        for field, counted in by_field.items():
            print(row(f"altered: {field} ({group})", names, counted))
        total = sum(t.requests for t in tallies.values()) / sum(t.total for t in tallies.values())
        print(f"| all ({group}) | {names} | | | | {total:.2f} |  <!-- {time.perf_counter() - started:.0f} s -->")


if __name__ == "__main__":
    main()
