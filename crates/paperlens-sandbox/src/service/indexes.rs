//! The search indexes built once over the corpus.

use std::borrow::Cow;

use super::corpus::text::Block;
use super::corpus::Corpus;
use super::search::{embed, tokens, Bm25, Bm25Builder, Vectors};

/// Paragraphs indexed per full text for `/agentic-search` (abstract first).
pub const CHUNKS_PER_PAPER: usize = 6;

/// Bytes of chunk texts kept in memory; later chunks are generated again when needed.
const CHUNK_TEXT_BUDGET: usize = 64 << 20;

/// A passage of a full text, located by its code-point offset.
#[derive(Debug, Clone, Copy)]
pub struct Chunk {
    pub paper: u32,
    pub block: Block,
    pub chunk_no: u16,
    pub offset: u32,
    pub length: u32,
    /// `estimate_tokens` of the passage's text.
    pub tokens: u32,
}

pub struct Indexes {
    /// Searchable fields of papers: title (twice), abstract, keywords, venue name.
    pub papers: Bm25,
    pub authors: Bm25,
    pub sources: Bm25,
    pub chunks: Vec<Chunk>,
    pub chunk_terms: Bm25,
    pub chunk_vectors: Vectors,
    /// The texts of the first chunks (as many as fit [`CHUNK_TEXT_BUDGET`]), back to back.
    chunk_texts: String,
    /// End of chunk `i`'s text in `chunk_texts`, for the chunks kept there.
    chunk_text_ends: Vec<u32>,
}

impl Indexes {
    pub fn build(corpus: &Corpus) -> Indexes {
        let mut scratch = Vec::new();
        let mut papers = Bm25Builder::default();
        let mut chunk_terms = Bm25Builder::default();
        let mut chunk_vectors = Vectors::default();
        let mut chunks = Vec::new();
        let mut chunk_texts = String::new();
        let mut chunk_text_ends = Vec::new();
        for paper in &corpus.papers {
            scratch.clear();
            tokens(&paper.title, &mut scratch);
            tokens(&paper.title, &mut scratch);
            tokens(&paper.abstract_text, &mut scratch);
            for keyword in &paper.keywords {
                tokens(keyword, &mut scratch);
            }
            tokens(&corpus.sources[paper.venue as usize].name, &mut scratch);
            papers.add(&scratch);

            if !paper.has_full_text() {
                continue;
            }
            let source = corpus.text_source(paper);
            for (chunk_no, placed) in source.leading_paragraphs(CHUNKS_PER_PAPER).into_iter().enumerate() {
                scratch.clear();
                tokens(&placed.text, &mut scratch);
                tokens(&paper.title, &mut scratch);
                chunk_terms.add(&scratch);
                chunk_vectors.push(&embed(&format!("{} {}", paper.title, placed.text)));
                chunks.push(Chunk {
                    paper: paper.index,
                    block: placed.block,
                    chunk_no: chunk_no as u16,
                    offset: placed.offset,
                    length: placed.text.chars().count() as u32,
                    tokens: estimate_tokens(&placed.text) as u32,
                });
                if chunk_text_ends.len() + 1 == chunks.len()
                    && chunk_texts.len() + placed.text.len() <= CHUNK_TEXT_BUDGET
                {
                    chunk_texts.push_str(&placed.text);
                    chunk_text_ends.push(chunk_texts.len() as u32);
                }
            }
        }
        Indexes {
            papers: papers.build(),
            authors: index_fields(&corpus.authors, |a| [&a.name, a.affiliation], &mut scratch),
            sources: index_fields(&corpus.sources, |s| [&s.name, s.publisher], &mut scratch),
            chunks,
            chunk_terms: chunk_terms.build(),
            chunk_vectors,
            chunk_texts,
            chunk_text_ends,
        }
    }

    /// The text of chunk `i` (the paragraph of its paper's full text).
    pub fn chunk_text<'a>(&'a self, corpus: &Corpus, i: usize) -> Cow<'a, str> {
        match self.chunk_text_ends.get(i) {
            Some(&end) => {
                let start = if i == 0 { 0 } else { self.chunk_text_ends[i - 1] as usize };
                Cow::Borrowed(&self.chunk_texts[start..end as usize])
            }
            None => {
                let chunk = &self.chunks[i];
                Cow::Owned(corpus.text_source(&corpus.papers[chunk.paper as usize]).block_text(chunk.block))
            }
        }
    }
}

/// An index of `records`, each searched by the text of its `fields`.
fn index_fields<T>(records: &[T], fields: impl Fn(&T) -> [&str; 2], scratch: &mut Vec<String>) -> Bm25 {
    let mut index = Bm25Builder::default();
    for record in records {
        scratch.clear();
        for field in fields(record) {
            tokens(field, scratch);
        }
        index.add(scratch);
    }
    index.build()
}

/// A rough token count: one per CJK character, one per four other characters.
pub fn estimate_tokens(text: &str) -> usize {
    let (wide, narrow): (usize, usize) =
        text.chars().fold((0, 0), |(w, n), c| if (c as u32) >= 0x2e80 { (w + 1, n) } else { (w, n + 1) });
    wide + narrow.div_ceil(4)
}
