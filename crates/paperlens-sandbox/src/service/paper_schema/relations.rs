//! Internal relations (inside one paper): structural search across papers, one relation.

use std::collections::HashSet;

use paperlens_core::contract::{self as c, lists};
use serde_json::{json, Value};

use super::cursor::Paging;
use super::index::{ordinal_of, RelationRow};
use super::params::{self, allow_query, check_relation_types, query_bool, query_text, strings};
use super::{entity_json, find_entity, provenance_json, ranked_page, relation_json, respond, Ctx};
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
    let schema_ids = list("schema_ids", lists::SCHEMA_IDS.max)?;
    let sources = list("source_entity_ids", lists::ENTITY_IDS.max)?;
    let targets = list("target_entity_ids", lists::ENTITY_IDS.max)?;
    let types = list("relation_types", lists::RELATION_TYPES.max)?;
    check_relation_types("filters.relation_types", &types)?;
    if schema_ids.is_empty() && sources.is_empty() && targets.is_empty() && types.is_empty() {
        return Err(body.invalid(
            "filters",
            "needs at least one structural filter: schema_ids, source_entity_ids, \
             target_entity_ids or relation_types",
        ));
    }
    let evidence_query = query_text(&body, "evidence_query")?;
    let context = body.one_of("include_context", &c::INCLUDE_CONTEXT)? == Some("entities");
    let paging = Paging::of("relations_search", &map, &body, c::SEARCH_SIZE)?;

    let index = ctx.index();
    let scope = ctx.scope(&schema_ids);
    let ordinals = |ids: &[&str]| -> Option<HashSet<u32>> {
        (!ids.is_empty()).then(|| ids.iter().filter_map(|id| ordinal_of(id, 'e')).collect())
    };
    let (sources, targets) = (ordinals(&sources), ordinals(&targets));
    let types: Option<HashSet<&str>> = (!types.is_empty()).then(|| types.into_iter().collect());
    let accept = |row: &RelationRow| {
        scope.as_ref().is_none_or(|s| s.contains(&row.paper))
            && sources.as_ref().is_none_or(|s| s.contains(&row.source))
            && targets.as_ref().is_none_or(|s| s.contains(&row.target))
            && types.as_ref().is_none_or(|t| t.contains(row.relation_type))
    };
    let terms = (evidence_query, &index.relation_terms);
    respond(ranked_page(ctx, terms, &index.relations, accept, &paging, |structure, row| {
        relation_json(structure, &structure.relations[row.ordinal as usize], context)
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
