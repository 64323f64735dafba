//! Prints a fingerprint of a generated corpus: an FNV-1a hash over every paper, author and
//! source record, and each paper's full text, structured view, external references and
//! supplement. Compare two runs to prove a change leaves the corpus byte-for-byte the same.
//!
//! `cargo run --release -p paperlens-sandbox --example corpus_fingerprint -- [PAPERS [SEED]]`
//! (2,000 papers and seed 0 by default: the sandbox's defaults).

use std::fmt::Write;
use std::process::ExitCode;

use paperlens_sandbox::service::corpus::{Corpus, PaperStructure};

const USAGE: &str = "usage: corpus_fingerprint [PAPERS [SEED]]";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let papers = args.next().map_or(Ok(2_000), |a| a.parse::<usize>());
    let seed = args.next().map_or(Ok(0), |a| a.parse::<u64>());
    let (Ok(papers), Ok(seed), None) = (papers, seed, args.next()) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let corpus = Corpus::generate(papers, seed);
    let mut hash = Fnv::default();
    for paper in &corpus.papers {
        hash.add(&format!("{paper:?}"));
        hash.add(&format!("{:?}", corpus.full_text(paper).map(|text| text.slice(0, usize::MAX).to_string())));
        hash.add(&corpus.structure(paper).map_or("None".into(), |s| structure_text(&s)));
        let mut references = String::new();
        for k in 0..paper.external_references as usize {
            let _ = write!(references, "{:?}", corpus.external_reference(paper, k));
        }
        hash.add(&references);
        let supplement = format!("supplementary/{}/table1.csv", paper.unique_id);
        hash.add(&format!("{:?}", corpus.attachment(&supplement).map(|a| a.bytes)));
    }
    for author in &corpus.authors {
        hash.add(&format!("{author:?}"));
    }
    for source in &corpus.sources {
        hash.add(&format!("{source:?}"));
    }
    println!("corpus({papers}, seed {seed}): {:016x}", hash.0);
    ExitCode::SUCCESS
}

/// The structured view, every field written flat (as `Debug` wrote it before the card facts
/// were grouped), so the fingerprint does not depend on how the fields are grouped.
fn structure_text(s: &PaperStructure) -> String {
    let f = &s.facts;
    format!(
        "Some(PaperStructure {{ schema_id: {:?}, paper: {:?}, research_problem: {:?}, central_contribution: {:?}, \
         headline_result: {:?}, tasks: {:?}, has_code: {:?}, has_data: {:?}, paragraphs: {:?}, entities: {:?}, \
         relations: {:?}, evidence: {:?}, citations: {:?} }})",
        s.schema_id,
        s.paper,
        f.research_problem,
        f.central_contribution,
        f.headline_result,
        f.tasks,
        f.has_code,
        f.has_data,
        s.paragraphs,
        s.entities,
        s.relations,
        s.evidence,
        s.citations
    )
}

/// 64-bit FNV-1a: stable across Rust releases, unlike `DefaultHasher`.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn add(&mut self, text: &str) {
        for byte in text.bytes().chain([0xff]) {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}
