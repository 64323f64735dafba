//! `GET /meta-catalog`: the field table of a collection as the token sees it, with
//! sample values and statistics computed from the corpus. Answers are cached per
//! (collection, access, options): the corpus never changes.

use std::collections::HashMap;
use std::sync::Mutex;

use bytes::Bytes;
use paperlens_core::contract::FILTER_OPERATOR_NAMES;
use serde_json::{json, Map, Value};

use super::meta_search::collection::{Authors, Collection, Papers, Sources};
use super::meta_search::fields::{FieldDef, FieldType};
use super::meta_search::value::Scalar;
use super::params::{query_bool, query_param};
use super::permissions::field_visible;
use crate::service::corpus::Corpus;
use crate::service::error::{json_response, Result, STANDARD};
use crate::service::{Access, Service, ServiceRequest, ServiceResponse};

const SAMPLE_VALUES: usize = 10;

/// (collection, full access, sample values, field stats).
type CatalogKey = (&'static str, bool, bool, bool);

#[derive(Default)]
pub struct CatalogCache {
    answers: Mutex<HashMap<CatalogKey, Bytes>>,
}

/// A flag other than `true`/`false`, or a collection other than the contract's three, is a
/// 400 naming the parameter (the contract types the flags as boolean and lists the three
/// collections, though it lists no 400 for this operation).
pub fn handle(service: &Service, request: &ServiceRequest) -> Result<ServiceResponse> {
    let samples = query_bool(&request.query, "include_sample_values", STANDARD)?.unwrap_or(false);
    let stats = query_bool(&request.query, "include_field_stats", STANDARD)?.unwrap_or(false);
    let collection = match query_param(&request.query, "collection").unwrap_or("papers") {
        "papers" | "" => Papers::NAME,
        "authors" => Authors::NAME,
        "sources" => Sources::NAME,
        other => {
            let message = format!("'collection' must be one of papers, authors, sources (got '{other}')");
            return Err(STANDARD.invalid_param("collection", message));
        }
    };
    let key = (collection, request.access == Access::Full, samples, stats);
    let cache = &service.catalog_cache().answers;
    if let Some(body) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(ServiceResponse { status: 200, headers: json_headers(), body });
    }
    let corpus = service.corpus();
    let answer = match collection {
        "authors" => catalog::<Authors>(corpus, request.access, samples, stats),
        "sources" => catalog::<Sources>(corpus, request.access, samples, stats),
        _ => catalog::<Papers>(corpus, request.access, samples, stats),
    };
    let response = json_response(200, serde_json::to_vec(&answer).unwrap_or_default());
    if let Ok(mut c) = cache.lock() {
        c.insert(key, response.body.clone());
    }
    Ok(response)
}

fn json_headers() -> Vec<(String, String)> {
    vec![("content-type".into(), "application/json".into())]
}

fn catalog<C: Collection>(corpus: &Corpus, access: Access, samples: bool, stats: bool) -> Value {
    let records = C::records(corpus);
    let visible: Vec<&FieldDef<C::Record>> = C::fields().iter().filter(|f| field_visible(access, f.name)).collect();
    let fields: Vec<Value> = visible
        .iter()
        .map(|def| {
            let mut field = Map::new();
            field.insert("name".into(), json!(def.name));
            field.insert("type".into(), json!(def.ty.as_str()));
            field.insert("filterable".into(), json!(def.caps.filter));
            field.insert("sortable".into(), json!(def.caps.sort));
            field.insert("searchable".into(), json!(def.caps.search));
            field.insert("default_returned".into(), json!(def.caps.default));
            field.insert("projectable".into(), json!(def.caps.project));
            field.insert("description".into(), json!(def.description));
            let operators: &[&str] = if def.caps.filter { def.ty.operators() } else { &[] };
            field.insert("operators".into(), json!(operators));
            if samples && def.enumerable {
                field.insert("sample_values".into(), json!(sample_values(def, corpus, records)));
            }
            if stats {
                add_stats(&mut field, def, corpus, records);
            }
            Value::Object(field)
        })
        .collect();
    let default_fields: Vec<&str> = visible.iter().filter(|f| f.caps.default).map(|f| f.name).collect();
    json!({ "fields": fields, "default_fields": default_fields, "filter_operators": FILTER_OPERATOR_NAMES })
}

fn scalar_json(s: Scalar<'_>) -> Value {
    serde_json::to_value(s).unwrap_or(Value::Null)
}

/// The most frequent values, most frequent first.
fn sample_values<R>(def: &FieldDef<R>, corpus: &Corpus, records: &[R]) -> Vec<Value> {
    let mut counts: HashMap<String, (Value, usize)> = HashMap::new();
    for record in records {
        (def.get)(corpus, record).any(|s| {
            let v = scalar_json(s);
            counts.entry(v.to_string()).or_insert((v, 0)).1 += 1;
            false
        });
    }
    let mut values: Vec<(String, (Value, usize))> = counts.into_iter().collect();
    values.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(a.0.cmp(&b.0)));
    values.into_iter().take(SAMPLE_VALUES).map(|(_, (v, _))| v).collect()
}

fn add_stats<R>(field: &mut Map<String, Value>, def: &FieldDef<R>, corpus: &Corpus, records: &[R]) {
    match def.ty {
        FieldType::Integer | FieldType::Float => {
            let mut numbers: Vec<f64> = Vec::with_capacity(records.len());
            for record in records {
                (def.get)(corpus, record).any(|s| {
                    numbers.extend(s.number());
                    false
                });
            }
            if numbers.is_empty() {
                return;
            }
            numbers.sort_by(f64::total_cmp);
            let at = |q: f64| numbers[((numbers.len() - 1) as f64 * q).round() as usize];
            let avg = numbers.iter().sum::<f64>() / numbers.len() as f64;
            field.insert(
                "numeric_stats".into(),
                json!({
                    "min": numbers[0],
                    "max": numbers[numbers.len() - 1],
                    "avg": (avg * 10_000.0).round() / 10_000.0,
                    "p50": at(0.5),
                    "p95": at(0.95),
                }),
            );
        }
        FieldType::String | FieldType::ListString | FieldType::ListObject | FieldType::Boolean | FieldType::Date => {
            let mut distinct = std::collections::HashSet::new();
            for record in records {
                (def.get)(corpus, record).any(|s| {
                    distinct.insert(scalar_json(s).to_string());
                    false
                });
            }
            if !distinct.is_empty() {
                field.insert("cardinality_estimate".into(), json!(distinct.len()));
            }
        }
        FieldType::Object => {}
    }
}
