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

/// Scale and speed report, for release builds:
/// `cargo test --release -p paperlens-sandbox scale_and_speed -- --ignored --nocapture`.
/// Prints the service time per request (no HTTP) for 2,000 and 100,000 papers.
#[test]
#[ignore]
fn scale_and_speed_report() {
    use serde_json::json;
    let agentic = |query: &str, retrieval: &str, sub_queries: u64| json!({"query": query, "top_k": 10, "retrieval": retrieval, "sub_queries": sub_queries});
    // PAPERLENS_SPEED_PAPERS=2000 (comma-separated) measures other corpus sizes.
    let sizes: Vec<usize> = std::env::var("PAPERLENS_SPEED_PAPERS")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![2_000, 100_000]);
    for papers in sizes {
        let started = Instant::now();
        let service = Service::build(ServiceConfig { papers, seed: 0, int64_as_string: false });
        println!("build({papers}): {:?}, {} chunks", started.elapsed(), service.indexes().chunks.len());
        let mut cases = vec![
            ("/meta-search", json!({"page_size": 200})),
            (
                "/meta-search",
                json!({"query": "climate precipitation", "page_size": 200, "facets": [{"field": "language"}]}),
            ),
        ];
        for retrieval in ["hybrid", "es", "vector"] {
            for sub_queries in [0, 2] {
                cases.push((
                    "/agentic-search",
                    agentic("quantum error correction on superconducting qubits", retrieval, sub_queries),
                ));
            }
        }
        // The call of benches/bench_client.py.
        cases.push(("/agentic-search", agentic("retrieval augmented generation for question answering", "hybrid", 0)));
        cases.push(("/agentic-search", json!({"query": "loss aversion nudges", "top_k": 10, "sub_queries": 4})));
        cases.push((
            "/agentic-search",
            json!({"query": "climate", "top_k": 10, "filters": {"lang": "en"}, "source_types": ["pdf"]}),
        ));
        let only = std::env::var("PAPERLENS_SPEED_ONLY").unwrap_or_default();
        for (path, body) in cases.into_iter().filter(|(_, body)| body.to_string().contains(&only)) {
            let request = super::request("POST", path, &[], &body.to_string(), Access::Full);
            let warm = service.handle(&request);
            assert_eq!(warm.status, 200);
            let bytes = warm.body.len();
            let started = Instant::now();
            let cpu_started = thread_cpu_ns();
            let mut rounds = 0u32;
            while rounds < 2_000 && (rounds < 20 || started.elapsed().as_millis() < 1_000) {
                let response = service.handle(&request);
                assert_eq!(response.status, 200);
                rounds += 1;
            }
            let wall = started.elapsed().as_secs_f64() * 1e6 / rounds as f64;
            // CPU time of this thread when the platform tells it (less noisy on a busy machine).
            let micros = match (cpu_started, thread_cpu_ns()) {
                (Some(a), Some(b)) => (b - a) as f64 / 1e3 / rounds as f64,
                _ => wall,
            };
            println!("  {micros:>9.1} µs  {path} {body} ({bytes} bytes, {rounds} rounds, {wall:.1} µs wall)");
        }
    }
}

/// Nanoseconds the current thread has run on a CPU (Linux), from its schedstat.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Writes the bodies of a fixed set of search requests over 2,000 papers, one per line,
/// to the file named by `PAPERLENS_DUMP`: diff two runs to see what a change alters.
/// `PAPERLENS_DUMP=/tmp/a.txt cargo test --release -p paperlens-sandbox dump_search_responses -- --ignored`
#[test]
#[ignore]
fn dump_search_responses() {
    use serde_json::json;
    let Ok(path) = std::env::var("PAPERLENS_DUMP") else {
        return;
    };
    let service = Service::build(ServiceConfig { papers: 2_000, seed: 0, int64_as_string: false });
    let projected = ["title", "unique_id", "author", "references", "locations", "topics", "doi", "reference_count"];
    let meta_searches = [
        json!({"page_size": 200}),
        json!({"page_size": 200, "page": 2}),
        json!({"query": "climate precipitation", "page_size": 200, "facets": [{"field": "language"}]}),
        json!({"page_size": 120, "page": 3, "fields": projected}),
        json!({"page_size": 50, "fields": ["citations", "title", "title", "doc_id"]}),
        json!({"query": "quantum", "page_size": 20, "sort": [{"field": "citation_count"}], "filters": [{"field": "publication_published_year", "operator": "FILTER_OP_GTE", "value": 2015}]}),
        json!({"collection": "authors", "page_size": 200}),
        json!({"collection": "authors", "page_size": 30, "fields": ["display_name", "works", "h_index"]}),
        json!({"collection": "sources", "page_size": 200}),
        json!({"collection": "sources", "page_size": 20, "query": "journal", "fields": ["homepage_url", "issn"]}),
    ];
    let mut bodies = Vec::new();
    for body in &meta_searches {
        bodies.push(("/meta-search", body.clone(), Access::Full));
        bodies.push(("/meta-search", body.clone(), Access::Restricted));
    }
    let mut queries: Vec<String> =
        TOPICS.iter().map(|t| format!("{} {} {}", t.terms[0], t.terms[1], t.methods[0])).collect();
    queries.extend(
        ["quantum error correction on superconducting qubits", "loss aversion nudges", "量子", "climate", "x"]
            .map(String::from),
    );
    queries.push("study results method evidence ".repeat(20));
    for query in &queries {
        for retrieval in ["hybrid", "es", "vector"] {
            for (top_k, sub_queries) in [(10, 0), (3, 4), (100, 1)] {
                bodies.push((
                    "/agentic-search",
                    json!({"query": query, "top_k": top_k, "retrieval": retrieval, "sub_queries": sub_queries}),
                    Access::Full,
                ));
            }
        }
    }
    for filters in [
        json!({"lang": "zh"}),
        json!({"publication_published_year": [2010, 2012]}),
        json!({"citation_count": {"gte": 5}}),
    ] {
        bodies.push((
            "/agentic-search",
            json!({"query": "study results method evidence", "top_k": 100, "filters": filters}),
            Access::Restricted,
        ));
    }
    bodies.push(("/agentic-search", json!({"query": "climate", "top_k": 50, "source_types": ["pdf"]}), Access::Full));
    let mut out = String::new();
    for (path, body, access) in bodies {
        let response = service.handle(&super::request("POST", path, &[], &body.to_string(), access));
        out.push_str(&format!("{path} {access:?} {body} -> {} {}\n", response.status, without_search_time(&response)));
        if path == "/meta-search" {
            let next: Value = serde_json::from_slice(&response.body).unwrap_or_default();
            if let Some(cursor) = next["next_cursor"].as_str().filter(|c| !c.is_empty()) {
                let mut body = body.clone();
                body["cursor"] = json!(cursor);
                let response = service.handle(&super::request("POST", path, &[], &body.to_string(), access));
                out.push_str(&format!(
                    "{path} {access:?} cursor -> {} {}\n",
                    response.status,
                    without_search_time(&response)
                ));
            }
        }
    }
    let as_strings = Service::build(ServiceConfig { papers: 300, seed: 0, int64_as_string: true });
    for body in &meta_searches {
        let response = as_strings.handle(&super::request("POST", "/meta-search", &[], &body.to_string(), Access::Full));
        out.push_str(&format!("int64 as string {body} -> {} {}\n", response.status, without_search_time(&response)));
    }
    std::fs::write(path, out).expect("dump written");
}

/// The body, with the (varying) `search_time_ms` value blanked.
fn without_search_time(response: &ServiceResponse) -> String {
    let body = String::from_utf8_lossy(&response.body);
    match body.split_once("\"search_time_ms\":") {
        Some((before, after)) => {
            let rest = after.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-' || c == 'e');
            format!("{before}\"search_time_ms\":_{rest}")
        }
        None => body.into_owned(),
    }
}
