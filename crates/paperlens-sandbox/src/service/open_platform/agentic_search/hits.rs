//! The JSON of hits: the members that depend only on the chunk are written once per
//! chunk and kept (see [`FragmentCache`]); the scores are written per request.

use std::borrow::Cow;

use super::json::JsonOut;
use super::recall::{estimate_tokens, four_decimals, Recalled};
use super::{MODEL_NAME, MODEL_VERSION, PAGE_CODE_POINTS};
use crate::service::fragments::{FragmentCache, HeapSize};
use crate::service::Service;

/// Bytes of hit members kept in memory; later chunks' members are written on each use.
const BUDGET: usize = 64 << 20;

/// A chunk's hit members before and after the scores, and the tokens the hit counts.
#[derive(Clone)]
pub struct HitParts {
    /// The members before the scores, then those after them.
    members: Box<[u8]>,
    split: usize,
    /// Estimated tokens of the passage and the title.
    pub tokens: usize,
}

impl HitParts {
    /// Bytes of the members, a lower bound of the hit's JSON.
    pub fn members_len(&self) -> usize {
        self.members.len()
    }
}

impl HeapSize for HitParts {
    fn heap_size(&self) -> usize {
        self.members.len()
    }
}

pub struct HitCache(FragmentCache<HitParts>);

impl HitCache {
    pub fn new(chunks: usize) -> HitCache {
        HitCache(FragmentCache::new(chunks, BUDGET))
    }

    pub fn parts<'a>(&'a self, service: &Service, chunk: u32) -> Cow<'a, HitParts> {
        self.0.get(chunk as usize, || hit_parts(service, chunk as usize))
    }
}

/// Writes one hit, the members in the order of the API's examples.
pub fn write_hit(out: &mut JsonOut, parts: &HitParts, recalled: &Recalled) {
    out.begin_object();
    out.members(&parts.members[..parts.split]);
    out.field("score", &recalled.score);
    out.field_str("recall_source", recalled.recall_source());
    out.field("origin_es_score", &recalled.es.map(four_decimals));
    out.field("origin_vector_score", &recalled.vector.map(four_decimals));
    out.members(&parts.members[parts.split..]);
    out.end_object();
}

fn hit_parts(service: &Service, chunk_index: usize) -> HitParts {
    let corpus = service.corpus();
    let indexes = service.indexes();
    let chunk = indexes.chunks[chunk_index];
    let paper = &corpus.papers[chunk.paper as usize];
    let source = &corpus.sources[paper.venue as usize];
    let doc_id = paper.doc_id.as_deref().unwrap_or_default();
    let topic = paper.primary_topic();

    let mut before =
        JsonOut::with_capacity(256 + 3 * chunk.length as usize + paper.title.len() + paper.abstract_text.len());
    before.key("chunk_id");
    before.string_parts(&[doc_id, "-", &chunk.chunk_no.to_string()]);
    before.field_str("chunk", &indexes.chunk_text(corpus, chunk_index));
    before.field_str("doc_id", doc_id);
    before.field_str("unique_id", &paper.unique_id);
    before.field_str("title", &paper.title);
    before.field_str("abstract", &paper.abstract_text);

    let mut after = JsonOut::with_capacity(1024);
    after.field_str("source_type", paper.source_type.as_str());
    after.field_str("source", &paper.source);
    after.field("offset", &chunk.offset);
    after.field("chunk_no", &chunk.chunk_no);
    after.field("page_no", &(1 + chunk.offset / PAGE_CODE_POINTS));
    after.field_str("model_name", MODEL_NAME);
    after.field_str("model_version", MODEL_VERSION);
    after.field_str("lang", paper.language.code());
    after.field_str("metadata_type", paper.metadata_type.as_str());
    after.key("author");
    after.begin_array();
    for &a in &paper.authors {
        after.string(&corpus.authors[a as usize].name);
    }
    after.end_array();
    after.field_str("publication_venue_name_unified", &source.name);
    after.field_str("publication_venue_type", source.venue_type.as_str());
    after.field_str("publication_published_date", &paper.date.iso());
    after.field("publication_published_year", &paper.date.year);
    after.field("citation_count", &paper.citation_count());
    after.field("influential_citation_count", &paper.influential_citation_count);
    after.field_str("primary_topic", topic.display_name);
    after.field_str("primary_topic_domain", topic.domain.display_name());

    let split = before.bytes.len();
    let mut members = before.bytes;
    members.extend_from_slice(&after.bytes);
    HitParts {
        members: members.into_boxed_slice(),
        split,
        tokens: chunk.tokens as usize + estimate_tokens(&paper.title),
    }
}
