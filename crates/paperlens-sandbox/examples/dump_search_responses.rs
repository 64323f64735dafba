//! Writes the bodies of a fixed set of search requests over 2,000 papers, one per line, to
//! OUTPUT: diff two runs to see what a change alters.
//!
//! `cargo run --release -p paperlens-sandbox --example dump_search_responses -- OUTPUT`
//! (or `PAPERLENS_DUMP=OUTPUT` without the argument).

use std::process::ExitCode;

use paperlens_sandbox::service::corpus::TOPICS;
use paperlens_sandbox::{Access, Service, ServiceConfig, ServiceRequest, ServiceResponse};
use serde_json::{json, Value};

const USAGE: &str = "usage: dump_search_responses OUTPUT (or PAPERLENS_DUMP=OUTPUT)";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let path = match (args.next().or_else(|| std::env::var("PAPERLENS_DUMP").ok()), args.next()) {
        (Some(path), None) => path,
        (None, _) => {
            eprintln!("OUTPUT is required\n{USAGE}");
            return ExitCode::from(2);
        }
        (Some(_), Some(extra)) => {
            eprintln!("unexpected argument {extra:?}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    std::fs::write(path, dump()).expect("dump written");
    ExitCode::SUCCESS
}

fn dump() -> String {
    let service = Service::build(ServiceConfig { papers: 2_000, seed: 0, int64_as_string: false });
    let projected = ["title", "unique_id", "author", "references", "locations", "topics", "doi", "reference_count"];
    let meta_searches = [
        json!({"page_size": 200}),
        json!({"page_size": 200, "page": 2}),
        json!({"query": "climate precipitation", "page_size": 200, "facets": [{"field": "language"}]}),
        json!({"page_size": 120, "page": 3, "fields": projected}),
        json!({"page_size": 50, "fields": ["citations", "title", "title", "doc_id"]}),
        json!({"query": "quantum", "page_size": 20, "sort": [{"field": "citation_count"}], "filters": [{"field": "publication_published_year", "operator": "FILTER_OP_GTE", "value": 2015}]}),
        json!({"collection": "authors", "page_size": 200}),
        json!({"collection": "authors", "page_size": 30, "fields": ["display_name", "works", "h_index"]}),
        json!({"collection": "sources", "page_size": 200}),
        json!({"collection": "sources", "page_size": 20, "query": "journal", "fields": ["homepage_url", "issn"]}),
    ];
    let mut bodies = Vec::new();
    for body in &meta_searches {
        bodies.push(("/meta-search", body.clone(), Access::Full));
        bodies.push(("/meta-search", body.clone(), Access::Restricted));
    }
    let mut queries: Vec<String> =
        TOPICS.iter().map(|t| format!("{} {} {}", t.terms[0], t.terms[1], t.methods[0])).collect();
    queries.extend(
        ["quantum error correction on superconducting qubits", "loss aversion nudges", "量子", "climate", "x"]
            .map(String::from),
    );
    queries.push("study results method evidence ".repeat(20));
    for query in &queries {
        for retrieval in ["hybrid", "es", "vector"] {
            for (top_k, sub_queries) in [(10, 0), (3, 4), (100, 1)] {
                bodies.push((
                    "/agentic-search",
                    json!({"query": query, "top_k": top_k, "retrieval": retrieval, "sub_queries": sub_queries}),
                    Access::Full,
                ));
            }
        }
    }
    for filters in [
        json!({"lang": "zh"}),
        json!({"publication_published_year": [2010, 2012]}),
        json!({"citation_count": {"gte": 5}}),
    ] {
        bodies.push((
            "/agentic-search",
            json!({"query": "study results method evidence", "top_k": 100, "filters": filters}),
            Access::Restricted,
        ));
    }
    bodies.push(("/agentic-search", json!({"query": "climate", "top_k": 50, "source_types": ["pdf"]}), Access::Full));
    let mut out = String::new();
    for (path, body, access) in bodies {
        let response = service.handle(&ServiceRequest::post(path, &body, access));
        out.push_str(&format!("{path} {access:?} {body} -> {} {}\n", response.status, without_search_time(&response)));
        if path == "/meta-search" {
            let next: Value = serde_json::from_slice(&response.body).unwrap_or_default();
            if let Some(cursor) = next["next_cursor"].as_str().filter(|c| !c.is_empty()) {
                let mut body = body.clone();
                body["cursor"] = json!(cursor);
                let response = service.handle(&ServiceRequest::post(path, &body, access));
                out.push_str(&format!(
                    "{path} {access:?} cursor -> {} {}\n",
                    response.status,
                    without_search_time(&response)
                ));
            }
        }
    }
    let as_strings = Service::build(ServiceConfig { papers: 300, seed: 0, int64_as_string: true });
    for body in &meta_searches {
        let response = as_strings.handle(&ServiceRequest::post("/meta-search", body, Access::Full));
        out.push_str(&format!("int64 as string {body} -> {} {}\n", response.status, without_search_time(&response)));
    }
    out
}

/// The body, with the (varying) `search_time_ms` value blanked.
fn without_search_time(response: &ServiceResponse) -> String {
    let body = String::from_utf8_lossy(&response.body);
    match body.split_once("\"search_time_ms\":") {
        Some((before, after)) => {
            let rest = after.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-' || c == 'e');
            format!("{before}\"search_time_ms\":_{rest}")
        }
        None => body.into_owned(),
    }
}
