//! The generated citation graph: topical, skewed, and the same through every door.

use std::collections::HashSet;

use serde_json::json;

use super::*;
use crate::service::corpus::graph::{citation_counts, top_share, topical_shares};
use crate::service::corpus::{Corpus, TOPICS};

#[test]
fn neighbours_are_symmetric_and_name_other_topics() {
    for (topic, near) in TOPICS.iter().map(|t| &t.neighbours).enumerate() {
        assert!(!near.is_empty());
        for &other in near {
            assert_ne!(other as usize, topic);
            assert!(TOPICS[other as usize].neighbours.contains(&(topic as u8)), "{topic} -> {other}");
        }
    }
}

#[test]
fn edges_are_consistent_both_ways() {
    let papers = &service().corpus().papers;
    let mut cited_by_sum = 0;
    for p in papers {
        let distinct: HashSet<_> = p.references.iter().collect();
        assert_eq!(distinct.len(), p.references.len(), "duplicate reference in {}", p.unique_id);
        for &r in &p.references {
            let cited = &papers[r as usize];
            assert_ne!(r, p.index);
            assert!(cited.date.packed() <= p.date.packed(), "{} cites the later {}", p.unique_id, cited.unique_id);
            assert!(cited.cited_by.contains(&p.index));
        }
        for &c in &p.cited_by {
            assert!(papers[c as usize].references.contains(&p.index));
        }
        cited_by_sum += p.cited_by.len();
    }
    assert_eq!(cited_by_sum, papers.iter().map(|p| p.references.len()).sum::<usize>());
}

#[test]
fn most_references_stay_within_the_topic_and_its_neighbours() {
    let corpus = Corpus::generate(3_000, SEED);
    let (own, near) = topical_shares(&corpus.papers);
    assert!((0.70..0.90).contains(&own), "own topic {own}");
    assert!((0.90..0.99).contains(&near), "topic or neighbours {near}");
}

#[test]
fn citation_counts_are_skewed() {
    let corpus = Corpus::generate(3_000, SEED);
    let counts = citation_counts(&corpus.papers);
    let median = counts[counts.len() / 2];
    assert!(counts[0] >= 10 * median.max(1), "max {} median {median}", counts[0]);
    // The top 1% collect several times their share, the top 10% a quarter or more (more in
    // larger corpora: 21% and 44% of 100,000 papers, see examples/citation_graph_report.rs).
    let (top1, top10) = (top_share(&counts, 0.01), top_share(&counts, 0.10));
    assert!((0.04..0.35).contains(&top1), "top 1% share {top1}");
    assert!((0.25..0.75).contains(&top10), "top 10% share {top10}");
    // A power-law-like tail: doubling the count divides the papers reaching it by a bounded factor.
    let at_least = |k: u32| counts.iter().filter(|&&c| c >= k).count() as f64;
    let decay = at_least(20) / at_least(40);
    assert!((1.5..8.0).contains(&decay), "decay {decay}");
}

/// Every item id of a relation list, paging through it, and its `total_count`.
fn relation_ids(unique_id: &str, relation: &str) -> (Vec<(String, String)>, u64) {
    let (mut ids, mut page) = (Vec::new(), 1);
    loop {
        let (status, body) = post(
            "/meta-paper-relations",
            json!({"unique_id": unique_id, "relation": relation, "page": page, "page_size": 200}),
        );
        assert_eq!(status, 200);
        for item in body["items"].as_array().into_iter().flatten() {
            ids.push((item["id"].as_str().unwrap_or_default().to_string(), item["id_type"].to_string()));
        }
        if page as u64 >= body["total_pages"].as_u64().unwrap_or_default() {
            return (ids, body["total_count"].as_u64().unwrap_or_default());
        }
        page += 1;
    }
}

#[test]
fn relations_counts_and_records_agree() {
    let corpus = service().corpus();
    for paper in corpus.papers.iter().step_by(41) {
        let (references, total) = relation_ids(&paper.unique_id, "REFERENCES");
        assert_eq!(total, paper.reference_count() as u64);
        let in_corpus: Vec<&str> =
            references.iter().filter(|(_, kind)| kind == "\"unique_id\"").map(|(id, _)| id.as_str()).collect();
        assert_eq!(in_corpus.len(), paper.references.len());
        for id in in_corpus {
            let (citing, total) = relation_ids(id, "CITATIONS");
            assert_eq!(citing.len() as u64, total);
            assert!(citing.iter().any(|(c, _)| c == &paper.unique_id), "{id} does not list {}", paper.unique_id);
            let (_, record) = post(
                "/meta-search",
                json!({"filters": [{"field": "unique_id", "operator": "FILTER_OP_EQ", "value": id}], "fields": ["citation_count"]}),
            );
            assert_eq!(record["results"][0]["citation_count"], total);
        }
    }
}
