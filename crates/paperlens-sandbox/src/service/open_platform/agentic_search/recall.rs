//! Keyword (BM25) and vector (hashed n-gram cosine) recall over chunks, their hybrid
//! fusion, and the deterministic sub-query rewrites.

use std::sync::OnceLock;

use crate::service::corpus::TOPICS;
use crate::service::indexes::Indexes;
use crate::service::search::{embed_tokens, round, tokens, Query};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retrieval {
    Hybrid,
    Vector,
    Keyword,
}

/// A recalled chunk with the scores of the paths that recalled it.
#[derive(Debug, Clone, Copy)]
pub struct Recalled {
    pub chunk: u32,
    pub es: Option<f32>,
    pub vector: Option<f32>,
    pub score: f32,
}

impl Recalled {
    pub fn recall_source(&self) -> &'static str {
        match (self.es.is_some(), self.vector.is_some()) {
            (true, true) => "vector|es",
            (true, false) => "es",
            _ => "vector",
        }
    }
}

/// Up to `n` rewrites of the query: its keywords, and expansions with the vocabulary of
/// the topic it is closest to.
pub fn sub_queries(query: &str, n: usize) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    let mut words = Vec::new();
    tokens(query, &mut words);
    let topic = TOPICS
        .iter()
        .zip(topic_vocabularies())
        .max_by_key(|(_, vocabulary)| words.iter().filter(|w| vocabulary.binary_search(w).is_ok()).count())
        .map_or(&TOPICS[0], |(t, _)| t);
    let keywords = if words.is_empty() { query.trim().to_string() } else { words.join(" ") };
    let fresh: Vec<&str> = topic.terms.iter().copied().filter(|t| !query.to_lowercase().contains(t)).take(2).collect();
    let rewrites = [
        keywords.clone(),
        format!("{keywords} {}", topic.display_name.to_lowercase()),
        format!("{keywords} {}", fresh.join(" ")),
        format!("{} {keywords}", topic.methods[0]),
    ];
    rewrites.into_iter().take(n).collect()
}

/// The tokens of each topic's terms, methods and name (sorted, distinct), computed once.
fn topic_vocabularies() -> &'static [Vec<String>] {
    static VOCABULARIES: OnceLock<Vec<Vec<String>>> = OnceLock::new();
    VOCABULARIES.get_or_init(|| {
        TOPICS
            .iter()
            .map(|t| {
                let mut vocabulary = Vec::new();
                for term in t.terms.iter().chain(&t.methods).chain([&t.display_name]) {
                    tokens(term, &mut vocabulary);
                }
                vocabulary.sort();
                vocabulary.dedup();
                vocabulary
            })
            .collect()
    })
}

/// Recalls chunks for every query, keeps each path's best score per chunk, fuses.
/// `accept` (when given) tells the papers whose chunks may be recalled.
pub fn recall(
    indexes: &Indexes,
    queries: &[String],
    retrieval: Retrieval,
    top_k: usize,
    accept: Option<&dyn Fn(u32) -> bool>,
) -> Vec<Recalled> {
    let candidates = (top_k * 3).max(50);
    let words: Vec<Vec<String>> = queries
        .iter()
        .map(|query| {
            let mut words = Vec::new();
            tokens(query, &mut words);
            words
        })
        .collect();
    let mut es = Vec::new();
    if retrieval != Retrieval::Vector {
        for words in &words {
            es.extend(match accept {
                None => indexes.chunk_terms.top(words, candidates, |_| true),
                Some(accept) => {
                    indexes.chunk_terms.top(words, candidates, |c| accept(indexes.chunks[c as usize].paper))
                }
            });
        }
    }
    let mut vector = Vec::new();
    if retrieval != Retrieval::Keyword {
        let prepared: Vec<Query> = words.iter().map(|words| Query::new(&embed_tokens(words))).collect();
        let chunk_accept = |c: u32| accept.is_none_or(|accept| accept(indexes.chunks[c as usize].paper));
        vector.extend(indexes.chunk_vectors.top(&prepared, candidates, &chunk_accept).into_iter().flatten());
    }
    let es = best_per_chunk(es);
    let vector = best_per_chunk(vector);
    let max_es = es.iter().map(|&(_, s)| s).fold(0.0f32, f32::max);
    let fuse = |chunk: u32, e: Option<f32>, v: Option<f32>| {
        let score = match retrieval {
            Retrieval::Keyword => e.unwrap_or(0.0),
            Retrieval::Vector => v.unwrap_or(0.0),
            Retrieval::Hybrid => {
                let keyword = e.map_or(0.0, |s| if max_es > 0.0 { s / max_es } else { 0.0 });
                0.5 * keyword + 0.5 * v.unwrap_or(0.0)
            }
        };
        Recalled { chunk, es: e, vector: v, score: four_decimals(score) }
    };
    let mut fused = Vec::with_capacity(es.len() + vector.len());
    let (mut es, mut vector) = (es.into_iter().peekable(), vector.into_iter().peekable());
    loop {
        let recalled = match (es.peek().copied(), vector.peek().copied()) {
            (Some((c, e)), Some((d, v))) if c == d => {
                es.next();
                vector.next();
                fuse(c, Some(e), Some(v))
            }
            (Some((c, e)), Some((d, _))) if c < d => {
                es.next();
                fuse(c, Some(e), None)
            }
            (Some((c, e)), None) => {
                es.next();
                fuse(c, Some(e), None)
            }
            (_, Some((d, v))) => {
                vector.next();
                fuse(d, None, Some(v))
            }
            (None, None) => break,
        };
        fused.push(recalled);
    }
    // Chunks are distinct, so this order is total.
    let order = |a: &Recalled, b: &Recalled| b.score.total_cmp(&a.score).then(a.chunk.cmp(&b.chunk));
    if fused.len() > top_k && top_k > 0 {
        fused.select_nth_unstable_by(top_k - 1, order);
    }
    fused.truncate(top_k);
    fused.sort_unstable_by(order);
    fused
}

/// `x` rounded to four decimals, as scores are reported.
pub fn four_decimals(x: f32) -> f32 {
    round(x * 10_000.0) / 10_000.0
}

/// Each chunk once, with its best score, in chunk order. Scores are positive, so the bits
/// of a float order as its value: (chunk, score) packed into one integer sorts by chunk,
/// then score, and the last of each chunk's run holds its best.
fn best_per_chunk(scored: Vec<(u32, f32)>) -> Vec<(u32, f32)> {
    let mut keys: Vec<u64> = scored
        .into_iter()
        .map(|(chunk, score)| {
            debug_assert!(score > 0.0);
            (chunk as u64) << 32 | score.to_bits() as u64
        })
        .collect();
    keys.sort_unstable();
    keys.dedup_by(|next, kept| {
        let same = *next >> 32 == *kept >> 32;
        if same {
            *kept = *next;
        }
        same
    });
    keys.into_iter().map(|key| ((key >> 32) as u32, f32::from_bits(key as u32))).collect()
}

pub use crate::service::indexes::estimate_tokens;
