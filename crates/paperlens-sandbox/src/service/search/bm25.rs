//! An inverted index with BM25 scoring.

use std::cell::RefCell;
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
        let average =
            if self.doc_lengths.is_empty() { 1.0 } else { (total as f32 / self.doc_lengths.len() as f32).max(1.0) };
        let mut postings = self.postings;
        for list in &mut postings {
            list.sort_unstable_by_key(|&(doc, _)| doc);
            list.shrink_to_fit();
        }
        Bm25 { terms: self.terms, postings, doc_lengths: self.doc_lengths, average }
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
    pub fn search(&self, query: &[String], min_matched: usize, accept: impl Fn(u32) -> bool) -> Vec<Match> {
        let mut matches = self.accumulate(query, &accept, |touched, scores| {
            touched
                .iter()
                .map(|&doc| (doc, scores[doc as usize]))
                .filter(|(_, (_, matched))| *matched as usize >= min_matched)
                .map(|(doc, (score, matched))| Match { doc, score, matched })
                .collect::<Vec<Match>>()
        });
        matches.sort_unstable_by_key(|m| m.doc);
        matches
    }

    /// The `n` best scored documents containing at least one query term, best first (ties
    /// by document), as (document, score): the scores of [`Bm25::search`], without
    /// listing every match.
    pub fn top(&self, query: &[String], n: usize, accept: impl Fn(u32) -> bool) -> Vec<(u32, f32)> {
        self.accumulate(query, &accept, |touched, scores| {
            let scored: Vec<(u32, f32)> = touched.iter().map(|&doc| (doc, scores[doc as usize].0)).collect();
            top_by_score(scored, n)
        })
    }

    /// Scores the documents `accept` keeps against the distinct query terms and hands
    /// `read` the touched documents (first-touch order) and the (score, matched) table.
    fn accumulate<R>(
        &self,
        query: &[String],
        accept: &impl Fn(u32) -> bool,
        read: impl FnOnce(&[u32], &[(f32, u16)]) -> R,
    ) -> R {
        thread_local! {
            static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
        }
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let Scratch { scores, touched, dirty } = &mut *scratch;
            if *dirty || scores.len() < self.len() {
                // A reading that did not finish (or a larger index): start from zeros.
                let size = self.len().max(scores.len());
                scores.clear();
                scores.resize(size, (0.0, 0));
            }
            *dirty = true;
            touched.clear();
            let mut distinct: Vec<&String> = query.iter().collect();
            distinct.sort();
            distinct.dedup();
            let n = self.len() as f32;
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
                    let part = idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / self.average));
                    let entry = &mut scores[doc as usize];
                    if entry.1 == 0 {
                        touched.push(doc);
                    }
                    entry.0 += part;
                    entry.1 += 1;
                }
            }
            let result = read(touched, &scores[..self.len()]);
            for &doc in touched.iter() {
                scores[doc as usize] = (0.0, 0);
            }
            *dirty = false;
            result
        })
    }
}

/// Per-thread score table of [`Bm25`] readings: all zeros between readings.
#[derive(Default)]
struct Scratch {
    scores: Vec<(f32, u16)>,
    touched: Vec<u32>,
    dirty: bool,
}

/// The `n` best (id, score) pairs, best first, ties to the lower id.
pub fn top_by_score(mut scored: Vec<(u32, f32)>, n: usize) -> Vec<(u32, f32)> {
    let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if scored.len() > n {
        scored.select_nth_unstable_by(n, order);
        scored.truncate(n);
    }
    scored.sort_by(order);
    scored
}
