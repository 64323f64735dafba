use std::collections::HashSet;

use serde_json::json;

use super::*;
use crate::service::corpus::TOPICS;

fn search(body: Value) -> Value {
    let (status, response) = post("/meta-search", body.clone());
    assert_eq!(status, 200, "{body} -> {response}");
    response
}

fn results(body: Value) -> Vec<Value> {
    search(body)["results"].as_array().cloned().unwrap_or_default()
}

fn filtered(field: &str, operator: &str, value: Value, project: &str) -> Vec<Value> {
    results(
        json!({"filters": [{"field": field, "operator": operator, "value": value}], "fields": [project], "page_size": 200}),
    )
}

fn error(body: Value, status: u16, code: &str) -> String {
    let (got, response) = post("/meta-search", body);
    assert_error(got, &response, status, code)
}

#[test]
fn a_query_on_a_topic_ranks_that_topic_first() {
    let corpus = service().corpus();
    for topic in TOPICS.iter() {
        let query = format!("{} {}", topic.terms[0], topic.terms[2]);
        let top = results(json!({"query": query, "page_size": 3, "fields": ["unique_id"]}));
        assert!(!top.is_empty(), "{query}");
        let paper = corpus.by_unique_id(top[0]["unique_id"].as_str().unwrap_or_default()).expect("paper");
        assert_eq!(paper.primary_topic().display_name, topic.display_name, "{query}");
    }
}

#[test]
fn default_fields_projection_and_zero_values() {
    let record = &results(json!({"page_size": 1}))[0];
    for field in ["unique_id", "title", "abstract", "author", "publication_published_year"] {
        assert!(record.get(field).is_some(), "{field}");
    }
    assert!(record.get("citations").is_none() && record.get("publication_published_date").is_none());
    let projected = results(json!({"fields": ["title", "primary_topic"], "page_size": 50}));
    for r in &projected {
        let keys: HashSet<&str> = r.as_object().map(|m| m.keys().map(String::as_str).collect()).unwrap_or_default();
        assert!(keys.is_subset(&["doc_id", "title", "primary_topic"].into()), "{keys:?}");
        assert!(r["primary_topic"]["domain"]["display_name"].is_string());
    }
    assert!(projected.iter().any(|r| r.get("doc_id").is_some()), "doc_id always returned when it exists");
    assert!(projected.iter().any(|r| r.get("doc_id").is_none()), "no doc_id without full text");
    let zero = filtered("citation_count", "FILTER_OP_EQ", json!(0), "citation_count");
    assert!(!zero.is_empty() && zero.iter().all(|r| r.get("citation_count").is_none()), "zero values are omitted");
}

#[test]
fn every_operator() {
    let year = |r: &Value| r["publication_published_year"].as_i64().unwrap_or_default();
    let y = "publication_published_year";
    assert!(filtered(y, "FILTER_OP_EQ", json!(2020), y).iter().all(|r| year(r) == 2020));
    assert!(filtered(y, "FILTER_OP_NE", json!(2020), y).iter().all(|r| year(r) != 2020));
    assert!(filtered(y, "FILTER_OP_GT", json!(2020), y).iter().all(|r| year(r) > 2020));
    assert!(filtered(y, "FILTER_OP_GTE", json!("2020"), y).iter().all(|r| year(r) >= 2020));
    assert!(filtered(y, "FILTER_OP_LT", json!(2000), y).iter().all(|r| year(r) < 2000));
    assert!(filtered(y, "FILTER_OP_LTE", json!(2000), y).iter().all(|r| year(r) <= 2000));
    let within = filtered(y, "FILTER_OP_IN", json!([2001, 2003]), y);
    assert!(!within.is_empty() && within.iter().all(|r| [2001, 2003].contains(&year(r))));
    assert!(filtered(y, "FILTER_OP_NIN", json!([2001, 2003]), y).iter().all(|r| ![2001, 2003].contains(&year(r))));
    // Operator defaults to EQ.
    let languages =
        results(json!({"filters": [{"field": "language", "value": "ko"}], "fields": ["language"], "page_size": 200}));
    assert!(!languages.is_empty() && languages.iter().all(|r| r["language"] == "ko"));
    let contains = filtered("title", "FILTER_OP_CONTAINS", json!("QUANTUM"), "title");
    assert!(
        !contains.is_empty()
            && contains.iter().all(|r| r["title"].as_str().unwrap_or_default().to_lowercase().contains("quantum"))
    );
    let matched = filtered("abstract", "FILTER_OP_MATCH", json!("qubits quantum"), "abstract");
    assert!(!matched.is_empty());
    let phrase = filtered("abstract", "FILTER_OP_MATCH_PHRASE", json!("surface code decoding"), "abstract");
    assert!(
        !phrase.is_empty()
            && phrase.iter().all(|r| r["abstract"]
                .as_str()
                .unwrap_or_default()
                .to_lowercase()
                .contains("surface code decoding"))
    );
    assert!(phrase.len() <= filtered("abstract", "FILTER_OP_MATCH", json!("decoding code surface"), "abstract").len());
    let corpus = service().corpus();
    let name = corpus.authors[corpus.papers[0].authors[0] as usize].name.clone();
    let by_author = filtered("author", "FILTER_OP_EQ", json!(name), "author");
    assert!(!by_author.is_empty() && by_author.iter().all(|r| r["author"].to_string().contains(&name)));
    let family = name.split(' ').next_back().unwrap_or_default().to_string();
    assert!(filtered("author", "FILTER_OP_MATCH", json!(family), "author").len() >= by_author.len());
}

#[test]
fn filters_on_dates_and_dotted_sub_fields() {
    let date = "publication_published_date";
    let month = filtered(date, "FILTER_OP_EQ", json!("2022-05"), date);
    assert!(!month.is_empty() && month.iter().all(|r| r[date].as_str().unwrap_or_default().starts_with("2022-05")));
    let after = filtered(date, "FILTER_OP_GT", json!("2024"), date);
    assert!(after.iter().all(|r| r[date].as_str().unwrap_or_default() >= "2025-01-01"));
    let domain = filtered("primary_topic.domain.display_name", "FILTER_OP_EQ", json!("Life Sciences"), "primary_topic");
    assert!(
        !domain.is_empty() && domain.iter().all(|r| r["primary_topic"]["domain"]["display_name"] == "Life Sciences")
    );
    let scored = filtered("primary_topic.score", "FILTER_OP_GTE", json!(0.95), "primary_topic");
    assert!(
        !scored.is_empty() && scored.iter().all(|r| r["primary_topic"]["score"].as_f64().unwrap_or_default() >= 0.95)
    );
    let nested = filtered("topics.display_name", "FILTER_OP_EQ", json!(TOPICS[3].display_name), "topics");
    assert!(!nested.is_empty() && nested.iter().all(|r| r["topics"].to_string().contains(TOPICS[3].display_name)));
    let top = filtered(
        "citation_normalized_percentile.is_in_top_10_percent",
        "FILTER_OP_EQ",
        json!(true),
        "citation_normalized_percentile",
    );
    assert!(!top.is_empty() && top.iter().all(|r| r["citation_normalized_percentile"]["is_in_top_10_percent"] == true));
    let cited = filtered("cited_by_percentile_year.max", "FILTER_OP_GT", json!(90), "cited_by_percentile_year");
    assert!(cited.iter().all(|r| r["cited_by_percentile_year"]["max"].as_f64().unwrap_or_default() > 90.0));
    let oa = filtered("access_is_oa", "FILTER_OP_EQ", json!("true"), "access_is_oa");
    assert!(!oa.is_empty() && oa.iter().all(|r| r["access_is_oa"] == "true"));
}

#[test]
fn sort_orders_and_sort_with_query() {
    let by_citations =
        results(json!({"sort": [{"field": "citation_count"}], "fields": ["citation_count"], "page_size": 100}));
    let counts: Vec<i64> = by_citations.iter().map(|r| r["citation_count"].as_i64().unwrap_or(0)).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]));
    let max = service().corpus().papers.iter().map(|p| p.citation_count()).max().unwrap_or_default();
    assert_eq!(counts[0], max as i64);
    let dates = results(
        json!({"sort": [{"field": "publication_published_date", "order": "SORT_ORDER_ASC"}], "fields": ["publication_published_date"], "page_size": 100}),
    );
    let dates: Vec<String> =
        dates.iter().map(|r| r["publication_published_date"].as_str().unwrap_or_default().to_string()).collect();
    assert!(dates.windows(2).all(|w| w[0] <= w[1]));
    let with_query = search(
        json!({"query": "climate", "sort": [{"field": "publication_published_year"}], "fields": ["publication_published_year"], "page_size": 200, "impact_boost": "STRONG"}),
    );
    let years: Vec<i64> = with_query["results"]
        .as_array()
        .map(|r| r.iter().map(|x| x["publication_published_year"].as_i64().unwrap_or(0)).collect())
        .unwrap_or_default();
    assert!(!years.is_empty() && years.windows(2).all(|w| w[0] >= w[1]));
    assert_ne!(with_query["next_cursor"], json!(null));
    let sorted_topic =
        results(json!({"sort": [{"field": "primary_topic.score"}], "fields": ["primary_topic"], "page_size": 50}));
    let scores: Vec<f64> = sorted_topic.iter().map(|r| r["primary_topic"]["score"].as_f64().unwrap_or(0.0)).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]));
    error(json!({"sort": [{"field": "title"}]}), 400, "INVALID_ARGUMENT");
    error(json!({"sort": [{"field": "citation_count", "order": "UP"}]}), 400, "INVALID_ARGUMENT");
}

fn page_through(body: Value, use_cursor: bool) -> Vec<String> {
    let mut ids = Vec::new();
    let mut request = body.clone();
    let mut page = 1;
    loop {
        let response = search(request.clone());
        let batch = response["results"].as_array().cloned().unwrap_or_default();
        ids.extend(batch.iter().map(|r| r["unique_id"].as_str().unwrap_or_default().to_string()));
        if use_cursor {
            let cursor = response["next_cursor"].as_str().unwrap_or_default().to_string();
            if cursor.is_empty() {
                break;
            }
            request = body.clone();
            request["cursor"] = json!(cursor);
        } else {
            if page >= response["total_pages"].as_u64().unwrap_or_default() {
                break;
            }
            page += 1;
            request = body.clone();
            request["page"] = json!(page);
        }
    }
    ids
}

#[test]
fn paging_to_exhaustion_has_no_duplicates_or_gaps() {
    let body = json!({"query": "approach baseline", "fields": ["unique_id"], "page_size": 23});
    let total = search(body.clone())["total_count"].as_u64().unwrap_or_default() as usize;
    assert!(total > 50, "{total}");
    let by_page = page_through(body.clone(), false);
    let by_cursor = page_through(body.clone(), true);
    assert_eq!(by_page.len(), total);
    assert_eq!(by_page.iter().collect::<HashSet<_>>().len(), total);
    assert_eq!(by_page, by_cursor);
    let everything =
        page_through(json!({"fields": ["unique_id"], "page_size": 200, "sort": [{"field": "fwci"}]}), true);
    assert_eq!(everything.len(), service().corpus().papers.len());
    assert_eq!(everything.iter().collect::<HashSet<_>>().len(), everything.len());
}

#[test]
fn paging_caps_and_cursor_errors() {
    let last = search(json!({"page": 50, "page_size": 200}));
    assert_eq!(last["results"], json!([]));
    assert_eq!(last["total_pages"], 3);
    let message = error(json!({"page": 51, "page_size": 200}), 400, "INVALID_ARGUMENT");
    assert!(message.contains("10000"), "{message}");
    error(json!({"page_size": 201}), 400, "INVALID_ARGUMENT");
    error(json!({"page_size": 0}), 400, "INVALID_ARGUMENT");
    error(json!({"page": 0}), 400, "INVALID_ARGUMENT");
    let first = search(json!({"page_size": 5}));
    let cursor = first["next_cursor"].as_str().unwrap_or_default().to_string();
    assert!(!cursor.is_empty());
    error(json!({"page_size": 5, "page": 2, "cursor": cursor}), 400, "INVALID_ARGUMENT");
    error(json!({"page_size": 5, "cursor": "not-a-cursor"}), 400, "INVALID_ARGUMENT");
    error(json!({"page_size": 5, "query": "climate", "cursor": cursor}), 400, "INVALID_ARGUMENT");
    let boosted = search(json!({"query": "climate", "freshness_boost": "MILD"}));
    assert_eq!(boosted["next_cursor"], "");
    let boosted_cursor = search(json!({"query": "climate", "page_size": 1}))["next_cursor"].clone();
    error(
        json!({"query": "climate", "page_size": 1, "cursor": boosted_cursor, "impact_boost": "STRONG"}),
        400,
        "INVALID_ARGUMENT",
    );
}

#[test]
fn total_count_is_capped_at_10000() {
    let service = Service::build(ServiceConfig { papers: 10_050, seed: 5, int64_as_string: false });
    let (status, body) =
        post_as(&service, "/meta-search", json!({"page_size": 200, "fields": ["unique_id"]}), Access::Full);
    assert_eq!(status, 200);
    assert_eq!(body["total_count"], 10_000);
    assert_eq!(body["total_pages"], 50);
    let mut cursor = body["next_cursor"].as_str().unwrap_or_default().to_string();
    let mut seen = 200;
    while !cursor.is_empty() {
        let (_, page) = post_as(
            &service,
            "/meta-search",
            json!({"page_size": 200, "fields": ["unique_id"], "cursor": cursor}),
            Access::Full,
        );
        seen += page["results"].as_array().map(Vec::len).unwrap_or_default();
        cursor = page["next_cursor"].as_str().unwrap_or_default().to_string();
    }
    assert_eq!(seen, 10_050, "cursor paging goes past the 10000 window");
}

#[test]
fn facets() {
    let body = search(
        json!({"query": "climate", "facets": [{"field": "publication_published_year", "size": 3}, {"field": "keywords"}, {"field": "primary_topic.domain.display_name"}]}),
    );
    let facets = body["facets"].as_array().cloned().unwrap_or_default();
    assert_eq!(facets.len(), 3);
    let years = facets[0]["buckets"].as_array().cloned().unwrap_or_default();
    assert_eq!(years.len(), 3);
    assert!(years[0]["key"].is_i64());
    let counts: Vec<u64> = years.iter().map(|b| b["doc_count"].as_u64().unwrap_or_default()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]));
    let year = years[0]["key"].clone();
    let check =
        search(json!({"query": "climate", "filters": [{"field": "publication_published_year", "value": year}]}));
    assert_eq!(check["total_count"].as_u64(), Some(counts[0]));
    assert_eq!(facets[2]["buckets"][0]["key"], "Physical Sciences");
    let six: Vec<Value> = (0..6).map(|_| json!({"field": "language"})).collect();
    error(json!({"facets": six}), 400, "INVALID_ARGUMENT");
    error(json!({"facets": [{"field": "language", "size": 51}]}), 400, "INVALID_ARGUMENT");
    error(json!({"facets": [{"field": "locations"}]}), 400, "INVALID_ARGUMENT");
}

#[test]
fn boosts_follow_the_rules() {
    let ids = |body: Value| -> Vec<String> {
        results(body).iter().map(|r| r["unique_id"].as_str().unwrap_or_default().to_string()).collect()
    };
    let corpus = service().corpus();
    let base = json!({"query": "climate precipitation", "fields": ["unique_id"], "page_size": 200});
    let plain = ids(base.clone());
    let mut impact = base.clone();
    impact["impact_boost"] = json!("STRONG");
    let boosted = ids(impact);
    assert_eq!(plain.len(), boosted.len(), "boosts re-rank, never exclude");
    let citations = |list: &[String]| -> f64 {
        list.iter().take(10).map(|id| corpus.by_unique_id(id).map_or(0.0, |p| p.citation_count() as f64)).sum()
    };
    assert!(citations(&boosted) >= citations(&plain));
    let mut fresh = base.clone();
    fresh["freshness_boost"] = json!("STRONG");
    let year_sum = |list: &[String]| -> u32 {
        list.iter().take(10).map(|id| corpus.by_unique_id(id).map_or(0, |p| p.date.year as u32)).sum()
    };
    assert!(year_sum(&ids(fresh)) >= year_sum(&plain));
    // Language affinity: an English query lowers, never drops, papers in other languages.
    let cjk = json!({"query": "CRISPR", "fields": ["unique_id", "language"], "page_size": 200});
    let neutral = results(cjk.clone());
    let mut affinity = cjk.clone();
    affinity["language_affinity"] = json!("STRONG");
    let lowered = results(affinity);
    assert_eq!(neutral.len(), lowered.len());
    let position = |list: &[Value], lang: &str| list.iter().position(|r| r["language"] == lang);
    if let (Some(a), Some(b)) = (position(&neutral, "zh"), position(&lowered, "zh")) {
        assert!(b >= a);
    }
    let zh = results(
        json!({"query": "基因编辑", "fields": ["unique_id", "language"], "page_size": 200, "language_affinity": "MILD"}),
    );
    assert_eq!(zh.first().map(|r| r["language"].clone()), Some(json!("zh")));
    error(json!({"query": "x", "freshness_boost": "HUGE"}), 400, "INVALID_ARGUMENT");
}

#[test]
fn permissions_and_field_errors() {
    let (status, body) = post_as(service(), "/meta-search", json!({"page_size": 3}), Access::Restricted);
    assert_eq!(status, 200);
    for record in body["results"].as_array().cloned().unwrap_or_default() {
        assert!(record.get("fwci").is_none() && record.get("citation_normalized_percentile").is_none());
    }
    for forbidden in [
        json!({"fields": ["fwci"]}),
        json!({"sort": [{"field": "fwci"}]}),
        json!({"filters": [{"field": "citation_normalized_percentile.value", "operator": "FILTER_OP_GT", "value": 0.5}]}),
        json!({"facets": [{"field": "fwci"}]}),
        json!({"fields": ["citations"]}),
    ] {
        let (status, response) = post_as(service(), "/meta-search", forbidden, Access::Restricted);
        assert_error(status, &response, 403, "PERMISSION_DENIED");
    }
    for bad in [
        json!({"fields": ["primary_topic.score"]}),
        json!({"fields": ["nope"]}),
        json!({"fields": "title"}),
        json!({"filters": [{"field": "nope", "value": 1}]}),
        json!({"filters": [{"field": "title"}]}),
        json!({"filters": [{"field": "title", "operator": "FILTER_OP_LIKE", "value": "x"}]}),
        json!({"filters": [{"field": "citation_count", "operator": "FILTER_OP_IN", "value": 3}]}),
        json!({"filters": [{"field": "citation_count", "value": "many"}]}),
        json!({"filters": [{"field": "publication_published_date", "value": "May 2020"}]}),
        json!({"filters": [{"field": "title", "operator": "FILTER_OP_GT", "value": "a"}]}),
        json!({"filters": [{"field": "locations", "value": "x"}]}),
        json!({"filters": {"field": "title"}}),
        json!({"collection": "venues"}),
        json!({"query": 3}),
    ] {
        error(bad, 400, "INVALID_ARGUMENT");
    }
    let (_, full) =
        post_as(service(), "/meta-search", json!({"fields": ["fwci", "citations"], "page_size": 1}), Access::Full);
    assert_eq!(full["results"].as_array().map(Vec::len), Some(1));
}

#[test]
fn authors_and_sources_collections() {
    let corpus = service().corpus();
    let authors = search(json!({"collection": "authors", "sort": [{"field": "works_count"}], "page_size": 5}));
    let first = &authors["results"][0];
    assert!(first["orcid"].is_string() && first["display_name"].is_string());
    let most = corpus.authors.iter().map(|a| a.works.len()).max().unwrap_or_default();
    assert_eq!(first["works_count"], most);
    let orcid = first["orcid"].clone();
    let name = first["display_name"].as_str().unwrap_or_default().to_string();
    let papers =
        results(json!({"filters": [{"field": "author", "value": name}], "fields": ["author"], "page_size": 200}));
    assert!(papers.iter().filter(|p| p["author"].to_string().contains(orcid.as_str().unwrap_or("?"))).count() >= most);
    let journals = search(
        json!({"collection": "sources", "filters": [{"field": "venue_type", "value": "journal"}], "query": "letters"}),
    );
    let sources = journals["results"].as_array().cloned().unwrap_or_default();
    assert!(
        !sources.is_empty()
            && sources
                .iter()
                .all(|s| s["venue_type"] == "journal"
                    && s["display_name"].as_str().unwrap_or_default().contains("Letters"))
    );
    let issn = sources[0]["issn_l"].clone();
    let linked = search(json!({"filters": [{"field": "publication_venue_issn", "value": issn}]}));
    assert_eq!(linked["total_count"], sources[0]["works_count"]);
    error(json!({"collection": "authors", "sort": [{"field": "display_name"}]}), 400, "INVALID_ARGUMENT");
}
