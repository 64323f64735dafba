//! `POST /paper-schema/materials`: a trimmed bundle per paper, ordered by what the goal
//! prefers, with per-resource `counts` (`total`, `returned`, `truncated`).

use std::collections::HashMap;

use paperlens_core::contract::{self as c, lists, Bound};
use serde_json::{json, Value};

use super::index::normalize_name;
use super::params::{self, boolean, strings};
use super::{entity_json, evidence_json, relation_json, respond, Ctx};
use crate::service::corpus::structure::EntityType;
use crate::service::corpus::{Paper, PaperStructure};
use crate::service::error::Result;
use crate::service::{ServiceRequest, ServiceResponse};

/// What a goal prefers, most preferred first: entity types, relation types, evidence groups.
struct Preference {
    entities: &'static [EntityType],
    relations: &'static [&'static str],
    evidence: &'static [&'static str],
}

fn preference(goal: &str) -> Preference {
    use EntityType::*;
    match goal {
        "survey" => Preference {
            entities: &[Reference, Problem, Component],
            relations: &["resolves", "uses_component"],
            evidence: &["reference_core", "reference_semantics", "citation_signal"],
        },
        "benchmark" => Preference {
            entities: &[Resource, Measure, Finding],
            relations: &["evaluates", "reports_metric"],
            evidence: &["table_evidence", "comparison_detail", "core_claim_result"],
        },
        "method" => Preference {
            entities: &[Component, Problem],
            relations: &["uses_component", "resolves"],
            evidence: &["formula", "comparison_detail"],
        },
        "reproduction" => Preference {
            entities: &[Resource, Component, Measure],
            relations: &["evaluates", "uses_component"],
            evidence: &["resource", "formula", "table_evidence"],
        },
        _ => Preference {
            entities: &[Problem, Component, Finding],
            relations: &["resolves", "supports"],
            evidence: &["core_claim_result", "evidence_score"],
        },
    }
}

/// Rank of a preferred value (its position), others after all preferred ones.
fn preferred<T: PartialEq>(list: &[T], value: &T) -> usize {
    list.iter().position(|v| v == value).unwrap_or(list.len())
}

fn counts(total: usize, returned: usize) -> Value {
    json!({"total": total, "returned": returned, "truncated": returned < total})
}

pub fn handle(ctx: &Ctx<'_>, request: &ServiceRequest, _: &[String]) -> Result<ServiceResponse> {
    let map = params::body(&request.body)?;
    let body = params::fields(&map);
    body.allow_only(&MEMBERS)?;
    let papers = lists::MATERIALS_PAPERS;
    let schema_ids = strings(&body, "schema_ids", papers.max)?
        .ok_or_else(|| body.invalid("schema_ids", format!("is required: {}-{} papers", papers.min, papers.max)))?;
    if !papers.contains(schema_ids.len()) {
        return Err(body.invalid("schema_ids", format!("must hold {}-{} papers", papers.min, papers.max)));
    }
    let goal = body.one_of("goal", &c::GOALS)?.unwrap_or(c::GOALS[0]);
    let context = boolean(&body, "include_relation_context")?.unwrap_or(false);
    let limit = |name: &str, bound: Bound| -> Result<usize> { Ok(body.bounded(name, bound)? as usize) };
    let entity_limit = limit("per_schema_entity_limit", c::PER_SCHEMA_ENTITY_LIMIT)?;
    let relation_limit = limit("per_schema_relation_limit", c::PER_SCHEMA_RELATION_LIMIT)?;
    let evidence_limit = limit("per_schema_attribute_limit", c::PER_SCHEMA_ATTRIBUTE_LIMIT)?;
    let term_limit = limit("per_schema_term_limit", c::PER_SCHEMA_TERM_LIMIT)?;
    let papers: Vec<&Paper> = schema_ids.iter().map(|id| ctx.paper(id)).collect::<Result<_>>()?;

    let want = preference(goal);
    let mut any_truncated = false;
    let items: Vec<Value> = papers
        .iter()
        .map(|paper| {
            let s = ctx.structure(paper.index);
            let mut entities: Vec<usize> = (0..s.entities.len()).collect();
            entities.sort_by_key(|&i| (preferred(want.entities, &s.entities[i].entity_type), i));
            let mut relations: Vec<usize> = (0..s.relations.len()).collect();
            relations.sort_by_key(|&i| (preferred(want.relations, &s.relations[i].relation_type), i));
            let mut evidence: Vec<usize> = (0..s.evidence.len()).collect();
            evidence.sort_by_key(|&i| {
                let best = s.evidence[i]
                    .groups
                    .iter()
                    .map(|g| preferred(want.evidence, g))
                    .min()
                    .unwrap_or(want.evidence.len());
                (best, i)
            });
            let terms = terms(ctx, paper, &s);
            let entity_out: Vec<Value> =
                entities.iter().take(entity_limit).map(|&i| entity_json(&s.schema_id, &s.entities[i])).collect();
            let relation_out: Vec<Value> =
                relations.iter().take(relation_limit).map(|&i| relation_json(&s, &s.relations[i], context)).collect();
            let evidence_out: Vec<Value> =
                evidence.iter().take(evidence_limit).map(|&i| evidence_json(&s, i)).collect();
            let term_out: Vec<Value> = terms.iter().take(term_limit).cloned().collect();
            let cut = entity_out.len() < entities.len()
                || relation_out.len() < relations.len()
                || evidence_out.len() < evidence.len()
                || term_out.len() < terms.len();
            any_truncated |= cut;
            json!({
                "schema_id": s.schema_id,
                "schema_paper": ctx.card(paper.index),
                "goal": goal,
                "entities": entity_out,
                "relations": relation_out,
                "evidence": evidence_out,
                "terms": term_out,
                "counts": {
                    "entities": counts(entities.len(), entity_out.len()),
                    "relations": counts(relations.len(), relation_out.len()),
                    "evidence": counts(evidence.len(), evidence_out.len()),
                    "terms": counts(terms.len(), term_out.len()),
                },
                "truncated": cut,
            })
        })
        .collect();
    let mut warnings = Vec::new();
    if any_truncated {
        warnings.push(
            "some lists were cut by a per-paper limit (counts.*.truncated): they are not the \
             complete sets; use the list operations for those"
                .to_string(),
        );
    }
    respond(json!({
        "goal": goal,
        "items": items,
        "truncated": any_truncated,
        "warnings": warnings,
    }))
}

/// The members a request body may have.
const MEMBERS: [&str; 7] = [
    "schema_ids",
    "goal",
    "include_relation_context",
    "per_schema_entity_limit",
    "per_schema_relation_limit",
    "per_schema_attribute_limit",
    "per_schema_term_limit",
];

/// The internal keywords of a paper: its keywords and the names of its own entities,
/// each with the number of paragraphs mentioning it, most mentioned first.
fn terms(ctx: &Ctx<'_>, paper: &Paper, s: &PaperStructure) -> Vec<Value> {
    let mut candidates: Vec<(String, &'static str)> = Vec::new();
    let mut seen: HashMap<String, ()> = HashMap::new();
    let own = s
        .entities
        .iter()
        .filter(|e| !matches!(e.entity_type, EntityType::Reference | EntityType::Finding))
        .map(|e| (e.name.clone(), "entity"));
    let keywords = paper.keywords.iter().map(|k| (k.clone(), "keyword"));
    let facts = ctx.index().facts(paper.index);
    let tasks = facts.into_iter().flat_map(|f| f.tasks.iter().map(|t| (t.clone(), "task")));
    for (term, source) in keywords.chain(own).chain(tasks) {
        if seen.insert(normalize_name(&term), ()).is_none() {
            candidates.push((term, source));
        }
    }
    let mut counted: Vec<(usize, usize, Value)> = candidates
        .into_iter()
        .enumerate()
        .map(|(order, (term, source))| {
            let needle = term.to_lowercase();
            let mentions = s.paragraphs.iter().filter(|p| p.text.to_lowercase().contains(&needle)).count();
            (mentions, order, json!({"term": term, "source": source, "paragraph_count": mentions}))
        })
        .collect();
    counted.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    counted.into_iter().map(|(_, _, v)| v).collect()
}
