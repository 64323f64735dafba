//! An inverted index with BM25 scoring.

use std::cell::RefCell;
use std::collections::HashMap;

use super::largest::keep_largest;

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
        let n = self.doc_lengths.len() as f32;
        let postings = self
            .postings
            .into_iter()
            .map(|mut list| {
                list.sort_unstable_by_key(|&(doc, _)| doc);
                let df = list.len() as f32;
                let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                list.into_iter()
                    .map(|(doc, tf)| {
                        let tf = tf as f32;
                        let length = self.doc_lengths[doc as usize] as f32;
                        (doc, idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / average)))
                    })
                    .collect()
            })
            .collect();
        Bm25 { terms: self.terms, postings, len: self.doc_lengths.len() }
    }
}

pub struct Bm25 {
    terms: HashMap<String, u32>,
    /// Per term, the documents containing it with the term's BM25 part of their score
    /// (it depends only on the term and the document), in document order.
    postings: Vec<Vec<(u32, f32)>>,
    len: usize,
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
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Documents containing at least `min_matched` distinct query terms, with their score,
    /// in document order. `accept` filters documents before scoring.
    pub fn search(&self, query: &[String], min_matched: usize, accept: impl Fn(u32) -> bool) -> Vec<Match> {
        let mut matches = self.accumulate::<true, _>(query, &accept, |touched, scores, matched| {
            touched
                .iter()
                .map(|&doc| Match { doc, score: scores[doc as usize], matched: matched[doc as usize] })
                .filter(|m| m.matched as usize >= min_matched)
                .collect::<Vec<Match>>()
        });
        matches.sort_unstable_by_key(|m| m.doc);
        matches
    }

    /// The `n` best scored documents containing at least one query term (of equal scores,
    /// the lower documents), as (document, score) in no particular order: the scores of
    /// [`Bm25::search`], without listing every match.
    pub fn top(&self, query: &[String], n: usize, accept: impl Fn(u32) -> bool) -> Vec<(u32, f32)> {
        self.accumulate::<false, _>(query, &accept, |touched, scores, _| {
            if n == 0 {
                return Vec::new();
            }
            // Keep at most 2n candidates, cut back to the n best whenever full: a score
            // below the n-th best seen so far can never make the final n.
            let mut kept: Vec<u64> = Vec::with_capacity(2 * n);
            let mut floor = 0;
            for &doc in touched {
                let key = key(doc, scores[doc as usize]);
                if key < floor {
                    continue;
                }
                kept.push(key);
                if kept.len() == 2 * n {
                    keep_largest(&mut kept, n);
                    floor = kept.iter().copied().min().unwrap_or(0);
                }
            }
            keep_largest(&mut kept, n);
            kept.into_iter().map(|k| (!(k as u32), f32::from_bits((k >> 32) as u32))).collect()
        })
    }

    /// Scores the documents `accept` keeps against the distinct query terms and hands
    /// `read` the touched documents (first-touch order), the score table and, when
    /// `MATCHED`, how many distinct terms each document matched (else an empty table:
    /// [`Bm25::top`] does without, so its loop touches half the memory).
    fn accumulate<const MATCHED: bool, R>(
        &self,
        query: &[String],
        accept: &impl Fn(u32) -> bool,
        read: impl FnOnce(&[u32], &[f32], &[u16]) -> R,
    ) -> R {
        thread_local! {
            static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
        }
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let Scratch { scores, matched, touched, dirty } = &mut *scratch;
            if *dirty || scores.len() < self.len() {
                // A reading that did not finish (or a larger index): start from zeros.
                let size = self.len().max(scores.len());
                scores.clear();
                scores.resize(size, 0.0);
                matched.clear();
                matched.resize(size, 0);
            }
            *dirty = true;
            // One slot more than documents: every posting writes its document at the end
            // of the list and keeps it only on first touch (no branch, no growth).
            touched.resize(touched.len().max(self.len() + 1), 0);
            let scores = &mut scores[..self.len()];
            let matched = &mut matched[..if MATCHED { self.len() } else { 0 }];
            let mut count = 0;
            let mut distinct: Vec<&String> = query.iter().collect();
            distinct.sort();
            distinct.dedup();
            for token in distinct {
                let Some(&term) = self.terms.get(token) else {
                    continue;
                };
                for &(doc, part) in &self.postings[term as usize] {
                    if !accept(doc) {
                        continue;
                    }
                    // Parts are positive: a score of zero is an untouched document.
                    let score = &mut scores[doc as usize];
                    touched[count] = doc;
                    count += (*score == 0.0) as usize;
                    *score += part;
                    if MATCHED {
                        matched[doc as usize] += 1;
                    }
                }
            }
            let touched = &touched[..count];
            let result = read(touched, scores, matched);
            for &doc in touched {
                scores[doc as usize] = 0.0;
                if MATCHED {
                    matched[doc as usize] = 0;
                }
            }
            *dirty = false;
            result
        })
    }
}

/// Per-thread tables of [`Bm25`] readings: all zeros between readings.
#[derive(Default)]
struct Scratch {
    scores: Vec<f32>,
    matched: Vec<u16>,
    touched: Vec<u32>,
    dirty: bool,
}

/// One integer per (document, score) that orders as the ranking does: the higher score,
/// then the lower document. BM25 scores are positive, and the bits of positive floats
/// order as their values.
fn key(doc: u32, score: f32) -> u64 {
    debug_assert!(score > 0.0);
    (score.to_bits() as u64) << 32 | !doc as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_is_the_best_of_every_match_ties_to_the_lower_document() {
        let words = ["coral", "reef", "bleaching", "heat", "ocean", "policy"];
        let mut builder = Bm25Builder::default();
        for doc in 0..600usize {
            // Few distinct documents, so many scores tie.
            let tokens: Vec<String> = (0..1 + doc % 4).map(|k| words[(doc / 4 + k * 7) % words.len()].into()).collect();
            builder.add(&tokens);
        }
        let index = builder.build();
        let query: Vec<String> = ["reef", "heat", "reef", "policy"].map(String::from).into();
        for accept in [(|_| true) as fn(u32) -> bool, |doc| doc % 3 != 0] {
            let mut want: Vec<(u32, f32)> = index.search(&query, 1, accept).iter().map(|m| (m.doc, m.score)).collect();
            want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            assert!(want.len() > 200 && want.windows(2).filter(|w| w[0].1 == w[1].1).count() > 100, "many ties");
            for n in [0, 1, 10, 50, 299, 1000] {
                let mut top = index.top(&query, n, accept);
                top.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                assert_eq!(top, want[..n.min(want.len())], "n = {n}");
            }
        }
    }
}
