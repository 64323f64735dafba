//! Structured evidence: search over groups and conditions across papers, one evidence.

use paperlens_core::contract::{self as c, lists};
use serde_json::{json, Value};

use super::cursor::Paging;
use super::index::{group_mask, EvidenceRow, PATH_BUCKETS};
use super::params::{self, allow_query, boolean, check_groups, number, strings};
use super::{evidence_json, find_entity, provenance_json, ranked_page, respond, Ctx};
use crate::service::error::{ApiError, Result};
use crate::service::{ServiceRequest, ServiceResponse};

pub fn search(ctx: &Ctx<'_>, request: &ServiceRequest, _: &[String]) -> Result<ServiceResponse> {
    let map = params::body(&request.body)?;
    let body = params::fields(&map);
    body.allow_only(&SEARCH_MEMBERS)?;
    let groups = strings(&body, "groups", usize::MAX)?
        .ok_or_else(|| body.invalid("groups", "is required: 1-5 evidence groups"))?;
    check_groups(&body, &groups)?;
    let all = body.one_of("group_operator", &c::GROUP_OPERATORS)? == Some("all");
    let schema_ids = strings(&body, "schema_ids", lists::SCHEMA_IDS.max)?.unwrap_or_default();
    let text = |name: &str| -> Result<Option<&str>> { Ok(body.string(name)?.filter(|s| !s.is_empty())) };
    let query = text("query")?;
    let key = text("key")?;
    let path_bucket = text("path_bucket")?;
    if let Some(bucket) = path_bucket {
        if !PATH_BUCKETS.contains(&bucket) {
            return Err(
                body.invalid("path_bucket", format!("must be one of {} (got '{bucket}')", PATH_BUCKETS.join(", ")))
            );
        }
    }
    let min = number(&body, "value_number_min")?;
    let max = number(&body, "value_number_max")?;
    if let (Some(lo), Some(hi)) = (min, max) {
        if lo > hi {
            return Err(body.invalid("value_number_min", format!("must not exceed value_number_max ({lo} > {hi})")));
        }
    }
    let value_bool = boolean(&body, "value_bool")?;
    if schema_ids.is_empty()
        && query.is_none()
        && key.is_none()
        && path_bucket.is_none()
        && min.is_none()
        && max.is_none()
        && value_bool.is_none()
    {
        return Err(body.invalid(
            "groups",
            "need at least one further condition: schema_ids, query, key, path_bucket, \
             value_number_min, value_number_max or value_bool",
        ));
    }
    let hydrate = boolean(&body, "hydrate_schema_papers")?.unwrap_or(false);
    let paging = Paging::of("evidence_search", &map, &body, c::SEARCH_SIZE)?;

    let index = ctx.index();
    let mask = group_mask(&groups);
    let scope = ctx.scope(&schema_ids);
    let key_id =
        key.map(|k| index.keys.iter().position(|known| known.eq_ignore_ascii_case(k)).map_or(u16::MAX, |i| i as u16));
    let accept = |row: &EvidenceRow| {
        let groups_ok = if all { row.groups & mask == mask } else { row.groups & mask != 0 };
        groups_ok
            && scope.as_ref().is_none_or(|s| s.contains(&row.paper))
            && key_id.is_none_or(|k| row.key == k)
            && path_bucket.is_none_or(|b| row.path_bucket == b)
            && min.is_none_or(|lo| row.value_number.is_some_and(|v| v >= lo))
            && max.is_none_or(|hi| row.value_number.is_some_and(|v| v <= hi))
            && value_bool.is_none_or(|b| row.value_bool == Some(b))
    };
    respond(ranked_page(ctx, (query, &index.evidence_terms), &index.evidence, accept, &paging, |structure, row| {
        let mut item = evidence_json(structure, row.ordinal as usize);
        if hydrate {
            item["schema_paper"] = ctx.card(row.paper);
        }
        item
    }))
}

/// The members a search request body may have.
const SEARCH_MEMBERS: [&str; 12] = [
    "groups",
    "group_operator",
    "schema_ids",
    "query",
    "key",
    "path_bucket",
    "value_number_min",
    "value_number_max",
    "value_bool",
    "hydrate_schema_papers",
    "size",
    "cursor",
];

pub fn detail(ctx: &Ctx<'_>, request: &ServiceRequest, ids: &[String]) -> Result<ServiceResponse> {
    allow_query(&request.query, &[])?;
    let paper = ctx.paper(&ids[0])?;
    let structure = ctx.structure(paper.index);
    let ordinal = structure.evidence.iter().position(|e| e.evidence_id == ids[1]).ok_or_else(|| {
        ApiError::not_found(format!(
            "paper '{}' holds no evidence '{}' (evidence ids are stable only inside \
                 their paper)",
            ids[0], ids[1]
        ))
    })?;
    let evidence = &structure.evidence[ordinal];
    let source = match (&evidence.source_entity_id, &evidence.source_relation_id) {
        (Some(entity), _) => json!({
            "kind": "entity",
            "entity_id": entity,
            "entity_type": find_entity(&structure, entity).map(|e| e.entity_type.as_str()),
        }),
        (None, Some(relation)) => json!({
            "kind": "relation",
            "relation_id": relation,
            "relation_type": structure
                .relations
                .iter()
                .find(|r| &r.relation_id == relation)
                .map(|r| r.relation_type),
        }),
        (None, None) => Value::Null,
    };
    let mut item = evidence_json(&structure, ordinal);
    item["group"] = json!(evidence.groups.first());
    respond(json!({
        "evidence": item,
        "source": source,
        "provenance": provenance_json(&evidence.provenance),
    }))
}
