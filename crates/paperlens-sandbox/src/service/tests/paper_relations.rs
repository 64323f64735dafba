use serde_json::json;

use super::*;

fn relations(body: Value) -> (u16, Value) {
    post("/meta-paper-relations", body)
}

#[test]
fn pages_through_every_relation_without_gaps() {
    let corpus = service().corpus();
    let paper = corpus
        .papers
        .iter()
        .max_by_key(|p| p.citation_count())
        .expect("papers");
    for (relation, expected) in [
        ("CITATIONS", paper.citation_count() as usize),
        ("REFERENCES", paper.reference_count() as usize),
        ("RELATED_WORKS", paper.related.len()),
    ] {
        let mut seen = Vec::new();
        let mut page = 1;
        loop {
            let (status, body) = relations(
                json!({"unique_id": paper.unique_id, "relation": relation, "page": page, "page_size": 7}),
            );
            assert_eq!(status, 200);
            assert_eq!(body["code"], "SUCCESS");
            assert_eq!(body["biz_code"], 0);
            assert_eq!(body["total_count"], expected);
            assert_eq!(body["total_pages"], expected.div_ceil(7));
            let items = body["items"].as_array().cloned().unwrap_or_default();
            for item in &items {
                assert!(
                    item["id"].is_string()
                        && item["id_type"].is_string()
                        && item["title"].is_string()
                );
            }
            seen.extend(items.into_iter().map(|i| i["id"].to_string()));
            if page >= body["total_pages"].as_u64().unwrap_or_default() as usize {
                break;
            }
            page += 1;
        }
        let distinct: std::collections::HashSet<_> = seen.iter().collect();
        assert_eq!(seen.len(), expected, "{relation}");
        assert_eq!(distinct.len(), expected, "{relation}");
    }
    let (_, body) = relations(json!({"unique_id": paper.unique_id, "relation": "CITATIONS"}));
    for item in body["items"].as_array().cloned().unwrap_or_default() {
        let citing = corpus
            .by_unique_id(item["id"].as_str().unwrap_or_default())
            .expect("citing paper");
        assert!(citing.references.contains(&paper.index));
    }
    let (_, beyond) =
        relations(json!({"unique_id": paper.unique_id, "relation": "CITATIONS", "page": 999}));
    assert_eq!(beyond["items"], json!([]));
}

#[test]
fn relation_errors() {
    let (status, body) = relations(json!({"unique_id": "W-missing", "relation": "CITATIONS"}));
    assert_error(status, &body, 404, "NOT_FOUND");
    let id = service().corpus().papers[0].unique_id.clone();
    for body in [
        json!({"relation": "CITATIONS"}),
        json!({"unique_id": "", "relation": "CITATIONS"}),
        json!({"unique_id": id}),
        json!({"unique_id": id, "relation": "cites"}),
        json!({"unique_id": id, "relation": "CITATIONS", "page": 0}),
        json!({"unique_id": id, "relation": "CITATIONS", "page_size": 0}),
        json!({"unique_id": id, "relation": "CITATIONS", "page_size": 201}),
        json!({"unique_id": id, "relation": "CITATIONS", "extra": true}),
    ] {
        let (status, response) = relations(body);
        assert_error(status, &response, 400, "INVALID_REQUEST");
    }
}
