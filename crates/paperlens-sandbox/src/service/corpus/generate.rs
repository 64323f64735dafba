//! Generation of the papers themselves, one independent random stream per paper.

use super::ids::{isbns, sha256_like};
use super::model::*;
use super::names::{EDITOR_ROLES, FAMILY_NAMES, GIVEN_NAMES, LICENSES, PLACES};
use super::people::{script_of, People};
use super::phrases::{fill, phrases, Slots};
use super::text::{term, term_pair, terms, TextSource};
use super::topics::TOPICS;
use super::venues::Venues;
use crate::service::rng::Rng;

const TAG_PAPER: u64 = 0x7061_7065;

pub fn unique_id(seed: u64, index: usize) -> String {
    format!("W{}", 4_000_000_000 + (seed % 1000) * 1_000_000 + index as u64 * 3)
}

pub fn generate_paper(seed: u64, index: usize, venues: &Venues, people: &People) -> Paper {
    let mut rng = Rng::new(&[seed, TAG_PAPER, index as u64]);
    let topic_index = if index < TOPICS.len() { index } else { rng.below(TOPICS.len()) };
    let topic = &TOPICS[topic_index];
    let language = match index {
        2 => Language::Zh,
        3 => Language::Ja,
        4 => Language::Ko,
        _ => pick_language(&mut rng),
    };
    let metadata_type = if index > 10 && rng.chance(0.06) { MetadataType::Ebook } else { MetadataType::Paper };
    let ebook = metadata_type == MetadataType::Ebook;
    let (term_a, term_b) = term_pair(&mut rng, terms(topic, language).len());
    let focus = Focus {
        method: rng.below(topic.methods.len()) as u8,
        dataset: rng.below(topic.datasets.len()) as u8,
        metric: rng.below(topic.metrics.len()) as u8,
        problem: rng.below(topic.problems.len()) as u8,
        term_a: term_a as u8,
        term_b: term_b as u8,
        improvement: (10.0 + rng.unit() * 300.0).round() as f32 / 10.0,
    };

    let (venue, work_type) = pick_venue(&mut rng, venues, topic_index, language, ebook);
    let date = pick_date(&mut rng);
    let text_kind = if index == 1 {
        TextKind::Long
    } else if rng.chance(if ebook { 0.5 } else { 0.78 }) || index < 12 {
        if rng.chance(0.008) {
            TextKind::Long
        } else {
            TextKind::Normal
        }
    } else {
        TextKind::None
    };
    let unique_id = unique_id(seed, index);
    let doc_id = (text_kind != TextKind::None).then(|| sha256_like(&[seed, 0x646f_6369, index as u64]));
    let schema_id = (text_kind != TextKind::None && !ebook)
        .then(|| format!("ps_{}", &sha256_like(&[seed, 0x7363_6865, index as u64])[..20]));
    let source_type = if rng.chance(0.7) { SourceType::Pdf } else { SourceType::Web };
    let source = match (&doc_id, source_type) {
        (Some(doc_id), SourceType::Pdf) => format!("s3://paperlens-sandbox/fulltext/{doc_id}.pdf"),
        _ => format!("https://sandbox.paperlens.dev/works/{unique_id}"),
    };

    let mut topics = vec![TopicScore { topic: topic_index as u8, score: (0.80 + rng.unit() * 0.19) as f32 }];
    for _ in 0..rng.below(3) {
        let other = rng.below(TOPICS.len()) as u8;
        if topics.iter().all(|t| t.topic != other) {
            topics.push(TopicScore { topic: other, score: (0.3 + rng.unit() * 0.45) as f32 });
        }
    }

    let authors = pick_authors(&mut rng, people, topic_index, language);
    let open_access = pick_open_access(&mut rng, &unique_id, venues.sources[venue as usize].is_oa);
    let doi = (!ebook || rng.chance(0.4)).then(|| format!("10.{}/pl.{}.{}", 5000 + topic_index * 7, date.year, index));
    let (isbn13, isbn_list) = if ebook {
        let (thirteen, ten) = isbns(rng.below(1_000_000_000) as u64);
        (Some(thirteen.clone()), vec![thirteen, ten])
    } else {
        (None, Vec::new())
    };
    let journal_like = matches!(venues.sources[venue as usize].venue_type, VenueType::Journal);
    let page_count = if ebook { 120 + rng.below(400) as u32 } else { 6 + rng.below(20) as u32 };
    let first_page = 1 + rng.below(900) as u32;
    let (place, country) = rng.pick(PLACES);

    let mut paper = Paper {
        index: index as u32,
        unique_id,
        doc_id,
        schema_id,
        metadata_type,
        work_type,
        title: String::new(),
        abstract_text: String::new(),
        language,
        doi,
        isbn13,
        isbns: isbn_list,
        authors,
        contributors: if ebook || rng.chance(0.03) {
            (0..1 + rng.below(2))
                .map(|_| format!("{} {} ({})", rng.pick(GIVEN_NAMES), rng.pick(FAMILY_NAMES), rng.pick(EDITOR_ROLES)))
                .collect()
        } else {
            Vec::new()
        },
        open_access,
        date,
        places: if ebook { vec![place] } else { Vec::new() },
        countries: if ebook || rng.chance(0.5) { vec![country] } else { Vec::new() },
        venue,
        volume: journal_like.then(|| (1 + (date.year as u32).saturating_sub(1980)).to_string()),
        issue: journal_like.then(|| (1 + rng.below(12)).to_string()),
        pages: (!ebook).then(|| format!("{}-{}", first_page, first_page + page_count - 1)),
        page_count,
        keywords: Vec::new(),
        topics,
        subjects: if ebook { vec![topic.field.to_string(), topic.subfield.to_string()] } else { Vec::new() },
        genre: if ebook { vec!["ebook", "text"] } else { Vec::new() },
        references: Vec::new(),
        external_references: 3 + rng.below(12) as u16,
        cited_by: Vec::new(),
        related: Vec::new(),
        influential_citation_count: 0,
        fwci: 0.0,
        citation_normalized_percentile: CitationPercentile::default(),
        cited_by_percentile_year: PercentileRange::default(),
        source_type,
        source,
        text_kind,
        figures: if text_kind == TextKind::None { 0 } else { 1 + rng.below(3) as u8 },
        focus,
    };
    write_title_abstract_keywords(&mut rng, &mut paper);
    paper
}

fn pick_language(rng: &mut Rng) -> Language {
    let u = rng.unit();
    match u {
        u if u < 0.80 => Language::En,
        u if u < 0.87 => Language::Zh,
        u if u < 0.915 => Language::Ja,
        u if u < 0.95 => Language::Ko,
        _ => Language::Und,
    }
}

fn pick_venue(rng: &mut Rng, venues: &Venues, topic: usize, language: Language, ebook: bool) -> (u32, &'static str) {
    if ebook {
        return if rng.chance(0.6) {
            (rng.pick(&venues.ebook_platforms), "book")
        } else {
            (venues.book_series[topic], "book-chapter")
        };
    }
    if language.is_cjk() && rng.chance(0.5) {
        if let Some((_, v)) = venues.cjk_journals.iter().find(|(l, _)| *l == language) {
            return (*v, "article");
        }
    }
    let u = rng.unit();
    match u {
        u if u < 0.50 => (rng.pick(&venues.journals[topic]), if rng.chance(0.1) { "review" } else { "article" }),
        u if u < 0.76 => (venues.conferences[topic], "proceedings-article"),
        u if u < 0.90 => (venues.repositories[TOPICS[topic].domain as usize], "preprint"),
        u if u < 0.95 => (venues.rare[0], "article"),
        u if u < 0.965 => (venues.rare[1], "project"),
        u if u < 0.98 => (venues.rare[2], "dataset"),
        _ => (venues.rare[3], "report"),
    }
}

fn pick_date(rng: &mut Rng) -> Date {
    let year = 2026 - (rng.unit().powf(1.7) * 37.0) as u16;
    let year = year.clamp(1990, 2026);
    // About 19.6% of the records only know their year: a January 1st placeholder.
    if rng.chance(0.196) {
        return Date { year, month: 1, day: 1 };
    }
    let month = 1 + rng.below(12) as u8;
    let mut day = 1 + rng.below(Date::days_in_month(year, month) as usize) as u8;
    if month == 1 && day == 1 {
        day = 2;
    }
    Date { year, month, day }
}

fn pick_authors(rng: &mut Rng, people: &People, topic: usize, language: Language) -> Vec<u32> {
    let pool = &people.pools[topic][script_of(language)];
    let count = 1 + rng.skewed(8, 1.6);
    let mut authors: Vec<u32> = Vec::with_capacity(count);
    for _ in 0..count * 3 {
        if authors.len() == count {
            break;
        }
        let candidate = pool[rng.skewed(pool.len(), 2.2)];
        if !authors.contains(&candidate) {
            authors.push(candidate);
        }
    }
    authors
}

fn pick_open_access(rng: &mut Rng, unique_id: &str, venue_is_oa: bool) -> OpenAccess {
    let is_oa = venue_is_oa || rng.chance(0.4);
    if !is_oa {
        return OpenAccess { is_oa: false, status: "closed", url: None, license: None };
    }
    let status = if venue_is_oa { rng.pick(&["gold", "diamond"]) } else { rng.pick(&["green", "hybrid", "bronze"]) };
    OpenAccess {
        is_oa: true,
        status,
        url: Some(format!("https://oa.sandbox.paperlens.dev/{unique_id}.pdf")),
        license: (status != "bronze").then(|| rng.pick(LICENSES)),
    }
}

fn write_title_abstract_keywords(rng: &mut Rng, paper: &mut Paper) {
    let words = phrases(paper.language);
    let topic = paper.primary_topic();
    let source = TextSource::new(0, paper);
    let slots = source.focus_slots();
    let mut title = String::new();
    fill(rng.pick(&words.titles), &slots, &mut title);

    let joiner = if paper.language.is_cjk() { "" } else { " " };
    let mut sentences = Vec::new();
    let mut opening = String::new();
    fill(rng.pick(&words.abstract_opening), &slots, &mut opening);
    sentences.push(opening);
    for template in [words.method, words.dataset, words.finding] {
        let mut s = String::new();
        fill(template, &slots, &mut s);
        sentences.push(s);
    }
    for _ in 0..1 + rng.below(2) {
        let mut s = String::new();
        let (a, b) = term_pair(rng, terms(topic, paper.language).len());
        let extra = Slots {
            a: term(topic, paper.language, a),
            b: term(topic, paper.language, b),
            n: 1 + rng.below(40) as u32,
            ..slots.clone()
        };
        fill(rng.pick(words.filler(5)), &extra, &mut s);
        sentences.push(s);
    }
    let mut keywords: Vec<String> = vec![slots.a.to_string(), slots.b.to_string()];
    keywords.push(slots.m.to_string());
    for _ in 0..1 + rng.below(3) {
        keywords.push(term(topic, paper.language, rng.below(64)).to_string());
    }
    keywords.dedup();
    let mut seen = std::collections::HashSet::new();
    keywords.retain(|k| seen.insert(k.clone()));

    paper.title = title;
    paper.abstract_text = sentences.join(joiner);
    paper.keywords = keywords;
}
