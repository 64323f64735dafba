//! An inverted index with BM25 scoring.

use std::collections::HashMap;

const K1: f32 = 1.2;
const B: f32 = 0.75;

#[derive(Default)]
pub struct Bm25Builder {
    terms: HashMap<String, u32>,
    postings: Vec<Vec<(u32, u16)>>,
    doc_lengths: Vec<u32>,
    scratch: HashMap<u32, u16>,
}

impl Bm25Builder {
    /// Adds the next document (ids are consecutive from 0).
    pub fn add(&mut self, tokens: &[String]) -> u32 {
        let doc = self.doc_lengths.len() as u32;
        self.scratch.clear();
        for token in tokens {
            let next = self.terms.len() as u32;
            let term = *self.terms.entry(token.clone()).or_insert(next);
            if term == next {
                self.postings.push(Vec::new());
            }
            let tf = self.scratch.entry(term).or_insert(0);
            *tf = tf.saturating_add(1);
        }
        for (&term, &tf) in &self.scratch {
            self.postings[term as usize].push((doc, tf));
        }
        self.doc_lengths.push(tokens.len() as u32);
        doc
    }

    pub fn build(self) -> Bm25 {
        let total: u64 = self.doc_lengths.iter().map(|&l| l as u64).sum();
        let average = if self.doc_lengths.is_empty() {
            1.0
        } else {
            (total as f32 / self.doc_lengths.len() as f32).max(1.0)
        };
        let mut postings = self.postings;
        for list in &mut postings {
            list.sort_unstable_by_key(|&(doc, _)| doc);
            list.shrink_to_fit();
        }
        Bm25 {
            terms: self.terms,
            postings,
            doc_lengths: self.doc_lengths,
            average,
        }
    }
}

pub struct Bm25 {
    terms: HashMap<String, u32>,
    postings: Vec<Vec<(u32, u16)>>,
    doc_lengths: Vec<u32>,
    average: f32,
}

#[derive(Debug, Clone, Copy)]
pub struct Match {
    pub doc: u32,
    pub score: f32,
    /// How many distinct query terms the document contains.
    pub matched: u16,
}

impl Bm25 {
    pub fn len(&self) -> usize {
        self.doc_lengths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.doc_lengths.is_empty()
    }

    /// Documents containing at least `min_matched` distinct query terms, with their score,
    /// in document order. `accept` filters documents before scoring.
    pub fn search(
        &self,
        query: &[String],
        min_matched: usize,
        accept: impl Fn(u32) -> bool,
    ) -> Vec<Match> {
        let mut distinct: Vec<&String> = query.iter().collect();
        distinct.sort();
        distinct.dedup();
        let n = self.len() as f32;
        let mut scores: Vec<(f32, u16)> = vec![(0.0, 0); self.len()];
        let mut touched: Vec<u32> = Vec::new();
        for token in distinct {
            let Some(&term) = self.terms.get(token) else {
                continue;
            };
            let list = &self.postings[term as usize];
            let df = list.len() as f32;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(doc, tf) in list {
                if !accept(doc) {
                    continue;
                }
                let tf = tf as f32;
                let length = self.doc_lengths[doc as usize] as f32;
                let part =
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / self.average));
                let entry = &mut scores[doc as usize];
                if entry.1 == 0 {
                    touched.push(doc);
                }
                entry.0 += part;
                entry.1 += 1;
            }
        }
        let mut matches: Vec<Match> = touched
            .into_iter()
            .map(|doc| (doc, scores[doc as usize]))
            .filter(|(_, (_, matched))| *matched as usize >= min_matched)
            .map(|(doc, (score, matched))| Match {
                doc,
                score,
                matched,
            })
            .collect();
        matches.sort_unstable_by_key(|m| m.doc);
        matches
    }
}
