//! Generation time and the citation graph's shape at 3,000 and 100,000 papers:
//! `cargo run --release -p paperlens-sandbox --example citation_graph_report`.

use std::time::Instant;

use paperlens_sandbox::service::corpus::graph::{self, citation_counts, top_share, topical_shares};
use paperlens_sandbox::service::corpus::Corpus;

fn main() {
    for papers in [3_000, 100_000] {
        let started = Instant::now();
        let corpus = Corpus::generate(papers, 0);
        let elapsed = started.elapsed();
        // The citation graph alone, linked again from scratch.
        let mut unlinked = corpus.papers.clone();
        for p in unlinked.iter_mut() {
            (p.references, p.cited_by, p.related) = (Vec::new(), Vec::new(), Vec::new());
        }
        let started = Instant::now();
        graph::link(0, &mut unlinked);
        let linking = started.elapsed();
        let (own, near) = topical_shares(&corpus.papers);
        let counts = citation_counts(&corpus.papers);
        let uncited = counts.iter().filter(|&&c| c == 0).count() as f64 / counts.len() as f64;
        println!(
            "{papers} papers: generated in {elapsed:?} (citation graph {linking:?}); own topic {own:.3}, topic or neighbours {near:.3}; \
             citations max {} p99 {} p90 {} median {}; top 1% {:.3}, top 10% {:.3}; uncited {uncited:.3}",
            counts[0],
            counts[counts.len() / 100],
            counts[counts.len() / 10],
            counts[counts.len() / 2],
            top_share(&counts, 0.01),
            top_share(&counts, 0.10),
        );
    }
}
