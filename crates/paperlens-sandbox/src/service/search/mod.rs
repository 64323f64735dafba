//! Retrieval: a tokenizer for Latin and CJK text, BM25 keyword recall and hashed
//! character n-gram vectors for a deterministic "semantic" recall.

pub mod bm25;
mod largest;
pub mod tokenize;
pub mod vector;

pub use bm25::{Bm25, Bm25Builder, Match};
pub use tokenize::{tokens, Script};
pub use vector::{embed, embed_tokens, Query, Vectors, DIMENSIONS};
