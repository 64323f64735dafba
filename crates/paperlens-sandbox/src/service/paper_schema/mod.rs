//! The 18 Structured Paper operations (`/paper-schema`), one module per operation group of
//! the spec, over the structured view of the corpus (`corpus.structure(paper)`).
//!
//! Decisions where the spec is open:
//! - ids in paths are percent-decoded single segments; an unknown `schema_id` is a 404, and
//!   so is an entity, relation or evidence id that the paper does not hold;
//! - unknown body properties and query parameters are a 400 naming them, as are entity
//!   types, subtypes and relation types outside the capability taxonomy;
//! - cursors are opaque tokens bound to the request they were issued for;
//! - every answer carries `partial`, `truncated` and `warnings` (false, false, empty unless
//!   the shell injects a `partial` fault or a cap was hit);
//! - the restricted token has the Paper Schema capability but not the field permission of
//!   the citation-impact field, as on the Open Platform (`open_platform::permissions`):
//!   paper cards leave `metrics.fwci` out, and sorting by it answers the contract's 403
//!   `FORBIDDEN` ("no permission for requested fields").
//!
//! Every enumeration, cap and bound of a parameter is the client's, from
//! `paperlens_core::contract`; a list or text the spec does not bound is not bounded here
//! either (`entity_types`, `entity_subtypes`, the locators and `hydration_query` of a
//! hydrate item, the `query` of evidence search). `tests/contract.rs` holds both to the
//! OpenAPI document.

pub mod capability;
pub mod citations;
pub mod cursor;
pub mod discovery;
pub mod entities;
pub mod evidence;
pub mod index;
pub mod materials;
pub mod params;
pub mod provenance;
pub mod relations;

#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde_json::{json, Map, Value};

use crate::service::corpus::structure::{CardFacts, Entity, Evidence, Paragraph, Provenance, Relation};
use crate::service::corpus::{Corpus, Paper, PaperStructure};
use crate::service::error::{json_response, ApiError, Result, STANDARD};
use crate::service::open_platform::permissions::field_visible;
use crate::service::search::{tokens, Bm25};
use crate::service::{Access, Service, ServiceRequest, ServiceResponse};
use cursor::Paging;
use index::{Row, SchemaIndex};

pub const BASE: &str = "/paper-schema";
pub const CONTRACT_VERSION: &str = "2025-06-01.beta";

type Handler = fn(&Ctx<'_>, &ServiceRequest, &[String]) -> Result<ServiceResponse>;

/// The operation at `path`: its method and handler, and the decoded path ids.
fn resolve(path: &str) -> Option<(&'static str, Handler, Vec<String>)> {
    let rest = path.strip_prefix(BASE)?;
    if rest.is_empty() {
        return Some(("GET", capability::handle, Vec::new()));
    }
    let parts: Vec<&str> = rest.strip_prefix('/')?.split('/').collect();
    let op: (&'static str, Handler) = match parts.as_slice() {
        ["search"] => ("POST", discovery::search),
        ["entities", "related-papers"] => ("POST", discovery::entity_related_papers),
        ["entities", "search"] => ("POST", entities::search),
        ["relations", "search"] => ("POST", relations::search),
        ["evidence", "search"] => ("POST", evidence::search),
        ["resolve-provenance"] => ("POST", provenance::resolve),
        ["search-in-schema"] => ("POST", provenance::search_in_schema),
        ["hydrate-items"] => ("POST", provenance::hydrate),
        ["materials"] => ("POST", materials::handle),
        ["schemas", _, "related-papers"] => ("POST", discovery::related_papers),
        ["schemas", _, "entities"] => ("GET", entities::list),
        ["schemas", _, "entities", _] => ("GET", entities::detail),
        ["schemas", _, "relations", _] => ("GET", relations::detail),
        ["schemas", _, "citation-summary"] => ("GET", citations::summary),
        ["schemas", _, "citations"] => ("GET", citations::list),
        ["schemas", _, "citation-graph"] => ("GET", citations::graph),
        ["schemas", _, "evidence", _] => ("GET", evidence::detail),
        _ => return None,
    };
    let ids = if parts[0] == "schemas" {
        [1, 3].iter().filter_map(|&i| parts.get(i)).map(|segment| percent_decode(segment)).collect()
    } else {
        Vec::new()
    };
    Some((op.0, op.1, ids))
}

/// The routing of `/paper-schema` paths for [`Service::handle`]: None when `path` is no
/// operation of this family; else the allowed method and, when the method fits, the answer.
pub fn route(
    service: &Service,
    request: &ServiceRequest,
    read: bool,
    post: bool,
) -> Option<(&'static str, Option<Result<ServiceResponse>>)> {
    let (method, handler, ids) = resolve(&request.path)?;
    let fits = if method == "GET" { read } else { post };
    Some((
        method,
        fits.then(|| {
            if let Some(empty) = ids.iter().position(String::is_empty) {
                let name = if empty == 0 { "schema_id" } else { id_name(&request.path) };
                return Err(STANDARD.invalid_param(name, format!("'{name}' must not be empty")));
            }
            handler(&Ctx::new(service, request.access), request, &ids)
        }),
    ))
}

/// The name of the second path id of `path` (entity, relation or evidence).
fn id_name(path: &str) -> &'static str {
    if path.contains("/entities/") {
        "entity_id"
    } else if path.contains("/relations/") {
        "relation_id"
    } else {
        "evidence_id"
    }
}

/// `%XX` escapes decoded (a malformed escape stays as it is).
pub fn percent_decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What a handler works with: the corpus, the schema indexes, and the structures of the
/// papers this request has touched (each built once per request).
pub struct Ctx<'a> {
    pub service: &'a Service,
    pub corpus: &'a Corpus,
    pub access: Access,
    structures: RefCell<HashMap<u32, Rc<PaperStructure>>>,
}

impl<'a> Ctx<'a> {
    pub fn new(service: &'a Service, access: Access) -> Ctx<'a> {
        Ctx { service, corpus: service.corpus(), access, structures: RefCell::new(HashMap::new()) }
    }

    /// The indexes (built on the first request that needs them).
    pub fn index(&self) -> &'a SchemaIndex {
        self.service.schema_index()
    }

    /// The structured paper with this `schema_id`, or a 404.
    pub fn paper(&self, schema_id: &str) -> Result<&'a Paper> {
        self.corpus
            .by_schema_id(schema_id)
            .ok_or_else(|| ApiError::not_found(format!("no paper with schema_id '{schema_id}'")))
    }

    pub fn structure(&self, paper: u32) -> Rc<PaperStructure> {
        if let Some(found) = self.structures.borrow().get(&paper) {
            return found.clone();
        }
        let built = Rc::new(
            self.corpus.structure(&self.corpus.papers[paper as usize]).unwrap_or_else(|| empty_structure(paper)),
        );
        self.structures.borrow_mut().insert(paper, built.clone());
        built
    }

    /// The papers named by `schema_ids` (unknown ones left out); None for an empty list.
    pub fn scope(&self, schema_ids: &[&str]) -> Option<HashSet<u32>> {
        (!schema_ids.is_empty())
            .then(|| schema_ids.iter().filter_map(|id| self.corpus.by_schema_id(id)).map(|p| p.index).collect())
    }

    pub fn schema_id(&self, paper: u32) -> &'a str {
        self.corpus.papers[paper as usize].schema_id.as_deref().unwrap_or_default()
    }

    /// The paper card of a structured paper (`schema_paper`, `target_schema`, nodes).
    pub fn card(&self, paper: u32) -> Value {
        let p = &self.corpus.papers[paper as usize];
        let facts = self.index().facts(paper);
        let mut metrics = json!({
            "citation_count": p.citation_count(),
            "reference_count": p.reference_count(),
            "fwci": p.fwci,
        });
        if !field_visible(self.access, "fwci") {
            metrics.as_object_mut().map(|m| m.remove("fwci"));
        }
        json!({
            "schema_id": p.schema_id,
            "title": p.title,
            "abstract": p.abstract_text,
            "authors": self.corpus.author_names(p),
            "venue": self.corpus.sources[p.venue as usize].name,
            "year": p.date.year,
            "topics": p.topics.iter().map(|t| t.topic().display_name).collect::<Vec<_>>(),
            "tasks": facts.map(|f| f.tasks.clone()).unwrap_or_default(),
            "research_problem": facts.map(|f| f.research_problem.as_str()),
            "central_contribution": facts.map(|f| f.central_contribution.as_str()),
            "headline_result": facts.map(|f| f.headline_result.as_str()),
            "has_code": facts.is_some_and(|f| f.has_code),
            "has_data": facts.is_some_and(|f| f.has_data),
            "doi": p.doi,
            "is_oa": p.open_access.is_oa,
            "metrics": metrics,
        })
    }
}

fn empty_structure(paper: u32) -> PaperStructure {
    PaperStructure {
        schema_id: String::new(),
        paper,
        facts: CardFacts::default(),
        paragraphs: Vec::new(),
        entities: Vec::new(),
        relations: Vec::new(),
        evidence: Vec::new(),
        citations: Vec::new(),
    }
}

/// A score as the answers show it: four decimal places.
pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// `item`, with the `score` of its row when a query ranked the rows.
pub fn scored(mut item: Value, query: Option<&str>, score: f32) -> Value {
    if query.is_some() {
        item["score"] = json!(round4(score as f64));
    }
    item
}

/// One page of the rows of `table` that `accept` keeps, ranked: by keyword relevance to
/// `query` over `terms` when one is given, otherwise all alike; ties in corpus order (paper
/// rank, then ordinal). `item` makes each row an item, from the structure of its paper; a
/// query adds its `score`.
pub fn ranked_page<R: Row>(
    ctx: &Ctx<'_>,
    (query, terms): (Option<&str>, &Bm25),
    table: &[R],
    accept: impl Fn(&R) -> bool,
    paging: &Paging,
    item: impl Fn(&PaperStructure, &R) -> Value,
) -> Value {
    let accept = |doc: u32| accept(&table[doc as usize]);
    let mut hits: Vec<(u32, f32)> = match query {
        Some(q) => {
            let mut wanted = Vec::new();
            tokens(q, &mut wanted);
            terms.search(&wanted, 1, accept).into_iter().map(|m| (m.doc, m.score)).collect()
        }
        None => (0..table.len() as u32).filter(|&d| accept(d)).map(|d| (d, 0.0)).collect(),
    };
    let index = ctx.index();
    let place = |doc: u32| {
        let row = &table[doc as usize];
        (index.rank_of(row.paper()), row.ordinal())
    };
    hits.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal).then(place(a.0).cmp(&place(b.0))));
    paging.page(&hits, |&(doc, score)| {
        let row = &table[doc as usize];
        scored(item(&ctx.structure(row.paper()), row), query, score)
    })
}

pub fn provenance_json(locations: &[Provenance]) -> Value {
    Value::Array(locations.iter().map(|l| json!({"marker": l.marker, "paragraph_id": l.paragraph_id})).collect())
}

pub fn entity_json(schema_id: &str, entity: &Entity) -> Value {
    json!({
        "entity_id": entity.entity_id,
        "schema_id": schema_id,
        "entity_type": entity.entity_type.as_str(),
        "entity_subtype": entity.entity_subtype,
        "name": entity.name,
        "text": entity.text,
        "section": entity.section,
        "provenance": provenance_json(&entity.provenance),
    })
}

pub fn find_entity<'s>(structure: &'s PaperStructure, id: &str) -> Option<&'s Entity> {
    structure.entities.iter().find(|e| e.entity_id == id)
}

/// A relation; with `context`, its endpoint entities (else null endpoints).
pub fn relation_json(structure: &PaperStructure, relation: &Relation, context: bool) -> Value {
    let endpoint = |id: &str| {
        context
            .then(|| find_entity(structure, id))
            .flatten()
            .map_or(Value::Null, |e| entity_json(&structure.schema_id, e))
    };
    json!({
        "relation_id": relation.relation_id,
        "relation_type": relation.relation_type,
        "schema_id": structure.schema_id,
        "source_entity_id": relation.source_entity_id,
        "target_entity_id": relation.target_entity_id,
        "source_entity": endpoint(&relation.source_entity_id),
        "target_entity": endpoint(&relation.target_entity_id),
        "provenance": provenance_json(&relation.provenance),
    })
}

pub fn evidence_json(structure: &PaperStructure, ordinal: usize) -> Value {
    let evidence: &Evidence = &structure.evidence[ordinal];
    json!({
        "evidence_id": evidence.evidence_id,
        "schema_id": structure.schema_id,
        "groups": evidence.groups,
        "key": evidence.key,
        "value_text": evidence.value_text,
        "value_number": evidence.value_number,
        "value_bool": evidence.value_bool,
        "source_entity_id": evidence.source_entity_id,
        "source_relation_id": evidence.source_relation_id,
        "path_bucket": index::path_bucket(structure, ordinal),
        "provenance": provenance_json(&evidence.provenance),
    })
}

/// A paragraph segment; `hit` is the position of the located paragraph it surrounds.
pub fn segment_json(schema_id: &str, paragraph: &Paragraph, hit: u32) -> Value {
    json!({
        "paragraph_id": paragraph.paragraph_id,
        "schema_id": schema_id,
        "section": paragraph.section,
        "text": paragraph.text,
        "marker": paragraph.marker,
        "position": paragraph.position,
        "relative_position": paragraph.position as i64 - hit as i64,
    })
}

/// A 200 answer; `partial`, `truncated` and `warnings` default to false, false and empty.
pub fn respond(body: Value) -> Result<ServiceResponse> {
    let mut map = match body {
        Value::Object(map) => map,
        other => {
            let mut map = Map::new();
            map.insert("value".into(), other);
            map
        }
    };
    map.entry("partial").or_insert(Value::Bool(false));
    map.entry("truncated").or_insert(Value::Bool(false));
    map.entry("warnings").or_insert(Value::Array(Vec::new()));
    Ok(json_response(200, serde_json::to_vec(&Value::Object(map)).unwrap_or_default()))
}

/// `{value, relation}`: exact up to 10,000, then a lower bound.
pub fn total_json(count: usize) -> Value {
    const BOUND: usize = 10_000;
    if count > BOUND {
        json!({"value": BOUND, "relation": "gte"})
    } else {
        json!({"value": count, "relation": "eq"})
    }
}
