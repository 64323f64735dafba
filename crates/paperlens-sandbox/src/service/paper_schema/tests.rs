//! Tests of the `/paper-schema` operations through the service door.

use std::collections::HashSet;

use serde_json::{json, Value};

use crate::service::tests::{assert_error, get_as, json as body_of, post, post_as, service};
use crate::service::Access;

fn get(path: &str, query: &[(&str, &str)]) -> (u16, Value) {
    let response = get_as(path, query, Access::Full);
    (response.status, body_of(&response))
}

/// Structured papers with the most resolved references, most first.
fn rich_papers() -> Vec<String> {
    let corpus = service().corpus();
    let mut papers: Vec<_> = corpus
        .papers
        .iter()
        .filter(|p| p.schema_id.is_some())
        .map(|p| {
            let resolved = p.references.iter().filter(|&&r| corpus.papers[r as usize].schema_id.is_some()).count();
            (resolved, p.schema_id.clone().unwrap_or_default())
        })
        .collect();
    papers.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    papers.into_iter().map(|(_, id)| id).collect()
}

fn schema_path(id: &str, rest: &str) -> String {
    format!("/paper-schema/schemas/{id}/{rest}")
}

#[test]
fn capabilities_describe_the_taxonomies() {
    let (status, body) = get("/paper-schema", &[]);
    assert_eq!(status, 200);
    assert!(body["contract_version"].is_string());
    assert_eq!(body["entity_taxonomy"]["types"].as_array().map(Vec::len), Some(6));
    assert_eq!(body["evidence_groups"].as_array().map(Vec::len), Some(10));
    assert_eq!(body["partial"], false);
    let (status, body) = get("/paper-schema", &[("x", "1")]);
    assert_error(status, &body, 400, "INVALID_REQUEST");
}

#[test]
fn routing_methods_and_unknown_ids() {
    let response = get_as("/paper-schema/search", &[], Access::Full);
    assert_eq!(response.status, 405);
    let (status, body) = get(&schema_path("ps_nope", "entities"), &[]);
    assert_error(status, &body, 404, "NOT_FOUND");
    let id = &rich_papers()[0];
    let (status, body) = get(&schema_path(id, "entities/e99999"), &[]);
    assert_error(status, &body, 404, "NOT_FOUND");
    let (status, _) = get(&schema_path(id, "entities/e1"), &[]);
    assert_eq!(status, 200);
    // Percent-encoded ids are decoded.
    let encoded = id.replace('_', "%5F");
    let (status, body) = get(&schema_path(&encoded, "citation-summary"), &[]);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["schema_id"], json!(id));
    assert_eq!(super::percent_decode("a%2Fb%zz%4"), "a/b%zz%4");
}

#[test]
fn search_pages_to_exhaustion_and_filters() {
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut total = None;
    loop {
        let mut body = json!({"query": "quantum", "size": 7});
        if let Some(c) = &cursor {
            body["cursor"] = json!(c);
        }
        let (status, page) = post("/paper-schema/search", body);
        assert_eq!(status, 200, "{page}");
        total = total.or(page["total"]["value"].as_u64());
        for item in page["items"].as_array().into_iter().flatten() {
            seen.push(item["schema_id"].as_str().unwrap_or_default().to_string());
        }
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert!(!seen.is_empty());
    assert_eq!(Some(seen.len() as u64), total);
    assert_eq!(seen.iter().collect::<HashSet<_>>().len(), seen.len());
    // The spec's default cursor is null: sent as such, it asks for the first page.
    let first = post("/paper-schema/search", json!({"query": "quantum", "size": 7}));
    assert_eq!(post("/paper-schema/search", json!({"query": "quantum", "size": 7, "cursor": null})), first);
    let (status, body) = post("/paper-schema/search", json!({"query": "quantum", "size": null}));
    assert_error(status, &body, 400, "INVALID_REQUEST");

    let (_, page) = post(
        "/paper-schema/search",
        json!({"filters": {"published_year_gte": 2010, "has_code": true}, "sort": [{"field": "year", "order": "asc"}], "size": 100}),
    );
    let years: Vec<u64> = page["items"].as_array().unwrap().iter().map(|i| i["year"].as_u64().unwrap()).collect();
    assert!(!years.is_empty());
    assert!(years.windows(2).all(|w| w[0] <= w[1]));
    assert!(years.iter().all(|&y| y >= 2010));
    assert!(page["items"].as_array().unwrap().iter().all(|i| i["has_code"] == true));

    for bad in [
        json!({}),
        json!({"filters": {}}),
        json!({"query": ""}),
        json!({"query": "x".repeat(501)}),
        json!({"query": "q", "size": 0}),
        json!({"query": "q", "sort": [{"field": "title"}]}),
        json!({"query": "q", "sort": [{"field": "year"}, {"field": "year"}, {"field": "year"}]}),
        json!({"filters": {"published_year_gte": 1700}}),
        json!({"query": "q", "cursor": "forged"}),
        json!({"query": "q", "unknown": 1}),
    ] {
        let (status, body) = post("/paper-schema/search", bad.clone());
        assert_error(status, &body, 400, "INVALID_REQUEST");
    }
}

#[test]
fn citations_summary_list_and_graph_agree() {
    let id = &rich_papers()[0];
    let (_, summary) = get(&schema_path(id, "citation-summary"), &[]);
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut query = vec![("size", "4")];
        if let Some(c) = &cursor {
            query.push(("cursor", c));
        }
        let (status, page) = get(&schema_path(id, "citations"), &query);
        assert_eq!(status, 200, "{page}");
        assert_eq!(page["total"], summary["outbound"]["reference_count_total"]);
        items.extend(page["items"].as_array().cloned().unwrap_or_default());
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    let resolved: Vec<&Value> = items.iter().filter(|i| i["resolution"]["status"] == "resolved").collect();
    assert_eq!(summary["outbound"]["resolved_reference_count"], json!(resolved.len()));
    assert_eq!(items.len() as u64, summary["outbound"]["reference_count_total"].as_u64().unwrap());
    let (_, graph) = get(&schema_path(id, "citation-graph"), &[("depth", "1")]);
    let targets: HashSet<&str> =
        resolved.iter().map(|i| i["resolution"]["target_schema_id"].as_str().unwrap()).collect();
    let edges: HashSet<&str> =
        graph["edges"].as_array().unwrap().iter().map(|e| e["target_schema_id"].as_str().unwrap()).collect();
    assert_eq!(edges, targets);
    assert_eq!(graph["nodes"].as_array().unwrap().len(), targets.len() + 1);

    let (_, capped) = get(&schema_path(id, "citation-graph"), &[("depth", "3"), ("max_nodes", "2")]);
    assert_eq!(capped["truncated"], true);
    assert_eq!(capped["nodes"].as_array().unwrap().len(), 2);
    let (_, capped) = get(&schema_path(id, "citation-graph"), &[("depth", "3"), ("max_edges", "1")]);
    assert_eq!(capped["edges"].as_array().unwrap().len(), 1);
    for (name, value) in [("depth", "4"), ("max_nodes", "1"), ("max_edges", "501"), ("direction", "up")] {
        let (status, body) = get(&schema_path(id, "citation-graph"), &[(name, value)]);
        assert_error(status, &body, 400, "INVALID_REQUEST");
    }
}

#[test]
fn evidence_markers_resolve_to_their_paragraphs() {
    let id = &rich_papers()[0];
    let (status, page) =
        post("/paper-schema/evidence/search", json!({"groups": ["core_claim_result"], "schema_ids": [id]}));
    assert_eq!(status, 200, "{page}");
    let evidence = &page["items"][0];
    let marker = evidence["provenance"][0]["marker"].clone();
    let (status, resolved) =
        post("/paper-schema/resolve-provenance", json!({"schema_id": id, "marker_nums": [marker, 9999]}));
    assert_eq!(status, 200, "{resolved}");
    assert_eq!(resolved["trace"]["mode"], "marker");
    assert_eq!(resolved["missing"], json!([9999]));
    let text = resolved["segments"][0]["text"].as_str().unwrap();
    assert!(text.contains(evidence["value_text"].as_str().unwrap()), "{text}");
    for bad in [
        json!({"schema_id": id}),
        json!({"marker_nums": [1]}),
        json!({"schema_id": id, "marker_nums": [1], "paragraph_ids": ["x"]}),
        json!({}),
        json!({"paragraph_ids": ["x"], "window": 6}),
        json!({"paragraph_ids": ["x"], "max_segments": 0}),
    ] {
        let (status, body) = post("/paper-schema/resolve-provenance", bad);
        assert_error(status, &body, 400, "INVALID_REQUEST");
    }
}

#[test]
fn hydration_keeps_every_item() {
    let id = &rich_papers()[0];
    let (status, body) = post(
        "/paper-schema/hydrate-items",
        json!({"items": [
            {"schema_id": id, "paragraph_ids": [format!("{id}:p1")]},
            {"schema_id": id, "marker_nums": [2]},
            {"schema_id": id, "hydration_query": "baseline experiments"},
            {"schema_id": "ps_missing", "marker_nums": [1]},
        ], "window": 0}),
    );
    assert_eq!(status, 200, "{body}");
    let methods: Vec<&str> =
        body["items"].as_array().unwrap().iter().map(|i| i["hydration_method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["paragraph_id", "marker", "schema_local_search", "none"]);
    assert!(body["items"][3]["reason"].is_string());
    assert_eq!(body["items"][3]["missing"], json!([1]), "a locator of an unknown paper cannot be returned");
    let (status, body) = post("/paper-schema/hydrate-items", json!({"items": [{"schema_id": id}]}));
    assert_error(status, &body, 400, "INVALID_REQUEST");
}

#[test]
fn materials_follow_the_goal() {
    let id = &rich_papers()[0];
    let (_, survey) =
        post("/paper-schema/materials", json!({"schema_ids": [id], "goal": "survey", "per_schema_entity_limit": 2}));
    let item = &survey["items"][0];
    assert!(item["entities"].as_array().unwrap().iter().all(|e| e["entity_type"] == "Reference"));
    assert_eq!(item["counts"]["entities"]["returned"], 2);
    assert_eq!(item["counts"]["entities"]["truncated"], true);
    let (_, bench) = post(
        "/paper-schema/materials",
        json!({"schema_ids": [id], "goal": "benchmark", "per_schema_entity_limit": 1, "per_schema_relation_limit": 1}),
    );
    assert_eq!(bench["items"][0]["entities"][0]["entity_type"], "Resource");
    assert_eq!(bench["items"][0]["relations"][0]["relation_type"], "evaluates");
    let (status, body) = post("/paper-schema/materials", json!({"schema_ids": [id, "ps_missing"]}));
    assert_error(status, &body, 404, "NOT_FOUND");
}

#[test]
fn related_papers_report_their_signals() {
    let id = &rich_papers()[0];
    let (status, body) = post(&schema_path(id, "related-papers"), json!({"signals": ["citation"], "size": 50}));
    assert_eq!(status, 200, "{body}");
    let items = body["items"].as_array().unwrap();
    assert!(!items.is_empty());
    for item in items {
        let components = item["score_components"].as_object().unwrap();
        assert_eq!(components.keys().collect::<Vec<_>>(), ["citation"]);
        assert!(item["reasons"].as_array().is_some_and(|r| !r.is_empty()));
        assert_ne!(item["schema_id"], json!(id));
    }
    let (status, body) = post(&schema_path(id, "related-papers"), json!({"signals": []}));
    assert_error(status, &body, 400, "INVALID_REQUEST");
}

#[test]
fn relations_need_a_structural_filter() {
    let (status, body) = post("/paper-schema/relations/search", json!({"evidence_query": "method"}));
    assert_error(status, &body, 400, "INVALID_REQUEST");
    let (status, body) = post(
        "/paper-schema/relations/search",
        json!({"filters": {"relation_types": ["evaluates"]}, "include_context": "entities", "size": 3}),
    );
    assert_eq!(status, 200, "{body}");
    let first = &body["items"][0];
    assert_eq!(first["relation_type"], "evaluates");
    assert_eq!(first["target_entity"]["entity_type"], "Resource");
    assert!(body["next_cursor"].is_string());
}

/// The markers of paragraphs `positions` of paper `id`.
fn markers_at(id: &str, positions: &[u32]) -> Vec<i64> {
    let ids: Vec<String> = positions.iter().map(|p| format!("{id}:p{p}")).collect();
    let (status, body) = post("/paper-schema/resolve-provenance", json!({"paragraph_ids": ids}));
    assert_eq!(status, 200, "{body}");
    body["segments"].as_array().unwrap().iter().map(|s| s["marker"].as_i64().unwrap()).collect()
}

/// The (marker, relative_position) of each segment.
fn placed(segments: &Value) -> Vec<(i64, i64)> {
    let all = segments.as_array().unwrap();
    all.iter().map(|s| (s["marker"].as_i64().unwrap(), s["relative_position"].as_i64().unwrap())).collect()
}

/// The contract: `max_segments` is the "total returned paragraphs", `window` the
/// "neighbouring paragraphs before and after each hit", `missing` the "locators that could
/// not be resolved". A cap keeps the located paragraphs before any neighbour, and a located
/// paragraph it cannot return is listed in `missing`.
#[test]
fn max_segments_keeps_located_paragraphs_before_neighbours_and_lists_the_rest_as_missing() {
    let id = &rich_papers()[0];
    let m = markers_at(id, &[1, 2, 3, 12, 13]);
    let (status, body) = post(
        "/paper-schema/resolve-provenance",
        json!({"schema_id": id, "marker_nums": [m[1], m[4]], "window": 2, "max_segments": 5}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(placed(&body["segments"]), [(m[0], -1), (m[1], 0), (m[2], 1), (m[3], -1), (m[4], 0)]);
    assert_eq!((&body["missing"], &body["truncated"]), (&json!([]), &json!(true)));

    let (_, body) = post(
        "/paper-schema/resolve-provenance",
        json!({"schema_id": id, "marker_nums": [m[1], m[4]], "window": 1, "max_segments": 1}),
    );
    assert_eq!(placed(&body["segments"]), [(m[1], 0)]);
    assert_eq!(body["missing"], json!([m[4]]));
    assert!(body["warnings"][0].as_str().unwrap().contains("max_segments=1"), "{body}");

    let (_, body) = post(
        "/paper-schema/hydrate-items",
        json!({"items": [{"schema_id": id, "marker_nums": [m[4]]}], "window": 1, "max_segments_per_item": 1}),
    );
    assert_eq!(placed(&body["items"][0]["segments"]), [(m[4], 0)]);
}

#[test]
fn a_located_paragraph_is_at_position_zero_even_beside_another() {
    let id = &rich_papers()[0];
    let m = markers_at(id, &[4, 5, 6]);
    let (_, body) =
        post("/paper-schema/resolve-provenance", json!({"schema_id": id, "marker_nums": [m[0], m[1]], "window": 1}));
    let (_, at_five) = placed(&body["segments"]).into_iter().partition::<Vec<_>, _>(|s| s.0 != m[1]);
    assert_eq!(at_five, [(m[1], 0)]);
}

#[test]
fn search_in_schema_scores_every_segment_and_names_ignored_stop_words() {
    let id = &rich_papers()[0];
    let (status, body) = post("/paper-schema/search-in-schema", json!({"schema_id": id, "query": "the", "window": 1}));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["segments"], json!([]));
    let warning = body["warnings"][0].as_str().unwrap();
    assert!(warning.contains("stop word") && warning.contains("(the)"), "{warning}");

    let (_, body) = post(
        "/paper-schema/search-in-schema",
        json!({"schema_id": id, "query": "results method data", "top_k": 20, "window": 1}),
    );
    let segments = body["segments"].as_array().unwrap();
    let hits: Vec<&Value> = segments.iter().filter(|s| s["relative_position"] == 0).collect();
    assert_eq!(hits.len() as u64, body["trace"]["hits"].as_u64().unwrap());
    assert!(hits.iter().all(|s| s["hit"] == true && s["score"].as_f64().unwrap() > 0.0), "{body}");
    assert!(segments.iter().all(|s| s["score"].is_number()), "the contract: segments (each with score)");
}

#[test]
fn the_restricted_token_may_not_sort_by_the_impact_field() {
    let body = json!({"query": "learning", "sort": [{"field": "metrics.fwci"}], "size": 2});
    let (status, answer) = post_as(service(), "/paper-schema/search", body.clone(), Access::Restricted);
    let message = assert_error(status, &answer, 403, "FORBIDDEN");
    assert!(message.contains("metrics.fwci"), "{message}");
    let (status, _) = post("/paper-schema/search", body);
    assert_eq!(status, 200);
    let year = json!({"query": "learning", "sort": [{"field": "year"}], "size": 2});
    let (status, page) = post_as(service(), "/paper-schema/search", year, Access::Restricted);
    assert_eq!(status, 200, "{page}");
    assert!(
        page["items"][0]["metrics"].get("fwci").is_none() && page["items"][0]["metrics"]["citation_count"].is_number()
    );
}
