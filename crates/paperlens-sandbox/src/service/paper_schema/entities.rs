//! Entities: keyword search across papers, the paged entity set of one paper, and one
//! entity with its adjacent internal relations.

use std::collections::HashSet;

use paperlens_core::contract::{self as c, lists};
use serde_json::{json, Value};

use super::cursor::{self, Paging};
use super::discovery::EntityKinds;
use super::index::{section_key, EntityRow};
use super::params::{
    self, allow_query, boolean, query_bool, query_bounded, query_list, query_list_max, query_text, strings,
};
use super::{entity_json, find_entity, ranked_page, relation_json, respond, total_json, Ctx};
use crate::service::error::{ApiError, Result, STANDARD};
use crate::service::open_platform::params::query_param;
use crate::service::{ServiceRequest, ServiceResponse};

fn sections_set(sections: &[&str]) -> Option<HashSet<String>> {
    (!sections.is_empty()).then(|| sections.iter().map(|s| section_key(s)).collect())
}

pub fn search(ctx: &Ctx<'_>, request: &ServiceRequest, _: &[String]) -> Result<ServiceResponse> {
    let map = params::body(&request.body)?;
    let body = params::fields(&map);
    body.allow_only(&["query", "filters", "hydrate_schema_papers", "size", "cursor"])?;
    let query = query_text(&body, "query")?;
    let filters = body.object("filters")?;
    if let Some(f) = &filters {
        f.allow_only(&["schema_ids", "entity_types", "entity_subtypes", "sections"])?;
    }
    let list = |name: &str, max: usize| -> Result<Vec<&str>> {
        match &filters {
            Some(f) => Ok(strings(f, name, max)?.unwrap_or_default()),
            None => Ok(Vec::new()),
        }
    };
    let schema_ids = list("schema_ids", lists::SCHEMA_IDS.max)?;
    let kinds = EntityKinds::new(
        Some(list("entity_types", lists::ENTITY_KINDS.max)?),
        Some(list("entity_subtypes", lists::ENTITY_KINDS.max)?),
        "filters.",
    )?;
    let sections = sections_set(&list("sections", lists::SECTIONS.max)?);
    if query.is_none() && schema_ids.is_empty() {
        return Err(body.invalid("query", "is required unless filters.schema_ids is given"));
    }
    let hydrate = boolean(&body, "hydrate_schema_papers")?.unwrap_or(false);
    let paging = Paging::of("entities_search", &map, &body, c::SEARCH_SIZE)?;

    let index = ctx.index();
    let scope = ctx.scope(&schema_ids);
    let accept = |row: &EntityRow| {
        scope.as_ref().is_none_or(|s| s.contains(&row.paper))
            && kinds.accepts_row(row)
            && sections.as_ref().is_none_or(|s| s.contains(&section_key(&index.sections[row.section as usize])))
    };
    let terms = (query, &index.entity_terms);
    respond(ranked_page(ctx, terms, &index.entities, accept, &paging, |structure, row| {
        let mut item = entity_json(&structure.schema_id, &structure.entities[row.ordinal as usize]);
        item["schema_paper"] = if hydrate { ctx.card(row.paper) } else { Value::Null };
        item
    }))
}

pub fn list(ctx: &Ctx<'_>, request: &ServiceRequest, ids: &[String]) -> Result<ServiceResponse> {
    let query = &request.query;
    allow_query(query, &["entity_types", "entity_subtypes", "sections", "size", "cursor"])?;
    let kinds =
        EntityKinds::new(Some(query_list(query, "entity_types")), Some(query_list(query, "entity_subtypes")), "")?;
    let sections = sections_set(&query_list_max(query, "sections", lists::SECTIONS.max)?);
    let size = query_bounded(query, "size", c::LIST_SIZE, STANDARD)? as usize;
    let paper = ctx.paper(&ids[0])?;
    let mut parts: Vec<String> = vec!["entities".into(), ids[0].clone()];
    parts.extend(query.iter().filter(|(k, _)| k != "size" && k != "cursor").map(|(k, v)| format!("{k}={v}")));
    let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
    let signature = cursor::signature(&refs);
    let start = cursor::start(query_param(query, "cursor"), signature)?;

    let structure = ctx.structure(paper.index);
    let matching: Vec<_> = structure
        .entities
        .iter()
        .filter(|e| {
            kinds.accepts(e.entity_type, e.entity_subtype)
                && sections.as_ref().is_none_or(|s| s.contains(&section_key(&e.section)))
        })
        .collect();
    let (range, next_cursor) = cursor::page(matching.len(), start, size, signature);
    let items: Vec<Value> = matching[range].iter().map(|e| entity_json(&structure.schema_id, e)).collect();
    respond(json!({
        "schema_id": structure.schema_id,
        "total": total_json(matching.len()),
        "items": items,
        "next_cursor": next_cursor,
    }))
}

pub fn detail(ctx: &Ctx<'_>, request: &ServiceRequest, ids: &[String]) -> Result<ServiceResponse> {
    let query = &request.query;
    allow_query(query, &["include_relations", "relation_limit"])?;
    let include = query_bool(query, "include_relations")?.unwrap_or(false);
    let limit = query_bounded(query, "relation_limit", c::RELATION_LIMIT, STANDARD)? as usize;
    let paper = ctx.paper(&ids[0])?;
    let structure = ctx.structure(paper.index);
    let entity = find_entity(&structure, &ids[1]).ok_or_else(|| {
        ApiError::not_found(format!(
            "paper '{}' holds no entity '{}' (entity ids are stable only inside their paper)",
            ids[0], ids[1]
        ))
    })?;
    let mut body = json!({"entity": entity_json(&structure.schema_id, entity)});
    if include {
        let adjacent: Vec<_> = structure
            .relations
            .iter()
            .filter(|r| r.source_entity_id == entity.entity_id || r.target_entity_id == entity.entity_id)
            .collect();
        let truncated = adjacent.len() > limit;
        body["relations"] =
            Value::Array(adjacent.iter().take(limit).map(|r| relation_json(&structure, r, false)).collect());
        body["relations_truncated"] = json!(truncated);
    } else {
        body["relations_truncated"] = json!(false);
    }
    respond(body)
}
