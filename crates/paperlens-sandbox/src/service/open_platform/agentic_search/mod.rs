//! `POST /agentic-search`: passages (chunks of full texts) for a natural-language
//! question, by keyword recall, vector recall or their fusion.

pub mod filters;
mod json;
pub mod recall;

use super::params::{parse_object, Fields};
use crate::service::corpus::SourceType;
use crate::service::error::{json_response, Result, STANDARD};
use crate::service::{Service, ServiceRequest, ServiceResponse};
use filters::AgenticFilters;
use json::JsonOut;
use recall::{estimate_tokens, recall, sub_queries, Recalled, Retrieval};

pub const MAX_QUERY_CHARS: usize = 4096;
pub const MODEL_NAME: &str = "paperlens-hashed-ngram";
pub const MODEL_VERSION: &str = "1.0";
/// Code points per page of the logical full text (`page_no`).
const PAGE_CODE_POINTS: u32 = 3000;

struct SearchRequest {
    query: String,
    top_k: usize,
    retrieval: Retrieval,
    sub_queries: usize,
    filters: AgenticFilters,
    source_types: Vec<SourceType>,
}

fn parse(body: &[u8]) -> Result<SearchRequest> {
    let map = parse_object(body, STANDARD)?;
    let body = Fields::new(&map, "", STANDARD);
    body.allow_only(&["query", "top_k", "retrieval", "sub_queries", "filters", "source_types"])?;
    let query = body.required_string("query")?;
    let length = query.chars().count();
    if length == 0 || length > MAX_QUERY_CHARS {
        return Err(body.invalid("query", format!("must have 1-{MAX_QUERY_CHARS} characters (got {length})")));
    }
    if query.trim().is_empty() {
        return Err(body.invalid("query", "must not be empty after trimming whitespace"));
    }
    let retrieval = match body.one_of("retrieval", &["hybrid", "vector", "es"])? {
        Some("vector") => Retrieval::Vector,
        Some("es") => Retrieval::Keyword,
        _ => Retrieval::Hybrid,
    };
    let filters = match body.object("filters")? {
        Some(f) => AgenticFilters::parse(&f)?,
        None => AgenticFilters::default(),
    };
    let mut source_types = Vec::new();
    for (k, item) in body.array("source_types")?.into_iter().flatten().enumerate() {
        match item.as_str() {
            Some("pdf") => source_types.push(SourceType::Pdf),
            Some("web") => source_types.push(SourceType::Web),
            _ => {
                return Err(body.invalid(&format!("source_types[{k}]"), format!("must be 'web' or 'pdf' (got {item})")))
            }
        }
    }
    Ok(SearchRequest {
        query: query.to_string(),
        top_k: body.integer("top_k", 1, 100)?.unwrap_or(10) as usize,
        retrieval,
        sub_queries: body.integer("sub_queries", 0, 4)?.unwrap_or(0) as usize,
        filters,
        source_types,
    })
}

pub fn handle(service: &Service, request: &ServiceRequest) -> Result<ServiceResponse> {
    let search = parse(&request.body)?;
    let corpus = service.corpus();
    let indexes = service.indexes();
    let rewrites = sub_queries(&search.query, search.sub_queries);
    let mut queries = vec![search.query.clone()];
    queries.extend(rewrites.iter().cloned());

    let restricted = !search.filters.is_empty() || !search.source_types.is_empty();
    let mask: Vec<bool> = if restricted {
        corpus
            .papers
            .iter()
            .map(|p| {
                (search.source_types.is_empty() || search.source_types.contains(&p.source_type))
                    && search.filters.accepts(corpus, p)
            })
            .collect()
    } else {
        Vec::new()
    };
    let accept = |paper: u32| mask[paper as usize];
    let accept = restricted.then_some(&accept as &dyn Fn(u32) -> bool);
    let recalled = recall(indexes, &queries, search.retrieval, search.top_k, accept);

    let mut capacity = 256 + queries.iter().map(String::len).sum::<usize>();
    for r in &recalled {
        let chunk = &indexes.chunks[r.chunk as usize];
        let paper = &corpus.papers[chunk.paper as usize];
        capacity += 1024 + 3 * chunk.length as usize + paper.title.len() + paper.abstract_text.len();
    }
    let mut out = JsonOut::with_capacity(capacity);
    let mut response_tokens = 0;
    out.begin_object();
    out.key("hits");
    out.begin_array();
    for r in &recalled {
        response_tokens += write_hit(&mut out, service, r);
    }
    out.end_array();
    out.field("request_tokens", &queries.iter().map(|q| estimate_tokens(q)).sum::<usize>());
    out.field("response_tokens", &response_tokens);
    if !rewrites.is_empty() {
        out.key("sub_queries");
        out.begin_array();
        for rewrite in &rewrites {
            out.string(rewrite);
        }
        out.end_array();
    }
    out.end_object();
    Ok(json_response(200, out.bytes))
}

/// Writes one hit (the members in the order of the API's examples); returns the
/// estimated tokens of its passage and title.
fn write_hit(out: &mut JsonOut, service: &Service, recalled: &Recalled) -> usize {
    let corpus = service.corpus();
    let indexes = service.indexes();
    let chunk = indexes.chunks[recalled.chunk as usize];
    let paper = &corpus.papers[chunk.paper as usize];
    let source = &corpus.sources[paper.venue as usize];
    let doc_id = paper.doc_id.as_deref().unwrap_or_default();
    let topic = paper.primary_topic();
    let round = |s: f32| (s * 10_000.0).round() / 10_000.0;
    out.begin_object();
    out.key("chunk_id");
    out.string_parts(&[doc_id, "-", itoa(chunk.chunk_no as u32).as_str()]);
    out.field_str("chunk", &indexes.chunk_text(corpus, recalled.chunk as usize));
    out.field_str("doc_id", doc_id);
    out.field_str("unique_id", &paper.unique_id);
    out.field_str("title", &paper.title);
    out.field_str("abstract", &paper.abstract_text);
    out.field("score", &recalled.score);
    out.field_str("recall_source", recalled.recall_source());
    out.field("origin_es_score", &recalled.es.map(round));
    out.field("origin_vector_score", &recalled.vector.map(round));
    out.field_str("source_type", paper.source_type.as_str());
    out.field_str("source", &paper.source);
    out.field("offset", &chunk.offset);
    out.field("chunk_no", &chunk.chunk_no);
    out.field("page_no", &(1 + chunk.offset / PAGE_CODE_POINTS));
    out.field_str("model_name", MODEL_NAME);
    out.field_str("model_version", MODEL_VERSION);
    out.field_str("lang", paper.language.code());
    out.field_str("metadata_type", paper.metadata_type.as_str());
    out.key("author");
    out.begin_array();
    for &a in &paper.authors {
        out.string(&corpus.authors[a as usize].name);
    }
    out.end_array();
    out.field_str("publication_venue_name_unified", &source.name);
    out.field_str("publication_venue_type", source.venue_type.as_str());
    out.field_str("publication_published_date", &paper.date.iso());
    out.field("publication_published_year", &paper.date.year);
    out.field("citation_count", &paper.citation_count());
    out.field("influential_citation_count", &paper.influential_citation_count);
    out.field_str("primary_topic", topic.display_name);
    out.field_str("primary_topic_domain", topic.domain.display_name());
    out.end_object();
    chunk.tokens as usize + estimate_tokens(&paper.title)
}

/// Decimal digits of `n`.
fn itoa(n: u32) -> String {
    n.to_string()
}
