//! Keyword (BM25) and vector (hashed n-gram cosine) recall over chunks, their hybrid
//! fusion, and the deterministic sub-query rewrites.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::service::corpus::TOPICS;
use crate::service::indexes::Indexes;
use crate::service::search::{embed, tokens, Query};

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
                for term in t.terms.iter().chain(t.methods).chain([&t.display_name]) {
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
    let mut es: HashMap<u32, f32> = HashMap::new();
    let mut vector: HashMap<u32, f32> = HashMap::new();
    for query in queries {
        if retrieval != Retrieval::Vector {
            let mut words = Vec::new();
            tokens(query, &mut words);
            let top = match accept {
                None => indexes.chunk_terms.top(&words, candidates, |_| true),
                Some(accept) => {
                    indexes.chunk_terms.top(&words, candidates, |c| accept(indexes.chunks[c as usize].paper))
                }
            };
            for (chunk, score) in top {
                let best = es.entry(chunk).or_insert(score);
                *best = best.max(score);
            }
        }
    }
    if retrieval != Retrieval::Keyword {
        let prepared: Vec<Query> = queries.iter().map(|q| Query::new(&embed(q))).collect();
        let chunk_accept = |c: u32| accept.is_none_or(|accept| accept(indexes.chunks[c as usize].paper));
        for top in indexes.chunk_vectors.top(&prepared, candidates, &chunk_accept) {
            for (chunk, score) in top {
                let best = vector.entry(chunk).or_insert(score);
                *best = best.max(score);
            }
        }
    }
    let max_es = es.values().copied().fold(0.0f32, f32::max);
    let mut chunks: Vec<u32> = es.keys().chain(vector.keys()).copied().collect();
    chunks.sort_unstable();
    chunks.dedup();
    let fused: Vec<Recalled> = chunks
        .into_iter()
        .map(|chunk| {
            let (e, v) = (es.get(&chunk).copied(), vector.get(&chunk).copied());
            let score = match retrieval {
                Retrieval::Keyword => e.unwrap_or(0.0),
                Retrieval::Vector => v.unwrap_or(0.0),
                Retrieval::Hybrid => {
                    let keyword = e.map_or(0.0, |s| if max_es > 0.0 { s / max_es } else { 0.0 });
                    0.5 * keyword + 0.5 * v.unwrap_or(0.0)
                }
            };
            Recalled { chunk, es: e, vector: v, score: (score * 10_000.0).round() / 10_000.0 }
        })
        .collect();
    let mut fused = fused;
    fused.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.chunk.cmp(&b.chunk)));
    fused.truncate(top_k);
    fused
}

pub use crate::service::indexes::estimate_tokens;
