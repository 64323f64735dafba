//! `POST /agentic-search`: passages (chunks of full texts) for a natural-language
//! question, by keyword recall, vector recall or their fusion.

pub mod filters;
pub mod hits;
mod json;
pub mod recall;

use paperlens_core::contract::{self as c, AGENTIC_QUERY_CHARS};

use super::params::{parse_object, Fields};
use crate::service::corpus::SourceType;
use crate::service::error::{json_response, Result, STANDARD};
use crate::service::{Service, ServiceRequest, ServiceResponse};
use filters::AgenticFilters;
use hits::write_hit;
use json::JsonOut;
use recall::{estimate_tokens, recall, sub_queries, Retrieval};

pub const MODEL_NAME: &str = "paperlens-hashed-ngram";
pub const MODEL_VERSION: &str = "1.0";
/// Code points per page of the logical full text (`page_no`).
pub(crate) const PAGE_CODE_POINTS: u32 = 3000;

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
    if !AGENTIC_QUERY_CHARS.contains(length) {
        let (min, max) = (AGENTIC_QUERY_CHARS.min, AGENTIC_QUERY_CHARS.max);
        return Err(body.invalid("query", format!("must have {min}-{max} characters (got {length})")));
    }
    if query.trim().is_empty() {
        return Err(body.invalid("query", "must not be empty after trimming whitespace"));
    }
    let retrieval = match body.one_of("retrieval", &c::RETRIEVAL_MODES)? {
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
        top_k: body.bounded("top_k", c::TOP_K)? as usize,
        retrieval,
        sub_queries: body.bounded("sub_queries", c::SUB_QUERIES)? as usize,
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

    let hit_cache = service.hit_cache();
    let parts: Vec<_> = recalled.iter().map(|r| hit_cache.parts(service, r.chunk)).collect();
    let capacity = 256
        + queries.iter().map(String::len).sum::<usize>()
        + parts.iter().map(|p| p.members_len() + 256).sum::<usize>();
    let mut out = JsonOut::with_capacity(capacity);
    out.begin_object();
    out.key("hits");
    out.begin_array();
    for (r, parts) in recalled.iter().zip(&parts) {
        write_hit(&mut out, parts, r);
    }
    out.end_array();
    out.field("request_tokens", &queries.iter().map(|q| estimate_tokens(q)).sum::<usize>());
    out.field("response_tokens", &parts.iter().map(|p| p.tokens).sum::<usize>());
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
