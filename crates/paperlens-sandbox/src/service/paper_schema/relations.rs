//! Internal relations (inside one paper): structural search across papers, one relation.

use std::collections::HashSet;

use serde_json::{json, Value};

use super::index::ordinal_of;
use super::params::{self, allow_query, check_relation_types, query_bool, query_text, strings};
use super::{cursor, ranked_rows, round4};
use super::{entity_json, find_entity, provenance_json, relation_json, respond, Ctx};
use crate::service::corpus::structure::Provenance;
use crate::service::error::{ApiError, Result};
use crate::service::{ServiceRequest, ServiceResponse};

pub fn search(ctx: &Ctx<'_>, request: &ServiceRequest, _: &[String]) -> Result<ServiceResponse> {
    let map = params::body(&request.body)?;
    let body = params::fields(&map);
    body.allow_only(&["filters", "evidence_query", "include_context", "size", "cursor"])?;
    let filters = body.object("filters")?;
    let list = |name: &str, max: usize| -> Result<Vec<&str>> {
        match &filters {
            Some(f) => Ok(strings(f, name, max)?.unwrap_or_default()),
            None => Ok(Vec::new()),
        }
    };
    if let Some(f) = &filters {
        f.allow_only(&["schema_ids", "source_entity_ids", "target_entity_ids", "relation_types"])?;
    }
    let schema_ids = list("schema_ids", 100)?;
    let sources = list("source_entity_ids", 100)?;
    let targets = list("target_entity_ids", 100)?;
    let types = list("relation_types", 50)?;
    check_relation_types("filters.relation_types", &types)?;
    if schema_ids.is_empty() && sources.is_empty() && targets.is_empty() && types.is_empty() {
        return Err(body.invalid(
            "filters",
            "needs at least one structural filter: schema_ids, source_entity_ids, \
             target_entity_ids or relation_types",
        ));
    }
    let evidence_query = query_text(&body, "evidence_query")?;
    let context = body.one_of("include_context", &["none", "entities"])? == Some("entities");
    let size = body.integer("size", 1, 100)?.unwrap_or(20) as usize;
    let mut rest = map.clone();
    rest.remove("size");
    rest.remove("cursor");
    let signature = cursor::signature(&["relations_search", &Value::Object(rest).to_string()]);
    let start = cursor::start(body.string("cursor")?, signature)?;

    let index = ctx.index();
    let scope: Option<HashSet<u32>> = (!schema_ids.is_empty())
        .then(|| schema_ids.iter().filter_map(|id| ctx.corpus.by_schema_id(id)).map(|p| p.index).collect());
    let ordinals = |ids: &[&str]| -> Option<HashSet<u32>> {
        (!ids.is_empty()).then(|| ids.iter().filter_map(|id| ordinal_of(id, 'e')).collect())
    };
    let (sources, targets) = (ordinals(&sources), ordinals(&targets));
    let types: Option<HashSet<&str>> = (!types.is_empty()).then(|| types.into_iter().collect());
    let accept = |doc: u32| {
        let row = &index.relations[doc as usize];
        scope.as_ref().is_none_or(|s| s.contains(&row.paper))
            && sources.as_ref().is_none_or(|s| s.contains(&row.source))
            && targets.as_ref().is_none_or(|s| s.contains(&row.target))
            && types.as_ref().is_none_or(|t| t.contains(row.relation_type))
    };
    let hits = ranked_rows(evidence_query, &index.relation_terms, index.relations.len(), accept, |doc| {
        let row = &index.relations[doc as usize];
        (index.rank_of(row.paper), row.ordinal)
    });
    let (range, next_cursor) = cursor::page(hits.len(), start, size, signature);
    let items: Vec<Value> = hits[range]
        .iter()
        .map(|&(doc, score)| {
            let row = &index.relations[doc as usize];
            let structure = ctx.structure(row.paper);
            let mut item = relation_json(&structure, &structure.relations[row.ordinal as usize], context);
            if evidence_query.is_some() {
                item["score"] = json!(round4(score as f64));
            }
            item
        })
        .collect();
    respond(json!({
        "total": super::total_json(hits.len()),
        "items": items,
        "next_cursor": next_cursor,
    }))
}

pub fn detail(ctx: &Ctx<'_>, request: &ServiceRequest, ids: &[String]) -> Result<ServiceResponse> {
    allow_query(&request.query, &["include_context"])?;
    let context = query_bool(&request.query, "include_context")?.unwrap_or(true);
    let paper = ctx.paper(&ids[0])?;
    let structure = ctx.structure(paper.index);
    let relation = structure.relations.iter().find(|r| r.relation_id == ids[1]).ok_or_else(|| {
        ApiError::not_found(format!(
            "paper '{}' holds no internal relation '{}' (relation ids are stable only \
                 inside their paper; citations are served by /citations)",
            ids[0], ids[1]
        ))
    })?;
    let endpoint = |id: &str| {
        context
            .then(|| find_entity(&structure, id))
            .flatten()
            .map_or(Value::Null, |e| entity_json(&structure.schema_id, e))
    };
    // The relation's own locations merged with its endpoints', without duplicates.
    let mut merged: Vec<Provenance> = Vec::new();
    let endpoints = [&relation.source_entity_id, &relation.target_entity_id];
    let locations = relation
        .provenance
        .iter()
        .chain(endpoints.into_iter().filter_map(|id| find_entity(&structure, id)).flat_map(|e| e.provenance.iter()));
    for location in locations {
        if !merged.contains(location) {
            merged.push(location.clone());
        }
    }
    respond(json!({
        "relation": relation_json(&structure, relation, false),
        "source_entity": endpoint(&relation.source_entity_id),
        "target_entity": endpoint(&relation.target_entity_id),
        "provenance": provenance_json(&merged),
    }))
}
