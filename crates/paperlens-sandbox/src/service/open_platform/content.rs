//! `GET /content`: the full text of a document, whole or one page by code-point offsets.

use paperlens_core::contract::{CONTENT_LIMIT, CONTENT_OFFSET};
use serde_json::json;

use super::params::{query_bounded, query_int, query_param};
use super::permissions::full_text_visible;
use crate::service::error::{json_response, Result, STANDARD};
use crate::service::{Service, ServiceRequest, ServiceResponse};

pub fn handle(service: &Service, request: &ServiceRequest) -> Result<ServiceResponse> {
    let query = &request.query;
    let doc_id = query_param(query, "doc_id");
    let source = query_param(query, "source");
    if let Some(doc_id) = doc_id {
        if doc_id.is_empty() {
            return Err(STANDARD.invalid_param("doc_id", "'doc_id' must not be empty"));
        }
        if doc_id.contains("..") || doc_id.contains('\\') {
            return Err(STANDARD.invalid_param("doc_id", "'doc_id' must not contain '..' or a backslash"));
        }
    }
    if let Some(source) = source {
        if source.is_empty() {
            return Err(STANDARD.invalid_param("source", "'source' must not be empty"));
        }
        if !["http://", "https://", "s3://"].iter().any(|scheme| source.starts_with(scheme)) {
            return Err(STANDARD.invalid_param("source", "'source' must be an http://, https:// or s3:// address"));
        }
    }
    if doc_id.is_none() && source.is_none() {
        return Err(STANDARD.invalid("one of 'doc_id' or 'source' is required"));
    }
    let offset = query_int(query, "offset", CONTENT_OFFSET.min, CONTENT_OFFSET.max, STANDARD)?;
    let limit = query_bounded(query, "limit", CONTENT_LIMIT, STANDARD)?;

    let corpus = service.corpus();
    // The doc_id path is preferred; `source` is the fallback when it finds nothing. The
    // contract lists no 404 here: an id that names no document is a bad parameter (400).
    let named = if doc_id.is_some() { "doc_id" } else { "source" };
    let paper = doc_id.and_then(|d| corpus.by_doc_id(d)).or_else(|| source.and_then(|s| corpus.by_source(s)));
    let Some(paper) = paper else {
        let given: Vec<String> = [("doc_id", doc_id), ("source", source)]
            .into_iter()
            .filter_map(|(name, value)| value.map(|value| format!("{name} '{value}'")))
            .collect();
        return Err(STANDARD.invalid_param(named, format!("no document matches {}", given.join(" or "))));
    };
    if !full_text_visible(request.access, paper) {
        return Err(STANDARD.forbidden(format!(
            "the token has no permission for the full text of {} (not open access)",
            paper.unique_id
        )));
    }
    let full = corpus
        .full_text(paper)
        .ok_or_else(|| STANDARD.invalid_param(named, format!("the document {} has no full text", paper.unique_id)))?;
    let total = full.code_points;
    let body = match offset {
        None => json!({
            "text": full.text,
            "bytes_returned": full.text.len(),
            "text_length": total,
            "next_offset": total,
            "more": false,
        }),
        Some(offset) => {
            let start = (offset as usize).min(total);
            let page = full.slice(start, limit as usize);
            let next = start + page.chars().count();
            json!({
                "text": page,
                "bytes_returned": page.len(),
                "text_length": total,
                "next_offset": next,
                "more": next < total,
            })
        }
    };
    Ok(json_response(200, serde_json::to_vec(&body).unwrap_or_default()))
}
