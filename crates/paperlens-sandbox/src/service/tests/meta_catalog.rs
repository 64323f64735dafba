use super::*;

fn catalog(query: &[(&str, &str)], access: Access) -> Value {
    let response = get_as("/meta-catalog", query, access);
    assert_eq!(response.status, 200);
    json(&response)
}

fn field<'a>(catalog: &'a Value, name: &str) -> Option<&'a Value> {
    catalog["fields"].as_array().and_then(|f| f.iter().find(|x| x["name"] == name))
}

#[test]
fn papers_catalog_follows_the_spec_table() {
    let body = catalog(&[], Access::Full);
    assert_eq!(body.as_object().map(|m| m.len()), Some(3));
    assert_eq!(body["filter_operators"].as_array().map(Vec::len), Some(11));
    let date = field(&body, "publication_published_date").expect("date field");
    assert_eq!(date["type"], "Date");
    assert_eq!(
        (date["filterable"].clone(), date["sortable"].clone(), date["default_returned"].clone()),
        (true.into(), true.into(), false.into())
    );
    let title = field(&body, "title").expect("title");
    assert_eq!(title["searchable"], true);
    let dotted = field(&body, "primary_topic.score").expect("dotted");
    assert_eq!((dotted["sortable"].clone(), dotted["projectable"].clone()), (true.into(), false.into()));
    assert!(field(&body, "fwci").is_some());
    let defaults = body["default_fields"].as_array().cloned().unwrap_or_default();
    assert!(defaults.contains(&"doc_id".into()) && !defaults.contains(&"citations".into()));
    assert!(title.get("sample_values").is_none() && title.get("numeric_stats").is_none());
}

#[test]
fn samples_and_stats_come_from_the_corpus() {
    let body = catalog(&[("include_sample_values", "true"), ("include_field_stats", "true")], Access::Full);
    let language = field(&body, "language").expect("language");
    let samples = language["sample_values"].as_array().cloned().unwrap_or_default();
    assert_eq!(samples.first(), Some(&"en".into()));
    assert_eq!(language["cardinality_estimate"], 5);
    let citations = field(&body, "citation_count").expect("citation_count");
    let stats = &citations["numeric_stats"];
    let papers = &service().corpus().papers;
    let max = papers.iter().map(|p| p.citation_count()).max().unwrap_or_default();
    assert_eq!(stats["max"].as_f64(), Some(max as f64));
    assert_eq!(stats["min"].as_f64(), Some(0.0));
    let avg = papers.iter().map(|p| p.citation_count() as f64).sum::<f64>() / papers.len() as f64;
    assert!((stats["avg"].as_f64().unwrap_or_default() - avg).abs() < 0.001);
    assert!(stats["p50"].as_f64() <= stats["p95"].as_f64());
}

#[test]
fn restricted_catalog_hides_impact_fields() {
    let body = catalog(&[], Access::Restricted);
    for hidden in ["fwci", "citations", "citation_normalized_percentile", "citation_normalized_percentile.value"] {
        assert!(field(&body, hidden).is_none(), "{hidden}");
    }
    assert!(field(&body, "citation_count").is_some());
    let defaults = body["default_fields"].as_array().cloned().unwrap_or_default();
    assert!(!defaults.contains(&"fwci".into()));
}

#[test]
fn other_collections_and_bad_parameters() {
    let authors = catalog(&[("collection", "authors")], Access::Full);
    assert!(field(&authors, "orcid").is_some());
    let sources = catalog(&[("collection", "sources"), ("include_sample_values", "true")], Access::Full);
    let types = field(&sources, "venue_type").and_then(|f| f["sample_values"].as_array().cloned()).unwrap_or_default();
    assert_eq!(types.len(), 9);
}

#[test]
fn an_unknown_collection_is_refused_and_a_flag_is_true_or_false() {
    for unknown in ["venues", "AAA", "Papers"] {
        let refused = get_as("/meta-catalog", &[("collection", unknown)], Access::Full);
        assert_eq!(refused.status, 400, "{unknown}");
        assert_eq!(json(&refused)["details"]["parameter"], "collection");
    }
    assert_eq!(
        catalog(&[("collection", "papers")], Access::Full)["filter_operators"].as_array().map(Vec::len),
        Some(11)
    );
    let plain = catalog(&[], Access::Full);
    assert_eq!(catalog(&[("include_field_stats", "false"), ("include_sample_values", "false")], Access::Full), plain);
    let stats = catalog(&[("include_field_stats", "true")], Access::Full);
    assert!(field(&stats, "citation_count").is_some_and(|f| f.get("numeric_stats").is_some()));
    for bad in ["null", "TRUE", "1", "maybe"] {
        let refused = get_as("/meta-catalog", &[("include_field_stats", bad)], Access::Full);
        assert_eq!(refused.status, 400, "{bad}");
        assert_eq!(json(&refused)["details"]["parameter"], "include_field_stats");
    }
}
