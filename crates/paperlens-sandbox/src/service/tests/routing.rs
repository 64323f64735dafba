use serde_json::json;

use super::*;

#[test]
fn unknown_path_is_a_json_404() {
    let response = get_as("/nope", &[], Access::Full);
    assert_eq!(header(&response, "content-type"), Some("application/json"));
    assert_error(response.status, &json(&response), 404, "NOT_FOUND");
}

#[test]
fn wrong_method_is_405_with_allow() {
    for (method, path, allowed) in [
        ("POST", "/content", "GET"),
        ("POST", "/resource", "GET"),
        ("DELETE", "/meta-catalog", "GET"),
        ("GET", "/meta-search", "POST"),
        ("GET", "/agentic-search", "POST"),
        ("PUT", "/meta-paper-relations", "POST"),
    ] {
        let response = service().handle(&request(method, path, &[], "{}", Access::Full));
        assert_error(response.status, &json(&response), 405, "METHOD_NOT_ALLOWED");
        assert_eq!(header(&response, "allow"), Some(allowed));
    }
}

#[test]
fn bodies_must_be_json_objects() {
    for path in ["/agentic-search", "/meta-paper-relations"] {
        for body in ["", "not json", "[1, 2]", "\"text\""] {
            let response = service().handle(&request("POST", path, &[], body, Access::Full));
            assert_error(response.status, &json(&response), 400, "INVALID_REQUEST");
        }
    }
    let response = service().handle(&request("POST", "/meta-search", &[], "{", Access::Full));
    assert_error(response.status, &json(&response), 400, "INVALID_ARGUMENT");
}

#[test]
fn service_is_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Service>();
    std::thread::scope(|scope| {
        for k in 0..4 {
            scope.spawn(move || {
                let (status, _) = post("/meta-search", json!({"query": "climate", "page": k + 1}));
                assert_eq!(status, 200);
            });
        }
    });
}

#[test]
fn int64_counts_as_strings() {
    let service = Service::build(ServiceConfig {
        papers: 80,
        seed: 3,
        int64_as_string: true,
    });
    let (status, body) = post_as(
        &service,
        "/meta-search",
        json!({"facets": [{"field": "language"}], "page_size": 5}),
        Access::Full,
    );
    assert_eq!(status, 200);
    assert_eq!(body["total_count"], "80");
    assert!(body["facets"][0]["buckets"][0]["doc_count"].is_string());
    assert!(body["page"].is_u64());
}
