use std::time::Instant;

use super::*;
use crate::service::corpus::{Corpus, Domain, Language, MetadataType, TextKind, VenueType, TOPICS};

#[test]
fn build_time_for_2000_papers() {
    let started = Instant::now();
    let service = Service::build(ServiceConfig { papers: 2000, seed: 1, int64_as_string: false });
    println!("Service::build(2000 papers): {:?} ({} chunks)", started.elapsed(), service.indexes().chunks.len());
    assert_eq!(service.corpus().papers.len(), 2000);
}

#[test]
fn corpus_is_deterministic_for_a_seed() {
    let a = Corpus::generate(120, 42);
    let b = Corpus::generate(120, 42);
    let c = Corpus::generate(120, 43);
    for (x, y) in a.papers.iter().zip(&b.papers) {
        assert_eq!(
            (&x.unique_id, &x.title, &x.doc_id, &x.references),
            (&y.unique_id, &y.title, &y.doc_id, &y.references)
        );
        assert_eq!(a.text_source(x).full_text(), b.text_source(y).full_text());
    }
    assert!(a.papers.iter().zip(&c.papers).any(|(x, y)| x.title != y.title));
}

#[test]
fn corpus_covers_the_spec() {
    let corpus = &service().corpus();
    let papers = &corpus.papers;
    assert!(TOPICS.len() >= 8);
    for domain in Domain::ALL {
        assert!(papers.iter().any(|p| p.primary_topic().domain == domain), "{domain:?}");
    }
    for venue_type in VenueType::ALL {
        assert!(corpus.sources.iter().any(|s| s.venue_type == venue_type), "{venue_type:?}");
    }
    for language in [Language::En, Language::Zh, Language::Ja, Language::Ko, Language::Und] {
        assert!(papers.iter().any(|p| p.language == language), "{language:?}");
    }
    let english = papers.iter().filter(|p| p.language == Language::En).count();
    assert!(english * 10 > papers.len() * 7);
    let january_first = papers.iter().filter(|p| p.date.month == 1 && p.date.day == 1).count() as f64;
    let share = january_first / papers.len() as f64;
    assert!((0.15..0.25).contains(&share), "January 1st share {share}");
    assert!(papers.iter().all(|p| (1990..=2026).contains(&p.date.year)));
    let ebooks: Vec<_> = papers.iter().filter(|p| p.metadata_type == MetadataType::Ebook).collect();
    assert!(!ebooks.is_empty() && ebooks.iter().all(|p| p.isbn13.is_some()));
    assert!(papers.iter().all(|p| p.doc_id.is_some() == p.has_full_text()));
    assert!(papers.iter().any(|p| p.text_kind == TextKind::Long));
    assert!(papers.iter().any(|p| !p.has_full_text()));
    // Authors are shared across papers.
    assert!(corpus.authors.iter().any(|a| a.works.len() >= 5));
    // Citations are skewed, even in a small corpus (more in larger ones: see citation_graph).
    let mut counts: Vec<u32> = papers.iter().map(|p| p.citation_count()).collect();
    counts.sort_unstable();
    let (median, max) = (counts[counts.len() / 2], counts[counts.len() - 1]);
    assert!(max >= 4 * median.max(1), "median {median} max {max}");
    let top_decile: u32 = counts[counts.len() - counts.len() / 10..].iter().sum();
    assert!(top_decile * 5 >= counts.iter().sum::<u32>(), "top 10% share {top_decile}");
    let cjk = papers.iter().find(|p| p.language == Language::Ja).map(|p| p.title.clone()).unwrap_or_default();
    assert!(
        cjk.chars().any(|c| ('\u{3040}'..='\u{30ff}').contains(&c) || ('\u{4e00}'..='\u{9fff}').contains(&c)),
        "{cjk}"
    );
}

#[test]
fn long_texts_exceed_one_page_and_have_markdown() {
    let corpus = service().corpus();
    let long = corpus.papers.iter().find(|p| p.text_kind == TextKind::Long).expect("a long text");
    let text = corpus.full_text(long).expect("text");
    assert!(text.code_points > 524_288, "{}", text.code_points);
    assert!(text.text.starts_with("# "));
    assert!(text.text.contains("\n\n## "));
    assert!(text.text.contains("](figures/"));
    let any = corpus.papers.iter().filter_map(|p| corpus.text_source(p).full_text()).collect::<Vec<_>>();
    assert!(any.iter().any(|t| t.contains('📈') || t.contains('✅') || t.contains('🔬')));
    assert!(any.iter().any(|t| t.contains('θ')));
}

#[test]
fn structured_data_points_back_to_its_paragraphs() {
    let corpus = service().corpus();
    let mut checked = 0;
    let mut statuses = std::collections::HashSet::new();
    for paper in corpus.papers.iter().filter(|p| p.schema_id.is_some()).take(40) {
        let structure = corpus.structure(paper).expect("structure");
        let types: std::collections::HashSet<&str> =
            structure.entities.iter().map(|e| e.entity_type.as_str()).collect();
        assert_eq!(types.len(), 6, "{types:?}");
        assert_eq!(structure.relations.len(), 5);
        for entity in structure.entities.iter().filter(|e| e.entity_type.as_str() != "Reference") {
            let at = &entity.provenance[0];
            let paragraph = structure.paragraphs.iter().find(|p| p.paragraph_id == at.paragraph_id).expect("paragraph");
            assert_eq!(paragraph.marker, at.marker);
            assert!(paragraph.text.contains(&entity.text), "{} not in {}", entity.text, paragraph.text);
        }
        for evidence in &structure.evidence {
            let at = &evidence.provenance[0];
            let paragraph = structure.paragraphs.iter().find(|p| p.marker == at.marker).expect("paragraph");
            if let (Some(text), true) = (&evidence.value_text, evidence.groups.contains(&"resource")) {
                assert!(paragraph.text.contains(text.as_str()));
            }
        }
        statuses.extend(structure.citations.iter().map(|c| c.resolution.status()));
        assert_eq!(structure.citations.len(), paper.reference_count() as usize);
        checked += 1;
    }
    assert!(checked > 10);
    assert_eq!(statuses.len(), 3, "{statuses:?}");
}
