use serde_json::json;

use super::*;
use crate::service::corpus::TOPICS;

fn search(body: Value) -> Vec<Value> {
    let (status, response) = post("/agentic-search", body.clone());
    assert_eq!(status, 200, "{body} -> {response}");
    response["hits"].as_array().cloned().unwrap_or_default()
}

fn hit_paper(hit: &Value) -> &'static crate::service::corpus::Paper {
    service().corpus().by_doc_id(hit["doc_id"].as_str().unwrap_or_default()).expect("paper of hit")
}

#[test]
fn a_query_on_a_topic_ranks_that_topic_first() {
    for topic in TOPICS.iter() {
        let query = format!("{} {} {}", topic.terms[0], topic.terms[1], topic.methods[0]);
        for retrieval in ["hybrid", "es", "vector"] {
            let hits = search(json!({"query": query, "top_k": 5, "retrieval": retrieval}));
            assert!(!hits.is_empty());
            assert_eq!(hits[0]["primary_topic"], topic.display_name, "{retrieval}: {query}");
        }
    }
}

#[test]
fn recall_sources_and_scores_are_truthful() {
    let query = "randomized field experiment on loss aversion";
    for hit in search(json!({"query": query, "retrieval": "es"})) {
        assert_eq!(hit["recall_source"], "es");
        assert!(hit["origin_vector_score"].is_null());
        assert_eq!(hit["score"], hit["origin_es_score"]);
    }
    for hit in search(json!({"query": query, "retrieval": "vector"})) {
        assert_eq!(hit["recall_source"], "vector");
        assert!(hit["origin_es_score"].is_null());
        assert_eq!(hit["score"], hit["origin_vector_score"]);
    }
    let hybrid = search(json!({"query": query, "top_k": 40}));
    let mut sources = std::collections::HashSet::new();
    let mut previous = f64::MAX;
    for hit in &hybrid {
        let source = hit["recall_source"].as_str().unwrap_or_default();
        sources.insert(source.to_string());
        assert_eq!(hit["origin_es_score"].is_null(), !source.contains("es"), "{hit}");
        assert_eq!(hit["origin_vector_score"].is_null(), !source.contains("vector"), "{hit}");
        let score = hit["score"].as_f64().unwrap_or(-1.0);
        assert!((0.0..=1.0).contains(&score));
        assert!(score <= previous);
        previous = score;
    }
    assert!(sources.contains("vector|es"), "{sources:?}");
}

#[test]
fn top_k_sub_queries_and_token_estimates() {
    let (_, body) = post("/agentic-search", json!({"query": "coral reef bleaching", "top_k": 3, "sub_queries": 3}));
    assert_eq!(body["hits"].as_array().map(Vec::len), Some(3));
    assert_eq!(body["sub_queries"].as_array().map(Vec::len), Some(3));
    assert!(body["request_tokens"].as_u64().unwrap_or_default() > 0);
    assert!(body["response_tokens"].as_u64().unwrap_or_default() > 0);
    let (_, plain) = post("/agentic-search", json!({"query": "coral reef bleaching"}));
    assert!(plain.get("sub_queries").is_none());
    assert_eq!(plain["hits"].as_array().map(Vec::len), Some(10));
    let (_, again) = post("/agentic-search", json!({"query": "coral reef bleaching"}));
    assert_eq!(plain, again, "deterministic");
}

fn all_hits(filters: Value) -> Vec<Value> {
    search(json!({"query": "study results method evidence", "top_k": 100, "filters": filters}))
}

#[test]
fn every_filter_restricts_hits() {
    let corpus = service().corpus();
    for hit in all_hits(json!({"lang": "zh"})) {
        assert_eq!(hit["lang"], "zh");
    }
    assert!(!search(json!({"query": "量子", "filters": {"language": "zh"}})).is_empty());
    for hit in search(json!({"query": "量子", "filters": {"language": "ja"}})) {
        assert_eq!(hit["lang"], "ja");
    }
    let sample = hit_paper(&all_hits(json!({}))[0]);
    let title_hits = all_hits(json!({"title": sample.title.to_uppercase()}));
    assert!(!title_hits.is_empty());
    assert!(title_hits.iter().all(|h| h["title"] == sample.title.as_str()));
    let name = corpus.authors[sample.authors[0] as usize].name.clone();
    for filter in [json!(name), json!(["Nobody Atall", name])] {
        let hits = all_hits(json!({"author": filter}));
        assert!(!hits.is_empty());
        assert!(hits.iter().all(|h| h["author"].as_array().is_some_and(|a| a.contains(&json!(name)))));
    }
    let venue = &corpus.sources[sample.venue as usize].name;
    assert!(all_hits(json!({"publication_venue_name_unified": venue}))
        .iter()
        .all(|h| h["publication_venue_name_unified"] == venue.as_str()));
    let journals = all_hits(json!({"publication_venue_type": "JOURNAL"}));
    assert!(!journals.is_empty() && journals.iter().all(|h| h["publication_venue_type"] == "journal"));
    assert!(all_hits(json!({"publication_venue_type": "Book Series"}))
        .iter()
        .all(|h| h["publication_venue_type"] == "book series"));

    let year_of = |h: &Value| h["publication_published_year"].as_i64().unwrap_or_default();
    assert!(all_hits(json!({"publication_published_date": "2020"})).iter().all(|h| year_of(h) == 2020));
    let month = all_hits(json!({"publication_published_date": "2021-03"}));
    assert!(month.iter().all(|h| h["publication_published_date"].as_str().unwrap_or_default().starts_with("2021-03")));
    let range = all_hits(json!({"publication_published_date": {"gte": "2015-01", "lt": "2020"}}));
    assert!(!range.is_empty() && range.iter().all(|h| (2015..2020).contains(&year_of(h))));
    let open = all_hits(json!({"publication_published_date": ["2024-06-01", null]}));
    assert!(
        !open.is_empty()
            && open.iter().all(|h| h["publication_published_date"].as_str().unwrap_or_default() >= "2024-06-01")
    );
    assert!(all_hits(json!({"publication_published_date": {"gt": "2025"}})).iter().all(|h| year_of(h) >= 2026));

    assert!(all_hits(json!({"publication_published_year": 2019})).iter().all(|h| year_of(h) == 2019));
    let years = all_hits(json!({"publication_published_year": [2010, 2012]}));
    assert!(!years.is_empty() && years.iter().all(|h| (2010..=2012).contains(&year_of(h))));
    let cited = all_hits(json!({"citation_count": {"gte": "5"}}));
    assert!(!cited.is_empty() && cited.iter().all(|h| h["citation_count"].as_i64().unwrap_or_default() >= 5));
    let few = all_hits(json!({"citation_count": [null, 2]}));
    assert!(!few.is_empty() && few.iter().all(|h| h["citation_count"].as_i64().unwrap_or(99) <= 2));
    assert!(all_hits(json!({"influential_citation_count": {"gt": 1}}))
        .iter()
        .all(|h| h["influential_citation_count"].as_i64().unwrap_or_default() > 1));

    let health = all_hits(json!({"topics": {"dimensions": {"primary_topic_domain": "Health Sciences"}}}));
    assert!(!health.is_empty() && health.iter().all(|h| h["primary_topic_domain"] == "Health Sciences"));
    let topic = TOPICS[0].display_name;
    let both = all_hits(
        json!({"topics": {"logic": "and", "dimensions": {"primary_topic": topic, "primary_topic_domain": "Life Sciences"}}}),
    );
    assert!(both.is_empty(), "a Physical Sciences topic is not in Life Sciences");
    let either = all_hits(
        json!({"topics": {"logic": "or", "dimensions": {"primary_topic": topic, "primary_topic_domain": "Life Sciences"}}}),
    );
    assert!(
        !either.is_empty()
            && either.iter().all(|h| h["primary_topic"] == topic || h["primary_topic_domain"] == "Life Sciences")
    );

    let pdf = search(json!({"query": "climate", "top_k": 50, "source_types": ["pdf"]}));
    assert!(!pdf.is_empty() && pdf.iter().all(|h| h["source_type"] == "pdf"));
    let web = search(json!({"query": "climate", "top_k": 50, "source_types": ["web"]}));
    assert!(!web.is_empty() && web.iter().all(|h| h["source_type"] == "web"));
}

#[test]
fn invalid_bodies_are_400() {
    let long = "q".repeat(4097);
    let cases = [
        json!({}),
        json!({"query": ""}),
        json!({"query": "   "}),
        json!({"query": long}),
        json!({"query": 5}),
        json!({"query": "x", "unknown": 1}),
        json!({"query": "x", "top_k": 0}),
        json!({"query": "x", "top_k": 101}),
        json!({"query": "x", "top_k": "10"}),
        json!({"query": "x", "top_k": 2.5}),
        json!({"query": "x", "retrieval": "bm25"}),
        json!({"query": "x", "sub_queries": 5}),
        json!({"query": "x", "source_types": ["ftp"]}),
        json!({"query": "x", "source_types": "pdf"}),
        json!({"query": "x", "filters": {"colour": "red"}}),
        json!({"query": "x", "filters": []}),
        json!({"query": "x", "filters": {"publication_venue_type": "magazine"}}),
        json!({"query": "x", "filters": {"publication_published_date": "2020/01"}}),
        json!({"query": "x", "filters": {"publication_published_date": "20"}}),
        json!({"query": "x", "filters": {"publication_published_date": {"after": "2020"}}}),
        json!({"query": "x", "filters": {"publication_published_date": ["2020"]}}),
        json!({"query": "x", "filters": {"publication_published_year": ["a", "b"]}}),
        json!({"query": "x", "filters": {"citation_count": [1, 2, 3]}}),
        json!({"query": "x", "filters": {"citation_count": "many"}}),
        json!({"query": "x", "filters": {"author": 7}}),
        json!({"query": "x", "filters": {"topics": {"logic": "xor"}}}),
        json!({"query": "x", "filters": {"topics": {"dimensions": {"primary_topic_domain": "Arts"}}}}),
        json!({"query": "x", "filters": {"topics": {"dimensions": {"field": "x"}}}}),
    ];
    for body in cases {
        let (status, response) = post("/agentic-search", body.clone());
        let message = assert_error(status, &response, 400, "INVALID_REQUEST");
        assert!(message.contains('\''), "{body}: {message}");
    }
    let ok = "q".repeat(4096);
    assert_eq!(post("/agentic-search", json!({"query": ok, "top_k": 1})).0, 200);
}
