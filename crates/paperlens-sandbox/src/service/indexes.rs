//! The search indexes built once over the corpus.

use super::corpus::text::Block;
use super::corpus::Corpus;
use super::search::{embed, tokens, Bm25, Bm25Builder, Vectors};

/// Paragraphs indexed per full text for `/agentic-search` (abstract first).
pub const CHUNKS_PER_PAPER: usize = 6;

/// A passage of a full text, located by its code-point offset.
#[derive(Debug, Clone, Copy)]
pub struct Chunk {
    pub paper: u32,
    pub block: Block,
    pub chunk_no: u16,
    pub offset: u32,
    pub length: u32,
}

pub struct Indexes {
    /// Searchable fields of papers: title (twice), abstract, keywords, venue name.
    pub papers: Bm25,
    pub authors: Bm25,
    pub sources: Bm25,
    pub chunks: Vec<Chunk>,
    pub chunk_terms: Bm25,
    pub chunk_vectors: Vectors,
}

impl Indexes {
    pub fn build(corpus: &Corpus) -> Indexes {
        let mut scratch = Vec::new();
        let mut papers = Bm25Builder::default();
        let mut chunk_terms = Bm25Builder::default();
        let mut chunk_vectors = Vectors::default();
        let mut chunks = Vec::new();
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
            for (chunk_no, placed) in source
                .leading_paragraphs(CHUNKS_PER_PAPER)
                .into_iter()
                .enumerate()
            {
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
                });
            }
        }
        let mut authors = Bm25Builder::default();
        for author in &corpus.authors {
            scratch.clear();
            tokens(&author.name, &mut scratch);
            tokens(author.affiliation, &mut scratch);
            authors.add(&scratch);
        }
        let mut sources = Bm25Builder::default();
        for source in &corpus.sources {
            scratch.clear();
            tokens(&source.name, &mut scratch);
            tokens(source.publisher, &mut scratch);
            sources.add(&scratch);
        }
        Indexes {
            papers: papers.build(),
            authors: authors.build(),
            sources: sources.build(),
            chunks,
            chunk_terms: chunk_terms.build(),
            chunk_vectors,
        }
    }
}
