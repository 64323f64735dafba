use serde_json::json;

use super::*;
use crate::service::corpus::{Language, Paper, TextKind};

fn content(query: &[(&str, &str)], access: Access) -> (u16, Value) {
    let response = get_as("/content", query, access);
    (response.status, json(&response))
}

fn paper_with_text(pred: impl Fn(&Paper) -> bool) -> &'static Paper {
    service().corpus().papers.iter().find(|p| p.has_full_text() && pred(p)).expect("a matching paper")
}

fn code_point_slice(text: &str, offset: usize, length: usize) -> String {
    text.chars().skip(offset).take(length).collect()
}

#[test]
fn full_mode_returns_the_whole_text() {
    let paper = paper_with_text(|p| p.text_kind == TextKind::Normal);
    let (status, body) = content(&[("doc_id", paper.doc_id.as_deref().unwrap_or_default())], Access::Full);
    assert_eq!(status, 200);
    let text = body["text"].as_str().unwrap_or_default();
    assert_eq!(body["text_length"], text.chars().count());
    assert_eq!(body["bytes_returned"], text.len());
    assert_eq!(body["next_offset"], body["text_length"]);
    assert_eq!(body["more"], false);
    assert_eq!(body.as_object().map(|m| m.len()), Some(5));
}

#[test]
fn paged_mode_reassembles_non_latin_text_by_code_points() {
    for language in [Language::Zh, Language::Ja, Language::Ko] {
        let paper = paper_with_text(|p| p.language == language);
        let doc_id = paper.doc_id.as_deref().unwrap_or_default();
        let (_, whole) = content(&[("doc_id", doc_id)], Access::Full);
        let whole = whole["text"].as_str().unwrap_or_default().to_string();
        let mut offset = 0usize;
        let mut rebuilt = String::new();
        loop {
            let (status, page) =
                content(&[("doc_id", doc_id), ("offset", &offset.to_string()), ("limit", "97")], Access::Full);
            assert_eq!(status, 200);
            let text = page["text"].as_str().unwrap_or_default();
            assert_eq!(text, code_point_slice(&whole, offset, 97));
            assert_eq!(page["bytes_returned"], text.len());
            assert!(text.chars().count() <= 97);
            rebuilt.push_str(text);
            offset = page["next_offset"].as_u64().unwrap_or_default() as usize;
            if page["more"] == false {
                break;
            }
        }
        assert_eq!(rebuilt, whole);
        assert_eq!(offset, whole.chars().count());
    }
}

#[test]
fn default_limit_and_long_texts() {
    let paper = paper_with_text(|p| p.text_kind == TextKind::Long);
    let doc_id = paper.doc_id.as_deref().unwrap_or_default();
    let (_, first) = content(&[("doc_id", doc_id), ("offset", "0")], Access::Full);
    assert_eq!(first["text"].as_str().map(|t| t.chars().count()), Some(700));
    assert_eq!(first["next_offset"], 700);
    let (_, big) = content(&[("doc_id", doc_id), ("offset", "0"), ("limit", "524288")], Access::Full);
    assert_eq!(big["next_offset"], 524_288);
    assert_eq!(big["more"], true);
    assert!(big["text_length"].as_u64().unwrap_or_default() > 524_288);
    let (_, past) = content(&[("doc_id", doc_id), ("offset", "99999999")], Access::Full);
    assert_eq!(past["text"], "");
    assert_eq!(past["more"], false);
    assert_eq!(past["next_offset"], past["text_length"]);
}

#[test]
fn source_lookup_and_fallback() {
    let paper = paper_with_text(|_| true);
    let (_, by_doc) = content(&[("doc_id", paper.doc_id.as_deref().unwrap_or_default())], Access::Full);
    let (status, by_source) = content(&[("source", &paper.source)], Access::Full);
    assert_eq!(status, 200);
    assert_eq!(by_doc, by_source);
    let (status, fallback) = content(&[("doc_id", "0000"), ("source", &paper.source)], Access::Full);
    assert_eq!(status, 200);
    assert_eq!(fallback, by_doc);
}

#[test]
fn unknown_documents_are_400_naming_the_parameter() {
    // /content lists no 404: a doc_id or source that names no document is a bad parameter.
    let (status, body) = content(&[("doc_id", "feedbeef")], Access::Full);
    let message = assert_error(status, &body, 400, "INVALID_REQUEST");
    assert!(message.contains("doc_id 'feedbeef'"), "{message}");
    assert_eq!(body["details"]["parameter"], "doc_id");
    let (status, body) = content(&[("source", "https://example.org/none")], Access::Full);
    assert_error(status, &body, 400, "INVALID_REQUEST");
    assert_eq!(body["details"]["parameter"], "source");
}

#[test]
fn content_bounds_are_400() {
    let doc_id = paper_with_text(|_| true).doc_id.clone().unwrap_or_default();
    let cases: Vec<Vec<(&str, &str)>> = vec![
        vec![],
        vec![("doc_id", "")],
        vec![("doc_id", "../etc/passwd")],
        vec![("doc_id", "a\\b")],
        vec![("source", "ftp://example.org/x")],
        vec![("source", "")],
        vec![("doc_id", &doc_id), ("offset", "-1")],
        vec![("doc_id", &doc_id), ("offset", "abc")],
        vec![("doc_id", &doc_id), ("offset", "0"), ("limit", "0")],
        vec![("doc_id", &doc_id), ("offset", "0"), ("limit", "524289")],
    ];
    for query in cases {
        let (status, body) = content(&query, Access::Full);
        let message = assert_error(status, &body, 400, "INVALID_REQUEST");
        assert!(!message.is_empty());
    }
}

#[test]
fn restricted_tokens_cannot_read_closed_full_texts() {
    let closed = paper_with_text(|p| !p.open_access.is_oa);
    let open = paper_with_text(|p| p.open_access.is_oa);
    let (status, body) = content(&[("doc_id", closed.doc_id.as_deref().unwrap_or_default())], Access::Restricted);
    assert_error(status, &body, 403, "FORBIDDEN");
    let (status, _) = content(&[("doc_id", open.doc_id.as_deref().unwrap_or_default())], Access::Restricted);
    assert_eq!(status, 200);
}

#[test]
fn figures_in_texts_are_served_as_png() {
    let corpus = service().corpus();
    let paper = paper_with_text(|p| p.open_access.is_oa);
    let text = corpus.full_text(paper).map(|t| t.text.clone()).unwrap_or_default();
    let start = text.find("](figures/").expect("a figure placeholder") + 2;
    let file_name = &text[start..start + text[start..].find(')').unwrap_or(0)];
    let response = get_as("/resource", &[("file_name", file_name)], Access::Restricted);
    assert_eq!(response.status, 200);
    assert_eq!(header(&response, "content-type"), Some("image/png"));
    assert_eq!(header(&response, "cache-control"), Some("private, no-store"));
    let disposition = header(&response, "content-disposition").unwrap_or_default();
    assert!(disposition.starts_with("attachment; filename=\"fig") && disposition.ends_with(".png\""), "{disposition}");
    let png = &response.body;
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&png[12..16], b"IHDR");
    let width = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
    let height = u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
    assert!(width > 0 && height > 0);
    assert_eq!(&png[png.len() - 8..png.len() - 4], b"IEND");

    let csv = format!("supplementary/{}/table1.csv", paper.unique_id);
    let response = get_as("/resource", &[("file_name", &csv)], Access::Full);
    assert_eq!(response.status, 200);
    assert_eq!(header(&response, "content-type"), Some("text/csv"));
}

#[test]
fn resource_errors() {
    for bad in ["", "/figures/x/fig1.png", "figures/../secret", "figures\\x\\fig1.png"] {
        let response = get_as("/resource", &[("file_name", bad)], Access::Full);
        assert_error(response.status, &json(&response), 400, "INVALID_REQUEST");
    }
    let response = get_as("/resource", &[], Access::Full);
    assert_error(response.status, &json(&response), 400, "INVALID_REQUEST");
    // /resource lists no 404: a name that names no object is a bad parameter.
    let response = get_as("/resource", &[("file_name", "figures/W0/fig1.png")], Access::Full);
    let body = json(&response);
    assert_error(response.status, &body, 400, "INVALID_REQUEST");
    assert_eq!(body["details"]["parameter"], "file_name");
    let closed = paper_with_text(|p| !p.open_access.is_oa);
    let name = format!("figures/{}/fig1.png", closed.unique_id);
    let response = get_as("/resource", &[("file_name", &name)], Access::Restricted);
    assert_error(response.status, &json(&response), 403, "FORBIDDEN");
    assert_eq!(get_as("/resource", &[("file_name", &name)], Access::Full).status, 200);
}

#[test]
fn agentic_hits_point_at_their_text_by_code_points() {
    let corpus = service().corpus();
    for query in ["quantum error correction", "量子计算 量子比特", "気候変動 降水量", "도시 교통 통근"]
    {
        let (status, body) = post("/agentic-search", json!({"query": query, "top_k": 8}));
        assert_eq!(status, 200);
        let hits = body["hits"].as_array().cloned().unwrap_or_default();
        assert!(!hits.is_empty(), "{query}");
        for hit in hits {
            let paper = corpus.by_doc_id(hit["doc_id"].as_str().unwrap_or_default()).expect("paper");
            let text = corpus.full_text(paper).map(|t| t.text.clone()).unwrap_or_default();
            let chunk = hit["chunk"].as_str().unwrap_or_default();
            let offset = hit["offset"].as_u64().unwrap_or_default() as usize;
            assert_eq!(code_point_slice(&text, offset, chunk.chars().count()), chunk);
        }
    }
}
