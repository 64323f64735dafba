//! `GET /paper-schema`: the capability contract (version, resources, taxonomies from the
//! corpus's model, evidence groups, limits). Never a health check.

use paperlens_core::contract::{self as c, lists, Bound, Count};
use serde_json::{json, Map, Value};

use super::index::PATH_BUCKETS;
use super::params::allow_query;
use super::{respond, Ctx, CONTRACT_VERSION};
use crate::service::corpus::structure::{EntityType, RELATION_TYPES};
use crate::service::error::Result;
use crate::service::{ServiceRequest, ServiceResponse};

/// The endpoint entity types of each relation type, as the corpus builds them.
const RELATION_ENDPOINTS: [(&str, &str, &str); 5] = [
    ("uses_component", "Component", "Component"),
    ("evaluates", "Component", "Resource"),
    ("reports_metric", "Finding", "Measure"),
    ("supports", "Finding", "Component"),
    ("resolves", "Component", "Problem"),
];

pub fn handle(_: &Ctx<'_>, request: &ServiceRequest, _: &[String]) -> Result<ServiceResponse> {
    allow_query(&request.query, &[])?;
    respond(capabilities())
}

/// `{min, max, default}` of an integer parameter.
fn bound(b: Bound) -> Value {
    json!({"min": b.min, "max": b.max, "default": b.default})
}

/// `{min, max}` of a list or a text.
fn count(c: Count) -> Value {
    json!({"min": c.min, "max": c.max})
}

pub fn capabilities() -> Value {
    let subtypes: Map<String, Value> =
        EntityType::ALL.iter().map(|t| (t.as_str().to_string(), json!(t.subtypes()))).collect();
    let endpoints: Map<String, Value> =
        RELATION_ENDPOINTS.iter().map(|(r, s, t)| (r.to_string(), json!({"source": s, "target": t}))).collect();
    json!({
        "contract_version": CONTRACT_VERSION,
        "resources": ["paper", "entity", "relation", "evidence", "citation", "paragraph"],
        "entity_taxonomy": {
            "types": EntityType::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
            "subtypes": subtypes,
        },
        "relation_taxonomy": {
            "types": RELATION_TYPES,
            "endpoints": endpoints,
            "citation_relation": "cites",
        },
        "evidence_groups": c::EVIDENCE_GROUPS,
        "path_buckets": PATH_BUCKETS,
        "limits": {
            "query_chars": count(c::QUERY_CHARS),
            "section_hint_chars": c::SECTION_HINT_CHARS.max,
            "search": {"size": bound(c::SEARCH_SIZE), "sort_items": lists::SORT.max,
                       "schema_ids": lists::SCHEMA_IDS.max, "dois": lists::DOIS.max,
                       "authors": lists::AUTHORS.max, "venues": lists::VENUES.max},
            "entities_related_papers": {"size": bound(c::SEARCH_SIZE),
                                        "exclude_schema_ids": lists::EXCLUDE_SCHEMA_IDS.max},
            "related_papers": {"size": bound(c::RELATED_PAPERS_SIZE), "signals": lists::SIGNALS.max},
            "entities_search": {"size": bound(c::SEARCH_SIZE),
                                "schema_ids": lists::SCHEMA_IDS.max, "sections": lists::SECTIONS.max},
            "entities": {"size": bound(c::LIST_SIZE)},
            "entity": {"relation_limit": bound(c::RELATION_LIMIT)},
            "relations_search": {"size": bound(c::SEARCH_SIZE), "schema_ids": lists::SCHEMA_IDS.max,
                                 "entity_ids": lists::ENTITY_IDS.max,
                                 "relation_types": lists::RELATION_TYPES.max},
            "citations": {"size": bound(c::LIST_SIZE)},
            "citation_graph": {"depth": bound(c::DEPTH), "max_nodes": bound(c::MAX_NODES),
                               "max_edges": bound(c::MAX_EDGES)},
            "evidence_search": {"size": bound(c::SEARCH_SIZE), "groups": count(lists::EVIDENCE_GROUPS),
                                "schema_ids": lists::SCHEMA_IDS.max},
            "resolve_provenance": {"locators": lists::LOCATORS.max, "window": bound(c::PROVENANCE_WINDOW),
                                   "max_segments": bound(c::MAX_SEGMENTS)},
            "search_in_schema": {"top_k": bound(c::IN_PAPER_TOP_K), "window": bound(c::WINDOW)},
            "hydrate_items": {"items": count(lists::HYDRATE_ITEMS), "window": bound(c::WINDOW),
                              "max_segments_per_item": bound(c::MAX_SEGMENTS_PER_ITEM)},
            "materials": {"schema_ids": count(lists::MATERIALS_PAPERS),
                          "per_schema_entity_limit": bound(c::PER_SCHEMA_ENTITY_LIMIT),
                          "per_schema_relation_limit": bound(c::PER_SCHEMA_RELATION_LIMIT),
                          "per_schema_attribute_limit": bound(c::PER_SCHEMA_ATTRIBUTE_LIMIT),
                          "per_schema_term_limit": bound(c::PER_SCHEMA_TERM_LIMIT)},
            "rate_limit": {"resource": "paper-schema", "requests_per_minute": 30},
        },
    })
}
