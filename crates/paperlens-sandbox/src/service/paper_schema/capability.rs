//! `GET /paper-schema`: the capability contract (version, resources, taxonomies from the
//! corpus's model, evidence groups, limits). Never a health check.

use serde_json::{json, Map, Value};

use super::index::PATH_BUCKETS;
use super::params::allow_query;
use super::{respond, Ctx, CONTRACT_VERSION};
use crate::service::corpus::structure::{EntityType, EVIDENCE_GROUPS, RELATION_TYPES};
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
        "evidence_groups": EVIDENCE_GROUPS,
        "path_buckets": PATH_BUCKETS,
        "limits": {
            "query_chars": {"min": 1, "max": 500},
            "section_hint_chars": 300,
            "search": {"size": {"min": 1, "max": 100, "default": 20}, "sort_items": 2,
                       "schema_ids": 100, "dois": 100, "authors": 20, "venues": 50},
            "entities_related_papers": {"size": {"min": 1, "max": 100, "default": 20},
                                        "exclude_schema_ids": 100},
            "related_papers": {"size": {"min": 1, "max": 50, "default": 20}, "signals": 3},
            "entities_search": {"size": {"min": 1, "max": 100, "default": 20},
                                "schema_ids": 100, "sections": 50},
            "entities": {"size": {"min": 1, "max": 100, "default": 50}},
            "entity": {"relation_limit": {"min": 1, "max": 100, "default": 50}},
            "relations_search": {"size": {"min": 1, "max": 100, "default": 20},
                                 "schema_ids": 100, "entity_ids": 100, "relation_types": 50},
            "citations": {"size": {"min": 1, "max": 100, "default": 50}},
            "citation_graph": {"depth": {"min": 1, "max": 3, "default": 1},
                               "max_nodes": {"min": 2, "max": 500, "default": 100},
                               "max_edges": {"min": 1, "max": 500, "default": 200}},
            "evidence_search": {"size": {"min": 1, "max": 100, "default": 20},
                                "groups": {"min": 1, "max": 5}, "schema_ids": 100},
            "resolve_provenance": {"locators": 100, "window": {"min": 0, "max": 5, "default": 0},
                                   "max_segments": {"min": 1, "max": 100, "default": 40}},
            "search_in_schema": {"top_k": {"min": 1, "max": 20, "default": 5},
                                 "window": {"min": 0, "max": 5, "default": 1}},
            "hydrate_items": {"items": {"min": 1, "max": 50},
                              "window": {"min": 0, "max": 5, "default": 1},
                              "max_segments_per_item": {"min": 1, "max": 20, "default": 5}},
            "materials": {"schema_ids": {"min": 1, "max": 20},
                          "per_schema_entity_limit": {"min": 0, "max": 150, "default": 40},
                          "per_schema_relation_limit": {"min": 0, "max": 150, "default": 40},
                          "per_schema_attribute_limit": {"min": 0, "max": 200, "default": 60},
                          "per_schema_term_limit": {"min": 0, "max": 100, "default": 20}},
            "rate_limit": {"resource": "paper-schema", "requests_per_minute": 30},
        },
    })
}
