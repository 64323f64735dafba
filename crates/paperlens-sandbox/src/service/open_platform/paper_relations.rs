//! `POST /meta-paper-relations`: citations, references and related works of one paper.

use paperlens_core::contract::{PAGE, PAGE_SIZE, PAPER_RELATIONS};
use serde_json::{json, Value};

use super::params::{parse_object, Fields};
use crate::service::corpus::{Corpus, Paper};
use crate::service::error::{json_response, ApiError, Result, STANDARD};
use crate::service::{Service, ServiceRequest, ServiceResponse};

pub fn handle(service: &Service, request: &ServiceRequest) -> Result<ServiceResponse> {
    let map = parse_object(&request.body, STANDARD)?;
    let body = Fields::new(&map, "", STANDARD);
    body.allow_only(&["unique_id", "relation", "page", "page_size"])?;
    let unique_id = body.required_string("unique_id")?;
    if unique_id.is_empty() {
        return Err(body.invalid("unique_id", "must not be empty"));
    }
    let relation = body.one_of("relation", &PAPER_RELATIONS)?.ok_or_else(|| {
        let [citations, references, related] = PAPER_RELATIONS;
        body.invalid("relation", format!("is required ({citations}, {references} or {related})"))
    })?;
    let page = body.bounded("page", PAGE)? as usize;
    let page_size = body.bounded("page_size", PAGE_SIZE)? as usize;

    let corpus = service.corpus();
    let paper = corpus
        .by_unique_id(unique_id)
        .ok_or_else(|| ApiError::not_found(format!("no paper with unique_id '{unique_id}'")))?;
    let total = relation_count(paper, relation);
    let start = page.saturating_sub(1).saturating_mul(page_size).min(total);
    let end = (start + page_size).min(total);
    let items: Vec<Value> = (start..end).map(|k| relation_item(corpus, paper, relation, k)).collect();
    let body = json!({
        "items": items,
        "total_count": total,
        "page": page,
        "page_size": page_size,
        "total_pages": total.div_ceil(page_size),
        "code": "SUCCESS",
        "message": "ok",
        "biz_code": 0,
    });
    Ok(json_response(200, serde_json::to_vec(&body).unwrap_or_default()))
}

fn relation_count(paper: &Paper, relation: &str) -> usize {
    match relation {
        "CITATIONS" => paper.cited_by.len(),
        "REFERENCES" => paper.reference_count() as usize,
        _ => paper.related.len(),
    }
}

/// Item `k` of a relation list: citing papers newest first; references of the corpus
/// then external ones; related works in their stored order.
fn relation_item(corpus: &Corpus, paper: &Paper, relation: &str, k: usize) -> Value {
    let corpus_item = |index: u32| {
        let other = &corpus.papers[index as usize];
        json!({
            "id": other.unique_id,
            "id_type": "unique_id",
            "title": other.title,
            "doi": other.doi,
            "publication_published_year": other.date.year,
        })
    };
    match relation {
        "CITATIONS" => corpus_item(paper.cited_by[k]),
        "REFERENCES" if k < paper.references.len() => corpus_item(paper.references[k]),
        "REFERENCES" => {
            let work = corpus.external_reference(paper, k - paper.references.len());
            json!({
                "id": work.doi,
                "id_type": "doi",
                "title": work.title,
                "doi": work.doi,
                "publication_published_year": work.year,
            })
        }
        _ => corpus_item(paper.related[k]),
    }
}
