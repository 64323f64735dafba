//! `POST /agentic-search`: passages (chunks of full texts) for a natural-language
//! question, by keyword recall, vector recall or their fusion.

pub mod filters;
pub mod recall;

use serde::Serialize;

use super::params::{parse_object, Fields};
use crate::service::corpus::SourceType;
use crate::service::error::{json_response, Result, STANDARD};
use crate::service::{Service, ServiceRequest, ServiceResponse};
use filters::AgenticFilters;
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
    body.allow_only(&[
        "query",
        "top_k",
        "retrieval",
        "sub_queries",
        "filters",
        "source_types",
    ])?;
    let query = body.required_string("query")?;
    let length = query.chars().count();
    if length == 0 || length > MAX_QUERY_CHARS {
        return Err(body.invalid(
            "query",
            format!("must have 1-{MAX_QUERY_CHARS} characters (got {length})"),
        ));
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
    for (k, item) in body
        .array("source_types")?
        .into_iter()
        .flatten()
        .enumerate()
    {
        match item.as_str() {
            Some("pdf") => source_types.push(SourceType::Pdf),
            Some("web") => source_types.push(SourceType::Web),
            _ => {
                return Err(body.invalid(
                    &format!("source_types[{k}]"),
                    format!("must be 'web' or 'pdf' (got {item})"),
                ))
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
    let accept = |paper: u32| !restricted || mask[paper as usize];
    let recalled = recall(indexes, &queries, search.retrieval, search.top_k, &accept);

    let hits: Vec<Hit<'_>> = recalled.iter().map(|r| Hit::new(service, r)).collect();
    let response = Response {
        request_tokens: queries.iter().map(|q| estimate_tokens(q)).sum(),
        response_tokens: hits
            .iter()
            .map(|h| estimate_tokens(&h.chunk) + estimate_tokens(h.title))
            .sum(),
        sub_queries: rewrites,
        hits,
    };
    Ok(json_response(
        200,
        serde_json::to_vec(&response).unwrap_or_default(),
    ))
}

#[derive(Serialize)]
struct Response<'a> {
    hits: Vec<Hit<'a>>,
    request_tokens: usize,
    response_tokens: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sub_queries: Vec<String>,
}

#[derive(Serialize)]
struct Hit<'a> {
    chunk_id: String,
    chunk: String,
    doc_id: &'a str,
    unique_id: &'a str,
    title: &'a str,
    #[serde(rename = "abstract")]
    abstract_text: &'a str,
    score: f32,
    recall_source: &'static str,
    origin_es_score: Option<f32>,
    origin_vector_score: Option<f32>,
    source_type: &'static str,
    source: &'a str,
    offset: u32,
    chunk_no: u16,
    page_no: u32,
    model_name: &'static str,
    model_version: &'static str,
    lang: &'static str,
    metadata_type: &'static str,
    author: Vec<&'a str>,
    publication_venue_name_unified: &'a str,
    publication_venue_type: &'static str,
    publication_published_date: String,
    publication_published_year: u16,
    citation_count: u32,
    influential_citation_count: u32,
    primary_topic: &'static str,
    primary_topic_domain: &'static str,
}

impl<'a> Hit<'a> {
    fn new(service: &'a Service, recalled: &Recalled) -> Hit<'a> {
        let corpus = service.corpus();
        let chunk = service.indexes().chunks[recalled.chunk as usize];
        let paper = &corpus.papers[chunk.paper as usize];
        let source = &corpus.sources[paper.venue as usize];
        let doc_id = paper.doc_id.as_deref().unwrap_or_default();
        let topic = paper.primary_topic();
        Hit {
            chunk_id: format!("{doc_id}-{}", chunk.chunk_no),
            chunk: corpus.text_source(paper).block_text(chunk.block),
            doc_id,
            unique_id: &paper.unique_id,
            title: &paper.title,
            abstract_text: &paper.abstract_text,
            score: recalled.score,
            recall_source: recalled.recall_source(),
            origin_es_score: recalled.es.map(|s| (s * 10_000.0).round() / 10_000.0),
            origin_vector_score: recalled.vector.map(|s| (s * 10_000.0).round() / 10_000.0),
            source_type: paper.source_type.as_str(),
            source: &paper.source,
            offset: chunk.offset,
            chunk_no: chunk.chunk_no,
            page_no: 1 + chunk.offset / PAGE_CODE_POINTS,
            model_name: MODEL_NAME,
            model_version: MODEL_VERSION,
            lang: paper.language.code(),
            metadata_type: paper.metadata_type.as_str(),
            author: paper
                .authors
                .iter()
                .map(|&a| corpus.authors[a as usize].name.as_str())
                .collect(),
            publication_venue_name_unified: &source.name,
            publication_venue_type: source.venue_type.as_str(),
            publication_published_date: paper.date.iso(),
            publication_published_year: paper.date.year,
            citation_count: paper.citation_count(),
            influential_citation_count: paper.influential_citation_count,
            primary_topic: topic.display_name,
            primary_topic_domain: topic.domain.display_name(),
        }
    }
}
