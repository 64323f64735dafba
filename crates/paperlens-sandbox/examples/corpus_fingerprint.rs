//! Prints a fingerprint of a generated corpus: an FNV-1a hash of the `Debug` rendering of
//! every item whole (the corpus's seed and "today", every paper, author and source record,
//! and each paper's full text, structured view, external references, figures and supplement,
//! whose bytes are hashed as they are), so a field added to any of them is in the hash.
//! Compare two runs to prove a change leaves the corpus byte-for-byte the same.
//!
//! `cargo run --release -p paperlens-sandbox --example corpus_fingerprint -- [PAPERS [SEED]]`
//! (2,000 papers and seed 0 by default: the sandbox's defaults).

use std::fmt::{self, Debug, Write};
use std::process::ExitCode;

use paperlens_sandbox::service::corpus::{Attachment, Corpus};

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
    hash.add(&(corpus.seed, corpus.today));
    for paper in &corpus.papers {
        hash.add(paper);
        hash.add(&corpus.full_text(paper));
        hash.add(&corpus.structure(paper));
        for k in 0..paper.external_references as usize {
            hash.add(&corpus.external_reference(paper, k));
        }
        let source = corpus.text_source(paper);
        let attachments = (1..=paper.figures).map(|n| source.figure_path(n)).chain([source.supplement_path()]);
        for path in attachments {
            // The bytes raw, not as `Debug` writes them (a number per byte: most of the run's time);
            // the pattern names every field, so a new one does not compile until it is hashed.
            match corpus.attachment(&path) {
                Some(Attachment { content_type, file_name, bytes, paper }) => {
                    hash.add(&(content_type, file_name, paper));
                    hash.bytes(&bytes);
                    hash.bytes(&[0xff]);
                }
                None => hash.add(&None::<()>),
            }
        }
    }
    for author in &corpus.authors {
        hash.add(author);
    }
    for source in &corpus.sources {
        hash.add(source);
    }
    println!("corpus({papers}, seed {seed}): {:016x}", hash.0);
    ExitCode::SUCCESS
}

/// 64-bit FNV-1a: stable across Rust releases, unlike `DefaultHasher`.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Hashes `item`'s `Debug` rendering as it is written, then an end-of-item byte that no
    /// UTF-8 text contains.
    fn add(&mut self, item: &impl Debug) {
        let _ = write!(self, "{item:?}");
        self.bytes(&[0xff]);
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

impl fmt::Write for Fnv {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        self.bytes(text.as_bytes());
        Ok(())
    }
}
